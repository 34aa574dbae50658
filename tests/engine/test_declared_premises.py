"""Issue 31, "declared premises are printed": what a statistical guarantee rests on beyond the
data is printed with the verdict and checked where the data allow.

* a sign comparison is printed as the majority it decides, not as a mean (review N6);
* a declared variance bound is printed as the premise of the Catoni route, and a bound the data
  refute withholds the verdict (N7);
* clustered trials are detected within a chunk, or declared (``cluster=m``), and a run whose
  independence could not be checked says so (F7);
* a same-seed re-run at another fixed budget through the Python API is labelled (F3).
"""
import functools
import math

import numpy as np
import pytest
from scipy import stats as st

from proofs_check.engine import ComparisonClaim, ProbabilityClaim, verify_claim
from proofs_check.engine.catoni import VARIANCE_CHECK_LEVEL, variance_excess_log_e
from proofs_check.engine.kinds.comparison import (ComparisonResult, default_statement, is_sign_statistic,
                                                  sign_of)
from proofs_check.engine.results import Result
from proofs_check.engine.stats import block_dispersion_pvalue, log_e_above, log_e_below
from proofs_check.engine.verify import _forget_looks


def _mostly_up(rng, n):
    """+1 w.p. 0.9, −20 otherwise: E D = −1.1 but P(D > 0) − P(D < 0) = 0.8."""
    return np.where(rng.random(n) < 0.9, 1.0, -20.0)


def _outliers(rng, n):
    """N(0, 1) + 50·Bernoulli(0.01): mean 0.5, variance 25.75 (review N7)."""
    return rng.standard_normal(n) + 50.0 * (rng.random(n) < 0.01)


