"""Assertions on an eval run with failure messages that name the questions.

``assert_metric(results, "recall@10", at_least=0.8)`` passes when the gate ``--fail-under
recall@10=0.8`` would (the threshold parsed, checked and compared by
:mod:`ragcov_tui.evaluation.gates`, so a test and ``ragcov eval`` agree); a judged metric of a run
with repeats is asserted on its interval's lower bound (:func:`~ragcov_tui.evaluation.gates.decide_gate`, as
``--fail-under`` decides it).
On failure the message gives the value, then every question below the minimum (lowest first, at
most ``show``) with its retrieved ids, as ``eval --junit`` lists them. ``assert_question(results,
"q3", "recall@10", at_least=1)`` is the same check on one question (for tests parametrised by
question). Question texts and ids are shown with their control characters made visible.
"""

from __future__ import annotations

from ragcov_tui.pytest_plugin.results import RagcovResults

SHOW = 10  # questions listed in a failure message unless asked otherwise


def assert_metric(results: RagcovResults, metric: str, *, at_least: float, show: int = SHOW) -> None:
    """AssertionError naming the failing questions when ``metric`` is below ``at_least`` (or not measured)."""
    from ragcov_tui.evaluation.gates import decide_gate, parse_fail_under, question_line, questions_below

    report = results.report
    threshold = parse_fail_under([f"{metric}={at_least!r}"], results.k)[0]
    check = decide_gate(report, threshold, None)  # exact, or judged: on its interval's lower bound with repeats
    if check.passed:
        return
    name = threshold.metric
    failing = questions_below(report, name, at_least)
    measured = sum(1 for q in results if q.score(name) is not None)
    lines = [
        f"{name}: {check.basis} < required {at_least:g} over {measured} of {len(results)} questions; "
        f"{len(failing)} below {at_least:g}:"
    ]
    lines += ["  " + question_line(q, name) for q in failing[:show]]
    if len(failing) > show:
        lines.append(f"  … and {len(failing) - show} more")
    unmeasured = [q for q in results if q.score(name) is None]
    if unmeasured:
        lines.append(f"  not measured on {len(unmeasured)}: " + ", ".join(q.id for q in unmeasured[:show]))
    raise AssertionError("\n".join(lines))


def assert_question(results: RagcovResults, question_id: str, metric: str, *, at_least: float) -> None:
    """AssertionError when question ``question_id``'s ``metric`` is below ``at_least``, undefined on
    it, or the question failed (the per-question form of :func:`assert_metric`)."""
    from ragcov_tui.evaluation.gates import parse_fail_under, question_line
    from ragcov_tui.shared.thresholds import below_thresholds

    threshold = parse_fail_under([f"{metric}={at_least!r}"], results.k)[0]
    q = results[question_id]
    if q.status != "done" or below_thresholds({threshold.metric: q.score(threshold.metric)}, [threshold]):
        raise AssertionError(
            f"{threshold.metric} below {at_least:g}:\n  " + question_line(results.item(question_id), threshold.metric)
        )


def _number(value: float | None) -> str:
    return "not measured" if value is None else f"{value:.4f}"
