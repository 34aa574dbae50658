import numpy as np
import pytest

from proofs_check.baselines.dapo import (discounted_reward_to_go, kl_gradient_complex_step, kl_gradient_reward_to_go,
                               per_decision_is_check, trajectory_kl, trajectory_kl_chain,
                               transcribed_accumulation, truncated_is_accumulation)
from proofs_check.policies import TabularPolicy


def test_spec_example():
    reg = [1, 10, 100, 1000]
    np.testing.assert_array_equal(transcribed_accumulation(reg, gamma=0.5), [426, 760, 600, 1000])
    np.testing.assert_array_equal(truncated_is_accumulation(reg, gamma=0.5)[0], [156, 310, 600, 1000])
    np.testing.assert_array_equal(discounted_reward_to_go(reg, gamma=0.5), [156, 310, 600, 1000])


def test_truncation_caps_ratios():
    reg = np.array([1.0, 1.0, 1.0])
    rho = np.array([5.0, 5.0, 5.0])
    D, V = truncated_is_accumulation(reg, rho, gamma=1.0, rho_bar=1.0, c_bar=1.0)
    np.testing.assert_allclose(D, [3.0, 2.0, 1.0])
    D2, _ = truncated_is_accumulation(reg, rho, gamma=1.0)
    np.testing.assert_allclose(D2, [1 + 5 + 25, 1 + 5, 1.0])


def test_chain_rule_and_gradient(rng):
    for _ in range(3):
        pi, mu = TabularPolicy.random(2, 3, rng, scale=1.5), TabularPolicy.random(2, 3, rng, scale=1.5)
        assert trajectory_kl(pi, mu) == pytest.approx(trajectory_kl_chain(pi, mu), rel=1e-13)
        assert trajectory_kl(pi, pi) == pytest.approx(0.0, abs=1e-15)
        a, b = kl_gradient_reward_to_go(pi, mu), kl_gradient_complex_step(pi, mu)
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, atol=1e-13)


def test_gradient_form_needs_the_reward_to_go(rng):
    """Negative control: using only the current step's log-ratio (no accumulation) is wrong."""
    pi, mu = TabularPolicy.random(2, 3, rng, scale=1.5), TabularPolicy.random(2, 3, rng, scale=1.5)
    from proofs_check.baselines import exact_model
    from proofs_check.baselines.dapo import _per_step_log_ratio
    m = exact_model(pi, np.zeros(8))
    wrong = m.mean_gradient(_per_step_log_ratio(pi, mu))
    right = kl_gradient_complex_step(pi, mu)
    assert max(np.abs(x - y).max() for x, y in zip(wrong, right)) > 1e-3


def test_per_decision_is(rng):
    pi, mu = TabularPolicy.random(2, 4, rng), TabularPolicy.random(2, 4, rng)
    reg = [rng.normal(size=(2 ** t, 2)) for t in range(4)]
    est, target = per_decision_is_check(pi, mu, reg, gamma=0.9)
    assert est == pytest.approx(target, rel=1e-12, abs=1e-14)
    est_t, _ = per_decision_is_check(pi, mu, reg, gamma=0.9, recursion="transcribed")
    assert abs(est_t - target) > 1e-3


def test_bad_inputs():
    with pytest.raises(ValueError, match="rho"):
        truncated_is_accumulation([1.0, 2.0], [1.0, -1.0], gamma=0.5)
    with pytest.raises(ValueError, match="gamma"):
        truncated_is_accumulation([1.0], gamma=1.5)
    with pytest.raises(ValueError, match="reg"):
        transcribed_accumulation([], gamma=0.5)
    with pytest.raises(ValueError):
        discounted_reward_to_go([np.nan], gamma=0.5)
    with pytest.raises(TypeError):
        trajectory_kl("pi", "mu")
