import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from proofs_check.logits import (approximation_errors, breaking_step_size, first_order_logprob_change,
                                 kl_after_update, kl_divergence, log_softmax, logit_gradient_energy,
                                 logit_gradient_energy_mp, logit_update, logit_update_norm, logprob_change,
                                 second_order_kl, softmax, softmax_score, sum_pi_squared, sum_pi_squared_mp)


def mp_energy(z, a, dps=60):
    """The mpmath versions (definitions at ``dps`` digits) of the energy and of ``Σp²``."""
    return logit_gradient_energy_mp(z, a, dps=dps), sum_pi_squared_mp(z, dps=dps)


def test_uniform_exact_values():
    for V in (2, 3, 10, 1000):
        z = np.zeros(V)
        assert sum_pi_squared(z) == pytest.approx(1 / V, abs=1e-15)
        assert logit_gradient_energy(z[None], np.array([0]))[0] == pytest.approx(1 - 1 / V, abs=1e-13)


def test_energy_zero_iff_certain():
    z = np.array([0.0, -1e4, -1e4])
    assert logit_gradient_energy(z[None], np.array([0]))[0] == 0.0
    assert logit_gradient_energy(z[None], np.array([1]))[0] == pytest.approx(2.0, abs=1e-15)


@settings(max_examples=60)
@given(V=st.integers(2, 40), scale=st.floats(1e-3, 1e4), seed=st.integers(0, 2 ** 31))
def test_energy_and_collision_against_mpmath(V, scale, seed):
    g = np.random.default_rng(seed)
    z = g.standard_normal(V) * scale
    a = int(g.integers(V))
    e_ref, s_ref = mp_energy(z, a)
    assert abs(logit_gradient_energy(z[None], np.array([a]))[0] - e_ref) <= 1e-12
    assert abs(sum_pi_squared(z) - s_ref) <= 1e-12
    s = softmax_score(z, a)
    assert abs(np.sum(s * s) - e_ref) <= 1e-12
    assert abs(np.sum(s)) <= 1e-12


@pytest.mark.parametrize("scale", [1.0, 1e2, 1e4])
def test_extreme_logits_large_vocabulary(rng, scale):
    V = 100_000
    with np.errstate(over="raise", invalid="raise"):
        z = rng.uniform(-scale, scale, (2, V))
        a = rng.integers(0, V, 2)
        e = logit_gradient_energy(z, a)
        s2 = sum_pi_squared(z)
    p = softmax(z)
    direct = np.sum(p * p, axis=1)
    assert np.all(np.isfinite(e)) and np.all(np.abs(s2 - direct) <= 1e-12)
    sc = softmax_score(z, a)
    assert np.all(np.abs(np.sum(sc * sc, axis=1) - e) <= 1e-12)
    # one dominant logit z_7 = 30, the rest 0: p_b = 1/(e^30 + V − 1) for b ≠ 7, 1 − p_7 = (V − 1) p_b,
    # energy = (1 − p_7)² + (V − 1) p_b² ≈ 8.8e-17 — representable, far below one ulp of 1, so the
    # cancelling form 1 − 2p_7 + Σp² (error ~1e-16) cannot meet this relative tolerance
    z = np.zeros(V)
    z[7] = 30.0
    with mpmath.workdps(50):
        pb = 1 / (mpmath.exp(30) + (V - 1))
        ref_a = float(((V - 1) * pb) ** 2 + (V - 1) * pb ** 2)
        p7 = 1 - (V - 1) * pb
        ref_b = float((1 - pb) ** 2 + p7 ** 2 + (V - 2) * pb ** 2)  # a non-dominant token
    assert logit_gradient_energy(z[None], np.array([7]))[0] == pytest.approx(ref_a, rel=1e-12)
    assert 5e-17 < ref_a < 1e-16
    assert logit_gradient_energy(z[None], np.array([8]))[0] == pytest.approx(ref_b, rel=1e-14)


def test_energy_accurate_when_pa_near_one():
    # 1 − p_a ≈ 1e-10: the naive 1 − 2p_a + Σp² loses everything; ours keeps relative accuracy
    z = np.array([0.0, -np.log(1e10)])
    e = logit_gradient_energy(z[None], np.array([0]))[0]
    ref, _ = mp_energy(z, 0, dps=80)
    assert e == pytest.approx(ref, rel=1e-10)


def test_logit_update_and_norm(rng):
    for _ in range(20):
        V = int(rng.integers(2, 50))
        z = rng.standard_normal(V) * 3
        a = int(rng.integers(V))
        A, eta = rng.uniform(-2, 2), rng.uniform(0.01, 2)
        dz = logit_update(z, a, A, eta=eta)
        p = softmax(z)
        expect = -eta * A * p
        expect[a] += eta * A
        assert np.allclose(dz, expect, atol=1e-14)
        assert abs(dz.sum()) < 1e-13
        assert np.linalg.norm(dz) == pytest.approx(float(logit_update_norm(z, a, A, eta=eta)), rel=1e-12)
    # batched with broadcast advantage
    z = rng.standard_normal((4, 5, 6))
    a = rng.integers(0, 6, (4, 5))
    assert logit_update(z, a, 1.0, eta=0.1).shape == (4, 5, 6)
    assert logit_update_norm(z, a, np.ones((4, 5)), eta=0.1).shape == (4, 5)