def _clustered_diffs(rng, n, m=20):
    """Runs of m consecutive differences share a N(0, 1) offset: mean 0, Var d = 2."""
    return np.repeat(rng.standard_normal(n // m), m) + rng.standard_normal(n)


def _events(rng, n, *, p, m):
    """m·Binomial(n/m, p) events: runs of m trials share one outcome."""
    return int(m * rng.binomial(n // m, p))


def _cmp(fn, threshold, **kw):
    kw.setdefault("chunk_size", 100)
    return ComparisonClaim(id="t.premises", statement="s", source="t", label="DERIVED", fn=fn,
                           threshold=threshold, **kw)


def _prob(fn, **kw):
    return ProbabilityClaim(id="t.premises.p", statement="s", source="t", label="DERIVED", fn=fn,
                            delta=0.1, **kw)


# -- N6: the sign comparison in its own terms -----------------------------------------------

def test_a_sign_comparison_is_printed_as_a_majority_not_a_mean():
    c = _cmp(functools.partial(sign_of, _mostly_up), 0.0, bounds=(-1.0, 1.0), alternative="greater")
    r = verify_claim(c, budget=400, seed=0)
    assert r.verdict == "holds" and r.statistic == "sign"
    assert r.summary().startswith("more instances with D > 0 than D < 0: E sign(D) = ")
    assert "mean" not in r.summary() and "mean" not in r.headline()
    assert r.headline().endswith("claim: D > 0 on more instances than D < 0")
    assert "P(D > 0) − P(D < 0)" in r.interval("95%") and "P(D > 0) − P(D < 0)" in r.headline()
    # the same differences without sign_of are a mean, and the mean is refuted
    m = verify_claim(_cmp(_mostly_up, 0.0, bounds=(-20.0, 1.0), alternative="greater"), budget=400, seed=0)
    assert m.statistic == "mean" and m.summary().startswith("mean diff")


def test_sign_statistic_is_found_inside_the_declaration_wrapper():
    inner = functools.partial(sign_of, _mostly_up)
    assert is_sign_statistic(inner)
    assert is_sign_statistic(functools.partial(print, inner, "cid"))      # declare.py wraps fn like this
    assert not is_sign_statistic(_mostly_up) and not is_sign_statistic(functools.partial(_mostly_up))
    assert default_statement(inner, "greater", 0.0, "x") == "D > 0 on more instances than D < 0"
    assert default_statement(inner, "less", 0.0, "x") == "D < 0 on more instances than D > 0"
    assert default_statement(inner, "greater", 0.2, "x") == "P(D > 0) − P(D < 0) > 0.2"
    assert default_statement(_mostly_up, "less", 0.5, "f") == "E[f] < 0.5"


# -- N7: a declared variance bound is a printed, checked premise -------------------------------

def test_the_variance_premise_is_printed_and_kept_in_the_result():
    c = _cmp(_outliers, 5.0, variance_bound=25.75)
    r = verify_claim(c, budget=400, seed=0, alpha=0.05)
    assert r.method == "catoni" and r.premises == ("Var(D) ≤ 25.75 (declared)",)
    assert r.summary().endswith("; anytime-valid if Var(D) ≤ 25.75 (declared)")
    assert r.headline().endswith("; anytime-valid if Var(D) ≤ 25.75 (declared)")
    back = Result.from_dict(r.to_dict())
    assert isinstance(back, ComparisonResult) and back.premises == r.premises
    # the bounds route rests on no declaration beyond the bounds, which are enforced: no premise
    b = verify_claim(_cmp(_mostly_up, 0.0, bounds=(-20.0, 1.0)), budget=400, seed=0)
    assert b.premises == () and " if " not in b.summary()


def test_the_variance_check_false_alarm_rate_is_within_its_level():
    """Heavy tails with Var d exactly the declared bound: Ville's inequality bounds the
    false-alarm rate by VARIANCE_CHECK_LEVEL for every distribution (0 expected in 1500)."""
    rng = np.random.default_rng(31)
    thr = math.log(1.0 / VARIANCE_CHECK_LEVEL)
    alarms = sum(variance_excess_log_e(_outliers(rng, 2000), 25.75)[0] >= thr for _ in range(750))
    alarms += sum(variance_excess_log_e(rng.pareto(2.5, 2000), 2.5 / (1.5 ** 2 * 0.5))[0] >= thr
                  for _ in range(750))
    assert alarms <= st.binom.isf(1e-3, 1500, VARIANCE_CHECK_LEVEL), alarms


def test_a_bound_the_data_refute_withholds_the_verdict():
    """The review's case: Var d = 25.75 declared as 1, mean at the threshold (every decisive
    verdict is wrong).  A run that saw the outliers is withheld, naming the observed variance."""
    c = _cmp(_outliers, 0.5, variance_bound=1.0)
    results = [verify_claim(c, budget=2000, seed=s, alpha=0.05) for s in range(20)]
    flagged = [r for r in results if any("refute the declared variance_bound 1" in w for w in r.warnings)]
    assert len(flagged) >= 10
    for r in flagged:
        assert r.verdict == "inconclusive"
        w = next(w for w in r.warnings if "refute" in w)
        assert "sample variance" in w and "largest deviation" in w
    assert all(r.premises[0] == "Var(D) ≤ 1 (declared)" for r in results)
    # the check reads the data: a bound that holds is (almost) never flagged
    assert variance_excess_log_e(np.random.default_rng(0).standard_normal(4000), 1.0)[0] < 3.0


# -- F7: clustered trials ---------------------------------------------------------------------

def test_clustered_differences_are_detected_within_one_chunk():
    c = _cmp(_clustered_diffs, 0.0, variance_bound=2.0, chunk_size=200)
    warned = 0
    for s in range(10):
        r = verify_claim(c, budget=200, seed=s, alpha=0.05)
        assert r.chunks == 1
        warned += any("consecutive differences vary more than independent draws allow" in w
                      for w in r.warnings)
    assert warned >= 7, warned


def test_the_block_test_rarely_fires_on_independent_draws():
    """Gaussian and rare-outlier data, one chunk of 100 in blocks of 10: false alarms at the
    1e-3 level (at most 3 in 1000 per law, P(Binom(1000, 1e-3) > 4) < 4e-3)."""
    rng = np.random.default_rng(7)
    for draw in (lambda: rng.standard_normal(100), lambda: 100.0 * (rng.random(100) < 0.01),
                 lambda: rng.standard_t(2.5, 100)):
        p = [block_dispersion_pvalue([draw()], 10) for _ in range(1000)]
        assert sum(v is not None and v < 1e-3 for v in p) <= 4


@pytest.mark.slow
def test_declared_cluster_restores_the_guarantee():
    """Clusters of 20 at E d = 0 (Catoni, Var d = 2 true): undeclared, the dependence is
    ignored and wrong verdicts exceed α; declared, within α."""
    alpha, reps = 0.2, 150
    accept = int(st.binom.isf(1e-3, reps, alpha))
    wrong = [sum(verify_claim(_cmp(_clustered_diffs, 0.0, variance_bound=2.0, **kw), budget=1000, seed=s,
                              alpha=alpha).verdict != "inconclusive" for s in range(reps))
             for kw in ({}, {"cluster": 20})]
    assert wrong[1] <= accept < wrong[0], wrong
    r = verify_claim(_cmp(_clustered_diffs, 0.0, variance_bound=2.0, cluster=20), budget=1000, seed=0)
    assert "runs of 20 consecutive trials independent of each other (declared)" in r.premises
    assert r.cluster == 20 and r.n == 1000


@pytest.mark.parametrize("bad", [0, 3, -5, 2.0, True, "5"])
def test_cluster_must_divide_the_chunk(bad):
    with pytest.raises(ValueError, match="cluster must be a whole divisor of chunk_size 100"):
        _cmp(_mostly_up, 0.0, cluster=bad)
    with pytest.raises(ValueError, match="cluster must be a whole divisor of chunk_size 100"):
        _prob(functools.partial(_events, p=0.1, m=1), cluster=bad, chunk_size=100)


def test_a_probability_run_of_one_chunk_says_independence_was_not_checked():
    one = verify_claim(_prob(functools.partial(_events, p=0.01, m=1), chunk_size=10_000), budget=10_000)
    assert one.chunks == 1
    assert one.premises == ("trials independent (not checked: stopped after 1 chunk)",)
    assert one.summary().endswith("; anytime-valid if trials independent (not checked: stopped after 1 chunk)")
    two = verify_claim(_prob(functools.partial(_events, p=0.1, m=1), chunk_size=500), budget=20_000)
    assert two.chunks > 1 and two.premises == ()


@pytest.mark.slow
def test_declared_clusters_of_events_keep_the_probability_guarantee():
    """Runs of 5 trials share one outcome, p = δ (every decisive verdict wrong; the review's
    F7 case has runs of 2).  Declared cluster=5 decides on run fractions, under both methods."""
    alpha, reps = 0.2, 200
    accept = int(st.binom.isf(1e-3, reps, alpha))
    fn = functools.partial(_events, p=0.1, m=5)
    undeclared = sum(verify_claim(_prob(fn, chunk_size=500), budget=20_000, seed=s, alpha=alpha).verdict
                     != "inconclusive" for s in range(reps))
    declared = [verify_claim(_prob(fn, chunk_size=500, cluster=5), budget=20_000, seed=s, alpha=alpha)
                for s in range(reps)]
    assert sum(r.verdict != "inconclusive" for r in declared) <= accept < undeclared
    # the e-values are those of k/5 "events" in n/5 runs
    r = declared[0]
    assert r.log_e_below == pytest.approx(log_e_below(r.events / 5, r.trials // 5, 0.1))
    assert r.log_e_above == pytest.approx(log_e_above(r.events / 5, r.trials // 5, 0.1))
    fixed = verify_claim(_prob(fn, chunk_size=500, cluster=5), budget=4_000, seed=0, method="fixed")
    assert fixed.guarantee == "anytime-valid" and fixed.method == "anytime"
    assert fixed.premises == ("runs of 5 consecutive trials independent of each other (declared)",)


# -- F3: same seed, another fixed budget, no store ----------------------------------------------

def test_an_api_rerun_with_the_same_seed_and_a_larger_fixed_budget_is_labelled():
    _forget_looks()
    claim = _prob(functools.partial(_events, p=0.1, m=1), chunk_size=500)
    first = verify_claim(claim, budget=2_000, seed=3, method="fixed")
    again = verify_claim(claim, budget=2_000, seed=3, method="fixed")          # exact repeat: same test
    assert not any("same seed" in w for w in first.warnings + again.warnings)
    bigger = verify_claim(claim, budget=4_000, seed=3, method="fixed")
    w = [w for w in bigger.warnings if "same seed = same data" in w]
    assert len(w) == 1 and "exact error bound holds for the first look only" in w[0]
    assert "4 chunks of 500" in w[0] and "seed=4" in w[0]
    assert bigger.premises[-1] == ("this is the first test of seed 3's data (it is not: an earlier fixed "
                                   "test in this process used 4 chunks of 500)")
    assert "; exact if this is the first test of seed 3's data (it is not: " in bigger.summary()
    # a fresh seed, and the anytime method, are not labelled
    assert not any("same seed" in w for w in verify_claim(claim, budget=4_000, seed=4, method="fixed").warnings)
    assert not any("same seed" in w for w in verify_claim(claim, budget=8_000, seed=3).warnings)
    _forget_looks()
