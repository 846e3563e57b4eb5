"""The server ``./dev app`` starts: the dashboard (``app.py``) and, on the same port, the live classroom's HTTP
routes and student page (``ldp.classroom.http``), mounted with Streamlit's ``st.App(..., routes=[...])``.

``streamlit run serve.py`` finds ``app`` (an ``st.App``) and serves it with uvicorn; the pages stay in ``app.py``
(``streamlit run app.py`` still serves the dashboard alone, without the classroom routes).
"""

from __future__ import annotations

import streamlit as st

from ldp.classroom.http import classroom_routes

app = st.App("app.py", routes=classroom_routes())
