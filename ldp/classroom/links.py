"""The join link a teacher projects: its URL and its QR code (``segno``, pure Python)."""

from __future__ import annotations

import io
import socket
from urllib.parse import urlsplit

from ldp.core.errors import InvalidInput

__all__ = ["join_url", "lan_address", "qr_png", "reachable_base"]

LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}


def lan_address() -> str | None:
    """This machine's address on its local network, or None.

    The interface a UDP socket to a private address would use (no packet is sent); a loopback address counts as none.

    Returns
    -------
    str or None
        The IPv4 address, or None when there is no network.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.254.254.254", 1))
            addr = s.getsockname()[0]
        except OSError:
            return None
    return None if addr.startswith("127.") else addr


def reachable_base(host_header: str | None, scheme: str = "http") -> str:
    """The base URL phones should open: the address the teacher's browser used, with a reachable host.

    Phones cannot reach the teacher's ``localhost``, so a loopback host is replaced by :func:`lan_address` (when the
    machine has one), keeping the port.

    Parameters
    ----------
    host_header : str or None
        The request's ``Host`` header (``localhost:8501`` when None).
    scheme : str, default "http"
        The URL scheme.

    Returns
    -------
    str
        ``scheme://host[:port]``.
    """
    host = (host_header or "localhost:8501").strip()
    name, _, port = host.rpartition(":") if host.count(":") == 1 else (host, "", "")
    if name in LOCAL_HOSTS:
        lan = lan_address()
        if lan:
            host = f"{lan}:{port}" if port else lan
    return f"{scheme}://{host}"


def join_url(base: str, code: str) -> str:
    """The URL a student opens to join the class ``code``: ``<base>/join/<code>``.

    Parameters
    ----------
    base : str
        The base URL (``http`` or ``https``, with a host), e.g. from :func:`reachable_base`.
    code : str
        The class code.

    Returns
    -------
    str
        The join URL.

    Raises
    ------
    InvalidInput
        If ``base`` is not an http(s) URL with a host.
    """
    parts = urlsplit(base.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidInput(f"the address must look like http://host:port, got {base!r}")
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}/join/{code}"


def qr_png(url: str, scale: int = 10) -> bytes:
    """A PNG of the QR code of ``url`` (error correction M, a quiet zone of 4 modules).

    Parameters
    ----------
    url : str
        The text to encode (the join URL).
    scale : int, default 10
        Pixels per module.

    Returns
    -------
    bytes
        The PNG image.
    """
    import segno

    buf = io.BytesIO()
    segno.make(url, error="m", micro=False).save(buf, kind="png", scale=scale, border=4)
    return buf.getvalue()
