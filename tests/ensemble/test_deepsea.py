"""DeepSea(N), the tabular deep-exploration agents and the study's censoring rules
(theory ``docs/theory/ensemble.md#deep-sea``)."""
import itertools
import math

import numpy as np
import pytest

from seqproj.ensemble import (DeepSea, HyperAgent, budget, clark_max, episodes_to_solve, fit_exponent,
                              hyper_closed_form, make_agent, optimal_return, rlsvi_row_posterior,
                              run_deep_sea)
from seqproj.ensemble.deep_exploration import factor_events
from seqproj.ensemble.deep_kernels import (hyper_backward, hyper_sgd_sweep, hyper_sgd_sweep_ref,
                                           ridge_backward, ridge_backward_ref)
from seqproj.ensemble.deepsea import MOVE_COST, deep_sea_step


# ----------------------------------------------------------------------------- environment

def _play(env, policy):
    env.reset()
    total = np.zeros(env.batch)
    for h in range(env.N):
        r, _ = env.step(policy(h, env.col))
        total += r
    return total


def test_optimal_return_deterministic():
    env = DeepSea(7, batch=5, rng=1)
    ret = _play(env, lambda h, col: env.right_action(h, col))
    assert np.allclose(ret, optimal_return(7)) and np.allclose(ret, 1 - MOVE_COST)
    assert env.treasure.all() and env.found.all() and np.all(env.col == 6)


def test_optimal_return_stochastic_monte_carlo():
    N, B = 5, 4000
    env = DeepSea(N, batch=B, rng=2, stochastic=True)
    ret = _play(env, lambda h, col: env.right_action(h, col))
    p = (1 - 1 / N) ** (N - 1)
    assert abs(env.treasure.mean() - p) < 4 * math.sqrt(p * (1 - p) / B)
    # noise N(0, 1) at the bottom ends: the mean return matches within 4 SE
    assert abs(ret.mean() - optimal_return(N, stochastic=True)) < 4 * ret.std() / math.sqrt(B)


def test_reward_only_at_the_corner_every_action_sequence():
    N = 4
    env = DeepSea(N, batch=1, rng=3)
    for seq in itertools.product((0, 1), repeat=N):
        env.reset()
        total, n_right = 0.0, 0
        for h, a in enumerate(seq):
            right = int(env.right_action(h, env.col)[0]) == a
            n_right += right
            r, _ = env.step(np.array([a]))
            total += r[0]
        all_right = n_right == N
        assert env.treasure[0] == all_right
        assert math.isclose(total, all_right - n_right * MOVE_COST / N, abs_tol=1e-12)


def test_action_mapping_fixed_per_instance_and_seeded():
    a = DeepSea(6, batch=4, rng=11)
    b = DeepSea(6, batch=4, rng=11)
    assert np.array_equal(a.mapping, b.mapping)
    m0 = a.mapping.copy()
    _play(a, lambda h, col: np.zeros(4, dtype=int))
    assert np.array_equal(a.mapping, m0)                     # fixed across episodes
    assert not np.array_equal(a.mapping[0], a.mapping[1])    # differs across instances
    assert np.all(DeepSea(6, batch=2, rng=0, randomize_actions=False).mapping == 1)


@pytest.mark.parametrize("stochastic", [False, True])
def test_batch_equals_loop(stochastic):
    N, B = 6, 5
    g = np.random.default_rng(4)
    mapping = g.integers(0, 2, size=(B, N, N))
    acts = g.integers(0, 2, size=(N, B))
    u, noise = g.random((N, B)), g.standard_normal((N, B))
    col = np.zeros(B, dtype=np.int64)
    cols1 = [col.copy()]
    rews = []
    for h in range(N):
        r, col, _, _ = deep_sea_step(h, col, acts[h], mapping, N=N, stochastic=stochastic,
                                     u=u[h], noise=noise[h])
        cols1.append(col.copy())
        rews.append(r)
    for b in range(B):
        c = np.zeros(1, dtype=np.int64)
        for h in range(N):
            r, c, _, _ = deep_sea_step(h, c, acts[h, b:b + 1], mapping[b:b + 1], N=N,
                                       stochastic=stochastic, u=u[h, b:b + 1],
                                       noise=noise[h, b:b + 1])
            assert c[0] == cols1[h + 1][b] and r[0] == rews[h][b]


def test_bad_input():
    with pytest.raises(ValueError, match="N"):
        DeepSea(1, rng=0)
    env = DeepSea(3, batch=2, rng=0)
    with pytest.raises(ValueError, match="action"):
        env.step(np.array([0, 2]))
    with pytest.raises(ValueError, match="found"):
        episodes_to_solve(np.array([[0.0, 0.5]]))


