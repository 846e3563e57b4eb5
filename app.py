"""LDP Explorer — the dashboard's entry point: page navigation only.

Run with ``./dev app`` (or ``streamlit run app.py``). Each page lives in ``pages/`` and only wires
widgets to ``ldp`` (maths) and ``ldp.viz`` (figures); shared widgets are in ``pages/common.py``.
"""

from __future__ import annotations

import streamlit as st

st.set_page_config(page_title="LDP Explorer", page_icon="🔒", layout="wide", initial_sidebar_state="expanded")

PAGES = {
    "Explore": [
        st.Page("pages/playground.py", title="Playground", icon="🎛️", default=True, url_path="playground"),
        st.Page("pages/tradeoff.py", title="Trade-off curves", icon="📉", url_path="tradeoff"),
        st.Page("pages/numerical.py", title="Numerical distributions", icon="📏", url_path="numerical"),
        st.Page("pages/postprocessing.py", title="Post-processing lab", icon="🧪", url_path="postprocessing"),
    ],
    "Understand": [
        st.Page("pages/learn.py", title="Learn", icon="🎓", url_path="learn"),
    ],
}

st.navigation(PAGES).run()
