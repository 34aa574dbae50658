"""Regression tests for the issue-14 defects of the mismatch topic and its policy substrate.

Each test failed on the code before the fix (the old value is quoted in the docstring).
"""
import math
import time
import tracemalloc

import numpy as np
import pytest

from proofs_check.mismatch import (iid_tilt_worst_case_mp, length_neutral_weights, parse_k1_threshold,
                                   remainder_vs_bounds, tabular_worst_case_mp, trm_acceptance, trm_bounds,
                                   trm_bounds_mp, verl_is_weights)
from proofs_check.mismatch.bounds import MAX_T
from proofs_check.policies import (TabularPolicy, check_enumerable, divergence_summary, kl_terms,
                                   low_probability_mismatch, random_pair, uniform_mismatch)
from proofs_check.policies.tabular import PEAK_FACTOR


# --------------------------------------------------------------------------
# trm_bounds: closed forms, any T up to 2**53 in O(1) memory
# --------------------------------------------------------------------------

def _bounds_by_sum(T, delta, eps):
    """The sums of theory mismatch.md#bounds term by term (the old vectorised code, as a reference for small T)."""
    t = np.arange(1, T + 1, dtype=float)
    sq = np.minimum(1.0, np.sqrt((t - 1) * delta / 2)).sum()
    lin = np.minimum(1.0, (t - 1) * eps).sum()
    return 4 * min(1.0, eps) * sq, 4 * min(1.0, eps) * lin


@pytest.mark.parametrize("T", [1, 2, 3, 50, 4096, 4097, 5000, 123_457])
@pytest.mark.parametrize("delta", [0.0, 1e-12, 1e-6, 3e-3, 0.5, 2.0, 9.0])
def test_trm_bounds_closed_forms_match_the_sums(T, delta):
    eps = min(1.0, math.sqrt(delta / 2) * 0.7)
    b = trm_bounds(T, delta, eps=eps)
    pm_tv, coupling = _bounds_by_sum(T, delta, eps)
    assert b["pm_tv"] == pytest.approx(pm_tv, rel=1e-13, abs=1e-300)
    assert b["coupling"] == pytest.approx(coupling, rel=1e-13, abs=1e-300)


def test_trm_bounds_huge_horizon_in_constant_memory():
    """Old: ``trm_bounds(10**12, 0.01)`` tried to allocate ~7 TiB (MemoryError)."""
    tracemalloc.start()
    t0 = time.perf_counter()
    b = trm_bounds(10 ** 12, 0.01)
    elapsed = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert elapsed < 0.5 and peak < 1 << 20
    # caps: sqrt(kδ/2) < 1 for k < 200, so Σ = sqrt(δ/2) Σ_{k<200} √k + (T − 200)
    c = math.sqrt(0.005)
    expect_sq = c * math.fsum(math.sqrt(k) for k in range(200)) + (10 ** 12 - 200)
    assert b["pm_kl"] == pytest.approx(4 * c * expect_sq, rel=1e-14)
    assert b["coupling"] == pytest.approx(4 * c * (c * 14 * 15 / 2 + 10 ** 12 - 15), rel=1e-14)


def test_trm_bounds_horizon_beyond_bound_is_refused():
    """Old: ``trm_bounds(2**63, 0.01)`` returned every bound 0 (``arange`` wrapped to an empty sum)."""
    with pytest.raises(ValueError, match=r"T must be at most 2\*\*53"):
        trm_bounds(2 ** 63, 0.01)
    b = trm_bounds(MAX_T, 0.01)
    assert b["pm_kl"] > 0 and b["coupling"] > 0 and math.isfinite(b["unified"])
    # at the bound the saturated terms dominate: pm_kl ≈ 4·sqrt(δ/2)·T
    assert b["pm_kl"] == pytest.approx(4 * math.sqrt(0.005) * MAX_T, rel=1e-9)


