"""``ragcov lint --fail-under clean=0.9``: test-set lint gates for CI (exit 3 when one fails).

Minimum shares, like every ``--fail-under`` (:mod:`ragcov_tui.shared.thresholds`): ``clean`` is the
share of questions with no finding; ``<kind>`` (e.g. ``unanswerable=0.95``) the share of the
questions checked for that kind that have no such finding (undefined, so failing, when none was
checked). One syntax for every gate; ``--fail-under unanswerable=1`` allows no unanswerable question.
"""

from __future__ import annotations

from collections.abc import Iterable

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.thresholds import (
    BelowThreshold,
    Threshold,
    below_thresholds,
    bounded_threshold,
    parse_threshold_spec,
)
from ragcov_tui.store.lint_contract import LintSection
from ragcov_tui.testlint.findings import KINDS

LINT_GATES = ("clean", *KINDS)


def parse_lint_gates(specs: Iterable[str]) -> list[Threshold]:
    """``["clean=0.9", "unanswerable=1"]`` → thresholds; BadInput on a bad spec or an unknown name."""
    out = []
    for spec in specs:
        name, minimum = parse_threshold_spec(spec, "clean=0.9")
        if name not in LINT_GATES:
            raise BadInput(f"--fail-under {spec!r}: unknown lint gate {name!r} (one of {', '.join(LINT_GATES)})")
        out.append(bounded_threshold(spec, name, minimum, 0.0, 1.0))
    return out


def lint_shares(section: LintSection) -> dict[str, float | None]:
    """``clean`` and, per kind, 1 − found ÷ checked (None when nothing was checked)."""
    shares: dict[str, float | None] = {"clean": section["clean_share"] if section["questions"] else None}
    for k in section["kinds"]:
        shares[k["kind"]] = 1 - k["found"] / k["checked"] if k["checked"] else None
    return shares


def check_lint_gates(section: LintSection, thresholds: list[Threshold]) -> list[BelowThreshold]:
    return below_thresholds(lint_shares(section), thresholds)
