"""Studies that combine the engine, the estimators and the metrics into the questions people ask: trade-off
curves, the advisor, the papers' figures, the lecture's examples, heavy hitters, itemsets, means of vectors and the
briefing for stakeholders. Pages and the CLI call these; nothing here draws or imports Streamlit."""

__all__: list[str] = []
