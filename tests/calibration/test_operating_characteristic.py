"""The guarantees of every claim kind, measured with the truth on the boundary.

Each rate cell of :mod:`theorycheck.calibrate` runs 1000 seeded replications
(seeds 0..999) at α = 0.2 and must stay at or below its promised rate ``r``
(α, or 2·α/2 for the asymptotic comparison): the test passes when the count
is at most ``c``, the smallest count with ``P(Binom(1000, r) > c) ≤ 10⁻³``.
A correctly calibrated engine fails a cell with probability ≤ 10⁻³, and a
rate of 1.5·r is caught with probability ≥ 0.9999 (asserted below), so the
test can fail.  Search kinds report detection rates of planted violations.
Slow cells are marked ``slow``.
"""
import functools

import numpy as np
import pytest
from scipy import stats as st

from theorycheck.calibrate import (CELLS, acceptance_count, exact_power_law, power_at,
                                    run_cell)
from proofs_check.engine import ScalingClaim, verify_claim

REPS, ALPHA = 1000, 0.2
RATE_CELLS = [c for c in CELLS if c.promise(ALPHA) is not None]
POWER_CELLS = [c for c in CELLS if c.promise(ALPHA) is None]


def _param(cells):
    return [pytest.param(c, id=f"{c.kind}: {c.name}", marks=[pytest.mark.slow] if c.slow else [])
            for c in cells]


def test_the_acceptance_rule_can_fail_at_one_and_a_half_times_the_promise():
    for rate in {c.promise(ALPHA) for c in RATE_CELLS}:
        assert power_at(REPS, rate) >= 0.9999
        assert st.binom.sf(acceptance_count(REPS, rate), REPS, rate) <= 1e-3


@pytest.mark.parametrize("cell", _param(RATE_CELLS))
def test_wrong_verdict_rate_is_within_the_promise(cell):
    r = run_cell(cell, REPS, ALPHA)
    assert r["ok"], (f"{cell.kind} / {cell.name}: {r['count']}/{REPS} ({r['rate']:.3f}) > "
                     f"promise {r['promise']} (accept ≤ {r['accept_max']})")


def _random_phase_detection(info: dict) -> float:
    """What the random half of the search alone detects: 1 − (1 − volume)^(evaluations/2)."""
    return 1.0 - (1.0 - info["volume"]) ** (info["evaluations"] // 2)


@pytest.mark.parametrize("cell", _param(POWER_CELLS))
def test_planted_violations_are_found_at_least_as_often_as_random_sampling_finds_them(cell):
    r = run_cell(cell, REPS, ALPHA)
    floor = _random_phase_detection(cell.info)
    assert r["count"] >= st.binom.ppf(1e-3, REPS, floor), (r["rate"], floor)


def test_deterministic_scaling_is_identical_across_budgets():
    x = (2.0, 4.0, 8.0, 16.0, 32.0)
    fn = functools.partial(exact_power_law, a=1.5, x=x)
    for deterministic in (True, False):
        claim = ScalingClaim(id="t.det", statement="s", source="t", label="DERIVED", fn=fn, x=x,
                             exponent_lo=1.0, exponent_hi=1.4, deterministic=deterministic)
        results = [verify_claim(claim, budget=b, seed=s) for b in (1, 2, 5) for s in (0, 3)]
        assert {(r.verdict, r.exponent, r.guarantee) for r in results} == {
            ("refuted", results[0].exponent, "deterministic")}
        assert all(r.exponent_ci is None for r in results)
        assert results[0].exponent == pytest.approx(np.polyfit(np.log(x), np.log(fn(None, 1)[0]), 1)[0])


def test_zero_variance_differences_are_never_decisive_without_bounds():
    from proofs_check.engine import ComparisonClaim
    from theorycheck.calibrate import bernoulli_diffs
    c = ComparisonClaim(id="t.zero", statement="s", source="t", label="DERIVED",
                        fn=functools.partial(bernoulli_diffs, p=0.0), threshold=0.05)
    r = verify_claim(c, budget=50)
    assert r.verdict == "inconclusive" and r.warnings
    # with declared bounds the same all-zero data is evidence, at an anytime-valid level
    assert verify_claim(dataclasses_replace(c, bounds=(0.0, 1.0)), budget=50).guarantee == "anytime-valid"


def dataclasses_replace(c, **kw):
    import dataclasses
    return dataclasses.replace(c, **kw)


def test_variance_is_stable_far_from_zero():
    """|mean|/sd = 1e9: raw power sums would cancel to nonsense."""
    from proofs_check.engine import ComparisonClaim
    c = ComparisonClaim(id="t.offset", statement="s", source="t", label="DERIVED",
                        fn=_offset_normal, threshold=1e9 + 1.0)
    r = verify_claim(c, budget=400)
    assert r.sd == pytest.approx(1.0, rel=0.15) and r.verdict == "holds"


def _offset_normal(rng, n):
    return 1e9 + rng.standard_normal(n)
