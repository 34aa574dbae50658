"""Issue 14 regressions in this topic: OTB under huge IS weights, mixed-type group ids, max-shifted
probabilities, and named refusals instead of NumPy/Python errors from deep inside."""
import numpy as np
import pytest

from proofs_check import logits as lg
from proofs_check.baselines import (group_mean_advantage, linear_model_mp, mean_interval,
                                    optimal_token_baseline_advantage, otb_advantage_loop,
                                    otb_advantage_numpy, population_baselines, ragged_batch, rloo_advantage)
from proofs_check.baselines.otb import exp_nonpositive

IMPLS = (optimal_token_baseline_advantage, otb_advantage_numpy, otb_advantage_loop)


def _batch():
    r = np.array([[0.0, 1.0, 0.5, 0.0], [1.0, 0.0, 0.0, 2.0], [0.3, 0.0, 1.0, 0.0]])
    m = np.array([[1, 1, 1, 1], [1, 1, 1, 0], [1, 1, 0, 0]], dtype=float)
    lp = np.log(np.array([[0.5] * 4, [0.25] * 4, [0.3] * 4]))
    spp = np.array([[0.5] * 4, [0.25] * 4, [0.4] * 4])
    return r, m, np.zeros(3, dtype=int), lp, spp


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("c", [1.4e154, 1e160, 1e250, 8e307])
def test_otb_huge_is_weights_are_scale_invariant_not_nan(impl, c):
    """Old code: ρ̄² overflows at ρ̄ ≥ 1.34e154 → NaN advantages (kernel, NumPy) or OverflowError (loop).
    With ε = 0 the baseline is invariant to a common IS weight, so the answer is the ρ̄ = 1 one."""
    r, m, g, lp, spp = _batch()
    isw = np.ones_like(r)
    isw[1] = 2.0
    ref, G = impl(r, m, g, lp, spp, is_weights=isw, eps=0.0)
    A, G2 = impl(r, m, g, lp, spp, is_weights=isw * c, eps=0.0)
    assert np.all(np.isfinite(A))
    np.testing.assert_allclose(A, ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(G2, G)


@pytest.mark.parametrize("impl", IMPLS)
def test_otb_row_sums_past_float_max(impl):
    """ρ̄ = 1e154 keeps each ρ̄² finite (1e308) but W_t = Σ_j w_j ρ̄_j² passes 1.8e308 (old: inf/NaN)."""
    r, m, g, lp, spp = _batch()
    ref, _ = impl(r, m, g, lp, spp, is_weights=np.ones_like(r), eps=0.0)
    A, _ = impl(r, m, g, lp, spp, is_weights=np.full(r.shape, 1e154), eps=0.0)
    np.testing.assert_allclose(A, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("impl", IMPLS)
def test_otb_mixed_huge_and_small_weights_agree(impl):
    """One member with huge weights, masked at the last positions: the others still set B_t there."""
    r, m, g, lp, spp = _batch()
    isw = np.ones_like(r)
    isw[2, :2] = 1e200                      # row 2 is masked from position 2 on
    A = impl(r, m, g, lp, spp, is_weights=isw, eps=0.0)[0]
    ref = otb_advantage_loop(r, m, g, lp, spp, is_weights=isw, eps=0.0)[0]
    assert np.all(np.isfinite(A))
    np.testing.assert_allclose(A, ref, rtol=1e-12, atol=1e-12)
    # positions 2, 3: row 2 is dead, so B is the ρ̄ = 1 baseline of rows 0 and 1
    ref1 = impl(r[:2], m[:2], g[:2], lp[:2], spp[:2], eps=0.0)[0]
    np.testing.assert_allclose(A[:2, 2:], ref1[:, 2:], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("impl", IMPLS)
def test_otb_scaled_path_matches_on_random_batches(impl):
    g = np.random.default_rng(14)
    for _ in range(5):
        r, m, gid, lp, spp, isw = ragged_batch(g, N=10, L=8)
        ref = impl(r, m, gid, lp, spp, is_weights=isw, eps=0.0)[0]
        A = impl(r, m, gid, lp, spp, is_weights=isw * 2.0 ** 600, eps=0.0)[0]
        np.testing.assert_allclose(A, ref, rtol=1e-11, atol=1e-11)


@pytest.mark.parametrize("impl", IMPLS)
def test_otb_refuses_an_overflowing_reward_to_go(impl):
    r, m, g, lp, spp = _batch()
    r[0, :2] = 1.5e308
    with pytest.raises(ValueError, match="token_rewards"):
        impl(r, m, g, lp, spp)


@pytest.mark.parametrize("gid", [[0, "a", 0], np.array([0, "a", 0], dtype=object)])
@pytest.mark.parametrize("fn", IMPLS + (group_mean_advantage, rloo_advantage))
def test_mixed_type_group_ids_are_named(fn, gid):
    """Old: np.unique raised "'<' not supported between instances of 'str' and 'int'" (no argument)."""
    r, m, _, lp, spp = _batch()
    args = (r, m, gid) if fn in (group_mean_advantage, rloo_advantage) else (r, m, gid, lp, spp)
    with pytest.raises(TypeError, match="group_ids"):
        fn(*args)


@pytest.mark.parametrize("scale", [1e10, 1e16, 1e300])
def test_probabilities_are_max_shifted(scale):
    z = np.array([[1.0, 0.0, -1.0], [3.0, 2.0, 2.0]]) * scale
    p = lg.softmax(z)
    np.testing.assert_allclose(p.sum(axis=-1), 1.0, rtol=0, atol=4e-16)
    assert np.all(np.isfinite(lg.sum_pi_squared(z))) and np.all(lg.kl_divergence(z, z[::-1]) >= 0)


def test_named_refusals():
    with pytest.raises(ValueError, match="logits_q"):          # old: named "logits"
        lg.kl_divergence([0.0, 1.0], [np.nan, 1.0])
    with pytest.raises(ValueError, match="logits"):            # 0-d: old IndexError
        lg.logit_gradient_energy(np.array(1.0), np.array(0))
    with pytest.raises(ValueError, match="order"):              # old: "truth value ... ambiguous"
        lg.breaking_step_size([0.0, 1.0], 0, 1.0, order=np.array([1, 2]))
    with pytest.raises(TypeError, match="dps"):
        lg.softmax_mp([0.0, 1.0], dps=np.array([]))
    with pytest.raises(TypeError, match="features|theta"):      # old: "'float' object is not iterable"
        linear_model_mp(np.array([0.5]), None, 2, 1)
    with pytest.raises(TypeError, match="model"):               # old: AttributeError
        population_baselines(None)
    with pytest.raises(ValueError, match="x"):
        exp_nonpositive(np.array([np.nan]))                     # old: NaN returned
    assert mean_interval([2.0]) == (2.0, -np.inf, np.inf)       # old: NaN bounds
