"""The metrics that need no model at all: keywords, chunk attribution, retrieval stability.

- ``keyword_coverage`` = expected keywords found in the answer / expected keywords.
- ``context_overlap`` = expected keywords found in the retrieved contexts / expected keywords.
- ``keyword_context_score`` = harmonic mean 2·a·b / (a + b) of the two (0 when either is 0): high
  only when the retriever found the facts AND the generator used them.
- ``chunk_attribution`` = |distinct cited ids ∩ retrieved ids| / |distinct retrieved ids|; cited
  ids that were not retrieved (made-up citations) are listed in the detail.
- ``retrieval_stability`` = mean pairwise Jaccard |A ∩ B| / |A ∪ B| of the top-k retrieved id
  sets of the question and of each paraphrase (k = the number of main retrieved ids; two empty
  sets agree fully).

Keyword matching is case-, space- and punctuation-insensitive with figures normalised (see
``text.contains_phrase``).
"""

from __future__ import annotations

from itertools import combinations

from ragcov_tui.evaluation.generation.models import GenerationInput, MetricOutcome
from ragcov_tui.evaluation.generation.text import contains_phrase, parse_citations


def _keywords(item: GenerationInput) -> list[str]:
    return [k for k in item.expected_keywords if isinstance(k, str) and k.strip()]


def _keyword_share(keywords: list[str], haystack: str) -> MetricOutcome:
    found = [k for k in keywords if contains_phrase(haystack, k)]
    missing = [k for k in keywords if k not in found]
    return MetricOutcome(value=len(found) / len(keywords), detail={"found": found, "missing": missing})


def keyword_coverage(item: GenerationInput) -> MetricOutcome:
    keywords = _keywords(item)
    if not keywords:
        return MetricOutcome.undefined("the question has no expected keywords")
    return _keyword_share(keywords, item.answer or "")


def context_overlap(item: GenerationInput) -> MetricOutcome:
    keywords = _keywords(item)
    if not keywords:
        return MetricOutcome.undefined("the question has no expected keywords")
    if not item.contexts:
        return MetricOutcome(value=0.0, detail={"found": [], "missing": keywords, "note": "nothing retrieved"})
    return _keyword_share(keywords, "\n\n".join(c.text for c in item.contexts))


def keyword_context_score(item: GenerationInput) -> MetricOutcome:
    answer, context = keyword_coverage(item), context_overlap(item)
    if answer.value is None or context.value is None:
        return MetricOutcome.undefined(answer.reason or context.reason or "undefined")
    a, b = answer.value, context.value
    value = 0.0 if a == 0 or b == 0 else 2 * a * b / (a + b)
    return MetricOutcome(value=value, detail={"keyword_coverage": a, "context_overlap": b})


def chunk_attribution(item: GenerationInput) -> MetricOutcome:
    retrieved = [c.id for c in item.contexts]
    if not retrieved:
        return MetricOutcome.undefined("nothing retrieved")
    distinct = list(dict.fromkeys(retrieved))
    cited = parse_citations(item.answer or "")
    attributed = [cid for cid in cited if cid in set(distinct)]
    return MetricOutcome(
        value=len(attributed) / len(distinct),
        detail={
            "cited": cited,
            "attributed": attributed,
            "not_retrieved": [cid for cid in cited if cid not in attributed],
            "uncited": [cid for cid in distinct if cid not in attributed],
        },
    )


def jaccard(a: set[str], b: set[str]) -> float:
    """|A ∩ B| / |A ∪ B|; 1.0 for two empty sets."""
    union = a | b
    return 1.0 if not union else len(a & b) / len(union)


def retrieval_stability(item: GenerationInput) -> MetricOutcome:
    if not item.paraphrase_outputs:
        return MetricOutcome.undefined("no paraphrases were run")
    main = list(item.main_retrieved_ids) or [c.id for c in item.contexts]
    k = len(main)
    id_lists = [main] + [[c.id for c in out.contexts][:k] for out in item.paraphrase_outputs]
    pairs = [
        {"a": i, "b": j, "jaccard": jaccard(set(id_lists[i]), set(id_lists[j]))}
        for i, j in combinations(range(len(id_lists)), 2)
    ]
    value = sum(p["jaccard"] for p in pairs) / len(pairs)
    return MetricOutcome(value=value, detail={"k": k, "retrieved": id_lists, "pairs": pairs})
