"""The HTML pages as text: one file with every script inline and allowed by its hash, untrusted text
escaped and made visible, the map subsampled above its cap (and saying so), figures as stored."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from ragcov_tui.evaluation.compare import compare_reports
from ragcov_tui.report_html.analysis_page import MAP_MAX_CHUNKS, analysis_html
from ragcov_tui.report_html.compare_page import question_differences
from ragcov_tui.report_html.map_data import hull_of, map_view
from ragcov_tui.report_html.page import render_page, script_hash
from ragcov_tui.store import open_db
from ragcov_tui.store.analysis import load_analysis_report
from ragcov_tui.store.evals import load_eval_report
from ragcov_tui.store.map_detail import MapChunk, MapDetail, map_detail
from tests.report_html.conftest import MARKUP, Pages
from tests.support.hostile import leaked
from tests.support.synthetic_sessions import make_analysis_session


class Scripts(HTMLParser):
    """Every <script> element's text and attributes, and every element's attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.scripts: list[str] = []
        self.attrs: list[tuple[str, list[tuple[str, str | None]]]] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.attrs.append((tag, attrs))
        if tag == "script":
            self._in_script = True
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data


def parsed(page: str) -> Scripts:
    parser = Scripts()
    parser.feed(page)
    return parser


def csp_of(page: str) -> str:
    found = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
    assert found, "no Content-Security-Policy meta element"
    return html.unescape(found.group(1))


@pytest.mark.parametrize("kind", ["analysis", "eval", "compare"])
def test_every_script_is_inline_and_allowed_by_its_hash_only(plain_pages: Pages, kind: str) -> None:
    page = getattr(plain_pages, kind).read_text(encoding="utf-8")
    csp = csp_of(page)
    scripts = parsed(page)
    assert scripts.scripts, "the page has no script"
    found = re.search(r"script-src ([^;]*)", csp)
    assert found, csp
    allowed = found.group(1).split()
    assert sorted(allowed) == sorted({script_hash(s) for s in scripts.scripts})
    assert "default-src 'none'" in csp and "unsafe-eval" not in csp and "unsafe-inline" not in allowed
    for tag, attrs in scripts.attrs:
        names = {name for name, _ in attrs}
        assert not (names & {"src", "href"}) or tag == "a", f"<{tag}> loads something: {attrs}"
        assert not any(name.startswith("on") for name in names), f"<{tag}> has an event handler: {attrs}"


def test_a_script_that_would_close_its_element_is_refused() -> None:
    with pytest.raises(ValueError, match="</script"):
        render_page("eval.html.j2", title="t", scripts=["var s = '</SCRIPT>';"])


@pytest.mark.parametrize("kind", ["analysis", "eval", "compare"])
def test_hostile_text_is_escaped_and_visible(hostile_pages: Pages, kind: str) -> None:
    page = getattr(hostile_pages, kind).read_text(encoding="utf-8")
    scripts = parsed(page)
    outside_library = page
    for body in scripts.scripts[:-2]:  # Bokeh's own library: not our text (may hold raw characters of its own)
        outside_library = outside_library.replace(body, "")
    assert [c for c in leaked(outside_library) if c != "U+0009"] == []  # a tab (kept in <pre>) is only whitespace
    assert "window.__pwned" in page, "the hostile text is not on the page at all"
    for raw in ("<script>window.__pwned", "<img src=x", '<a href="javascript:', "<style>body"):
        assert raw not in outside_library


def test_hostile_text_shows_as_text_in_a_table_cell(hostile_pages: Pages) -> None:
    page = hostile_pages.eval.read_text(encoding="utf-8")
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in page
    assert "␛]0;PWNTITLE␇" in page  # the OSC title sequence, with visible stand-ins


def synthetic(path: Path, n_chunks: int) -> Path:
    db = open_db(path)
    make_analysis_session(db, n_chunks=n_chunks, n_questions=30)
    db.conn.close()
    return path


def test_map_is_capped_and_says_so(tmp_path: Path) -> None:
    db = open_db(synthetic(tmp_path / "r.db", MAP_MAX_CHUNKS * 2))
    detail = map_detail(db, "a0000001", MAP_MAX_CHUNKS)
    page = analysis_html(load_analysis_report(db, "a0000001"), detail)
    assert MAP_MAX_CHUNKS - 5 <= len(detail.chunks) <= MAP_MAX_CHUNKS and detail.chunk_total == MAP_MAX_CHUNKS * 2
    assert f"of {MAP_MAX_CHUNKS * 2:,} chunks (an even sample" in page
    assert len(page) < 6_000_000


def test_map_points_carry_their_text_document_and_cluster(tmp_path: Path) -> None:
    db = open_db(synthetic(tmp_path / "r.db", 50))
    detail = map_detail(db, "a0000001", 1000)
    row = db.execute(
        "SELECT r.source, r.cluster, c.text FROM chunk_results r JOIN chunks c USING (session_id, chunk_id) "
        "WHERE chunk_id = ?",
        [detail.chunks[0].chunk_id],
    ).fetchone()
    assert (detail.chunks[0].source, detail.chunks[0].cluster, detail.chunks[0].text) == tuple(row)
    assert len(detail.chunks) == 50 and len(detail.questions) == 30


def test_gap_outline_is_the_convex_hull_and_none_for_a_line() -> None:
    chunks = [MapChunk(f"c{i}", "d", 1, x, y, "t") for i, (x, y) in enumerate([(0, 0), (2, 0), (0, 2), (0.5, 0.5)])]
    view = map_view(MapDetail(chunks, [], 4), {1})
    (hull,) = view.gap_hulls
    assert sorted(zip(hull.xs, hull.ys, strict=True)) == [(0, 0), (0, 2), (2, 0)]
    import numpy as np

    assert hull_of(1, np.array([(0.0, 0.0), (1.0, 1.0), (2.0, 2.0)])) is None


def test_per_question_differences_are_b_minus_a(sample_db: tuple[Path, dict[str, str]]) -> None:
    db = open_db(sample_db[0])
    a, b = load_eval_report(db, sample_db[1]["bm25"]), load_eval_report(db, sample_db[1]["hybrid"])
    rows = question_differences(compare_reports(a, b, resamples=200), a, b)
    qa = {q["id"]: q["retrieval"] for q in a["questions"]}
    qb = {q["id"]: q["retrieval"] for q in b["questions"]}
    moved = [(r["id"], name, d) for r in rows for name, d in r["diffs"] if name == "mrr" and d]
    assert moved, "bm25 and hybrid rank no question differently"
    for qid, _, delta in moved:
        before, after = qa[qid]["mrr"], qb[qid]["mrr"]
        assert before is not None and after is not None and delta == pytest.approx(after - before)
    assert [r["changed"] for r in rows] == sorted((r["changed"] for r in rows), reverse=True)
    assert len(rows) == 31


def test_unmeasured_values_show_na_never_nan(plain_pages: Pages) -> None:
    for kind in ("analysis", "eval", "compare"):
        text = re.sub(r"<script>.*?</script>", "", getattr(plain_pages, kind).read_text(encoding="utf-8"), flags=re.S)
        assert not re.search(r">\s*-?nan\s*<|>\s*None\s*<|data-v=\"nan\"", text, re.I), kind


def test_markup_constant_is_hostile() -> None:  # the fixture's text really is markup that would run unescaped
    assert "<script>" in MARKUP and "onerror=" in MARKUP