def test_confident_policies_make_small_updates():
    z_conf = np.array([10.0, 0.0, 0.0])
    z_flat = np.zeros(3)
    n_conf = logit_update_norm(z_conf, 0, 1.0, eta=1.0)
    n_flat = logit_update_norm(z_flat, 0, 1.0, eta=1.0)
    n_rare = logit_update_norm(z_conf, 1, 1.0, eta=1.0)
    assert n_conf < 1e-3 < n_flat < n_rare


def test_first_order_is_second_order_accurate(rng):
    z = rng.standard_normal(6)
    a = 2
    errs = []
    for eta in (1e-3, 1e-4):
        exact = logprob_change(z, logit_update(z, a, 1.0, eta=eta))
        approx = first_order_logprob_change(z, a, 1.0, eta=eta)
        errs.append(np.max(np.abs(exact - approx)))
    assert 80 < errs[0] / errs[1] < 120  # O(η²)


def test_kl_after_update_matches_mpmath_and_quadratic(rng):
    z = rng.standard_normal(5)
    for eta in (1e-6, 1e-2, 1.0, 30.0):
        dz = logit_update(z, 1, 1.0, eta=eta)
        with mpmath.workdps(60):
            p = [mpmath.exp(mpmath.mpf(float(v))) for v in z]
            S = mpmath.fsum(p)
            p = [x / S for x in p]
            q = [mpmath.exp(mpmath.mpf(float(v)) + mpmath.mpf(float(d))) for v, d in zip(z, dz)]
            S = mpmath.fsum(q)
            q = [x / S for x in q]
            ref = float(mpmath.fsum(pi * mpmath.log(pi / qi) for pi, qi in zip(p, q)))
        assert float(kl_after_update(z, dz)) == pytest.approx(ref, rel=1e-12)
        if eta <= 1e-2:
            assert float(second_order_kl(z, dz)) == pytest.approx(ref, rel=50 * eta)
    assert float(kl_divergence(z, z + 3.0)) == pytest.approx(0.0, abs=1e-15)  # shift invariance


def test_approximation_errors_and_breaking_step(rng):
    z = rng.standard_normal(8) * 2
    e = approximation_errors(z, 3, 1.0, np.geomspace(1e-4, 1.0, 9))
    assert np.all(np.diff(e["first_order"][:6]) > 0)
    eta1 = breaking_step_size(z, 3, 1.0, order=1, tol=1e-4)
    eta2 = breaking_step_size(z, 3, 1.0, order=1, tol=1e-6)
    assert 5 < eta1 / eta2 < 15  # η_break ∝ tol^{1/2}
    err_at = approximation_errors(z, 3, 1.0, np.array([eta1 * 1.001, eta1 * 0.999]))["first_order"]
    assert err_at[0] > 1e-4 >= err_at[1]
    assert breaking_step_size(np.zeros(2), 0, 1.0, order=2, tol=10.0, eta_hi=1.0) == float("inf")


def test_log_softmax_stable():
    z = np.array([1e300, 0.0, -1e300])
    lp = log_softmax(z / 1e1)
    assert np.isfinite(lp[:2]).all()


@pytest.mark.parametrize("bad, exc", [
    (dict(logits=np.array([0.0, np.nan]), actions=np.array(0)), ValueError),
    (dict(logits=np.array([0.0, np.inf]), actions=np.array(0)), ValueError),
    (dict(logits=np.zeros(3), actions=np.array(3)), ValueError),
    (dict(logits=np.zeros(3), actions=np.array(-1)), ValueError),
    (dict(logits=np.zeros(3), actions=np.array(0.5)), TypeError),
    (dict(logits=np.zeros((2, 3)), actions=np.array([0, 1, 2])), ValueError),
])
def test_bad_inputs(bad, exc):
    with pytest.raises(exc):
        logit_gradient_energy(bad["logits"], bad["actions"])
    with pytest.raises(exc):
        softmax_score(bad["logits"], bad["actions"])


def test_bad_step_and_advantage():
    with pytest.raises(ValueError, match="eta"):
        logit_update(np.zeros(3), 0, 1.0, eta=0.0)
    with pytest.raises(ValueError, match="advantage"):
        logit_update(np.zeros(3), 0, np.nan, eta=1.0)
    with pytest.raises(ValueError, match="order"):
        breaking_step_size(np.zeros(3), 0, 1.0, order=3)
    with pytest.raises(ValueError):
        sum_pi_squared(np.zeros((2, 0)))
