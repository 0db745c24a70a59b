"""Time triage write-back on a large test file: reload (unchanged, and after an outside append, with
the row diff), accept (reload + plan + backup + write-ahead + atomic replace), undo.

Usage: ``python benchmarks/triage_writeback.py [--questions N] [--runs R]`` (default 10,000 / 5);
prints the best time of each step in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ragcov_tui.services import triage  # noqa: E402
from ragcov_tui.store import open_db  # noqa: E402
from ragcov_tui.store.queries import gap_rows  # noqa: E402
from tests.support.synthetic_sessions import make_analysis_session  # noqa: E402


def best_ms(step: Callable[[], Any], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="ragcov-bench-writeback-"))
    db = open_db(folder / "ragcov.db")
    sid = make_analysis_session(db, testset_dir=folder, n_chunks=2000, n_questions=args.questions)
    path = folder / "questions.jsonl"
    suggestions = iter([s.id for g in gap_rows(db, sid, str(path.resolve())) for s in g["suggestions"]])
    added = iter(range(10**9))

    def outside_append_then_reload() -> None:
        with path.open("a") as handle:
            handle.write(json.dumps({"id": f"outside-{next(added)}", "question": "Added elsewhere?"}) + "\n")
        assert triage.reload(db, sid)

    runs = args.runs
    steps: list[tuple[str, Callable[[], Any], int]] = [
        ("reload, file unchanged", lambda: triage.reload(db, sid), runs),
        ("outside append + reload (row diff)", outside_append_then_reload, runs),
        ("accept a suggestion", lambda: triage.accept_suggestion(db, sid, next(suggestions)), min(runs, 3)),
        ("undo (backup restore)", lambda: triage.undo_last(db, sid), min(runs, 3)),
    ]
    print(f"{args.questions:,} questions in {path}")
    for label, step, n in steps:
        print(f"{label:<40} {best_ms(step, n):8.1f} ms (best of {n})")


if __name__ == "__main__":
    main()