def test_mp_bounds_refuse_sizes_they_cannot_loop_over():
    with pytest.raises(ValueError, match="T"):
        trm_bounds_mp(10 ** 400, 0.1, 0.1, 0.1, 0.1, [0.1])
    with pytest.raises(ValueError, match="dbar"):
        trm_bounds_mp(3, 0.1, 0.1, 0.1, 0.1, [0.1])
    with pytest.raises(ValueError, match="theta"):       # too short: used to read short rows silently
        tabular_worst_case_mp([0.1, 0.2], 2, 2)
    with pytest.raises(ValueError, match="V\\*\\*T"):     # 7**7 sequences: used to loop for minutes
        tabular_worst_case_mp(np.zeros(10), 7, 7)
    with pytest.raises(TypeError, match="theta"):
        iid_tilt_worst_case_mp("x", 2, 3)


# --------------------------------------------------------------------------
# TabularPolicy: log-softmax with the max shift
# --------------------------------------------------------------------------

@pytest.mark.parametrize("scale", [1.0, 1e10, 1e16, 1e100, 1e300])
def test_tabular_probabilities_normalised_for_huge_logits(scale):
    """Old: sums 2.0 at 1e16, off by 4.8e-7 at 1e10 (``z − logsumexp(z)`` without the max shift)."""
    z0 = np.array([[1.0, 1.0 + 1e-6 * (scale > 1), -0.5]]) * scale
    z1 = np.array([[0.3, 0.3, 0.3], [1.0, 0.999999, 0.5], [-1.0, 2.0, 2.0]]) * scale
    pol = TabularPolicy([z0, z1])
    for t in range(2):
        lp = pol.log_probs(t)
        assert np.all(np.isfinite(lp) | (lp == -np.inf))
        assert np.all(np.isfinite(lp.max(axis=1)))
        assert np.all(np.abs(pol.probs(t).sum(axis=1) - 1.0) <= 1e-15)
    # equal logits stay exactly uniform
    assert np.allclose(pol.probs(1)[0], 1 / 3, rtol=0, atol=1e-16)


def test_tabular_log_probs_finite_up_to_1e300():
    pol = TabularPolicy([np.array([[1e300, 1e300 * (1 - 1e-15), 0.0]])])
    lp = pol.log_probs(0)
    assert np.all(np.isfinite(lp))
    assert lp[0, 0] == pytest.approx(-math.log1p(math.exp(lp[0, 1] - lp[0, 0]) + math.exp(lp[0, 2] - lp[0, 0])),
                                     abs=1e-15)


# --------------------------------------------------------------------------
# the memory guard
# --------------------------------------------------------------------------

@pytest.mark.parametrize("V,T", [(2, 4096), (2, 10 ** 6), (10 ** 9, 10 ** 9), (3, 10 ** 400)])
def test_memory_guard_in_log_space(V, T):
    """Old: ``OverflowError`` once V**T exceeded 1.8e308 (V = 2, T = 4096)."""
    with pytest.raises(ValueError, match="max_bytes"):
        check_enumerable(V, T)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, 0, -1, 0.0, "1e9", True, 1 + 0j])
def test_memory_guard_refuses_nan_and_nonpositive_limits(bad):
    """Old: ``max_bytes=nan`` switched the guard off (every comparison false)."""
    with pytest.raises((ValueError, TypeError), match="max_bytes"):
        check_enumerable(2, 40, max_bytes=bad)


def _smallest_limit(V, T, n_arrays):
    """The smallest ``max_bytes`` the guard lets through for this call."""
    lo, hi = 1, 1 << 40
    while lo < hi:
        mid = (lo + hi) // 2
        try:
            check_enumerable(V, T, n_arrays=n_arrays, max_bytes=mid)
            hi = mid
        except ValueError:
            lo = mid + 1
    return lo


