"""build_chunks: load + chunk + pre-chunked rows, documents listed for pre-chunked sources."""

from __future__ import annotations

import json

import pytest

from ragcov_tui.corpus import build_chunks
from ragcov_tui.shared.errors import BadInput


def test_documents_and_prechunked_are_merged(tmp_path):
    (tmp_path / "guide.md").write_text("# Guide\n\nInstall it.\n\nRun it.", encoding="utf-8")
    rows = [
        {"id": "f1", "text": "FAQ one.", "source": "faq", "vector": [1.0, 0.0]},
        {"id": "f2", "text": "FAQ two.", "source": "faq", "vector": [0.0, 1.0]},
        {"id": "g1", "text": "From the guide.", "source": "guide.md", "vector": [0.5, 0.5]},
    ]
    (tmp_path / "rows.jsonl").write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    progress = []
    documents, chunks = build_chunks([tmp_path], chunk_size=5, chunk_overlap=0, progress=lambda *a: progress.append(a))
    assert [(d.source, bool(d.text)) for d in documents] == [("guide.md", True), ("faq", False)]
    cut = [c for c in chunks if c.vector is None]
    assert [c.text for c in cut] == ["# Guide", "Install it.", "Run it."]
    assert [c.id for c in chunks[len(cut) :]] == ["f1", "f2", "g1"]
    assert progress[-1] == ("chunking", 1, 1)


def test_settings_are_checked_before_reading(tmp_path):
    with pytest.raises(BadInput, match="--chunk-overlap"):
        build_chunks([tmp_path / "missing"], chunk_size=10, chunk_overlap=10)


def test_warnings_reach_the_callback(tmp_path):
    (tmp_path / "a.txt").write_text("fine", encoding="utf-8")
    (tmp_path / "b.txt").write_bytes(b"")
    seen: list[str] = []
    documents, chunks = build_chunks([tmp_path], warn=seen.append)
    assert len(documents) == 1 and [c.text for c in chunks] == ["fine"]
    assert seen == [f"{tmp_path}/b.txt: empty or whitespace only; skipped"]
