import numpy as np
import pytest

from ragcov_tui.coverage import nearest as nearest_module
from ragcov_tui.coverage.nearest import block_rows, cross_nearest, nearest, nearest_index, top_k
from tests.coverage.coverage_data import unit


def brute(A, B):
    return 1.0 - A.astype(np.float64) @ B.T.astype(np.float64)


@pytest.mark.parametrize("budget_mb", [1e-4, 3e-4, 0.0021, 256])
def test_cross_nearest_matches_brute_force_for_any_block_size(budget_mb):
    rng = np.random.default_rng(1)
    A, B = unit(rng.standard_normal((203, 16))), unit(rng.standard_normal((37, 16)))
    assert block_rows(37, budget_mb) < 203 or budget_mb == 256
    D = brute(A, B)
    found = cross_nearest(A, B, n_cols_for_rows=30, memory_budget_mb=budget_mb)
    sub = D[:, :30]
    np.testing.assert_allclose(found.row_dist, sub.min(axis=1), atol=1e-9)
    np.testing.assert_array_equal(found.row_index, sub.argmin(axis=1))
    np.testing.assert_allclose(found.row_second, np.sort(sub, axis=1)[:, 1], atol=1e-9)
    np.testing.assert_allclose(found.col_dist, D.min(axis=0), atol=1e-9)
    np.testing.assert_array_equal(found.col_index, D.argmin(axis=0))


def test_nearest_and_top_k():
    rng = np.random.default_rng(2)
    A, B = unit(rng.standard_normal((50, 8))), unit(rng.standard_normal((9, 8)))
    dist, idx = nearest(A, B, memory_budget_mb=1e-5)
    D = brute(A, B)
    np.testing.assert_allclose(dist, D.min(axis=1), atol=1e-9)
    np.testing.assert_array_equal(idx, D.argmin(axis=1))
    kd, ki = top_k(A, B, 3, memory_budget_mb=1e-5)
    np.testing.assert_array_equal(ki, np.argsort(D, axis=1)[:, :3])
    np.testing.assert_allclose(kd, np.sort(D, axis=1)[:, :3], atol=1e-6)
    sd, si = top_k(A, A, 2, exclude_self=True)
    assert not np.any(si == np.arange(50)[:, None])
    assert top_k(A, B[:1], 5)[1].shape == (50, 1)


def test_single_column_and_no_row_columns():
    rng = np.random.default_rng(3)
    A, B = unit(rng.standard_normal((5, 4))), unit(rng.standard_normal((1, 4)))
    found = cross_nearest(A, B)
    assert np.all(found.row_index == 0) and np.all(np.isinf(found.row_second))
    none = cross_nearest(A, B, n_cols_for_rows=0)
    assert np.all(none.row_index == -1) and none.col_index[0] == brute(A, B)[:, 0].argmin()


@pytest.mark.parametrize("slice_bytes", [1, 4 * 37 * 3, 1 << 20])
def test_cross_nearest_ties_and_cache_slices(monkeypatch, slice_bytes):
    """Slices of 1 row, 3 rows or the whole block give the same answer; duplicated columns are
    each other's second nearest (distance equal to the nearest), and a duplicated row wins its
    columns with its lowest index."""
    monkeypatch.setattr(nearest_module, "CACHE_SLICE_BYTES", slice_bytes)
    rng = np.random.default_rng(5)
    A, B = unit(rng.standard_normal((60, 12))), unit(rng.standard_normal((35, 12)))
    B = np.vstack([B, B[:2]])  # columns 35, 36 duplicate columns 0, 1
    A[40] = A[7]  # row 40 duplicates row 7 (another block, another slice) ...
    B[3] = A[7]  # ... and both are at distance 0 of column 3
    D = brute(A, B)
    found = cross_nearest(A, B, memory_budget_mb=4 * 37 * 25 / 2**20)  # blocks of 25 rows
    np.testing.assert_allclose(found.row_dist, D.min(axis=1), atol=1e-9)
    np.testing.assert_allclose(found.row_second, np.sort(D, axis=1)[:, 1], atol=1e-9)
    np.testing.assert_array_equal(found.col_index, D.argmin(axis=0))
    assert found.col_index[3] == 7
    np.testing.assert_allclose(found.col_dist, D.min(axis=0), atol=1e-9)
    dup_rows = np.isin(found.row_index, [0, 1, 35, 36])
    np.testing.assert_allclose(found.row_second[dup_rows], found.row_dist[dup_rows], atol=1e-9)
    np.testing.assert_array_equal(nearest_index(A, B, memory_budget_mb=1e-4), D.argmin(axis=1))


@pytest.mark.parametrize("k", [1, 5, 20])  # 20 > ITERATED_ARGMAX_K: the argpartition path
def test_top_k_both_paths_match_brute_force(k):
    rng = np.random.default_rng(7)
    A, B = unit(rng.standard_normal((70, 10))), unit(rng.standard_normal((33, 10)))
    D = brute(A, B)
    kd, ki = top_k(A, B, k, memory_budget_mb=4 * 33 * 9 / 2**20)  # blocks of 9 rows (or fewer)
    np.testing.assert_array_equal(ki, np.argsort(D, axis=1)[:, :k])
    np.testing.assert_allclose(kd, np.sort(D, axis=1)[:, :k], atol=1e-6)
    DA = brute(A, A)
    np.fill_diagonal(DA, np.inf)
    sd, si = top_k(A, A, k, exclude_self=True, memory_budget_mb=4 * 70 * 9 / 2**20)
    np.testing.assert_array_equal(si, np.argsort(DA, axis=1)[:, :k])
