import numpy as np
import pytest
from scipy import stats

from proofs_check.baselines import (TOY_KINDS, CountTask, advantages, diff_interval, exact_return,
                                    gradient_variance, gradient_variance_estimate, mean_interval,
                                    policy_gradient, sample_batch, sweep_summary, train)
from proofs_check.baselines.toy_sweeps import final_difference, gradient_trials, pair_trials, sweep_trials


def test_exact_return_against_monte_carlo():
    task = CountTask(V=3, T=12, n_prompts=2, threshold=5)
    g = np.random.default_rng(5)
    theta = g.normal(size=(task.n_states, task.V))
    J = exact_return(theta, task)
    n = 40_000
    b = sample_batch(theta, task, np.repeat([0, 1], n // 2), g)
    k = int(b["reward"].sum())
    ci = stats.binomtest(k, n).proportion_ci(0.999)  # false-alarm rate 1e-3
    assert ci.low <= J <= ci.high


def test_exact_return_closed_form_uniform():
    task = CountTask(V=2, T=10, n_prompts=1, threshold=7)
    J = exact_return(np.zeros((task.n_states, 2)), task)
    assert J == pytest.approx(stats.binom.sf(6, 10, 0.5), abs=1e-15)


def test_policy_gradient_is_unbiased_for_exact_gradient():
    """'none' baseline: the mean of ĝ over 3000 batches matches the finite-difference ∇J (5 SE)."""
    task = CountTask(V=2, T=6, n_prompts=1, threshold=4)
    g = np.random.default_rng(1)
    theta = 0.3 * g.normal(size=(task.n_states, 2))
    h = 1e-6
    fd = np.zeros_like(theta)
    for idx in np.ndindex(*theta.shape):
        e = np.zeros_like(theta)
        e[idx] = h
        fd[idx] = (exact_return(theta + e, task) - exact_return(theta - e, task)) / (2 * h)
    reps = 3000
    G = np.empty((reps, theta.size))
    for j in range(reps):
        b = sample_batch(theta, task, np.zeros(8, dtype=int), g)
        G[j] = policy_gradient(b, advantages("none", b, np.zeros(8)), task.n_states).ravel()
    se = G.std(axis=0, ddof=1) / np.sqrt(reps)
    assert np.all(np.abs(G.mean(axis=0) - fd.ravel()) <= 5 * se + 1e-9)


def test_train_deterministic_and_budget():
    task = CountTask(V=3, T=8, n_prompts=2, threshold=4)
    a = train(task, "otb", 4, steps=5, batch=8, seed=3, eval_every=2)
    b = train(task, "otb", 4, steps=5, batch=8, seed=3, eval_every=2)
    np.testing.assert_array_equal(a.returns, b.returns)
    assert a.tokens[-1] == 5 * 8 * 8 and list(a.steps) == [0, 2, 4, 5]
    assert len(a.grad_norms) == 5 and set(a.to_dict()) >= {"returns", "grad_norms"}
    with pytest.raises(ValueError, match="multiple"):
        train(task, "mean", 3, steps=1, batch=8)
    with pytest.raises(ValueError, match="kind"):
        train(task, "median", 2, steps=1, batch=8)


def test_sweep_and_variance_shapes():
    task = CountTask(V=3, T=8, n_prompts=2, threshold=4)
    st = sweep_trials(np.random.default_rng(0), 2, task=task, kinds=("mean", "otb"), Ns=(2, 4), steps=3, batch=8,
                      lr=0.5, eval_every=2)
    s = sweep_summary(st, kinds=("mean", "otb"), Ns=(2, 4))
    assert set(s["final"]) == {"mean/2", "mean/4", "otb/2", "otb/4"}
    assert st["returns/otb/4"].shape == (2, 3) and st["grad_norms/mean/2"].shape == (2, 3)
    m, lo, hi = s["final_mean_lo_hi"]["otb/4"]
    ref = stats.ttest_1samp(s["final"]["otb/4"], 0.0).confidence_interval(0.95)
    assert m == pytest.approx(np.mean(s["final"]["otb/4"]), abs=1e-15)
    assert (lo, hi) == pytest.approx((ref.low, ref.high), abs=1e-12)
    v, se = gradient_variance(np.zeros((task.n_states, 3)), task, "otb", 4, batch=8, reps=20, rng=0)
    assert v > 0 and se > 0


def test_sweep_uses_common_seeds_across_kinds_and_matches_train():
    """Trial i of N trains every kind from one seed drawn in the order of Ns; pairs use two fresh seeds."""
    task = CountTask(V=3, T=8, n_prompts=2, threshold=4)
    st = sweep_trials(np.random.default_rng(5), 2, task=task, kinds=("mean", "none"), Ns=(2, 4), steps=3,
                      batch=8, lr=0.5, eval_every=3)
    seeds = np.random.default_rng(5).integers(0, 2 ** 31, size=(2, 2))
    for i in range(2):
        for j, N in enumerate((2, 4)):
            for kind in ("mean", "none"):
                r = train(task, kind, N, steps=3, batch=8, lr=0.5, seed=int(seeds[i, j]), eval_every=3)
                assert st[f"final/{kind}/{N}"][i] == r.final_return
    pt = pair_trials(np.random.default_rng(6), 2, task=task, a=("otb", 2), b=("mean", 4), steps=3, batch=8,
                     lr=0.5, eval_every=3)
    g = np.random.default_rng(6)
    s0 = [int(x) for x in g.integers(0, 2 ** 31, 2)]
    assert pt["final/otb/2"][0] == train(task, "otb", 2, steps=3, batch=8, lr=0.5, seed=s0[0]).final_return
    assert pt["final/mean/4"][0] == train(task, "mean", 4, steps=3, batch=8, lr=0.5, seed=s0[1]).final_return
    d = final_difference(pt, a="otb/2", b="mean/4")
    np.testing.assert_array_equal(d, np.asarray(pt["final/otb/2"]) - np.asarray(pt["final/mean/4"]))


def test_gradient_trials_share_one_batch_across_kinds():
    task = CountTask(V=3, T=8, n_prompts=2, threshold=4)
    gt = gradient_trials(np.random.default_rng(1), 30, task=task, kinds=("none", "otb"), Ns=(4,), batch=8)
    assert gt["otb/4"].shape == (30, task.n_states * task.V)
    v, se = gradient_variance_estimate(gt["none/4"])
    assert v > 0 and se > 0
    # the same generator, one kind at a time: gradient_variance draws the same batches
    v1, _ = gradient_variance(task.initial_theta(), task, "none", 4, batch=8, reps=30, rng=np.random.default_rng(1))
    assert v1 == pytest.approx(v, rel=1e-12)


def test_intervals_match_scipy():
    """Student-t and Welch intervals against SciPy's (independent implementations)."""
    g = np.random.default_rng(3)
    x, y = g.normal(0.3, 1.0, 7), g.normal(0.0, 2.5, 12)
    for level in (0.9, 0.95, 0.99):
        m, lo, hi = mean_interval(x, level)
        ref = stats.ttest_1samp(x, 0.0).confidence_interval(level)
        assert (m, lo, hi) == pytest.approx((x.mean(), ref.low, ref.high), abs=1e-12)
        d, lo, hi = diff_interval(x, y, level)
        ref = stats.ttest_ind(x, y, equal_var=False).confidence_interval(level)
        assert (d, lo, hi) == pytest.approx((x.mean() - y.mean(), ref.low, ref.high), abs=1e-12)
    assert diff_interval([1.0, 1.0], [0.0, 0.0]) == (1.0, 1.0, 1.0)  # zero spread: a point
    m, lo, hi = mean_interval([2.0])  # zero degrees of freedom: the whole line, not NaN (issue 14)
    assert (m, lo, hi) == (2.0, -np.inf, np.inf)
    assert set(TOY_KINDS) == {"none", "mean", "rloo", "global_bstar", "otb"}


def test_task_validation():
    with pytest.raises(ValueError):
        CountTask(V=3, T=5, n_prompts=4)
    with pytest.raises(ValueError):
        CountTask(V=3, T=5, threshold=6)


def test_eos_variant_exact_return_and_masks():
    task = CountTask(V=3, T=10, n_prompts=2, threshold=3, eos=True, eos_logit=-1.0)
    g = np.random.default_rng(8)
    theta = task.initial_theta() + 0.3 * g.normal(size=(task.n_states, 3))
    J = exact_return(theta, task)
    n = 40_000
    b = sample_batch(theta, task, np.repeat([0, 1], n // 2), g)
    ci = stats.binomtest(int(b["reward"].sum()), n).proportion_ci(0.999)  # false-alarm rate 1e-3
    assert ci.low <= J <= ci.high
    m = b["mask"]
    # the mask is a prefix ending at the first EOS (inclusive) or at T
    assert np.all(np.diff(m, axis=1) <= 0)
    first_eos = np.argmax(b["tokens"] == task.eos_token, axis=1)
    has_eos = (b["tokens"] == task.eos_token).any(axis=1)
    np.testing.assert_array_equal(b["lengths"][has_eos], first_eos[has_eos] + 1)
    assert np.all(b["lengths"][~has_eos] == task.T)
    small = {k: (v[:64] if isinstance(v, np.ndarray) else v) for k, v in b.items()}
    gid = np.repeat(np.arange(16), 4)
    for kind in TOY_KINDS:
        A = advantages(kind, small, gid)
        assert np.all(A[small["mask"] == 0] == 0)
        # at t = 0 the reward-to-go is R for every baseline, so A_0 = R − B_0
        if kind == "none":
            np.testing.assert_array_equal(A[:, 0], small["reward"])
    with pytest.raises(ValueError, match="eos_logit"):
        CountTask(eos=False, eos_logit=-1.0)
    with pytest.raises(ValueError):
        CountTask(V=3, n_prompts=3, eos=True)
