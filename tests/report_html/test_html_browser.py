"""The pages in a real browser: Debian's Chromium (installed by .ci/browser) driven by Playwright,
offline, with the file opened from disk. Each page loads with no console error and no request but
itself; the map holds the stored points and hovering one shows its text; hostile text shows
literally and runs nothing; tables sort, filter and open an item's detail. Screenshots are kept in
test-artefacts/html/ for a look by eye."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragcov_tui.store import open_db
from tests.report_html.conftest import REPO, Pages

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("chromium")]
ARTEFACTS = REPO / "test-artefacts" / "html"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
BOKEH_IDLE = "() => window.Bokeh && Bokeh.documents.length > 0 && Bokeh.documents.every(d => d.is_idle)"
# the pixel position and text of the chunk that lies farthest from every other point of the map (nothing
# covers it: no question marker, no other chunk), after scrolling the map into the middle of the window
LONELY_CHUNK = """() => {
  const doc = Bokeh.documents[0];
  const fig = doc.get_model_by_name("map"), view = Bokeh.index[fig.id];
  view.canvas_view.el.scrollIntoView({block: "center"});
  const box = view.canvas_view.el.getBoundingClientRect();
  const at = (src, i) => [view.frame.x_scale.compute(src.data.x[i]), view.frame.y_scale.compute(src.data.y[i])];
  const all = [];
  for (const name of ["chunks", "questions", "outliers"]) {
    const src = doc.get_model_by_name(name);
    for (let i = 0; i < src.data.x.length; i++) { all.push([name, i, ...at(src, i)]); }
  }
  let best = null, gap = -1;
  for (const [name, i, x, y] of all) {
    if (name !== "chunks" || x < 220 || y < 140) { continue; }  // clear of the legend in the top left
    const near = Math.min(...all.filter(p => p[0] !== name || p[1] !== i).map(p => Math.hypot(p[2] - x, p[3] - y)));
    if (near > gap) { gap = near; best = [x, y, doc.get_model_by_name("chunks").data.text[i]]; }
  }
  return [box.left + best[0], box.top + best[1], best[2]];
}"""


def hover_lonely_chunk(page: Any) -> tuple[str, str]:
    """Hover the map's loneliest chunk; (its text, the tooltip's text)."""
    x, y, text = page.evaluate(LONELY_CHUNK)
    tip = page.locator(".tip").first
    for dx in (0, 1, -1):  # a move onto the point, and nudges if the first move came before the canvas listened
        page.mouse.move(x + dx, y)
        try:
            tip.wait_for(state="visible", timeout=4_000)
            break
        except Exception:  # Playwright's TimeoutError: nudge and look again
            continue
    return text, tip.inner_text()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is not installed: `sh .ci/browser` installs Debian's (the test command runs it)")
        pytest.skip("Chromium is not installed: `sh .ci/browser` installs Debian's")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


class Opened:
    """A page opened offline, with what it logged and asked for."""

    def __init__(self, browser: Any, path: Path) -> None:
        self.context = browser.new_context(offline=True, viewport={"width": 1280, "height": 900})
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("dialog", self._dismiss)
        self.url = path.resolve().as_uri()
        self.page.goto(self.url)
        self.page.wait_for_function(BOKEH_IDLE, timeout=60_000)

    def _dismiss(self, dialog: Any) -> None:
        """An alert or confirm the page opened: noted, then dismissed."""
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def shot(self, name: str) -> Path:
        ARTEFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTEFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def clean(self) -> None:
        assert self.errors == [] and self.dialogs == []
        assert self.requests == [self.url], "the page asked for something besides itself"
        assert self.page.evaluate("() => window.__pwned") is None

    def close(self) -> None:
        self.context.close()


@pytest.fixture()
def opened(browser: Any) -> Iterator[Any]:
    pages: list[Opened] = []

    def open_page(path: Path) -> Opened:
        pages.append(Opened(browser, path))
        return pages[-1]

    yield open_page
    for p in pages:
        p.close()


def test_analysis_page_map_and_hover(opened: Any, plain_pages: Pages) -> None:
    page = opened(plain_pages.analysis)
    db = open_db(plain_pages.db)
    sid = plain_pages.sessions["analysis"]
    chunks = db.execute("SELECT count(*) FROM chunk_results WHERE session_id = ? AND x IS NOT NULL", [sid]).fetchone()[
        0
    ]
    questions = db.execute(
        "SELECT count(*), sum(outlier) FROM question_results WHERE session_id = ? AND x IS NOT NULL", [sid]
    ).fetchone()
    counts = page.page.evaluate(
        "() => ['chunks', 'questions', 'outliers'].map(n => Bokeh.documents[0].get_model_by_name(n).data.x.length)"
    )
    assert counts == [chunks, questions[0] - questions[1], questions[1]]
    text, tip = hover_lonely_chunk(page.page)
    assert text[:60] in tip
    page.shot("analysis-hover")
    page.clean()


def test_analysis_documents_table_sorts_and_filters(opened: Any, plain_pages: Pages) -> None:
    page = opened(plain_pages.analysis).page
    every = sorted(
        float(v)
        for v in page.locator("#doc-table tbody tr td:nth-child(4)").evaluate_all(
            "cells => cells.map(c => c.dataset.v)"
        )
        if v
    )
    total, limit = page.locator("#doc-table tbody tr").count(), every[len(every) // 2]
    page.fill('input[data-filter="doc-table"]', f"coverage<{limit}")
    kept = [
        float(v)
        for v in page.locator("#doc-table tbody tr:not([hidden]) td:nth-child(4)").evaluate_all(
            "cells => cells.map(c => c.dataset.v)"
        )
    ]
    assert kept == [v for v in kept if v < limit] and len(kept) == sum(v < limit for v in every) > 0
    assert page.locator('[data-count="doc-table"]').inner_text() == f"{len(kept)} of {total} rows"
    page.fill('input[data-filter="doc-table"]', "")
    page.locator("#doc-table th", has_text="coverage").click()
    values = page.locator("#doc-table tbody tr td:nth-child(4)").evaluate_all("cells => cells.map(c => c.dataset.v)")
    numbers = [float(v) for v in values if v]
    assert numbers == sorted(numbers)


def test_eval_page_filters_by_metric_and_opens_an_item(opened: Any, plain_pages: Pages) -> None:
    page = opened(plain_pages.eval)
    p = page.page
    total = p.locator("#item-table tbody tr.item").count()
    assert total == 31
    p.fill('input[data-filter="item-table"]', "ndcg<0.9")
    shown = p.locator("#item-table tbody tr.item:not([hidden])")
    column = (
        p.locator("#item-table thead th").evaluate_all(
            "ths => ths.findIndex(th => (th.dataset.col || '').startsWith('ndcg'))"
        )
        + 1
    )
    values = shown.locator(f"td:nth-child({column})").evaluate_all("cells => cells.map(c => parseFloat(c.dataset.v))")
    assert 0 < len(values) < total and all(v < 0.9 for v in values)
    first = shown.first
    first.click()
    detail = p.locator("#item-table tbody tr.item:not([hidden]) + tr.detail").first
    assert detail.is_visible() and "Answer" in detail.inner_text() and "Retrieved" in detail.inner_text()
    page.shot("eval")
    page.clean()


def test_compare_page_loads_clean(opened: Any, plain_pages: Pages) -> None:
    page = opened(plain_pages.compare)
    assert page.page.locator("#delta-table tbody tr").count() >= 6
    assert page.page.locator("#diff-table tbody tr").count() == 31
    page.shot("compare")
    page.clean()


@pytest.mark.parametrize("kind", ["analysis", "eval", "compare"])
def test_hostile_text_is_shown_literally_and_runs_nothing(opened: Any, hostile_pages: Pages, kind: str) -> None:
    page = opened(getattr(hostile_pages, kind))
    literal = page.page.get_by_text('<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">').first
    assert literal.count() == 1 or page.page.locator("td", has_text="<script>window.__pwned=1").count() > 0
    assert page.page.locator("a[href^=javascript]").count() == 0
    assert page.page.locator("body").is_visible()  # the hostile <style> did not apply
    if kind == "analysis":
        _, tip = hover_lonely_chunk(page.page)
        assert "<img src=x onerror=" in tip
    page.shot(f"hostile-{kind}")
    page.clean()
