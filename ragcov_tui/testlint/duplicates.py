"""Near-duplicate groups: the questions linked by near-duplicate pairs
(:func:`ragcov_tui.coverage.redundancy.near_duplicate_pairs`, cosine distance below
``CoverageParams.redundancy_threshold``), joined into connected groups (union-find). Every member
but the first of a group (in file order) is a finding naming the group."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def duplicate_groups(pairs: Iterable[tuple[int, int, float]], n: int) -> list[list[int]]:
    """Groups of two or more rows (each sorted), ordered by their first row."""
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b, _ in pairs:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    return sorted((g for g in groups.values() if len(g) > 1), key=lambda g: g[0])


def closest_distance(pairs: Sequence[tuple[int, int, float]]) -> dict[int, float]:
    """Per row, the smallest distance to a near-duplicate."""
    best: dict[int, float] = {}
    for a, b, d in pairs:
        for i in (a, b):
            best[i] = min(best.get(i, d), d)
    return best
