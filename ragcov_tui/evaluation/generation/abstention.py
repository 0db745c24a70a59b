"""Did the system abstain ("I don't know") instead of answering? Offline by phrases, or by the judge.

:func:`abstains` is the offline matcher. An answer abstains when it is empty, when it is nothing
but a non-answer (``N/A``, ``unknown``, ``no answer``), or when its first sentence — after an opening
``Sorry,`` / ``Unfortunately,`` — declines (:data:`DECLINE`: "I don't know", "I'm not sure", "I
cannot answer / find / determine …", "I don't have enough information", "there is no information
…", "the context / documents do not mention …", "… is not mentioned in the provided context",
"cannot be determined from …", "not enough information", "outside the scope of …") and the answer does not
then go on to answer anyway: a first sentence that turns with ``but`` / ``however`` / ``although``
after the declining phrase, or a later sentence that starts with one (``However, …``, ``That
said, …``), makes it a hedged answer, not an abstention. An answer that starts by answering and
says later that something else is not covered is an answer.

:func:`judge_abstained` asks the judge instead (:data:`~ragcov_tui.evaluation.generation.prompts.ABSTENTION`,
one JSON call through :class:`~ragcov_tui.evaluation.generation.judge.Judge`), for answers whose
phrasing the matcher cannot read.

The two metrics built on it (:data:`SCOPE_METRICS`, generation metrics of a run whose test set has
out-of-scope questions): ``abstention`` — on questions the knowledge base cannot answer, 1 when
the system abstained, else 0 (its mean: the share of out-of-scope questions declined);
``answered`` — on the other questions, 1 when the system answered, 0 when it abstained (its mean:
1 − the refusal rate).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ragcov_tui.evaluation.generation.judge import Judge
from ragcov_tui.evaluation.generation.prompts import ABSTENTION, QuestionAnswer
from ragcov_tui.evaluation.generation.text import split_sentences

_SOURCES = r"(?:context|contexts|documents?|passages?|sources?|texts?|excerpts?|information|knowledge base|materials?|data|records?)"
_I = r"\bi(?:'m| am|’m)?"
DECLINE = re.compile(
    r"\bi (?:do not|don['’]?t|dont) know\b"
    rf"|{_I} (?:not sure|unsure|uncertain|not certain|not aware)\b"
    r"|\bi (?:cannot|can['’]?t|can not|could not|couldn['’]?t|am unable to|['’]?m unable to|am not able to|was unable to"
    r"|was not able to|wasn['’]?t able to|did not|didn['’]?t) (?:answer|find|determine|say|tell|provide|locate|confirm"
    r"|identify|give|know|help with)\b"
    r"|\bi (?:do not|don['’]?t|did not|didn['’]?t) (?:have|find|see) (?:any |enough |sufficient |the |specific |relevant )*"
    r"(?:information|data|details|context|knowledge|answer|mention)"
    r"|\bi have no (?:information|knowledge|data|details|answer)"
    r"|\bthere (?:is|are|was|were|['’]s) (?:no|not enough|insufficient|not sufficient) (?:\w+ ){0,2}"
    r"(?:information|data|details|mention|evidence|answer)"
    r"|\bno (?:relevant |specific |such )?(?:information|answer|mention|data) (?:is |was )?"
    r"(?:available|provided|found|given|about|on|regarding)"
    rf"|\b{_SOURCES}(?: \w+){{0,4}} (?:do|does|did) not (?:contain|mention|provide|include|say|specify|address|cover|discuss"
    r"|answer|state|give|describe|indicate)"
    rf"|\b{_SOURCES}(?: \w+){{0,4}} (?:don['’]?t|doesn['’]?t|didn['’]?t) (?:contain|mention|provide|include|say|specify|address"
    r"|cover|discuss|answer|state|give|describe|indicate)"
    r"|\b(?:is|are|was|were) not (?:mentioned|provided|specified|stated|covered|discussed|available|found|addressed"
    r"|given|included|described) (?:in|by|within|among) "
    r"|\bnot (?:enough|sufficient) (?:information|context|data|details)|\binsufficient (?:information|context|data|details)"
    r"|\b(?:cannot|can['’]?t|can not|could not|couldn['’]?t) be (?:determined|answered|found|inferred|established|confirmed)"
    r"|\bunable to (?:answer|find|determine|provide|locate)\b"
    r"|\b(?:outside|beyond) (?:the |my )?(?:scope|knowledge|information)\b"
    r"|\b(?:this|the) question (?:is |cannot be |can['’]?t be )?(?:unanswerable|not answerable)\b",
    re.IGNORECASE,
)
_OPENING = re.compile(
    r"^\s*(?:(?:i['’]?m )?sorry|unfortunately|i apologi[sz]e|apologies|regrettably|hmm|well)\b[,.!:;]?\s*",
    re.IGNORECASE,
)
_TURN = re.compile(r"(?:,|;|\s)\s*(?:but|however|although|though|yet|nevertheless|still)\b", re.IGNORECASE)
_TURN_START = re.compile(
    r"^\s*(?:but|however|although|though|nevertheless|nonetheless|still|that said|that being said"
    r"|even so|yet)\b",
    re.IGNORECASE,
)
SCOPE_METRICS = ("abstention", "answered")
NON_ANSWERS = frozenset(
    {
        "n/a",
        "na",
        "none",
        "unknown",
        "no answer",
        "not available",
        "not known",
        "no idea",
        "idk",
        "no information",
        "not found",
        "cannot answer",
        "unanswerable",
        "-",
        "?",
    }
)


def abstains(answer: str) -> bool:
    """True when ``answer`` declines to answer (the module docstring); offline, deterministic."""
    text = " ".join(answer.split())
    if not text or text.strip(" .!").lower() in NON_ANSWERS:
        return True
    sentences = split_sentences(text) or [text]
    lead = _OPENING.sub("", sentences[0])
    found = DECLINE.search(lead)
    if found is None:
        return False
    if _TURN.search(lead[found.end() :]):
        return False  # "I'm not sure, but it is 42": a hedged answer
    return not any(_TURN_START.match(s) for s in sentences[1:])


@dataclass(frozen=True)
class AbstentionVerdict:
    """Whether an answer abstained, who decided (``phrases`` or ``llm:<spec>``) and why."""

    abstained: bool
    by: str
    reason: str = ""

    def as_dict(self) -> dict[str, object]:
        return {"abstained": self.abstained, "by": self.by, "reason": self.reason}


def phrase_verdict(answer: str) -> AbstentionVerdict:
    """:func:`abstains` as a verdict, with the phrase that decided it."""
    abstained = abstains(answer)
    found = DECLINE.search(" ".join(answer.split())) if abstained else None
    reason = f"says {found.group(0)!r}" if found else ("no answer" if abstained else "")
    return AbstentionVerdict(abstained, "phrases", reason)


def judge_abstained(judge: Judge, question: str, answer: str) -> AbstentionVerdict:
    """The judge's verdict (one call); :class:`~ragcov_tui.evaluation.generation.judge.JudgeError` when
    its reply is unusable."""
    judged = judge.ask("abstention", ABSTENTION, QuestionAnswer(question, answer))
    return AbstentionVerdict(judged.verdict, f"llm:{judge.llm.spec}", judged.reason)
