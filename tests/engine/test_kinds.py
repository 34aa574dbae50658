"""Inequality search, scaling and comparison verdicts on claims with known answers."""
import functools
import math

import mpmath
import numpy as np
import pytest

from proofs_check.engine import (replace, ComparisonClaim, IdentityClaim, InequalityClaim, ProbabilityClaim,
                                 ScalingClaim, verify_claim)


def _unit_box(dim, rng):
    return rng.uniform(0.0, 1.0, size=dim)


def _clip01(theta):
    return np.clip(theta, 1e-12, 1.0)


def _amgm(theta):                      # (xy)^{1/2} ≤ (x + y)/2, tight at x = y
    x, y = theta
    return math.sqrt(x * y), (x + y) / 2


def _square_le_identity(theta):        # x ≤ x² + 0.2 is FALSE on (0.276, 0.724)
    x = theta[0]
    return x, x * x + 0.2


def _square_le_identity_mp(theta):
    x = mpmath.mpf(float(theta[0]))
    return x, x * x + mpmath.mpf("0.2")


def _cancellation(theta):             # mathematically lhs == rhs; float lhs may exceed rhs
    a = theta[0]
    return (a + 1e8) - 1e8, a


def _cancellation_mp(theta):
    a = mpmath.mpf(float(theta[0]))
    return (a + mpmath.mpf(1e8)) - mpmath.mpf(1e8), a


def _ineq(**kw):
    base = dict(id="test.ineq", statement="s", source="test", label="DERIVED", project=_clip01)
    return InequalityClaim(**{**base, **kw})


def test_search_finds_tight_point_of_a_true_inequality():
    r = verify_claim(_ineq(sample=functools.partial(_unit_box, 2), evaluate=_amgm), budget=800, seed=0)
    assert r.verdict == "holds" and 0.999 < r.worst_ratio <= 1.0 + 1e-12
    assert r.evaluations == 800


def test_search_refutes_a_false_inequality_confirmed_by_mpmath():
    r = verify_claim(_ineq(sample=functools.partial(_unit_box, 1), evaluate=_square_le_identity,
                           evaluate_mp=_square_le_identity_mp), budget=400, seed=0)
    assert r.verdict == "refuted" and "confirmed in mpmath" in r.confirmed_by and r.guarantee == "exact"
    # rhs = x² + 0.2 > 0: the search climbs the relative margin (lhs − rhs)/|rhs| = x/(x²+0.2) − 1,
    # whose maximum is the tightest point, x = √0.2
    assert r.worst_ratio == pytest.approx(1 / (2 * math.sqrt(0.2)), rel=1e-4)


def test_float_artefact_is_not_reported_as_counterexample():
    claim = _ineq(sample=functools.partial(_unit_box, 1), evaluate=_cancellation,
                  evaluate_mp=_cancellation_mp, rtol=0.0)
    r = verify_claim(claim, budget=400, seed=1)
    assert r.artefacts > 0                          # float64 saw violations ...
    assert r.verdict == "holds" and r.guarantee == "search"        # ... mpmath did not
    assert any("rejected by mpmath" in w for w in r.warnings)
    assert r.worst_ratio <= 1.0                     # the reported point is scored in high precision


def _artefact_plus_planted(theta):
    """lhs ≤ rhs with a float artefact near x = 0 (huge cancellation) and a genuine 1 %
    violation on x ∈ [0.8, 0.9] (the planted bump)."""
    x = float(theta[0])
    bump = 0.01 if 0.8 <= x <= 0.9 else 0.0
    art = (x * 1e-9 + 1e8) - 1e8 - x * 1e-9 if x < 0.05 else 0.0      # float noise ~1e-8, mp 0
    return 1.0 + bump + abs(art) * 1e9, 1.0       # artefact up to +5 %, above the real 1 %


def _artefact_plus_planted_mp(theta):
    bump = mpmath.mpf("0.01") if 0.8 <= float(theta[0]) <= 0.9 else 0
    return 1 + bump, mpmath.mpf(1)


@pytest.mark.parametrize("seed", range(5))
def test_a_rejected_artefact_does_not_hide_a_real_violation(seed):
    """Issue 9 item 5: the best float candidate is an artefact, a genuine 1 % violation elsewhere."""
    claim = _ineq(sample=functools.partial(_unit_box, 1), evaluate=_artefact_plus_planted,
                  evaluate_mp=_artefact_plus_planted_mp)
    r = verify_claim(claim, budget=400, seed=seed)
    assert r.verdict == "refuted", r
    assert 0.8 <= r.worst_point[0] <= 0.9 and r.worst_ratio == pytest.approx(1.01)