# ----------------------------------------------------------------------------- agents

def _random_data(N=4, B=2, M=3, episodes=40, seed=0):
    g = np.random.default_rng(seed)
    env = DeepSea(N, batch=B, rng=g)
    ag = HyperAgent(N, M, batch=B, rng=g, noise_sd=0.1)
    for _ in range(episodes):
        col = env.reset()
        for h in range(N):
            a = g.integers(0, 2, B)
            r, nxt = env.step(a)
            ag.observe(h, col, a, r, nxt)
            col = nxt
    return ag, g


def test_clark_max_against_monte_carlo():
    g = np.random.default_rng(5)
    mu1, mu2 = np.array([0.3, -1.0]), np.array([0.1, 2.0])
    a1, a2 = g.standard_normal((2, 4)), g.standard_normal((2, 4))
    m, gg = clark_max(mu1, mu2, a1, a2)
    xi = g.standard_normal((100_000, 4))
    X = np.maximum(mu1 + xi @ a1.T, mu2 + xi @ a2.T)
    assert np.allclose(m, X.mean(0), atol=4 * X.std(0).max() / math.sqrt(1e5))
    assert np.allclose(gg, (X[:, :, None] * xi[:, None, :]).mean(0), atol=0.04)


def test_kernels_equal_numpy_references():
    ag, g = _random_data()
    s0, sig = 1.0, 0.1
    mu, A = hyper_closed_form(ag.n, ag.R, ag.C, ag.Z, ag.A0, prior_var=s0, noise_sd=sig)
    mu2, A2 = np.zeros_like(mu), np.zeros_like(A)
    hyper_backward(ag.n, ag.R, ag.C, ag.A0 / s0 + ag.Z / sig, s0, sig, mu2, A2)
    assert np.allclose(mu, mu2, atol=1e-13) and np.allclose(A, A2, atol=1e-13)
    q0, G = g.standard_normal(ag.n.shape), g.standard_normal(ag.n.shape)
    Q = ridge_backward(ag.n, ag.R, ag.C, q0, G, s0, sig, np.empty_like(ag.n))
    assert np.allclose(Q, ridge_backward_ref(ag.n, ag.R, ag.C, q0, G, s0, sig), atol=1e-13)
    half = g.standard_normal((ag.N, 2, ag.B, 4, ag.M))
    Xi = np.concatenate([half, -half], axis=3)
    m3, a3 = np.zeros_like(mu), ag.A0.copy()
    m4, a4 = m3.copy(), a3.copy()
    hyper_sgd_sweep(ag.n, ag.R, ag.C, ag.Z, ag.A0, s0, sig, 0.3, Xi, m3, a3)
    hyper_sgd_sweep_ref(ag.n, ag.R, ag.C, ag.Z, ag.A0, s0, sig, 0.3, Xi, m4, a4)
    assert np.allclose(m3, m4, atol=1e-13) and np.allclose(a3, a4, atol=1e-13)


def test_sgd_converges_to_closed_form():
    """The SGD sweep (sampled mirrored indices, Polyak average) reaches the closed form."""
    ag, g = _random_data()
    s0, sig = 1.0, 0.1
    mu, A = hyper_closed_form(ag.n, ag.R, ag.C, ag.Z, ag.A0, prior_var=s0, noise_sd=sig)
    m, a = np.zeros_like(mu), ag.A0.copy()
    ms, As = np.zeros_like(mu), np.zeros_like(A)
    for it in range(240):
        half = g.standard_normal((ag.N, 1, ag.B, 32, ag.M))
        hyper_sgd_sweep(ag.n, ag.R, ag.C, ag.Z, ag.A0, s0, sig, 0.3,
                        np.concatenate([half, -half], axis=3), m, a)
        if it >= 120:
            ms += m / 120
            As += a / 120
    assert np.abs(ms - mu).max() < 0.02 * np.abs(mu).max()
    assert np.abs(As - A).max() < 0.02 * np.abs(A).max()
    # and it is not trivially close: the prior start is far from the fit
    assert np.abs(ag.A0 - A).max() > 0.2 * np.abs(A).max()