@pytest.mark.parametrize("name", ["divergence_summary", "remainder_vs_bounds"])
@pytest.mark.parametrize("V,T", [(2, 14), (4, 7)])
def test_memory_guard_covers_the_whole_call(name, V, T):
    """Old: the limit was per object while the call peaked at ~1.9× it (``remainder_vs_bounds``)."""
    mu = TabularPolicy.random(V, T, 1)
    _, pi = uniform_mismatch(mu, 2, sigma=0.3)
    r = np.random.default_rng(3).random(V ** T)
    limit = _smallest_limit(V, T, 6)         # both functions declare 6 arrays
    tracemalloc.start()
    if name == "divergence_summary":
        divergence_summary(mu, pi, max_bytes=limit)
    else:
        remainder_vs_bounds(mu, pi, r, max_bytes=limit)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak <= limit, (peak, limit, PEAK_FACTOR)


# --------------------------------------------------------------------------
# veRL sequence-level IS weight, options, validation
# --------------------------------------------------------------------------

def test_verl_sequence_is_weight_clamps_the_sum():
    """Log-ratios (25, −24, 0.1): veRL clamps the sum (e^{1.1} = 3.004); the old code clamped each
    token first (e^{20 − 20 + 0.1} = 1.105)."""
    lr = np.array([[25.0, -24.0, 0.1]])
    roll = np.full_like(lr, -30.0)                       # log-probabilities ≤ 0 with log-ratios lr
    w = verl_is_weights(lr + roll, roll, np.ones_like(lr, dtype=bool), level="sequence", upper=1e9)
    assert w == pytest.approx(np.full((1, 3), math.exp(1.1)), rel=1e-12)
    assert w[0, 0] == pytest.approx(3.004166, rel=1e-6)


@pytest.mark.parametrize("level", [np.array([]), np.array(["token"]), 1, None, True])
def test_string_options_refuse_non_strings(level):
    """Old: an array as ``level`` raised 'The truth value of an array is ambiguous' (no argument named)."""
    lr = np.zeros((1, 2))
    with pytest.raises(ValueError, match="level"):
        verl_is_weights(lr, lr, np.ones((1, 2), bool), level=level)
    with pytest.raises(ValueError, match="generator"):
        random_pair(np.array([0.1, 0.9]), 2, 2, 0)


@pytest.mark.parametrize("bad", ["x", "1_2_3", np.array([]), 10 ** 400, None, (1, 2, 3), 1 + 1j])
def test_parse_k1_threshold_refuses_clearly(bad):
    with pytest.raises((ValueError, TypeError), match="threshold|lower|upper"):
        parse_k1_threshold(bad)


def test_small_functions_validate_their_arguments():
    with pytest.raises(ValueError, match="T"):          # used to allocate 10**400 floats
        length_neutral_weights(10 ** 400, eps=0.1, delta=0.1)
    with pytest.raises(TypeError, match="T"):
        length_neutral_weights("1", eps=0, delta=0)
    assert trm_acceptance(0.5, 10 ** 400) == 0.0       # used to raise OverflowError
    assert trm_acceptance(1e-300, 10 ** 200) == pytest.approx(math.exp(-1e-100))
    with pytest.raises(TypeError, match="mu"):
        low_probability_mismatch(None, 0)
    with pytest.raises((ValueError, TypeError), match="log_p|log_q"):
        kl_terms(True, math.nan)
    with pytest.raises((ValueError, TypeError), match="log_p|log_q"):
        kl_terms(np.zeros(3), np.array([1 + 1j, 0, 0]))
    with pytest.raises(ValueError, match="logits"):     # 0-d logits
        TabularPolicy([np.float64(1.0)])
    with pytest.raises(TypeError, match="logits"):      # complex logits are not truncated
        TabularPolicy([np.array([[1 + 1j, 0.0]])])
    with pytest.raises(TypeError, match="logits"):      # numeric strings are not numbers
        TabularPolicy([np.array([["1", "0"]])])
