"""Short human reasons for the standard library's exceptions, for one-line error messages.

``str(OSError)`` reads ``[Errno 17] File exists: 'out'``; :func:`os_reason` gives ``File exists: out``.
"""

from __future__ import annotations


def os_reason(exc: OSError) -> str:
    """``strerror`` (no ``[Errno N]``) and, when the error names one, the file: ``File exists: out``."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    if reason.startswith("[Errno"):
        reason = reason.split("]", 1)[-1].strip()
    return f"{reason}: {exc.filename}" if exc.filename is not None and exc.strerror else reason
