"""Classroom — a live LDP collection in the lecture hall: the teacher creates a question, projects the join code,
link and QR code; students answer on their phones at ``/join/<code>`` (their browser randomizes, only the report
is sent); this page shows the reports arriving and the class's estimate converging, refreshed every 2 s.

Wiring and text only: the operations are ``ldp.classroom`` (the same functions the HTTP routes call), the figures
``ldp.viz.classroom``. Unlike the other pages nothing here is bound to the URL: a class is state on the server,
and the teacher token must never appear in a link (it stays in this browser session; the teacher can copy it to
reopen the class elsewhere).
"""

from __future__ import annotations

import streamlit as st

import ldp
from ldp.classroom import default_classroom
from ldp.classroom.links import join_url, qr_png, reachable_base
from ldp.classroom.model import CATEGORICAL_MECHANISMS, NUMERIC_MECHANISMS
from ldp.viz import classroom as viz
from views import common

REFRESH_S = 2
CHART_HEIGHT = 420  # the live estimate beside the join code and QR code: it ends on a 1280×720 projector
MECHANISM_NAMES = {name: ldp.MECHANISMS.get(name).display_name for name in CATEGORICAL_MECHANISMS + NUMERIC_MECHANISMS}
QUESTION_KINDS = {"Answer choices": "categorical", "A number": "numeric"}
SESSION = "classroom_active"   # {"code", "token"} of the class this browser session teaches


def question_form(key: str, submit_label: str) -> dict | None:
    """The fields of a question; the JSON body of ``POST /api/classes`` once submitted."""
    kind = QUESTION_KINDS[st.radio("Answers", list(QUESTION_KINDS), horizontal=True, key=f"{key}_kind")]
    with st.form(key):
        question = st.text_input("Question", "Which season do you like best?", key=f"{key}_q")
        if kind == "categorical":
            labels = st.text_area("Answer choices (one per line)", "Spring\nSummer\nAutumn\nWinter", key=f"{key}_l")
            mechs = CATEGORICAL_MECHANISMS
        else:
            c1, c2 = st.columns(2)
            lo = c1.number_input("From", value=0.0, key=f"{key}_lo")
            hi = c2.number_input("To", value=12.0, key=f"{key}_hi")
            mechs = NUMERIC_MECHANISMS
        mechanism = st.selectbox("Mechanism", mechs, format_func=MECHANISM_NAMES.get, key=f"{key}_m")
        epsilon = st.select_slider("Privacy budget ε", common.EPS_GRID, value=1.0, key=f"{key}_eps")
        if not st.form_submit_button(submit_label, type="primary"):
            return None
    body = {"question": question, "mechanism": mechanism, "epsilon": float(epsilon)}
    if kind == "categorical":
        body["labels"] = [x.strip() for x in labels.splitlines() if x.strip()]
    else:
        body["range"] = [lo, hi]
    return body


st.title("Live classroom")
room = default_classroom()
active = st.session_state.get(SESSION)

if active is None:
    st.markdown("Every student answers on their phone; **their browser randomizes the answer** and only the "
                "report reaches this server. The projector shows the reports arriving and the class's estimate.")
    new, reopen = st.tabs(["New class", "Reopen a class"])
    with new:
        body = question_form("cls_new", "Create class")
        if body is not None:
            with common.friendly_errors("this question"):
                created = room.create_class(body)
            st.session_state[SESSION] = {"code": created["code"], "token": created["teacher_token"]}
            st.rerun()
    with reopen:
        with st.form("cls_reopen"):
            code = st.text_input("Join code", key="cls_re_code").strip().upper()
            token = st.text_input("Teacher token", type="password", key="cls_re_token").strip()
            if st.form_submit_button("Reopen"):
                with common.friendly_errors("this class"):
                    room.summary(code, token)
                st.session_state[SESSION] = {"code": code, "token": token}
                st.rerun()
    st.stop()

code, token = active["code"], active["token"]
with common.friendly_errors("this class"):
    info = room.public_info(code)

# --------------------------------------------------------------------------- what the projector shows
# Two columns so that a 1280×720 projector shows everything at once: the join code, link and QR code on the left,
# the live chart on the right. The address students open is edited below the live view (its widget is drawn there;
# its value is read here, from the session, to build the link and the QR code).
base = st.session_state.get("cls_base") or reachable_base(st.context.headers.get("host"))
with common.friendly_errors("this address"):
    url = join_url(base, code)
left, right = st.columns([1, 2], gap="large")
with left:
    st.markdown(f"### Join code **{code}**")
    st.image(qr_png(url), caption="Scan to answer", width=200)
    st.markdown(f"Open **{url}** on your phone, or scan the code.")
    st.markdown(f"**Question {info['question_number']}:** {info['question']}  \n"
                f"{info['mechanism_name']} · ε = {info['epsilon']:g}")


