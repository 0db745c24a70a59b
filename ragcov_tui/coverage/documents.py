"""Per source document: coverage, reach, covered share, gold count, rank, and the misaligned-document flag.

With mindist(i) the distance from chunk i to its nearest inlier question and r the answering
radius (:mod:`.calibration`), per document d:

* coverage(d) = 1 − mean of mindist over the chunks of d (the paper's figure on one document);
* reach(d) = 1 − min of mindist over the chunks of d: the similarity of its best-reached chunk to
  the nearest inlier question (how far the whole document is from every question);
* covered_share(d) = fraction of its chunks with mindist ≤ r; d is *unreached* when it is 0;
* gold_count(d) = the number of questions whose gold ids name d or one of its chunks (None when the
  test file has no gold ids);
* rank: 1 = least covered — with gold ids, the documents no question names first (exact, and what
  a person checks first); then reach ascending, covered share, coverage, name.

All of them are computed with ``bincount`` / ``minimum.at`` over the chunk codes (no loop over chunks).
A document is flagged when either

* its coverage < ``floor`` (default 0.2: with MiniLM an off-topic chunk sits ≈ 0.8–0.9 from every
  question, an on-topic tested one ≈ 0.35–0.55, an on-topic untested one ≈ 0.7–0.75), or
* with ≥ 3 documents, robust z = (coverage − median) / (1.4826 · MAD) < −``mad_k`` (default 3),
  the MAD floored at 0.02 so that near-identical coverages do not make tiny differences count.

The reason string says which rule fired and with what numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ragcov_tui.coverage.calibration import covered_shares, robust_spread

MIN_SPREAD = 0.02


@dataclass
class DocumentCoverage:
    source: str
    chunks: int
    coverage: float | None
    flagged: bool
    reason: str
    reach: float | None = None
    covered_share: float | None = None
    unreached: bool = False
    gold_count: int | None = None
    rank: int = 0


def source_codes(sources: list[str]) -> tuple[list[str], np.ndarray]:
    """(the distinct sources in first-seen order, each chunk's index into them)."""
    order = list(dict.fromkeys(sources))
    index = {s: i for i, s in enumerate(order)}
    return order, np.fromiter((index[s] for s in sources), dtype=np.int64, count=len(sources))


def document_coverage(
    sources: list[str],
    mindist: np.ndarray | None,
    *,
    within: np.ndarray | None = None,
    gold_counts: np.ndarray | None = None,
    mad_k: float = 3.0,
    floor: float = 0.2,
) -> list[DocumentCoverage]:
    """One entry per source (in first-seen order) with the figures and flag of the module doc.

    ``within``: per chunk, mindist ≤ the answering radius (None: no covered share); ``gold_counts``:
    per distinct source in first-seen order (None: the test file has no gold ids)."""
    order, codes = source_codes(sources)
    counts = np.bincount(codes, minlength=len(order))
    golds = [None] * len(order) if gold_counts is None else [int(g) for g in gold_counts]
    if mindist is None:
        out = [
            DocumentCoverage(
                s, int(counts[i]), None, False, "coverage undefined: no inlier question", gold_count=golds[i]
            )
            for i, s in enumerate(order)
        ]
        for rank, i in enumerate(sorted(range(len(order)), key=order.__getitem__), 1):
            out[i].rank = rank
        return out
    values = 1.0 - np.bincount(codes, weights=mindist, minlength=len(order)) / np.maximum(counts, 1)
    nearest = np.full(len(order), np.inf)
    np.minimum.at(nearest, codes, mindist)
    reach = 1.0 - nearest
    shares = covered_shares(within, codes, len(order)) if within is not None else None
    median, spread = robust_spread(values, MIN_SPREAD)
    out = []
    for i, source in enumerate(order):
        value = float(values[i])
        z = (value - median) / spread
        if value < floor:
            flagged, reason = (
                True,
                f"coverage {value:.3f} is below the floor {floor:g}: no question is near its content",
            )
        elif len(order) >= 3 and z < -mad_k:
            flagged, reason = (
                True,
                (f"coverage {value:.3f} is far below the median document {median:.3f} (robust z {z:.1f} < -{mad_k:g})"),
            )
        else:
            flagged, reason = False, ""
        share = None if shares is None else float(shares[i])
        out.append(
            DocumentCoverage(
                source,
                int(counts[i]),
                value,
                flagged,
                reason,
                reach=float(reach[i]),
                covered_share=share,
                unreached=share == 0.0,
                gold_count=golds[i],
            )
        )
    names = np.asarray(order, dtype=object)
    by_share = np.zeros(len(order)) if shares is None else shares
    named = np.zeros(len(order)) if gold_counts is None else (np.asarray(gold_counts) > 0).astype(float)
    for rank, i in enumerate(np.lexsort((names, values, by_share, reach, named)).tolist(), 1):
        out[i].rank = rank
    return out
