"""Scaling claims decide only where mathematics backs them (issue 21, items 1 and 8).

* ties among random replicates never make a claim deterministic (no spread → inconclusive);
* ``deterministic=True`` is verified: replicates from two independent streams must agree bitwise;
* the estimand is declared (``"mean"``: slope of log E y, delta method; ``"log-mean"``: slope of
  E log y) and named in the result, its JSON and its words (``docs/theory/engine.md`` §2.5).
"""
import functools
import math

import numpy as np
import pytest
from scipy import stats as st

from proofs_check.engine import Result, ScalingClaim, replace, verify_claim

X = (2.0, 4.0, 8.0, 16.0, 32.0, 64.0)


def _quantised(rng, n, *, x, p=0.1):
    """Per replicate y = x (prob. 1 − p) or x² (prob. p): E log y = (1 + p)·log x."""
    x = np.asarray(x, float)
    square = rng.random(n) < p
    return np.where(square[:, None], x ** 2, x) * np.ones((n, x.size))


def _mean_linear(rng, n, *, x, kappa):
    """E y = x exactly; log y ~ N(log x − s²/2, s²) with s² = κ·ln x (spread grows with x), so
    the slope of E log y is 1 − κ/2."""
    x = np.asarray(x, float)
    s = np.sqrt(kappa * np.log(x))
    return x * np.exp(s * rng.standard_normal((n, x.size)) - s ** 2 / 2)


def _exact(rng, n, *, x):
    x = np.asarray(x, float)
    return np.tile(x ** 1.5 * (1 + 0.1 / x), (n, 1))


def _uses_rng(rng, n, *, x):
    x = np.asarray(x, float)
    return np.tile(x ** 1.5, (n, 1)) * (1 + 1e-12 * rng.random((n, 1)))


def _with_zeros(rng, n, *, x):
    """Counts: Poisson with mean x (zeros happen at small x); E y = x."""
    return rng.poisson(np.asarray(x, float), size=(n, len(x))).astype(float)


def _claim(fn, lo, hi, **kw):
    return ScalingClaim(id="t.scaling", statement="s", source="t", label="DERIVED", fn=fn, x=X,
                        exponent_lo=lo, exponent_hi=hi, **kw)


# -- item 1: ties -------------------------------------------------------------

@pytest.mark.parametrize("estimand", ["mean", "log-mean"])
def test_tied_random_replicates_are_inconclusive_never_deterministic(estimand):
    claim = _claim(functools.partial(_quantised, x=X), 0.9, 1.05, estimand=estimand)
    tied = 0
    for seed in range(40):
        r = verify_claim(claim, budget=3, seed=seed)
        assert r.guarantee == "asymptotic" and not r.deterministic
        if r.distinct_replicates == 1:
            tied += 1
            assert r.verdict == "inconclusive" and r.tied
            assert r.exponent_ci == (-math.inf, math.inf)
            assert any("no spread" in w for w in r.warnings)
            assert "deterministic=True" in r.settle_advice()
    assert tied > 20                       # 0.9³ of the seeds: the case is exercised


def test_quantised_measurement_is_never_wrongly_held():
    """The reproducer of issue 21 item 1 (before: wrong 'holds' 72.9 % at R = 3, 35.4 % at R = 10)."""
    claim = _claim(functools.partial(_quantised, x=X), 0.9, 1.05, estimand="log-mean")
    for budget in (3, 10):
        held = sum(verify_claim(claim, budget=budget, seed=s).verdict == "holds" for s in range(150))
        assert held == 0, (budget, held)


def test_partly_tied_replicates_are_decided_with_a_discreteness_warning():
    claim = _claim(functools.partial(_quantised, x=X, p=0.5), 1.0, 2.0, estimand="log-mean")
    r = verify_claim(claim, budget=12, seed=1)
    assert 1 < r.distinct_replicates < 12
    assert any("distinct replicates" in w for w in r.warnings)


# -- deterministic=True is verified -------------------------------------------

def test_a_declared_deterministic_claim_that_reads_its_generator_is_an_error():
    claim = _claim(functools.partial(_uses_rng, x=X), 1.0, 2.0, deterministic=True)
    with pytest.raises(ValueError, match=r"claim t\.scaling: declared deterministic=True.*differ"):
        verify_claim(claim, budget=1)


def test_a_declared_deterministic_claim_is_checked_on_two_streams_and_decided_exactly():
    claim = _claim(functools.partial(_exact, x=X), 1.0, 1.4, deterministic=True)
    results = [verify_claim(claim, budget=b, seed=s) for b in (1, 7) for s in (0, 5)]
    assert {(r.verdict, r.guarantee, r.replicates, r.chunks, r.exponent) for r in results} == {
        ("refuted", "deterministic", 2, 2, results[0].exponent)}
    assert results[0].estimand == "exact" and results[0].exponent_ci is None
    assert "runs agree bitwise" in results[0].summary()
    assert claim.decision_method("anytime") == "deterministic"


# -- item 8: the estimand -----------------------------------------------------

def test_the_two_estimands_differ_where_the_spread_of_log_y_grows_with_x():
    """E y ∝ x exactly, E log y ∝ x^0.85: each estimand finds its own slope."""
    fn = functools.partial(_mean_linear, x=X, kappa=0.3)
    mean = verify_claim(_claim(fn, 0.95, 1.05, estimand="mean"), budget=400, seed=0)
    logm = verify_claim(_claim(fn, 0.95, 1.05, estimand="log-mean"), budget=400, seed=0)
    assert mean.exponent_ci[0] <= 1.0 <= mean.exponent_ci[1] and mean.verdict != "refuted"
    assert logm.exponent_ci[0] <= 0.85 <= logm.exponent_ci[1] and logm.verdict == "refuted"
    assert (mean.estimand, logm.estimand) == ("mean", "log-mean")
    assert "exponent of E y" in mean.headline() and "exponent of E log y" in logm.headline()
    assert "log E y" in mean.interval("99%") and "delta-method" in mean.interval("99%")
    assert "E log y" in logm.interval("99%")


