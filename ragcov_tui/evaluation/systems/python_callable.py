"""``python:package.module:function`` — a system that is a Python function of the user's.

The function takes the question text (one positional ``str``) and returns, or — when it is an
``async def`` — resolves to, one of::

    {"answer": "…", "contexts": [{"id": "doc.md#3", "text": "…", "score": 0.82}, …]}
    SystemOutput(answer="…", contexts=[RetrievedChunk(id, text, score), …])
    ("…answer…", [{"id": …, "text": …}, …])

``contexts`` are ranked, best first; ``score`` is optional; a context given as a plain string is
its text (its id is then ``#<rank>``). The module is imported with the current directory on
``sys.path``, so ``python:my_rag:answer`` finds ``./my_rag.py``. The function is called from
several threads at once; an async function runs in a fresh event loop per call.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import os
import sys
from collections.abc import Callable
from typing import Any

from ragcov_tui.evaluation.systems.base import SystemOutput, output_from_value
from ragcov_tui.shared.errors import BadInput


def load_callable(target: str) -> Callable[..., Any]:
    """Import ``package.module:function``; BadInput for a malformed spec, a missing module or name."""
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise BadInput(f"--system python:{target}: expected python:package.module:function")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise BadInput(f"--system python:{target}: cannot import {module_name!r} ({exc})") from exc
    fn: Any = module
    for part in attr.split("."):
        if not hasattr(fn, part):
            raise BadInput(f"--system python:{target}: {module_name!r} has no attribute {attr!r}")
        fn = getattr(fn, part)
    if not callable(fn):
        raise BadInput(f"--system python:{target}: {attr!r} is not callable")
    return fn


class PythonCallableSystem:
    """Calls the user's function (sync or async) and normalises what it returns."""

    def __init__(self, target: str) -> None:
        self.name = f"python:{target}"
        self._fn = load_callable(target)
        self._is_async = inspect.iscoroutinefunction(self._fn)

    def answer(self, question: str) -> SystemOutput:
        value = asyncio.run(self._fn(question)) if self._is_async else self._fn(question)
        if inspect.isawaitable(value):  # a sync wrapper that returned a coroutine
            value = asyncio.run(_await(value))
        return output_from_value(value, self.name)


async def _await(awaitable: Any) -> Any:
    return await awaitable
