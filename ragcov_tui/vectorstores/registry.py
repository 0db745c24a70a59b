"""Store specs and their readers: ``SCHEME:LOCATION#NAME``, one reader module per scheme.

Schemes: ``lancedb:PATH#TABLE``, ``parquet:FILE``, ``chroma:PATH#COLLECTION``,
``qdrant:PATH#COLLECTION``, ``pgvector:postgresql://…#TABLE``. Each engine's client is an optional extra (``ragcov-tui[lancedb]``…),
imported only when a spec names it: a missing client is one line with the install command.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from types import ModuleType

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.vectorstores.base import FieldOverrides, StoreReader, StoreSpec

# scheme -> (form shown in messages, whether "#NAME" is required, reader module, extra to install)
SCHEMES: dict[str, tuple[str, bool, str, str]] = {
    "lancedb": ("lancedb:PATH#TABLE", True, "lancedb_store", "lancedb"),
    "parquet": ("parquet:FILE", False, "parquet_store", "parquet"),
    "chroma": ("chroma:PATH#COLLECTION", True, "chroma_store", "chroma"),
    "qdrant": ("qdrant:PATH#COLLECTION", True, "qdrant_store", "qdrant"),
    "pgvector": ("pgvector:postgresql://…#TABLE", True, "pgvector_store", "pgvector"),
}
FORMS = ", ".join(form for form, *_ in SCHEMES.values())


def store_scheme(text: str) -> str | None:
    """The store scheme ``text`` starts with (``lancedb`` of ``lancedb:./db#docs``), else None."""
    scheme, sep, _ = text.partition(":")
    return scheme.strip().lower() if sep and scheme.strip().lower() in SCHEMES else None


def parse_store_spec(text: str) -> StoreSpec:
    """``text`` as a :class:`StoreSpec`; BadInput naming the expected form when a part is missing."""
    scheme = store_scheme(text)
    if scheme is None:
        raise BadInput(f"{text!r}: not a vector store spec (expected one of {FORMS})")
    form, needs_name, _, _ = SCHEMES[scheme]
    rest = text.split(":", 1)[1].strip()
    location, _, name = rest.rpartition("#") if "#" in rest else (rest, "", "")
    if not location.strip() or (needs_name and not name.strip()):
        raise BadInput(f"{text!r}: expected {form}")
    return StoreSpec(scheme=scheme, location=location.strip(), name=name.strip(), text=text)


def store_corpus_spec(corpus: Sequence[str]) -> StoreSpec | None:
    """The store a ``--corpus`` list names, else None (files and folders); BadInput when a store
    spec is mixed with other corpus paths."""
    stores = [c for c in corpus if store_scheme(c)]
    if not stores:
        return None
    if len(corpus) > 1:
        raise BadInput(f"--corpus {stores[0]}: a vector store is the whole corpus; give it alone")
    return parse_store_spec(stores[0])


def client(module: str, extra: str) -> ModuleType:
    """Import an engine's client, or BadInput with the one-line install hint."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise BadInput(f"reading a {extra} store needs its client: pip install 'ragcov-tui[{extra}]'") from None


def open_store(spec: StoreSpec, overrides: FieldOverrides | None = None) -> StoreReader:
    """The reader for ``spec`` with the user's field overrides applied and checked."""
    _, _, module, _ = SCHEMES[spec.scheme]
    reader_module = importlib.import_module(f"ragcov_tui.vectorstores.{module}")
    reader: StoreReader = reader_module.open_reader(spec, overrides or FieldOverrides())
    return reader
