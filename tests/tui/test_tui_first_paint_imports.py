"""The app's first paint imports only what the first screen needs (issue #22 §6): scikit-learn and
scipy (0.6 s of a 1.3 s start, for a stop-word list reached through the triage service) wait until
a suggestion is asked for. Measured in a fresh process, since this one has imported them already."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import REPO

PROBE = """
import asyncio, sys
from pathlib import Path
from ragcov_tui.store import open_db
from tests.support.synthetic_sessions import make_analysis_session

db = open_db(Path(sys.argv[1]))
make_analysis_session(db, testset_dir=Path(sys.argv[1]).parent)
db.conn.close()
before = {m for m in ("sklearn", "scipy") if m in sys.modules}

async def paint():
    from ragcov_tui.tui.app import RagcovApp
    async with RagcovApp(sys.argv[1], "a0000001").run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert pilot.app.query_one("TabbedContent").active == "tab-overview"

asyncio.run(paint())
print(sorted(before), sorted(m for m in ("sklearn", "scipy") if m in sys.modules))
"""


def test_the_first_paint_imports_neither_scikit_learn_nor_scipy(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "r.db")],
        cwd=tmp_path,
        text=True,
        capture_output=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[] []"
