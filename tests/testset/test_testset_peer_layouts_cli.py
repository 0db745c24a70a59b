"""End to end (issue #14): ``ragcov analyze`` reads each peer's test file as published, warning once
about what it ignores; ``ragcov eval`` scores the answers and contexts a Ragas / DeepEval file holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import CORPUS, run_cli
from tests.testset.peer_files import ARAGOG, LAYOUTS

pytestmark = pytest.mark.slow

# One analysis per read path that talks to the user (a warning line); every layout is read in
# test_testset_peer_layouts.py, and `ragcov analyze` was run by hand on each (see issue #14's report).
CASES = {  # layout -> the warning line's tail, if any
    "ragas-eval-csv-index": "ignoring column 1 (pandas index); kept as is when ragcov writes to the file",
    "aragog": None,
}


def put(tmp_path: Path, layout: str) -> Path:
    name, text = ("benchmark.json", ARAGOG) if layout == "aragog" else LAYOUTS[layout][:2]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("layout", sorted(CASES))
def test_analyze_reads_the_peer_file_and_warns_once(tmp_path, capsys, layout):
    path, out = put(tmp_path, layout), tmp_path / "report.json"
    before = path.read_bytes()
    assert (
        run_cli(
            "analyze",
            "--db",
            str(tmp_path / "r.db"),
            "--corpus",
            str(CORPUS),
            "--questions",
            str(path),
            "--json",
            str(out),
        )
        == 0
    )
    assert json.loads(out.read_text())["questions"]["total"] == 3
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning:")]
    tail = CASES[layout]
    assert warnings == ([] if tail is None else [f"warning: {path}: {tail}"])
    assert path.read_bytes() == before


@pytest.mark.parametrize("layout", ["ragas-eval-csv-index"])
def test_eval_scores_the_answers_and_contexts_the_file_holds(tmp_path, layout):
    path, out = put(tmp_path, layout), tmp_path / "eval.json"
    assert (
        run_cli(
            "eval",
            "--quiet",
            "--db",
            str(tmp_path / "r.db"),
            "--corpus",
            str(CORPUS),
            "--questions",
            str(path),
            "--system",
            f"records:{path}",
            "--json",
            str(out),
        )
        == 0
    )
    report = json.loads(out.read_text())
    items = report["items"] if "items" in report else report["questions"]
    assert len(items) == 3
