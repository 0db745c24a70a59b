"""The page frame: Jinja2 templates with autoescape, the inline scripts and their CSP hashes.

Contract of :func:`render_page`: every ``<script>`` on the page is one of ``scripts`` (Bokeh's
library, the charts' embed script, ``report.js``), and the Content-Security-Policy names each by
``'sha256-…'`` of its exact text, so a script that untrusted text smuggled in could not run even
if escaping failed. ``default-src 'none'`` forbids every fetch (images, fonts, frames, requests);
styles are inline (Bokeh writes its own into its shadow DOM at run time, hence
``style-src 'unsafe-inline'``, which runs no code); images only as ``data:`` URIs (Bokeh's toolbar icons).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from functools import cache
from importlib.resources import files
from typing import Any

import jinja2

from ragcov_tui.shared.input_values import is_finite_number
from ragcov_tui.shared.markdown import fmt, pct
from ragcov_tui.shared.number_text import count
from ragcov_tui.shared.safe_text import visible, visible_line

CSP_FIXED = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; base-uri 'none'; form-action 'none'"
)


def script_hash(body: str) -> str:
    """``'sha256-<base64>'``: the CSP source that allows exactly this inline script."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode("ascii") + "'"


def content_security_policy(scripts: Sequence[str]) -> str:
    """The page's policy: the fixed part, and ``script-src`` naming every inline script by its hash."""
    return f"{CSP_FIXED}; script-src {' '.join(script_hash(s) for s in scripts)}"


def asset(name: str) -> str:
    """A file shipped beside the templates (``report.css``, ``report.js``)."""
    return files("ragcov_tui.report_html").joinpath("templates", name).read_text(encoding="utf-8")


def _score(value: Any, digits: int = 3) -> str:
    """A score cell: fixed digits, ``n/a`` when missing or not a finite number (never ``nan``)."""
    return fmt(float(value), digits) if is_finite_number(value) else "n/a"


def _sort_key(value: Any) -> str:
    """A table cell's ``data-v``: the number to 6 significant digits, '' (sorted last) when missing or not finite."""
    return f"{float(value):.6g}" if is_finite_number(value) else ""


def _signed(value: Any) -> str:
    text = _score(value)
    return text if text == "n/a" or text.startswith("-") else "+" + text


@cache
def environment() -> jinja2.Environment:
    """Templates from the package, autoescaped; ``shown`` / ``line`` make untrusted text visible first.

    A field a stored report lacks (another ragcov version wrote it) renders empty, or ``n/a`` through
    the number filters, rather than failing the page (``ChainableUndefined``)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("ragcov_tui.report_html", "templates"),
        autoescape=True,
        undefined=jinja2.ChainableUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        shown=lambda v: visible(str(v)),
        line=lambda v: visible_line(str(v)),
        score=_score,
        signed=_signed,
        pct=lambda v: pct(float(v)) if is_finite_number(v) else "n/a",
        count=lambda v: count(v) if is_finite_number(v) else "n/a",
        key=_sort_key,
    )
    return env


def render_page(template: str, *, title: str, scripts: Sequence[str], **context: Any) -> str:
    """The whole page: ``template`` rendered with ``context``, the inline ``scripts`` placed at the end
    of the body, and the policy that allows exactly them (see the module's contract)."""
    for body in scripts:
        if "</script" in body.lower():  # it would end its element early; Bokeh and report.js never contain it
            raise ValueError("an inline script contains '</script'")
    return (
        environment()
        .get_template(template)
        .render(title=title, scripts=scripts, csp=content_security_policy(scripts), css=asset("report.css"), **context)
    )
