"""The fast worst-case DP solver (issue 25 §1) against the reference kernel and the NumPy reference."""
from __future__ import annotations

import numpy as np
import pytest

from seqproj import worst_case as wcm
from seqproj.worst_case import (
    radius_nodes,
    worst_case_grids,
    worst_case_value,
    zeta_density_constants,
    zeta_table,
)
from seqproj.worst_case_fast import dp_fast
from seqproj.worst_case_kernel import dp_kernel, dp_numpy


def _args(M, eps, T, n_u, n_v, n_x, n_small=14, columns="sphere", x0=1.0, delta_min=1e-7):
    ug, lr, x2 = worst_case_grids(eps, T, x0=x0, n_u=n_u, n_v=n_v, n_x=n_x, n_small=n_small, delta_min=delta_min)
    r2, wr = radius_nodes(M, columns)
    logc, cpow = zeta_density_constants(M)
    return ug, lr, x2, r2, wr, zeta_table(M), logc, cpow, x0 * x0


def _both(M, eps, T, grid, *, cubic=True, maximize=True, parallel=True, **kw):
    ug, lr, x2, r2, wr, table, logc, cpow, v0 = _args(M, eps, T, *grid, **kw)
    old = dp_kernel(T, ug, 1 - eps, 1 + eps, lr, v0, x2, r2, wr, *table, maximize, True, cubic, logc, cpow,
                    float(M))
    new = dp_fast(T, ug, 1 - eps, 1 + eps, lr, v0, x2, r2, wr, table, maximize, True, cubic, logc, cpow,
                  float(M), parallel=parallel)
    return old, new


# several ε, T, M; the bracket's grids (25, 3) and (49, 5) with the action grids 16 and 32 (the
# refinement); tiny grids where every node is a boundary node; small M (L = 1: the ζ support is the
# whole [−1, 1]) and large M (narrow support, geometric edge cells narrow)
CASES = [
    (88, 0.5, 12, (25, 3, 16), {}),
    (88, 0.5, 6, (49, 5, 16), {}),
    (88, 0.5, 6, (49, 5, 32), {}),
    (338, 0.25, 8, (25, 3, 16), {}),
    (2400, 0.1, 5, (25, 3, 16), {}),
    (5, 0.5, 10, (9, 3, 2), {"n_small": 1}),
    (3, 0.3, 4, (5, 2, 3), {"n_small": 0}),
    (40, 0.9, 7, (11, 1, 4), {"n_small": 2}),
    (64, 0.5, 9, (15, 4, 8), {"n_small": 3, "x0": 0.3, "delta_min": 1e-4}),
    (8, 0.5, 3, (9, 3, 2), {"n_small": 1, "columns": "gaussian"}),
]


@pytest.mark.parametrize("M,eps,T,grid,kw", CASES)
@pytest.mark.parametrize("cubic", [True, False])
def test_fast_equals_reference_kernel(M, eps, T, grid, kw, cubic):
    """Values at every node (edge nodes included) of the last two steps to 1e-12, and the same policy."""
    (Wo, Po, polo), (Wn, Pn, poln) = _both(M, eps, T, grid, cubic=cubic, **kw)
    assert np.abs(Wo - Wn).max() <= 1e-12
    assert np.abs(Po - Pn).max() <= 1e-12
    assert np.array_equal(polo, poln)
    assert Wo[0].max() > 0 or Wo[-1].max() > 0          # the edge rows are not trivially zero


@pytest.mark.parametrize("M", [30, 400])
def test_fast_equals_reference_on_a_grid_with_narrow_cells_between_wide_ones(M):
    """The edge-graded grids narrow monotonically towards the edges; a cluster of tiny cells in
    the middle makes the support run wide → narrow → wide, the case where the lazy boundary
    moments must be recomputed after a narrow cell."""
    eps, T = 0.5, 6
    _, lr, x2, r2, wr, table, logc, cpow, v0 = _args(M, eps, T, 25, 3, 8, n_small=4)
    rng = np.random.default_rng(3)
    ug = np.sort(np.concatenate([np.linspace(0.5 + 1e-6, 1.5 - 1e-6, 15), 1.0 + rng.uniform(-1e-3, 1e-3, 10)]))
    old = dp_kernel(T, ug, 0.5, 1.5, lr, v0, x2, r2, wr, *table, True, True, True, logc, cpow, float(M))
    new = dp_fast(T, ug, 0.5, 1.5, lr, v0, x2, r2, wr, table, True, True, True, logc, cpow, float(M))
    assert np.abs(old[0] - new[0]).max() <= 1e-12 and np.abs(old[1] - new[1]).max() <= 1e-12
    assert np.array_equal(old[2], new[2])


