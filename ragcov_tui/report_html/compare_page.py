"""The HTML page of a comparison of two eval sessions: the paired deltas (B − A) with their
bootstrap intervals, wins / losses / ties, a chart of the deltas and the per-question differences.

A per-question difference is ``B − A`` of one metric on one question both runs scored (the
stored values, subtracted); the page adds nothing else to what ``ragcov compare`` measured.
"""

from __future__ import annotations

from typing import Any

from ragcov_tui import __version__
from ragcov_tui.evaluation.compare import question_set_note
from ragcov_tui.evaluation.compare_contract import Comparison
from ragcov_tui.report_html.charts import delta_figure, embed, library_scripts
from ragcov_tui.report_html.eval_page import question_scores
from ragcov_tui.report_html.page import asset, render_page
from ragcov_tui.shared.input_values import is_finite_number
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.store.eval_contract import EvalReport


def _values(report: EvalReport | None) -> dict[str, tuple[str, JsonObject]]:
    """Question id → (text, every metric value) of the done items of ``report``."""
    if report is None:
        return {}
    return {
        str(q["id"]): (q.get("question") or "", question_scores(q))
        for q in report.get("questions") or []
        if q.get("status", "done") == "done"
    }


def _number(value: Any) -> float | None:
    return float(value) if is_finite_number(value) else None


def question_differences(result: Comparison, a: EvalReport | None, b: EvalReport | None) -> list[JsonObject]:
    """Per shared question: its text, ``B − A`` of each compared metric (None where either is missing)
    and how many of them changed; the questions with the most changes first."""
    names = [m["metric"] for m in result.get("metrics") or []]
    va, vb = _values(a), _values(b)
    rows = []
    for qid in [q for q in va if q in vb]:
        diffs = []
        for name in names:
            x, y = _number(va[qid][1].get(name)), _number(vb[qid][1].get(name))
            diffs.append((name, None if x is None or y is None else y - x))
        changed = sum(1 for _, d in diffs if d is not None and abs(d) > 1e-12)
        rows.append({"id": qid, "question": vb[qid][0] or va[qid][0], "diffs": diffs, "changed": changed})
    return sorted(rows, key=lambda r: -r["changed"])  # the questions whose scores moved first (stable: run order)


def _side(result: Comparison, key: str) -> str:
    side: Any = result.get(key) or {}
    label = f"session {side.get('session_id')}" + (f" ({side['name']})" if side.get("name") else "")
    return f"{key.upper()}: {label} — system {side.get('system')}, judge {side.get('judge')}, k={side.get('k')}"


def compare_html(result: Comparison, a: EvalReport | None, b: EvalReport | None) -> str:
    """The comparison's page; ``a`` / ``b`` (the two eval reports) give the per-question differences."""
    rows = list(result.get("metrics") or [])
    embedded = embed([delta_figure(rows)] if rows else [])
    scripts = [*library_scripts(), embedded.script] if embedded.divs else []
    sides: Any = result
    made_from = f"{sides['a'].get('session_id')} vs {sides['b'].get('session_id')}"
    return render_page(
        "compare.html.j2",
        title=f"Comparison — {made_from}",
        scripts=[*scripts, asset("report.js")],
        version=__version__,
        made_from=made_from,
        sides=[_side(result, "a"), _side(result, "b")],
        confidence=result.get("confidence", 0.95),
        shared=result.get("shared_questions"),
        note=question_set_note(result) or "",
        metric_rows=rows,
        delta_div=embedded.divs[0] if embedded.divs else "",
        names=[m["metric"] for m in rows],
        questions=question_differences(result, a, b),
        pairwise=result.get("pairwise"),
    )
