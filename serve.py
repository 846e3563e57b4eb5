"""The server ``./dev app`` starts: the dashboard (``app.py``) and, on the same port, the live classroom's HTTP
routes and student page (``ldp.classroom.http``), mounted with Streamlit's ``st.App(..., routes=[...])``.

``streamlit run serve.py`` finds ``app`` (an ``st.App``) and serves it with uvicorn; the pages stay in ``app.py``
(``streamlit run app.py`` still serves the dashboard alone, without the classroom routes).
"""

from __future__ import annotations

import os

# One BLAS thread per matrix product: the server's parallelism is its sessions (and the engine's own thread pool);
# OpenBLAS's default of one thread per core spin-waits against them, and a small product (50×105 @ 105×500) took a
# median 22 ms instead of 0.1 ms on a loaded 2-core server. Read by OpenBLAS when numpy is first imported, so set
# before any import that reaches numpy (app.py does the same for `streamlit run app.py`).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import streamlit as st

from ldp.classroom.http import classroom_routes

app = st.App("app.py", routes=classroom_routes())
