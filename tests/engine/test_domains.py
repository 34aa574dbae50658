"""Domains in one module (issue 31): ``proofs_check.domains`` holds the boxes, simplices and
their semantics — which points are in the domain, the integer coordinates, the SymPy
assumptions a box implies — for the search, the confirmation and the certifier alike.

* the names a user imports (``proofs_check.declare.Box``, ``proofs_check.Box``,
  ``theorycheck.Box``) are the very classes of ``proofs_check.domains``;
* a SymPy symbol whose assumptions the box does not imply is refused (N4);
* a proof is of ``lhs ≤ rhs`` exactly unless the claim declares an allowance, and the
  default statement prints a declared one (N5);
* no path accepts a point outside the domain (N3).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

import proofs_check as pc
import theorycheck as tc
from proofs_check import declare, domains
from proofs_check.engine import verify_claim

x, n = sp.Symbol("x"), sp.Symbol("n")


def test_the_domain_names_are_the_domains_module_classes():
    for name in ("Box", "Simplex", "Domain"):
        cls = getattr(domains, name)
        assert cls.__module__ == "proofs_check.domains"
        assert getattr(declare, name) is cls and getattr(pc, name) is cls and getattr(tc, name) is cls
    assert declare.UNBOUNDED_DECADES is domains.UNBOUNDED_DECADES
    assert declare.check_in_domain is domains.check_in_domain
    assert declare._domain_project is domains._domain_project       # claims built before the move unpickle


def test_implied_assumptions_follow_the_range():
    assert domains.implied_assumptions(-1, 1) == {"real": True}
    assert domains.implied_assumptions(0.5, 1) == {"real": True, "positive": True, "nonnegative": True,
                                                   "nonzero": True}
    assert domains.implied_assumptions(0, 1) == {"real": True, "nonnegative": True}
    assert domains.implied_assumptions(-2, -1) == {"real": True, "negative": True, "nonpositive": True,
                                                   "nonzero": True}
    assert domains.implied_assumptions(-1, 0) == {"real": True, "nonpositive": True}
    assert domains.implied_assumptions(0, 4, integer=True) == {"real": True, "nonnegative": True,
                                                               "integer": True}
    assert domains.implied_assumptions(0, math.inf) == {"real": True, "nonnegative": True}


def test_sqrt_of_a_square_with_a_positive_symbol_is_refused_where_the_box_reaches_below_zero():
    xp = sp.Symbol("x", positive=True)
    assert sp.sqrt(xp ** 2) == xp                                  # SymPy rewrote it when it was built
    with pytest.raises(ValueError) as err:
        tc.identity("t31.pos", sp.sqrt(xp ** 2), xp, domain=tc.Box(x=(-1, 1)), register=False)
    msg = str(err.value)
    for part in ("t31.pos", "x", "positive=True", "[-1.0, 1.0]", "Symbol('x')", "lo > 0"):
        assert part in msg, (part, msg)
    # the same claim on a box where x > 0 is what it says, and it is proved
    c = tc.identity("t31.pos_ok", sp.sqrt(xp ** 2), xp, domain=tc.Box(x=(0.5, 1)), register=False)
    r = verify_claim(c, executor="serial", budget=200)
    assert (r.verdict, r.guarantee) == ("holds", "proved")


def test_an_inequality_with_a_symbol_assumed_beyond_the_box_is_refused():
    xp = sp.Symbol("x", positive=True)
    with pytest.raises(ValueError, match="positive=True"):
        tc.inequality("t31.abs", sp.Abs(xp), xp - 1, domain=tc.Box(x=(-1, 1)), register=False)
    xn = sp.Symbol("x", nonnegative=True)
    with pytest.raises(ValueError, match="nonnegative=True.*lo ≥ 0"):
        tc.inequality("t31.nn", xn, xn + 1, domain=tc.Box(x=(-1, 1)), register=False)
    tc.inequality("t31.nn_ok", xn, xn + 1, domain=tc.Box(x=(0, 1)), register=False)
    # arb= twins are checked the same way
    with pytest.raises(ValueError, match="arb= sides.*positive=True"):
        tc.inequality("t31.arb", lhs=lambda x: abs(x), rhs=lambda x: x + 2, domain=tc.Box(x=(-1, 1)),
                      arb=(sp.Abs(xp), xp + 2), register=False)


def test_an_integer_symbol_needs_an_integer_coordinate():
    ni = sp.Symbol("n", integer=True)
    assert sp.sin(sp.pi * ni) == 0                                   # rewritten at construction
    assert sp.floor(ni) == ni
    with pytest.raises(ValueError, match=r"integer=True.*\[0.0, 4.0\] \(real values\).*integer="):
        tc.inequality("t31.int", sp.ceiling(ni), ni, domain=tc.Box(n=(0, 4)), register=False)
    with pytest.raises(ValueError, match="integer=True"):
        tc.identity("t31.int_id", sp.floor(ni), ni, domain=tc.Box(n=(0, 4)), register=False)
    # on an integer coordinate the assumption is implied: accepted
    tc.identity("t31.int_ok", ni ** 2, ni * ni, domain=tc.Box(n=(0, 4), integer=["n"]), register=False,
                probe=False)


def test_plain_and_real_symbols_are_always_accepted():
    xr = sp.Symbol("x", real=True)
    for sym in (x, xr):
        tc.inequality("t31.plain", sym, sym + 1, domain=tc.Box(x=(-1, 1)), register=False)
        tc.identity("t31.plain_id", sym * 2, sym + sym, domain=tc.Box(x=(-1, 1)), register=False)
    # a domain with no ranges implies only real
    d = tc.Domain(lambda rng: rng.uniform(0, 1, 1), ["x"])
    tc.inequality("t31.dom", x, x + 1, domain=d, register=False)
    with pytest.raises(ValueError, match="gives no range"):
        tc.inequality("t31.dom_pos", sp.Symbol("x", positive=True), x + 1, domain=d, register=False)


# -- the allowance: proved means lhs ≤ rhs, unless an allowance is declared (N5) -------------

@pytest.mark.parametrize("lhs,rhs,box", [
    (x + 1, x, dict(x=(1e9, 2e9))),                                  # the float allowance is 1 to 2 there
    (sp.exp(x), (1 - sp.Rational(1, 10 ** 10)) * sp.exp(x), dict(x=(0, 1))),
])
def test_a_false_inequality_inside_the_float_allowance_is_never_proved(lhs, rhs, box):
    c = tc.inequality("t31.allow", lhs, rhs, domain=tc.Box(**box), register=False)
    assert c.rtol == declare.SEARCH_RTOL                              # the search keeps its rounding allowance
    for seed in range(3):
        r = verify_claim(c, executor="serial", seed=seed, budget=400)
        assert r.guarantee != "proved", (seed, r)
        assert r.verdict == "refuted" or r.warnings, (seed, r)


def test_a_declared_allowance_is_proved_and_printed():
    c = tc.inequality("t31.atol", x + sp.Rational(1, 10 ** 5), x, domain=tc.Box(x=(0, 1)), atol=1e-4,
                      register=False)
    assert "x + 1/100000 ≤ x + 0.0001 on" in c.statement
    r = verify_claim(c, executor="serial", budget=200)
    assert (r.verdict, r.guarantee) == ("holds", "proved")
    c = tc.inequality("t31.rtol", x, 1.5 * x, domain=tc.Box(x=(1, 2)), rtol=1e-6, register=False)
    assert "+ 1e-06·|rhs|" in c.statement and c.rtol == 1e-6
    # no allowance declared: none printed
    assert "+" not in tc.inequality("t31.none", x, 2 * x, domain=tc.Box(x=(1, 2)), register=False).statement
    for bad in (-1.0, math.nan, "1e-9", True):
        with pytest.raises(ValueError, match="rtol must be a finite number ≥ 0"):
            tc.inequality("t31.bad", x, 2 * x, domain=tc.Box(x=(1, 2)), rtol=bad, register=False)


def test_the_registered_certified_claims_keep_their_declared_allowance():
    pc.claims()
    from proofs_check.engine import registry

    for cid, atol in (("mismatch.scalar.pinsker_two_point", 1e-4), ("seqproj.formula.mixture_below_tangent", 1e-12)):
        claim = registry.get_claim(cid)
        inner = claim.certifier.certifier
        assert (inner.atol, inner.rtol) == (atol, 0.0), cid


# -- points of the domain (N3) and decimal ends (N14) ---------------------------------------

def test_in_domain_and_check_in_domain_refuse_non_integral_integer_coordinates():
    box = tc.Box(n=(0, 4), y=(0.0, 1.0), integer=["n"])
    assert domains.integer_names(box) == ("n",)
    assert domains.in_domain(box, [2.0, 0.5]) and not domains.in_domain(box, [0.5, 0.5])
    assert not domains.in_domain(box, [5.0, 0.5]) and not domains.in_domain(box, [2.0, math.nan])
    assert domains.integer_names(tc.Simplex(3)) == ()
    c = tc.inequality("t31.intpt", sp.sin(sp.pi * n) ** 2, sp.Rational(1, 10 ** 20),
                      domain=tc.Box(n=(0, 4), integer=["n"]), register=False)
    with pytest.raises(ValueError, match="n is an integer"):
        tc.reproduce(c, {"n": 0.5})
    assert tc.reproduce(c, {"n": 1.0})["violates"] is False


def test_an_integer_box_is_never_refuted_outside_its_integers():
    """``sin(πn)² ≤ 1e-20`` holds on n ∈ {0, …, 4}; at n = 1/2 it fails.  Whether or not the
    certifier takes integer coordinates (``Certifier(..., integer=)``), the verdict is not a
    refutation and no reported point is off the integers."""
    for lhs, rhs in ((sp.sin(sp.pi * n) ** 2, sp.Rational(1, 10 ** 20)),
                     (-(n - sp.Rational(1, 2)) ** 2, -sp.Rational(1, 4))):
        c = tc.inequality("t31.intbox", lhs, rhs, domain=tc.Box(n=(0, 4), integer=["n"]), register=False)
        if c.certifier is not None:
            assert tuple(c.certifier.certifier.integer) == ("n",)
        else:
            assert "integer coordinates n" in c.notes
        r = verify_claim(c, executor="serial", budget=200)
        assert r.verdict == "holds", r
        assert float(r.worst_point["n"]) == round(float(r.worst_point["n"]))


def test_a_decimal_literal_and_a_decimal_box_end_are_the_same_number():
    """``x ≤ 0.1`` on ``Box(x=(0, 0.1))``: both 0.1s are the binary double 0.1 stores
    (the Box docstring; ``engine.expr.as_expr`` of a float), so it holds and is proved."""
    assert "binary number" in tc.Box.__doc__ and "0.1000000000000000055" in tc.Box.__doc__
    c = tc.inequality("t31.dec", x, 0.1, domain=tc.Box(x=(0, 0.1)), register=False)
    r = verify_claim(c, executor="serial", budget=200)
    assert (r.verdict, r.guarantee) == ("holds", "proved"), r


def test_box_and_simplex_still_sample_and_project():
    rng = np.random.default_rng(0)
    box = tc.Box(a=(0, 1), k=(0, 3), integer=["k"])
    pts = np.array([box.sample(rng) for _ in range(50)])
    assert np.all(pts[:, 1] == np.round(pts[:, 1])) and np.all((0 <= pts[:, 0]) & (pts[:, 0] <= 1))
    s = tc.Simplex(3, names=("p", "q"))
    p = s.sample(rng).reshape(2, 3)
    assert np.allclose(p.sum(axis=1), 1.0)
