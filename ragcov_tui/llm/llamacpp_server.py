"""Local GGUF models in process: llama.cpp's own HTTP server, from the ``xllamacpp`` wheel.

``--llm llamacpp:PATH.gguf`` (and ``--judge-llm``, ``--embedder llamacpp:PATH.gguf``) start
llama.cpp's server inside this process on ``127.0.0.1`` (a free port) and talk to it through the
OpenAI-compatible client, so caching, retries, structured output and context fitting are the
same code as for any remote server. :func:`local_server` starts one server per model file and
mode (chat / embeddings) and reuses it for the rest of the process; every server is stopped at
exit (:func:`stop_all`, registered with :mod:`atexit`).

Settings, from the model and the machine:

- context ``n_ctx`` = the model's training context (GGUF ``{arch}.context_length``) capped at
  :data:`MAX_CTX`, or ``$RAGCOV_LLAMACPP_CTX``;
- threads = the CPUs this process may run on (``os.sched_getaffinity``, else ``os.cpu_count``),
  or ``$RAGCOV_LLAMACPP_THREADS``; idle worker threads wait passively (``OMP_WAIT_POLICY``);
- one slot (``n_parallel = 1``): the whole context serves each request, requests queue.

The file is checked before anything starts: a missing or damaged file is one line naming the path
(:mod:`ragcov_tui.llm.gguf`). The LLM cache names the model by :func:`model_identity` (absolute
path, size, modification time and context size), not by the server's random port: a rerun is
served from the cache, and another file at the same path is another model.
"""

from __future__ import annotations

import atexit
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragcov_tui.llm.gguf import context_length, read_gguf_metadata
from ragcov_tui.shared.errors import BadInput, ConfigError
from ragcov_tui.shared.input_files import resolved
from ragcov_tui.shared.input_values import is_ascii_whole
from ragcov_tui.shared.safe_text import visible

EXTRA_HINT = "llamacpp: needs the local-llm extra: pip install 'ragcov-tui[local-llm]'"
MAX_CTX = 8192  # enough for judge prompts; a 128k training context would reserve gigabytes of KV cache
DEFAULT_CTX = 4096  # when the file does not say
CTX_ENV, THREADS_ENV = "RAGCOV_LLAMACPP_CTX", "RAGCOV_LLAMACPP_THREADS"
LOCAL_KEY = "local"  # the in-process server checks no key; the client wants one


@dataclass
class LocalServer:
    """One running llama.cpp server: where it listens and what it serves."""

    path: Path
    base_url: str  # http://127.0.0.1:PORT/v1
    model: str  # the name it serves the model under (the file name)
    n_ctx: int
    threads: int
    identity: str  # what the LLM cache calls this model (model_identity)
    handle: Any = None  # the xllamacpp.Server; dropping it stops the server


_SERVERS: dict[tuple[str, bool], LocalServer] = {}
_LOCK = threading.Lock()


def _env_int(name: str, low: int, high: int) -> int | None:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    if not is_ascii_whole(raw) or not low <= int(raw) <= high:
        raise ConfigError(f"${name}: expected a whole number from {low} to {high}, got {visible(raw)!r}")
    return int(raw)


def local_threads() -> int:
    """``$RAGCOV_LLAMACPP_THREADS``, else the CPUs this process may use."""
    configured = _env_int(THREADS_ENV, 1, 1024)
    if configured is not None:
        return configured
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def context_size(meta: dict[str, Any]) -> int:
    """``$RAGCOV_LLAMACPP_CTX``, else the training context capped at :data:`MAX_CTX`."""
    configured = _env_int(CTX_ENV, 256, 1 << 20)
    if configured is not None:
        return configured
    return min(MAX_CTX, context_length(meta) or DEFAULT_CTX)


def model_identity(path: Path, n_ctx: int) -> str:
    """``llamacpp://ABSPATH?size=N&mtime_ns=T&n_ctx=C``: a changed file or context is another model."""
    stat = path.stat()
    return f"llamacpp://{path}?size={stat.st_size}&mtime_ns={stat.st_mtime_ns}&n_ctx={n_ctx}"


def _import_xllamacpp() -> Any:
    # llama.cpp's OpenMP workers spin while they wait; on a machine busy with anything else (our own
    # embedding threads, other jobs) that made generation ~10x slower here. Passive waiting costs
    # little on an idle machine. Read once, when the library loads: set before the import.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import xllamacpp
    except ImportError:
        raise ConfigError(EXTRA_HINT) from None
    return xllamacpp


def local_server(spec_path: str, *, embedding: bool = False) -> LocalServer:
    """The running server for the GGUF file ``spec_path`` (started on first use)."""
    if not spec_path.strip():
        raise BadInput("llamacpp: name the model file, e.g. llamacpp:/models/qwen2.5-1.5b-instruct-q4_k_m.gguf")
    path = resolved(Path(spec_path.strip()).expanduser())  # a link loop is left for the reader to name
    meta = read_gguf_metadata(path)  # BadInput naming the path for a missing / damaged file
    xllamacpp = _import_xllamacpp()
    n_ctx, threads = context_size(meta), local_threads()
    identity = model_identity(path, n_ctx)
    with _LOCK:
        running = _SERVERS.get((identity, embedding))
        if running is None:
            pooled = f"{meta.get('general.architecture', '')}.pooling_type" in meta
            running = _start(xllamacpp, path, n_ctx, threads, identity, embedding, pooled)
            _SERVERS[(identity, embedding)] = running
        return running


def _start(
    xllamacpp: Any, path: Path, n_ctx: int, threads: int, identity: str, embedding: bool, pooled: bool
) -> LocalServer:
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.model_alias = path.name
    params.n_ctx = n_ctx
    params.n_parallel = 1  # one slot holds the whole context (slots split it)
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # a free port
    params.endpoint_metrics = True
    params.endpoint_props = True
    params.warmup = False
    params.verbosity = 0
    if embedding:
        params.embedding = True
        params.n_batch = params.n_ubatch = n_ctx  # an input is embedded in one batch
        if not pooled:  # a model without its own pooling (a chat model): mean of the token vectors
            params.pooling_type = xllamacpp.llama_pooling_type.LLAMA_POOLING_TYPE_MEAN
    try:
        handle = xllamacpp.Server(params)
    except Exception as exc:  # the library raises RuntimeError / ValueError with llama.cpp's reason
        raise BadInput(
            f"{visible(str(path))}: llama.cpp could not load the model ({visible(str(exc))[:200]})"
        ) from None
    address = str(handle.listening_address).rstrip("/")
    return LocalServer(
        path=path,
        base_url=f"{address}/v1",
        model=path.name,
        n_ctx=n_ctx,
        threads=threads,
        identity=identity,
        handle=handle,
    )


def stop_all() -> None:
    """Stop every server this process started (registered with atexit)."""
    with _LOCK:
        servers = list(_SERVERS.values())
        _SERVERS.clear()
    for server in servers:
        server.handle = None  # the binding stops the server when its object is freed


atexit.register(stop_all)
