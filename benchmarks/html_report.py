"""The HTML report's size and speed (issue #28): the pages of the sample's analysis and eval and of
a 10k-chunk analysis; bytes, seconds to write each from the stored session, and, where Debian's
Chromium is installed (`sh .ci/browser`), seconds until the page's charts are drawn (Bokeh's
document idle) opened from disk with the network off — the median of three loads.

    .venv/bin/python benchmarks/html_report.py [--chunks 10000] [--out DIR]

The sessions are made with the offline hash embedder (the page's size and speed do not depend on
the vectors); the 10k-chunk corpus is benchmarks/beir_data.py's synthetic abstracts, one chunk each.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.beir_data import write_beir  # noqa: E402
from ragcov_tui.cli.main import main  # noqa: E402
from ragcov_tui.services.html_export import session_page, write_page  # noqa: E402
from ragcov_tui.store import open_db  # noqa: E402

SAMPLE = REPO / "sample_data"
IDLE = "() => window.Bokeh && Bokeh.documents.length > 0 && Bokeh.documents.every(d => d.is_idle)"


def run(*argv: str) -> None:
    if main(list(argv)) != 0:
        raise SystemExit(f"ragcov {' '.join(argv)} failed")


def sessions(db_path: Path) -> dict[str, tuple[str, str]]:
    db = open_db(db_path)
    try:
        return {row["name"]: (row["id"], row["kind"]) for row in db.query("SELECT id, kind, name FROM sessions")}
    finally:
        db.conn.close()


def build(db_path: Path, sid: str, kind: str, out: Path) -> float:
    db = open_db(db_path)
    try:
        start = time.perf_counter()
        write_page(out, session_page(db, sid, kind))
        return time.perf_counter() - start
    finally:
        db.conn.close()


def render_seconds(pages: list[Path]) -> dict[Path, float]:
    """Median seconds from navigation to Bokeh's idle, per page (empty without Chromium or Playwright)."""
    chromium = shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {}
    if chromium is None:
        return {}
    times: dict[Path, float] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        for page_path in pages:
            runs = []
            for _ in range(3):
                context = browser.new_context(offline=True)
                page = context.new_page()
                start = time.perf_counter()
                page.goto(page_path.resolve().as_uri())
                page.wait_for_function(IDLE, timeout=120_000)
                runs.append(time.perf_counter() - start)
                context.close()
            times[page_path] = statistics.median(runs)
        browser.close()
    return times


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=10_000, help="documents (one chunk each) of the big analysis")
    parser.add_argument("--out", type=Path, help="where the pages go (default: a temporary folder, removed)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ragcov-html-"))
    out = args.out or work
    out.mkdir(parents=True, exist_ok=True)
    db = work / "r.db"
    common = ["--quiet", "--db", str(db), "--embedder", "hash"]
    sample = [*common, "--questions", str(SAMPLE / "questions.jsonl"), "--corpus", str(SAMPLE / "corpus")]
    run("analyze", *sample, "--name", "sample-analysis")
    run("eval", *sample, "--system", "builtin:hybrid", "--name", "sample-eval")
    big = write_beir(work / "beir", docs=args.chunks, queries=300)
    run("analyze", *common, "--corpus", str(big), "--questions", str(big), "--name", "big-analysis")
    rows = []
    for name, (sid, kind) in sorted(sessions(db).items()):
        path = out / f"{name}.html"
        rows.append((name, path, build(db, sid, kind, path)))
    rendered = render_seconds([path for _, path, _ in rows])
    print(f"{'page':<16}{'MB':>8}{'write s':>10}{'render s':>10}")
    for name, path, seconds in rows:
        shown = f"{rendered[path]:.2f}" if path in rendered else "n/a"
        print(f"{name:<16}{path.stat().st_size / 1e6:>8.2f}{seconds:>10.2f}{shown:>10}")
    if not rendered:
        print("render: n/a (no Chromium or Playwright here: sh .ci/browser, pip install -e '.[test]')")
    print(f"pages in {out}")
    if args.out is None:
        shutil.rmtree(work)


if __name__ == "__main__":
    main_()
