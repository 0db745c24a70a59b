"""Matching the test set's gold ids against the corpus before any work, so a mismatch is never a
silent 0.000.

Every relevant gold id (grade > 0) is looked up among the chunk ids and document ids of the
corpus: exactly first, then with the normalisations below, in this order; the first one that
names exactly one corpus id is applied (the question's gold id is rewritten to it), an id that
several corpus ids fit is ambiguous and stays unmatched:

1. ``cleaned``       — surrounding spaces, ``./`` and Windows ``\\`` separators removed;
2. ``relative``      — the path relative to a corpus root given (``sample_data/corpus/a.md`` or
   an absolute path → ``a.md``);
3. ``prefix``        — without leading folders (``corpus/guides/a.md`` → ``guides/a.md`` or ``a.md``);
4. ``suffix``        — a corpus id that ends with ``/<gold id>`` (the corpus carries folders the
   gold id does not);
5. ``chunk→document`` — a chunk id of ours (``<document>#<position>-<8 hex>``) that is not in the
   corpus (it was chunked differently since) names its document, found by these rules;
6. ``file name``     — the same file name (``x/a.md`` ↔ ``y/a.md``);
7. ``file stem``     — the same name without extension (``a`` ↔ ``a.md``).

:func:`match_gold_ids` raises :class:`BadInput` when fewer than half of the questions that have
gold ids match anything, naming three unmatched ids, three corpus ids and what was tried.
"""

from __future__ import annotations

import functools
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_files import resolved
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.number_text import count
from ragcov_tui.testset.models import Question

RULES = ("cleaned", "relative", "prefix", "suffix", "chunk→document", "file name", "file stem")
CHUNK_ID = re.compile(r".+#\d+-[0-9a-f]{8}")  # our chunk ids: f"{source}#{position}-{sha256[:8]}"
RULE_TEXT = {
    "cleaned": "spaces / ./ / backslashes removed",
    "relative": "path relative to the corpus root",
    "prefix": "without the leading folder(s)",
    "suffix": "with the corpus's folder prefix",
    "file name": "same file name",
    "file stem": "same file name without extension",
    "chunk→document": "unknown chunk id mapped to its document",
}


@dataclass
class GoldMatch:
    """What matching found: counts, the rules applied (with one example each), the misses."""

    questions_with_gold: int = 0
    questions_matched: int = 0
    ids: int = 0
    exact: int = 0
    normalised: Counter = field(default_factory=Counter)
    examples: dict[str, tuple[str, str]] = field(default_factory=dict)
    unmatched: list[str] = field(default_factory=list)
    ambiguous: list[str] = field(default_factory=list)

    @property
    def matched(self) -> int:
        return self.exact + sum(self.normalised.values())

    def as_dict(self) -> JsonObject:
        return {
            "ids": self.ids,
            "matched": self.matched,
            "exact": self.exact,
            "normalised": dict(self.normalised),
            "unmatched": len(self.unmatched),
            "questions_with_gold": self.questions_with_gold,
            "questions_matched": self.questions_matched,
            "examples": {rule: list(pair) for rule, pair in self.examples.items()},
            "unmatched_examples": self.unmatched[:3],
        }

    def normalised_line(self) -> str | None:
        """One line saying which normalisations were applied, or None when every id matched exactly."""
        if not self.normalised:
            return None
        parts = [
            f"{RULE_TEXT[rule]} ×{count(n)} (e.g. {self.examples[rule][0]!r} → {self.examples[rule][1]!r})"
            for rule, n in self.normalised.most_common()
        ]
        return (
            f"gold ids: {count(sum(self.normalised.values()))} distinct ids matched the corpus after normalisation: "
            + "; ".join(parts)
        )


class CorpusIds:
    """The corpus's chunk and document ids with the lookups the rules need."""

    def __init__(self, chunks: Sequence[Chunk], roots: Iterable[str | Path] = ()) -> None:
        self.chunk_ids = {c.id for c in chunks}
        self.documents = list(dict.fromkeys(c.source for c in chunks))
        self.all = self.chunk_ids | set(self.documents)
        self.roots = [_root_text(r) for r in roots]

    @functools.cached_property
    def _lookups(self) -> tuple[dict[str, set[str]], dict[str, set[str]], dict[str, set[str]]]:
        """Documents by path suffix, by file name and by file stem; built only when some gold id
        does not match exactly (a 50k-document corpus whose ids all match never pays for them)."""
        by_suffix: dict[str, set[str]] = defaultdict(set)
        by_name: dict[str, set[str]] = defaultdict(set)
        by_stem: dict[str, set[str]] = defaultdict(set)
        for doc in self.documents:
            parts = doc.split("/")
            for n in range(1, len(parts)):
                by_suffix["/".join(parts[n:])].add(doc)
            by_name[parts[-1]].add(doc)
            by_stem[PurePosixPath(parts[-1]).stem].add(doc)
        return by_suffix, by_name, by_stem

    def resolve(self, gold: str, *, via_chunk: bool = True) -> tuple[str | None, str | None, bool]:
        """``(corpus id, rule, ambiguous)``: rule None for an exact match, corpus id None for none.

        ``via_chunk=False`` leaves out the chunk→document rule: the document a chunk id names is
        resolved by the other rules only, so an id of chunk suffixes on chunk suffixes
        (``a#0-…#1-…#2-…``, thousands deep) costs one step, never a recursion per suffix.
        """
        if gold in self.all:
            return gold, None, False
        ambiguous = False
        for rule, candidates in self._candidates(gold, via_chunk):
            hits = {c for c in candidates if c in self.all}
            if len(hits) == 1:
                return hits.pop(), rule, False
            ambiguous = ambiguous or len(hits) > 1
        return None, None, ambiguous

    def _candidates(self, gold: str, via_chunk: bool) -> Iterable[tuple[str, Iterable[str]]]:
        cleaned = _clean(gold)
        yield "cleaned", [cleaned]
        yield "relative", [rel for root in self.roots if (rel := _relative(cleaned, root))]
        parts = cleaned.split("/")
        for n in range(1, len(parts)):  # shortest prefix removed first; stop at the first hit
            if "/".join(parts[n:]) in self.all:
                yield "prefix", ["/".join(parts[n:])]
                break
        by_suffix, by_name, by_stem = self._lookups
        yield "suffix", by_suffix.get(cleaned, ())
        if via_chunk and CHUNK_ID.fullmatch(gold):
            document = gold.rpartition("#")[0]
            found, _, _ = self.resolve(document, via_chunk=False)
            yield "chunk→document", [found] if found else []
        name = parts[-1]
        if "#" in name:  # a chunk-like id is never matched by its file name alone
            return
        yield "file name", by_name.get(name, ())
        yield "file stem", by_stem.get(PurePosixPath(name).stem, set()) | by_stem.get(name, set())


