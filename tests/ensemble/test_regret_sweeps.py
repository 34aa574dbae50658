"""Issue 15: the compact / changing-context regret sweeps and the isotonic smallest-M law."""
import math

import numpy as np
import pytest

import proofs_check
from proofs_check.engine import get_claim
from seqproj.ensemble import (env_sweep, env_sweep_ms, isotonic_nonincreasing, smallest_m_isotonic,
                              smallest_m_on_grid)
from seqproj.ensemble.experiments import ENV_SWEEPS, SMALLEST_M_LAW
from seqproj.ensemble.regret_sweep import env_gap, env_sweep_trials, smallest_m_isotonic_per_d
from seqproj.ensemble.regret_sweep import MSTAR_GRID


def _isotonic_brute(y):
    """Min–max formula of the non-increasing least-squares fit:
    f_i = min_{j ≤ i} max_{k ≥ i} mean(y_j..y_k)."""
    y = np.asarray(y, float)
    n = y.size
    return np.array([min(max(y[j:k + 1].mean() for k in range(i, n)) for j in range(i + 1))
                     for i in range(n)])


@pytest.mark.parametrize("seed", range(25))
def test_isotonic_matches_min_max_formula(seed):
    g = np.random.default_rng(seed)
    y = g.normal(size=int(g.integers(1, 12))) + 2.0 * g.random()
    f = isotonic_nonincreasing(y)
    np.testing.assert_allclose(f, _isotonic_brute(y), atol=1e-12)
    assert np.all(np.diff(f) <= 1e-12)
    assert math.isclose(f.sum(), y.sum(), rel_tol=1e-12, abs_tol=1e-12)
    # last value = smallest tail mean
    assert math.isclose(f[-1], min(y[k:].mean() for k in range(y.size)), abs_tol=1e-12)


def test_isotonic_criterion_and_censoring():
    ms = (1, 2, 4, 8, 16)
    # a single noisy point at the top censors the raw "from which on" rule, not the isotonic one
    r = np.array([3.0, 1.3, 1.02, 0.98, 1.15])
    assert smallest_m_on_grid(ms, r, 1.0, 0.10) is None
    assert smallest_m_isotonic(ms, r, 0.10) == 4.0
    # every tail average above the margin: censored (None), never a number
    assert smallest_m_isotonic(ms, [3.0, 2.0, 1.5, 1.3, 1.2], 0.10) is None
    # a non-monotone bump before the top is pooled: [1.3, 1.0, 1.2] -> means
    assert smallest_m_isotonic((1, 2, 3, 4), [2.0, 1.3, 1.0, 1.2], 0.10) == 3.0
    with pytest.raises(ValueError, match="ms"):
        smallest_m_isotonic((4, 2), [1.0, 1.0], 0.1)
    with pytest.raises(ValueError, match="ratios"):
        smallest_m_isotonic((1, 2), [1.0], 0.1)


def test_isotonic_per_d_keeps_censored_as_nan():
    ds = (4, 8)
    n4 = 1 + len([m for m in MSTAR_GRID if m <= 32])
    n8 = 1 + len([m for m in MSTAR_GRID if m <= 64])
    good4 = np.r_[100.0, np.full(n4 - 1, 100.0)]           # ratio 1 everywhere -> M* = 1
    bad4 = np.r_[100.0, np.full(n4 - 1, 150.0)]            # ratio 1.5 everywhere -> censored
    row8 = np.r_[100.0, 400.0, 200.0, np.full(n8 - 3, 100.0)]
    stats = {"mean_final_d4": np.vstack([good4, bad4]), "mean_final_d8": np.vstack([row8, row8])}
    out = smallest_m_isotonic_per_d(stats, ds=ds, margin=0.10)
    assert out.shape == (2, 2)
    assert out[0, 0] == 1.0 and math.isnan(out[1, 0])
    assert out[0, 1] == 3.0 and out[1, 1] == 3.0


def test_env_sweep_grid_and_experiments():
    assert env_sweep_ms(10) == (2, 5, 10, 20, 40, 80)
    assert env_sweep_ms(1) == (1, 2, 4, 8)
    assert set(ENV_SWEEPS) == {("compact", 10), ("compact", 20), ("contexts", 10), ("contexts", 20)}
    assert ENV_SWEEPS[("compact", 10)].id == "ensemble.regret.compact.d10"
    assert ENV_SWEEPS[("compact", 10)].params["K"] is None
    assert env_sweep("contexts", 4, K=7, T=30).id == "ensemble.regret.contexts.d4.K7.T30"
    with pytest.raises(ValueError, match="kind"):
        env_sweep("torus", 4)


