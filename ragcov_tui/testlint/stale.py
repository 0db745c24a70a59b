"""Stale gold: gold documents (or chunks) whose text changed, or that are gone, since an earlier
session of the same test file.

Every analysis and eval stores ``content_hashes``: the sha256 of each document's and each
chunk's text, keyed by ``("document", source)`` / ``("chunk", chunk id)``. A question's gold id
is resolved in today's corpus (``testset.gold_ids.CorpusIds``: exact, then the forgiving rules);
its hash is compared with the baseline's under the same key:

* **stale_gold**: the key is in both and the hash differs (the reference answer may be stale);
* **gold_missing**: the gold id names nothing today, but named a document or chunk in the baseline
  (by its exact id, or a chunk id's document).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ragcov_tui.corpus.models import Chunk, Document
from ragcov_tui.store.lint_contract import LintFinding
from ragcov_tui.testlint.findings import finding
from ragcov_tui.testset.gold_ids import CorpusIds
from ragcov_tui.testset.models import Question

HashKey = tuple[str, str]  # ("document" | "chunk", id)


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def content_hashes(documents: Iterable[Document], chunks: Iterable[Chunk]) -> dict[HashKey, str]:
    """The sha256 of every document's and chunk's text (a document without its text, as read from
    pre-chunked rows, is hashed as its chunks' texts joined in order)."""
    chunk_list = list(chunks)
    out: dict[HashKey, str] = {("chunk", c.id): text_sha256(c.text) for c in chunk_list}
    by_source: dict[str, list[str]] = {}
    for c in chunk_list:
        by_source.setdefault(c.source, []).append(c.text)
    for d in documents:
        out[("document", d.source)] = text_sha256(d.text if d.text else "\n".join(by_source.get(d.source, [])))
    for source, texts in by_source.items():
        out.setdefault(("document", source), text_sha256("\n".join(texts)))
    return out


@dataclass
class StaleGold:
    findings: list[LintFinding] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)  # gold documents / chunks changed, first-seen order
    missing: list[str] = field(default_factory=list)
    checked: int = 0  # questions with gold ids


def stale_gold(
    questions: Sequence[Question],
    chunks: Sequence[Chunk],
    now: Mapping[HashKey, str],
    before: Mapping[HashKey, str],
    baseline: str,
) -> StaleGold:
    """The stale and missing gold of each question (module doc); ``baseline`` names the earlier
    session in the reasons ("session 3f2a (2026-11-20)")."""
    corpus = CorpusIds(chunks)
    before_ids = {key[1] for key in before}
    out = StaleGold()
    changed: dict[str, None] = {}
    missing: dict[str, None] = {}
    for q in questions:
        golds = [g for g, grade in q.gold.items() if grade > 0]
        if not golds:
            continue
        out.checked += 1
        q_changed, q_missing = [], []
        for gold in golds:
            target, _, _ = corpus.resolve(gold)
            if target is None:
                if gold in before_ids or gold.rpartition("#")[0] in before_ids:
                    q_missing.append(gold)
                continue
            key: HashKey = ("chunk" if target in corpus.chunk_ids else "document", target)
            if key in before and before[key] != now.get(key):
                q_changed.append(target)
        if q_changed:
            changed.update(dict.fromkeys(q_changed))
            out.findings.append(
                finding(
                    q.id,
                    "stale_gold",
                    f"gold {', '.join(q_changed[:3])} changed since {baseline}: the reference answer may be stale",
                    changed=q_changed,
                )
            )
        if q_missing:
            missing.update(dict.fromkeys(q_missing))
            out.findings.append(
                finding(
                    q.id,
                    "gold_missing",
                    f"gold {', '.join(q_missing[:3])} no longer exists (it did in {baseline})",
                    missing=q_missing,
                )
            )
    out.changed, out.missing = list(changed), list(missing)
    return out
