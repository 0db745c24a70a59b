"""Write a stored session (or a comparison of two) as one self-contained HTML page.

Reads the session from the store and hands it to :mod:`ragcov_tui.report_html`; nothing is
recomputed and nothing leaves the machine. The file is written beside its target and moved into
place, so a reader never sees half a page.
"""

from __future__ import annotations

from pathlib import Path

import sqlite_utils

from ragcov_tui.evaluation.compare_contract import Comparison
from ragcov_tui.services.atomic_file import write_atomically
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.store.analysis_contract import AnalysisReport
from ragcov_tui.store.eval_contract import EvalReport


def analysis_page(db: sqlite_utils.Database, report: AnalysisReport) -> str:
    """The page of a stored analysis session (its report as ``load_analysis_report`` gives it)."""
    from ragcov_tui.report_html.analysis_page import MAP_MAX_CHUNKS, analysis_html
    from ragcov_tui.store.map_detail import map_detail

    return analysis_html(report, map_detail(db, str(report["session_id"]), MAP_MAX_CHUNKS))


def eval_page(db: sqlite_utils.Database, report: EvalReport) -> str:
    """The page of a stored eval session, with each item's stored claims and verdicts."""
    from ragcov_tui.report_html.eval_page import eval_html
    from ragcov_tui.store.evals import load_eval_items

    details = {item["id"]: item.get("details") or {} for item in load_eval_items(db, report["session_id"])}
    return eval_html(report, details)


def compare_page(result: Comparison, a: EvalReport | None, b: EvalReport | None) -> str:
    """The page of a comparison; ``a`` / ``b``: the two eval reports, for the per-question differences."""
    from ragcov_tui.report_html.compare_page import compare_html

    return compare_html(result, a, b)


def session_page(db: sqlite_utils.Database, session_id: str, kind: str) -> str:
    """The page of stored session ``session_id`` of ``kind`` ('analysis' | 'eval'; an eval with its judge
    alignment when people labelled it)."""
    if kind == "analysis":
        from ragcov_tui.store.analysis import load_analysis_report

        return analysis_page(db, load_analysis_report(db, session_id))
    from ragcov_tui.evaluation.judge_alignment import aligned_report

    return eval_page(db, aligned_report(db, session_id))


def write_page(path: str | Path, page: str) -> Path:
    """Write ``page`` to ``path`` atomically (a temporary file beside it, then a rename);
    BadInput naming the path when it cannot be written."""
    target = Path(path)
    try:
        mode = target.stat().st_mode & 0o777 if target.exists() else 0o644  # a page to share: readable by others
        write_atomically(target, page, mode=mode)
    except OSError as exc:
        raise BadInput(f"cannot write {path}: {exc.strerror or exc}") from exc
    return target