def _negative_rhs(theta):
    x = float(theta[0])
    return -3.0 - x, -1.0 - x          # lhs < rhs < 0 everywhere: the claim holds


def test_negative_rhs_is_decided_on_the_signed_margin():
    r = verify_claim(_ineq(sample=functools.partial(_unit_box, 1), evaluate=_negative_rhs), budget=200)
    assert r.verdict == "holds" and r.worst_margin == pytest.approx(-2.0)
    assert math.isnan(r.worst_ratio)


def _tiny_violation(theta):
    return 1e-15, 0.0                  # violates lhs ≤ rhs by 1e-15


def test_atol_is_the_only_allowance():
    claim = _ineq(sample=functools.partial(_unit_box, 1), evaluate=_tiny_violation)
    assert verify_claim(claim, budget=200).verdict == "refuted"
    assert verify_claim(replace(claim, atol=1e-14), budget=200).verdict == "holds"


def _power_law(a, noise, x, rng, n):
    x = np.asarray(x, float)
    return x ** a * np.exp(noise * rng.standard_normal((n, x.size)))


X = (4.0, 8.0, 16.0, 32.0, 64.0, 128.0)


@pytest.mark.parametrize("estimand", ["mean", "log-mean"])
@pytest.mark.parametrize("lo,hi,want", [(1.9, 2.1, "holds"), (0.9, 1.1, "refuted"), (1.99, 2.0, "inconclusive")])
def test_scaling_verdicts(lo, hi, want, estimand):
    claim = ScalingClaim(id="test.scaling", statement="y ∝ x²", source="test", label="DERIVED",
                         fn=functools.partial(_power_law, 2.0, 0.05, X), x=X, exponent_lo=lo, exponent_hi=hi,
                         estimand=estimand)
    r = verify_claim(claim, budget=8, seed=0)
    assert r.verdict == want and r.replicates == 8 and r.estimand == estimand
    assert r.exponent_ci[0] <= 2.0 <= r.exponent_ci[1]     # multiplicative noise: both slopes are 2


def _paired(mean, rng, n):
    return mean + rng.standard_normal(n)


@pytest.mark.parametrize("mean,want", [(-0.5, "holds"), (0.5, "refuted"), (0.0, "inconclusive")])
def test_comparison_verdicts(mean, want):
    claim = ComparisonClaim(id="test.cmp", statement="E d < 0", source="test", label="DERIVED",
                            fn=functools.partial(_paired, mean), threshold=0.0)
    r = verify_claim(claim, budget=400, seed=2, alpha=0.01)
    assert r.verdict == want and r.ci[0] < r.mean_diff < r.ci[1]


def _bad_identity(rng, n):
    x = rng.random(n)
    return x, x + 1e-6


def _bad_identity_mp(rng, n):                 # the same cases (same draws) at 50 digits
    x = rng.random(n)
    return [mpmath.mpf(v) for v in x], [mpmath.mpf(v) + mpmath.mpf("1e-6") for v in x]


def test_identity_refuted_when_beyond_tolerance():
    """Refuted (exact) only once 50 digits confirm it; float64 alone is inconclusive, warned;
    with a declared rounding scale (tol_mode="scale") float64 refutes, as a search."""
    claim = IdentityClaim(id="test.id", statement="x = x + 1e-6", source="test", label="DERIVED",
                          fn=_bad_identity, tol=1e-9)
    r = verify_claim(claim, budget=100, seed=0)
    assert r.verdict == "inconclusive" and any("float64 only" in w for w in r.warnings)
    r = verify_claim(replace(claim, fn_mp=_bad_identity_mp), budget=100, seed=0)
    assert r.verdict == "refuted" and r.guarantee == "exact" and r.confirmed > 0
    scaled = IdentityClaim(id="test.id2", statement="x = x + 1e-6", source="test", label="DERIVED",
                           fn=lambda rng, n: (*_bad_identity(rng, n), 1.0), tol=1e-9, tol_mode="scale")
    r = verify_claim(scaled, budget=100, seed=0)
    assert r.verdict == "refuted" and r.guarantee == "search" and any("float64 only" in w for w in r.warnings)


