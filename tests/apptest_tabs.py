"""Helpers shared by the AppTest modules of tests/app for sections drawn on demand: a page whose tabs are bound to
the URL (``st.tabs(..., key=..., bind="query-params")``) draws only the open tab, so a test opens the tab it reads
(:func:`open_tab`) or reads every tab in turn (:class:`AllTabs`); a chart's plotted values are drawn only while
their expander is open (:func:`open_plotted_values`). A plain module, like
``ldp_test_support`` (``conftest`` is not importable by name)."""

from __future__ import annotations

from typing import Any

#: Element kinds read as AppTest attributes (``at.markdown``) and by type (``at.get("plotly_chart")``).
ATTRIBUTES = ("latex", "metric", "success", "info", "warning", "error", "markdown", "caption", "dataframe", "expander",
              "button")
TYPES = ("plotly_chart", "download_button")


def labels(at: Any) -> list[str]:
    """The labels of the tabs on the page, in order."""
    return [t.label for t in at.tabs]


def open_tab(at: Any, key: str, index: int) -> Any:
    """Open tab ``index`` of the tabs keyed ``key`` (as a click does: its session state, then a rerun)."""
    at.session_state[key] = labels(at)[index]
    at.run()
    assert not at.exception, at.exception
    return at


class AllTabs:
    """The elements of every tab of the tabs keyed ``key``, each opened in turn (the page draws only the open one);
    the first tab is open again afterwards. Reads like an AppTest (``.metric``, ``.get("plotly_chart")``, …) over
    all the tabs; ``runs[i]`` holds what the page drew with tab ``i`` open (``runs[i]["markdown"]``, …). With
    ``part="main"`` (or ``"sidebar"``) only that part of the page is read."""

    def __init__(self, at: Any, key: str, part: str | None = None) -> None:
        self.runs: list[dict[str, list]] = []
        for index in range(len(labels(at))):
            open_tab(at, key, index)
            where = at if part is None else getattr(at, part)
            run = {kind: list(getattr(where, kind)) for kind in ATTRIBUTES}
            run.update({kind: list(where.get(kind)) for kind in TYPES})
            self.runs.append(run)
        open_tab(at, key, 0)

    def get(self, kind: str) -> list:
        return [e for run in self.runs for e in run[kind]]

    def __getattr__(self, kind: str) -> list:
        if kind.startswith("_") or kind == "runs":  # not an element kind (e.g. copy/pickle probing)
            raise AttributeError(kind)
        return self.get(kind)


def open_plotted_values(at: Any) -> Any:
    """Open the "Plotted values (table)" expander of every chart on the page (as a click does: its session state,
    then a rerun): ``views.output.show_figure`` draws a chart's table only while that expander is open."""
    for chart in at.get("plotly_chart"):
        at.session_state[f"{chart.key}_values"] = True
    at.run()
    assert not at.exception, at.exception
    return at
