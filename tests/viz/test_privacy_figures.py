"""Figures of the Privacy questions page: they plot what the library computed, nothing else."""

import numpy as np

from ldp.privacy.audit import audit, make_audited
from ldp.privacy.longitudinal import longitudinal_study
from ldp.privacy.poisoning import gain_curves, simulate_attack
from ldp.privacy.shuffle import shuffle_curve
from ldp.viz.privacy import audit_figure, longitudinal_figure, poisoning_figure, shuffle_figure


def test_shuffle_figure_drops_invalid_closed_form_points():
    bounds = shuffle_curve([1_000, 100_000], 4.0, 1e-6, 10)
    fig, table = shuffle_figure(bounds)
    assert table["closed_form"].isna().tolist() == [True, False]  # 4 > log(1000/(16 log 2e6)) at n = 1000
    upper = next(t for t in fig.data if t.name.startswith("numerical upper"))
    assert list(upper.y) == table["upper"].tolist()
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"


def test_audit_and_longitudinal_figures():
    res = audit(make_audited("grr", 1.0, 2), samples=10_000, seed=1)
    fig, table = audit_figure(res)
    assert table["epsilon"].tolist() == [1.0, res.channel_epsilon, res.epsilon_lower_bound]
    study = longitudinal_study(4, 2.0, 1.0, [1, 10], users=500, seed=0)
    fig, table = longitudinal_figure(study)
    assert table["posterior_memoized"].tolist() == study.posterior_memoized and len(fig.data) == 4


def test_poisoning_figure_joins_simulations_to_curves():
    counts = np.full(8, 1000)
    sims = [simulate_attack(make_audited("grr", 1.0, 8), counts, [6, 7], 0.05, trials=2)]
    curves = gain_curves(1.0, 8, [6, 7], [sims[0].beta], sims[0].target_frequency, ("grr",))
    fig, table = poisoning_figure(curves, sims)
    assert table.loc[0, "mi"] == sims[0].simulated_gain["mi"]
    assert {t.name for t in fig.data} >= {"GRR closed form", "GRR simulated, mi", "GRR simulated, norm-sub"}