@pytest.mark.parametrize("kw,needle", [
    (dict(label="MAYBE"), "label must be one of"),
    (dict(delta=1.5), "delta must lie in (0, 1)"),
    (dict(chunk_size=0), "chunk_size must be a positive integer"),
    (dict(id="has space"), "claim id"),
])
def test_claim_validation(kw, needle):
    base = dict(id="t.x", statement="s", source="s", label="DERIVED", fn=_bad_identity, delta=0.1)
    with pytest.raises(ValueError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        ProbabilityClaim(**{**base, **kw})


@pytest.mark.parametrize("kw,needle", [(dict(alpha=0.0), "alpha"), (dict(alpha=1.0), "alpha"),
                                       (dict(budget=0), "budget"), (dict(seed=-1), "seed"),
                                       (dict(method="bayes"), "method")])
def test_verify_argument_validation(kw, needle):
    claim = ProbabilityClaim(id="t.x", statement="s", source="s", label="DERIVED",
                             fn=functools.partial(_paired, 0.0), delta=0.1)
    with pytest.raises(ValueError, match=needle):
        verify_claim(claim, **kw)


def test_a_deterministic_inequality_that_holds_says_so_and_a_search_one_does_not():
    kw = dict(sample=functools.partial(_unit_box, 2), evaluate=_amgm)
    assert verify_claim(_ineq(**kw), budget=50, seed=0).guarantee == "search"
    # deterministic=True on a domain of many points: the label would lie — it stays a search, warned
    r = verify_claim(_ineq(deterministic=True, **kw), budget=50, seed=0)
    assert r.guarantee == "search" and any("deterministic=True, but" in w for w in r.warnings)
    # one point: one evaluation is exhaustive
    one = dict(sample=lambda rng: np.array([0.25, 0.5]), evaluate=_amgm)
    r = verify_claim(_ineq(deterministic=True, **one), budget=1, seed=0)
    assert r.verdict == "holds" and r.guarantee == "deterministic" and not r.warnings


def test_a_one_point_claim_resting_on_an_approximation_is_an_estimate_warned_and_not_settled():
    """Issue 21 (c): a DP on a grid is an estimate of what it states: guarantee "estimate", the
    reason on every result, and --fail-on counts it as inconclusive, never as settled."""
    from theorycheck.cli_format import failing, summary_line

    one = dict(sample=lambda rng: np.array([0.25, 0.5]), evaluate=_amgm, deterministic=True)
    r = verify_claim(_ineq(basis=("estimate", "a grid of 5 nodes"), **one), budget=1, seed=0)
    assert r.verdict == "holds" and r.guarantee == "estimate"
    assert r.warnings == ("an estimate, not a bound: a grid of 5 nodes",)
    assert failing([r], ("inconclusive",)) and not failing([r], ("refuted", "unexpected"))
    assert "1 on numerical estimates only (not settled)" in summary_line([r])
    # a seeded simulation read through an exact interval: exact at its own level, said every time
    r = verify_claim(_ineq(basis=("exact", "CP at 0.005"), **one), budget=1, seed=0)
    assert r.guarantee == "exact" and "CP at 0.005" in r.warnings[0] and not failing([r], ("inconclusive",))
    # a refutation on an approximation is an estimate too (not a float64 rounding question)
    bad = dict(sample=lambda rng: np.array([0.25, 0.5]), evaluate=lambda th: (1.0, 0.5), deterministic=True)
    r = verify_claim(_ineq(basis=("estimate", "a grid"), **bad), budget=1, seed=0)
    assert r.verdict == "refuted" and r.guarantee == "estimate" and len(r.warnings) == 1
    # a sampler that moves: the basis does not make a search exhaustive
    many = dict(sample=functools.partial(_unit_box, 2), evaluate=_amgm, deterministic=True)
    r = verify_claim(_ineq(basis=("estimate", "x"), **many), budget=50, seed=0)
    assert r.guarantee == "search"


@pytest.mark.parametrize("basis", [("guess", "why"), ("estimate", ""), "estimate", ("exact",)])
def test_basis_must_name_estimate_or_exact_with_a_reason(basis):
    with pytest.raises(ValueError, match="basis"):
        _ineq(sample=lambda rng: np.zeros(1), evaluate=_amgm, deterministic=True, basis=basis)


def test_basis_needs_a_one_point_claim():
    with pytest.raises(ValueError, match="deterministic=True"):
        _ineq(sample=lambda rng: np.zeros(1), evaluate=_amgm, basis=("estimate", "a grid"))
