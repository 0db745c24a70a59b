"""What ``eval --resume`` must refuse: a session run on other questions than the test file given now.

A resumed run keeps every ``done`` item of the session and evaluates the rest of the test file, so
both runs must be about the same questions, gold ids and ground truths: a different file would mix
two test sets in one session (``done 32 of 2``) and score old items against gold they no longer
have. The session stores the digest of the test file it read (``testset_sha256``); the file given
now must have the same one. When it differs, the refusal names what changed among the questions the
session already stored (ids gone, texts changed), else says that the content changed. The same bytes
are refused too when the session knows the questions by ids the reader no longer gives them (an older
ragcov numbered rows without ids ``row-<n>``; they are now known by content id): resuming would
evaluate every question again beside the old items.
"""

from __future__ import annotations

import sqlite_utils

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_values import quoted
from ragcov_tui.shared.number_text import count
from ragcov_tui.store.evals import item_questions
from ragcov_tui.store.rows import SessionRow
from ragcov_tui.testset.models import TestSet

EXAMPLES = 3


def check_same_questions(db: sqlite_utils.Database, session: SessionRow, testset: TestSet, ref: str) -> None:
    """BadInput (one line) unless ``testset`` is the test set ``session`` was run on."""
    stored = item_questions(db, session["id"])
    given = {q.id: q.text for q in testset.questions}
    known = session.get("testset_sha256")
    unknown = [qid for qid in stored if qid not in given]
    if known == testset.sha256 and unknown:
        raise BadInput(
            f"--resume {ref}: session {session['id']} knows the questions of {testset.path} by ids this "
            f"ragcov no longer gives them: {_ids(unknown)} (rows without ids were numbered by an older "
            "ragcov; now they are known by their text); start a new run"
        )
    if known == testset.sha256 or (known is None and _same_stored(stored, given)):
        return
    raise BadInput(
        f"--resume {ref}: {testset.path} is not the test file session {session['id']} was run on "
        f"({_difference(stored, given)}; it ran on {session.get('questions_path') or 'another file'}); "
        "resume with that file, or start a new run"
    )


def _same_stored(stored: dict[str, str | None], given: dict[str, str]) -> bool:
    return all(qid in given and given[qid] == text for qid, text in stored.items())


def _difference(stored: dict[str, str | None], given: dict[str, str]) -> str:
    """What differs among the questions the session already evaluated (``2 evaluated questions are
    not in this file: 'q7', 'q9'``), else that the file's content differs."""
    missing = [qid for qid in stored if qid not in given]
    changed = [qid for qid, text in stored.items() if qid in given and given[qid] != text]
    parts = []
    if missing:
        parts.append(f"{_count(missing, 'is', 'are')} not in this file: {_ids(missing)}")
    if changed:
        parts.append(f"{_count(changed, 'has', 'have')} another text in this file: {_ids(changed)}")
    return (
        "; ".join(parts) or "the file's content differs: questions added or removed, gold ids or ground truths changed"
    )


def _count(ids: list[str], one: str, many: str) -> str:
    return f"1 evaluated question {one}" if len(ids) == 1 else f"{len(ids)} evaluated questions {many}"


def _ids(ids: list[str]) -> str:
    shown = ", ".join(quoted(i) for i in ids[:EXAMPLES])
    return shown + (f", +{count(len(ids) - EXAMPLES)} more" if len(ids) > EXAMPLES else "")
