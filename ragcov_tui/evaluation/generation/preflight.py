"""Judge preflight: one probe with a known answer before a judged run (issue #26 §5).

The probe asks the judge's claim-verification prompt about one passage and two claims whose
verdicts are not in doubt: the first restates the passage (``supported``), the second changes its
figure (anything but ``supported``). A judge whose reply does not parse, has the wrong shape, or
gets either verdict wrong would fail item after item; :func:`preflight_judge` says so in one line
instead (:class:`~ragcov_tui.shared.errors.BadInput`, exit 2). The probe goes through the model like every
call, so its reply is cached with the others and a repeated run does not ask again.
"""

from __future__ import annotations

from ragcov_tui.evaluation.generation.judge import Judge, JudgeError
from ragcov_tui.llm.base import ChatModel
from ragcov_tui.shared.errors import BadInput

PROBE_PASSAGES = [("probe#0", "The Pro plan costs $49 per month and includes 5 team seats.")]
PROBE_CLAIMS = ["The Pro plan costs $49 per month.", "The Pro plan costs $99 per month."]
PROBE_EXPECTED = ("supported", "not supported")


def preflight_judge(llm: ChatModel, mode: str = "batch") -> None:
    """Return when ``llm`` judges the probe right, asked as ``mode`` says (``--judge-mode``); BadInput
    naming the model and what went wrong (with the hint ``--no-preflight``) otherwise."""
    where = f"judge preflight failed for {llm.spec}"
    try:
        verdicts = Judge(llm, 0, [], mode).verify("preflight", PROBE_CLAIMS, PROBE_PASSAGES)
    except JudgeError as exc:
        raise BadInput(
            f"{where}: reply unusable ({_one_line(str(exc))}); fix the model or pass --no-preflight"
        ) from None
    got = [v["verdict"] for v in verdicts]
    if got[0] != "supported" or got[1] == "supported":
        raise BadInput(
            f"{where}: verdicts {', '.join(got)} where {', '.join(PROBE_EXPECTED)} was expected "
            "for a claim the passage states and one it contradicts; fix the model or pass --no-preflight"
        )


def _one_line(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
