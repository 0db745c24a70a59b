"""``ragcov labels import`` and ``ragcov align`` (issue #26 §4, §6): labels in, alignment and
judge-corrected figures out in every report format, noise-aware gates, bad rows one line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcov_tui.cli.main import main
from ragcov_tui.evaluation.report import aggregate_items, count_items, item_errors
from ragcov_tui.store import open_db
from ragcov_tui.store.evals import load_eval_items, save_eval_header
from ragcov_tui.store.labels import session_labels
from tests.support.synthetic_sessions import make_eval_session

SID = "e0000001"


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    """A finished synthetic eval with its report header, as ``ragcov eval`` leaves one."""
    path = tmp_path / "ragcov.db"
    store = open_db(path)
    make_eval_session(store, n_questions=60)
    items = load_eval_items(store, SID)
    metrics = {"retrieval": ["hit@5", "mrr"], "generation": ["faithfulness", "answer_correctness"]}
    save_eval_header(
        store,
        SID,
        {  # type: ignore[typeddict-item]
            "session_id": SID,
            "kind": "eval",
            "system": "records:answers.jsonl",
            "judge": "heuristic",
            "k": 5,
            "metrics": metrics,
            "repeats": 1,
            "aggregate": aggregate_items(items, metrics["retrieval"], metrics["generation"]),
            "counts": count_items(items, len(items)),
            "errors": item_errors(items),
        },
    )
    return path


def _scores(db: Path, metric: str) -> dict[str, float]:
    rows = (
        open_db(db)
        .execute(
            "SELECT question_id, json_extract(generation, ?) FROM eval_items WHERE session_id = ? AND status = 'done'",
            [f"$.{metric}", SID],
        )
        .fetchall()
    )
    return {q: v for q, v in rows if v is not None}


def _labels_file(db: Path, tmp_path: Path, *, flip_every: int = 7) -> Path:
    """Labels that agree with the judge's pass / fail except on every ``flip_every``-th item;
    answer_correctness as 0/1 labels, faithfulness as scores (thresholded at 0.5)."""
    path = tmp_path / "labels.csv"
    lines = ["question_id,metric,label,score"]
    for i, (qid, score) in enumerate(sorted(_scores(db, "answer_correctness").items())):
        verdict = int(score >= 0.5)
        lines.append(f"{qid},answer_correctness,{1 - verdict if i % flip_every == 0 else verdict},")
    for qid, score in sorted(_scores(db, "faithfulness").items())[:20]:
        lines.append(f"{qid},faithfulness,,{score}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_import_then_align_json_and_every_report(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = _labels_file(db, tmp_path)
    assert main(["labels", "import", str(labels), "--session", SID, "--db", str(db)]) == 0
    assert "labels stored in session e0000001" in capsys.readouterr().out
    stored = session_labels(open_db(db), SID)
    assert {x.metric for x in stored} == {"answer_correctness", "faithfulness"}
    assert main(["align", SID, "--db", str(db), "--json"]) == 0
    section = json.loads(capsys.readouterr().out)
    m = section["metrics"]["answer_correctness"]
    c = m["confusion"]
    assert c["tp"] + c["fn"] == m["positives"] and c["fp"] + c["tn"] == m["negatives"]
    assert m["tpr"]["value"] == pytest.approx(c["tp"] / (c["tp"] + c["fn"]))
    # faithfulness labels are the judge's own scores thresholded: perfect agreement
    assert (
        section["metrics"]["faithfulness"]["confusion"]["fp"]
        == section["metrics"]["faithfulness"]["confusion"]["fn"]
        == 0
    )
    assert m["corrected"]["corrected"]["value"] is not None

    assert main(["align", SID, "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "Judge against labels" in out and "judge-corrected" in out and "label yes" in out
    md, page = tmp_path / "r.md", tmp_path / "r.html"
    assert (
        main(
            [
                "report",
                SID,
                "--db",
                str(db),
                "--markdown",
                str(md),
                "--json",
                str(tmp_path / "r.json"),
                "--html",
                str(page),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "answer_correctness: judged mean" in out and "judge-corrected" in out  # the CLI table's report
    assert "## Can I trust the judge?" in md.read_text() and "judge-corrected" in md.read_text()
    html = page.read_text()  # the HTML page too (issue #28 §3)
    assert 'id="alignment-table"' in html and "judge-corrected" in html and "balanced acc." in html
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["judge_alignment"]["metrics"]["answer_correctness"]["corrected"] == m["corrected"]


def test_report_without_labels_has_no_alignment(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", SID, "--db", str(db), "--json", "-"]) == 0
    assert "judge_alignment" not in json.loads(capsys.readouterr().out)
    assert main(["align", SID, "--db", str(db)]) == 2
    assert "has no labels" in capsys.readouterr().err


def test_align_gate_uses_the_corrected_lower_bound(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["labels", "import", str(_labels_file(db, tmp_path)), "--session", SID, "--db", str(db)])
    capsys.readouterr()
    main(["align", SID, "--db", str(db), "--json"])
    corrected = json.loads(capsys.readouterr().out)["metrics"]["answer_correctness"]["corrected"]["corrected"]
    low, value = corrected["low"], corrected["value"]
    between = round((low + value) / 2, 4)  # below the estimate, above its lower bound
    assert low < between < value
    code = main(["align", SID, "--db", str(db), "--fail-under", f"answer_correctness={between}"])
    err = capsys.readouterr().err
    assert code == 3  # the estimate clears it, its 95% lower bound does not
    assert f"gate answer_correctness >= {between:g} (judged): 95% lower bound" in err
    assert main(["align", SID, "--db", str(db), "--fail-under", f"answer_correctness={max(0.0, low - 0.01):.4f}"]) == 0


@pytest.mark.parametrize(
    ("body", "name", "message"),
    [
        ("question_id,metric,label\nq00001,faithfulness,maybe\n", "l.csv", "l.csv:2: field 'label': 'maybe'"),
        (
            "question_id,metric,score\nq00001,faithfulness,1.5\n",
            "l.csv",
            "l.csv:2: field 'score': '1.5' is not a number in [0, 1]",
        ),
        ("question_id,metric,label\nnope,faithfulness,1\n", "l.csv", "l.csv:2: field 'question_id': 'nope' is no item"),
        ("question_id,metric,label\nq00001,bleu,1\n", "l.csv", "l.csv:2: field 'metric': 'bleu'"),
        ("question_id,metric,label\nq00001,keyword_coverage,1\n", "l.csv", "field 'metric'"),  # not judged
        (
            '{"id": "q00001", "metric": "faithfulness", "label": 1}\n{"id": "q00001", "metric": "faithfulness", "label": 0}\n',
            "l.jsonl",
            "l.jsonl:2: field 'id': 'q00001' / faithfulness was labelled already on line 1",
        ),
        ('{"id": "q00001", "metric": "faithfulness", "label": 1}\n{oops\n', "l.jsonl", "l.jsonl:2: invalid JSON"),
        ('{"metric": "faithfulness", "label": 1}\n', "l.jsonl", "l.jsonl:1: field 'question_id': missing"),
        ('{"id": "q00001", "metric": "faithfulness"}\n', "l.jsonl", "l.jsonl:1: field 'label': missing"),
    ],
)
def test_bad_rows_are_one_line_exit_2_and_nothing_stored(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, name: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(body)
    assert main(["labels", "import", str(path), "--session", SID, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert session_labels(open_db(db), SID) == []  # all or nothing


def test_jsonl_scores_threshold_at_one_half(db: Path, tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    path.write_text(
        '{"question_id": "q00001", "metric": "faithfulness", "score": 0.5}\n\n'
        '{"question_id": "q00002", "metric": "faithfulness", "score": 0.49}\n'
        '{"question_id": "q00003", "metric": "answer_correctness", "label": "yes"}\n'
        '{"question_id": "q00004", "metric": "answer_correctness", "label": false}\n'
    )
    assert main(["labels", "import", str(path), "--session", SID, "--db", str(db)]) == 0
    got = {(x.question_id, x.metric): x.label for x in session_labels(open_db(db), SID)}
    assert got == {
        ("q00001", "faithfulness"): 1,
        ("q00002", "faithfulness"): 0,
        ("q00003", "answer_correctness"): 1,
        ("q00004", "answer_correctness"): 0,
    }


def test_certify_at_is_checked(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["labels", "import", str(_labels_file(db, tmp_path)), "--session", SID, "--db", str(db)])
    assert main(["align", SID, "--db", str(db), "--certify-at", "1.5"]) == 2
    assert "--certify-at" in capsys.readouterr().err
    assert main(["align", SID, "--db", str(db), "--certify-at", "0.1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["certify_at"] == 0.1
