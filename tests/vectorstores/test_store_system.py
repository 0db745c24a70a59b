"""``eval --system lancedb:PATH#TABLE``: the store's own search retrieves, from question vectors made
by ``--embedder``. On a table without an ANN index LanceDB searches exactly, so it must rank as the
builtin dense retriever does over the same chunks and vectors: the same retrieval metrics."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.conftest import run_cli
from tests.vectorstores.stores import (
    CORPUS,
    QUESTIONS,
    build_chroma,
    build_lancedb,
    build_pgvector,
    build_qdrant,
    sample_rows,
)

SEARCHABLE: dict[str, Callable[..., str]] = {
    "lancedb": build_lancedb,
    "chroma": build_chroma,
    "qdrant": build_qdrant,
    "pgvector": build_pgvector,
}


def evaluate(tmp_path: Path, system: str, *corpus_and_flags: str) -> tuple[int, dict]:
    out = tmp_path / f"eval-{len(list(tmp_path.iterdir()))}.json"
    code = run_cli(
        "eval",
        "--quiet",
        "--db",
        str(tmp_path / "ragcov.db"),
        "--questions",
        str(QUESTIONS),
        "--system",
        system,
        "--metrics",
        "retrieval",
        "--json",
        str(out),
        *corpus_and_flags,
    )
    return code, json.loads(out.read_text()) if code == 0 else {}


@pytest.fixture(scope="module")
def dense(tmp_path_factory: pytest.TempPathFactory) -> dict:
    code, report = evaluate(tmp_path_factory.mktemp("dense"), "builtin:dense", "--corpus", str(CORPUS))
    assert code == 0
    return report


@pytest.mark.slow
@pytest.mark.parametrize("engine", sorted(SEARCHABLE))
def test_the_stores_search_scores_the_questions_like_exact_dense_retrieval(
    engine: str, tmp_path: Path, dense: dict
) -> None:
    """LanceDB and PostgreSQL without an index search exactly; Chroma's and Qdrant's HNSW are exact on 100-odd rows."""
    spec = SEARCHABLE[engine](tmp_path / "store", sample_rows())
    code, store = evaluate(tmp_path, spec, "--corpus", spec)
    assert code == 0
    assert store["system"] == spec and store["answer_label"].startswith("retrieval only")
    assert store["metrics"]["retrieval"] == dense["metrics"]["retrieval"]
    means = {name: stats["mean"] for name, stats in store["aggregate"]["retrieval"].items()}
    assert means and all(v is not None for v in means.values()) and store["counts"]["with_gold"] > 0
    assert means == pytest.approx({name: stats["mean"] for name, stats in dense["aggregate"]["retrieval"].items()})


def test_a_store_searched_with_another_model_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = build_lancedb(tmp_path / "store", sample_rows())
    code, _ = evaluate(tmp_path, spec, "--embedder", "hash:384")
    assert code == 2 and "does not reproduce the store's vectors" in capsys.readouterr().err
