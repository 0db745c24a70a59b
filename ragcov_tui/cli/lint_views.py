"""The terminal summary of a test-set lint (``ragcov lint``, ``ragcov analyze``, ``ragcov report``):
one line per kind, then the findings, most severe kinds first, cut to a few
(:func:`~ragcov_tui.cli.coverage_views.print_most_severe`)."""

from __future__ import annotations

from rich.console import Console

from ragcov_tui.cli.coverage_views import print_most_severe
from ragcov_tui.cli.safe_console import plain_line
from ragcov_tui.shared.markdown import pct
from ragcov_tui.store.lint_contract import LintSection, StaleGoldSection


def print_lint(console: Console, section: LintSection | None) -> None:
    """Nothing when there is no section."""
    if not section:
        return
    console.print(
        plain_line(
            f"Test-set lint: {section['clean']} of {section['questions']} questions clean "
            f"({pct(section['clean_share'])}), corpus language {section['corpus_language'] or 'unknown'}",
            style="bold",
        )
    )
    for kind in section["kinds"]:
        console.print(plain_line(kind["text"], style="yellow" if kind["found"] else ""))
    print_most_severe(
        console, [f"{f['question_id']}: {f['kind']}: {f['reason']}" for f in section["findings"]], "lint findings"
    )


def print_stale_gold(console: Console, section: StaleGoldSection | None) -> None:
    """An eval's stale-gold lines; nothing without a baseline (there was nothing to compare with)."""
    if not section or section["baseline"] is None:
        return
    for kind in section["kinds"]:
        console.print(plain_line(kind["text"], style="yellow" if kind["found"] else ""))
