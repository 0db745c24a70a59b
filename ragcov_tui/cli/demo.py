"""Where ``ragcov demo`` finds its sample and where it works on it.

The sample is the repository's ``sample_data/``, shipped in the wheel as ``ragcov_tui/demo_data``
(pyproject's ``force-include``), so the demo runs anywhere after ``pip install``; from a source
checkout the folder beside the package is used. The demo never works on the sample itself: it
copies it once into ``demo/<name>`` beside the session database and points every session at the
copy, so accepting a suggestion in the app edits the copy (and backs it up there), never a
tracked file or the installed package.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ragcov_tui.shared.errors import BadInput

PACKAGE = Path(__file__).resolve().parents[1]
SAMPLES = (PACKAGE / "demo_data", PACKAGE.parent / "sample_data")  # installed wheel, then a source checkout


def demo_source(data: str | None) -> Path:
    """The sample to copy: ``data`` (``--data``) when given, else the shipped sample; BadInput when
    it lacks ``corpus/`` or ``questions.jsonl``."""
    source = Path(data) if data else next((p for p in SAMPLES if p.is_dir()), SAMPLES[0])
    if not (source / "corpus").is_dir() or not (source / "questions.jsonl").is_file():
        raise BadInput(
            f"demo data not found: expected {source / 'corpus'}/ and {source / 'questions.jsonl'}"
            + ("" if data else " (reinstall ragcov, or pass --data)")
        )
    return source


def demo_copy(source: Path, db_path: str) -> tuple[Path, bool]:
    """The working copy of ``source`` beside the database (``<db dir>/demo/<name>``), made when it
    does not exist yet; returns (the copy, whether it was made now). A copy from an earlier demo is
    kept: the questions accepted into it stay."""
    copy = Path(db_path).resolve().parent / "demo" / source.resolve().name
    if copy.is_dir():
        return copy, False
    try:
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns(".ragcov-backups", "__pycache__"))
    except OSError as exc:
        raise BadInput(f"cannot copy the demo data to {copy}: {exc.strerror or exc}") from exc
    return copy, True
