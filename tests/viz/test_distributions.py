"""The Numerical page's figures (ldp/viz/distributions.py) are built unvalidated (ldp.viz.style.declared_figure):
each must be what Plotly's schema validates it to, so a misspelt or un-nested property fails here instead of
reaching the browser unchecked."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from ldp.viz import distributions

EDGES = np.linspace(0.0, 24.0, 7)
TRUTH = np.array([0.1, 0.2, 0.3, 0.2, 0.1, 0.1])
ESTIMATES = {"SW · EMS": TRUTH + 0.01, "CFO binning": TRUTH - 0.01}

BUILDERS = {
    "density": lambda: distributions.density_figure(EDGES, TRUTH, ESTIMATES, name="dep_time", unit="hours",
                                                    title="Density"),
    "cdf": lambda: distributions.cdf_figure(EDGES, TRUTH, ESTIMATES, name="dep_time", unit="", title="CDF"),
    "mutual information": lambda: distributions.mutual_information_figure(
        np.array([0.1, 0.5, 1.0]), np.array([0.2, 0.3, 0.25]), b_mi=0.5, b_used=1.0, bound_used=0.25, epsilon=1.0),
    "mean per trial": lambda: distributions.mean_trials_figure(np.array([1.0, 2.0, 1.5]), 1.5, 0.1, name="x",
                                                               unit="h", title="Mean"),
}


@pytest.mark.parametrize("name", list(BUILDERS))
def test_every_figure_is_what_the_schema_validates_it_to(name):
    fig = BUILDERS[name]()
    validated = go.Figure(fig.to_dict())  # validates every property (an unknown one raises)
    assert fig.to_plotly_json() == validated.to_plotly_json()
    assert fig.layout.legend.title.text == "series" and fig.layout.hoverlabel.font.size == 14
