"""A real local HTTP server speaking the OpenAI and Voyage protocols, for tests.

Usage::

    with FakeAPIServer(dim=64) as server:
        os.environ["OPENAI_BASE_URL"] = server.base_url          # http://127.0.0.1:PORT/v1
        os.environ["VOYAGE_BASE_URL"] = server.voyage_base_url   # http://127.0.0.1:PORT/voyage/v1
        server.chat_handler = lambda messages, body: '{"verdict": "yes"}'
        server.fail_next(1, status=429)                          # next request → 429
        ...
        assert server.count("/embeddings") == 2

Endpoints (every one requires ``Authorization: Bearer <anything non-empty>``, or ``Basic …`` as
httpx sends for a base URL with ``user:password@``, else 401):

- ``POST /v1/embeddings`` — OpenAI format. Request ``{"input": str | list[str], "model": ...}``;
  reply ``{"object": "list", "data": [{"object": "embedding", "index": i, "embedding": [...]}],
  "model": ..., "usage": {"prompt_tokens": n, "total_tokens": n}}``.
- ``POST /voyage/v1/embeddings`` — Voyage format. Request ``{"input": [...], "model": ...,
  "input_type": ...}``; reply ``{"object": "list", "data": [{"object": "embedding",
  "embedding": [...], "index": i}], "model": ..., "usage": {"total_tokens": n}}``.
- ``POST /v1/chat/completions`` — OpenAI chat format; the message content is
  ``chat_handler(messages, body)`` (default: ``{"echo": <last message content>}`` as JSON text).
  With ``reject_response_format = True`` a request carrying ``response_format`` gets a 400, like
  servers that do not support JSON mode. A request with ``"logprobs": true`` gets
  ``choices[0].logprobs.content`` from ``logprobs_handler(messages, body)`` — one ``{token: logprob}``
  per generated position, the likeliest first, cut to ``top_logprobs`` — when that handler is set
  (else none, like a server without them); streamed, position n rides on the n-th chunk.
- ``GET /v1/models`` — ``{"object": "list", "data": [{"id": name, "object": "model"}, ...]}`` for
  the names in ``models``; while ``models`` is None (the default) a 404, like a server without it.
- ``POST /anthropic/v1/messages`` — Anthropic's Messages API (``ANTHROPIC_BASE_URL`` =
  :attr:`anthropic_base_url`; the key as a bearer token or in ``x-api-key``). The ``system`` blocks and the ``messages``
  (text or text blocks) are passed to ``chat_handler`` as OpenAI-style messages (the system one
  first); a request forcing a tool (``tool_choice: {"type": "tool"}``) whose reply text is a JSON
  object gets it back as that tool's ``tool_use`` input, else one text block; ``usage`` has
  ``input_tokens`` / ``output_tokens`` (and ``cache_read_input_tokens`` = ``anthropic_cache_read``);
  ``fault = "truncated"`` gives ``stop_reason: "max_tokens"``. Errors use Anthropic's shape.
- ``POST /api/show`` — Ollama's model details: ``ollama_show`` as the reply (a 404 while it is None);
  Ollama's OpenAI-compatible routes are the ``/v1/...`` ones above (``OLLAMA_HOST`` = :attr:`root_url`).
- ``POST /rag`` (any query string) — a user's RAG system for ``--system http:URL``: request
  ``{"question": str}``, reply ``{"answer": "I do not know: <question>", "contexts": []}``.

Embeddings are deterministic: ``ragcov_tui.embeddings.hashing.hashed_vector`` (a hashed bag of
lower-cased words in ``dim`` signed buckets, L2-normalised, the ``hash`` embedder's function), so
texts sharing words are close and unrelated texts are near-orthogonal. Token counts are word
counts.

Scripting (all thread-safe): ``fail_next(n, status=429|500|503, body=None, retry_after=None)``
queues ``n`` error replies; ``bad_json_next(n)`` queues ``n`` 200 replies whose body is not JSON;
``latency`` seconds are slept before every reply; a chat request with ``"stream": true`` is
answered as server-sent events, one chunk per word of the content, ``token_delay`` seconds apart, then
``finish_reason``, the usage (with ``stream_options.include_usage``) and ``[DONE]``; ``stall = (n,
seconds)`` holds the stream ``seconds`` after its ``n``-th word (a server that stops mid-reply); a
request with it gets a 400 with ``reject_stream``; a request without ``stream`` (or any, with
``ignore_stream``) waits ``token_delay`` per word before its
whole reply (a slow server); a client that closes the connection meanwhile
(a cancelled request) gets no reply and is counted in ``dropped`` (``dropped_at``: ``time.monotonic()``
when each was seen, within 50 ms). ``fault`` (persistent until set back to ``None``)
makes every successful reply broken in one way: ``"html"`` (a 200 HTML page, like a proxy's login
page), ``"nan"`` / ``"null"`` (one number of every embedding is NaN / null), ``"zero"`` (all-zero
embeddings), ``"ragged"`` (the last embedding one number short), ``"no_choices"`` (chat reply with
``choices: []``), ``"null_content"`` (``content: null``), ``"truncated"`` (``finish_reason:
"length"`` and the content cut in half). ``requests`` is a copy of the log of every
request received (``RecordedRequest(path, body, headers)``, header names lower-cased, failed
ones included); ``count(path_suffix)`` counts logged requests whose path ends with the suffix;
``max_in_flight`` is the largest number of requests handled at the same moment.
"""

