"""The "Test-set lint" section of the Markdown reports (``ragcov lint --markdown``,
``ragcov analyze --markdown``, ``ragcov report``): one summary line per kind, then a table of the
findings (question, kind, reason). Untrusted text goes through :func:`ragcov_tui.shared.markdown.cell`."""

from __future__ import annotations

from ragcov_tui.shared.markdown import cell, pct, table
from ragcov_tui.store.lint_contract import LintSection, StaleGoldSection

FINDINGS_SHOWN = 500


def lint_markdown(section: LintSection | None) -> str:
    """The section's Markdown ("" when there is none)."""
    if not section:
        return ""
    lines = [
        "",
        "## Test-set lint",
        "",
        f"{section['clean']} of {section['questions']} questions ({pct(section['clean_share'])}) have no finding; "
        f"corpus language {cell(section['corpus_language'] or 'unknown')}.",
    ]
    baseline = section.get("baseline")
    lines.append(
        f"Stale gold compared with session {cell(baseline['session_id'])}."
        if baseline
        else "Stale gold: no earlier session of this test file to compare with (not checked)."
    )
    lines.append("")
    lines += [f"- {cell(k['text'])}" for k in section["kinds"]]
    findings = section["findings"]
    if findings:
        lines += [
            "",
            *table(
                ["question", "kind", "reason"],
                [[f["question_id"], f["kind"], f["reason"]] for f in findings[:FINDINGS_SHOWN]],
            ),
        ]
        if len(findings) > FINDINGS_SHOWN:
            lines.append(f"\n… and {len(findings) - FINDINGS_SHOWN} more findings (--json)")
    return "\n".join(lines) + "\n"


def stale_gold_markdown(section: StaleGoldSection | None) -> str:
    """An eval's "Stale gold" section ("" without a baseline)."""
    if not section or section["baseline"] is None:
        return ""
    lines = ["", "## Stale gold", "", *[f"- {cell(k['text'])}" for k in section["kinds"]]]
    if section["findings"]:
        lines += [
            "",
            *table(
                ["question", "kind", "reason"],
                [[f["question_id"], f["kind"], f["reason"]] for f in section["findings"][:FINDINGS_SHOWN]],
            ),
        ]
    return "\n".join(lines) + "\n"
