"""Credentials out of URLs before they are shown or stored.

:func:`redact_url` replaces a URL's userinfo (``user:password@``) by ``***@`` and the value of every
query parameter whose name looks like a credential (:data:`SECRET_NAME`: key, token, secret,
password, auth, sig, credential, session…, case-insensitive) by ``***``; everything else stays byte
for byte. :func:`redact_text` does that to every ``scheme://…`` URL inside free text (an error
message, a ``--system http:URL`` spec). The real URL is still what requests go to: redaction is for
messages, sessions, reports and cache keys only.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

MASK = "***"
SECRET_NAME = re.compile(r"key|token|secret|passw|pwd|auth|sig|credential|session|cookie", re.IGNORECASE)
URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s'\"<>`]+")
TRAILING = ").,;:]!'"  # punctuation after a URL in prose, kept out of the last value
_AUTHORITY = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*://)([^/?#]*)(.*)$", re.DOTALL)


def _redact_query(query: str) -> str:
    """``a=1&api_key=s`` → ``a=1&api_key=***`` (separators and unnamed parts kept as they were)."""
    parts = re.split(r"([&;])", query)
    for i in range(0, len(parts), 2):
        name, eq, value = parts[i].partition("=")
        if eq and value and SECRET_NAME.search(unquote(name)):
            parts[i] = f"{name}={MASK}"
    return "".join(parts)


def redact_url(url: str) -> str:
    """``url`` with userinfo and credential-looking query values masked (see the module doc)."""
    match = _AUTHORITY.match(url)
    if match is None:
        return url
    scheme, authority, rest = match.groups()
    if "@" in authority:
        authority = f"{MASK}@{authority.rsplit('@', 1)[1]}"
    path, hash_, fragment = rest.partition("#")
    before, qmark, query = path.partition("?")
    if qmark:
        path = f"{before}?{_redact_query(query)}"
    if hash_ and "=" in fragment:  # OAuth implicit flows put tokens in the fragment
        fragment = _redact_query(fragment)
    return f"{scheme}{authority}{path}{hash_}{fragment}"


def redact_text(text: str) -> str:
    """Every URL inside ``text`` redacted with :func:`redact_url`."""
    if "://" not in text:
        return text

    def one(match: re.Match[str]) -> str:
        url = match.group(0)
        core = url.rstrip(TRAILING)
        return redact_url(core) + url[len(core) :]

    return URL.sub(one, text)


def redact_values(value: Any) -> Any:
    """``value`` with :func:`redact_text` applied to every string inside (dicts, lists, tuples)."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {k: redact_values(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(redact_values(v) for v in value)
    return value
