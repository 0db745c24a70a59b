"""Checking a URL the user gave (``--system http://…``, ``$OPENAI_BASE_URL``) before any work.

:func:`check_url` is syntax only: ``http`` or ``https``, a host, no whitespace or control
character, a port from 1 to 65535. :func:`check_reachable` opens (and closes) one TCP connection to
the host and port, so a closed port or a name that does not resolve is a one-line bad input naming
where the URL came from — not a run whose every question fails. It is skipped when a proxy is
configured for that host (the proxy, not us, reaches it).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from urllib.parse import urlsplit

from ragcov_tui.shared.error_text import os_reason
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.redact import redact_url

PROBE_TIMEOUT = 5.0  # seconds to connect; a server that accepts later is down for our purposes


def check_url(url: str, where: str) -> str:
    """``url`` unchanged when it is ``http(s)://host[:port][/…]``; BadInput ``"<where> <url>: why"``."""
    shown = redact_url(url)
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
        raise BadInput(f"{where} {shown!r}: a URL cannot contain spaces or control characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:  # a port that is not a number or is out of range, a bad IPv6 literal
        port, reason = 0, None if "Port" in str(exc) else f"malformed URL ({exc})"
        if reason:
            raise BadInput(f"{where} {shown}: {reason}") from None
    if parts.scheme not in ("http", "https"):
        raise BadInput(f"{where} {shown}: expected an http:// or https:// URL")
    if not parts.hostname:
        raise BadInput(f"{where} {shown}: the URL names no host")
    if port == 0:
        raise BadInput(f"{where} {shown}: the port must be a number from 1 to 65535")
    try:
        parts.hostname.encode("idna")
    except UnicodeError:
        raise BadInput(f"{where} {shown}: {parts.hostname!r} is not a valid host name") from None
    return url


def env_url_check(variable: str) -> Callable[[], None]:
    """A check, for a provider registry to run before any work, that ``$VARIABLE`` is a well-formed
    URL (:func:`check_url`) when it is set; BadInput naming the variable otherwise."""

    def check() -> None:
        url = os.environ.get(variable, "").strip()
        if url:
            check_url(url, f"${variable}")

    return check


def check_reachable(url: str, where: str, timeout: float = PROBE_TIMEOUT) -> None:
    """BadInput naming ``where`` when nothing accepts a TCP connection at ``url``'s host and port
    (connection refused, name not resolved, timeout); nothing is sent."""
    import urllib.request  # 17 ms: paid only by runs that probe a URL

    parts = urlsplit(check_url(url, where))
    host = parts.hostname or ""
    if urllib.request.getproxies() and not urllib.request.proxy_bypass(host):
        return
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except socket.gaierror as exc:
        raise BadInput(f"{where} {redact_url(url)}: cannot resolve the host name {host!r} ({exc.strerror})") from None
    except TimeoutError:
        raise BadInput(f"{where} {redact_url(url)}: no answer from {host}:{port} within {timeout:g} s") from None
    except OSError as exc:
        raise BadInput(f"{where} {redact_url(url)}: cannot connect to {host}:{port} ({os_reason(exc)})") from None
