"""A run writes nothing under the user's home: onnxruntime's telemetry (a device id and an event
database under ``~/.cache/Microsoft/``) is off. Run in a fresh interpreter with HOME pointing at an
empty directory, since onnxruntime writes when it first initialises in a process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = ("from ragcov_tui.embeddings.factory import make_embedder\n"
          "print(make_embedder('local').embed(['refunds are issued within 14 days']).shape)\n")


@pytest.mark.slow
def test_the_local_embedder_writes_nothing_under_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("ORT_DISABLE_TELEMETRY", "XDG_CACHE_HOME")}
    env.update(HOME=str(home), PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "(1, 384)"
    assert sorted(str(p.relative_to(home)) for p in home.rglob("*")) == []
