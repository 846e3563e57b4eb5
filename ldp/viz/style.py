"""The shared look of every figure: the colour-blind-safe palette."""

from __future__ import annotations

# Okabe–Ito colour-blind-safe palette.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]

__all__ = ["PALETTE"]


def plain_text(value: object) -> str:
    """A user-provided string (a category, a column name) as text in a Plotly figure: HTML escaped, since Plotly
    renders tags such as ``<a href=…>`` in tick labels and hover text as live markup (issue 10 item 13)."""
    import html

    return html.escape(str(value), quote=False)