def match_gold_ids(
    questions: Sequence[Question],
    chunks: Sequence[Chunk],
    roots: Iterable[str | Path] = (),
    warn: Callable[[str], None] | None = None,
) -> GoldMatch:
    """Check (and where unambiguous, rewrite) every question's gold ids against the corpus.

    BadInput when fewer than half of the questions with gold ids match anything; otherwise
    ``warn`` gets one line for the normalisations applied and one for the ids left unmatched.
    """
    corpus = CorpusIds(chunks, roots)
    result = GoldMatch()
    resolved: dict[str, tuple[str | None, str | None, bool]] = {}
    relevant_ids: dict[str, None] = {}  # distinct relevant gold ids, in order of appearance
    for question in questions:
        relevant = [g for g, grade in question.gold.items() if grade > 0]
        if not relevant:
            continue
        result.questions_with_gold += 1
        relevant_ids.update(dict.fromkeys(relevant))
        rewritten: dict[str, float] = {}
        any_hit = False
        for gold, grade in question.gold.items():
            if gold not in resolved:
                resolved[gold] = corpus.resolve(gold)
            target, rule, _ = resolved[gold]
            if target is not None:
                any_hit = any_hit or grade > 0
                rewritten[target] = max(grade, rewritten.get(target, grade))
            else:
                rewritten[gold] = max(grade, rewritten.get(gold, grade))
        question.gold = rewritten
        result.questions_matched += any_hit
    for gold in relevant_ids:
        target, rule, ambiguous = resolved[gold]
        result.ids += 1
        if target is None:
            (result.ambiguous if ambiguous else result.unmatched).append(gold)
        elif rule is None:
            result.exact += 1
        else:
            result.normalised[rule] += 1
            result.examples.setdefault(rule, (gold, target))
    _check(result, corpus)
    if warn is not None:
        line = result.normalised_line()
        if line:
            warn(line)
        missing = result.unmatched + result.ambiguous
        if missing:
            warn(
                f"gold ids: {count(len(missing))} of {count(result.ids)} distinct ids match no corpus id and score as not retrieved "
                f"(e.g. {_sample(missing)})"
            )
    return result


def _check(result: GoldMatch, corpus: CorpusIds) -> None:
    """BadInput when fewer than half of the questions with gold ids match anything."""
    if not result.questions_with_gold or 2 * result.questions_matched >= result.questions_with_gold:
        return
    missing = result.unmatched + result.ambiguous
    ambiguous = f", {count(len(result.ambiguous))} ambiguous" if result.ambiguous else ""
    raise BadInput(
        f"gold ids: only {count(result.questions_matched)} of {count(result.questions_with_gold)} questions with gold "
        f"ids match the corpus ({count(len(missing))} unmatched ids{ambiguous}, e.g. {_sample(missing)}; corpus ids: "
        f"{_sample(corpus.documents)}); tried exact, then {', '.join(RULES)}"
    )


def _sample(ids: Sequence[str]) -> str:
    return ", ".join(repr(i[:80]) for i in ids[:3]) or "none"


def _clean(gold: str) -> str:
    text = gold.strip().replace("\\", "/")
    while text.startswith("./"):
        text = text[2:]
    return text


def _root_text(root: str | Path) -> str:
    """A corpus root as given and resolved (posix, no trailing slash): the folder ids are relative to."""
    path = Path(root)
    folder = path if path.is_dir() or not path.suffix else path.parent
    return _clean(str(folder)).rstrip("/")


def _relative(gold: str, root: str) -> str | None:
    """``gold`` relative to ``root`` when it starts with it (as given, or as an absolute path)."""
    for base in {root, _clean(str(resolved(root)))}:
        if base and base != "." and gold.startswith(base + "/"):
            return gold[len(base) + 1 :]
    return None
