"""Short human reasons for the standard library's exceptions, for one-line error messages.

``str(OSError)`` reads ``[Errno 17] File exists: 'out'`` and a ``JSONDecodeError`` for a raw
newline reads ``Invalid control character at: line 1 column 9 (char 8)``, which messages used to
splice into ``… at at column 9``. These helpers give ``File exists: out`` and
``Invalid control character at column 9``.
"""

from __future__ import annotations

import json


def os_reason(exc: OSError) -> str:
    """``strerror`` (no ``[Errno N]``) and, when the error names one, the file: ``File exists: out``."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    if reason.startswith("[Errno"):
        reason = reason.split("]", 1)[-1].strip()
    return f"{reason}: {exc.filename}" if exc.filename is not None and exc.strerror else reason


def json_reason(exc: json.JSONDecodeError) -> str:
    """``<what is wrong> at column N`` (json's own message sometimes already ends in ``at``)."""
    return f"{exc.msg.removesuffix(' at')} at column {exc.colno}"
