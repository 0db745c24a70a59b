"""The same knowledge base in every engine: sample_data/'s chunks with the local embedder's vectors.

``sample_rows()`` chunks sample_data/corpus exactly as ``ragcov analyze --corpus`` does and embeds
the chunks with the default (local MiniLM) embedder; each ``build_*`` writes those rows into a real
engine and returns the ``--corpus`` spec that reads them. ``client(name)`` imports an engine's
client: skipped when absent on a developer's machine, a failure under ``CI=true`` (CI installs
every client through the ``test`` extra, so a store test can never be skipped there silently).
"""

from __future__ import annotations

import functools
import importlib
import os
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, TypedDict, Unpack

import numpy as np
import pytest

from ragcov_tui.corpus import build_chunks
from ragcov_tui.embeddings.factory import make_embedder

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "sample_data" / "corpus"
QUESTIONS = REPO / "sample_data" / "questions.jsonl"


def client(module: str) -> ModuleType:
    """The engine's client module; skip without it, except in CI where it must be installed."""
    try:
        return importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{module} is not installed: CI installs it through the 'test' extra")
        pytest.skip(f"{module} not installed (pip install -e '.[test]')")


@dataclass(frozen=True)
class Rows:
    ids: list[str]
    texts: list[str]
    docs: list[str]
    vectors: np.ndarray  # float32, as the local embedder made them (unit rows)


@functools.cache
def sample_rows() -> Rows:
    _, chunks = build_chunks([CORPUS])
    vectors = make_embedder("local").embed([c.text for c in chunks])
    return Rows([c.id for c in chunks], [c.text for c in chunks], [c.source for c in chunks], vectors)


class ColumnNames(TypedDict, total=False):
    """The column names a store is built with (:func:`arrow_table`'s keywords)."""

    id: str
    text: str | None
    vector: str
    doc: str | None


def arrow_table(
    rows: Rows, *, id: str = "id", text: str | None = "text", vector: str = "vector", doc: str | None = "document"
):
    pa = client("pyarrow")
    columns = {id: pa.array(rows.ids)}
    if text:
        columns[text] = pa.array(rows.texts)
    if doc:
        columns[doc] = pa.array(rows.docs)
    dim = rows.vectors.shape[1]
    columns[vector] = pa.FixedSizeListArray.from_arrays(pa.array(rows.vectors.ravel(), type=pa.float32()), dim)
    return pa.table(columns)


def build_lancedb(where: Path, rows: Rows, table: str = "docs", **names: Unpack[ColumnNames]) -> str:
    lancedb = client("lancedb")
    lancedb.connect(str(where)).create_table(table, arrow_table(rows, **names))
    return f"lancedb:{where}#{table}"


def build_parquet(where: Path, rows: Rows, **names: Unpack[ColumnNames]) -> str:
    client("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(arrow_table(rows, **names), where, row_group_size=50)  # several row groups: batches for real
    return f"parquet:{where}"


def build_chroma(where: Path, rows: Rows, collection: str = "docs") -> str:
    chromadb = client("chromadb")
    db = chromadb.PersistentClient(path=str(where))
    table = db.create_collection(collection, metadata={"hnsw:space": "cosine"})
    table.add(
        ids=rows.ids, embeddings=rows.vectors, documents=rows.texts, metadatas=[{"document": d} for d in rows.docs]
    )
    return f"chroma:{where}#{collection}"


def build_qdrant(where: Path, rows: Rows, collection: str = "docs") -> str:
    client("qdrant_client")
    from qdrant_client import QdrantClient, models

    db = QdrantClient(path=str(where))
    db.create_collection(
        collection, vectors_config=models.VectorParams(size=rows.vectors.shape[1], distance=models.Distance.COSINE)
    )
    db.upsert(
        collection,
        points=[
            models.PointStruct(id=n, vector=v.tolist(), payload={"id": i, "text": t, "document": d})
            for n, (i, t, d, v) in enumerate(zip(rows.ids, rows.texts, rows.docs, rows.vectors, strict=True))
        ],
    )
    db.close()  # local mode locks the folder: the reader opens it again
    return f"qdrant:{where}#{collection}"


@functools.cache
def postgres() -> Any:  # a pgserver.PostgresServer (pgserver publishes no types)
    """One PostgreSQL with pgvector per test process (pgserver's bundled build, in a temporary folder)."""
    import tempfile

    pgserver = client("pgserver")
    return pgserver.get_server(tempfile.mkdtemp(prefix="ragcov-pg-"), cleanup_mode="delete")


def build_pgvector(where: Path, rows: Rows, table: str = "docs") -> str:
    """A database of its own (named after ``where``) holding one table with a ``vector(384)`` column."""
    psycopg = client("psycopg")
    from pgvector.psycopg import register_vector

    server = postgres()
    name = "db_" + "".join(ch if ch.isalnum() else "_" for ch in f"{where.parent.name}_{where.name}".lower())[-50:]
    server.psql(f"CREATE DATABASE {name};")
    uri = server.get_uri(name)
    with psycopg.connect(uri) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        register_vector(conn)
        conn.execute(
            f"CREATE TABLE {table} (id text PRIMARY KEY, text text, document text, "
            f"embedding vector({rows.vectors.shape[1]}))"
        )
        with conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO {table} (id, text, document, embedding) VALUES (%s, %s, %s, %s)",
                list(zip(rows.ids, rows.texts, rows.docs, rows.vectors, strict=True)),
            )
    return f"pgvector:{uri}#{table}"
