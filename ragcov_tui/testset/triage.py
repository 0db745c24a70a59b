"""Triage: keep / drop flagged questions, accept / reject / edit suggested ones, undo — written at once.

Mode: **immediate write**. Every decision is recorded in ``decisions`` the moment it is made
(time, ``$USER``) and, when it changes the test file (accept, edit, drop), the file is written in
the same step through :mod:`ragcov_tui.testset.writer` (atomic, backed up, every other row
byte-for-byte). There is no pending batch that a crash could lose.

The file must still have the sha256 we last knew for it (the newest of: the session that read it,
our own last write); otherwise the writer raises ``FileChangedError`` and nothing is written or
recorded. Undo takes the session's newest decision that is still standing: a write is reverted by
restoring its backup (the file becomes byte-identical to before), a reject is forgotten, a keep
is withdrawn. Rejected texts are remembered per test file and never suggested again.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import sqlite_utils

from ragcov_tui.errors import BadInput
from ragcov_tui.llm.base import ChatModel
from ragcov_tui.llm.json_reply import complete_json
from ragcov_tui.store import decisions as log
from ragcov_tui.store.decisions import Decision
from ragcov_tui.store.sessions import current_user, get_session, now_iso
from ragcov_tui.testset import writer
from ragcov_tui.testset.reader import read_testset

HEURISTIC_ORIGIN = "heuristic"


def _testset_path(db: sqlite_utils.Database, sid: str) -> str:
    session = get_session(db, sid)
    if session is None:
        raise BadInput(f"session {sid!r}: no such session")
    if not session.get("questions_path"):
        raise BadInput(f"session {sid}: it records no test file to write to")
    return session["questions_path"]


def _expected_sha(db: sqlite_utils.Database, path: str) -> str:
    sha = log.latest_known_sha(db, path)
    if sha is None:
        raise BadInput(f"{path}: no recorded version of this test file; run an analysis on it first")
    return sha


def _suggestion(db: sqlite_utils.Database, sid: str, suggestion_id: int) -> dict[str, Any]:
    rows = list(db.query("SELECT * FROM suggestions WHERE id = ? AND session_id = ?", [suggestion_id, sid]))
    if not rows:
        raise BadInput(f"suggestion {suggestion_id}: not in session {sid}")
    if rows[0]["status"] != "open":
        raise BadInput(f"suggestion {suggestion_id} is already {rows[0]['status']}")
    return rows[0]


def _set_suggestion(db: sqlite_utils.Database, suggestion_id: int, status: str, question_id: str | None) -> None:
    decided = (now_iso(), current_user()) if status != "open" else (None, None)
    with db.conn:
        db.execute("UPDATE suggestions SET status = ?, question_id = ?, decided_at = ?, user = ? WHERE id = ?",
                   [status, question_id, *decided, suggestion_id])


def accept_suggestion(db: sqlite_utils.Database, sid: str, suggestion_id: int, *, text: str | None = None) -> Decision:
    """Append the suggestion (or ``text``, its edited form: action ``edit``) to the test file as a new row.

    The row gets a fresh id and provenance ``{source, cluster, session}``; returns the decision.
    """
    suggestion = _suggestion(db, sid, suggestion_id)
    path = _testset_path(db, sid)
    final = suggestion["text"] if text is None else text
    provenance = {"source": f"ragcov:{suggestion['origin']}", "cluster": suggestion["cluster"], "session": sid}
    result = writer.append_question(path, final, expected_sha256=_expected_sha(db, path), provenance=provenance)
    _set_suggestion(db, suggestion_id, "accepted", result.question_id)
    payload = {"text": final, "question_id": result.question_id}
    if text is not None:
        payload["original"] = suggestion["text"]
    return log.record_decision(
        db, session_id=sid, kind="suggestion", target=str(suggestion_id), action="accept" if text is None else "edit",
        payload=payload, testset_path=path, sha_before=result.sha_before, sha_after=result.sha_after,
        backup_path=str(result.backup_path),
    )


def reject_suggestion(db: sqlite_utils.Database, sid: str, suggestion_id: int) -> Decision:
    """Mark the suggestion rejected and remember its text for this test file (never suggested again)."""
    suggestion = _suggestion(db, sid, suggestion_id)
    path = _testset_path(db, sid)
    log.remember_rejected(db, path, writer.text_key(suggestion["text"]))
    _set_suggestion(db, suggestion_id, "rejected", None)
    return log.record_decision(db, session_id=sid, kind="suggestion", target=str(suggestion_id), action="reject",
                               payload={"text": suggestion["text"]}, testset_path=path)


def keep_question(db: sqlite_utils.Database, sid: str, question_id: str) -> Decision:
    """Mark a flagged question as intended (no file change)."""
    return log.record_decision(db, session_id=sid, kind="question", target=question_id, action="keep",
                               testset_path=_testset_path(db, sid))


def drop_question(db: sqlite_utils.Database, sid: str, question_id: str) -> Decision:
    """Remove the question's row from the test file; returns the decision."""
    path = _testset_path(db, sid)
    result = writer.drop_question(path, question_id, expected_sha256=_expected_sha(db, path))
    return log.record_decision(
        db, session_id=sid, kind="question", target=question_id, action="drop", testset_path=path,
        sha_before=result.sha_before, sha_after=result.sha_after, backup_path=str(result.backup_path),
    )


