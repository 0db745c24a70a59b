"""``--corpus`` read from a vector store: the same chunks and vectors give the same analysis as the files.

Every engine is real (LanceDB, Parquet through pyarrow, Chroma embedded, Qdrant's local mode, PostgreSQL with
pgvector started by the tests through pgserver); the store is built from sample_data/ with
the local embedder (tests/vectorstores/stores.py)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, Unpack

import pytest

from ragcov_tui.services import corpus_source
from ragcov_tui.shared.row_blocks import is_mapped
from ragcov_tui.vectorstores import corpus as store_corpus
from ragcov_tui.vectorstores.corpus import StoreCorpus
from tests.cli.conftest import run_cli
from tests.vectorstores.stores import (
    CORPUS,
    QUESTIONS,
    ColumnNames,
    Rows,
    build_chroma,
    build_lancedb,
    build_parquet,
    build_pgvector,
    build_qdrant,
    sample_rows,
)

BUILDERS: dict[str, Callable[..., str]] = {
    "lancedb": build_lancedb,
    "parquet": build_parquet,
    "chroma": build_chroma,
    "qdrant": build_qdrant,
    "pgvector": build_pgvector,
}
ARROW = ("lancedb", "parquet")  # the engines whose columns take any name
DEFAULT_FIELDS = {  # each engine's default mapping, as the report shows it
    **{engine: {"id": "id", "text": "text", "vector": "vector", "document": "document"} for engine in ARROW},
    "chroma": {"id": "id", "text": "documents", "vector": "embeddings", "document": "document"},
    "qdrant": {"id": "id", "text": "text", "vector": "(unnamed vector)", "document": "document"},
    "pgvector": {"id": "id", "text": "text", "vector": "embedding", "document": "document"},
}
DIFFERS = ("session_id", "timings", "usage", "vector_store")  # what a run from a store reports differently
MAP_XY = ("x", "y")  # a chunk's or question's place on the 2-D map: t-SNE turns a 1e-9 difference into 1e-2


def difference(a: object, b: object, where: str = "report") -> str | None:
    """Where ``a`` and ``b`` first differ (None when equal), floats compared to 1e-6, map positions left out."""
    if isinstance(a, float) and isinstance(b, float):
        return None if math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-7) else f"{where}: {a} != {b}"
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return f"{where}: keys {sorted(a)} != {sorted(b)}"
        return next((d for k in a if k not in MAP_XY and (d := difference(a[k], b[k], f"{where}.{k}"))), None)
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} items != {len(b)}"
        return next(
            (d for n, (x, y) in enumerate(zip(a, b, strict=True)) if (d := difference(x, y, f"{where}[{n}]"))), None
        )
    return None if a == b else f"{where}: {a!r} != {b!r}"


def analyze(tmp_path: Path, corpus: str, *extra: str) -> tuple[int, dict]:
    run = len(list(tmp_path.glob("report-*.json")))
    out = tmp_path / f"report-{run}.json"
    # a database per run: a run with an earlier one of the same test file would lint for stale gold against it
    code = run_cli(
        "analyze",
        "--quiet",
        "--db",
        str(tmp_path / f"ragcov-{run}.db"),
        "--corpus",
        corpus,
        "--questions",
        str(QUESTIONS),
        "--json",
        str(out),
        *extra,
    )
    return code, json.loads(out.read_text()) if code == 0 else {}


def store_at(tmp_path: Path, engine: str, rows: Rows | None = None, **names: Unpack[ColumnNames]) -> str:
    where = tmp_path / ("store.parquet" if engine == "parquet" else "store")
    return BUILDERS[engine](where, rows or sample_rows(), **names)


@pytest.fixture(scope="module")
def from_files(tmp_path_factory: pytest.TempPathFactory) -> dict:
    code, report = analyze(tmp_path_factory.mktemp("files"), str(CORPUS))
    assert code == 0
    return report


@pytest.mark.slow
@pytest.mark.parametrize("engine", sorted(set(BUILDERS) - {"pgvector"}))
def test_analyze_from_the_store_equals_analyze_from_the_files(engine: str, tmp_path: Path, from_files: dict) -> None:
    code, report = analyze(tmp_path, store_at(tmp_path, engine))
    assert code == 0
    space = report["vector_store"]["space_check"]
    assert space["checked"] and space["min_cos"] >= 0.99 and space["sample"] == 16
    assert space["line"].startswith("embedding space verified: local:")
    assert report["vector_store"]["fields"] == DEFAULT_FIELDS[engine]
    same = {k: v for k, v in report.items() if k not in DIFFERS}
    expected = {k: v for k, v in from_files.items() if k not in DIFFERS}
    # float figures agree to 1e-6 (not bit for bit): the files' run embeds the chunks again, and onnxruntime's
    # sums may round differently from one run to the next under load; Qdrant normalises each vector again
    assert difference(same, expected) is None


def test_a_store_read_into_a_memory_map_gives_the_same_analysis(
    tmp_path: Path, from_files: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past ``MEMORY_MAP_ABOVE_BYTES`` the vectors go to a memory-mapped file (issue #25 §1): same report."""
    monkeypatch.setattr(store_corpus, "MEMORY_MAP_ABOVE_BYTES", 0)
    spills: list[StoreCorpus] = []
    read = store_corpus.read_store_corpus

    def spilling(*args: Any, **kwargs: Any) -> StoreCorpus:
        spills.append(read(*args, **kwargs))
        return spills[-1]

    monkeypatch.setattr(corpus_source, "read_store_corpus", spilling)
    code, report = analyze(tmp_path, store_at(tmp_path, "parquet"))
    assert code == 0
    assert spills and spills[0].spill is not None and is_mapped(spills[0].vectors)
    same = {k: v for k, v in report.items() if k not in DIFFERS}
    assert difference(same, {k: v for k, v in from_files.items() if k not in DIFFERS}) is None


