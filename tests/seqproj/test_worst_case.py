"""The exact worst case of the sequential JL lemma by dynamic programming (issue 15 §1)."""
from __future__ import annotations

import importlib

import numpy as np
import pytest
from scipy import integrate, stats

from seqproj.rng import draw_keys, normals_np
from seqproj.worst_case import (
    brute_force_markov_value,
    worst_case_min_dim,
    worst_case_refined,
    worst_case_upper,
    worst_case_value,
)
from seqproj.worst_case_bracket import worst_case_lower, worst_case_mstar_range
from seqproj.worst_case_kernel import _moments, dp_kernel
from seqproj.worst_case_replay import replay_kernel, replay_numpy, replay_policy, replay_policy_reduced

#: the module (the package attribute ``seqproj.worst_case`` is the module too, but be explicit)
wcm = importlib.import_module("seqproj.worst_case")


def _cp(k, n, alpha=0.05):
    lo = 0.0 if k == 0 else stats.beta.ppf(alpha / 2, k, n - k + 1)
    hi = 1.0 if k == n else stats.beta.ppf(1 - alpha / 2, k + 1, n - k)
    return lo, hi


# ---------------------------------------------------------------- kernel pieces

@pytest.mark.parametrize("M", [3, 8, 200])
def test_partial_moments_match_quadrature(M):
    table = wcm.zeta_table(M)
    logc, cpow = wcm.zeta_density_constants(M)
    m = (M - 1) / 2
    dens = lambda z: stats.beta.pdf((1 + z) / 2, m, m) / 2
    for k in (-0.5, -0.05, 0.0, 0.1, 0.7):
        k = k if M < 100 else k / 5
        got = _moments(k, *table, logc, cpow, float(M))
        for j in range(4):
            ref = integrate.quad(lambda z, j=j: z ** j * dens(z), -1, k, epsabs=1e-13, limit=200)[0]
            assert got[j] == pytest.approx(ref, abs=2e-9)


@pytest.mark.parametrize("columns", ["sphere", "gaussian"])
@pytest.mark.parametrize("interp", ["linear", "pchip"])
def test_kernel_matches_numpy_reference(columns, interp):
    kw = dict(n_u=9, n_v=3, n_x=2, n_small=1, columns=columns, interp=interp)
    T = 2 if columns == "sphere" else 1
    a = worst_case_value(8, 0.5, T, **kw)
    b = worst_case_value(8, 0.5, T, backend="numpy", **kw)
    tol = 1e-12 if interp == "linear" else 1e-7   # cubic: moments vs Gauss–Legendre/SciPy density
    assert np.abs(a.value - b.value).max() < tol


@pytest.mark.parametrize("T", [2, 3])
def test_dp_equals_brute_force_over_markov_policies(T):
    """(d): on a tiny grid the backward DP equals the maximum, over every deterministic Markov
    policy, of the forward-evaluated failure probability of the same discretised chain."""
    kw = dict(n_u=3, n_v=2, n_x=2)
    bf = brute_force_markov_value(16, 0.5, T, **kw)
    dp = worst_case_value(16, 0.5, T, n_small=0, interp="linear", **kw).p
    assert dp == pytest.approx(bf, abs=1e-12)
    # and the best adversary's (minimum) differs: the maximisation is doing work
    low = worst_case_value(16, 0.5, T, n_small=0, interp="linear", maximize=False, **kw).p
    assert low < bf - 1e-3


