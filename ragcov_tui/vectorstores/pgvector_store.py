"""``pgvector:postgresql://…#TABLE``: a PostgreSQL table with a pgvector column, read through a
server-side cursor in batches (in id order) and searched with ``ORDER BY vector <=> query`` (cosine distance:
the HNSW / IVFFlat index the table has for ``vector_cosine_ops`` serves it, as configured).

Default fields: ``id``, ``text``, ``embedding`` (pgvector's usual column name), ``document``;
``TABLE`` may be ``schema.table``.
"""

from __future__ import annotations

import threading
from collections.abc import Generator
from typing import Any

import numpy as np

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.vectorstores.base import (
    READ_BATCH,
    FieldMap,
    FieldOverrides,
    Hit,
    StoreBatch,
    StoreReader,
    StoreSpec,
    resolve_optional,
)
from ragcov_tui.vectorstores.matrix import as_float32_rows
from ragcov_tui.vectorstores.registry import client

DEFAULT_FIELDS = FieldMap(id="id", text="text", vector="embedding", doc="document")


class PgvectorReader(StoreReader):
    engine = "PostgreSQL/pgvector"

    def __init__(self, spec: StoreSpec, overrides: FieldOverrides) -> None:
        psycopg = client("psycopg", "pgvector")
        register_vector = client("pgvector.psycopg", "pgvector").register_vector
        self.spec = spec
        try:
            self.conn = psycopg.connect(spec.location, autocommit=False)
        except psycopg.Error as exc:
            raise BadInput(f"{spec.text}: cannot connect ({str(exc).strip().splitlines()[0]})") from None
        try:
            register_vector(self.conn)
            self._open(overrides)
        except BaseException:
            self.conn.close()
            raise
        self._lock = threading.Lock()  # one connection: one statement at a time

    def _open(self, overrides: FieldOverrides) -> None:
        from psycopg import sql

        schema, _, table = self.spec.name.rpartition(".")
        schema = schema or "public"
        self.table = sql.Identifier(schema, table)
        columns = [
            r[0]
            for r in self.conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = %s AND table_name = %s "
                "ORDER BY ordinal_position",
                (schema, table),
            ).fetchall()
        ]
        if not columns:
            tables = [
                r[0]
                for r in self.conn.execute(
                    "SELECT table_name FROM information_schema.tables WHERE table_schema = %s ORDER BY table_name",
                    (schema,),
                ).fetchall()
            ]
            raise BadInput(
                f"{self.spec.text}: no table {self.spec.name!r}; schema {schema} has: {', '.join(tables) or 'none'}"
            )
        self.fields = resolve_optional(overrides.apply(DEFAULT_FIELDS), columns, overrides, self.spec)
        self.conn.commit()

    def _select(self, extra: Any = None) -> Any:
        from psycopg import sql

        f = self.fields
        parts = [
            sql.SQL("{}::text").format(sql.Identifier(f.id)),
            sql.SQL("{}::text").format(sql.Identifier(f.text)) if f.text else sql.SQL("NULL"),
            sql.SQL("{}::text").format(sql.Identifier(f.doc)) if f.doc else sql.SQL("NULL"),
            sql.Identifier(f.vector),
        ]
        return sql.SQL("SELECT {} FROM {}").format(sql.SQL(", ").join(parts + ([extra] if extra else [])), self.table)

    def count(self) -> int:
        from psycopg import sql

        with self._lock:
            row = self.conn.execute(sql.SQL("SELECT count(*) FROM {}").format(self.table)).fetchone()
            self.conn.commit()
        return int(row[0]) if row else 0

    def dim(self) -> int:
        from psycopg import sql

        with self._lock:
            row = self.conn.execute(
                sql.SQL("SELECT vector_dims({}) FROM {} LIMIT 1").format(sql.Identifier(self.fields.vector), self.table)
            ).fetchone()
            self.conn.commit()
        return int(row[0]) if row else 0

    def batches(self, size: int = READ_BATCH) -> Generator[StoreBatch, None, None]:
        """The rows in id order: a table's physical order moves with updates and free space."""
        from psycopg import sql

        with self._lock, self.conn.cursor(name="ragcov_read") as cur:
            cur.itersize = size
            cur.execute(sql.SQL("{} ORDER BY {}").format(self._select(), sql.Identifier(self.fields.id)))
            while rows := cur.fetchmany(size):
                yield self._batch(rows)
        self.conn.commit()

    def _batch(self, rows: list[tuple[Any, ...]]) -> StoreBatch:
        ids = [str(r[0]) for r in rows]
        if any(r[3] is None for r in rows):
            raise BadInput(f"{self.spec.text}: row {next(str(r[0]) for r in rows if r[3] is None)!r} has no vector")
        texts = None if self.fields.text is None else [r[1] or "" for r in rows]
        docs = (
            ids
            if self.fields.doc is None
            else [r[2] if r[2] is not None else i for r, i in zip(rows, ids, strict=True)]
        )
        vectors = as_float32_rows(np.stack([_array(r[3]) for r in rows]), len(rows), self.spec, self.fields.vector)
        return StoreBatch(ids=ids, texts=texts, docs=docs, vectors=vectors)

    def search(self, vectors: np.ndarray, k: int) -> list[list[Hit]]:
        from psycopg import sql

        order = sql.SQL("{} <=> %(q)s").format(sql.Identifier(self.fields.vector))
        query = sql.SQL("{} ORDER BY {} LIMIT %(k)s").format(self._select(order), order)
        out: list[list[Hit]] = []
        for vec in np.asarray(vectors, dtype=np.float32):
            with self._lock:
                rows = self.conn.execute(query, {"q": vec, "k": k}).fetchall()
                self.conn.commit()
            out.append([Hit(id=str(r[0]), text=r[1] or "", score=-float(r[4])) for r in rows])
        return out

    def close(self) -> None:
        self.conn.close()


def _array(value: Any) -> np.ndarray:
    """A pgvector value (the client's ``Vector``, or a numpy array in older clients) as float32."""
    return np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value, dtype=np.float32)


def open_reader(spec: StoreSpec, overrides: FieldOverrides) -> StoreReader:
    return PgvectorReader(spec, overrides)
