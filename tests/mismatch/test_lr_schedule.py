"""The LR-schedule toy (``proofs_check.mismatch.lr_schedule``) and the mutation of its early-warning claim.

Unit tests check each ingredient against a plain reference (the sampler against a per-row
``searchsorted``, the gradients against one-hot counts and a finite difference of the sequence
log-probability, the exact sequence KL against its Monte Carlo twin), the schedules and the
trigger rule on hand-made signals, and bad input.  The mutation feeds the trigger a trendless
random signal and watches ``mismatch.lr_schedule.early_warning`` lose its verdict.
"""
import functools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs_check.engine import Experiment, clear_measurements, get_claim, replace, verify_claim
from proofs_check.mismatch import lr_schedule as lr
from proofs_check.mismatch.lr_schedule import (TAU_FACTOR, TOY_LR, TRIGGER, LRToy, Trigger, cosine_lr,
                                               policy_gradients, reward, run_schedule, sample_responses,
                                               sampler_logits, sequence_kl, sequence_kl_mc, softmax, surge_fires)

SMALL = LRToy(H=32, w=8, steps=20, B=8)


def _random_dists(rng, H, K):
    return softmax(rng.normal(size=(H, K)) * 1.5)


def _sample_reference(p, u, eos):
    """One ``searchsorted`` per position: the plain definition of an inverse-CDF draw."""
    B, H = u.shape
    tokens = np.empty((B, H), dtype=np.int64)
    for t in range(H):
        cdf = np.cumsum(p[t])
        cdf[-1] = 1.0
        tokens[:, t] = np.searchsorted(cdf, u[:, t], side="right")
    lengths = np.full(B, H)
    for i in range(B):
        hit = np.flatnonzero(tokens[i] == eos)
        if hit.size:
            lengths[i] = hit[0] + 1
    return tokens, lengths, lengths < H + (tokens[:, -1] == eos)


@given(st.integers(0, 2 ** 31 - 1))
@settings(max_examples=25, deadline=None)
def test_sampler_matches_searchsorted_reference(seed):
    rng = np.random.default_rng(seed)
    p = _random_dists(rng, 24, 5)
    u = rng.random((6, 24))
    t1, l1, f1 = sample_responses(p, u, 4)
    t2, l2, f2 = _sample_reference(p, u, 4)
    assert np.array_equal(t1, t2) and np.array_equal(l1, l2)
    assert np.array_equal(f1, (t2 == 4).any(axis=1))


def _grad_reference(tokens, lengths, adv, pi_g, toy):
    """One-hot token counts per bucket, the definition ``A (n_g − m_g π_g)``."""
    B, H = tokens.shape
    K = toy.V + 1
    g = np.zeros((B, toy.G, K))
    for i in range(B):
        for t in range(lengths[i]):
            b = t // toy.w
            g[i, b] += adv[i] * (np.eye(K)[tokens[i, t]] - pi_g[b])
    return g


@given(st.integers(0, 2 ** 31 - 1))
@settings(max_examples=20, deadline=None)
def test_policy_gradients_match_one_hot_reference(seed):
    rng = np.random.default_rng(seed)
    th = rng.normal(size=(SMALL.G, SMALL.V + 1))
    pi_g = softmax(th)
    tokens, lengths, _ = sample_responses(np.repeat(pi_g, SMALL.w, axis=0), rng.random((SMALL.B, SMALL.H)), SMALL.V)
    adv = rng.normal(size=SMALL.B)
    assert np.allclose(policy_gradients(tokens, lengths, adv, pi_g, SMALL),
                       _grad_reference(tokens, lengths, adv, pi_g, SMALL), atol=1e-12)


def _log_prob(th, toks, L, toy):
    z = np.repeat(th, toy.w, axis=0)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return sum(logp[t, toks[t]] for t in range(L))


