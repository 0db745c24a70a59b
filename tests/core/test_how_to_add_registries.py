"""docs/architecture.md's "How to add" names, for each provider and format registry, the module and
table to edit and the test that keeps help and README equal to it (issue #29 §3): checked against the
code, so a moved registry or a renamed test fails here rather than misleading a contributor."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# entry in "How to add" → (registry module, its table, the test that keeps help / README equal to it)
REGISTRIES = {
    "An embedding provider": ("embeddings/providers.py", "PROVIDERS", "tests/embeddings/test_embed_providers.py"),
    "A chat provider": ("llm/providers.py", "PROVIDERS", "tests/llm/test_llm_providers.py"),
    "A corpus file type": ("corpus/file_types.py", "FILE_TYPES", "tests/corpus/test_corpus_file_types.py"),
    "A query-log format": ("traffic/log_formats.py", "LOG_FORMAT_LIST", "tests/traffic/test_traffic_log_formats.py"),
}


def _entry(title: str) -> str:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    how_to_add = text[text.index("## How to add") :]
    start = how_to_add.index(f"- **{title}**")
    end = how_to_add.find("\n- **", start + 1)
    return how_to_add[start : end if end > 0 else None]


@pytest.mark.parametrize("title", REGISTRIES)
def test_how_to_add_names_the_registry_and_its_test(title: str) -> None:
    module, table, test = REGISTRIES[title]
    entry = " ".join(_entry(title).split())
    assert f"`{module}`" in entry and f"`{table}`" in entry and f"`{test}`" in entry, entry
    registry = importlib.import_module("ragcov_tui." + module.removesuffix(".py").replace("/", "."))
    assert getattr(registry, table)
    assert (ROOT / test).is_file()
