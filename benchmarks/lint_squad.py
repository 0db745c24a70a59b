"""How often ``ragcov lint`` calls a question unanswerable, on SQuAD 2.0 (issue #27 §1).

From a SQuAD 2.0 JSON file (``dev-v2.0.json`` or any part of it) it writes two test sets and runs
``ragcov lint`` on each (offline embedder, through a session database's cache)::

    python benchmarks/lint_squad.py dev-v2.0.json /tmp/lint-squad

* ``squad2``: every paragraph a document, every question with its gold paragraph; an impossible
  question's reference answer is its first plausible answer (what a careless test writer would have
  written), an answerable one's its first answer;
* ``removed``: the answerable questions only, every other paragraph removed from the corpus: a
  question whose paragraph is gone cannot be answered from the corpus.

It prints the share flagged ``unanswerable`` in each group. Measured on the Normans and Rhine articles
of the dev set (83 paragraphs, 706 questions): removed 78.3% vs kept 8.1%; SQuAD 2.0 impossible
21.6% vs answerable 10.1% (README, "Test-set lint").
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ragcov_tui.cli.main import main


def write_sets(squad: Path, out: Path) -> dict[str, dict[str, bool]]:
    """Both test sets under ``out``; per set, question id → whether it is unanswerable."""
    data = json.loads(squad.read_text(encoding="utf-8"))
    paragraphs = [(f"{a['title'].lower()}-{i:03d}.txt", p) for a in data["data"] for i, p in enumerate(a["paragraphs"])]
    removed = {name for i, (name, _) in enumerate(paragraphs) if i % 2 == 1}
    truth: dict[str, dict[str, bool]] = {"squad2": {}, "removed": {}}
    rows: dict[str, list[dict]] = {"squad2": [], "removed": []}
    for name, p in paragraphs:
        for kind in ("squad2", "removed"):
            folder = out / kind / "corpus"
            folder.mkdir(parents=True, exist_ok=True)
            if kind == "squad2" or name not in removed:
                (folder / name).write_text(p["context"], encoding="utf-8")
        for qa in p["qas"]:
            impossible = bool(qa.get("is_impossible"))
            answers = qa.get("plausible_answers") if impossible else qa.get("answers")
            if not answers:
                continue
            row = {"id": qa["id"], "question": qa["question"], "ground_truth": answers[0]["text"]}
            rows["squad2"].append({**row, "relevant_doc_ids": [name]})
            truth["squad2"][qa["id"]] = impossible
            if not impossible:
                rows["removed"].append(row)
                truth["removed"][qa["id"]] = name in removed
    for kind, items in rows.items():
        (out / kind / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in items), encoding="utf-8")
    return truth


def main_(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("squad", type=Path, help="a SQuAD 2.0 JSON file")
    parser.add_argument("out", type=Path, help="a folder for the test sets, the reports and the session database")
    args = parser.parse_args(argv)
    truth = write_sets(args.squad, args.out)
    for kind, labels in truth.items():
        report = args.out / kind / "lint.json"
        main(
            [
                "lint",
                "--quiet",
                "--db",
                str(args.out / "ragcov.db"),
                "--questions",
                str(args.out / kind / "questions.jsonl"),
                "--corpus",
                str(args.out / kind / "corpus"),
                "--json",
                str(report),
            ]
        )
        flagged = {f["question_id"] for f in json.loads(report.read_text())["findings"] if f["kind"] == "unanswerable"}
        for label, want in (("unanswerable", True), ("answerable", False)):
            ids = [q for q, value in labels.items() if value == want]
            hit = sum(q in flagged for q in ids)
            print(f"{kind}: {label} questions flagged unanswerable: {hit}/{len(ids)} = {hit / max(1, len(ids)):.1%}")


if __name__ == "__main__":
    main_()
