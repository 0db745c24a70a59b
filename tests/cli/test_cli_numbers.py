"""End to end (issue #22 §6, numbers): counts print with thousands separators everywhere (as the
token counts beside them do), the gold-id line says it counts distinct ids, and compare never
prints a negative zero."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragcov_tui.shared.number_text import count, signed
from tests.cli.conftest import run_cli
from tests.evaluation.test_eval_beir import make_beir

pytestmark = pytest.mark.slow

UNSEPARATED = re.compile(r"(?<![\w.,#@:/-])\d{4,}(?![\w.,])")  # 1050 and 44333, not 1,050 or 0.1234 or doc1084


def _printed(capsys) -> str:
    return " ".join(capsys.readouterr().out.split())  # lines wrap at the terminal width


def test_analyze_separates_thousands_in_every_count(tmp_path: Path, capsys) -> None:
    folder = make_beir(tmp_path / "beir", docs=1100, queries=20)
    assert run_cli("analyze", "--db", str(tmp_path / "db"), "--questions", str(folder), "--embedder", "hash") == 0
    printed = _printed(capsys)
    assert "1,100 documents, 1,100 chunks" in printed
    assert re.search(r"\(\d{1,3}(,\d{3})* of 1,100\) are within reach of a question", printed)
    assert re.search(r"of 1,100 documents are named by no question's gold ids", printed)
    assert not UNSEPARATED.findall(printed.split("Open it:")[0]), UNSEPARATED.findall(printed)


def test_eval_separates_thousands_and_says_gold_ids_are_distinct(tmp_path: Path, capsys) -> None:
    folder = make_beir(tmp_path / "beir", docs=60, queries=1050)
    assert (
        run_cli(
            "eval",
            "--db",
            str(tmp_path / "db"),
            "--questions",
            str(folder),
            "--system",
            "builtin:bm25",
            "--k",
            "10",
            "--json",
            str(tmp_path / "r.json"),
        )
        == 0
    )
    printed = _printed(capsys)
    report = json.loads((tmp_path / "r.json").read_text())
    ids = report["gold_ids"]["ids"]
    assert ids == 60 < 2 * 1050  # 2,100 judgements name 60 documents: the line counts distinct ids, not questions
    assert f"gold ids: {ids} of {ids} distinct ids matched the corpus" in printed
    assert "│ 1,050 │" in printed  # the n column
    diagnosis = printed.split("Diagnosis: ")[1].split(" embeddings:")[0]
    assert sum(int(n.replace(",", "")) for n in re.findall(r"[\d,]+\d", diagnosis)) == 1050
    assert not UNSEPARATED.findall(printed), UNSEPARATED.findall(printed)


def test_compare_never_prints_a_negative_zero(tmp_path: Path, capsys) -> None:
    folder = make_beir(tmp_path / "beir")
    a = tmp_path / "a.json"
    assert (
        run_cli(
            "eval",
            "--quiet",
            "--db",
            str(tmp_path / "db"),
            "--questions",
            str(folder),
            "--system",
            "builtin:bm25",
            "--k",
            "10",
            "--json",
            str(a),
        )
        == 0
    )
    report = json.loads(a.read_text())
    report["session_id"] = "bbbbbbbb"
    first = report["questions"][0]["retrieval"]
    first["mrr"] -= 0.003  # B loses 0.003 on one question of 24: a mean difference of -0.000125
    b = tmp_path / "b.json"
    b.write_text(json.dumps(report))
    capsys.readouterr()
    assert run_cli("compare", str(a), str(b)) == 0
    printed = _printed(capsys)
    mrr_row = printed.split("│ mrr ")[1].split("│ ndcg@10")[0]  # its A, B, delta and interval cells
    assert "-0.000" not in printed and "+0.000" in mrr_row


def test_the_number_formats() -> None:
    assert [count(n) for n in (0, 999, 1000, 1909694, None)] == ["0", "999", "1,000", "1,909,694", "?"]
    assert [signed(x) for x in (-0.0001, 0.0, -0.0, 0.0004, -0.25, 0.012)] == [
        "+0.000",
        "+0.000",
        "+0.000",
        "+0.000",
        "-0.250",
        "+0.012",
    ]
