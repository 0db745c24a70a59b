"""``ragcov analyze --embedder precomputed``: chunks and questions carry their own vectors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from tests.cli.conftest import run_cli


def write_inputs(tmp_path: Path, question_vectors: bool = True) -> tuple[Path, Path]:
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(3, 16))
    chunks, questions = tmp_path / "chunks.jsonl", tmp_path / "questions.jsonl"
    with chunks.open("w") as f:
        for i in range(30):
            v = centres[i % 3] + 0.1 * rng.normal(size=16)
            f.write(
                json.dumps({"id": f"c{i}", "text": f"chunk {i}", "source": f"doc{i % 3}.md", "vector": v.tolist()})
                + "\n"
            )
    with questions.open("w") as f:
        for j in range(6):
            row = {"id": f"q{j}", "question": f"question {j}"}
            if question_vectors:
                row["vector"] = (centres[j % 2] + 0.1 * rng.normal(size=16)).tolist()
            f.write(json.dumps(row) + "\n")
    return chunks, questions


def test_precomputed_vectors_are_used(tmp_path: Path) -> None:
    chunks, questions = write_inputs(tmp_path)
    out = tmp_path / "r.json"
    assert (
        run_cli(
            "analyze",
            "--quiet",
            "--db",
            str(tmp_path / "db"),
            "--corpus",
            str(chunks),
            "--questions",
            str(questions),
            "--embedder",
            "precomputed",
            "--clusters",
            "3",
            "--json",
            str(out),
        )
        == 0
    )
    report = json.loads(out.read_text())
    assert report["embedder"]["dim"] == 16 and report["corpus"]["chunks"] == 30
    coverage = {c["id"]: c["coverage"] for c in report["clusters"]}
    # questions were drawn near two of the three centres: one cluster is clearly the least covered
    assert sorted(coverage.values())[0] < sorted(coverage.values())[1] - 0.2


def test_a_question_without_a_vector_is_named(tmp_path: Path, capsys) -> None:
    chunks, questions = write_inputs(tmp_path, question_vectors=False)
    code = run_cli(
        "analyze",
        "--quiet",
        "--db",
        str(tmp_path / "db"),
        "--corpus",
        str(chunks),
        "--questions",
        str(questions),
        "--embedder",
        "precomputed",
    )
    err = capsys.readouterr().err
    assert code == 2 and "q0" in err and "vector" in err