@st.fragment(run_every=REFRESH_S)
def live_view() -> None:
    with common.friendly_errors("the class summary"):
        summary = room.summary(code, token)
    c1, c2, c3 = st.columns(3)
    c1.metric("Reports", summary["reports"])
    c2.metric("Question", summary["question_number"])
    c3.metric("Status", "open" if summary["open"] else "closed")
    estimate = viz.estimate_figure(summary)
    estimate.update_layout(height=CHART_HEIGHT - 40)  # without presentation mode: the page's own heading is taller
    common.show_figure(estimate, key="cls_estimate", main=True, present_height=CHART_HEIGHT,
                       description="Bars: matrix inversion with 95 % intervals; diamonds: the consistent "
                                   "estimate (Norm-Sub); dashes: the show of hands, once revealed.")
    st.info(viz.readout(summary))
    with common.friendly_errors("the reports per device"):
        clients = room.clients(code, token)
    for row in clients["clients"]:
        if row["surge"]:
            st.warning(f"One device sent {row['reports']} of the {clients['reports']} reports ({row['share']:.0%}): a "
                       "flood or a script? See 'Reports per device' below to drop its reports.")
    common.show_figure(viz.histogram_figure(summary), key="cls_histogram",
                       description="What the server received: only randomized reports.")


with right:
    live_view()

if st.get_option("server.address") in ("localhost", "127.0.0.1", "::1"):
    st.warning("This server listens on this computer only, so phones cannot join yet: restart it with "
               "`./dev app --classroom` to open it to the lecture hall's network.")
st.text_input("Address students open", reachable_base(st.context.headers.get("host")), key="cls_base",
              help="The address of this server on the lecture hall's network (phones cannot open your "
                   "localhost, so it is replaced by this machine's network address). `./dev app --classroom` "
                   "listens on every interface; the phones must be on a network that reaches it.")

# --------------------------------------------------------------------------- the teacher's controls
st.divider()
c1, c2, c3 = st.columns(3)
if c1.button("Close question", disabled=not info["open"], key="cls_close"):
    with common.friendly_errors("closing"):
        room.close(code, token)
    st.rerun()
with common.friendly_errors("the export"):
    csv_text = room.export_csv(code, token)
c2.download_button("Export reports (CSV)", csv_text.encode("utf-8"), f"class-{code}.csv", "text/csv",
                   key="cls_export")
with c3.popover("Delete class"):
    st.write("Deletes the class and every report, for good.")
    if st.button("Delete for good", type="primary", key="cls_delete"):
        with common.friendly_errors("deleting"):
            room.delete(code, token)
        del st.session_state[SESSION]
        st.rerun()

with st.expander("Reports per device"):
    st.caption("Each phone sends one report per question. A device is named by a pseudonym of its address and "
               "its page's token (neither is stored); one that sends many reports is flagged above the chart.")
    with common.friendly_errors("the reports per device"):
        per_device = room.clients(code, token)
    st.dataframe([{"device": r["client"], "reports": r["reports"], "share": f"{r['share']:.0%}",
                   "flagged": "yes" if r["surge"] else ""} for r in per_device["clients"]], hide_index=True,
                 key="cls_clients")
    flagged = [r["id"] for r in per_device["clients"] if r["surge"]]
    if flagged:
        victim = st.selectbox("Device", flagged, key="cls_drop_which")
        if st.button("Drop this device's reports", key="cls_drop"):
            with common.friendly_errors("dropping"):
                dropped = room.drop_client(code, token, victim)
            st.success(f"Dropped {dropped} reports.")

with st.expander("Reveal the show of hands"):
    st.caption("Ask for a show of hands and type the counts: the true distribution appears next to the estimate.")
    with st.form("cls_reveal"):
        if info["kind"] == "categorical":
            hands = {label: st.number_input(label, min_value=0, step=1, value=0, key=f"cls_hand_{i}")
                     for i, label in enumerate(info["labels"])}
            truth = {k: int(v) for k, v in hands.items()}
        else:
            truth = st.number_input("True mean", value=float(sum(info["range"]) / 2), key="cls_true_mean")
        reveal, hide = st.columns(2)
        if reveal.form_submit_button("Reveal"):
            with common.friendly_errors("the show of hands"):
                room.reveal(code, token, truth)
        if hide.form_submit_button("Hide"):
            room.reveal(code, token, None)

with st.expander("Next question"):
    body = question_form("cls_next", "Open next question (closes this one)")
    if body is not None:
        with common.friendly_errors("this question"):
            room.next_question(code, token, body)
        st.rerun()

with st.expander("Teacher token"):
    st.caption("Keep it to reopen this class from another browser (Reopen a class). Never share it: it controls "
               "the class.")
    # Off by default and not kept: the token is sent to the browser only while this is on, so a projected page
    # never carries it (not even hidden in the folded expander).
    if st.toggle("Show the teacher token", value=False, key="cls_show_token"):
        st.code(token, language=None)
    if st.button("Leave this class (it keeps running)", key="cls_leave"):
        del st.session_state[SESSION]
        st.rerun()
