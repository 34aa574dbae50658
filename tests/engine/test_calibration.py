"""Calibration and power of probability verdicts (verification.md §2).

Calibration: on a Bernoulli claim whose true p equals δ, any decisive verdict
is wrong; over R replications its rate must be ≤ α.  The check uses the exact
one-sided Clopper–Pearson lower bound at level 1 − 1e-3 on that rate, so a
correctly calibrated engine fails this test with probability ≤ 1e-3.
"""
import functools

import pytest
from scipy import stats as st

import proofs_check as pc
from proofs_check.engine import ProbabilityClaim, verify_claim
from proofs_check.seed_claims import bernoulli_events

DELTA, ALPHA, REPS = 0.05, 0.05, 1000


def _claim(p, delta=DELTA):
    return ProbabilityClaim(id="test.bernoulli", statement="P(X = 1) ≤ δ", source="test",
                            label="DERIVED", fn=functools.partial(bernoulli_events, p),
                            delta=delta, chunk_size=200)


def _lower_bound(k, n, level=1e-3):
    return 0.0 if k == 0 else float(st.beta.ppf(level, k, n - k + 1))


@pytest.mark.parametrize("method,budget", [("anytime", 20_000), ("fixed", 4_000)])
def test_wrong_verdict_rate_at_p_equal_delta_is_at_most_alpha(method, budget):
    claim = _claim(DELTA)
    wrong = sum(verify_claim(claim, budget=budget, seed=s, alpha=ALPHA, method=method).verdict != "inconclusive"
                for s in range(REPS))
    assert _lower_bound(wrong, REPS) <= ALPHA, f"{wrong}/{REPS} wrong verdicts at p = δ ({method})"


def test_anytime_decides_clear_cases_quickly():
    for p, want in ((DELTA / 2, "holds"), (2 * DELTA, "refuted")):
        r = verify_claim(_claim(p), budget=20_000, seed=3, alpha=ALPHA)
        assert r.verdict == want and r.stopped_early and r.trials < 5_000


def test_power_false_dg_claim_is_refuted_within_default_budget():
    claim = pc.claims("seed.dg_tail_doubled")[0]
    r = pc.verify(claim.id)                       # default budget, default alpha 0.01
    assert r.verdict == "refuted"
    assert r.trials <= claim.default_budget
    assert r.ci[0] > r.delta


def test_true_dg_claim_holds():
    r = pc.verify("seed.dg_tail")
    assert r.verdict == "holds" and r.ci[1] < r.delta
