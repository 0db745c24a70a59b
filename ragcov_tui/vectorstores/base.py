"""The one reader interface every vector store implements, and the shapes it returns.

A store holds rows of (id, text, document id, vector). :class:`StoreReader` reads them in
batches (:class:`StoreBatch`: the vectors as one float32 matrix per batch, never a Python list
per row) and searches its own index (:meth:`StoreReader.search`). Which field of the store holds
each part is a :class:`FieldMap`: each store has its defaults, the user overrides them with
``--id-field`` / ``--text-field`` / ``--vector-field`` / ``--doc-field``. A field that is not
there is one line naming the store, the field and the fields that exist (:func:`missing_field`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragcov_tui.shared.errors import BadInput

if TYPE_CHECKING:  # numpy stays out of the CLI's start-up (the registry imports this module)
    import numpy as np

READ_BATCH = 8192  # rows per batch read from a store


@dataclass(frozen=True)
class StoreSpec:
    """A parsed ``SCHEME:LOCATION#NAME`` corpus or system spec (``name`` is "" when the scheme has none)."""

    scheme: str
    location: str
    name: str
    text: str  # the spec as the user wrote it, for messages and sessions


@dataclass(frozen=True)
class FieldMap:
    """Which store field holds each part of a row; ``text`` / ``doc`` may be None (absent)."""

    id: str
    vector: str
    text: str | None
    doc: str | None

    def shown(self) -> dict[str, str | None]:
        """The mapping for the run's summary."""
        return {"id": self.id, "text": self.text, "vector": self.vector, "document": self.doc}


@dataclass(frozen=True)
class FieldOverrides:
    """The user's ``--*-field`` choices; None keeps the store's default."""

    id: str | None = None
    text: str | None = None
    vector: str | None = None
    doc: str | None = None

    def apply(self, defaults: FieldMap) -> FieldMap:
        return FieldMap(
            id=self.id or defaults.id,
            vector=self.vector or defaults.vector,
            text=self.text or defaults.text,
            doc=self.doc or defaults.doc,
        )


@dataclass
class StoreBatch:
    """One batch of rows: ids, texts (None when the store holds none), document ids and a
    ``(len(ids), dim)`` float32 matrix of the stored vectors, as stored (not normalised)."""

    ids: list[str]
    texts: list[str] | None
    docs: list[str]
    vectors: np.ndarray


@dataclass
class Hit:
    """One search result: the row's id, its text ("" when the store holds none) and the store's score."""

    id: str
    text: str
    score: float | None


def missing_field(spec: StoreSpec, role: str, field: str, existing: Sequence[str]) -> BadInput:
    """The one-line error for a mapped field the store lacks."""
    flag = {"id": "--id-field", "text": "--text-field", "vector": "--vector-field", "document": "--doc-field"}[role]
    have = ", ".join(existing) if existing else "none"
    return BadInput(f"{spec.text}: no {role} field {field!r} ({flag}); the store has: {have}")


def resolve_optional(fields: FieldMap, existing: Sequence[str], overrides: FieldOverrides, spec: StoreSpec) -> FieldMap:
    """``fields`` checked against the store's ``existing`` fields: the id and vector fields must
    exist; a text or document field the user named must exist, a default one that is absent is
    dropped (None)."""
    names = set(existing)
    for role, name in (("id", fields.id), ("vector", fields.vector)):
        if name not in names:
            raise missing_field(spec, role, name, existing)
    text, doc = fields.text, fields.doc
    for role, optional, given in (("text", text, overrides.text), ("document", doc, overrides.doc)):
        if optional is not None and optional not in names and given:
            raise missing_field(spec, role, optional, existing)
    return FieldMap(
        id=fields.id, vector=fields.vector, text=text if text in names else None, doc=doc if doc in names else None
    )


class StoreReader(ABC):
    """An open vector store: its size, its vectors' dimension, its rows in batches, its search."""

    spec: StoreSpec
    fields: FieldMap
    engine: str  # the engine's name for summaries (``LanceDB``, ``Parquet``…)

    @abstractmethod
    def count(self) -> int:
        """The number of rows."""

    @abstractmethod
    def dim(self) -> int:
        """The stored vectors' dimension."""

    @abstractmethod
    def batches(self, size: int = READ_BATCH) -> Generator[StoreBatch, None, None]:
        """Every row, in the store's order, ``size`` at a time."""

    def search(self, vectors: np.ndarray, k: int) -> list[list[Hit]]:
        """The ``k`` nearest rows of each query vector by the store's own index, best first."""
        raise BadInput(f"{self.spec.text}: {self.engine} has no search of its own; use it as --corpus")

    @abstractmethod
    def close(self) -> None:
        """Release the engine (its files, its lock)."""
