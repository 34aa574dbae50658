"""Power of probability verdicts (docs/theory/engine.md#statistics).

Calibration of every kind (wrong-verdict rates with the truth on the
boundary) is in ``tests/calibration/``.
"""
import functools


import proofs_check as pc
from proofs_check.engine import ProbabilityClaim, verify_claim
from proofs_check.selftest.samplers import bernoulli_events

DELTA, ALPHA = 0.05, 0.05


def _claim(p, delta=DELTA):
    return ProbabilityClaim(id="test.bernoulli", statement="P(X = 1) ≤ δ", source="test",
                            label="DERIVED", fn=functools.partial(bernoulli_events, p=p),
                            delta=delta, chunk_size=200)


def test_anytime_decides_clear_cases_quickly():
    for p, want in ((DELTA / 2, "holds"), (2 * DELTA, "refuted")):
        r = verify_claim(_claim(p), budget=20_000, seed=3, alpha=ALPHA)
        assert r.verdict == want and r.stopped_early and r.trials < 5_000


def test_power_false_dg_claim_is_refuted_within_default_budget():
    claim = pc.claims("selftest.dg_tail_doubled")[0]
    r = pc.verify(claim.id)                       # default budget, default alpha 0.01
    assert r.verdict == "refuted"
    assert r.trials <= claim.default_budget
    assert r.ci[0] > r.delta


def test_true_dg_claim_holds():
    r = pc.verify("selftest.dg_tail")
    assert r.verdict == "holds" and r.ci[1] < r.delta
