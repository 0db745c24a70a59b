"""What an eval stopped by Ctrl-C, SIGTERM or a cancel had finished, in a few plain lines::

    stopped: 12 of 31 questions evaluated (2 failed), 19 not yet
    llm openai:gpt-4o-mini: requests: 14 (2 retried), 0 cached, 4,512 tokens, cost unknown
    continue with: ragcov eval --resume 3f2a… (same options)

Read back from the database (the items stored as they finished, the usage the pipeline recorded
while it stopped), so it says what was kept, not what was in flight.
"""

from __future__ import annotations

import sqlite_utils

from ragcov_tui.llm.accounting import usage_lines
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.number_text import count
from ragcov_tui.store.evals import item_status_counts
from ragcov_tui.store.sessions import get_session

STAGE = "evaluating"  # the pipeline's stage name while it evaluates questions


def stop_report(db: sqlite_utils.Database, sid: str, progress: JsonObject | None = None) -> list[str]:
    """The lines for session ``sid``; ``progress`` is the last ``{stage, done, total}`` reported
    (the total of questions comes from it once evaluating began)."""
    session = get_session(db, sid)
    counts = item_status_counts(db, sid)
    finished, failed = sum(counts.values()), counts.get("error", 0)
    progress = progress or {}
    total = progress.get("total") if progress.get("stage") == STAGE else None
    if finished or total:
        line = (
            f"stopped: {count(finished)} of {count(total)} questions evaluated"
            if total
            else f"stopped: {count(finished)} questions evaluated"
        )
        line += f" ({count(failed)} failed)" if failed else ""
        line += f", {count(total - finished)} not yet" if total and total > finished else ""
    else:
        at = (
            f" (at {progress['stage']} {progress.get('done', 0)}/{progress.get('total', 0)})"
            if progress.get("stage")
            else ""
        )
        line = f"stopped before any question was evaluated{at}"
    return [
        line,
        *usage_lines((None if session is None else session["usage"]) or {}),
        f"continue with: ragcov eval --resume {sid} (same options)",
    ]
