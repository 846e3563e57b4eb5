"""LDP Explorer — the dashboard's entry point: page navigation only.

Run with ``./dev app`` (or ``streamlit run app.py``). Each page lives in ``views/`` (not ``pages/``, which
Streamlit would serve in its legacy pages-folder mode before st.navigation first runs) and only wires
widgets to ``ldp`` (maths) and ``ldp.viz`` (figures); shared widgets are in ``views/common.py``.
"""

from __future__ import annotations

import os

# One BLAS thread per matrix product: the server's parallelism is its sessions (and the engine's own thread pool);
# OpenBLAS's default of one thread per core spin-waits against them, and a small product (50×105 @ 105×500) took a
# median 22 ms instead of 0.1 ms on a loaded 2-core server. Read by OpenBLAS when numpy is first imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import streamlit as st
from streamlit import logger as streamlit_logger

if __name__ == "__mp_main__":  # an offload worker re-importing this script (see the end): the pages' modules it
    # imports define cached functions outside any Streamlit run, and Streamlit logged a warning for each ("No
    # runtime found", "missing ScriptRunContext"), 26-34 lines in the terminal of every ./dev app; errors still show
    streamlit_logger.set_log_level("error")

from views import heap

with heap.first_imports():  # the engine and the pages' shared modules, once per process (views/heap.py)
    from ldp.core.cancellation import Cancelled, cancel_when
    from views import common, offload
    from views.allocator import keep_freed_buffers
    from views.cache_keys import remember_function_keys

PAGES = {
    "Explore": [
        st.Page("views/playground.py", title="Playground", icon=":material/tune:", default=True, url_path="playground"),
        st.Page("views/tradeoff.py", title="Trade-off curves", icon=":material/show_chart:", url_path="tradeoff"),
        st.Page("views/numerical.py", title="Numerical distributions", icon=":material/straighten:",
                url_path="numerical"),
        st.Page("views/postprocessing.py", title="Post-processing lab", icon=":material/science:",
                url_path="postprocessing"),
        st.Page("views/heavy_hitters.py", title="Heavy hitters", icon=":material/trending_up:",
                url_path="heavy_hitters"),
        st.Page("views/itemsets.py", title="Frequent items", icon=":material/shopping_basket:", url_path="itemsets"),
        st.Page("views/vector_means.py", title="Means of vectors", icon=":material/scatter_plot:",
                url_path="vector_means"),
        st.Page("views/joint.py", title="More than one column", icon=":material/grid_on:", url_path="joint"),
    ],
    "Understand": [
        st.Page("views/learn.py", title="Learn", icon=":material/school:", url_path="learn"),
        st.Page("views/story.py", title="Story for stakeholders", icon=":material/slideshow:", url_path="story"),
        st.Page("views/privacy.py", title="Privacy questions", icon=":material/shield:", url_path="privacy"),
        st.Page("views/classroom.py", title="Classroom", icon=":material/groups:", url_path="classroom"),
        st.Page("views/reproduce.py", title="Reproduce the papers", icon=":material/history_edu:",
                url_path="reproduce"),
    ],
}



@st.cache_resource(show_spinner=False)
def _precompute_reproduce() -> bool:
    """Once per server, in a background thread: the Reproduce page's default studies (about a minute of CPU), so
    that its first visit shows them at once. Started after the first page's run, and then only after
    ``long_work.PRECOMPUTE_DELAY_S`` while the browser draws that page (started before, it competed with that page
    for the two cores: cold start 4.1 → 7.3 s, benchmarks/bench_dashboard.py). LDP_PRECOMPUTE=0 turns it off (the
    tests do)."""
    if os.environ.get("LDP_PRECOMPUTE", "1") == "0":
        return False

    def work() -> None:
        from views import reproduce  # imported here: the first page does not need it

        reproduce.default_studies()
        heap.freeze_long_lived()  # the imports and these studies live as long as the server (views/heap.py)

    common.precompute(work)
    return True


@st.cache_resource(show_spinner=False)
def _start_offload() -> bool:
    """Once per server, after the first page is drawn: the worker processes of views/offload.py."""
    return offload.start()


def main() -> None:
    """Draw the page the URL names, with the shared header and the server's once-only background work."""
    keep_freed_buffers()  # once per process: numpy's freed buffers reused, not faulted in again (views/allocator.py)
    remember_function_keys()  # once per process: a page's cached functions keyed once (views/cache_keys.py)
    st.set_page_config(page_title="LDP Explorer", page_icon=":material/lock:", layout="wide",
                       initial_sidebar_state="collapsed" if common.presenting() else "expanded")
    common.apply_pending_configuration()
    # Captions in Streamlit's default grey measured 3.9:1 against the white page (WCAG AA asks 4.5:1 for body text):
    # darker grey, 7:1, so explanations stay legible on a projector.
    st.markdown("<style>[data-testid='stCaptionContainer'] { color: rgba(49, 51, 63, 0.88); }</style>",
                unsafe_allow_html=True)
    if common.render(common.PRESENT, st.sidebar):  # larger type for a projector
        st.markdown("<style>html { font-size: 20px; } .stMainBlockContainer { padding-top: 0.5rem; }"
                    " [data-testid='stMain'] h1 { font-size: 1.9rem; padding: 0 0 0.4rem 0; }</style>",
                    unsafe_allow_html=True)  # a configuration loaded on the page, before any widget is drawn
    common.accessibility()  # charts named by their titles, icon ligatures hidden from screen readers
    common.open_message_area()  # errors raised while a page draws its sidebar are shown here, in the main panel
    with cancel_when(common.session_gone):  # work for a closed tab stops at the library's next checkpoint
        try:
            st.navigation(PAGES).run()  # past ten pages Streamlit folds the rest behind "View more" (one click)
        except Cancelled:
            st.stop()
        finally:  # also when the page stops or reruns itself (the Classroom's join form ends with st.stop())
            _precompute_reproduce()
            with common.friendly_errors("the worker processes"):  # a bad LDP_OFFLOAD_WORKERS, said in one line
                _start_offload()


# Streamlit runs this script as __main__. A worker process that multiprocessing starts from the server (spawn or
# forkserver: the Trade-off page's sweep pool, views/offload.py's workers) first re-imports its parent's __main__ —
# this script — as __mp_main__: it must define, never draw, nor start the server's background work in every worker.
if __name__ != "__mp_main__":
    main()
