"""The privacy side: what the guarantee means beyond one report.

- :mod:`ldp.privacy.shuffle` — central (ε, δ) of shuffled reports (Feldman–McMillan–Talwar; privacy blanket);
- :mod:`ldp.privacy.audit` — an empirical lower bound on ε from the client randomizer (LDP-Audit);
- :mod:`ldp.privacy.longitudinal` — what an attacker learns over τ rounds, with and without memoization;
- :mod:`ldp.privacy.poisoning` — fake users promoting target items (maximal-gain attack).
"""

__all__: list[str] = []