def test_a_store_without_text_still_gives_every_coverage_figure(tmp_path: Path, from_files: dict) -> None:
    code, report = analyze(tmp_path, store_at(tmp_path, "lancedb", text=None), "--skip-space-check")
    assert code == 0
    assert report["coverage"] == from_files["coverage"]
    assert [c["coverage"] for c in report["clusters"]] == [c["coverage"] for c in from_files["clusters"]]
    assert report["vector_store"]["has_text"] is False and report["vector_store"]["fields"]["text"] is None
    assert all(c["themes"] == [] for c in report["clusters"])
    assert report["gaps"] and all("--text-field" in g["note"] and not g["suggested_questions"] for g in report["gaps"])
    assert "NOT verified" in report["vector_store"]["space_check"]["line"]


def test_another_model_is_refused_with_the_median_cosine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = analyze(tmp_path, store_at(tmp_path, "parquet"), "--embedder", "hash:384")
    err = capsys.readouterr().err
    assert code == 2 and "does not reproduce the store's vectors (median cos" in err and "another model" in err
    assert "--skip-space-check" in err


def test_a_dimension_mismatch_is_caught_before_any_embedding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = analyze(tmp_path, store_at(tmp_path, "parquet"), "--embedder", "hash:64", "--skip-space-check")
    err = capsys.readouterr().err
    assert code == 2 and "have 384 dimensions but hash:test-hash-64 makes 64" in err


def test_skipping_the_space_check_proceeds_and_the_reports_say_so(tmp_path: Path) -> None:
    md = tmp_path / "r.md"
    code, report = analyze(
        tmp_path, store_at(tmp_path, "parquet"), "--embedder", "hash:384", "--skip-space-check", "--markdown", str(md)
    )
    assert code == 0 and report["vector_store"]["space_check"]["checked"] is False
    assert "embedding space NOT verified" in md.read_text()


