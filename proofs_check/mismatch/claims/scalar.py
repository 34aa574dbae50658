r"""``mismatch.scalar.*`` — the scalar lemmas behind the trust-region bounds and the truncation
constant, *proved* on a box (theory ``mismatch.md#scalar-lemmas``).

Each claim has SymPy sides on a closed bounded box of at most four scalar coordinates, so the
float64 search is followed by the ball-arithmetic certifier (``proofs_check.engine.certify``,
``docs/theory/engine.md`` §2.8; inclusion theorem of interval arithmetic, Moore, Kearfott,
Cloud 2009, Thm 5.1) and the guarantee is ``"proved"`` when it settles the box in its default
budget; identities are first tried symbolically (``sympy.simplify``).

* **Pinsker, two-point form**: ``2(p − q)² ≤ KL(p‖q)``, i.e. ``TV ≤ √(KL/2)`` for Bernoulli
  laws (TV = |p − q|).  Tight on the whole diagonal p = q, so it is proved up to the stated
  ``atol = 1e-4`` (δ-completeness: Gao, Avigad, Clarke, IJCAR 2012).
* **The step of the pm_kl closed form**: ``√k ≤ (2/3)((k+1)^{3/2} − k^{3/2})`` for k ≥ 0;
  summed over ``k = 0..T−1`` it telescopes to ``Σ_{k<T} √k ≤ (2/3) T^{3/2}`` (theory ``#bounds``).
* **The truncation constant**: with ``C = x·C*``, ``C* = √(β(1 + χ²))``, the MSE bound is
  ``U_β(x C*) = 2βK²(1 + χ²)·(x² + x⁻²)/2`` (an identity in four variables), and its profile
  ``(x² + x⁻²)/2`` decreases for x < 1 and increases for x > 1 (derivative sign on each side),
  so ``C*`` is the minimiser and ``2βK²(1+χ²)`` the minimum (theory ``#truncation``).

:data:`EXPRESSIONS` keeps each claim's sides and box for the mutation tests
(``tests/engine/test_proved_claims.py``).
"""
from __future__ import annotations

import sympy as sp

from proofs_check.declare import Box, identity, inequality
from proofs_check.engine import Source

from ._common import ours

p, q, k, x, chi2, beta, K = sp.symbols("p q k x chi2 beta K")

#: ``KL(Bernoulli(p) ‖ Bernoulli(q))``.
KL_TWO_POINT = p * sp.log(p / q) + (1 - p) * sp.log((1 - p) / (1 - q))
#: ``U_β(C) = β² K² (1 + χ²)²/C² + C² K²`` (:func:`proofs_check.mismatch.truncation.tis_mse_bound`).
_C = sp.Symbol("C")
U_BETA = beta ** 2 * K ** 2 * (1 + chi2) ** 2 / _C ** 2 + _C ** 2 * K ** 2
C_STAR = sp.sqrt(beta * (1 + chi2))
#: ``(x² + x⁻²)/2 = U_β(x C*)/U_β(C*)``.
PROFILE = (x ** 2 + x ** -2) / 2

#: id -> (kind, lhs, rhs, box as {name: (lo, hi)}, tolerance): what each claim states, for the
#: mutation tests
EXPRESSIONS: dict = {}

_COMMON = dict(role="statement", expected="holds", budget=2_000, quick_budget=500, chunk_size=500)


def _ineq(cid, lhs, rhs, box, *, atol=0.0, **kw):
    EXPRESSIONS[cid] = ("inequality", lhs, rhs, dict(box), atol)
    return inequality(cid, lhs=lhs, rhs=rhs, domain=Box(**box), atol=atol, rtol=0.0, **_COMMON, **kw)


_ineq("mismatch.scalar.pinsker_two_point", 2 * (p - q) ** 2, KL_TWO_POINT,
      dict(p=(0.01, 0.99), q=(0.01, 0.99)), atol=1e-4,
      statement="2(p − q)² ≤ KL(p‖q) = p log(p/q) + (1−p) log((1−p)/(1−q)) for p, q ∈ [0.01, 0.99] "
                "(Pinsker for two-point laws, TV = |p − q| ≤ √(KL/2)), up to atol = 1e-4",
      source=Source(papers=("trm",), where="Pinsker's inequality (TV ≤ √(KL/2)), used in the bounds",
                    theory="mismatch.md#scalar-lemmas",
                    note="Pinsker's inequality (classical), restricted to two-point laws"),
      label="CONFIRMED",
      notes="equality on the diagonal p = q: a contact along a curve is decided only up to a positive "
            "allowance, here atol = 1e-4 (with atol = 0 the certifier reports it undecided)")
_ineq("mismatch.scalar.sqrt_sum_step", sp.sqrt(k), sp.Rational(2, 3) * ((k + 1) ** sp.Rational(3, 2)
                                                                         - k ** sp.Rational(3, 2)),
      dict(k=(0.0, 1e4)),
      statement="√k ≤ (2/3)((k+1)^{3/2} − k^{3/2}) for k ∈ [0, 1e4]; summed over k = 0..T−1 it gives "
                "Σ_{k<T} √k ≤ (2/3) T^{3/2}, the step from pm_kl to (4/3) T^{3/2} δ",
      source=ours("scalar-lemmas", "our derivation: √k ≤ ∫_k^{k+1} √t dt because √ is increasing"),
      label="DERIVED")
_ineq("mismatch.scalar.c_star_profile_sign", sp.Integer(0), (x - 1) * sp.diff(PROFILE, x),
      dict(x=(0.125, 8.0)),
      statement="(x − 1)·d/dx[(x² + x⁻²)/2] ≥ 0 for x = C/C* ∈ [1/8, 8]: the MSE bound U_β(x C*) "
                "decreases below C* and increases above it, so C* = √(β(1+χ²)) minimises it",
      source=ours("scalar-lemmas", "our derivation of C* (theory #truncation): the derivative sign on "
                                   "each side of the minimiser, through the identity "
                                   "mismatch.scalar.c_star_profile"),
      label="DERIVED",
      notes="equality at x = 1 (second order); x is the ratio to C*, so the claim covers every β, "
            "χ² and K at once through mismatch.scalar.c_star_profile")

EXPRESSIONS["mismatch.scalar.c_star_profile"] = (
    "identity", U_BETA.subs(_C, x * C_STAR), 2 * beta * K ** 2 * (1 + chi2) * PROFILE,
    dict(x=(0.125, 8.0), chi2=(0.0, 100.0), beta=(0.5, 8.0), K=(0.1, 10.0)), 1e-12)
identity("mismatch.scalar.c_star_profile", EXPRESSIONS["mismatch.scalar.c_star_profile"][1],
         EXPRESSIONS["mismatch.scalar.c_star_profile"][2],
         domain=Box(**EXPRESSIONS["mismatch.scalar.c_star_profile"][3]), tol=1e-12, tol_mode="relative",
         statement="U_β(x·C*) = 2βK²(1+χ²)·(x² + x⁻²)/2 with U_β(C) = β²K²(1+χ²)²/C² + C²K² and "
                   "C* = √(β(1+χ²)), for x ∈ [1/8, 8], χ² ∈ [0, 100], β ∈ [1/2, 8], K ∈ [0.1, 10]",
         source=ours("scalar-lemmas", "our derivation of C* and of the minimum 2βK²(1+χ²) "
                                      "(theory #truncation)"),
         label="DERIVED", **_COMMON,
         notes="proved symbolically (sympy simplify) when SymPy can; otherwise in ball arithmetic "
               "up to the relative tolerance 1e-12")