def test_structure_monotone_in_horizon_and_contains_constant_design():
    M, eps, T = 48, 0.5, 60
    ug, lr, x2 = wcm.worst_case_grids(eps, T, n_u=41, n_v=5)
    table = wcm.zeta_table(M)
    r2, wr = wcm.radius_nodes(M, "sphere")
    logc, cpow = wcm.zeta_density_constants(M)
    W, Wprev, _ = dp_kernel(T, ug, 1 - eps, 1 + eps, lr, 1.0, x2, r2, wr, *table, True, False,
                            True, logc, cpow, float(M))
    assert ((W >= 0) & (W <= 1 + 1e-12)).all()
    # the pause: p*(T) ≥ p*(T − 1) at the same start (u, V) = (1, x_0²)
    assert worst_case_value(M, eps, T, n_u=41, n_v=5).p >= worst_case_value(
        M, eps, T - 1, n_u=41, n_v=5).p - 1e-12
    full = worst_case_value(M, eps, T, n_u=41, n_v=5).p
    const = worst_case_value(M, eps, T, n_u=41, n_v=5, n_x=1, n_small=0).p
    best = worst_case_value(M, eps, T, n_u=41, n_v=5, maximize=False).p
    assert best <= const <= full
    assert full > 1.2 * const                          # the optimum is far from the constant design


def test_replay_kernel_matches_numpy():
    r = worst_case_value(8, 0.5, 20, n_u=21, n_v=3, policy=True)
    keys = draw_keys(np.random.default_rng(5), 40)
    et = np.empty(40, dtype=np.int64)
    replay_kernel(keys, 20, 8, 0, 1.0, 1.0, 0.5, r.ugrid, r.lrho, r.xgrid, r.policy, et)
    nm = normals_np(keys, np.arange(20 * 8, dtype=np.uint64)).reshape(40, 20, 8)
    assert (et == replay_numpy(nm, 20, 0, 1.0, 1.0, 0.5, r.ugrid, r.lrho, r.xgrid, r.policy)).all()


def test_reduced_replay_has_the_law_of_the_full_replay():
    """The policy depends on (‖S‖², V) only, so the reduced chain and the full protocol give the
    same failure law: the two rates agree within a two-proportion z of 4 (planted-defect check:
    a reduced replay with ζ of dimension M/4 fails it, see the second half)."""
    r = worst_case_value(16, 0.5, 30, n_u=21, n_v=3, policy=True)
    k_f, n_f, _ = replay_policy(r, 4000, 11)
    k_r, n_r, _ = replay_policy_reduced(r, 20000, 12)

    def z(k1, n1, k2, n2):
        p = (k1 + k2) / (n1 + n2)
        return abs(k1 / n1 - k2 / n2) / np.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))

    assert z(k_f, n_f, k_r, n_r) < 4, (k_f / n_f, k_r / n_r)
    wrong = worst_case_value(16, 0.5, 30, n_u=21, n_v=3, policy=True)
    wrong.M = 4                                   # the reduced chain now draws ζ of dimension 4
    k_w, n_w, _ = replay_policy_reduced(wrong, 20000, 12)
    assert z(k_f, n_f, k_w, n_w) > 4, (k_f / n_f, k_w / n_w)


def test_bracket_sides_are_ordered_and_computed():
    """The replay lower end ≤ the DP value ≤ the upper estimate, at a small horizon; the upper
    estimate adds the grid and action-grid moves; the lower end is an exact CP end."""
    lo, li = worst_case_lower(48, 0.5, 30, n=5000, seed=3, n_u=25, n_v=3)
    U, ui = worst_case_upper(48, 0.5, 30, n_u=13, n_v=3, actions=(8, 16))
    assert 0.0 < lo <= li["rate"] <= li["ci"][1]
    assert lo <= li["p_dp"] + 1e-12 and li["p_dp"] <= U
    assert U >= max(ui["p_actions"].values()) + ui["err_grid"] - 1e-15
    with pytest.raises(ValueError, match="simulator"):
        worst_case_lower(48, 0.5, 30, simulator="exact")
    with pytest.raises(ValueError, match="actions"):
        worst_case_upper(48, 0.5, 30, actions=())


