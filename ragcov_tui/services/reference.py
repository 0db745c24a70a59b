"""The reference of one question of a session, read the way the run read it.

``question_reference(session, question_id)`` re-reads the session's ``--questions`` with
``testset.beir.read_questions`` at the session's stored ``split`` and ``qrels`` (a test file, or a
BEIR folder whose gold is its qrels), once per version of the files on disk, and returns the
question's ground truth, expected keywords and gold ids, or why there are none.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.safe_text import single_line
from ragcov_tui.store.sessions import SessionRow
from ragcov_tui.testset.beir import DEFAULT_SPLIT, QRELS_DIR, QUERIES_FILE, read_questions
from ragcov_tui.testset.models import TestSet


@dataclass(frozen=True)
class Reference:
    """What the test set says about one question; ``why`` is set when it could not say it."""

    ground_truth: str | None = None
    keywords: list[str] = field(default_factory=list)
    gold: dict[str, float] = field(default_factory=dict)
    why: str | None = None

    def is_gold(self, chunk_id: Any) -> bool:
        """True when a retrieved chunk is relevant (grade > 0): its id is a gold id, or it was cut from
        a gold document (``f"{source}#{position}-{hash8}"``, the corpus's chunk id)."""
        cid = str(chunk_id)
        cut = CHUNK_OF.fullmatch(cid)
        return any(self.gold.get(i, 0) > 0 for i in (cid, *(cut.groups() if cut else ())))


CHUNK_OF = re.compile(r"(.*)#\d+-[0-9a-f]{8}")  # corpus.chunking.chunk_id: the source is the group


def _stamp(paths: list[str]) -> tuple[tuple[int, int], ...]:
    """``(mtime_ns, size)`` of each path that exists (a changed file reads anew)."""
    out = []
    for p in paths:
        try:
            st = os.stat(p)
        except OSError:
            out.append((-1, -1))
        else:
            out.append((st.st_mtime_ns, st.st_size))
    return tuple(out)


@functools.lru_cache(maxsize=8)
def _read(path: str, split: str, qrels: str | None, stamp: tuple[tuple[int, int], ...]) -> TestSet:
    return read_questions(path, split=split, qrels=qrels)


def question_reference(session: SessionRow | None, question_id: Any) -> Reference:
    """The reference of ``question_id`` in ``session``'s questions as they are now (see the module doc)."""
    if session is None or not session["questions_path"]:
        return Reference(why="the session names no test file")
    path, params = session["questions_path"], session["params"] or {}
    split = str(params.get("split") or DEFAULT_SPLIT)
    qrels = params.get("qrels") or None
    watched = [
        path,
        str(Path(path) / QUERIES_FILE),
        str(Path(path) / QRELS_DIR / f"{split}.tsv"),
        *([qrels] if qrels else []),
    ]
    try:
        question = _read(path, split, qrels, _stamp(watched)).by_id(str(question_id))
    except (OSError, BadInput) as exc:
        return Reference(why=f"questions not readable: {single_line(str(exc))}")
    if question is None:
        return Reference(why="the question is no longer in the test set")
    return Reference(question.ground_truth, list(question.expected_keywords), dict(question.gold))