from __future__ import annotations

import json
import re
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from ragcov_tui.embeddings.hashing import hashed_vector

ChatHandler = Callable[[list[dict], dict], str]
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    body: Any  # parsed JSON, or the raw text when it was not JSON
    headers: dict[str, str]  # names lower-cased


def _default_chat_handler(messages: list[dict], body: dict) -> str:
    return json.dumps({"echo": messages[-1].get("content", "") if messages else ""})


def _words(text: str) -> int:
    return len(_WORD.findall(text))


class FakeAPIServer:
    """Context manager running the fake API on ``127.0.0.1`` (a free port) in a daemon thread."""

    def __init__(self, dim: int = 64, latency: float = 0.0) -> None:
        self.dim = dim
        self.latency = latency
        self.chat_handler: ChatHandler = _default_chat_handler
        self.logprobs_handler: Callable[[list[dict], dict], list[dict[str, float]]] | None = None
        self.reject_response_format = False
        self.models: list[str] | None = None
        self.dropped_at: list[float] = []
        self.fault: str | None = None
        self.token_delay = 0.0
        self.stall: tuple[int, float] | None = None
        self.ignore_stream = False
        self.reject_stream = False
        self.ollama_show: dict | None = None
        self.anthropic_cache_read = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._log: list[RecordedRequest] = []
        self._script: deque[tuple[str, int, str | None, float | None]] = deque()
        self._in_flight = 0
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def __enter__(self) -> Self:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                server._handle(self)

            def do_GET(self) -> None:  # noqa: N802
                server._handle(self)

            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "use FakeAPIServer as a context manager"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def anthropic_base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/anthropic"

    @property
    def voyage_base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/voyage/v1"

    # -- scripting -------------------------------------------------------------------------
    def fail_next(self, n: int, status: int = 429, body: str | None = None, retry_after: float | None = None) -> None:
        """The next ``n`` requests get ``status`` (with ``body`` or a JSON error, ``Retry-After``)."""
        with self._lock:
            self._script.extend(("fail", status, body, retry_after) for _ in range(n))

    def bad_json_next(self, n: int) -> None:
        """The next ``n`` requests get a 200 whose body is not valid JSON."""
        with self._lock:
            self._script.extend(("bad_json", 200, None, None) for _ in range(n))

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._log)

    @property
    def dropped(self) -> int:
        """Requests whose client went away while ``latency`` held them (no reply was sent)."""
        with self._lock:
            return len(self.dropped_at)

    def count(self, path_suffix: str = "") -> int:
        """Requests received whose path ends with ``path_suffix`` (failed ones included)."""
        with self._lock:
            return sum(1 for r in self._log if r.path.endswith(path_suffix))

    # -- request handling ------------------------------------------------------------------
    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            self._respond(h)
        finally:
            with self._lock:
                self._in_flight -= 1

    def _respond(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length).decode("utf-8", "replace") if length else ""
        try:
            body: Any = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            body = raw
        path = h.path.split("?", 1)[0]
        with self._lock:
            self._log.append(RecordedRequest(path, body, {k.lower(): v for k, v in h.headers.items()}))
            step = self._script.popleft() if self._script and path != "/api/show" else None  # scripts aim at the work
        if self.latency and not self._wait_connected(h, self.latency):
            h.close_connection = True  # the client is gone: read no next request
            return None
        if path != "/rag" and not _has_key(h, path):  # a user's RAG system takes no API key
            return _send(h, 401, _error("missing or invalid API key", "invalid_api_key"))
        if step is not None:
            kind, status, fail_body, retry_after = step
            if kind == "bad_json":
                return _send(h, 200, '{"object": "list", "data": [ this is not json', "application/json")
            headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
            return _send(
                h,
                status,
                fail_body if fail_body is not None else _error(f"scripted {status}", "scripted"),
                headers=headers,
            )
        if self.fault == "html":
            page = "<!DOCTYPE html><html><head><title>Proxy login</title></head><body>Sign in</body></html>"
            return _send(h, 200, page, "text/html")
        if path == "/v1/models" and h.command == "GET":
            if self.models is None:
                return _send(h, 404, _error(f"no route {path}", "not_found"))
            return _send(
                h, 200, json.dumps({"object": "list", "data": [{"id": m, "object": "model"} for m in self.models]})
            )
        if h.command != "POST" or not isinstance(body, dict):
            return _send(h, 400, _error("expected a JSON POST", "invalid_request"))
        return self._post(h, path, body)

    def _post(self, h: BaseHTTPRequestHandler, path: str, body: dict) -> None:
        """A JSON POST to one of the routes (the class docstring)."""
        if path == "/v1/embeddings":
            return _send(h, 200, json.dumps(self._embeddings(body, voyage=False)))
        if path == "/voyage/v1/embeddings":
            return _send(h, 200, json.dumps(self._embeddings(body, voyage=True)))
        if path == "/rag":
            return _send(h, 200, json.dumps({"answer": f"I do not know: {body.get('question', '')}", "contexts": []}))
        if path == "/anthropic/v1/messages":
            return self._messages_reply(h, body)
        if path == "/api/show":
            if self.ollama_show is None:
                return _send(h, 404, json.dumps({"error": f"model '{body.get('model')}' not found"}))
            return _send(h, 200, json.dumps(self.ollama_show))
        if path == "/v1/chat/completions":
            if self.reject_response_format and "response_format" in body:
                return _send(h, 400, _error("response_format is not supported", "invalid_request"))
            return self._chat_reply(h, body)
        return _send(h, 404, _error(f"no route {path}", "not_found"))

    def _wait_connected(self, h: BaseHTTPRequestHandler, seconds: float) -> bool:
        """Sleep ``seconds``; False (and the drop recorded) as soon as the client closes the connection."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            readable, _, _ = select.select([h.connection], [], [], min(0.05, left))
            if not readable:
                continue
            try:
                closed = not h.connection.recv(1, socket.MSG_PEEK)
            except OSError:
                closed = True
            if closed:
                with self._lock:
                    self.dropped_at.append(time.monotonic())
                return False
            time.sleep(0.05)  # bytes of a next request: not a close
        return True

    def _chat_reply(self, h: BaseHTTPRequestHandler, body: dict) -> None:
        """Streamed when asked for (and not ``ignore_stream``), else whole after ``token_delay`` per word."""
        if body.get("stream") and self.reject_stream:
            return _send(h, 400, _error("'stream' is not supported by this server", "invalid_request"))
        reply = self._chat(body)
        if body.get("stream") and not self.ignore_stream:
            return self._stream(h, reply, body)
        time.sleep(self.token_delay * len(_pieces(_content(reply))))
        return _send(h, 200, json.dumps(reply))

    def _stream(self, h: BaseHTTPRequestHandler, reply: dict, body: dict) -> None:
        """``reply`` as OpenAI's chat.completion.chunk events (the class docstring)."""
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Connection", "close")
        h.end_headers()
        h.close_connection = True
        base = {
            "id": reply["id"],
            "object": "chat.completion.chunk",
            "created": reply["created"],
            "model": reply["model"],
        }

        def event(choices: list[dict], **extra: Any) -> None:
            h.wfile.write(f"data: {json.dumps({**base, 'choices': choices, **extra})}\n\n".encode())
            h.wfile.flush()

        try:
            positions = (reply["choices"][0].get("logprobs") or {}).get("content", []) if reply["choices"] else []
            for n, piece in enumerate(_pieces(_content(reply)), start=1):
                extra = {"logprobs": {"content": positions[n - 1 : n]}} if positions else {}
                event([{"index": 0, "delta": {"content": piece}, "finish_reason": None, **extra}])
                time.sleep(self.token_delay)
                if self.stall is not None and n == self.stall[0]:
                    time.sleep(self.stall[1])
            if reply["choices"]:
                event([{"index": 0, "delta": {}, "finish_reason": reply["choices"][0]["finish_reason"]}])
            if (body.get("stream_options") or {}).get("include_usage"):
                event([], usage=reply["usage"])
            h.wfile.write(b"data: [DONE]\n\n")
        except OSError:  # the client gave up (a stall it timed out on)
            with self._lock:
                self.dropped_at.append(time.monotonic())

    def _messages_reply(self, h: BaseHTTPRequestHandler, body: dict) -> None:
        """An Anthropic Messages API reply (the class docstring)."""

        def text_of(content: Any) -> str:
            if isinstance(content, list):
                return "".join(b.get("text", "") for b in content if isinstance(b, dict))
            return str(content or "")

        system = text_of(body.get("system"))
        messages = ([{"role": "system", "content": system}] if system else []) + [
            {"role": m.get("role"), "content": text_of(m.get("content"))} for m in body.get("messages", [])
        ]
        text = self.chat_handler(messages, body)
        time.sleep(self.token_delay * len(_pieces(text)))
        tool = (
            (body.get("tool_choice") or {}).get("name")
            if (body.get("tool_choice") or {}).get("type") == "tool"
            else None
        )
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = None
        stop = "end_turn"
        if self.fault == "truncated":
            stop, text = "max_tokens", text[: len(text) // 2]
        if tool and isinstance(data, dict) and stop != "max_tokens":
            content: list[dict] = [{"type": "tool_use", "id": "toolu_fake", "name": tool, "input": data}]
            stop = "tool_use"
        else:
            content = [{"type": "text", "text": text}]
        reply = {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", ""),
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": sum(_words(m["content"]) for m in messages) - self.anthropic_cache_read,
                "output_tokens": _words(text),
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": self.anthropic_cache_read,
            },
        }
        return _send(h, 200, json.dumps(reply))

    def _embeddings(self, body: dict, *, voyage: bool) -> dict:
        texts = body.get("input", [])
        texts = [texts] if isinstance(texts, str) else list(texts)
        tokens = sum(_words(t) for t in texts)
        vectors = [hashed_vector(t, self.dim).tolist() for t in texts]
        for vec in vectors:
            if self.fault in ("nan", "null"):
                vec[0] = float("nan") if self.fault == "nan" else None
            elif self.fault == "zero":
                vec[:] = [0.0] * len(vec)
        if self.fault == "ragged" and vectors:
            vectors[-1] = vectors[-1][:-1]
        data = [{"object": "embedding", "index": i, "embedding": vec} for i, vec in enumerate(vectors)]
        usage = {"total_tokens": tokens} if voyage else {"prompt_tokens": tokens, "total_tokens": tokens}
        return {"object": "list", "data": data, "model": body.get("model", ""), "usage": usage}

    def _chat(self, body: dict) -> dict:
        messages = body.get("messages", [])
        content = self.chat_handler(messages, body)
        prompt_tokens = sum(_words(str(m.get("content", ""))) for m in messages)
        completion_tokens = _words(content)
        finish = "stop"
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if self.fault == "truncated":
            finish, message["content"] = "length", content[: len(content) // 2]
        elif self.fault == "null_content":
            message["content"] = None
        choices = [] if self.fault == "no_choices" else [{"index": 0, "finish_reason": finish, "message": message}]
        if choices and body.get("logprobs") and self.logprobs_handler is not None:
            top = int(body.get("top_logprobs") or 1)
            choices[0]["logprobs"] = {
                "content": [
                    {
                        "token": next(iter(p)),
                        "logprob": next(iter(p.values())),
                        "top_logprobs": [{"token": t, "logprob": v} for t, v in list(p.items())[:top]],
                    }
                    for p in self.logprobs_handler(messages, body)
                ]
            }
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", ""),
            "choices": choices,
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }


