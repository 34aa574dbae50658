"""Identity verdicts need high precision behind them (issue 21, items 4–6).

* A float64 disagreement is refuted only when the same case disagrees at 50 digits
  (``lhs_mp``/``rhs_mp``, ``fn_mp``, or SymPy sides): true identities with catastrophic
  cancellation are never refuted; without a twin they are inconclusive, "float64 only".
* The default tolerance is relative to the magnitude of the terms (``tol_mode="terms"``).
* A non-finite high-precision value is inconclusive, never a rounding artefact
  (identities and inequalities).
"""
import math

import mpmath
import numpy as np
import pytest

from proofs_check.declare import Box, identity, inequality
from proofs_check.engine import IdentityClaim, replace, verify_claim
from proofs_check.engine.kinds.identity import identity_chunk

mpf = mpmath.mpf


def _id(lhs, rhs, domain, **kw):
    return identity("t.prec", lhs, rhs, domain=domain, register=False, probe=False, **kw)


# true identities that cancel in float64 (the reproducers of item 4)
TRUE = {
    "cosh": (lambda x: np.cosh(x) ** 2 - np.sinh(x) ** 2, lambda x: 1.0, Box(x=(0, 20)),
             lambda x: mpmath.cosh(x) ** 2 - mpmath.sinh(x) ** 2, lambda x: mpf(1),
             lambda x: (np.cosh(x) ** 2, -np.sinh(x) ** 2)),
    "square": (lambda x: (x + 1) ** 2 - x ** 2 - 2 * x, lambda x: 1.0, Box(x=(0, 1e8)),
               lambda x: (x + 1) ** 2 - x ** 2 - 2 * x, lambda x: mpf(1),
               lambda x: ((x + 1) ** 2, -x ** 2, -2 * x)),
    "variance": (lambda x: np.mean(x ** 2) - np.mean(x) ** 2, lambda x: np.mean((x - x.mean()) ** 2),
                 Box(x=(1e6, 1e6 + 1, 8)),
                 lambda x: mpmath.fsum(v ** 2 for v in x) / len(x) - (mpmath.fsum(x) / len(x)) ** 2,
                 lambda x: mpmath.fsum((v - mpmath.fsum(x) / len(x)) ** 2 for v in x) / len(x),
                 lambda x: (np.mean(x ** 2), -np.mean(x) ** 2)),
    "log1p": (lambda x: math.log(1 + x) / x, lambda x: math.log1p(x) / x, Box(x=(1e-12, 1e-4)),
              lambda x: mpmath.log(1 + x) / x, lambda x: mpmath.log1p(x) / x, None),
}


@pytest.mark.parametrize("name", sorted(TRUE))
def test_a_true_identity_that_cancels_is_never_refuted(name):
    lhs, rhs, dom, lhs_mp, rhs_mp, terms = TRUE[name]
    for seed in range(3):
        r = verify_claim(_id(lhs, rhs, dom), budget=300, seed=seed)
        assert r.verdict == "inconclusive" and any("float64 only: give lhs_mp/rhs_mp" in w for w in r.warnings)
        assert "high-precision twin" in r.settle_advice()
        r = verify_claim(_id(lhs, rhs, dom, lhs_mp=lhs_mp, rhs_mp=rhs_mp), budget=300, seed=seed)
        assert r.verdict == "holds" and r.artefacts > 0 and r.confirmed == 0
        assert any("rounding artefacts" in w for w in r.warnings)
        if terms is not None:       # written as terms, the default tolerance scales with them
            r = verify_claim(_id(terms, rhs, dom), budget=300, seed=seed)
            assert r.verdict == "holds" and r.violations == 0, r.max_scaled_error


def test_a_real_violation_is_refuted_exact_once_confirmed():
    lhs = lambda x: np.cosh(x) ** 2 - np.sinh(x) ** 2 + (1e-3 if x > 19 else 0.0)
    lhs_mp = lambda x: mpmath.cosh(x) ** 2 - mpmath.sinh(x) ** 2 + (mpf("1e-3") if x > 19 else 0)
    r = verify_claim(_id(lhs, lambda x: 1.0, Box(x=(0, 20)), lhs_mp=lhs_mp, rhs_mp=lambda x: mpf(1)),
                     budget=300, seed=0)
    assert r.verdict == "refuted" and r.guarantee == "exact" and r.confirmed > 0
    assert r.max_scaled_error_mp == pytest.approx(1e-3 / (1 + 1e-3), rel=1e-9)    # relative to max(|lhs|, |rhs|)


def test_the_default_tolerance_is_relative_to_the_terms():
    """Item 6: a 1e-6 relative error at magnitude 1e-8 is not passed by the default."""
    lhs, rhs = (lambda x: 1e-8 * x * (1 + 1e-6)), (lambda x: 1e-8 * x)
    r = verify_claim(_id(lhs, rhs, Box(x=(1, 2))), budget=100, seed=0)
    assert r.verdict == "inconclusive" and r.max_scaled_error == pytest.approx(1e-6, rel=1e-3)
    r = verify_claim(_id(lhs, rhs, Box(x=(1, 2)), lhs_mp=lambda x: 1e-8 * x * (1 + mpf("1e-6")),
                         rhs_mp=lambda x: 1e-8 * x), budget=100, seed=0)
    assert r.verdict == "refuted" and r.guarantee == "exact"
    # the old modes keep working: "mixed" is absolute below magnitude 1 and passes it
    assert verify_claim(_id(lhs, rhs, Box(x=(1, 2)), tol_mode="mixed"), budget=100, seed=0).verdict == "holds"
    r = verify_claim(_id(lhs, rhs, Box(x=(1, 2)), tol_mode="relative", tol=1e-5), budget=100, seed=0)
    assert r.verdict == "holds"