@pytest.mark.parametrize("engine", ARROW)
def test_a_missing_field_names_the_store_the_field_and_the_fields_there(
    engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = store_at(tmp_path, engine, vector="embedding")
    code, _ = analyze(tmp_path, spec, "--embedder", "hash:384")
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err[-1].endswith(
        f"{spec}: no vector field 'vector' (--vector-field); the store has: id, text, document, embedding"
    )


def test_the_field_flags_map_a_store_of_other_names(tmp_path: Path) -> None:
    spec = store_at(tmp_path, "parquet", id="chunk_id", text="body", vector="embedding", doc="source")
    code, report = analyze(
        tmp_path,
        spec,
        "--embedder",
        "hash:384",
        "--skip-space-check",
        "--id-field",
        "chunk_id",
        "--text-field",
        "body",
        "--vector-field",
        "embedding",
        "--doc-field",
        "source",
    )
    assert code == 0
    assert report["vector_store"]["fields"] == {
        "id": "chunk_id",
        "text": "body",
        "vector": "embedding",
        "document": "source",
    }
    assert report["corpus"]["chunks"] == len(sample_rows().ids)


def test_an_unknown_table_lists_the_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = store_at(tmp_path, "lancedb")
    code, _ = analyze(tmp_path, spec.replace("#docs", "#nope"), "--embedder", "hash:384")
    assert code == 2 and "no table 'nope'; the database has: docs" in capsys.readouterr().err


def test_a_duplicate_id_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = sample_rows()
    twice = Rows([rows.ids[0], *rows.ids[:-1]], rows.texts, rows.docs, rows.vectors)
    code, _ = analyze(tmp_path, store_at(tmp_path, "parquet", twice), "--embedder", "hash:384")
    assert code == 2 and f"id {rows.ids[0]!r} appears twice (field 'id' must be unique)" in capsys.readouterr().err


def test_a_store_mixed_with_files_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run_cli(
        "analyze",
        "--quiet",
        "--db",
        str(tmp_path / "ragcov.db"),
        "--corpus",
        str(CORPUS),
        f"lancedb:{tmp_path}#t",
        "--questions",
        str(QUESTIONS),
        "--embedder",
        "hash:384",
    )
    assert code == 2 and "a vector store is the whole corpus; give it alone" in capsys.readouterr().err


@pytest.mark.slow
def test_analyze_from_pgvector_equals_analyze_from_lancedb_in_id_order(tmp_path: Path) -> None:
    """PostgreSQL reads a table in id order (its physical order moves with free space), so the same
    rows in id order in LanceDB, read as stored, must give the same report."""
    rows = sample_rows()
    order = sorted(range(len(rows.ids)), key=rows.ids.__getitem__)
    by_id = Rows(
        [rows.ids[i] for i in order], [rows.texts[i] for i in order], [rows.docs[i] for i in order], rows.vectors[order]
    )
    code, lance = analyze(tmp_path, build_lancedb(tmp_path / "lance", by_id))
    assert code == 0
    code, pg = analyze(tmp_path, build_pgvector(tmp_path / "pg", rows))
    assert code == 0
    assert pg["vector_store"]["engine"] == "PostgreSQL/pgvector" and pg["vector_store"]["space_check"]["checked"]
    assert pg["vector_store"]["fields"] == DEFAULT_FIELDS["pgvector"]
    assert {k: v for k, v in pg.items() if k not in DIFFERS} == {k: v for k, v in lance.items() if k not in DIFFERS}


def test_ragcov_toml_maps_the_fields_too(tmp_path: Path) -> None:
    spec = store_at(tmp_path, "parquet", text="body", doc="source")
    config = tmp_path / "ragcov.toml"
    config.write_text('[analyze]\ntext_field = "body"\ndoc_field = "source"\n')
    code, report = analyze(tmp_path, spec, "--embedder", "hash:384", "--skip-space-check", "--config", str(config))
    assert code == 0 and report["vector_store"]["fields"]["text"] == "body"
    assert report["vector_store"]["fields"]["document"] == "source"
