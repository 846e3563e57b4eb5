"""The figures are drawn on Plotly's default template, which importing ``ldp.viz`` sets to "plotly_white" for the
process (ldp/viz/__init__.py). Importing ``streamlit`` afterwards replaces the default with Streamlit's own; the
dashboard imports streamlit first, so ldp.viz wins there, but a test run that collects an AppTest module after these
would not. Each figure test therefore starts from the default the dashboard has."""

from __future__ import annotations

import plotly.io as pio
import pytest


@pytest.fixture(autouse=True)
def dashboard_template():
    previous = pio.templates.default
    pio.templates.default = "plotly_white"
    yield
    pio.templates.default = previous