def undo_last(db: sqlite_utils.Database, sid: str) -> Decision:
    """Revert the session's newest standing decision; returns the ``undo`` decision recorded.

    BadInput when there is nothing to undo; ``FileChangedError`` (nothing restored) when the file
    is no longer the version the decision wrote.
    """
    last = log.last_undoable(db, sid)
    if last is None:
        raise BadInput("nothing to undo in this session")
    sha_before = sha_after = None
    if last.wrote_file:
        assert last.testset_path and last.sha_after and last.backup_path
        result = writer.restore_backup(last.testset_path, last.backup_path, expected_sha256=last.sha_after)
        sha_before, sha_after = result.sha_before, result.sha_after
    if last.action == "reject" and last.testset_path:
        log.forget_rejected(db, last.testset_path, writer.text_key(last.payload.get("text", "")))
    if last.kind == "suggestion":
        _set_suggestion(db, int(last.target), "open", None)
    log.mark_undone(db, last.id)
    return log.record_decision(
        db, session_id=sid, kind=last.kind, target=last.target, action="undo",
        payload={"undid": last.id, "action": last.action}, testset_path=last.testset_path,
        sha_before=sha_before, sha_after=sha_after,
    )


def _taken_keys(db: sqlite_utils.Database, sid: str, cluster: int, path: str) -> set[str]:
    """Normalised texts a new suggestion for ``cluster`` must not repeat: the gap's own suggestions,
    every text rejected for this test file, and the questions of the file (as stored by the session,
    plus the file on disk when it can be read)."""
    taken = log.rejected_keys(db, path)
    taken |= {writer.text_key(t) for (t,) in db.execute(
        "SELECT text FROM suggestions WHERE session_id = ? AND cluster = ?", [sid, cluster])}
    taken |= {writer.text_key(t) for (t,) in db.execute("SELECT text FROM questions WHERE session_id = ?", [sid])}
    try:
        taken |= {writer.text_key(q.text) for q in read_testset(path).questions}
    except BadInput:  # moved or unreadable: the stored questions stand in for it
        pass
    return taken


def add_suggestions(db: sqlite_utils.Database, sid: str, cluster: int, texts: list[str], origin: str) -> list[int]:
    """Store new suggestions for a gap, skipping blanks and texts already taken (see ``_taken_keys``)."""
    seen = _taken_keys(db, sid, cluster, _testset_path(db, sid))
    ids = []
    for text in texts:
        key = writer.text_key(text)
        if not key or key in seen:
            continue
        seen.add(key)
        with db.conn:
            ids.append(int(db["suggestions"].insert(
                {"session_id": sid, "cluster": cluster, "text": text.strip(), "origin": origin}).last_pk))
    return ids


def least_covered_texts(db: sqlite_utils.Database, sid: str, per_cluster: int) -> dict[int, list[str]]:
    """Each cluster's chunk texts, least covered (largest distance to any question) first, at most
    ``per_cluster`` each — one windowed query, never the whole session in Python."""
    out: dict[int, list[str]] = {}
    for cluster, text in db.execute(
            "SELECT cluster, text FROM (SELECT r.cluster, c.text, row_number() OVER (PARTITION BY r.cluster "
            "ORDER BY r.mindist IS NULL, r.mindist DESC, r.seq) AS rank FROM chunk_results r "
            "JOIN chunks c ON c.session_id = r.session_id AND c.chunk_id = r.chunk_id "
            "WHERE r.session_id = ? AND r.cluster IS NOT NULL) WHERE rank <= ? ORDER BY cluster, rank",
            [sid, per_cluster]):
        out.setdefault(int(cluster), []).append(text)
    return out


