"""``ragcov eval --sample N``: a seeded sample of the questions, stratified by topic.

Meant for a production log given as the test file (``ragcov eval --questions LOG --system
records:LOG --join order --sample 200``): the logged answers and contexts of a sample of real
queries are scored, and the sample follows the traffic's topics. The question texts are embedded
(cached like every text) and clustered as ``analyze --traffic`` clusters the traffic (K-means, the
corpus's K rule, :func:`~ragcov_tui.coverage.clustering.cluster_chunks`); each cluster c of n_c
questions gets ``N · n_c / n`` places, rounded by largest remainder (ties: the larger cluster),
filled by a seeded draw without replacement among its questions. Same inputs and seed, same sample.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ragcov_tui.coverage.analysis import as_unit_matrix
from ragcov_tui.coverage.clustering import cluster_chunks


def allocate(sizes: Sequence[int], total: int) -> list[int]:
    """Places per stratum: ``total · size / Σ size`` by largest remainder (ties: the larger stratum, then the first)."""
    n = sum(sizes)
    exact = [total * s / n for s in sizes]
    places = [int(e) for e in exact]
    order = sorted(range(len(sizes)), key=lambda i: (-(exact[i] - places[i]), -sizes[i], i))
    for i in order[: total - sum(places)]:
        places[i] += 1
    return places


def stratified_sample(
    texts: Sequence[str], size: int, embed: Callable[[list[str]], np.ndarray], seed: int
) -> tuple[np.ndarray, int]:
    """Sorted row numbers of the sample (module doc) and the number of clusters it is stratified by."""
    vectors = as_unit_matrix(embed(list(texts)), "question", len(texts))
    labels = cluster_chunks(vectors, None, seed=seed).labels
    clusters = sorted(set(labels.tolist()))
    members = [np.flatnonzero(labels == c) for c in clusters]
    rng = np.random.default_rng(seed)
    picked = [
        rng.choice(rows, places, replace=False)
        for rows, places in zip(members, allocate([len(m) for m in members], size), strict=True)
        if places
    ]
    return np.sort(np.concatenate(picked)), len(clusters)
