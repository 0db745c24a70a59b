"""Time the app on a large synthetic session: a new process → first paint of Overview (the app's imports
included), and, in process, launch → first paint and → a filtered Results view.

Builds (once, cached under the temp dir) a database with a 100k-chunk / 10k-question analysis
session and a 10k-item eval session, then runs the app headless at 80x24 and prints seconds.
Targets: first paint in a new process under 0.7 s, the in-process views under 1.5 s.
Usage: ``python benchmarks/tui_startup.py [--chunks N] [--questions N] [--runs R]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def build(chunks: int, questions: int) -> Path:
    from ragcov_tui.store import open_db
    from tests.support.synthetic_sessions import make_analysis_session, make_eval_session

    path = Path(tempfile.gettempdir()) / f"ragcov-bench-{chunks}-{questions}.db"
    if not path.exists():
        t = time.perf_counter()
        db = open_db(path)
        make_analysis_session(db, n_chunks=chunks, n_questions=questions, n_clusters=40, n_documents=300)
        make_eval_session(db, n_questions=questions)
        db.conn.close()
        print(f"built {path} in {time.perf_counter() - t:.1f} s")
    return path


async def first_paint(path: Path) -> None:
    """Import the app, paint Overview, say ``painted`` on stdout and quit (the child of :func:`cold_start`)."""
    from ragcov_tui.tui.app import RagcovApp

    async with RagcovApp(path, "a0000001").run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        print("painted", flush=True)


def cold_start(path: Path) -> float:
    """Seconds from starting a new Python process to its first painted Overview."""
    t0 = time.perf_counter()
    with subprocess.Popen(
        [sys.executable, __file__, "--first-paint", str(path)], stdout=subprocess.PIPE, text=True
    ) as child:
        assert child.stdout is not None and child.stdout.readline().strip() == "painted"
        seconds = time.perf_counter() - t0
    return seconds


async def measure(path: Path, query: str) -> tuple[float, float, int]:
    """Seconds to the first painted Overview, then to a painted filtered Results view, and its row count."""
    from ragcov_tui.tui.app import RagcovApp
    from ragcov_tui.tui.widgets.paged_table import PagedTable

    t0 = time.perf_counter()
    app = RagcovApp(path, "a0000001")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.query_one("TabbedContent").active == "tab-overview"
        overview = time.perf_counter() - t0
        t1 = time.perf_counter()
        app.show_pane("results")
        app.query_one("ResultsPane").apply_filter(query)  # type: ignore[attr-defined]
        await pilot.pause()
        total = app.query_one("#results-table", PagedTable).page.total
        filtered = overview + time.perf_counter() - t1
    return overview, filtered, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--query", default="faithfulness<0.5")
    parser.add_argument("--first-paint", metavar="DB", help=argparse.SUPPRESS)  # the child process of cold_start
    args = parser.parse_args()
    if args.first_paint:
        asyncio.run(first_paint(Path(args.first_paint)))
        return
    path = build(args.chunks, args.questions)
    cold = statistics.median(cold_start(path) for _ in range(args.runs))
    results = [asyncio.run(measure(path, args.query)) for _ in range(args.runs)]
    overview = statistics.median(r[0] for r in results)
    filtered = statistics.median(r[1] for r in results)
    print(f"session: {args.chunks:,} chunks, {args.questions:,} questions; eval {args.questions:,} items")
    print(
        f"new process → Overview painted:     {cold:.3f} s (median of {args.runs}; target < 0.7 s: "
        f"{'met' if cold < 0.7 else 'NOT met'})"
    )
    print(f"launch → Overview painted:          {overview:.3f} s (median of {args.runs})")
    print(f"launch → Results filtered {args.query!r}: {filtered:.3f} s ({results[0][2]:,} rows match)")
    print(f"target < 1.5 s: {'met' if max(overview, filtered) < 1.5 else 'NOT met'}")


if __name__ == "__main__":
    main()