def suggest_more_heuristic(db: sqlite_utils.Database, sid: str, cluster: int, *, n: int = 3, passages: int = 40,
                           sample: int = 200) -> list[int]:
    """``n`` more template questions for a gap without an LLM; returns the ids stored (origin ``heuristic``).

    The coverage engine's own heuristic (:func:`ragcov_tui.coverage.themes.heuristic_questions`:
    section headings, then the heaviest prose sentences by c-TF-IDF) runs over the gap's
    ``passages`` least-covered chunks — more of them than the analysis read — with c-TF-IDF
    weights (:func:`~ragcov_tui.coverage.themes.class_tfidf`) over the ``sample`` least-covered
    chunks of every cluster. Candidates already suggested, rejected or in the test file are
    skipped, so each call goes further down the list. ``[]`` when nothing new is left.
    """
    from ragcov_tui.coverage.themes import class_tfidf, heuristic_questions

    texts = least_covered_texts(db, sid, max(sample, passages))
    if cluster not in texts:
        raise BadInput(f"cluster {cluster}: no chunks stored for it in session {sid}")
    order = sorted(texts)
    weights, vocabulary = class_tfidf([texts[k][:sample] for k in order])
    row = weights[order.index(cluster)] if weights.shape[1] else np.zeros(0)
    candidates = heuristic_questions(texts[cluster][:passages], row, vocabulary, n=10 ** 6)
    taken = _taken_keys(db, sid, cluster, _testset_path(db, sid))
    fresh = [q["text"] for q in candidates if writer.text_key(q["text"]) not in taken]
    return add_suggestions(db, sid, cluster, fresh[:n], HEURISTIC_ORIGIN)


def more_suggestions(db: sqlite_utils.Database, sid: str, cluster: int, *, n: int = 3) -> tuple[list[int], str]:
    """``g`` in Gaps: more suggestions for a gap from the LLM the session ran with, or the offline
    heuristic when it ran without one. Returns (ids stored, origin: ``llm:<spec>`` or ``heuristic``)."""
    from ragcov_tui.llm.factory import make_llm

    session = get_session(db, sid) or {}
    llm = make_llm(session.get("llm"), db=db)
    if llm is None:
        return suggest_more_heuristic(db, sid, cluster, n=n), HEURISTIC_ORIGIN
    return suggest_more(db, sid, cluster, llm, n=n), f"llm:{llm.spec}"


SUGGEST_PROMPT = (
    "You write test questions for a retrieval-augmented assistant. The passages below come from one "
    "part of the knowledge base that the current test set barely covers (themes: {themes}). Write {n} "
    "new, distinct, self-contained questions a user could ask that these passages answer. Avoid these "
    'existing ones: {existing}. Reply with JSON only: {{"questions": ["...", ...]}}'
)


def _valid_questions(data: Any) -> str | None:
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list):
        return 'expected {"questions": [...]}'
    return None if all(isinstance(q, str) for q in data["questions"]) else "every question must be a string"


def suggest_more(db: sqlite_utils.Database, sid: str, cluster: int, llm: ChatModel, *, n: int = 3,
                 passages: int = 6) -> list[int]:
    """Ask ``llm`` for ``n`` more questions for a gap cluster (from its least-covered chunks); store the new ones.

    Returns the ids of the suggestions added (rejected and duplicate texts are skipped).
    BadInput when the model's reply cannot be used.
    """
    from ragcov_tui.store.queries import analysis_report, cluster_chunks

    gap = next((g for g in analysis_report(db, sid).get("gaps", []) if g["cluster"] == cluster), {})
    chunks = cluster_chunks(db, sid, cluster, limit=passages).rows
    existing = [t for (t,) in db.execute("SELECT text FROM suggestions WHERE session_id = ? AND cluster = ?", [sid, cluster])]
    system = SUGGEST_PROMPT.format(themes=", ".join(gap.get("themes", [])) or "unknown", n=n,
                                   existing=json.dumps(existing, ensure_ascii=False))
    user = "\n\n".join(f"[{c['chunk_id']}] {c['text']}" for c in chunks)
    reply = complete_json(llm, [{"role": "system", "content": system}, {"role": "user", "content": user}],
                          validate=_valid_questions)
    if not reply.ok:
        raise BadInput(f"{llm.spec}: no usable suggestions ({reply.error})")
    return add_suggestions(db, sid, cluster, reply.data["questions"][:n], f"llm:{llm.spec}")
