"""The Results detail view: everything stored about one eval item, as literal text in a scrollable page.

Triage order: the question and status; the ground truth and gold ids (``services.reference``: the
session's test file or BEIR folder); the answer and the expected keywords it misses (neither when
no answer was measured); each claim with its verdict; then every metric
with its value, or why it is undefined / failed; the retrieved chunks, folded to one line each
(``c`` unfolds their text, ``*`` = cited, ``gold`` = relevant); the paraphrases with their answers; the judge's prompts
and raw replies. Stored text keeps its line breaks behind a dim gutter, and a line that wraps on
screen keeps its indent. Nothing is computed here: it is the stored ``eval_items`` row laid out.
Answers, replies and verdicts come from the system and the judge: their control characters are
shown visible.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.binding import Binding

from ragcov_tui.evaluation.claim_verdicts import metric_claims
from ragcov_tui.services.reference import Reference
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.number_text import count
from ragcov_tui.shared.safe_text import single_line, visible
from ragcov_tui.store.rows import EvalDetail
from ragcov_tui.tui.modals import TextScreen
from ragcov_tui.tui.widgets.literal import UNDEFINED, block, lit

GUTTER = "   │ "  # before each stored line; a line that wraps on screen continues under the text, not the gutter
Heading = Callable[[str], None]  # writes a section title

VERDICT_STYLE = {"supported": "green", "contradicted": "bold red", "not_found": "yellow", "unsupported": "yellow"}


def score_text(value: Any) -> str:
    """A score with 3 decimals; ``—`` when there is none."""
    return f"{value:.3f}" if isinstance(value, (int, float)) and not isinstance(value, bool) else UNDEFINED


class Doc:
    """A page built line by line: runs of ``Text`` plus blocks (grids) that need their own layout."""

    def __init__(self) -> None:
        self.parts: list[RenderableType] = []
        self.text = Text()

    def append(self, value: str, style: str = "") -> Doc:
        self.text.append(value, style=style)
        return self

    def append_text(self, value: Text) -> Doc:
        self.text.append_text(value)
        return self

    def add(self, block_: RenderableType) -> Doc:
        """A block on lines of its own (the text so far ends before it)."""
        if self.text.plain:
            if self.text.plain.endswith("\n"):
                self.text.right_crop(1)
            self.parts.append(self.text)
        self.text = Text()
        self.parts.append(block_)
        return self

    def render(self) -> Group:
        tail = [self.text] if self.text.plain else []
        return Group(*self.parts, *tail)


def indented(value: Any, style: str = "") -> Table:
    """Multi-line literal text, each stored line behind a dim gutter, wrapped lines indented under
    their text; runs of blank lines squeezed to one."""
    grid = Table.grid()
    grid.add_column(width=len(GUTTER), no_wrap=True, style="dim")
    grid.add_column(ratio=1)
    blank = False
    for line in (UNDEFINED if value is None else visible(str(value))).strip("\n").split("\n"):
        if not line.strip():
            if blank:
                continue
            blank = True
        else:
            blank = False
        grid.add_row(GUTTER, Text(line.rstrip(), style=style))
    return grid


def _messages(out: Doc, prompt: Any) -> None:
    """A judge prompt: a list of chat messages (``role: content``) or plain text."""
    if isinstance(prompt, list):
        for m in prompt:
            if isinstance(m, dict):
                out.append(f"  {single_line(str(m.get('role', '?')))}:\n", style="italic").add(
                    indented(m.get("content"))
                )
        return
    out.add(indented(prompt))


def eval_item_text(item: EvalDetail, reference: Reference, *, chunks: bool = False) -> Group:
    """Everything about one eval item (see the module doc); ``reference``: what its test set says of
    the question; ``chunks``: the retrieved text unfolded. What was not measured has no section: a
    retrieval-only run shows no answer and no keywords."""
    out = Doc()
    details = item.details or {}  # a column stored as null reads as None
    generation = details.get("generation_details") or {}

    def head(title: str) -> None:
        out.append(f"\n{title}\n", style="bold underline")

    out.append("Question  ", style="bold").append_text(block(item.question)).append("\n")
    out.append("Status    ", style="bold").append_text(
        lit(
            f"{item.status}  ·  diagnosis: {item.diagnosis or UNDEFINED}  ·  judge: {details.get('judge') or UNDEFINED}"
        )
    ).append("\n")
    if item.error:
        out.append("\nError     ", style="bold red").append_text(block(item.error)).append("\n")
    _ground_truth(out, reference, head)
    if item.answer or generation or item.generation:  # a retrieval-only run measured no answer
        head("Answer")
        out.add(indented(item.answer))
        _abstention(out, generation.get("abstention"))
        _keywords(out, generation, reference.keywords)
    _verdicts(out, generation, head)
    _metrics(out, item, details, head)
    _labels(out, item, head)
    _retrieved(out, item.retrieved or [], reference, chunks, head)
    _paraphrases(out, details, head)
    for call in item.judge_calls or []:
        repeat = f" · repeat {call['repeat']}" if call.get("repeat") else ""
        head(f"Judge call · {call.get('metric') or 'compare'}{repeat}")
        out.append("prompt\n", style="bold")
        _messages(out, call.get("prompt"))
        out.append("raw reply\n", style="bold").add(indented(call.get("raw")))
        if call.get("error"):
            out.append("error  ", style="bold red").append_text(lit(call["error"])).append("\n")
    return out.render()


def _ground_truth(out: Doc, reference: Reference, head: Heading) -> None:
    """The reference answer and the gold ids (a BEIR folder's qrels), or why there are none."""
    head("Ground truth")
    if reference.why:
        out.append(f"   {reference.why}\n", style="dim")
    elif reference.ground_truth is None and not reference.gold:
        out.append("   none in the test set\n", style="dim")
    if reference.ground_truth is not None:
        out.add(indented(reference.ground_truth))
    if reference.gold:
        grades = ", ".join(f"{i} ({g:g})" for i, g in reference.gold.items())
        out.append("gold ids  ", style="bold").append_text(lit(grades)).append("\n")


def _abstention(out: Doc, verdict: Any) -> None:
    """``Abstained  yes · out of scope · by phrases · says 'I don't know'`` when it was decided."""
    if not isinstance(verdict, dict) or "abstained" not in verdict:
        return
    scope = "out of scope" if verdict.get("out_of_scope") else "answerable"
    reason = f" · {verdict['reason']}" if verdict.get("reason") else ""
    out.append("Abstained ", style="bold").append_text(
        lit(f"{'yes' if verdict['abstained'] else 'no'} · {scope} · by {verdict.get('by')}{reason}")
    ).append("\n")


def _keywords(out: Doc, generation: JsonObject, expected: list[str]) -> None:
    """The expected keywords the answer misses (as ``keyword_coverage`` stored them)."""
    stored = generation.get("keyword_coverage")
    missing = stored.get("missing") if isinstance(stored, dict) else None
    if not isinstance(missing, list) and not expected:
        return  # nothing measured and nothing expected: no line
    out.append("\nMissing keywords  ", style="bold")
    if isinstance(missing, list):
        out.append_text(lit(", ".join(map(str, missing)) or "none", "bold" if missing else "")).append("\n")
    else:
        out.append_text(lit(f"not measured (expected: {', '.join(expected)})", "dim")).append("\n")


def _verdicts(out: Doc, generation: JsonObject, head: Heading) -> None:
    """Claims with verdicts, per metric."""
    found = metric_claims(generation)
    if not found:
        return
    head("Claims and verdicts")
    for metric in dict.fromkeys(m for m, _ in found):
        out.append(f"  {metric}\n", style="italic")
        grid = Table.grid()  # the verdict, then the claim and its reason, which wrap under themselves
        grid.add_column(width=17, no_wrap=True)
        grid.add_column(ratio=1)
        for c in (c for m, c in found if m == metric):
            verdict = single_line(str(c.get("verdict")))
            grid.add_row(Text(f"    {verdict}", style=VERDICT_STYLE.get(verdict, "bold")), lit(c.get("claim")))
            why = " · ".join(str(x) for x in (c.get("reason"), c.get("chunk_id")) if x)
            if why:
                grid.add_row("", lit(why, "dim"))
        out.add(grid)


def _metrics(out: Doc, item: EvalDetail, details: JsonObject, head: Heading) -> None:
    """Every metric with its value; an undefined one with the stored reason, a failed one with its error."""
    undefined, errors, spread = details.get("undefined") or {}, details.get("errors") or {}, details.get("spread") or {}
    for group in ("retrieval", "generation"):
        values = dict((item.retrieval if group == "retrieval" else item.generation) or {})
        values.update({k: None for k in (*undefined, *errors) if group == "generation" and k not in values})
        if not values:
            continue
        head(f"{group.capitalize()} metrics")
        width = max(len(k) for k in values) + 2
        for key, value in values.items():
            out.append(f"  {key:<{width}}").append(
                f"{score_text(value):>6}", style="bold" if value is not None else "dim"
            )
            if spread.get(key):
                out.append(f"  ± {spread[key]:.3f}", style="dim")
            why = errors.get(key) and f"failed: {errors[key]}" or undefined.get(key) and f"undefined: {undefined[key]}"
            if value is None and why:
                out.append("  ").append_text(lit(why, "yellow"))
            out.append("\n")


def _labels(out: Doc, item: EvalDetail, head: Heading) -> None:
    """The person's verdicts on this item (set in Results, or imported), beside the judge's score."""
    labels = item.labels
    if not labels:
        return
    head("Your labels")
    generation = item.generation or {}
    width = max(len(k) for k in labels) + 2
    for metric, label in labels.items():
        out.append(f"  {metric:<{width}}").append(f"{'yes' if label else 'no':>6}", style="bold")
        out.append(f"  judge {score_text(generation.get(metric))}\n", style="dim")


def _retrieved(out: Doc, retrieved: list[JsonObject], reference: Reference, unfolded: bool, head: Heading) -> None:
    """One line per retrieved chunk (rank, id, ``gold`` when relevant, score); its text too when ``unfolded``."""
    cited = sum(1 for c in retrieved if c.get("cited"))
    head(
        f"Retrieved: {count(len(retrieved))} chunks, {count(cited)} cited (*) · c: {'fold' if unfolded else 'show'} their text"
    )
    for rank, c in enumerate(retrieved, 1):
        out.append(f"{'*' if c.get('cited') else ' '} {rank:>2}. ", style="bold")
        out.append_text(lit(c.get("id"), "bold"))
        if reference.is_gold(c.get("id")):
            out.append("  gold", style="bold green")
        out.append(f"  ·  score {score_text(c.get('score'))}\n", style="dim")
        if unfolded:
            out.add(indented(c.get("text")))


def _paraphrases(out: Doc, details: JsonObject, head: Heading) -> None:
    """The paraphrases with their answers."""
    paraphrases = details.get("paraphrases") or []
    items = paraphrases.get("items") or [] if isinstance(paraphrases, dict) else paraphrases
    if not items:
        return
    source = paraphrases.get("source") if isinstance(paraphrases, dict) else None
    head("Paraphrases and their answers" + (f" (from the {source})" if source else ""))
    for i, p in enumerate(items, 1):
        question, answer = (p.get("question"), p.get("answer")) if isinstance(p, dict) else (p, None)
        out.append(f"  {i}. ", style="bold").append_text(lit(question, "bold")).append("\n").add(indented(answer))


class EvalItemScreen(TextScreen):
    """One eval item; ``c`` unfolds / folds the retrieved chunks' text."""

    BINDINGS = [Binding("c", "toggle_chunks", "Chunk text")]

    def __init__(self, item: EvalDetail, reference: Reference) -> None:
        self.item, self.reference, self.unfolded = item, reference, False
        super().__init__(f"Result {item.question_id}", eval_item_text(item, reference), keys="c chunk text")

    def action_toggle_chunks(self) -> None:
        self.unfolded = not self.unfolded
        self.set_body(eval_item_text(self.item, self.reference, chunks=self.unfolded))
