"""Gradient estimators of theory mismatch.md#estimators: exact moments, Monte Carlo agreement, bias formulas."""
import math

import numpy as np
import pytest

from proofs_check.mismatch.estimators import (ESTIMATORS, estimator_moments, estimator_samples, estimator_values,
                                              length_trap_horizon)
from proofs_check.policies import (LinearSoftmaxPolicy, sample_responses, sequence_chi2, sequence_log_probs,
                                   sequence_tv, uniform_mismatch)


@pytest.fixture(scope="module")
def setting():
    lin = LinearSoftmaxPolicy.random(2, 5, 3, 0)
    _, mu = uniform_mismatch(lin.tabular(), 1, sigma=0.3)
    R = np.random.default_rng(2).random(32)
    return mu, lin, R


def test_exact_bias_formulas(setting):
    mu, lin, R = setting
    C = 1.5
    g, mom = estimator_moments(mu, lin, R, C=C)
    assert set(mom) == set(ESTIMATORS)
    assert mom["seq_is"].bias_norm < 1e-14 * (1 + np.abs(g).max())          # sequence IS unbiased
    f = estimator_values(mu, lin, R, C=C)["naive"]
    lr = sequence_log_probs(lin.tabular()) - sequence_log_probs(mu)
    ppi, pmu = np.exp(sequence_log_probs(lin.tabular())), np.exp(sequence_log_probs(mu))
    np.testing.assert_allclose(mom["seq_mis"].bias, -(ppi * (lr > math.log(C))) @ f, atol=1e-14)
    K = np.linalg.norm(f, axis=1).max()
    assert mom["naive"].bias_norm <= 2 * K * sequence_tv(mu, lin.tabular())
    excess = float(pmu @ np.maximum(np.exp(lr) - C, 0))
    assert mom["seq_tis"].bias_norm <= K * excess + 1e-14
    assert K * excess <= K * (1 + sequence_chi2(mu, lin.tabular())) / C
    for k in ("seq_tis", "seq_mis"):
        assert mom[k].variance <= C ** 2 * float(pmu @ (f * f).sum(1))
    for m in mom.values():
        assert math.isclose(m.mse, m.bias_norm ** 2 + m.variance, rel_tol=1e-12)
        assert m.to_dict()["name"] == m.name


def test_monte_carlo_agrees_with_exact(setting):
    """MC means on 40 000 samples within 5 standard errors per coordinate (false alarm ≈ 1e-5 per test)."""
    mu, lin, R = setting
    g, mom = estimator_moments(mu, lin, R, C=1.5)
    n = 40_000
    y = sample_responses(mu, n, 7)
    s = estimator_samples(mu, lin, R, y, C=1.5)
    for k, v in s.items():
        se = v.std(axis=0, ddof=1) / math.sqrt(n)
        assert np.all(np.abs(v.mean(0) - mom[k].mean) <= 5 * se + 1e-15), k


def test_geo_mask_wide_equals_naive(setting):
    mu, lin, R = setting
    v = estimator_values(mu, lin, R, C_lo=1e-6, C_hi=1e6)
    np.testing.assert_array_equal(v["geo_mask"], v["naive"])


def test_length_trap_number():
    # spec: C = 5, ρ̄ = 1.001 → T* ≈ 1609 (that uses log ρ̄ ≈ 0.001); exactly log 5 / log 1.001 = 1610.24
    assert math.isclose(length_trap_horizon(5, 1.001), math.log(5) / math.log(1.001))
    assert 1610 < length_trap_horizon(5, 1.001) < 1611


def test_bad_thresholds(setting):
    mu, lin, R = setting
    with pytest.raises(ValueError, match="C_lo ≤ C_hi"):
        estimator_moments(mu, lin, R, C_lo=2.0, C_hi=1.0)
    with pytest.raises(ValueError, match="C must lie"):
        estimator_moments(mu, lin, R, C=-1.0)
    with pytest.raises(TypeError, match="LinearSoftmaxPolicy"):
        estimator_moments(mu, lin.tabular(), R)
    with pytest.raises(ValueError, match="rho_bar"):
        length_trap_horizon(5, 0.99)
