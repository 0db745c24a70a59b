"""The retrievals of a stored eval session, read for ``analyze --eval-session`` (retrieval coverage).

An analysis joins an eval of the same test set and corpus: the eval says which chunks its
questions retrieved in the top k (``coverage/exercised.py``), the analysis says which clusters and
documents they lie in. The join is on the chunk ids, so both runs must chunk alike (the same
``--chunk-size`` / ``--chunk-overlap``, or the same pre-chunked file or vector store).
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlite_utils

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.store.eval_contract import ProbeReport
from ragcov_tui.store.evals import load_eval_report
from ragcov_tui.store.sessions import resolve_session


@dataclass(frozen=True)
class EvalRetrievals:
    """Per answered question, the ids it retrieved in the eval's top ``k`` (best first)."""

    session_id: str
    system: str
    k: int
    retrieved: list[list[str]]
    probes: ProbeReport | None


def eval_retrievals(db: sqlite_utils.Database, ref: str) -> EvalRetrievals:
    """The eval session ``ref`` names (id, prefix, name, ``latest-eval``); BadInput when it is no
    eval, has no report header (it never finished) or no question retrieved anything."""
    session = resolve_session(db, ref, kind="eval")
    sid = session["id"]
    report = load_eval_report(db, sid)
    if "k" not in report:
        raise BadInput(
            f"--eval-session {ref}: session {sid} never finished (no report); resume it with "
            f"`ragcov eval --resume {sid}` first"
        )
    k = report["k"]
    retrieved = [
        [c["id"] for c in q["retrieved"][:k] if isinstance(c.get("id"), str)]
        for q in report.get("questions", [])
        if q["status"] == "done"
    ]
    if not any(retrieved):
        raise BadInput(
            f"--eval-session {ref}: no question of session {sid} retrieved a context, so nothing is exercised"
        )
    return EvalRetrievals(sid, report.get("system", ""), k, [r for r in retrieved if r], report.get("probes"))
