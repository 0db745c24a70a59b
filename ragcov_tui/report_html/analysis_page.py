"""The HTML page of an analysis session: headline figures and their rules, the map, per-cluster
bars, the gaps, the documents, outlier questions and traffic coverage — all from the stored report."""

from __future__ import annotations

from typing import Any

from bokeh.model import Model

from ragcov_tui import __version__
from ragcov_tui.coverage.advice import gap_advice, unreached_summary
from ragcov_tui.coverage.report_md import themes_text
from ragcov_tui.report_html.charts import cluster_bars, embed, library_scripts, map_figure
from ragcov_tui.report_html.map_data import MapView, map_view
from ragcov_tui.report_html.page import asset, render_page
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.markdown import fmt, pct
from ragcov_tui.shared.number_text import count
from ragcov_tui.store.analysis_contract import AnalysisReport
from ragcov_tui.store.map_detail import MapDetail

MAP_MAX_CHUNKS = 5000  # chunks drawn on the map; a bigger session is subsampled (even stride) and the page says so


def map_note(view: MapView) -> str:
    """What the map shows, and that it is a subsample when it is one."""
    shown = f"{count(len(view.chunks))} chunks"
    if view.subsampled:
        shown = (
            f"{count(len(view.chunks))} of {count(view.chunk_total)} chunks (an even sample, to keep the page "
            "small; the tables count every chunk)"
        )
    return (
        f"{shown} coloured by cluster, {count(len(view.questions))} questions (▲; outliers ✕ in red), gap "
        "clusters outlined. Hover a point for its text; drag to pan, scroll to zoom; click a legend entry to "
        "hide it."
    )


def headline(report: AnalysisReport) -> list[tuple[str, str]]:
    cov = report["coverage"]
    return [
        ("basic", fmt(cov.get("basic"))),
        ("weighted", fmt(cov.get("weighted"))),
        (f"multi (threshold {cov.get('threshold')})", fmt(cov.get("multi_threshold"))),
        (f"multi (top {cov.get('top_n')})", fmt(cov.get("multi_n"))),
        ("covered share", pct(cov.get("covered_share"))),
        ("gaps", count(len(report.get("gaps") or []))),
    ]


def rules(report: AnalysisReport) -> list[str]:
    """The sentences that say how the figures were decided (calibration, gap rule, unreached documents)."""
    cal: Any = report.get("calibration") or {}
    said = [cal.get("text"), cal.get("gaps_text"), unreached_summary(report), report.get("message")]
    if sample := report.get("sample"):
        said.append(f"{sample['text']} ({sample['interval']}; every share with its interval is in the JSON report)")
    return [str(s) for s in said if s]


def _gaps(report: AnalysisReport) -> list[JsonObject]:
    return [
        {
            **gap,
            "themes": themes_text(gap, report),
            "advice": gap_advice(gap),
            "suggestions": [
                s.get("text", "") if isinstance(s, dict) else str(s) for s in gap.get("suggested_questions") or []
            ],
        }
        for gap in report.get("gaps") or []
    ]


def _traffic(report: AnalysisReport) -> JsonObject | None:
    traffic: Any = report.get("traffic")
    if not traffic:
        return None
    source = traffic.get("source") or {}
    return {
        "summary": (
            f"{count(source.get('queries'))} queries ({count(source.get('distinct'))} distinct) from "
            f"{source.get('path')}: coverage {fmt(traffic.get('coverage'))}, answerable "
            f"{pct(traffic.get('answerable_share'))}, untested {pct(traffic.get('untested_share'))}"
        ),
        "rule": (traffic.get("untested") or {}).get("rule") or "",
        "clusters": [
            {**c, "examples": "; ".join(f"{e.get('text')} ×{e.get('count')}" for e in c.get("examples") or [])}
            for c in traffic.get("clusters") or []
        ],
    }


def analysis_html(report: AnalysisReport, detail: MapDetail) -> str:
    """The page of one analysis session (``detail``: its stored map, at most ``MAP_MAX_CHUNKS`` chunks)."""
    view = map_view(detail, {int(g["cluster"]) for g in report.get("gaps") or []})
    figures: list[Model] = []
    if view.chunks or view.questions:
        figures.append(map_figure(view))
    if report.get("clusters"):
        figures.append(cluster_bars(report["clusters"]))
    embedded = embed(figures)
    divs = list(embedded.divs)
    map_div = divs.pop(0) if view.chunks or view.questions else ""
    bars_div = divs.pop(0) if report.get("clusters") else ""
    emb: Any = report.get("embedder") or {}
    scripts = [*library_scripts(), embedded.script] if figures else []
    outliers = sorted(
        (q for q in report.get("question_details") or [] if q.get("outlier")),
        key=lambda q: -(q.get("lof_score") or 0.0),
    )
    return render_page(
        "analysis.html.j2",
        title=f"Coverage report — session {report['session_id']}",
        scripts=[*scripts, asset("report.js")],
        version=__version__,
        made_from=report["session_id"],
        corpus=report["corpus"],
        questions=report["questions"],
        embedder=f"{emb.get('provider')}:{emb.get('model')}",
        headline=headline(report),
        rules=rules(report),
        map_div=map_div,
        map_note=map_note(view),
        bars_div=bars_div,
        gaps=_gaps(report),
        documents=report.get("documents") or [],
        outliers=outliers,
        traffic=_traffic(report),
    )
