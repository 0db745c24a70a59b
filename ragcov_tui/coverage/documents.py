"""Per source document coverage and the misaligned-document flag.

coverage(doc) = 1 − mean of mindist over the chunks of doc (None without inlier questions).
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

MAD_SCALE = 1.4826
MIN_SPREAD = 0.02


@dataclass
class DocumentCoverage:
    source: str
    chunks: int
    coverage: float | None
    flagged: bool
    reason: str


def document_coverage(sources: list[str], mindist: np.ndarray | None, *, mad_k: float = 3.0,
                      floor: float = 0.2) -> list[DocumentCoverage]:
    """One entry per source (in first-seen order), flagged per the module doc."""
    order = list(dict.fromkeys(sources))
    index = {s: i for i, s in enumerate(order)}
    codes = np.fromiter((index[s] for s in sources), dtype=np.int64, count=len(sources))
    counts = np.bincount(codes, minlength=len(order))
    if mindist is None:
        return [DocumentCoverage(s, int(counts[i]), None, False, "coverage undefined: no inlier question")
                for i, s in enumerate(order)]
    values = 1.0 - np.bincount(codes, weights=mindist, minlength=len(order)) / np.maximum(counts, 1)
    median = float(np.median(values))
    spread = max(MAD_SCALE * float(np.median(np.abs(values - median))), MIN_SPREAD)
    out = []
    for i, source in enumerate(order):
        value = float(values[i])
        z = (value - median) / spread
        if value < floor:
            flagged, reason = True, f"coverage {value:.3f} is below the floor {floor:g}: no question is near its content"
        elif len(order) >= 3 and z < -mad_k:
            flagged, reason = True, (f"coverage {value:.3f} is far below the median document {median:.3f} "
                                     f"(robust z {z:.1f} < -{mad_k:g})")
        else:
            flagged, reason = False, ""
        out.append(DocumentCoverage(source, int(counts[i]), value, flagged, reason))
    return out