def test_mean_estimand_refutes_a_true_mean_law_rarely():
    """The reproducer of issue 21 item 8 (before, as the slope of E log y: refuted 22.6 % at
    R = 30, window [0.95, 1.05]); as the slope of log E y it stays near the nominal level."""
    claim = _claim(functools.partial(_mean_linear, x=X, kappa=0.3), 0.95, 1.05, estimand="mean")
    refuted = sum(verify_claim(claim, budget=30, seed=s).verdict == "refuted" for s in range(200))
    # nominal ≤ α/2 = 0.005 per side at α = 0.01; 5 of 1000 measured. Accept ≤ 6 of 200
    # (P(Binom(200, 0.01) > 6) < 0.005), which 22.6 % would exceed with certainty.
    assert refuted <= 6, refuted


def test_the_delta_method_interval_is_the_textbook_one():
    """b̂ = Σ w_i log ȳ_i; Var b̂ ≈ gᵀ S g / R with g_i = w_i/ȳ_i and S the sample covariance."""
    rng = np.random.default_rng(3)
    y = _mean_linear(rng, 7, x=X, kappa=0.2)
    claim = _claim(lambda rng, n: y[:n], 0.0, 2.0, estimand="mean", chunk_size=7)
    r = claim.decide([y.ravel().tolist()], 0.05, "anytime", 1, _common())
    lx = np.log(X)
    b, _ = np.polyfit(lx, np.log(y.mean(axis=0)), 1)
    w = (lx - lx.mean()) / ((lx - lx.mean()) @ (lx - lx.mean()))
    g = w / y.mean(axis=0)
    se = math.sqrt(g @ np.cov(y, rowvar=False) @ g / 7)
    h = st.t.isf(0.025, 6) * se
    assert r.exponent == pytest.approx(b, rel=1e-12)
    assert r.exponent_ci == pytest.approx((b - h, b + h), rel=1e-9)


def _common():
    return dict(claim="t.scaling", kind="scaling", statement="s", source="t", label="DERIVED", seed=0,
                alpha=0.05, budget=7, chunks=1, params={}, notes="", role="statement", expected=None)


def test_mean_estimand_accepts_zeros_and_log_mean_does_not():
    fn = functools.partial(_with_zeros, x=(0.5, 1.0, 2.0, 4.0, 8.0))
    kw = dict(id="t.zeros", statement="s", source="t", label="DERIVED", fn=fn, x=(0.5, 1.0, 2.0, 4.0, 8.0),
              exponent_lo=0.8, exponent_hi=1.2)
    r = verify_claim(ScalingClaim(**kw, estimand="mean"), budget=200, seed=0)
    assert math.isfinite(r.exponent) and r.exponent_ci[0] <= 1.0 <= r.exponent_ci[1]
    r = verify_claim(ScalingClaim(**kw, estimand="log-mean"), budget=200, seed=0)
    assert r.verdict == "inconclusive" and math.isnan(r.exponent)


def test_the_estimand_is_part_of_the_decision_and_the_record():
    c = _claim(functools.partial(_quantised, x=X), 0.9, 1.05)
    assert c.estimand == "mean"
    other = replace(c, estimand="log-mean")
    assert c.fingerprint() != other.fingerprint()
    assert (c.decision_method("anytime"), other.decision_method("anytime")) == ("delta-mean", "t-slopes")
    assert set(ScalingClaim.fixed_sample_decisions) == {"delta-mean", "t-slopes"}
    det = replace(c, deterministic=True, fn=functools.partial(_exact, x=X))
    assert det.fingerprint() == replace(det, estimand="log-mean").fingerprint()
    r = verify_claim(other, budget=10, seed=4)
    d = r.to_dict()
    assert d["estimand"] == "log-mean" and Result.from_dict(d) == r
    old = {k: v for k, v in d.items() if k not in ("estimand", "distinct_replicates")}
    assert Result.from_dict(old).estimand == "log-mean"      # records from before the field


@pytest.mark.parametrize("kw,err,needle", [
    (dict(estimand="median"), ValueError, "estimand must be one of"),
    (dict(estimand=None), ValueError, "estimand must be one of"),
    (dict(deterministic="yes"), TypeError, "deterministic must be True or False"),
])
def test_bad_declarations_are_refused(kw, err, needle):
    with pytest.raises(err, match=needle):
        _claim(functools.partial(_exact, x=X), 1.0, 2.0, **kw)


def test_declare_scaling_passes_the_estimand():
    import proofs_check as pc

    def measure(rng, x):
        return float(rng.poisson(x))

    c = pc.scaling("t.declared", measure, x=(1, 2, 4, 8), exponent=(0.8, 1.2), estimand="log-mean",
                   register=False, probe=False)
    assert c.estimand == "log-mean"
    assert pc.scaling("t.declared2", measure, x=(1, 2, 4, 8), exponent=(0.8, 1.2), register=False,
                      probe=False).estimand == "mean"
    with pytest.raises(ValueError, match="estimand"):
        pc.scaling("t.declared3", measure, x=(1, 2, 4, 8), exponent=(0.8, 1.2), estimand="avg",
                   register=False, probe=False)