def test_rlsvi_posterior_is_bayesian_linear_regression():
    """Per row, RLSVI's Gaussian equals the Bayesian linear regression of the targets on
    one-hot features, solved directly from the design matrix."""
    g = np.random.default_rng(6)
    d, n_obs, s0, sig = 6, 25, 1.0, 0.1
    pair = g.integers(0, d, n_obs)
    y = g.normal(0.3, 1.0, n_obs)
    X = np.eye(d)[pair]
    cov = np.linalg.inv(np.eye(d) / s0 + X.T @ X / sig**2)
    mean = cov @ X.T @ y / sig**2
    n = np.bincount(pair, minlength=d).astype(float)
    T = np.bincount(pair, weights=y, minlength=d)
    m2, v2 = rlsvi_row_posterior(n, T, prior_var=s0, noise_sd=sig)
    assert np.allclose(m2, mean, atol=1e-12) and np.allclose(v2, np.diag(cov), atol=1e-14)
    assert np.allclose(cov, np.diag(np.diag(cov)), atol=1e-15)            # diagonal
    # the agent's sample: mean + N(0, 1/p) — with G = 0 the RLSVI pass is the posterior mean
    ag, _ = _random_data()
    Q0 = ridge_backward(ag.n, ag.R, ag.C, np.zeros_like(ag.n), np.zeros_like(ag.n), s0, sig,
                        np.empty_like(ag.n))
    h = ag.N - 1                                        # last row: targets are the rewards
    m3, _ = rlsvi_row_posterior(ag.n[:, h], ag.R[:, h], prior_var=s0, noise_sd=sig)
    assert np.allclose(Q0[:, h], m3)


# ----------------------------------------------------------------------------- censoring

def test_episodes_to_solve_rule_and_censoring():
    f = np.zeros((3, 60))
    f[0, 10:] = 1                                   # 18 of 20 first in the window from 8
    f[1, 5:25] = 1
    f[1, [7, 12]] = 0                               # 18 of 20 from 5: exactly at the threshold
    f[2, 50:] = 1                                   # window does not fit: censored
    e = episodes_to_solve(f, window=20, threshold=0.9)
    assert e[0] == 8 and e[1] == 5 and np.isnan(e[2])
    f[1, 8] = 0                                     # 17 of 20: no longer solved at 5
    assert episodes_to_solve(f)[1] != 5


def test_fit_exponent_uses_only_the_uncensored_prefix():
    Ns = (5, 10, 20, 40)
    y = np.array([[25.0, 100, 400, np.nan], [30, 110, 420, 1700.0]])
    fit = fit_exponent(Ns, y)
    assert fit.Ns_fitted == (5, 10, 20) and fit.censored == (0, 0, 0, 1)
    assert 1.8 < fit.exponent < 2.2 and fit.ci[0] < fit.exponent < fit.ci[1]
    fit2 = fit_exponent(Ns, np.array([[25.0, np.nan, 400, 1600]] * 2))
    assert fit2.exponent is None and fit2.ci is None       # < 3 uncensored points: no number


def test_factor_events_treats_censoring_conservatively():
    stats = {"episodes_hyper": np.array([[10.0], [30.0], [np.nan], [50.0], [np.nan]]),
             "episodes_rlsvi": np.array([[10.0], [10.0], [10.0], [np.nan], [np.nan]])}
    # 10 vs 10: no; 30 > 2·10: event; hyper censored: event; rlsvi censored: no; both: event
    assert factor_events(stats, factor=2.0) == 3


# ----------------------------------------------------------------------------- behaviour

def test_eps_greedy_fails_where_rlsvi_and_hyperagent_solve():
    """The negative control at N = 12 on common instances, and the mutation check: a
    HyperAgent whose acting index is zeroed (greedy in μ) fails like the control."""
    N, B = 12, 6
    mapping = DeepSea(N, batch=B, rng=7).mapping
    out = {}
    for name, kw in (("rlsvi", {}), ("hyper", {}), ("eps_greedy", {}),
                     ("hyper_greedy", {"index_scale": 0.0})):
        g = np.random.default_rng(8)
        env = DeepSea(N, batch=B, rng=g)
        env.mapping = mapping.copy()
        agent = make_agent("hyper" if name == "hyper_greedy" else name, N, batch=B, rng=g, **kw)
        out[name] = run_deep_sea(agent, env, budget(N))["solve"]
    assert np.all(np.isfinite(out["rlsvi"])) and np.all(np.isfinite(out["hyper"]))
    assert np.all(np.isnan(out["eps_greedy"]))
    assert np.all(np.isnan(out["hyper_greedy"]))


@pytest.mark.slow
def test_quick_figure_builds_and_marks_censoring():
    from paper_figs.deepsea_figs import deepsea_scaling

    fig, data = deepsea_scaling(quick=True, seed=0)
    eps = data["agents"]["eps_greedy"]
    assert eps["fit"]["exponent"] is None                   # censored: no number
    assert all(m is None or (isinstance(m, float) and math.isnan(m)) for m in eps["median"][1:])
    assert data["agents"]["rlsvi"]["fit"]["ci"] is not None
