"""Plotly figure builders, tables and plain-language read-outs (no Streamlit): :mod:`.estimates` (true vs
estimated frequencies), :mod:`.estimator_comparison` (bias, variance, query errors, the advisor),
:mod:`.distributions` (numerical distributions and means in real units), :mod:`.tradeoff` (error and attack
curves), :mod:`.lecture` (the lecture's worked examples) and :mod:`.style` (the palette)."""
