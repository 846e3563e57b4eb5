"""The declared controls (views/controls.py) and the URL: every control of every page is bound to the URL query
parameter named by its key — set every control to a non-default value, reopen the page with only the URL those
values make, and every value comes back — hostile URL values are refused with a message instead of breaking the
page, settings survive a page switch, and the pages keep to wiring and text (no broad excepts, no roadmap).

The URL a browser holds is written by Streamlit's frontend (AppTest does not run it), so ``url_of`` writes it the
same way from the widgets on the page: the number, ``true``/``false``, or the label a selection shows.
tests/e2e checks the same round trip in a real browser.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterable
from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

import ldp  # noqa: E402
from views import common  # noqa: E402
from views.controls import Control  # noqa: E402
from views.learn import TABS as LEARN_TABS  # noqa: E402
from views.reproduce import PAPERS  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
KINDS = ("selectbox", "select_slider", "slider", "radio", "number_input", "multiselect", "toggle", "checkbox",
         "text_input")
REPRODUCE_TABS = list(PAPERS)
PAGES = ("playground", "tradeoff", "numerical", "postprocessing", "learn", "privacy", "reproduce", "story",
         "heavy_hitters", "itemsets", "vector_means", "joint")


# --------------------------------------------------------------------------- helpers
def controls_of(page: str) -> tuple[Control, ...]:
    """The page's declared controls (importing a page does not run it: Streamlit runs it as __main__)."""
    return importlib.import_module(f"views.{page}").CONTROLS


