"""The fused Ensemble++ round (deferred rank-k factor) and the fused exact-TS kernel against the
existing implementations: same random streams, same algebra → identical regret trajectories,
state within 1e-12 (relative)."""
import math

import numpy as np
import pytest

from proofs_check.engine import single_threaded_blas
from seqproj.ensemble import (EnsemblePP, ExactTS, FiniteArmEnv, LinearEnsemblePP, simulate_reference,
                              simulate_repetition)
from seqproj.ensemble.cholesky_update import simulate_ts_fused, ts_rounds
from seqproj.ensemble.fused_round import (BLAS_FLUSH_CELLS, EppState, bytes_per_round, default_deferral,
                                          epp_flush, epp_rounds_ref, run_epp_rounds, simulate_fused)

FAMILIES = [("gaussian", "gaussian"), ("sphere", "sphere"), ("cube", "cube"), ("sparse", "sparse"),
            ("signed_coord", "signed_coord"), ("one_hot", "gaussian")]


@pytest.mark.parametrize("index,perturbation", FAMILIES)
def test_regret_trajectory_identical_to_lockstep(index, perturbation):
    env = FiniteArmEnv(8, 60)
    T = 2 * 250 + 17                       # crosses two pre-draw blocks
    for M in (1, 3, 16):
        agent = EnsemblePP(M, index=index, perturbation=perturbation)
        for seed in (0, 1):
            rep = simulate_repetition(env, [agent], T, seed, fused=False)[0]   # the batched path
            for k in (None, 1, 4):
                assert np.array_equal(simulate_fused(env, agent, T, seed, k=k), rep), (M, seed, k)
            assert np.array_equal(simulate_fused(env, agent, T, seed, reference=True), rep)
    # and the per-agent reference loop (LinearEnsemblePP): same choices; its regret is
    # computed as max(Xθ*) − xᵀθ*, equal up to the rounding of the subtraction
    agent = EnsemblePP(5, index=index, perturbation=perturbation)
    np.testing.assert_allclose(simulate_fused(env, agent, 300, 7), simulate_reference(env, agent, 300, 7),
                               rtol=0, atol=1e-12)


def test_blas_flush_path_identical_to_lockstep_and_reference_state():
    env = FiniteArmEnv(40, 120)
    agent = EnsemblePP(420)                # d·M = 16 800 ≥ BLAS_FLUSH_CELLS: the dgemm path
    assert env.d * agent.M >= BLAS_FLUSH_CELLS
    with single_threaded_blas():
        rep = simulate_repetition(env, [agent], 300, 2, fused=False)[0]
        fast, st = simulate_fused(env, agent, 300, 2, return_state=True)
        ref, st_ref = simulate_fused(env, agent, 300, 2, reference=True, return_state=True)
    assert np.array_equal(fast, rep) and np.array_equal(ref, rep)
    for a, b in zip(st.materialised(), st_ref.materialised()):
        assert np.max(np.abs(a - b)) <= 1e-12 * np.max(np.abs(b))


def test_lockstep_sweep_fused_equals_batched():
    """The lock-step simulator with every sweep agent (TS, LinUCB, greedy, all families and M):
    routing Ensemble++ and TS through the fused kernels leaves every regret bitwise unchanged."""
    from seqproj.ensemble import sweep_agents

    env = FiniteArmEnv(6, 200)
    agents = sweep_agents(6)
    for seed in (0, 1):
        with single_threaded_blas():
            a = simulate_repetition(env, agents, 300, seed, fused=False)
            b = simulate_repetition(env, agents, 300, seed)
        assert np.array_equal(a, b)


def _problem(d, M, K, n, seed, k):
    g = np.random.default_rng(seed)
    X = g.uniform(-1 / math.sqrt(5), 1 / math.sqrt(5), (K, d))
    theta = math.sqrt(10) * g.standard_normal(d)
    Xth = X @ theta
    zeta = g.standard_normal((n + 1, M))
    z = g.standard_normal((n, M)) / math.sqrt(M)
    eta = g.standard_normal(n)
    A0 = math.sqrt(10 / M) * g.standard_normal((d, M))
    return X, Xth, float(Xth.max()), eta, 1.3, np.ascontiguousarray(zeta[1:]), z, A0, zeta[0]


@pytest.mark.parametrize("d,M,k", [(6, 4, 1), (6, 4, 3), (12, 30, 5), (30, 600, 7)])
def test_state_matches_linear_ensemble_pp_replay(d, M, k):
    """Kernel state (every pending term applied) = LinearEnsemblePP fed the kernel's actions,
    observations and perturbations, to 1e-12 relative: the deferral changes rounding only."""
    n = 120
    X, Xth, best, eta, sig, zn, z, A0, zeta0 = _problem(d, M, 50, n, 11, k)
    st = EppState(np.zeros(d), 10.0, A0, zeta0, k)
    with single_threaded_blas():
        regret, choice = run_epp_rounds(X, Xth, best, eta, sig, zn, z, st)
    epp_flush(st)
    ens = LinearEnsemblePP(d, M, prior_var=10.0, noise_sd=sig, rng=0)
    ens._A[:] = A0                          # the same start (test only)
    for s in range(n):
        x = X[choice[s]]
        ens.update(x, float(Xth[choice[s]] + sig * eta[s]), z=z[s])
    mu, S, A = st.materialised()
    for got, want in ((mu, ens.mean), (S, ens.cov), (A, ens.factor)):
        assert np.max(np.abs(got - want)) <= 1e-12 * np.max(np.abs(want))
    assert np.array_equal(regret, best - Xth[choice])
    # the NumPy reference of the deferred algebra makes the same choices
    st2 = EppState(np.zeros(d), 10.0, A0, zeta0, k)
    regret2, choice2 = epp_rounds_ref(X, Xth, best, eta, sig, zn, z, st2)
    assert np.array_equal(choice2, choice)
    for a, b in zip(st2.materialised(), (mu, S, A)):
        assert np.max(np.abs(a - b)) <= 1e-12 * np.max(np.abs(b))


