"""Every claim with an ``expected`` verdict reaches it at its default budget
(seed 0, α = 0.01), and every result states its guarantee; at quick budgets
each topic passes the whole conformance kit (:mod:`theorycheck.testing`),
where a quick verdict may be inconclusive but never contradicts ``expected``.

Identity claims run in the default test run; the inequality claims (a search,
and for the worst-case claims a DP, per evaluation: 1–8 s each), the Monte Carlo
kinds (probability, comparison, scaling) at default budget, and the topics at
quick budgets, are ``slow`` (CI runs them after the default run).  The topics are read from the entry points.
"""
from pathlib import Path

import pytest

import proofs_check as pc
from tests.test_layering import topic_entry_points
from theorycheck.testing import check_claims_module, expectation_problems, verdict_problem

FAST_KINDS = ("identity",)
THEORY = Path(__file__).resolve().parents[1] / "docs" / "theory"
#: entry-point name (the id prefix) -> claims module, for this distribution's topics
TOPIC_MODULES = topic_entry_points()


def _cases():
    out = []
    for c in pc.claims():
        if c.expected is None:
            continue
        marks = [] if c.kind in FAST_KINDS else [pytest.mark.slow]
        out.append(pytest.param(c, id=c.id, marks=marks))
    return out


def test_controls_have_an_expected_verdict_and_none_is_hidden_in_prose():
    bad = expectation_problems(pc.claims())
    assert not bad, "\n".join(bad)


def test_a_planted_control_without_expected_or_with_prose_is_caught():
    from proofs_check.engine import replace

    c = next(c for c in pc.claims() if c.role == "control")
    assert expectation_problems([c]) == []
    assert "must declare" in " ".join(expectation_problems([replace(c, expected=None)]))
    assert "in prose" in " ".join(expectation_problems([replace(c, statement=c.statement + " (negative control)")]))


@pytest.mark.parametrize("claim", _cases())
def test_claim_reaches_its_expected_verdict(claim):
    problem = verdict_problem(claim, quick=False, seed=0, alpha=0.01)
    assert problem is None, problem


def test_a_planted_wrong_expected_verdict_is_caught():
    from proofs_check.engine import replace

    c = next(c for c in _cases_of_kind("identity") if c.expected == "holds")
    assert verdict_problem(c, quick=True) is None
    flipped = replace(c, expected="refuted")
    for quick in (True, False):
        problem = verdict_problem(flipped, quick=quick)
        assert problem and "verdict holds, expected refuted" in problem, problem


def _cases_of_kind(kind):
    return [c for c in pc.claims() if c.kind == kind]


@pytest.mark.slow
@pytest.mark.parametrize("topic", sorted(TOPIC_MODULES))
def test_topic_passes_the_conformance_kit_at_quick_budgets(topic):
    check_claims_module(TOPIC_MODULES[topic], quick=True, seed=0, theory_dir=THEORY, structured_sources=True)