@pytest.mark.parametrize("maximize", [True, False])
def test_fast_equals_reference_for_min_too(maximize):
    """The mutation switch ``maximize=False`` goes through the same reduction."""
    (Wo, _, polo), (Wn, _, poln) = _both(88, 0.5, 8, (25, 3, 16), maximize=maximize)
    assert np.abs(Wo - Wn).max() <= 1e-12 and np.array_equal(polo, poln)


def test_serial_and_parallel_are_identical():
    """The prange and the serial loop run the same items: bitwise-equal values and policy."""
    ug, lr, x2, r2, wr, table, logc, cpow, v0 = _args(88, 0.5, 10, 25, 3, 16)
    a = dp_fast(10, ug, 0.5, 1.5, lr, v0, x2, r2, wr, table, True, True, True, logc, cpow, 88.0, parallel=True)
    b = dp_fast(10, ug, 0.5, 1.5, lr, v0, x2, r2, wr, table, True, True, True, logc, cpow, 88.0, parallel=False)
    for x, y in zip(a, b):
        assert np.array_equal(x, y)


@pytest.mark.parametrize("columns", ["sphere", "gaussian"])
def test_fast_equals_independent_numpy_reference(columns):
    """Against the NumPy reference written independently (linear: the same chain, 1e-12; PCHIP: the
    reference integrates by Gauss–Legendre against SciPy's density, 1e-7 as for the kernel)."""
    T = 2 if columns == "sphere" else 1
    ug, lr, x2, r2, wr, table, logc, cpow, v0 = _args(8, 0.5, T, 9, 3, 2, n_small=1, columns=columns)
    for cubic, tol in ((False, 1e-12), (True, 1e-7)):
        W, _, _ = dp_fast(T, ug, 0.5, 1.5, lr, v0, x2, r2, wr, table, True, False, cubic, logc, cpow, 8.0)
        ref = dp_numpy(T, ug, lr, v0, x2, r2, wr, table, True, cubic=cubic, M=8, ea=0.5, eb=1.5)
        assert np.abs(W - ref).max() < tol


def test_worst_case_value_backends_agree():
    kw = dict(n_u=25, n_v=3, n_x=16, policy=True)
    a = worst_case_value(88, 0.5, 15, backend="fast", **kw)
    b = worst_case_value(88, 0.5, 15, backend="numba", **kw)
    assert abs(a.p - b.p) <= 1e-12 and np.array_equal(a.policy, b.policy)
    assert np.abs(a.value - b.value).max() <= 1e-12


def test_solve_cache_reuses_and_returns_copies(monkeypatch):
    """A repeated solve is not recomputed, a policy=False solve serves a later policy=True call,
    callers get copies, and a different argument (here ``maximize``) is a different solve."""
    calls = []
    real = wcm.dp_fast

    def counting(*a, **k):
        calls.append(a[11])                         # store_policy
        return real(*a, **k)

    monkeypatch.setattr(wcm, "dp_fast", counting)
    wcm._SOLVES.clear()
    a = worst_case_value(30, 0.5, 6, n_u=9, n_v=2, n_x=2)
    a.value[:] = 7.0
    b = worst_case_value(30, 0.5, 6, n_u=9, n_v=2, n_x=2, policy=True)
    assert len(calls) == 1 and calls[0] is True       # the policy was kept by the first solve
    assert b.policy is not None and not np.any(b.value == 7.0)
    fresh = worst_case_value(30, 0.5, 6, n_u=9, n_v=2, n_x=2, policy=True, backend="numba")
    assert b.p == fresh.p and np.array_equal(b.policy, fresh.policy)
    c = worst_case_value(30, 0.5, 6, n_u=9, n_v=2, n_x=2, maximize=False)
    assert len(calls) == 2 and c.p < b.p


def test_solve_cache_is_bounded():
    wcm._SOLVES.clear()
    for T in range(1, wcm.SOLVE_CACHE + 3):
        worst_case_value(30, 0.5, T, n_u=5, n_v=1, n_x=1)
    assert len(wcm._SOLVES) == wcm.SOLVE_CACHE


def test_backend_validation():
    with pytest.raises(ValueError, match="backend"):
        worst_case_value(30, 0.5, 3, n_u=5, n_v=1, n_x=1, backend="cuda")
    with pytest.raises(TypeError, match="backend"):
        worst_case_value(30, 0.5, 3, n_u=5, n_v=1, n_x=1, backend=1)
