"""The Results detail view: everything stored about one eval item, as literal text in a scrollable page.

Sections: question and status; the answer; every metric with its value, or why it is undefined /
failed; the retrieved chunks (``*`` = cited) with their score and their text on its own indented
lines (Markdown line breaks kept, so tables and lists stay readable); each claim with its verdict
under the metric that judged it; the paraphrases with their answers; the judge's prompts and raw
replies. Nothing is computed here: it is the stored ``eval_items`` row laid out. Answers, replies
and verdicts come from the system and the judge: their control characters are shown visible.
"""

from __future__ import annotations

from typing import Any, Iterator

from rich.text import Text

from ragcov_tui.safe_text import single_line, visible
from ragcov_tui.tui.screens.modals import TextScreen
from ragcov_tui.tui.widgets.literal import UNDEFINED, block, lit

GUTTER = "   │ "  # before each line of stored text: a line that wrapped on screen has none
VERDICT_STYLE = {"supported": "green", "contradicted": "bold red", "not_found": "yellow", "unsupported": "yellow"}


def score_text(value: Any) -> str:
    """A score with 3 decimals; ``—`` when there is none."""
    return f"{value:.3f}" if isinstance(value, (int, float)) and not isinstance(value, bool) else UNDEFINED


def indented(value: Any, style: str = "") -> Text:
    """Multi-line literal text, every line behind a dim gutter, runs of blank lines squeezed to one."""
    lines: list[str] = []
    blank = False
    for line in (UNDEFINED if value is None else visible(str(value))).strip("\n").split("\n"):
        if not line.strip():
            if blank:
                continue
            blank = True
        else:
            blank = False
        lines.append(line.rstrip())
    out = Text()
    for i, line in enumerate(lines):
        out.append("\n" if i else "").append(GUTTER, style="dim").append(line, style=style)
    return out


def _claims(node: Any) -> Iterator[dict[str, Any]]:
    """Every ``{claim, verdict}`` dict anywhere under ``node``."""
    if isinstance(node, dict):
        if "claim" in node and "verdict" in node:
            yield node
            return
        for value in node.values():
            yield from _claims(value)
    elif isinstance(node, list):
        for value in node:
            yield from _claims(value)


def _messages(prompt: Any) -> Text:
    """A judge prompt: a list of chat messages (``role: content``) or plain text."""
    if isinstance(prompt, list):
        out = Text()
        for m in prompt:
            if isinstance(m, dict):
                out.append(f"  {single_line(str(m.get('role', '?')))}:\n", style="italic")
                out.append_text(indented(m.get("content"))).append("\n")
        return out
    return indented(prompt).append("\n")


def eval_item_text(item: dict[str, Any]) -> Text:
    """Everything about one eval item (see the module doc)."""
    out = Text()
    details = item.get("details") or {}

    def head(title: str) -> None:
        out.append(f"\n{title}\n", style="bold underline")

    out.append("Question  ", style="bold").append_text(block(item.get("question"))).append("\n")
    out.append("Status    ", style="bold").append_text(lit(
        f"{item.get('status')}  ·  diagnosis: {item.get('diagnosis') or UNDEFINED}  ·  judge: {details.get('judge') or UNDEFINED}")).append("\n")
    if item.get("error"):
        out.append("\nError     ", style="bold red").append_text(block(item["error"]))
    head("Answer")
    out.append_text(indented(item.get("answer"))).append("\n")
    _metrics(out, item, details, head)
    head("Retrieved (* = cited)")
    for rank, c in enumerate(item.get("retrieved") or [], 1):
        out.append(f"{'*' if c.get('cited') else ' '} {rank:>2}. ", style="bold")
        out.append_text(lit(c.get("id"), "bold")).append(f"  ·  score {score_text(c.get('score'))}\n", style="dim")
        out.append_text(indented(c.get("text"))).append("\n")
    _judged(out, details, head)
    for call in item.get("judge_calls") or []:
        repeat = f" · repeat {call['repeat']}" if call.get("repeat") else ""
        head(f"Judge call · {call.get('metric') or 'compare'}{repeat}")
        out.append("prompt\n", style="bold").append_text(_messages(call.get("prompt")))
        out.append("raw reply\n", style="bold").append_text(indented(call.get("raw"))).append("\n")
        if call.get("error"):
            out.append("error  ", style="bold red").append_text(lit(call["error"])).append("\n")
    return out


def _metrics(out: Text, item: dict[str, Any], details: dict[str, Any], head: Any) -> None:
    """Every metric with its value; an undefined one with the stored reason, a failed one with its error."""
    undefined, errors, spread = details.get("undefined") or {}, details.get("errors") or {}, details.get("spread") or {}
    for group in ("retrieval", "generation"):
        values = dict(item.get(group) or {})
        values.update({k: None for k in (*undefined, *errors) if group == "generation" and k not in values})
        if not values:
            continue
        head(f"{group.capitalize()} metrics")
        width = max(len(k) for k in values) + 2
        for key, value in values.items():
            out.append(f"  {key:<{width}}").append(f"{score_text(value):>6}", style="bold" if value is not None else "dim")
            if spread.get(key):
                out.append(f"  ± {spread[key]:.3f}", style="dim")
            why = errors.get(key) and f"failed: {errors[key]}" or undefined.get(key) and f"undefined: {undefined[key]}"
            if value is None and why:
                out.append("  ").append_text(lit(why, "yellow"))
            out.append("\n")


def _judged(out: Text, details: dict[str, Any], head: Any) -> None:
    """Claims with verdicts, per metric; paraphrases with their answers."""
    generation = details.get("generation_details") or {}
    found = [(metric, c) for metric, d in generation.items() for c in _claims(d)]
    if found:
        head("Claims and verdicts")
        shown = None
        for metric, c in found:
            if metric != shown:
                out.append(f"  {metric}\n", style="italic")
                shown = metric
            verdict = single_line(str(c.get("verdict")))
            out.append(f"    {verdict:<13}", style=VERDICT_STYLE.get(verdict, "bold")).append_text(lit(c.get("claim"))).append("\n")
            why = " · ".join(str(x) for x in (c.get("reason"), c.get("chunk_id")) if x)
            if why:
                out.append(" " * 17).append_text(lit(why, "dim")).append("\n")
    paraphrases = details.get("paraphrases") or []
    items = paraphrases.get("items") or [] if isinstance(paraphrases, dict) else paraphrases
    if items:
        source = paraphrases.get("source") if isinstance(paraphrases, dict) else None
        head("Paraphrases and their answers" + (f" (from the {source})" if source else ""))
        for i, p in enumerate(items, 1):
            question, answer = (p.get("question"), p.get("answer")) if isinstance(p, dict) else (p, None)
            out.append(f"  {i}. ", style="bold").append_text(lit(question, "bold")).append("\n")
            out.append_text(indented(answer)).append("\n")


class EvalItemScreen(TextScreen):
    def __init__(self, item: dict[str, Any]) -> None:
        super().__init__(f"Result {item.get('question_id')}", eval_item_text(item))
