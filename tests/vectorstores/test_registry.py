"""Store specs: parsed or refused in one line; a missing client names the extra to install."""

from __future__ import annotations

import pytest

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.vectorstores.registry import client, parse_store_spec, store_corpus_spec


def test_specs_parse_into_scheme_location_and_name() -> None:
    spec = parse_store_spec("lancedb:./data/db#docs")
    assert (spec.scheme, spec.location, spec.name) == ("lancedb", "./data/db", "docs")
    assert parse_store_spec("parquet:rows.parquet").name == ""
    assert store_corpus_spec(["docs/", "notes.md"]) is None


@pytest.mark.parametrize("text", ["lancedb:./db", "chroma:#docs", "qdrant:", "parquet:"])
def test_a_spec_missing_a_part_names_the_form(text: str) -> None:
    with pytest.raises(BadInput, match="expected (lancedb|chroma|qdrant|parquet):"):
        parse_store_spec(text)


def test_a_missing_client_gives_the_install_line() -> None:
    with pytest.raises(BadInput, match=r"pip install 'ragcov-tui\[qdrant\]'"):
        client("ragcov_no_such_client", "qdrant")