def test_loss_of_positive_definiteness_is_refused():
    X, Xth, best, eta, sig, zn, z, A0, zeta0 = _problem(4, 3, 10, 5, 0, 2)
    st = EppState(np.zeros(4), 10.0, A0, zeta0, 2)
    st.S[1, 1] = -1.0
    with pytest.raises(RuntimeError, match="positive definiteness at round 1"):
        run_epp_rounds(X, Xth, best, eta, sig, zn, z, st)


@pytest.mark.parametrize("d,K", [(3, 20), (17, 200), (50, 400)])
def test_ts_kernel_regret_identical_to_lockstep(d, K):
    env = FiniteArmEnv(d, K)
    for seed in (0, 1, 2):
        rep = simulate_repetition(env, [ExactTS()], 600, seed, fused=False)[0]
        assert np.array_equal(simulate_ts_fused(env, ExactTS(), 600, seed), rep)


def test_ts_kernel_state_is_the_posterior():
    g = np.random.default_rng(5)
    d, K, n = 9, 40, 80
    X = g.standard_normal((K, d))
    Xth = X @ g.standard_normal(d)
    eta, G = g.standard_normal(n), g.standard_normal((n, d))
    L = np.asfortranarray(np.eye(d) / math.sqrt(2.0))
    w, b = np.zeros(d), np.zeros(d)
    reg, ch = np.empty(n), np.empty(n, dtype=np.int64)
    ts_rounds(X, Xth, float(Xth.max()), eta, 0.7, G, L, w, b, reg, ch)
    P = np.eye(d) / 2.0 + X[ch].T @ X[ch] / 0.49
    np.testing.assert_allclose(L @ L.T, P, rtol=1e-12, atol=1e-12 * np.abs(P).max())
    np.testing.assert_allclose(w, np.linalg.solve(L, b), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b, X[ch].T @ (Xth[ch] + 0.7 * eta) / 0.49, rtol=1e-12, atol=1e-12)


def test_traffic_formula_and_deferral():
    assert default_deferral(200, 1600) == 19          # ⌈√(2·200·1600/1800)⌉
    assert default_deferral(50, 8) == 4
    d, M, K, k = 200, 1600, 1000, 19
    want = 8 * (d * M * (1 + 2 / k) + k * (d + M) + d * (d + 1) + K * d + 6 * d + 4 * M + K)
    assert bytes_per_round(d, M, K, k) == int(want)
    with pytest.raises(ValueError, match="k"):
        bytes_per_round(d, M, K, 0)
    with pytest.raises(ValueError, match="env"):
        from seqproj.ensemble import SphereEnv
        simulate_fused(SphereEnv(3), EnsemblePP(2), 10, 0)


def test_run_bandit_default_uses_all_cores_with_identical_results():
    """executor=None runs a thread pool on all cores (one worker per chunk at most); the result is
    bitwise the same as serial and as every worker count."""
    import seqproj.ensemble.bandits as bandits
    from seqproj.ensemble import Greedy, run_bandit

    assert bandits.default_executor(9, 2, 2) == ("threads", 2)
    assert bandits.default_executor(9, 2, 8) == ("threads", 5)          # 5 chunks
    assert bandits.default_executor(2, 2, 2) == ("serial", None)        # one chunk
    assert bandits.default_executor(9, 2, 1) == ("serial", None)        # one core
    env = FiniteArmEnv(4, 30)
    agents = [ExactTS(), Greedy(), EnsemblePP(6)]
    base = run_bandit(env, agents, 40, 9, 3, "serial", chunk_size=2).final
    for ex, w in ((None, None), (None, 3), ("threads", 1), ("threads", 3)):
        got = run_bandit(env, agents, 40, 9, 3, ex, chunk_size=2, workers=w).final
        assert np.array_equal(got, base), (ex, w)


@pytest.mark.slow
def test_run_bandit_process_pool_identical():
    """A process pool (2 and 3 workers) gives the same result as serial, bitwise."""
    from seqproj.ensemble import Greedy, run_bandit

    env = FiniteArmEnv(4, 30)
    agents = [ExactTS(), Greedy(), EnsemblePP(6)]
    base = run_bandit(env, agents, 40, 9, 3, "serial", chunk_size=2).final
    for w in (2, 3):
        got = run_bandit(env, agents, 40, 9, 3, "processes", chunk_size=2, workers=w).final
        assert np.array_equal(got, base), w
