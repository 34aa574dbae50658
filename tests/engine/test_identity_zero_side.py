"""Identities written ``f = 0`` (issue 31, N2): never refuted for a rounding residual.

* SymPy sides in ``tol_mode="terms"`` are evaluated term by term (``declare._Terms``): the
  error of ``sin²x + cos²x − 1 = 0`` is measured against its terms (magnitude 1), not
  against the residual of 0;
* a disagreement is confirmed only when it is reproduced at twice the digits
  (``kinds.identity._stable``): a residual at the rounding level of the evaluation is an
  artefact, whoever wrote the high-precision twin;
* with a certifier (SymPy sides on a box) the proof is tried before a refutation is returned;
* a false zero-sided identity is still refuted, ``exact``.
"""
from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

import theorycheck as tc
from proofs_check import declare, domains
from proofs_check.engine import IdentityClaim, verify_claim
from proofs_check.engine.kinds import identity as K

x, y = sp.Symbol("x"), sp.Symbol("y")

ZERO_SIDED = {
    "pythagoras": (sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1, dict(x=(0, 1))),
    "double_angle": (sp.sin(2 * x) - 2 * sp.sin(x) * sp.cos(x), dict(x=(0, 1))),
    "exp_add": (sp.exp(x + y) - sp.exp(x) * sp.exp(y), dict(x=(0, 1), y=(0, 1))),
}


@pytest.mark.parametrize("name", sorted(ZERO_SIDED))
def test_a_true_zero_sided_identity_is_proved_not_refuted(name):
    lhs, box = ZERO_SIDED[name]
    c = tc.identity(f"t31.{name}", lhs, sp.Integer(0), domain=tc.Box(**box), register=False)
    for seed in range(3):
        r = verify_claim(c, executor="serial", seed=seed, budget=300)
        assert (r.verdict, r.guarantee) == ("holds", "proved"), (seed, r, r.warnings)
        assert r.confirmed == 0


@pytest.mark.slow        # the certifier spends its 10 s budget: log(xy) = log x + log y needs x, y > 0
def test_log_of_a_product_minus_the_logs_is_not_refuted():
    c = tc.identity("t31.logmul", sp.log(x * y) - sp.log(x) - sp.log(y), sp.Integer(0),
                    domain=tc.Box(x=(0.5, 2), y=(0.5, 2)), register=False)
    r = verify_claim(c, executor="serial", seed=0, budget=300)
    assert r.verdict == "holds" and r.confirmed == 0, r


def test_sympy_sums_are_evaluated_term_by_term_in_terms_mode_only():
    box = tc.Box(x=(0, 1))
    lhs, rhs, lmp, rmp = declare._sympy_sides("t", box, sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1, sp.Integer(0),
                                              None, None, terms=True)
    assert isinstance(lhs, declare._Terms) and isinstance(lmp, declare._Terms)
    assert sorted(round(v, 12) for v in lhs(x=0.5)) == sorted(round(v, 12) for v in
                                                             (np.sin(0.5) ** 2, np.cos(0.5) ** 2, -1.0))
    assert not isinstance(rhs, declare._Terms)                      # 0 is no sum
    lhs, *_ = declare._sympy_sides("t", box, sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1, sp.Integer(0), None, None)
    assert not isinstance(lhs, declare._Terms)


def _zero(rng, n):                          # sin²x + cos²x − 1 and 0, as one value per side
    t = rng.uniform(0, 1, n)
    return np.sin(t) ** 2 + np.cos(t) ** 2 - 1, np.zeros(n)


def _zero_mp(rng, n):
    t = rng.uniform(0, 1, n)
    return [mpmath.sin(mpmath.mpf(v)) ** 2 + mpmath.cos(mpmath.mpf(v)) ** 2 - 1 for v in t], [mpmath.mpf(0)] * n


def _off_mp(rng, n):                        # the same, off by 1e-30: a real discrepancy
    t = rng.uniform(0, 1, n)
    return [mpmath.sin(mpmath.mpf(v)) ** 2 + mpmath.cos(mpmath.mpf(v)) ** 2 - 1 + mpmath.mpf("1e-30")
            for v in t], [mpmath.mpf(0)] * n


