"""How good an estimate is: metrics (a registry), query tasks (a registry), confidence intervals and the
heavy-hitter scores — every function compares an estimate with the truth and never simulates."""

__all__: list[str] = []
