"""Every claim with an ``expected`` verdict reaches it at its default budget
(seed 0, α = 0.01), and every result states its guarantee.

Identity and inequality claims run in the default test run; the Monte Carlo
kinds (probability, comparison, scaling) at default budget are ``slow``.
"""
import pytest

import proofs_check as pc
from proofs_check.engine.results import GUARANTEES

FAST_KINDS = ("identity", "inequality")


def _cases():
    out = []
    for c in pc.claims():
        if c.expected is None:
            continue
        marks = [] if c.kind in FAST_KINDS else [pytest.mark.slow]
        out.append(pytest.param(c, id=c.id, marks=marks))
    return out


def test_controls_have_an_expected_verdict():
    missing = [c.id for c in pc.claims() if c.role == "control" and c.expected is None]
    assert not missing, f"controls without an expected verdict: {missing}"


def test_no_expected_verdict_is_hidden_in_prose():
    import re
    pat = re.compile(r"expected (verdict:? )?'?(refuted|holds)|negative control", re.I)
    prose = [c.id for c in pc.claims() if pat.search(c.statement)]
    assert not prose, f"statements that carry their expected verdict in prose: {prose}"


@pytest.mark.parametrize("claim", _cases())
def test_claim_reaches_its_expected_verdict(claim):
    r = pc.verify(claim.id, seed=0, alpha=0.01)
    assert r.guarantee in GUARANTEES
    assert r.verdict == claim.expected, (f"{claim.id}: {r.verdict} ({r.summary()}; "
                                         f"warnings {r.warnings}), expected {claim.expected}")
