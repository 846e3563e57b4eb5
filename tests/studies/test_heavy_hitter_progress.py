"""The heavy-hitter comparisons report their progress (the page draws it as a bar): rising shares ending at 1."""

from __future__ import annotations

from ldp.studies.heavy_hitters import precision_against_epsilon, precision_against_users, zipf_values


def test_progress_rises_to_one() -> None:
    values = zipf_values(2_000, 12, seed=1)
    seen: list[float] = []
    precision_against_epsilon(["pem", "treehist"], [1.0, 4.0], values, bits=12, top_k=4, progress=seen.append)
    assert seen == sorted(seen) and len(seen) >= 4 and seen[-1] == 1.0 and 0 <= seen[0] < 1
    seen.clear()
    precision_against_users(["pem"], [500, 1_500], values, epsilon=2.0, bits=12, top_k=4, progress=seen.append)
    assert seen == sorted(seen) and abs(seen[-1] - 1.0) < 1e-12 and 0 <= seen[0] <= 0.25 + 1e-12
