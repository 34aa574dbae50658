"""Issue 15: the MSE-optimal truncation C* = √(2(1+χ²)) and the R_max → R_max² correction."""
import math

import numpy as np
import pytest

from proofs_check.engine import clear_measurements, get_claim
from proofs_check.engine import verify_claim
from proofs_check.mismatch import truncation as tr
from proofs_check.mismatch.estimators import estimator_moments
from proofs_check.mismatch.pairs import linear_from_flat, sample_linear

_E = dict(V=2, T=4, d=3, seed=7)


@pytest.fixture(autouse=True)
def _fresh():
    clear_measurements()
    yield
    clear_measurements()


def test_c_star_is_the_grid_minimiser():
    C = np.exp(np.linspace(-3, 8, 200_001))
    for chi2, K, beta in [(0.0, 1.0, 2.0), (0.7, 3.0, 2.0), (40.0, 0.2, 1.0), (1e3, 5.0, 4.0)]:
        U = beta ** 2 * K ** 2 * (1 + chi2) ** 2 / C ** 2 + C ** 2 * K ** 2
        assert math.isclose(C[np.argmin(U)], tr.c_star(chi2, beta=beta), rel_tol=1e-4)
        assert math.isclose(U.min(), tr.tis_mse_bound_min(chi2, K, beta=beta), rel_tol=1e-8)
    assert tr.c_star(1.0) == pytest.approx(2.0)          # √(2·2)
    assert tr.C_STAR_BETA == 2.0


def test_profile_equals_estimator_moments():
    rng = np.random.default_rng(4)
    for _ in range(4):
        lin, mu, R = linear_from_flat(sample_linear(rng, V=2, T=4, d=3), 2, 4, 3, 7)
        Cs = [1.1, 1.7, 3.0, 9.0]
        p = tr.tis_mse_profile(mu, lin, R, Cs)
        for i, C in enumerate(Cs):
            _, m = estimator_moments(mu, lin, R, C=C, C_hi=max(2.0, C))
            assert p["mse"][i] == pytest.approx(m["seq_tis"].mse, rel=1e-10, abs=1e-14)
            assert p["variance"][i] == pytest.approx(m["seq_tis"].variance, rel=1e-10, abs=1e-14)


def test_mse_bound_and_rmax_lines_on_points():
    rng = np.random.default_rng(0)
    worst_lin = 0.0
    for _ in range(30):
        a, b = tr.evaluate_mse_bound(tr.sample_linear_c(rng, V=2, T=4, d=3), **_E)
        assert a <= b
        th = tr.sample_linear_rmax(rng, V=2, T=4, d=3)
        v2, r2 = tr.variance_rmax_sides(th, power="squared", **_E)
        v1, r1 = tr.variance_rmax_sides(th, power="linear", **_E)
        assert v1 == v2 and v2 <= r2
        worst_lin = max(worst_lin, v1 / r1)
    assert worst_lin > 1.0          # the blog's line fails on random points with R_max > 1


def test_variance_is_quadratic_in_rmax():
    th = tr.sample_linear_rmax(np.random.default_rng(2), V=2, T=4, d=3)
    th[-1] = 0.0
    v1, _ = tr.variance_rmax_sides(th, **_E)
    th[-1] = math.log(3.0)
    v3, _ = tr.variance_rmax_sides(th, **_E)
    assert v3 == pytest.approx(9.0 * v1, rel=1e-12)


def test_projections_keep_the_domain():
    th = np.full(3 + 30 + 16 + 2, 99.0)
    p = tr.project_linear_rmax(th)
    assert math.exp(p[-1]) == pytest.approx(100.0) and math.exp(p[-2]) == pytest.approx(8.0)
    assert math.exp(tr.project_linear_c(-th)[-1]) == pytest.approx(1.05)


def test_validation_names_the_argument():
    with pytest.raises(ValueError, match="chi2"):
        tr.c_star(-1.0)
    with pytest.raises(ValueError, match="beta"):
        tr.c_star(1.0, beta=0.0)
    with pytest.raises(ValueError, match="C"):
        tr.tis_mse_bound(0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="power"):
        tr.variance_rmax_sides(np.zeros(55), power="cubic", **_E)


def _verdict(cid, budget):
    return verify_claim(get_claim(cid), budget=budget, seed=0).verdict


def test_quick_verdicts():
    assert _verdict("mismatch.truncation.c_star_minimises_bound", 100) == "holds"
    assert _verdict("mismatch.truncation.variance_rmax_linear", 100) == "refuted"


def test_mutation_wrong_c_star_is_caught(monkeypatch):
    """Mutant: C* = √(1 + χ²) (the theory page table's β = 1 hard-coded, ignoring β)."""
    monkeypatch.setattr(tr, "c_star", lambda chi2, *, beta=2.0: math.sqrt(1.0 + chi2))
    assert _verdict("mismatch.truncation.c_star_minimises_bound", 100) == "refuted"


def test_mutation_reward_power_ignored_is_caught(monkeypatch):
    """Mutant: the right-hand side always uses R_max² — the control stops being refuted."""
    orig = tr.variance_rmax_sides
    monkeypatch.setattr(tr, "variance_rmax_sides",
                        lambda theta, *, power="squared", **k: orig(theta, power="squared", **k))
    from proofs_check.engine import get_claim as gc
    import dataclasses
    import functools
    c = gc("mismatch.truncation.variance_rmax_linear")
    c = dataclasses.replace(c, evaluate=functools.partial(tr.variance_rmax_sides, power="linear", **_E))
    assert verify_claim(c, budget=100, seed=0).verdict == "holds"