def test_policy_gradient_is_the_score_of_the_sequence():
    """``∇_θ log π(y)`` by central differences equals the per-sequence gradient at ``A = 1``."""
    rng = np.random.default_rng(3)
    th = rng.normal(size=(SMALL.G, SMALL.V + 1))
    tokens, lengths, _ = sample_responses(np.repeat(softmax(th), SMALL.w, axis=0), rng.random((1, SMALL.H)),
                                          SMALL.V)
    g = policy_gradients(tokens, lengths, np.ones(1), softmax(th), SMALL)[0]
    fd = np.zeros_like(th)
    for idx in np.ndindex(th.shape):
        e = np.zeros_like(th)
        e[idx] = 1e-6
        fd[idx] = (_log_prob(th + e, tokens[0], lengths[0], SMALL)
                   - _log_prob(th - e, tokens[0], lengths[0], SMALL)) / 2e-6
    assert np.allclose(g, fd, atol=1e-6)


def test_sequence_kl_exact_matches_monte_carlo():
    rng = np.random.default_rng(7)
    pi = _random_dists(rng, 16, 3)
    mu = softmax(np.log(pi) + 0.3 * rng.normal(size=pi.shape))
    exact = sequence_kl(pi, mu, 2)
    mc = [sequence_kl_mc(pi, mu, 2, rng.random((4000, 16))) for _ in range(5)]
    se = np.std(mc, ddof=1) / math.sqrt(5)
    assert exact > 0
    assert abs(np.mean(mc) - exact) < 4 * se + 1e-3


def test_sequence_kl_is_zero_without_error_and_grows_with_kappa():
    th = lr.init_theta(TOY_LR)
    pi = np.repeat(softmax(th), TOY_LR.w, axis=0)
    exact = LRToy(kappa=0.0, bf16=False)
    assert sequence_kl(pi, softmax(sampler_logits(th, exact)), TOY_LR.V) == 0.0
    kls = [sequence_kl(pi, softmax(sampler_logits(th, LRToy(kappa=k))), TOY_LR.V) for k in (0.0, 1.0, 2.0, 4.0)]
    assert kls[0] > 0          # bf16 rounding alone is a (small) mismatch
    assert all(a < b for a, b in zip(kls, kls[1:]))


def test_reward_counts_zeros_and_zeroes_truncated():
    toy = LRToy(H=8, w=4, c_star=2)
    tokens = np.array([[0, 1, 0, 4, 0, 0, 0, 0],      # two zeros then EOS: r = 1
                       [0, 1, 4, 0, 0, 0, 0, 0],      # one zero then EOS: r = 1/2
                       [0, 0, 0, 0, 0, 0, 0, 0]])     # truncated: r = 0
    lengths = np.array([4, 3, 8])
    finished = np.array([True, True, False])
    assert np.allclose(reward(tokens, lengths, finished, toy), [1.0, 0.5, 0.0])


def test_cosine_endpoints_and_monotone():
    path = cosine_lr(0.2, 0.25, 50)
    assert path[0] == pytest.approx(0.2) and path[-1] == pytest.approx(0.05)
    assert np.all(np.diff(path) <= 1e-15)


def test_surge_rule_on_hand_made_signals():
    trig = Trigger(window=3, rho=0.2, decay=0.5, cooldown=4)
    flat = np.full(20, 10.0)
    assert not any(surge_fires(flat, s, trig, -1) for s in range(20))
    jump = np.r_[np.full(6, 10.0), np.full(14, 13.0)]
    fired = [s for s in range(20) if surge_fires(jump, s, trig, -1)]
    # s = 8: last window (6, 7, 8) = 13 > 1.2 × window (3, 4, 5) = 10; s = 7 gives 12, not > 12
    assert fired and fired[0] == 8
    assert surge_fires(jump, 8, trig, last_fire=3)        # cool-down over (8 − 3 ≥ 4)
    assert not surge_fires(jump, 8, trig, last_fire=5)    # within the cool-down
    assert not surge_fires(jump, 4, trig, -1)           # fewer than 2W steps seen


