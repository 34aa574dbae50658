"""Update-size / staleness toy (theory mismatch.md#update-size)."""
import math

import numpy as np
import pytest

from proofs_check.policies import TabularPolicy, expected_return, sample_responses
from proofs_check.mismatch.staleness import (bf16_round, exact_gradient, fisher_quadratic, run_sgd, sampled_gradient,
                                    staleness_kl)


def test_exact_gradient_matches_finite_differences():
    p = TabularPolicy.random(3, 2, 0)
    R = np.random.default_rng(1).random(9)
    g = exact_gradient(p, R)
    th = p.flat_logits()
    h = 1e-6
    fd = np.array([(expected_return(TabularPolicy.from_flat(th + h * e, 3, 2), R)
                    - expected_return(TabularPolicy.from_flat(th - h * e, 3, 2), R)) / (2 * h) for e in np.eye(th.size)])
    np.testing.assert_allclose(g, fd, atol=1e-8)


def test_sampled_gradient_is_unbiased_on_policy():
    """Mean of 20 000-sample REINFORCE gradients within 5 standard errors of ∇J (per coordinate)."""
    p = TabularPolicy.random(2, 2, 3)
    R = np.array([0.1, 0.9, 0.4, 0.7])
    n = 20_000
    y = sample_responses(p, n, 4)
    per = np.array([sampled_gradient(p, R, y[i:i + 1]) for i in range(0, 2000)])   # per-sample spread
    se = per.std(0, ddof=1) / math.sqrt(n)
    mean = sampled_gradient(p, R, y)
    assert np.all(np.abs(mean - exact_gradient(p, R)) <= 5 * se + 1e-12)


def test_one_step_kl_is_fisher_quadratic():
    """KL(π_θ ‖ π_{θ+ηg}) = ½ η² gᵀFg + O(η³)."""
    p = TabularPolicy.random(3, 2, 0)
    R = np.random.default_rng(1).random(9)
    g = exact_gradient(p, R)
    for eta in (0.02, 0.01):
        kl = staleness_kl(run_sgd(p.flat_logits(), R, 3, 2, eta=eta, steps=1, mode="exact"), 1)
        assert math.isclose(kl, fisher_quadratic(p, eta * g), rel_tol=10 * eta)


def test_sampler_kl_and_rounding():
    p = TabularPolicy.random(2, 2, 0)
    R = np.array([0.0, 1.0, 0.5, 0.2])
    err = 0.1 * np.random.default_rng(0).standard_normal(p.n_params)
    tr = run_sgd(p.flat_logits(), R, 2, 2, eta=0.1, steps=5, B=8, logit_error=err, rng=0)
    assert tr.sampler_kl.shape == (5,) and np.all(tr.sampler_kl > 0)
    tr0 = run_sgd(p.flat_logits(), R, 2, 2, eta=0.1, steps=3, B=8, rng=0)
    assert np.all(tr0.sampler_kl == 0)
    # bf16 spacing at 1 is 2^-7: 1 + 2^-8 is a tie (to even: 1.0), 1 + 2^-7 is representable
    x = np.array([1.0, 1.00390625, 1.0078125, 1.001, -3.14159])
    r = bf16_round(x)
    assert r.tolist()[:4] == [1.0, 1.0, 1.0078125, 1.0] and abs(r[4] + 3.140625) < 1e-12
    assert tr.to_dict()["steps"] == 5


def test_reproducible_and_bad_input():
    p = TabularPolicy.random(2, 2, 0)
    R = np.array([0.0, 1.0, 0.5, 0.2])
    a = run_sgd(p.flat_logits(), R, 2, 2, eta=0.1, steps=4, B=4, rng=9)
    b = run_sgd(p.flat_logits(), R, 2, 2, eta=0.1, steps=4, B=4, rng=9)
    np.testing.assert_array_equal(a.thetas, b.thetas)
    with pytest.raises(ValueError, match="eta"):
        run_sgd(p.flat_logits(), R, 2, 2, eta=-0.1, steps=4)
    with pytest.raises(ValueError, match="k \\+ burn_in"):
        staleness_kl(a, 5)
    with pytest.raises(ValueError, match="logit_error"):
        run_sgd(p.flat_logits(), R, 2, 2, eta=0.1, steps=1, logit_error=np.zeros(3))
