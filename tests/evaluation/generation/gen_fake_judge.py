"""A rule-based "judge model" for FakeAPIServer's chat handler, and fixtures' building blocks.

``RuleJudge`` answers each judge prompt (recognised by its system message) deterministically from
simple string rules, so a test knows the exact score a correct implementation must produce:
claims are the sentences of the text; a claim is supported when it appears verbatim (case- and
period-insensitive) in a passage; correctness = the reference is contained in the answer; a
passage is useful when it contains the reference; answers agree when equal. ``overrides`` maps a
prompt kind to a list of raw replies served first (for malformed / fenced replies).
"""

from __future__ import annotations

import json
import re
import threading
from collections import defaultdict

from ragcov_tui.evaluation.generation import claim_prompts, prompts

KINDS = {
    "decompose": claim_prompts.DECOMPOSE.instruction,
    "verify": claim_prompts.VERIFY.instruction,
    "relevance": prompts.RELEVANCE.instruction,
    "correctness": prompts.CORRECTNESS.instruction,
    "usefulness": prompts.USEFULNESS.instruction,
    "agreement": prompts.AGREEMENT.instruction,
    "paraphrase": prompts.PARAPHRASE.instruction,
}


def kind_of(system: str) -> str:
    return next(k for k, text in KINDS.items() if system.startswith(text[:20]))


def _norm(text: str) -> str:
    return " ".join(text.lower().replace(".", " ").split())


def _passages(user: str) -> list[tuple[str, str]]:
    """``(id, text)`` of the ``[id] text`` lines after "Passages:" (up to "Claims:")."""
    block = user.split("Passages:\n", 1)[1].split("\n\nClaims:", 1)[0]
    return re.findall(r"^\[([^\]]+)\] (.*)$", block, flags=re.M)


class RuleJudge:
    """Callable chat handler ``(messages, body) -> str``; thread-safe; counts calls per kind."""

    def __init__(self, relevance: float = 0.8) -> None:
        self.base_relevance = relevance
        self.overrides: dict[str, list[str]] = defaultdict(list)
        self.calls: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()

    def __call__(self, messages: list[dict], body: dict) -> str:
        kind = kind_of(messages[0]["content"])
        with self._lock:
            self.calls[kind] += 1
            if self.overrides[kind]:
                return self.overrides[kind].pop(0)
        user = messages[1]["content"]
        return json.dumps(getattr(self, kind)(user, messages[0]["content"]))

    def decompose(self, user: str, system: str) -> dict:
        text = user.split("Text:\n", 1)[1]
        return {"claims": [s.strip() for s in re.split(r"(?<=\.)\s+", text) if s.strip(" .")]}

    def verify(self, user: str, system: str) -> dict:
        passages = _passages(user)
        claims = re.findall(r"^\d+\. (.*)$", user.split("\n\nClaims:\n", 1)[1], flags=re.M)
        verdicts = []
        for i, claim in enumerate(claims, 1):
            source = next((pid for pid, text in passages if _norm(claim) in _norm(text)), None)
            verdicts.append(
                {
                    "claim": i,
                    "verdict": "supported" if source else "not_found",
                    "source": source,
                    "reason": "verbatim" if source else "absent",
                }
            )
        return {"verdicts": verdicts}

    def relevance(self, user: str, system: str) -> dict:
        bump = 0.2 if "re-judgement #1" in system else 0.0
        return {"score": min(1.0, self.base_relevance + bump), "reason": "rule"}

    def correctness(self, user: str, system: str) -> dict:
        reference = user.split("Reference answer: ", 1)[1].split("\n\n", 1)[0]
        answer = user.split("\n\nAnswer: ", 1)[1]
        correct = _norm(reference) in _norm(answer)
        return {"correct": correct, "rationale": "contains the reference" if correct else "does not"}

    def usefulness(self, user: str, system: str) -> dict:
        reference = user.split("Reference answer: ", 1)[1].split("\n\n", 1)[0]
        passages = _passages(user)
        return {
            "verdicts": [
                {"passage": pid, "useful": _norm(reference) in _norm(text), "reason": "rule"} for pid, text in passages
            ]
        }

    def agreement(self, user: str, system: str) -> dict:
        a = user.split("Answer A: ", 1)[1].split("\n\nAnswer B: ", 1)[0]
        b = user.split("\n\nAnswer B: ", 1)[1]
        verdict = (
            "same"
            if _norm(a) == _norm(b)
            else "partial"
            if _norm(a) in _norm(b) or _norm(b) in _norm(a)
            else "different"
        )
        return {"verdict": verdict, "reason": "rule"}

    def paraphrase(self, user: str, system: str) -> dict:
        asked = re.search(r"in (\d+) different ways", system)
        assert asked is not None, system
        n = int(asked.group(1))
        question = user.split("Question: ", 1)[1]
        return {"paraphrases": [f"Variant {i}: {question}" for i in range(1, n + 1)]}