def test_a_residual_at_the_rounding_level_is_never_confirmed():
    """The relative error of two zeros is 1 at 50 digits too; at 100 digits the residual
    shrinks by ~10⁻⁵⁰, so it is an artefact of the evaluation, not a counterexample."""
    st = K.identity_chunk(_zero, _zero_mp, "terms", 1e-12, np.random.default_rng(3), 100)
    assert st[3] > 0 and st[5] == 0 and st[6] == st[3], st          # every float violation an artefact
    st = K.identity_chunk(_zero, _off_mp, "terms", 1e-12, np.random.default_rng(3), 100)
    assert st[5] == 100, st                                         # a stable discrepancy is confirmed
    assert K._stable(mpmath.mpf("1e-30"), mpmath.mpf("1.00000001e-30"))
    assert not K._stable(mpmath.mpf("1e-50"), mpmath.mpf("1e-100")) and not K._stable(0, 0)


def test_callables_with_a_handwritten_twin_are_not_refuted_for_a_zero_side():
    c = tc.identity("t31.cb0", lambda x: np.sin(x) ** 2 + np.cos(x) ** 2 - 1, lambda x: 0.0,
                    domain=tc.Box(x=(0, 1)), lhs_mp=lambda x: mpmath.sin(x) ** 2 + mpmath.cos(x) ** 2 - 1,
                    rhs_mp=lambda x: mpmath.mpf(0), register=False)
    for seed in range(3):
        r = verify_claim(c, executor="serial", seed=seed, budget=300)
        assert r.verdict == "holds" and r.confirmed == 0 and r.artefacts > 0, (seed, r)


def test_a_false_zero_sided_identity_is_still_refuted_exact():
    c = tc.identity("t31.false0", sp.sin(x) ** 2 - x ** 2, sp.Integer(0), domain=tc.Box(x=(0.5, 1)),
                    register=False)
    cb = tc.identity("t31.false0cb", lambda x: np.sin(x) ** 2 - x ** 2, lambda x: 0.0, domain=tc.Box(x=(0.5, 1)),
                     lhs_mp=lambda x: mpmath.sin(x) ** 2 - x ** 2, rhs_mp=lambda x: mpmath.mpf(0), register=False)
    for claim in (c, cb):
        for seed in range(3):
            r = verify_claim(claim, executor="serial", seed=seed, budget=300)
            assert (r.verdict, r.guarantee) == ("refuted", "exact") and r.confirmed > 0, (claim.id, seed, r)


def _always_off(rng, n):
    t = rng.uniform(0, 1, n)
    return t + 1e-3, t


def _always_off_mp(rng, n):
    t = rng.uniform(0, 1, n)
    return [mpmath.mpf(v) + mpmath.mpf("1e-3") for v in t], [mpmath.mpf(v) for v in t]


def test_the_proof_is_tried_before_a_refutation_is_returned():
    """A claim whose evaluators disagree (here planted: they compute x + 1e-3 vs x) but whose
    SymPy sides the certifier proves equal: the proof on the whole box outranks the cases,
    and the verdict says which cases it overrules."""
    box = tc.Box(x=(0, 1))
    proved = domains.CheckedCertifier(domains.engine_certifier("==", box, x, x, tol=1e-12, tol_mode="terms"), box)
    claim = IdentityClaim(id="t31.overrule", statement="x = x", source="t", label="DERIVED",
                          fn=_always_off, fn_mp=_always_off_mp, certifier=proved)
    r = verify_claim(claim, executor="serial", budget=200)
    assert (r.verdict, r.guarantee) == ("holds", "proved"), r
    assert any("overruled by a proof on the whole box" in w for w in r.warnings), r.warnings
    # a certifier that cannot prove it leaves the refutation as it was
    unproved = domains.CheckedCertifier(domains.engine_certifier("==", box, x + sp.Rational(1, 1000), x, tol=1e-12,
                                                                 tol_mode="terms"), box)
    r = verify_claim(IdentityClaim(id="t31.keep", statement="x + 1e-3 = x", source="t", label="DERIVED",
                                   fn=_always_off, fn_mp=_always_off_mp, certifier=unproved),
                     executor="serial", budget=200)
    assert (r.verdict, r.guarantee) == ("refuted", "exact"), r