def test_runs_are_deterministic_and_share_random_numbers():
    a = run_schedule(TOY_LR, 11)
    b = run_schedule(TOY_LR, 11)
    assert np.array_equal(a.mismatch, b.mismatch) and np.array_equal(a.reward, b.reward)
    t = run_schedule(TOY_LR, 11, schedule="triggered")
    first = t.fires[0]
    assert first == a.first_alarm                         # the monitor and the trigger see the same signal
    assert np.array_equal(t.length[:first + 1], a.length[:first + 1])
    assert t.lr[first + 1] == pytest.approx(TRIGGER.decay * TOY_LR.eta)


def test_smaller_step_less_mismatch_on_one_seed():
    big = run_schedule(TOY_LR, 5)
    small = run_schedule(TOY_LR, 5, eta=TOY_LR.eta / 4)
    assert small.mismatch[-1] < big.mismatch[-1]
    assert big.mismatch[-1] > TAU_FACTOR * big.mismatch[0]    # constant η crosses τ on this seed


@pytest.mark.parametrize("kw, match", [({"H": 250, "w": 16}, "w must divide H"), ({"p_eos0": 1.0}, "p_eos0"),
                                       ({"B": 1}, "B must be"), ({"eta": -0.1}, "eta"),
                                       ({"baseline": "mean"}, "baseline")])
def test_bad_toy_parameters(kw, match):
    with pytest.raises(ValueError, match=match):
        LRToy(**kw)


@pytest.mark.parametrize("kw, match", [({"window": 0}, "window"), ({"rho": 0.0}, "rho"), ({"decay": 1.0}, "decay"),
                                       ({"cooldown": -1}, "cooldown"), ({"signal": "reward"}, "signal")])
def test_bad_trigger_parameters(kw, match):
    with pytest.raises(ValueError, match=match):
        Trigger(**kw)


def test_bad_schedule_arguments():
    with pytest.raises(ValueError, match="schedule"):
        run_schedule(SMALL, 0, schedule="linear")
    with pytest.raises(ValueError, match="lr_path"):
        run_schedule(SMALL, 0, schedule="path", lr_path=np.ones(3))
    with pytest.raises(ValueError, match="n must be"):
        lr.sensitivity_table(1)


# --------------------------------------------------------------------------------------------------
# mutation: the trigger wired to a trendless random signal


def monitor_trials(rng, n, *, trigger):
    """The two statistics ``early_failures`` reads, from the constant-η run only (cheaper than the
    full experiment): the monitor's first alarm and the first crossing of ``τ``."""
    out = {"alarm": np.empty(n), "cross": np.empty(n)}
    for i in range(n):
        r = run_schedule(TOY_LR, int(rng.integers(2 ** 31)), schedule="constant", trigger=trigger)
        out["alarm"][i] = r.first_alarm
        out["cross"][i] = lr._crossing(r.mismatch, TAU_FACTOR * r.mismatch[0])
    return out


def _early_warning_with(trigger):
    exp = Experiment(id=f"test.lr_schedule.monitor.{trigger.signal}",
                     fn=functools.partial(monitor_trials, trigger=trigger), chunk_size=4,
                     params={"signal": trigger.signal})
    return replace(get_claim("mismatch.lr_schedule.early_warning"), experiment=exp)


@pytest.fixture
def _fresh():
    clear_measurements()
    yield
    clear_measurements()


@pytest.mark.slow
def test_early_warning_mutation_random_signal_moves_the_verdict(_fresh):
    """Measured (seed 0, 40 seeds): the length trigger fires before the crossing on 40/40 seeds
    (holds at 12); the trendless random signal on 19/40 (p̂ failure 0.525, inconclusive)."""
    normal = verify_claim(_early_warning_with(TRIGGER), budget=40, seed=0, out=None)
    assert normal.verdict == "holds", normal.summary()
    mutant = verify_claim(_early_warning_with(Trigger(signal="random")), budget=40, seed=0, out=None)
    assert mutant.verdict != "holds", mutant.summary()