def test_a_nonfinite_twin_is_inconclusive_not_an_artefact():
    """Item 5: a twin returning NaN where the violation is must not turn it into 'holds'."""
    lhs = lambda x: x * (1.01 if 0.8 <= x <= 0.9 else 1.0)
    claim = inequality("t.nan", lhs, lambda x: x, domain=Box(x=(0, 1)),
                       lhs_mp=lambda x: mpmath.nan if 0.8 <= x <= 0.9 else x, rhs_mp=lambda x: x,
                       register=False, probe=False)
    for seed in range(5):
        r = verify_claim(claim, budget=400, seed=seed)
        assert r.verdict == "inconclusive" and r.nonfinite > 0 and r.artefacts == 0
    # the identity kind: NaN at 50 digits is inconclusive too
    r = verify_claim(_id(lambda x: x * 1.01, lambda x: x, Box(x=(1, 2)), lhs_mp=lambda x: mpmath.nan,
                         rhs_mp=lambda x: x), budget=100, seed=0)
    assert r.verdict == "inconclusive" and r.nonfinite_mp > 0 and r.artefacts == 0


def test_sympy_sides_get_their_high_precision_twin():
    sp = pytest.importorskip("sympy")
    x = sp.Symbol("x")
    # relative mode: float64 cancellation in cosh² − sinh² (terms ~ e^40) is resolved at 50 digits
    r = verify_claim(_id(sp.cosh(x) ** 2 - sp.sinh(x) ** 2, sp.Integer(1), Box(x=(0, 20)), tol_mode="relative"),
                     budget=300, seed=0)
    assert r.verdict == "holds" and r.artefacts > 0
    # the default "terms" mode scales by the largest term, so float64 does not disagree at all
    r = verify_claim(_id(sp.cosh(x) ** 2 - sp.sinh(x) ** 2, sp.Integer(1), Box(x=(0, 20))), budget=300, seed=0)
    assert r.verdict == "holds" and r.violations == 0
    r = verify_claim(_id(sp.cosh(x) ** 2 - sp.sinh(x) ** 2, 1 + x / 10 ** 9, Box(x=(0, 20))), budget=300, seed=0)
    assert r.verdict == "refuted" and r.guarantee == "exact"
    with pytest.raises(ValueError, match="not coordinates"):
        _id(sp.Symbol("y"), sp.Integer(1), Box(x=(0, 1)))


def _cancel(rng, n):
    x = rng.uniform(0, 20, n)
    return np.cosh(x) ** 2 - np.sinh(x) ** 2, np.ones(n)


def _cancel_mp(rng, n):
    x = rng.uniform(0, 20, n)
    return [mpmath.cosh(mpf(v)) ** 2 - mpmath.sinh(mpf(v)) ** 2 for v in x], [mpf(1)] * n


def _cancel_terms(rng, n):         # (n, m) terms per side
    x = rng.uniform(0, 20, n)
    return np.stack([np.cosh(x) ** 2, -np.sinh(x) ** 2], axis=1), np.ones(n)


def test_fn_mp_reevaluates_the_same_cases_and_threads_keep_50_digits():
    """fn_mp gets the generator in the state fn started from; mpmath's precision is
    process-wide, so concurrent chunks must not lower each other's (search.MP_LOCK)."""
    claim = IdentityClaim(id="t.fnmp", statement="cosh² − sinh² = 1", source="t", label="DERIVED",
                          fn=_cancel, fn_mp=_cancel_mp)
    for seed in range(3):
        r = verify_claim(claim, budget=1_000, seed=seed, executor="threads", workers=4)
        assert r.verdict == "holds" and r.confirmed == 0 and r.artefacts > 0
    st = identity_chunk(_cancel, _cancel_mp, "terms", 1e-12, np.random.default_rng(5), 50)
    assert st[3] == st[6] > 0 and st[5] == 0                    # every violation an artefact
    r = verify_claim(replace(claim, fn=_cancel_terms, fn_mp=None), budget=300, seed=0)
    assert r.verdict == "holds" and r.violations == 0


def test_identity_statistics_are_checked():
    check = IdentityClaim.check_stats
    assert check([10, 0.0, 0.0, 0, 0, 0, 0, 0, 0.0], 10) is None
    assert check([10, 0.0, 0.0], 10) is not None                 # the old layout is refused
    assert check([10, 0.0, 0.0, 1, 2, 0, 0, 0, 0.0], 10) is not None   # unchecked > violations
    with pytest.raises(ValueError, match="tol_mode"):
        IdentityClaim(id="t.bad", statement="s", source="t", label="DERIVED", fn=_cancel, tol_mode="ulp")
