"""Tabular policies, enumeration and divergences (theory mismatch.md#setting, #enumeration)."""
import itertools
import math

import numpy as np
import pytest
from scipy import stats

from proofs_check.policies import (GENERATORS, LinearSoftmaxPolicy, TabularPolicy, check_enumerable,
                                   context_distributions, divergence_summary, expected_return, iid_tilt_pair,
                                   low_probability_mismatch, per_context_chi2, per_context_kl, per_context_tv,
                                   prefix_log_probs, random_pair, sample_responses, sequence_chi2, sequence_index,
                                   sequence_kl, sequence_log_probs, sequence_tv, sparse_mismatch,
                                   token_log_probs, uniform_mismatch)


def _brute_logp(policy):
    """Per-sequence Python loop (the reference)."""
    V, T = policy.V, policy.T
    out = []
    for y in itertools.product(range(V), repeat=T):
        row, lp = 0, 0.0
        for t, v in enumerate(y):
            lp += policy.log_probs(t)[row, v]
            row = row * V + v
        out.append(lp)
    return np.array(out)


@pytest.mark.parametrize("V,T", [(2, 1), (2, 5), (3, 3), (4, 2)])
def test_sequence_log_probs_match_loop(V, T):
    p = TabularPolicy.random(V, T, 3)
    lp = sequence_log_probs(p)
    np.testing.assert_allclose(lp, _brute_logp(p), rtol=0, atol=1e-12)
    assert abs(np.exp(lp).sum() - 1) < 1e-12
    for t, d in enumerate(context_distributions(p)):
        assert d.shape == (V ** t,) and abs(d.sum() - 1) < 1e-12


def test_layout_index_convention():
    """Row r of depth t is the prefix whose base-V number (y_1 most significant) is r."""
    V, T = 3, 3
    assert sequence_index(np.array([[2, 0, 1]]), V)[0] == 2 * 9 + 0 * 3 + 1
    p = TabularPolicy.random(V, T, 0)
    y = np.array([[2, 0, 1]])
    lp, _ = token_log_probs(p, y)
    assert lp[0, 1] == p.log_probs(1)[2, 0]
    assert lp[0, 2] == p.log_probs(2)[2 * 3 + 0, 1]
    assert math.isclose(lp.sum(), sequence_log_probs(p)[19], abs_tol=1e-12)


def test_divergences_match_definitions(pair):
    mu, pi = pair
    for t in range(mu.T):
        m, q = mu.probs(t), pi.probs(t)
        np.testing.assert_allclose(per_context_tv(mu, pi)[t], 0.5 * np.abs(q - m).sum(1), atol=1e-15)
        np.testing.assert_allclose(per_context_kl(mu, pi)[t], (m * np.log(m / q)).sum(1), rtol=1e-9, atol=1e-14)
        np.testing.assert_allclose(per_context_chi2(mu, pi)[t], (q ** 2 / m).sum(1) - 1, rtol=1e-8, atol=1e-12)
    Pm, Pp = np.exp(sequence_log_probs(mu)), np.exp(sequence_log_probs(pi))
    assert math.isclose(sequence_kl(mu, pi), float(Pm @ np.log(Pm / Pp)), rel_tol=1e-9, abs_tol=1e-14)
    assert math.isclose(sequence_tv(mu, pi), 0.5 * float(np.abs(Pm - Pp).sum()), abs_tol=1e-14)
    assert math.isclose(sequence_chi2(mu, pi), float((Pp ** 2 / Pm).sum() - 1), rel_tol=1e-8, abs_tol=1e-12)
    s = divergence_summary(mu, pi)
    assert math.isclose(s.d_kl_seq, s.d_kl_seq_chain, rel_tol=1e-12, abs_tol=1e-15)
    assert s.to_dict()["T"] == mu.T


def test_kl_accurate_for_tiny_mismatch():
    mu = TabularPolicy.iid([0.5, 0.5], 1)
    pi = TabularPolicy.iid([0.5 + 1e-9, 0.5 - 1e-9], 1)
    # KL ≈ 2 ε² for a symmetric coin: 2e-18, far below float64 cancellation of Σ μ log(μ/π)
    assert math.isclose(per_context_kl(mu, pi)[0][0], 2e-18, rel_tol=1e-6)


