"""Plotly figure builders, tables and plain-language read-outs (no Streamlit): :mod:`.estimates` (true vs
estimated frequencies), :mod:`.estimator_comparison` (bias, variance, query errors, the advisor),
:mod:`.distributions` (numerical distributions and means in real units), :mod:`.tradeoff` (error and attack
curves), :mod:`.lecture` (the lecture's worked examples) and :mod:`.style` (the palette)."""

import plotly.io as pio

__all__: list[str] = []

# Every figure is drawn on the "plotly_white" template. It is set once, as Plotly's default, instead of per figure:
# a template given to a figure is validated and copied each time (≈ 20 ms of a 22 ms histogram on the
# Playground), while the default is applied from Plotly's own cache (≈ 3 ms for the same figure) — ten sessions
# rerunning at once share two cores (benchmarks/bench_concurrency.py). Importing ldp.viz therefore sets Plotly's
# default template for the process.
pio.templates.default = "plotly_white"