def open_page(page: str, query: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(query or {})
    at.switch_page(f"views/{page}.py")
    at.run()
    assert not at.exception, at.exception
    return at


def playground_charts_ok(at: AppTest) -> bool:
    """The Playground drew its histogram, and its CDF where the values have an order (not airport codes)."""
    ordered = not any("without an order" in c.value for c in at.caption)
    return len(at.get("plotly_chart")) == 1 + ordered


def widgets(at: AppTest) -> dict:
    """Every keyed widget on the page (main area and sidebar) by key."""
    return {w.key: w for kind in KINDS for w in getattr(at, kind) if w.key}


def label_of(w, value) -> str:
    return str(w.format_func(value))


def url_value(w, kind: str) -> str | list[str]:
    """What the frontend writes into the URL for this widget's value."""
    if kind in ("checkbox", "toggle"):
        return "true" if w.value else "false"
    if kind in ("selectbox", "radio"):
        return w.options[w.index]
    if kind == "select_slider":
        return label_of(w, w.value)
    if kind == "multiselect":
        return [w.options[i] for i in w.indices] or ""  # an emptied selection: ?key= (empty)
    return str(w.value)


def url_of(at: AppTest, controls: Iterable[Control]) -> dict[str, str | list[str]]:
    found = widgets(at)
    return {c.key: url_value(found[c.key], c.kind) for c in controls if c.key in found}


def other_value(w, control: Control):
    """A value other than the widget's current one, valid for it (small steps keep the pages fast)."""
    kind = control.kind
    if kind in ("checkbox", "toggle"):
        return not w.value
    if kind == "text_input":  # a parameter's free text has its own test (valid values); other text: a valid other
        if control.key in common.GENERATED_KEYS:
            return None
        return next(v for suffix, v in OTHER_TEXT.items() if control.key.endswith(suffix))
    if kind in ("slider", "number_input"):
        step = w.step or 1
        value = w.value - step if w.min is None or w.value - step >= w.min else w.value + step
        return int(value) if isinstance(w.value, int) else float(value)
    labels = list(w.options)
    raw = list(control.options) if control.options and len(control.options) == len(labels) else labels
    if kind == "multiselect":
        chosen = [raw[i] for i in w.indices]
        if len(chosen) >= 2:
            return chosen[:-1]
        others = [o for o in raw if o not in chosen]
        return chosen + others[:1] if others else []
    current = labels.index(label_of(w, w.value)) if kind == "select_slider" else w.index
    return raw[(current + 1) % len(raw)]


#: URL parameters that choose what a page shows (its open tab, an open on-demand expander), not controls the round
#: trip sets.
VIEW_KEYS = ("learn_tab", "rp_paper", "vm_check_open", "num_mean_open", "pp_advisor_open")
#: Pages opened with their scenario's pins already in the URL rather than set one rerun at a time: every rerun of
#: the Reproduce page computes its open paper's studies again for the new settings (seconds each: the granularity
#: sweep alone up to 2,048 buckets), which made its URL round trip 54 s of the suite, and a page opened from a URL
#: is what the round trip checks anyway.
PINNED_BY_URL = frozenset({"reproduce"})
#: Per page, the on-demand sections whose controls the hostile-link test needs on the page.
OPEN_VIEWS = {"postprocessing": {"pp_advisor_open": "true"}}


def set_everything(at: AppTest, controls: tuple[Control, ...], pins: dict, *, pinned_by_url: bool = False) -> set[str]:
    """Set the pinned values (in order; ``pinned_by_url``: the page was opened with them in its URL), then every
    other control on the page to another value, rounds until no new control appears; returns the keys that were
    set."""
    by_key = {c.key: c for c in controls}
    changed: set[str] = set(pins) if pinned_by_url else set()
    for key, value in pins.items() if not pinned_by_url else ():
        widgets(at)[key].set_value(value)
        at.run()
        assert not at.exception, f"{key}={value!r}: {at.exception}"
        changed.add(key)
    for _ in range(6):
        todo = [k for k, w in widgets(at).items() if k in by_key and k not in changed and k not in pins
                and not w.disabled]
        if not todo:
            break
        # every control of the round set at once, then one rerun (the round trip is the same code path for each;
        # a rerun per control made this test 2½ minutes of the suite on the slow pages — issue "Fast everywhere")
        current = widgets(at)
        round_values = {}
        for key in todo:
            w = current.get(key)
            if w is None or w.disabled:
                continue
            value = other_value(w, by_key[key])
            if value is not None:
                w.set_value(value)
                round_values[key] = value
        if not round_values:
            break
        at.run()
        assert not at.exception, f"{round_values}: {at.exception}"
        changed |= set(round_values)
    return changed


OTHER_TEXT = {"_mix": "0.5*gaussian(mu=0.5,sigma=0.1)+0.5*uniform", "_dask": "tcp://127.0.0.1:8786"}
RECONSTRUCTED = [c.name for c in ldp.mechanisms_of("numerical") if c.reconstructions]
# Pinned settings per scenario: together they bring every declared control onto the page (uploads aside).
SCENARIOS = {
    "playground": [
        {"data_source": "Sample data", "data_sample": "flights", "data_column": "dest", "whole": False},
        {"data_source": "Sample data", "data_column": "dep_time_hours", "mech": "l-oue", "whole": True},
        {"data_source": "Synthetic", "data_synthetic": "zipf"},
        {"data_source": "Synthetic", "data_synthetic": "mixture"},
    ],
    "tradeoff": [
        {"to_data_source": "Sample data", "to_axis": "epsilon", "to_inv_measure": "mse"},
        {"to_data_source": "Sample data", "to_data_column": "distance", "to_axis": "users", "to_inv_measure": "sd"},
        {"to_data_source": "Synthetic", "to_data_synthetic": "zipf", "to_axis": "d"},
        {"to_data_source": "Synthetic", "to_data_synthetic": "mixture", "to_trials": 2},
    ],
    "numerical": [  # the mean and variance (its control num_mean_mech) is drawn only while its expander is open
        {"num_data_source": "Sample data", "num_trials": 2, "num_mean_open": "true"},
        {"num_data_source": "Synthetic", "num_data_synthetic": "zipf", "num_trials": 2},
        {"num_data_source": "Sample data", "num_trials": 1, "num_users": 2000, "num_nmechs": RECONSTRUCTED},
        {"num_data_source": "Synthetic", "num_data_synthetic": "mixture", "num_trials": 1, "num_users": 2000},
    ],
    "postprocessing": [  # the advisor's controls are drawn only while its expander is open (VIEW_KEYS)
        {"pp_advisor_open": "true", "pp_data_source": "Sample data", "pp_engine": "fast", "pp_est": ["mi", "norm-sub"],
         "pp_adv_task": "topk"},
        {"pp_advisor_open": "true", "pp_data_source": "Sample data", "pp_est": ["mi", "norm-sub"], "pp_trials": 4,
         "pp_adv_task": "set", "pp_mech": "l-osue"},
        {"pp_advisor_open": "true", "pp_est": ["mi", "norm-sub"], "pp_trials": 4, "pp_adv_task": "threshold",
         "pp_data_source": "Synthetic", "pp_data_synthetic": "zipf"},
        {"pp_advisor_open": "true", "pp_data_source": "Sample data", "pp_est": ["mi", "norm-sub"], "pp_trials": 4,
         "pp_adv_task": "subsets", "pp_users": 1000, "pp_engine": "exact"},
        {"pp_est": ["mi"], "pp_trials": 2, "pp_data_source": "Synthetic", "pp_data_synthetic": "mixture"},
    ],
    "learn": [  # only the open tab's sections are drawn: each scenario opens one (VIEW_KEYS)
        # the class's size and 'yes' count are drawn only for a described class
        {"learn_tab": LEARN_TABS[1], "learn_w_source": "described"},
        {"learn_tab": LEARN_TABS[5], "learn_mech": "l-oue", "learn_eps": 2.0, "learn_q": 3},  # K of Q for Q ≥ 2
        {"learn_tab": LEARN_TABS[2]},
        {"learn_tab": LEARN_TABS[3]},
        {"learn_tab": LEARN_TABS[4]},
    ],
    "privacy": [
        {},
    ],
    "reproduce": [  # only the open paper's sections are drawn: each scenario opens one (VIEW_KEYS)
        # the paper's plain Eq. (3) over the whole IBU grid takes minutes: pinned off (its URL round trip is a
        # checkbox's, which the other pages' checkboxes exercise)
        {"rp_paper": REPRODUCE_TABS[0], "rp_users": 20_000, "rp_trials": 2, "rp_grid_plain": False},
        {"rp_paper": REPRODUCE_TABS[1], "rp_users": 20_000, "rp_trials": 1},  # the slowest studies: one trial
        {"rp_paper": REPRODUCE_TABS[2], "rp_users": 20_000, "rp_trials": 2},  # the consistency tab: sidebar only
    ],
    "heavy_hitters": [
        {"hh_method": "pem", "hh_source": "zipf", "hh_users": 20_000, "hh_bits": 16, "hh_threshold": 0.02},
        {"hh_method": "segments", "hh_source": "flight"},
        {"hh_method": "multiple-channel", "hh_source": "zipf", "hh_users": 20_000, "hh_bits": 12},
    ],
    "itemsets": [
        {"is_method": "psfo", "is_source": "synthetic", "is_users": 20_000, "is_items": 50},
        {"is_method": "svsm", "is_source": "flights", "is_engine": "fast"},
    ],
    "vector_means": [  # the check's controls are drawn only while its expander is open (VIEW_KEYS: in the URL)
        {"vm_check_open": "true", "vm_source": "Uniform vectors"},  # the default: uniform vectors of a chosen d
        {"vm_check_open": "true", "vm_source": "Sample data", "vm_users": 2000},  # a sample's columns and n
    ],
    "joint": [
        {"jt_source": "Correlated pair (synthetic)"},
        {"jt_source": "Sample data", "jt_sample": "election", "jt_columns": ["party", "votes_dole", "age"]},
    ],
    "story": [
        {"story_data_source": "Sample data", "story_data_column": "dest"},
        {"story_data_source": "Sample data", "story_data_column": "dep_time_hours", "story_mech": "l-grr"},
        {"story_data_source": "Synthetic", "story_data_synthetic": "zipf"},
        {"story_data_source": "Synthetic", "story_data_synthetic": "mixture"},
    ],
}


@pytest.mark.parametrize("page", PAGES)
def test_every_control_comes_back_from_the_url(page):
    """Each scenario: set every control on the page to another value, write the URL those values make, reopen the
    page from that URL alone, and find every value again; over the scenarios, every declared control is set."""
    controls = controls_of(page)
    kinds = {c.key: c.kind for c in controls}
    exercised: set[str] = set()
    for scenario in SCENARIOS[page]:
        view = {k: scenario[k] for k in VIEW_KEYS if k in scenario}  # the tab to open: in the URL, not a control
        pins = {k: v for k, v in scenario.items() if k not in view}
        by_url = page in PINNED_BY_URL
        at = open_page(page, {**view, **(pins if by_url else {})})
        if by_url:
            assert not at.error and {k: widgets(at)[k].value for k in pins} == pins, pins  # the URL set them
        changed = set_everything(at, controls, pins, pinned_by_url=by_url)
        on_page = widgets(at)
        for key in kinds:
            if key in on_page:  # bound to the URL parameter named by its key
                assert on_page[key].proto.query_param_key == key, key
        expected = {key: on_page[key].value for key in kinds if key in on_page}
        query = {**view, **url_of(at, controls)}
        again = widgets(open_page(page, query))
        for key, value in expected.items():
            assert key in again, f"{page}: {key} is not on the page reopened from {query}"
            assert again[key].value == value, f"{page}: {key} = {again[key].value!r}, not {value!r} ({query})"
        exercised |= changed & set(expected)
    uploads = {c.key for c in controls if c.key.endswith(("_upcol", "_upkind"))}  # a file cannot be in a URL
    # the controls generated from Param tables share one code path: test_parameter_controls_* cover each kind
    assert set(kinds) - uploads - exercised - common.GENERATED_KEYS == set()


# a mechanism parameter of each control kind (text: derived default; selectbox: choices) and estimator parameters
# (integer and float number inputs, a choice), set on the Playground and read back from the URL alone
PARAMETER_VALUES = {"mech": "olh", "est": ["mi", "ibu", "base-cut"], "mech_olh_g": "6", "mech_olh_hash": "xxh32",
                    "est_ibu_max_iter": 500, "est_ibu_method": "squarem", "est_base_cut_alpha": 0.5}


def test_parameter_controls_of_each_kind_come_back_from_the_url():
    at = open_page("playground")
    for key, value in PARAMETER_VALUES.items():
        widgets(at)[key].set_value(value)
        at.run()
        assert not at.exception, f"{key}={value!r}: {at.exception}"
    assert not at.error, [e.value for e in at.error]
    found = widgets(at)
    for key in PARAMETER_VALUES:
        assert found[key].proto.query_param_key == key
    controls = controls_of("playground")
    query = url_of(at, [c for c in controls if c.key in PARAMETER_VALUES])
    again = widgets(open_page("playground", query))
    for key, value in PARAMETER_VALUES.items():
        assert again[key].value == value, (key, again[key].value, query)


def test_every_registered_parameter_has_a_control_with_its_default_and_bounds():
    """The generated controls are the Param tables: same default (blank where the paper derives it), the
    choices as options, integer bounds as the widget's bounds."""
    mech = common.mechanism_controls("t_mech", eps_key="t_eps")
    est = common.estimator_controls("t_est")
    for owners, table in ((ldp.MECHANISMS, mech.parameters), (ldp.ESTIMATORS, est.parameters)):
        for name, pairs in table.items():
            for param, control in pairs:
                assert control.key == f"t_{'mech' if owners is ldp.MECHANISMS else 'est'}_{name}_{param.name}" \
                    .replace("-", "_")
                if param.choices is not None:
                    assert [o for o in control.options if o != ""] == list(param.choices)
                elif param.default is None:
                    assert control.kind == "text_input" and control.default == ""
                elif param.type is int:
                    assert control.default == param.default and control.min_value == param.low
                if param.default is not None:
                    assert str(param.default) in control.label


def test_settings_survive_a_page_switch():
    at = open_page("playground")
    found = widgets(at)
    found["eps"].set_value(0.3)
    found["users"].set_value(5000)
    found["est"].set_value(["norm-sub"])
    found["data_column"].set_value("carrier")
    at.run()
    at.switch_page("views/learn.py")
    at.run()
    assert not at.exception and "learn_eps" in widgets(at) and "eps" not in widgets(at)
    at.switch_page("views/playground.py")
    at.run()
    assert not at.exception
    found = widgets(at)
    assert (found["eps"].value, found["users"].value, found["est"].value) == (0.3, 5000, ["norm-sub"])
    assert found["data_column"].value == "carrier"
    assert any("ε = 0.3" in m.value for m in [*at.markdown, *at.warning])


# --------------------------------------------------------------------------- hostile URLs
@pytest.mark.parametrize(("query", "key", "expected"), [
    ({"users": "1e400"}, "users", 1_000_000),  # Streamlit alone: OverflowError in the integer number input
    ({"seed": "Infinity"}, "seed", 0),
    ({"users": "NaN"}, "users", 1_000_000),
    ({"users": "5e9"}, "users", 1_000_000),  # above the declared bound
    ({"topk": "500"}, "topk", 10),  # k larger than d (105 destinations)
    ({"data_column": "dep_time_hours", "data_lo": "-1e400"}, "data_lo", 0.0),
])
def test_hostile_numbers_are_refused_with_a_message(query, key, expected):
    at = open_page("playground", query)
    assert not at.error, [e.value for e in at.error]
    assert widgets(at)[key].value == expected
    assert any("The link's value for" in w.value and "starts from" in w.value for w in at.warning)
    assert playground_charts_ok(at)  # the page works
    at.run()  # the refused value is out of the URL: the next run is quiet
    assert not at.exception and not any("The link's value" in w.value for w in at.warning)


def test_a_url_value_that_new_data_makes_invalid_is_reset_not_refused():
    """After the first run the widget's own value wins over the URL: when new data shrink a bound below the value
    the URL still holds (k = 50, then a column of 3 values), Streamlit resets the widget to its default."""
    at = open_page("playground")
    widgets(at)["topk"].set_value(50)
    at.run()
    at.query_params["topk"] = "50"  # what the browser's URL now holds
    widgets(at)["data_column"].set_value("origin")
    at.run()
    assert not at.exception and not at.error
    assert widgets(at)["topk"].value == 3 and not any("The link's value" in w.value for w in at.warning)


@pytest.mark.parametrize("query", [
    {"eps": "NaN"}, {"eps": "0.7"}, {"mech": "nope"}, {"est": ["nope"]}, {"conf": "1e400"}, {"whole": "yes"},
    {"data_sample": "Infinity"}, {"data_bins": "1e400"},
])
def test_invalid_choices_fall_back_to_the_default(query):
    """Streamlit itself drops an invalid value of a selection, slider or checkbox: the default applies."""
    at = open_page("playground", query)
    assert not at.error, [e.value for e in at.error]
    assert playground_charts_ok(at)


@pytest.mark.parametrize(("query", "key", "expected", "said"), [
    ({"eps": "50"}, "eps", 1.0, "outside its range 0.05 to 10"),  # select_slider: was replaced silently
    ({"eps": "0.0001"}, "eps", 1.0, "outside its range 0.05 to 10"),
    ({"eps": "0.7"}, "eps", 0.68, "the nearest, 0.68"),  # between two steps: the nearest
    ({"mech": "nope"}, "mech", "oue", "not one of its choices"),  # selectbox
    ({"data_source": "Nowhere"}, "data_source", "Sample data", "not one of its choices"),  # radio
    ({"conf": "0.5"}, "conf", 0.95, "outside its range 90% to 99%"),  # radio of numbers, shown as %
    ({"whole": "yes"}, "whole", False, "neither true nor false"),  # toggle
    ({"sort_freq": "1"}, "sort_freq", False, "neither true nor false"),  # checkbox
    ({"est": ["mi", "nope"]}, "est", ["mi"], "names nope"),  # multiselect: the unknown one left out
])
def test_every_replaced_link_value_is_said_in_the_main_panel(query, key, expected, said):
    """Issue "lecture hall" item 3: ?eps=50 or ?eps=0.0001 became ε = 1 with nothing said (only numbers were
    checked). Every control kind now says in the main panel what it replaced and why."""
    at = open_page("playground", query)
    assert not at.error, [e.value for e in at.error]
    assert widgets(at)[key].value == expected
    told = [w.value for w in at.main.warning if "The link's value for" in w.value]
    assert any(said in t for t in told), told
    assert playground_charts_ok(at)
    at.run()
    assert not any("The link's value" in w.value for w in at.warning)


@pytest.mark.parametrize(("query", "expected"), [
    ({"mech": "grr"}, "grr"),  # the registry name (did nothing before)
    ({"mech": "GRR (k-RR)"}, "grr"),  # the label Streamlit writes, still accepted
    ({"mech": "l-oue"}, "l-oue"),
])
def test_a_link_may_name_a_mechanism_by_its_registry_name(query, expected):
    at = open_page("playground", query)
    assert widgets(at)["mech"].value == expected
    assert not any("The link's value" in w.value for w in at.warning)
    at.run()
    label = widgets(at)["mech"].format_func(expected)
    assert widgets(at)["mech"].value == expected and at.query_params["mech"] in (label, [label])  # as the widget
    # writes it


def test_a_data_dependent_bound_refuses_on_the_learn_page():
    query = {"learn_w_n": "50", "learn_w_yes": "1e400", "learn_u_d": "4", "learn_u_v": "9"}
    at = open_page("learn", {**query, "learn_tab": LEARN_TABS[1]})  # Warner's class
    found = widgets(at)
    assert found["learn_w_n"].value == 50 and found["learn_w_yes"].value == 50  # default min(80, n)
    assert any("…of whom truly 'yes'" in w.value for w in at.warning)
    found = widgets(open_page("learn", {**query, "learn_tab": LEARN_TABS[2]}))  # one user's report
    assert found["learn_u_v"].value == 3  # an option that does not exist for d = 4: the default


def _bound_script():
    import streamlit as st

    from views.controls import Control, render

    d = render(Control("d", "slider", "d", 8, min_value=2, max_value=64))
    k = render(Control("k", "number_input", "k", min_value=1, step=1,
                       depends=lambda d: {"max_value": d, "default": min(10, d)}), d=d)
    lo = render(Control("lo", "number_input", "from", format="%.4g", follows_data=True,
                        depends=lambda d: {"default": float(d), "min_value": 0.0, "max_value": 10.0 * d}), d=d)
    st.write(f"{d} {k} {lo}")


def test_render_binds_refuses_and_follows_data():
    at = AppTest.from_function(_bound_script)
    at.query_params.update({"d": "4", "k": "3", "lo": "9.5"})
    at.run()
    assert [m.value for m in at.markdown] == ["4 3 9.5"] and not at.warning
    assert {w.key: w.proto.query_param_key for w in at.number_input} == {"k": "k", "lo": "lo"}
    at.slider(key="d").set_value(20)
    at.run()  # k = 3 is still valid; the range belongs to d = 4, so it follows d to its new default
    assert [m.value for m in at.markdown] == ["20 3 20.0"]
    at = AppTest.from_function(_bound_script)
    at.query_params.update({"d": "4", "k": "9", "lo": "1e400"})
    at.run()
    assert [m.value for m in at.markdown] == ["4 4 4.0"]
    assert len(at.warning) == 2 and "from 1 to 4" in at.warning[0].value


def test_a_control_is_declared_once_and_checks_itself():
    with pytest.raises(ValueError, match="unknown control kind"):
        Control("x", "dial", "X")
    with pytest.raises(ValueError, match="follows_data"):
        Control("x", "number_input", "X", follows_data=True)
    k = Control("k", "number_input", "k", min_value=1, depends=lambda d: {"max_value": d, "default": min(10, d)})
    assert k.at(d=4).max_value == 4 and k.at(d=4).default == 4 and k.max_value is None
    assert k.at(d=4).refusal(["3"]) is None and k.at(d=4).refusal([]) is None
    for raw in ("5", "1e400", "NaN", "Infinity", "0x10", "abc", "-1"):
        assert "from 1 to 4" in k.at(d=4).refusal([raw]), raw
    users = Control("users", "number_input", "Users", 1000, min_value=10, max_value=10**9)
    assert users.refusal(["123.7"]) is None and users.refusal(["1e3"]) is None
    assert users.refusal(["5", "100"]) is None  # the last value counts, as in Streamlit
    choice = Control("m", "selectbox", "M", "b", options=["a", "b"], format_func=str.upper)
    assert choice.refusal(["A"]) is None and choice.read_url(["a"]) == ("a", None)  # its label, or the option
    assert "not one of its choices (A, B): it starts from B" in choice.refusal(["nope"])
    with pytest.raises(TypeError):
        users.at(d=4)
    with pytest.raises(ValueError, match="needs a default"):
        k.widget_arguments()  # its default comes from the data: k.at(d=…)
    assert k.at(d=4).widget_arguments() == {"min_value": 1, "max_value": 4, "value": 4}
    assert Control("s", "multiselect", "S", options=["a"]).widget_arguments() == {"options": ["a"], "default": []}


# --------------------------------------------------------------------------- pages: wiring and text only
def _page_sources() -> dict[str, ast.Module]:
    return {p.name: ast.parse(p.read_text()) for p in sorted((ROOT / "views").glob("*.py"))}


#: The server's own machinery among views/ that catches errors of that machinery (not of the pages' work):
#: views/offload.py runs a call here when its worker pool has broken or been shut down, or could not start a worker.
MACHINERY_ERRORS = {"offload.py": {"BrokenProcessPool", "RuntimeError", "OSError"}}


def test_pages_never_catch_programming_errors_as_user_errors():
    for name, tree in _page_sources().items():
        # library errors, and the one resource error pages explain
        allowed = {"LDPError", "MemoryError"} | MACHINERY_ERRORS.get(name, set())
        for node in ast.walk(tree):
            if isinstance(node, ast.ExceptHandler):
                assert node.type is not None, f"{name}:{node.lineno}: a bare except"
                caught = {n.attr if isinstance(n, ast.Attribute) else n.id for n in ast.walk(node.type)
                          if isinstance(n, ast.Attribute | ast.Name) and (n.id if isinstance(n, ast.Name)
                                                                           else n.attr)[0].isupper()}
                assert caught <= allowed, f"{name}:{node.lineno} catches {caught - allowed}"


def test_pages_state_no_roadmap():
    words = ("coming soon", "to come", "roadmap", "not yet", "will be added", "in a future", "today's method",
             "todo")
    for name, tree in _page_sources().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value.lower()
                assert not any(w in text for w in words), f"{name}:{node.lineno}: {node.value[:80]!r}"


def test_an_uploaded_file_stays_in_use_across_pages():
    """Issue 11: a file uploaded on one page stays the data on every page of the session (a file uploader forgets
    its file when the page changes). The parsed table is what the upload leaves in the session."""
    import pandas as pd

    at = open_page("playground")
    at.session_state["_uploads"] = {("grades.csv", 123, 1): pd.DataFrame({"grade": list("AABBBCCD") * 50})}
    widgets(at)["data_source"].set_value("Upload")
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("grades.csv" in c.value and "uploaded earlier" in c.value for c in at.caption)
    at.switch_page("views/tradeoff.py")
    at.run()
    widgets(at)["to_data_source"].set_value("Upload")
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("grades.csv" in c.value for c in at.caption)
    at.switch_page("views/playground.py")
    at.run()
    assert widgets(at)["data_source"].value == "Upload" and any("grades.csv" in c.value for c in at.caption)


def test_downloaded_results_carry_their_settings():
    """Issue 11 item 7: the results CSV said nothing of the mechanism, ε, n or seed that made it."""
    import pandas as pd

    table = pd.DataFrame({"value": ["=1+1", "JFK"], "estimate": [-0.1, 0.2]})
    out = common.with_context(table, {"dataset": "dest", "pp_mech": "oue", "pp_eps": 0.5, "pp_users": 1000,
                                      "pp_seed": 3, "pp_est": ["mi"], "engine": "fast"})
    assert list(out.columns)[:6] == ["dataset", "mech", "eps", "users", "seed", "engine"]
    assert out["eps"].tolist() == [0.5, 0.5] and out["estimate"].tolist() == [-0.1, 0.2]
    text = common.csv_bytes(out).decode("utf-8-sig")
    assert "'=1+1" in text and "-0.1" in text


def _config_script() -> None:
    import streamlit as st

    from views.controls import Control, apply_pending_configuration, load_configuration, render

    apply_pending_configuration()
    declared = [Control("eps", "select_slider", "ε", 1.0, options=[0.5, 1.0, 2.0]),
                Control("mech", "selectbox", "Mechanism", "oue", options=["grr", "oue"], format_func=str.upper),
                Control("users", "number_input", "n", 1000, min_value=10, max_value=10**6)]
    if st.button("load", key="go"):
        st.session_state["restored"], st.session_state["refused"] = load_configuration(declared,
                                                                                        st.session_state["config"])
        st.rerun()
    for control in declared:
        render(control)


def test_a_downloaded_configuration_loads_back():
    """Issue 11 item 7: the JSON configuration can be loaded back; its values go through the URL's checks, so a
    value a control cannot take is refused with a message instead of breaking the page."""
    at = AppTest.from_function(_config_script, default_timeout=30)
    at.session_state["config"] = {"eps": 2.0, "mech": "grr", "users": 5e9, "unknown": 1}
    at.run()
    at.button(key="go").click()
    at.run()
    assert not at.exception
    assert at.session_state["restored"] == ["eps", "mech"] and at.session_state["refused"] == ["n"]  # 5e9 > bound
    found = {w.key: w.value for kind in KINDS for w in getattr(at, kind) if w.key}
    assert found["eps"] == 2.0 and found["mech"] == "grr" and found["users"] == 1000


def test_user_text_is_shown_as_text_not_markdown_or_html():
    """Issue 10 item 13: a column named with Markdown image syntax made the browser fetch the URL (st.error renders
    Markdown), and Plotly turned <a href> in values into live links."""
    import numpy as np
    import pandas as pd

    from ldp.viz import estimates

    hostile = "![x](http://evil.example/p.png)"
    assert common.plain(hostile) == "!\\[x\\](http://evil.example/p.png)"  # no image, no link: brackets escaped
    at = open_page("playground")
    at.session_state["_uploads"] = {("t.csv", 1, 1): pd.DataFrame({hostile: list("aabbbcd") * 30,
                                                                    "v": ["<a href='http://evil'>x</a>"] * 210})}
    widgets(at)["data_source"].set_value("Upload")
    at.run()
    assert not at.exception
    shown = " ".join(str(x.value) for x in [*at.markdown, *at.caption, *at.warning, *at.error, *at.info])
    assert "![x](http" not in shown
    fig = estimates.histogram_figure(["<a href='http://evil'>x</a>", "b"], np.array([0.5, 0.5]),
                                     {"MI": np.array([0.4, 0.6])}, title="T", x_title="x")
    assert all("<a " not in str(v) for v in fig.data[0].x) and "&lt;a" in str(fig.data[0].x[0])


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("hostile", ["1e400", "Infinity", "-1e999", "NaN"])
def test_every_numeric_url_value_out_of_range_is_refused_on_every_page(page, hostile):
    """Issue 10 item 9: users=1e400, seed=Infinity, topk=1e400, data_bins=1e999 raised OverflowError on five pages.
    Every numeric control of every page gets the hostile value at once; the page opens, says why, and runs."""
    numeric = [c for c in controls_of(page) if c.kind in ("number_input", "slider")]
    at = open_page(page, {**OPEN_VIEWS.get(page, {}), **{c.key: hostile for c in numeric}})
    assert not at.exception
    shown = {w.key for w in at.number_input} | {w.key for w in at.slider}
    if shown & {c.key for c in numeric}:
        assert any("The link's value for" in w.value for w in at.warning)