def test_generators(rng):
    mu = TabularPolicy.random(3, 3, rng)
    m2, pi = sparse_mismatch(mu, rng, n_flips=3, p_mu=0.9, p_pi=0.001)
    flips = [(t, r) for t in range(3) for r in range(3 ** t) if not np.allclose(m2.probs(t)[r], pi.probs(t)[r])]
    assert 1 <= len(flips) <= 3
    for t, r in flips:
        v = int(np.argmax(np.isclose(m2.probs(t)[r], 0.9)))
        assert math.isclose(m2.probs(t)[r, v], 0.9, rel_tol=1e-12)
        assert math.isclose(pi.probs(t)[r, v], 0.001, rel_tol=1e-9)
    _, pl = low_probability_mismatch(mu, rng, tau=0.2, sigma=0.5, shift=1.0)
    for t in range(3):
        hi = mu.probs(t) >= 0.2
        np.testing.assert_array_equal(pl.logits[t][hi], mu.logits[t][hi])
    mi, pii = iid_tilt_pair([0.3, 0.7], [0.4, 0.6], 4)
    assert np.allclose(pii.probs(3), [0.4, 0.6])
    _, pu = uniform_mismatch(mu, 0, sigma=0.0)
    assert divergence_summary(mu, pu).delta == 0.0
    for g in GENERATORS:
        a, b = random_pair(g, 2, 3, 1)
        assert (a.V, a.T) == (b.V, b.T) == (2, 3)


def test_sampling_frequencies():
    """Chi-square goodness of fit of sampled sequences against P^π (false alarm 1e-4)."""
    p = TabularPolicy.random(2, 3, 5)
    y = sample_responses(p, 40_000, 11)
    counts = np.bincount(sequence_index(y, 2), minlength=8)
    exp = 40_000 * np.exp(sequence_log_probs(p))
    assert stats.chisquare(counts, exp).pvalue > 1e-4


def test_expected_return_and_linear_score():
    lin = LinearSoftmaxPolicy.random(2, 3, 4, 2)
    R = np.linspace(0, 1, 8)
    J = expected_return(lin.tabular(), R)
    # gradient by exact score: Σ_y P(y) R(y) Σ_t s_t(y) vs central finite differences
    sc = lin.score_tables()
    grad = np.zeros(4)
    P = np.exp(sequence_log_probs(lin.tabular()))
    for s, y in enumerate(itertools.product(range(2), repeat=3)):
        row, tot = 0, np.zeros(4)
        for t, v in enumerate(y):
            tot += sc[t][row, v]
            row = row * 2 + v
        grad += P[s] * R[s] * tot
    h = 1e-6
    fd = np.array([(expected_return(lin.with_theta(lin.theta + h * e).tabular(), R)
                    - expected_return(lin.with_theta(lin.theta - h * e).tabular(), R)) / (2 * h)
                   for e in np.eye(4)])
    np.testing.assert_allclose(grad, fd, atol=1e-8)
    assert 0 <= J <= 1


def test_from_flat_roundtrip_and_pickle():
    import pickle
    p = TabularPolicy.random(3, 3, 1)
    q = TabularPolicy.from_flat(p.flat_logits(), 3, 3)
    assert all(np.array_equal(a, b) for a, b in zip(p.logits, q.logits))
    r = pickle.loads(pickle.dumps(p))
    assert np.array_equal(sequence_log_probs(r), sequence_log_probs(p))


@pytest.mark.parametrize("logits,match", [
    ([np.array([[0.0, np.nan]])], "NaN"),
    ([np.array([[0.0, np.inf]])], "NaN or inf"),
    ([np.array([[0.0]])], "V must be ≥ 2"),
    ([], "T = len"),
    ([np.zeros((1, 2)), np.zeros((3, 2))], r"shape \(V\*\*t, V\)"),
    ([np.zeros((2, 2))], r"shape \(1, V\)"),
])
def test_bad_logits(logits, match):
    with pytest.raises(ValueError, match=match):
        TabularPolicy(logits)


def test_bad_types_and_sizes():
    with pytest.raises(TypeError):
        TabularPolicy(np.zeros((1, 2)))
    with pytest.raises(ValueError, match="V must be an integer"):
        TabularPolicy.random(1, 3, 0)
    with pytest.raises(ValueError, match="T must be an integer"):
        TabularPolicy.random(2, 0, 0)
    with pytest.raises(ValueError, match="GiB"):
        check_enumerable(2, 40)
    with pytest.raises(ValueError, match="GiB"):
        TabularPolicy.random(2, 33, 0)
    with pytest.raises(ValueError, match="share"):
        per_context_kl(TabularPolicy.random(2, 2, 0), TabularPolicy.random(2, 3, 0))


def test_memory_guard_is_up_front():
    """A refused enumeration allocates nothing: the error comes from the size alone."""
    p = TabularPolicy.random(2, 12, 0)
    with pytest.raises(ValueError, match="would need about"):
        prefix_log_probs(p, max_bytes=1000)
