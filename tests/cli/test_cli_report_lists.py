"""The terminal summary of a big analysis stays short (issue #22 §3): every list is cut to its most
severe few, sorted by severity, with "and N more (--markdown / --json)", and one sentence reconciles
the gap count with the unreached documents. (A report shaped like SciFact's: 50 clusters, 47 uneven,
28 flagged documents, 2,966 of 5,183 documents unreached, 1 gap.)"""

from __future__ import annotations

import io
from typing import Any, cast

from ragcov_tui.cli.render import print_analysis
from ragcov_tui.cli.safe_console import SafeConsole
from ragcov_tui.coverage.report_md import analysis_markdown
from ragcov_tui.store.analysis_contract import AnalysisReport


def _report() -> dict[str, Any]:
    docs = [
        {
            "source": f"d{i}",
            "chunks": 1,
            "coverage": 0.5 - i / 20_000,
            "flagged": i < 28,
            "reason": f"coverage {0.5 - i / 20_000:.4f} is low",
            "reach": 0.5,
            "covered_share": 0.0 if i < 2966 else 1.0,
            "unreached": i < 2966,
            "gold_count": None,
            "rank": i + 1,
        }
        for i in range(5183)
    ]
    covered = {c: 0.9 - c / 100 for c in range(50)}
    covered[31], covered[40] = 0.103, 0.127  # the two most severe, mid-list by id
    clusters = [
        {
            "id": c,
            "size": 100,
            "share": 0.02,
            "coverage": 0.4,
            "covered_share": covered[c],
            "priority": 0.0,
            "gap": c == 0,
            "uneven": 0 < c < 48,
            "unreached_documents": [f"d{i}" for i in range(c, 2966, 50)],
            "unreached_share": 0.5,
            "documents_without_gold": None,
            "themes": ["t"],
        }
        for c in range(50)
    ]
    return {
        "session_id": "s1",
        "embedder": {"provider": "local", "model": "m"},
        "corpus": {"documents": 5183, "chunks": 5183},
        "questions": {"total": 300, "outliers": 12},
        "coverage": {
            "basic": 0.4,
            "weighted": 0.4,
            "multi_threshold": 0.1,
            "multi_n": 0.2,
            "threshold": 0.5,
            "top_n": 2,
            "covered_share": 0.43,
        },
        "calibration": {"gap_rule": "calibrated", "median_covered_share": 0.42, "gaps_text": "gaps: … — 1 of 50"},
        "gaps": [
            {
                "cluster": 0,
                "coverage": 0.3,
                "covered_share": 0.9,
                "size": 100,
                "share": 0.02,
                "priority": 0.5,
                "themes": ["t"],
                "suggested_questions": [],
                "unreached_documents": clusters[0]["unreached_documents"],
            }
        ],
        "clusters": clusters,
        "documents": docs,
        "question_details": [
            {"id": f"q{i}", "outlier": True, "lof_score": 1.5 + (i * 7 % 12) / 100, "text": "?"} for i in range(12)
        ],
    }


def _printed(report: dict[str, Any]) -> list[str]:
    buffer = io.StringIO()
    print_analysis(SafeConsole(file=buffer, width=1000), cast(AnalysisReport, report), "r.db")
    return buffer.getvalue().splitlines()


def test_each_list_shows_its_most_severe_few_and_counts_the_rest() -> None:
    lines = _printed(_report())
    uneven = [line for line in lines if line.startswith("uneven cluster ")]
    assert [line.split()[2] for line in uneven] == ["31", "40", "47", "46", "45"]  # least covered first
    assert "and 42 more uneven clusters (--markdown / --json)" in lines
    flagged = [line for line in lines if line.startswith("flagged document: ")]
    assert [line.split()[2] for line in flagged] == ["d27:", "d26:", "d25:", "d24:", "d23:"]  # lowest coverage first
    assert "and 23 more flagged documents (--markdown / --json)" in lines
    outliers = [line.split()[2] for line in lines if line.startswith("outlier question: ")]
    assert outliers == ["q5", "q10", "q3", "q8", "q1"]  # highest LOF first
    assert "and 7 more outlier questions (--markdown / --json)" in lines
    assert len(lines) < 60


def test_one_sentence_reconciles_the_gaps_with_the_unreached_documents() -> None:
    report = _report()
    expected = (
        "2,966 of 5,183 documents have no chunk within reach of a question; 2,906 of them lie in clusters that "
        "are not gaps: a gap is a cluster covered far below the typical one (the median cluster has 42% of its "
        "chunks within reach), and questions reach those clusters through their other documents (see the "
        "uneven clusters and the least-covered documents)"
    )
    assert expected in _printed(report)
    assert expected in analysis_markdown(cast(AnalysisReport, report))
