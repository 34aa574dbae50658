"""Bounds: exact reference values, inverses, boundary identities, bad input."""
import doctest
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

import seqproj.bounds as B


def test_doctests_pass():
    res = doctest.testmod(B, optionflags=doctest.ELLIPSIS)
    assert res.attempted >= 10 and res.failed == 0


def test_spec_table_section4():
    eps = np.array([0.5, 0.5, 0.1])
    T = np.array([1000, 10_000, 10_000])
    assert B.sequential_jl_min_dim(eps, 0.05, T).tolist() == [951, 1172, 21483]
    # spec lists 254/310/5528 = bound rounded to nearest; we round up
    raw = 2 * np.log(2 * T / 0.05) / (eps ** 2 / 2 - eps ** 3 / 3)
    assert np.round(raw).astype(int).tolist() == [254, 310, 5528]
    assert B.union_bound_jl_min_dim(eps, 0.05, T).tolist() == [255, 310, 5529]
    # spec lists scikit-learn's truncated value; ours is one more
    assert B.sklearn_jl_min_dim(T, eps, round_up=False).tolist() == [331, 442, 7894]
    assert B.sklearn_jl_min_dim(T, eps).tolist() == [332, 443, 7895]


def test_scalar_returns_int():
    m = B.sequential_jl_min_dim(0.5, 0.05, 300)
    assert isinstance(m, int) and m == 836


@settings(max_examples=60)
@given(M=st.integers(2, 10 ** 6), delta=st.floats(1e-9, 0.5), T=st.integers(1, 10 ** 7),
       c0=st.floats(0.2, 5.0))
def test_eps_inverts_min_dim(M, delta, T, c0):
    eps = B.sequential_jl_eps(M, delta, T, c0=c0)
    if eps < 1:
        assert B.sequential_jl_min_dim(eps, delta, T, c0=c0) <= M
        # slightly smaller eps needs more than M
        smaller = eps * (1 - 1e-6)
        assert B.sequential_jl_min_dim(smaller, delta, T, c0=c0) >= M


def test_anytime_eps_matches_sequential_at_horizon():
    # V_t = x0^2 + cx T  makes the any-time half-width equal the horizon one
    for T in (10, 300, 10 ** 5):
        a = B.anytime_jl_eps(500, 0.05, 1.0 + T)
        b = B.sequential_jl_eps(500, 0.05, T)
        assert math.isclose(a, b, rel_tol=1e-12)


def test_self_normalized_1d_is_normal_mixture():
    v = np.array([0.0, 0.3, 5.0, 1e4])
    rho = B.normal_mixture_rho(2.0)
    bnd = B.normal_mixture_bound(v, 0.05, 2.0)
    sn = B.self_normalized_bound(rho + v, rho, 0.05)
    np.testing.assert_allclose(bnd ** 2 / (v + rho), sn, rtol=1e-12)
    # matrix form, d = 2, diagonal: the log-det adds up
    Vb = np.diag([rho + 1.0, rho + 3.0])
    V = np.eye(2) * rho
    expect = 2 * (0.5 * (math.log(rho + 1) + math.log(rho + 3) - 2 * math.log(rho)) + math.log(20))
    assert math.isclose(B.self_normalized_bound(Vb, V, 0.05), expect, rel_tol=1e-12)


def test_one_sided_below_two_sided():
    v = np.array([0.01, 1.0, 100.0])
    one = B.normal_mixture_bound(v, 0.05, 1.0, two_sided=False)
    two = B.normal_mixture_bound(v, 0.05, 1.0)
    assert np.all(one > 0) and np.all(one < two)


def test_normal_mixture_calibration_gaussian_walk():
    """Two-sided boundary on a Gaussian random walk: crossing rate <= alpha (seeded, exact CP)."""
    rng = np.random.default_rng(12345)
    n, steps, alpha = 4000, 1000, 0.05
    s = np.cumsum(rng.standard_normal((n, steps)), axis=1)
    v = np.arange(1, steps + 1)
    bnd = B.normal_mixture_bound(v, alpha, 100.0)
    rate_k = int(np.any(np.abs(s) > bnd, axis=1).sum())
    lo = stats.binomtest(rate_k, n).proportion_ci(0.999, method="exact").low
    assert lo < alpha, (rate_k, n)
    # power: the boundary at alpha=0.5 with v_opt tiny is crossed more often than the one at 0.05
    bnd2 = B.normal_mixture_bound(v, 0.5, 1.0)
    assert np.any(np.abs(s) > bnd2, axis=1).sum() > rate_k


@pytest.mark.parametrize("call, arg", [
    (lambda: B.sequential_jl_min_dim(0.0, 0.05, 10), "eps"),
    (lambda: B.sequential_jl_min_dim(1.0, 0.05, 10), "eps"),
    (lambda: B.sequential_jl_min_dim(0.5, 1.2, 10), "delta"),
    (lambda: B.sequential_jl_min_dim(0.5, 0.05, 0), "T"),
    (lambda: B.sequential_jl_min_dim(0.5, 0.05, 10, x0=0.0), "x0"),
    (lambda: B.sequential_jl_min_dim(0.5, 0.05, 10, c0=-1.0), "c0"),
    (lambda: B.sequential_jl_min_dim(np.nan, 0.05, 10), "eps"),
    (lambda: B.sequential_jl_eps(0, 0.05, 10), "M"),
    (lambda: B.union_bound_jl_min_dim(0.5, 0.0, 10), "delta"),
    (lambda: B.sklearn_jl_min_dim(0, 0.5), "n_samples"),
    (lambda: B.normal_mixture_bound(-1.0, 0.05, 1.0), "v"),
    (lambda: B.normal_mixture_bound(1.0, 0.05, 0.0), "v_opt"),
    (lambda: B.self_normalized_bound(1.0, 1.0, 1.0), "delta"),
])
def test_bad_input_names_argument(call, arg):
    with pytest.raises(ValueError, match=arg):
        call()
