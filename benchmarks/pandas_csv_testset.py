"""Read and write back a large, messy Ragas evaluation CSV as pandas writes it (issue #14).

The file: ``result.to_pandas().to_csv()`` of N rows — pandas' unnamed index column first, list
cells as Python literals (``str(list)``) whose items hold quotes, apostrophes, newlines, commas,
``|`` and non-ASCII text, score columns with empty cells. Measures the best read time, then
accepts one question, edit-accepts another, undoes both (timing the first accept and the last
undo) and checks every step byte-exact.

Usage: ``python benchmarks/pandas_csv_testset.py [--rows N] [--runs R]`` (default 2,000 / 5).
"""

from __future__ import annotations

import argparse
import csv
import io
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ragcov_tui.testset import writer  # noqa: E402
from ragcov_tui.testset.reader import read_testset  # noqa: E402

WORDS = [
    "plan",
    "billing",
    "SAML",
    "Okta",
    "webhook",
    "retry",
    "naïve",
    "Größe",
    "日本語",
    "😀",
    "it's",
    'the "default"',
    "a, b",
    "x | y",
    "semi; colon",
    "back\\slash",
    "tab\there",
]
HEADER = ["", "user_input", "retrieved_contexts", "response", "reference", "faithfulness", "context_recall"]


def text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def ragas_csv(rows: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    buffer = io.StringIO()
    out = csv.writer(buffer, lineterminator="\n")
    out.writerow(HEADER)
    for i in range(rows):
        contexts = [
            text(rng, rng.randint(5, 40)) + ("\nsecond line" if rng.random() < 0.3 else "")
            for _ in range(rng.randint(1, 5))
        ]
        out.writerow(
            [
                i,
                f"Question {i}: {text(rng, 8)}?",
                str(contexts),
                text(rng, 12),
                text(rng, 10),
                round(rng.random(), 3),
                "" if rng.random() < 0.1 else round(rng.random(), 3),
            ]
        )
    return buffer.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    path = Path(tempfile.mkdtemp(prefix="ragcov-bench-pandas-")) / "ragas_eval.csv"
    path.write_text(ragas_csv(args.rows), encoding="utf-8")
    original = path.read_bytes()
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        testset = read_testset(path)
        times.append(time.perf_counter() - start)
    contexts = sum(len(q.retrieved_contexts or []) for q in testset.questions)
    print(f"{args.rows} rows, {len(original) / 1e6:.1f} MB, {contexts} contexts: read best {min(times) * 1000:.0f} ms")
    print(f"note: {testset.notes[0]}")
    start = time.perf_counter()
    accepted = writer.plan_append(writer.snapshot(path), 'A new, "quoted" question — ünï?', {"source": "bench"})
    writer.commit(accepted)
    accept_ms = (time.perf_counter() - start) * 1000
    edited = writer.plan_append(writer.snapshot(path), "An edited one?\nTwo lines.", {"edited": True})
    writer.commit(edited)
    after = path.read_bytes()
    kept = after.startswith(original)
    last = list(csv.reader(io.StringIO(after.decode("utf-8"))))[-2:]
    writer.commit(writer.plan_remove(writer.snapshot(path), edited.change["row"], "edited"))
    start = time.perf_counter()
    writer.commit(writer.plan_remove(writer.snapshot(path), accepted.change["row"], "accepted"))
    undo_ms = (time.perf_counter() - start) * 1000
    print(f"accept (read + plan + re-read + backup + write) {accept_ms:.0f} ms, undo {undo_ms:.0f} ms")
    print(f"accept + edit-accept: original bytes kept {kept}; new records {last}")
    print(f"undo both: byte-exact {path.read_bytes() == original}")


if __name__ == "__main__":
    main()
