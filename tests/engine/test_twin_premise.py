"""One source of truth per claim (issue 31): callables with an ``arb=`` twin are proved only
when the twin is the callables' function.

``domains.CheckedCertifier`` compares them at the search's worst point, the default point
and 64 seeded points (50 digits for the twin); a disagreement keeps the claim searched, with
a warning naming the point and both values.  A refutation by the twin is accepted only where
the callables violate too, and only at a point of the domain.
"""
from __future__ import annotations

import math
import types

import pytest
import sympy as sp

import theorycheck as tc
from proofs_check import declare, domains
from proofs_check.engine import certify as C
from proofs_check.engine import verify_claim

x = sp.Symbol("x")


def _bump(x):
    """x plus a narrow bump at 0.37 (height 0.5): below x + 1 everywhere, and where the search's
    worst point lands."""
    return x + 0.5 * math.exp(-((x - 0.37) / 0.01) ** 2)


def test_a_faithful_twin_is_proved_but_the_callables_stay_searched():
    """A proof of the twin is not a proof of the callables (agreement at sampled points is not
    identity): the verdict stays a search, and the warning says the twin itself was proved."""
    c = tc.inequality("t31.faithful", lhs=lambda x: 1 + x, rhs=lambda x: math.exp(x), domain=tc.Box(x=(-1, 1)),
                      arb=(1 + x, sp.exp(x)), register=False)
    assert c.certifier.premise_failure(None) == ""
    assert not c.certifier.proves_claim
    r = verify_claim(c, executor="serial", budget=400)
    assert (r.verdict, r.guarantee) == ("holds", "search")
    assert any("twin" in w and "is proved in ball arithmetic" in w for w in r.warnings), r.warnings


def test_a_twin_that_differs_on_a_window_no_point_reaches_is_not_proved():
    """The window (1e-7 wide) is missed by every sampled point: still never 'proved'."""
    def lhs(x):
        return x + (1.0 if 0.5 < x < 0.5 + 1e-7 else 0.0)
    c = tc.inequality("t31.window", lhs=lhs, rhs=lambda x: x + 0.5, domain=tc.Box(x=(0, 1)),
                      arb=(x, x + sp.Rational(1, 2)), register=False)
    for seed in range(3):
        r = verify_claim(c, executor="serial", seed=seed, budget=400)
        assert r.guarantee != "proved", (seed, r)


def test_a_twin_that_differs_where_the_search_looked_is_never_proved():
    c = tc.inequality("t31.bump", lhs=_bump, rhs=lambda x: x + 1, domain=tc.Box(x=(0, 1)), arb=(x, x + 1),
                      register=False)
    for seed in range(5):
        r = verify_claim(c, executor="serial", seed=seed, budget=400)
        assert r.verdict == "holds" and r.guarantee == "search", (seed, r)
        assert any("not the callables' function" in w for w in r.warnings), r.warnings


def test_the_worst_point_is_checked_even_when_no_sampled_point_sees_the_difference():
    def spike(x):                                    # differs from the twin only on (0.6180, 0.6181)
        return x + (0.25 if 0.6180 < x < 0.6181 else 0.0)

    c = tc.inequality("t31.spike", lhs=spike, rhs=lambda x: x + 1, domain=tc.Box(x=(0, 1)), arb=(x, x + 1),
                      register=False, probe=False)
    cc = c.certifier
    assert cc.premise_failure(None) == ""            # 65 seeded points miss the window
    worst = types.SimpleNamespace(worst_point={"x": 0.61805})
    why = cc.premise_failure(worst)
    assert "x': 0.61805" in why and "lhs = 0.868" in why and "searched, not proved" in why
    # through upgrade (the hook the kinds call)
    res = types.SimpleNamespace(verdict="holds", guarantee="search", warnings=(), worst_point={"x": 0.61805})
    import dataclasses

    @dataclasses.dataclass(frozen=True)
    class R:
        verdict: str
        guarantee: str
        warnings: tuple
        worst_point: dict
        certificate: dict | None = None

    up = C.upgrade(R(res.verdict, res.guarantee, res.warnings, res.worst_point), cc)
    assert up.guarantee == "search" and up.certificate is None and "not the callables' function" in up.warnings[-1]


def test_a_twin_refutation_is_accepted_only_where_the_callables_violate():
    # the twin says lhs = x + 2 > x + 1 everywhere; the callables say lhs = x: the twin is wrong
    c = tc.inequality("t31.twinviol", lhs=lambda x: x, rhs=lambda x: x + 1, domain=tc.Box(x=(0, 1)),
                      arb=(x + 2, x + 1), register=False)
    r = verify_claim(c, executor="serial", budget=400)
    assert r.verdict == "holds" and r.guarantee == "search" and r.certificate is None
    # the refutation check on its own (the premise check bypassed): not accepted either
    cc = domains.CheckedCertifier(c.certifier.certifier, c.certifier.domain, sides=c.certifier.sides)
    cert = cc()
    assert cert.status == "undecided" and "callables are not" in cert.reason, cert
    # a genuine violation of the callables is accepted
    c2 = tc.inequality("t31.both", lhs=lambda x: x + 2, rhs=lambda x: x + 1, domain=tc.Box(x=(0, 1)),
                       arb=(x + 2, x + 1), register=False, probe=False)
    assert c2.certifier().status == "refuted"


class _Fixed:
    """A certifier stub that returns one certificate."""

    def __init__(self, cert):
        self.cert = cert

    def __call__(self):
        return self.cert


def test_a_counterexample_outside_the_domain_is_never_accepted():
    box = tc.Box(n=(0, 4), integer=["n"])
    off = C.Certificate("refuted", 3, 0.01, 0.5, ("n",), counterexample={"n": 0.5},
                        counterexample_exact={"n": "1/2"}, margin_upper=-1.0)
    cert = domains.CheckedCertifier(_Fixed(off), box)()
    assert cert.status == "undecided" and "outside the domain" in cert.reason and cert.counterexample is None
    out = C.Certificate("refuted", 3, 0.01, 0.5, ("n",), counterexample={"n": 7.0},
                        counterexample_exact={"n": "7"}, margin_upper=-1.0)
    assert domains.CheckedCertifier(_Fixed(out), box)().status == "undecided"
    ok = C.Certificate("refuted", 3, 0.01, 0.5, ("n",), counterexample={"n": 2.0},
                       counterexample_exact={"n": "2"}, margin_upper=-1.0)
    assert domains.CheckedCertifier(_Fixed(ok), box)().status == "refuted"


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_a_twin_undefined_or_a_callable_not_finite_is_a_disagreement(bad):
    c = tc.inequality("t31.undef", lhs=lambda x: x, rhs=lambda x: x + 1, domain=tc.Box(x=(0, 1)),
                      arb=(sp.log(x - sp.Rational(1, 2)), x + 1), register=False, probe=False)
    assert "not a finite real number" in c.certifier.premise_failure(None)
    c = tc.inequality("t31.nonfinite", lhs=lambda x: bad if x > 0.5 else x, rhs=lambda x: x + 1,
                      domain=tc.Box(x=(0, 1)), arb=(x, x + 1), register=False, probe=False)
    assert "searched, not proved" in c.certifier.premise_failure(None)


def test_the_checked_certifier_pickles():
    import pickle

    c = tc.inequality("t31.pickle", lhs=math.exp, rhs=math.exp, domain=tc.Box(x=(0, 1)),
                      arb=(sp.exp(x), sp.exp(x)), register=False)
    cc = pickle.loads(pickle.dumps(c.certifier))
    assert cc.premise_failure(None) == "" and cc().status == "proved"