def _content(reply: dict) -> str:
    choices = reply["choices"]
    return (choices[0]["message"]["content"] or "") if choices else ""


def _pieces(content: str) -> list[str]:
    """The content in stream chunks: one per word with the spaces after it (``""`` → none)."""
    return re.findall(r"\s*\S+\s*", content) or ([content] if content else [])


def _has_key(h: BaseHTTPRequestHandler, path: str) -> bool:
    """A non-empty bearer key (or ``Basic``, as httpx sends for a base URL with ``user:password@``),
    or, on the Anthropic routes, ``x-api-key`` (older Anthropic SDKs send the key there)."""
    if path.startswith("/anthropic/") and h.headers.get("x-api-key", "").strip():
        return True
    scheme, _, credentials = h.headers.get("Authorization", "").partition(" ")
    return scheme in ("Bearer", "Basic") and bool(credentials.strip())


def _error(message: str, code: str) -> str:
    return json.dumps({"error": {"message": message, "type": code, "code": code}})


def _send(
    h: BaseHTTPRequestHandler,
    status: int,
    text: str,
    content_type: str = "application/json",
    headers: dict[str, str] | None = None,
) -> None:
    payload = text.encode()
    h.send_response(status)
    h.send_header("Content-Type", content_type)
    h.send_header("Content-Length", str(len(payload)))
    for name, value in (headers or {}).items():
        h.send_header(name, value)
    h.end_headers()
    h.wfile.write(payload)


def api_env(monkeypatch: Any, server: FakeAPIServer, *, attempts: int | None = None) -> None:
    """Point every provider at ``server`` for one test (``monkeypatch``): API keys, ``OPENAI_BASE_URL``
    / ``VOYAGE_BASE_URL``, millisecond retry delays and, when given, the number of attempts."""
    for name, value in (
        ("OPENAI_API_KEY", "test-key"),
        ("OPENAI_BASE_URL", server.base_url),
        ("VOYAGE_API_KEY", "test-key"),
        ("VOYAGE_BASE_URL", server.voyage_base_url),
        ("RAGCOV_RETRY_BASE_DELAY", "0.001"),
    ):
        monkeypatch.setenv(name, value)
    if attempts is not None:
        monkeypatch.setenv("RAGCOV_RETRY_ATTEMPTS", str(attempts))
