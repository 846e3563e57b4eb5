"""Pure figure builders (Plotly); no Streamlit import, so they are testable alone."""

from ldp.viz.figures import PALETTE, histogram_overlay, metrics_table

__all__ = ["PALETTE", "histogram_overlay", "metrics_table"]
