"""Build the system under test from its ``--system`` spec.

Schemes: ``records:FILE``, ``python:package.module:function``, ``http:URL``,
``builtin:bm25|dense|hybrid``. An unknown scheme raises BadInput listing these.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.embeddings.base import Embedder
from ragcov_tui.evaluation.systems.base import DEFAULT_K, System
from ragcov_tui.evaluation.systems.builtin import BuiltinSystem
from ragcov_tui.evaluation.systems.http_system import HttpSystem
from ragcov_tui.evaluation.systems.python_callable import PythonCallableSystem
from ragcov_tui.evaluation.systems.records_system import RecordsSystem
from ragcov_tui.evaluation.systems.store_system import StoreSystem
from ragcov_tui.llm.base import ChatModel
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.testset.models import Question
from ragcov_tui.vectorstores.base import FieldOverrides
from ragcov_tui.vectorstores.registry import parse_store_spec, store_scheme

SCHEMES = (
    "records:FILE",
    "python:package.module:function",
    "http:URL",
    "builtin:bm25|dense|hybrid",
    "lancedb:PATH#TABLE",
    "chroma:PATH#COLLECTION",
    "qdrant:PATH#COLLECTION",
    "pgvector:postgresql://…#TABLE",
)


def make_system(
    spec: str,
    *,
    chunks: Sequence[Chunk] = (),
    embedder: Embedder,
    llm: ChatModel | None = None,
    k: int = DEFAULT_K,
    questions: Sequence[Question] = (),
    join: str = "auto",
    fields: FieldOverrides | None = None,
    skip_space_check: bool = False,
) -> System:
    """The system named by ``spec``; a records file is joined to ``questions`` by ``join``
    (:mod:`ragcov_tui.evaluation.systems.records_join`); a vector store is searched by its own index
    with ``fields`` mapping its rows (:mod:`ragcov_tui.evaluation.systems.store_system`)."""
    if store_scheme(spec):
        return StoreSystem(
            parse_store_spec(spec), embedder=embedder, overrides=fields, k=k, skip_space_check=skip_space_check
        )
    scheme, sep, target = spec.partition(":")
    if spec.startswith(("http://", "https://")):  # a bare URL is the http scheme
        scheme, sep, target = "http", ":", spec
    if not sep or not target:
        raise BadInput(f"--system {spec!r}: expected one of {', '.join(SCHEMES)}")
    if scheme == "records":
        return RecordsSystem(target, chunks=chunks, questions=questions, join=join)
    if scheme == "python":
        return PythonCallableSystem(target)
    if scheme == "http":
        return HttpSystem(target)
    if scheme == "builtin":
        return BuiltinSystem(target, chunks=chunks, embedder=embedder, llm=llm, k=k)
    raise BadInput(f"--system {spec!r}: unknown scheme {scheme!r}; use one of {', '.join(SCHEMES)}")
