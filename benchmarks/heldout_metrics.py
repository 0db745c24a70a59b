"""The figures of the held-out-topic benchmark, as pure functions (``tests/benchmarks`` pins them).

Inputs are plain data read from an ``analyze --json`` report: chunks as ``(source, cluster)``
pairs (``chunk_details``), the gap list as cluster ids in the report's order (``gaps``), documents
as ``(source, coverage)`` (``documents``). ``held_out`` is the set of document ids that lost every
question when a topic's questions were removed (:func:`held_out_documents`).

* concentration cluster — the cluster holding the most held-out chunks (ties: the larger held-out
  fraction of the cluster, then the lower id); its **rank** is its 1-based place in the gap list
  (None when it is not a gap).
* top-gap share — among the chunks of the first ``top`` gaps, the fraction from held-out
  documents, against the **base rate** (held-out chunks / all chunks); **recall**: the fraction of
  held-out chunks that lie in those gaps.
* precision@N — the report's document list, least covered first (its ``rank`` where the report
  gives one, else coverage ascending, undefined coverage last, ties by report order), N = number
  of held-out documents: the fraction of those N that are held out, against the base rate
  held-out documents / documents.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence


def held_out_documents(gold: Mapping[str, Iterable[str]], removed: Iterable[str]) -> set[str]:
    """Documents judged relevant to some question before the removal and to none after it."""
    removed = set(removed)
    before = {d for ds in gold.values() for d in ds}
    after = {d for q, ds in gold.items() if q not in removed for d in ds}
    return before - after


def topics_from_groups(gold: Mapping[str, Iterable[str]], group_of: Mapping[str, str]) -> dict[str, list[str]]:
    """Topic g = the questions whose gold documents all lie in document group g (questions whose
    gold spans groups, or names a document without a group, belong to no topic)."""
    topics: dict[str, list[str]] = {}
    for q, docs in gold.items():
        groups = {group_of.get(d) for d in docs}
        if len(groups) == 1 and None not in groups:
            topics.setdefault(groups.pop(), []).append(q)  # type: ignore[arg-type]
    return topics


def concentration_cluster(chunks: Sequence[tuple[str, int]], held_out: set[str]) -> int | None:
    """The cluster holding the most held-out chunks (module doc); None when there are none."""
    hits = Counter(c for s, c in chunks if s in held_out)
    if not hits:
        return None
    sizes = Counter(c for _, c in chunks)
    return min(hits, key=lambda c: (-hits[c], -hits[c] / sizes[c], c))


def gap_rank(gap_clusters: Sequence[int], cluster: int | None) -> int | None:
    """1-based place of ``cluster`` in the gap list; None when it is not a gap."""
    return gap_clusters.index(cluster) + 1 if cluster in gap_clusters else None


def top_gaps_share(
    chunks: Sequence[tuple[str, int]], gap_clusters: Sequence[int], held_out: set[str], top: int = 3
) -> tuple[float | None, float, float]:
    """(share of held-out chunks in the first ``top`` gaps — None without gaps —, base rate, recall)."""
    first = set(gap_clusters[:top])
    held = [s in held_out for s, _ in chunks]
    in_gaps = [h for (_, c), h in zip(chunks, held, strict=True) if c in first]
    base = sum(held) / len(chunks) if chunks else 0.0
    recall = sum(in_gaps) / sum(held) if sum(held) else 0.0
    return (sum(in_gaps) / len(in_gaps) if in_gaps else None), base, recall


def lowest_coverage(documents: Sequence[tuple[str, float | None]]) -> list[str]:
    """Document ids by coverage, lowest first; undefined coverage last; ties keep report order."""
    order = sorted(range(len(documents)), key=lambda i: (documents[i][1] is None, documents[i][1] or 0.0, i))
    return [documents[i][0] for i in order]


def ranked_documents(documents: Sequence[Mapping]) -> tuple[list[str], str]:
    """(document ids least covered first, the order used: "rank" — the report's — or "coverage")."""
    if documents and all(isinstance(d.get("rank"), int) and d["rank"] > 0 for d in documents):
        return [d["source"] for d in sorted(documents, key=lambda d: d["rank"])], "rank"
    return lowest_coverage([(d["source"], d.get("coverage")) for d in documents]), "coverage"


def precision_at_held_out(ranked: Sequence[str], held_out: set[str]) -> tuple[float, float]:
    """(precision of the first N = |held_out| ranked documents, base rate |held_out| / documents)."""
    n = len(held_out)
    if not n or not ranked:
        return 0.0, 0.0
    return sum(d in held_out for d in ranked[:n]) / n, n / len(ranked)


def ratio(value: float | None, base: float) -> float | None:
    """value / base, None when either is undefined or the base is 0."""
    return None if value is None or not base else value / base
