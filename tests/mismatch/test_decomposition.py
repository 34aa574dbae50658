"""Identities of theory mismatch.md#decomposition, exact by enumeration, to 1e-12 relative (every generator, V ∈ {2,3,4})."""
import itertools
import math

import numpy as np
import pytest

from proofs_check.mismatch import (abs_ratio_identity, future_tv_identity, performance_difference,
                                   remainder_coefficients, trm_decomposition, worst_case_reward)
from proofs_check.policies import TabularPolicy, iid_tilt_pair, sequence_kl, sequence_kl_chain

REL = 1e-12


def _rel(a, b, scale):
    return abs(a - b) / scale


def test_identities_every_generator(pair, rng):
    mu, pi = pair
    R = rng.random(mu.V ** mu.T)
    d = trm_decomposition(mu, pi, R)
    scale = abs(d.J_pi) + abs(d.J_mu) + abs(d.tangent) + abs(d.delta_term)
    assert _rel(d.remainder, -d.delta_term, scale) < REL                       # gain = tangent − Δ
    p = performance_difference(mu, pi, R)
    assert _rel(d.gain, p.gain_pdi, abs(d.J_pi) + abs(d.J_mu)) < REL          # PDI form of the gain
    assert _rel(d.tangent, p.tangent_pdi, abs(d.tangent) + abs(d.J_mu)) < REL  # PDI form of L'
    assert p.adv_mean_max < 1e-15                                               # E_μ A = 0
    assert p.g_over_tv_max <= 1.0 + 1e-12                                       # |g| ≤ TV (≤ 2 TV)
    kl, klc = sequence_kl(mu, pi), sequence_kl_chain(mu, pi)
    assert abs(kl - klc) <= REL * (kl + klc) + 1e-300                           # chain rule
    lhs, rhs = abs_ratio_identity(mu, pi)
    assert np.max(np.abs(lhs - rhs)) / 2.0 < REL                                # E|ρ_t − 1| = 2 D̄_t
    for t in range(1, mu.T + 1):
        l2, r2 = future_tv_identity(mu, pi, t)
        assert np.max(np.abs(l2 - r2)) / 2.0 < REL                              # future-TV identity


def test_T1_tangent_is_exact():
    """At T = 1 the tangent is the whole gain: Error = 0."""
    mu, pi = TabularPolicy.random(4, 1, 0), TabularPolicy.random(4, 1, 1)
    d = trm_decomposition(mu, pi, np.array([0.1, 0.9, 0.3, 0.0]))
    assert abs(d.remainder) < 1e-16 and d.delta_term == 0.0


def test_hand_computed_two_step():
    """V = 2, T = 2, i.i.d. μ = (½,½), π = (½+a, ½−a), R = 1{y = (0,0)}:
    gain = (½+a)² − ¼ = a + a², L' = ¼·2·(2a) = a, so Error = a²."""
    a = 0.1
    mu, pi = iid_tilt_pair([0.5, 0.5], [0.5 + a, 0.5 - a], 2)
    d = trm_decomposition(mu, pi, np.array([1.0, 0, 0, 0]))
    assert math.isclose(d.gain, a + a * a, rel_tol=1e-14)
    assert math.isclose(d.tangent, a, rel_tol=1e-14)
    assert math.isclose(d.remainder, a * a, rel_tol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_worst_case_reward_beats_every_binary_reward(seed):
    """Error is linear in R, so its max over [0,1]^n is at a vertex; brute force all 2^(V**T)."""
    g = np.random.default_rng(seed)
    mu, pi = TabularPolicy.random(2, 2, g), TabularPolicy.random(2, 2, g)
    w = worst_case_reward(mu, pi)
    best = max(abs(trm_decomposition(mu, pi, np.array(R, float)).remainder)
               for R in itertools.product([0, 1], repeat=4))
    assert math.isclose(w.abs_error, best, rel_tol=1e-12)
    assert math.isclose(abs(trm_decomposition(mu, pi, w.reward).remainder), w.abs_error, rel_tol=1e-12)
    assert abs(remainder_coefficients(mu, pi).sum()) < 1e-15
    assert w.to_dict()["n_rewarded"] == int(w.reward.sum())


def test_master_inequality_and_context_shift(pair, rng):
    mu, pi = pair
    R = rng.random(mu.V ** mu.T)
    p = performance_difference(mu, pi, R)
    assert abs(trm_decomposition(mu, pi, R).remainder) <= p.master_bound + 1e-13


def test_bad_reward_and_t():
    mu, pi = TabularPolicy.random(2, 2, 0), TabularPolicy.random(2, 2, 1)
    with pytest.raises(ValueError, match=r"shape \(V\*\*T,\)"):
        trm_decomposition(mu, pi, np.zeros(3))
    with pytest.raises(ValueError, match="NaN"):
        trm_decomposition(mu, pi, np.array([0, 1, np.nan, 0]))
    with pytest.raises(ValueError, match="t must be"):
        future_tv_identity(mu, pi, 0)
