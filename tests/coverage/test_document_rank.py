"""The least-covered-documents order (issue: rows with covered 33.3% came before an unreached one):
rank 1 is the least covered — covered share ascending, then reach — whatever the gold ids say; the
CLI table names the flagged line's figure ``coverage`` in a column of that name."""

from __future__ import annotations

import io

import numpy as np
from rich.console import Console

from ragcov_tui.cli.coverage_views import print_documents
from ragcov_tui.coverage.documents import document_coverage

# radius 0.5. a: three chunks, one within the radius, its best chunk at 0.45 (reach 0.55);
# b: one chunk outside the radius (unreached) at 0.52, reach 0.48 (below a's); c: one chunk within
SOURCES = ["a", "a", "a", "b", "c"]
MINDIST = np.array([0.45, 0.9, 0.9, 0.52, 0.3])
WITHIN = MINDIST <= 0.5


def test_least_covered_first_covered_share_then_reach_even_when_gold_names_the_unreached() -> None:
    docs = document_coverage(SOURCES, MINDIST, within=WITHIN, gold_counts=np.array([0, 3, 1]))
    ranked = sorted(docs, key=lambda d: d.rank)
    assert [(d.source, d.covered_share) for d in ranked] == [("b", 0.0), ("a", 1 / 3), ("c", 1.0)]
    shares = [d.covered_share or 0.0 for d in ranked]
    assert shares == sorted(shares)


def test_ties_on_covered_share_go_by_reach() -> None:
    mindist = np.array([0.3, 0.1, 0.2])
    docs = document_coverage(["x", "y", "z"], mindist, within=mindist <= 0.5)
    assert [d.source for d in sorted(docs, key=lambda d: d.rank)] == ["x", "z", "y"]


def test_the_table_shows_the_flagged_figure_under_the_name_coverage() -> None:
    docs = document_coverage(SOURCES, MINDIST, within=WITHIN)
    report = {"documents": [{"source": d.source, "chunks": d.chunks, "coverage": d.coverage, "reach": d.reach,
                             "covered_share": d.covered_share, "unreached": d.unreached, "gold_count": None,
                             "rank": d.rank} for d in sorted(docs, key=lambda d: d.rank)]}
    out = io.StringIO()
    print_documents(Console(file=out, width=200, color_system=None), report)  # type: ignore[arg-type]
    header = next(line for line in out.getvalue().splitlines() if "┃" in line and "reach" in line)
    assert "coverage" in header and "covered" in header
    row_a = next(line for line in out.getvalue().splitlines() if " a " in line)
    assert f"{next(d.coverage for d in docs if d.source == 'a'):.3f}" in row_a