@pytest.mark.parametrize("kind", ["compact", "contexts"])
def test_env_sweep_trials_are_seeded_and_shaped(kind):
    a = env_sweep_trials(np.random.default_rng(3), 2, kind=kind, d=4, K=20, T=40)
    b = env_sweep_trials(np.random.default_rng(3), 2, kind=kind, d=4, K=20, T=40)
    assert a["final"].shape == (2, 1 + len(env_sweep_ms(4)))
    np.testing.assert_array_equal(a["final"], b["final"])
    assert np.all(a["final"] >= 0)


def test_env_gap_reads_the_right_column():
    ms = env_sweep_ms(10)
    fin = np.arange(2 * (1 + len(ms)), dtype=float).reshape(2, -1) + 1.0
    d = env_gap({"final": fin}, d=10, M=5, factor=1.25)
    np.testing.assert_allclose(d, fin[:, 1 + ms.index(5)] - 1.25 * fin[:, 0])
    with pytest.raises(ValueError, match="M = 7"):
        env_gap({"final": fin}, d=10, M=7, factor=1.0)
    with pytest.raises(ValueError, match="columns"):
        env_gap({"final": fin[:, :3]}, d=10, M=5, factor=1.0)


def test_new_claims_registered():
    for kind in ("compact", "contexts"):
        for d in (10, 20):
            for what in ("below_d", "at_8d"):
                c = get_claim(f"ensemble.regret.{kind}.d{d}.{what}")
                assert c.experiment is ENV_SWEEPS[(kind, d)]
    assert get_claim("ensemble.regret.compact.d10.below_d").expected == "holds"
    assert get_claim("ensemble.regret.contexts.d10.below_d").expected is None
    law = get_claim("ensemble.regret.smallest_m_vs_d.isotonic")
    assert law.experiment is SMALLEST_M_LAW and list(law.x) == [4, 8, 16, 32, 64]


@pytest.mark.slow
def test_compact_below_d_quick_direction():
    """At the quick budget (10 repetitions) the M = d/2 gap on the sphere is already positive
    (mean ratio ≈ 2.2 at d = 10 at the default budget); the verdict itself is decided at the
    default budget (tests/test_expected_verdicts.py)."""
    r = proofs_check.verify("ensemble.regret.compact.d10.below_d", quick=True)
    assert r.mean_diff > 0            # the mean sign: more instances above 1.25 TS than below


# ---------------------------------------------------------------------------
# mutation checks (slow: each measures 30 repetitions of the compact d = 10 sweep)
# ---------------------------------------------------------------------------

@pytest.fixture
def _fresh_measurements():
    from proofs_check.engine import clear_measurements
    clear_measurements()
    yield
    clear_measurements()


def _verdict(claim, budget=30):
    from proofs_check.engine import verify_claim
    return verify_claim(claim, budget=budget, seed=0)


@pytest.mark.slow
def test_mutation_off_by_column_gap_is_caught(_fresh_measurements):
    """Mutant: the below-d claim reads the M = 8d column (an off-by-column bug) — not 'holds'."""
    import dataclasses
    import functools
    c = get_claim("ensemble.regret.compact.d10.below_d")
    assert _verdict(c).verdict == "holds"
    from proofs_check.engine import sign_of
    bad = dataclasses.replace(c, reduce=functools.partial(sign_of, functools.partial(env_gap, d=10, M=80,
                                                                                     factor=1.25)))
    assert _verdict(bad).verdict == "refuted"


@pytest.mark.slow
def test_mutation_unnormalised_perturbations_are_caught(_fresh_measurements, monkeypatch):
    """Mutant: Ensemble++ perturbations N(0, I_M) instead of N(0, I_M/M) (A Aᵀ off by M) — the
    M = 8d agent explores far too much and the 'within 10% of TS' claim is refuted."""
    from seqproj.ensemble import bandits
    orig = bandits.sample_perturbation
    monkeypatch.setattr(bandits, "sample_perturbation",
                        lambda fam, M, rng, size=None, s=2: math.sqrt(M) * orig(fam, M, rng, size=size, s=s))
    r = _verdict(get_claim("ensemble.regret.compact.d10.at_8d"))
    assert r.verdict == "refuted", r
