"""Calling code that might hang (reading a FIFO, walking a link cycle) so that a hang fails the test
instead of blocking the suite: the call runs in a daemon thread joined with a timeout."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def call_within(seconds: float, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``call(*args, **kwargs)``'s value, or what it raised; AssertionError when it runs past ``seconds``."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{getattr(call, '__name__', call)}{args} did not finish in {seconds} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")
