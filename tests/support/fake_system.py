"""A real local HTTP server playing a user's ``http:`` RAG system, for tests.

Usage::

    with FakeSystemServer(lambda question: '{"answer": "a", "contexts": []}') as server:
        make_system(f"http:{server.url}", ...)
        assert server.questions == ["…"]

``reply(question)`` returns the raw response body (any text, so a test can send what ``json.dumps``
never writes: ``NaN``, ``Infinity``, ``1e309``), served with status 200 as JSON to every POST.
``questions`` logs every question received. The server's lifecycle is :class:`FakeAPIServer`'s.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler

from tests.support.fake_api import FakeAPIServer, _send


class FakeSystemServer(FakeAPIServer):
    """Context manager serving ``POST /rag`` on ``127.0.0.1`` (a free port) in a daemon thread."""

    def __init__(self, reply: Callable[[str], str]) -> None:
        super().__init__()
        self.reply = reply
        self.questions: list[str] = []

    def _respond(self, h: BaseHTTPRequestHandler) -> None:
        question = json.loads(h.rfile.read(int(h.headers["Content-Length"])))["question"]
        with self._lock:
            self.questions.append(question)
        _send(h, 200, self.reply(question))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/rag"