@pytest.mark.slow        # 16 s: four DP bisections
def test_mstar_range_brackets_by_both_sides():
    """M*_worst ∈ (M_lo, M_hi]: the replay clears δ at M_lo and not at M_lo + 1, the upper estimate
    is ≤ δ at M_hi and not at M_hi − 1 (small horizon, δ = 0.2)."""
    lo, hi, ev = worst_case_mstar_range(0.5, 0.2, 20, upper_window=(10, 60), lower_window=(5, 60),
                                        n=4000)
    assert lo is not None and hi is not None and lo < hi
    assert ev[hi]["upper"] <= 0.2 < ev[hi - 1]["upper"]
    assert ev[lo]["lower"] > 0.2 >= ev[lo + 1]["lower"]
    with pytest.raises(ValueError, match="upper_window"):
        worst_case_mstar_range(0.5, 0.2, 20, upper_window=(10,), lower_window=(5, 60))


@pytest.mark.parametrize("kw, name", [
    (dict(M=2), "M"), (dict(eps=1.0), "eps"), (dict(T=0), "T"), (dict(columns="onehot"), "columns"),
    (dict(x0=0.0), "x0"), (dict(cx=-1.0), "cx"), (dict(n_u=10), "n_u"), (dict(interp="x"), "interp"),
])
def test_validation(kw, name):
    args = dict(M=16, eps=0.5, T=3)
    args.update(kw)
    with pytest.raises((ValueError, TypeError), match=name):
        worst_case_value(**args)


def test_min_dim_bisection_small():
    M, info = worst_case_min_dim(0.5, 0.2, 20, n_u=21, n_v=3, conservative=False, M_hi=200)
    p = info["evals"]
    assert p[M][0] <= 0.2 and info["monotone"]
    below = worst_case_value(M - 1, 0.5, 20, n_u=21, n_v=3).p
    assert below > 0.2


# ---------------------------------------------------------------- slow: statistics and refinement

@pytest.mark.slow
@pytest.mark.parametrize("M", [32, 64, 128])
def test_replay_in_full_simulator_matches_dp(M):
    """(a): the DP policy played in the full protocol (columns in R^M): the Clopper–Pearson
    99 % interval of its failure rate meets [p* − err, p* + err]."""
    r = worst_case_refined(M, 0.5, 300, n_u=51, n_v=5, levels=2, policy=True)
    n = 20_000
    k, _, _ = replay_policy(r, n, 1000 + M)
    lo, hi = _cp(k, n, 0.01)
    assert lo <= r.p + r.err and hi >= r.p - r.err, (k / n, lo, hi, r.p, r.err)


@pytest.mark.slow
@pytest.mark.parametrize("M", [32, 64, 128])
def test_optimum_dominates_hand_adversaries(M):
    """(b): p* + err ≥ the lower 99 % CP bound of every hand-written adversary's rate."""
    from seqproj.reduced import simulate_reduced
    r = worst_case_refined(M, 0.5, 300, n_u=51, n_v=5, levels=2)
    for adv in ("constant", "random", "stopping", "magnitude", "pushing"):
        ps = simulate_reduced(M, 0.5, 300, 20_000, 2000 + M, adversary=adv)
        lo, _ = _cp(int(ps.failed.sum()), 20_000, 0.01)
        assert r.p + r.err >= lo, (adv, lo, r.p)


@pytest.mark.slow
def test_refinement_converges():
    """(c): successive grid differences shrink (observed order > 0.5)."""
    r = worst_case_refined(64, 0.5, 100, n_u=25, n_v=3, levels=3)
    p1, p2, p3 = r.levels
    assert abs(p2 - p3) < abs(p1 - p2)
    assert r.order > 0.5


@pytest.mark.slow
def test_stored_results_reproduce():
    """seqproj/worst_case_results.json is a cache (figures, claim parameters); its theorem entry
    must be what the DP gives."""
    from seqproj.claims.worst_case import results
    th = results()["theorem"]
    r = worst_case_refined(th["M"], th["eps"], th["T"], n_u=51, n_v=5, levels=2)
    assert r.p == pytest.approx(th["p"], rel=1e-9, abs=1e-15)
    assert r.err == pytest.approx(th["err"], rel=1e-9, abs=1e-15)
    assert th["p"] + th["err"] <= th["delta"]
