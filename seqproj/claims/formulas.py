r"""``seqproj.formula.*`` — the closed formulas of the theory, *proved* on a box (theory ``#formulas``).

Each claim is an inequality between SymPy expressions on a closed bounded box of at most four
scalar coordinates, so the engine follows its float64 search with a branch-and-bound in ball
arithmetic (``proofs_check.engine.certify``, ``docs/theory/engine.md`` §2.8): the verdict is
guarantee ``"proved"`` — the inclusion theorem of interval arithmetic (Moore, Kearfott, Cloud
2009, Thm 5.1) applied to every settled sub-box — when the certifier settles the box within its
default budget, and stays ``"search"`` otherwise.

* The sequential JL dimension ``M(ε, δ, T) = 16 c₀ (1+ε)/ε² (log(1/δ) + log(1 + T))``
  (theory ``#coverage`` with ``c_x = x₀ = 1``; :func:`seqproj.bounds.sequential_jl_min_dim`
  is its integer ceiling) is decreasing in ε and δ and increasing in T: the sign of each
  partial derivative (``sympy.diff``) on the box.
* The two-sided normal-mixture boundary (theory ``#mixture``) is concave in the intrinsic
  time ``v`` for every ``ρ > 0`` and every level ``α ≤ 1``, so it lies below its tangent line
  at ``v_opt``, its linear envelope; the latter is proved at the project's ``α = α_opt = 0.05``.

:data:`EXPRESSIONS` keeps each claim's sides and box for the mutation tests
(``tests/engine/test_proved_claims.py``).
"""
from __future__ import annotations

import sympy as sp

from proofs_check.declare import Box, inequality
from proofs_check.engine import Source

eps, delta, T, c0 = sp.symbols("eps delta T c0")
u, c, r = sp.symbols("u c r")

#: ``M(ε, δ, T; c₀)`` of the sequential JL theorem with ``c_x = x₀ = 1`` (theory ``#coverage``).
M_SEQ = 16 * c0 * (1 + eps) / eps ** 2 * (sp.log(1 / delta) + sp.log(1 + T))

#: The box of the monotonicity claims: ε ∈ [0.01, 1], δ ∈ [1e-6, 0.5], T ∈ [1, 1e6], c₀ ∈ [0.5, 16].
JL_BOX = dict(eps=(0.01, 1.0), delta=(1e-6, 0.5), T=(1.0, 1e6), c0=(0.5, 16.0))

#: Squared normal-mixture boundary over ρ, in ``u = v/ρ`` and ``c = 2 log(1/α)``:
#: ``B(v)² = ρ·H(v/ρ)`` with ``H(u) = (1 + u)(log(1 + u) + c)``.
H_MIX = (1 + u) * (sp.log(1 + u) + c)

#: ``α_opt = 0.05`` and ``v_opt = 1``: ``ρ₁ = 1/(2 log 20 + log(1 + 2 log 20))`` (``normal_mixture_rho``).
_LA = 2 * sp.log(20)
RHO_1 = 1 / (_LA + sp.log(1 + _LA))


def mixture_boundary(v):
    """The two-sided boundary ``√((v + ρ₁)(log(1 + v/ρ₁) + 2 log 20))`` at ``v_opt = 1``, ``α = 0.05``."""
    return sp.sqrt((v + RHO_1) * (sp.log(1 + v / RHO_1) + _LA))


_TANGENT_SLOPE = sp.diff(mixture_boundary(r), r).subs(r, 1)
#: The tangent line of the boundary at ``v = v_opt = 1`` (in ``r = v/v_opt``).
MIX_TANGENT = mixture_boundary(sp.Integer(1)) + _TANGENT_SLOPE * (r - 1)

_COVER = Source(papers=("seqjl",), where="sequential JL theorem", theory="seqproj.md#formulas",
                note="the dimension formula of theory #coverage (constant 16 RECONSTRUCTED), c_x = x_0 = 1")
_MIX = Source(papers=("howard2021",), where="Prop. 4/5", theory="seqproj.md#formulas",
              note="our derivation: concavity of the two-sided normal-mixture boundary of theory #mixture")

#: id -> (lhs, rhs, box as {name: (lo, hi)}, atol): what each claim states, for the mutation tests
EXPRESSIONS: dict = {}


def _declare(cid, lhs, rhs, box, *, statement, source, label, atol=0.0, notes=""):
    EXPRESSIONS[cid] = (lhs, rhs, dict(box), atol)
    return inequality(cid, lhs=lhs, rhs=rhs, domain=Box(**box), atol=atol, rtol=0.0,
                      statement=statement, source=source, label=label, role="statement",
                      expected="holds", budget=2_000, quick_budget=500, chunk_size=500,
                      notes=notes)


# ∂M/∂ε = −16 c₀ (ε + 2) L/ε³ (sympy.diff, then sympy.factor: the same function, in the form
# whose natural interval extension has no cancellation)
_declare("seqproj.formula.min_dim_decreasing_in_eps", sp.factor(sp.diff(M_SEQ, eps)), sp.Integer(0), JL_BOX,
         statement="∂M/∂ε ≤ 0 for M = 16 c₀ (1+ε)/ε² (log(1/δ) + log(1+T)) on ε ∈ [0.01, 1], "
                   "δ ∈ [1e-6, 0.5], T ∈ [1, 1e6], c₀ ∈ [0.5, 16]: a smaller ε needs a larger sketch",
         source=_COVER, label="DERIVED")
_declare("seqproj.formula.min_dim_decreasing_in_delta", sp.diff(M_SEQ, delta), sp.Integer(0), JL_BOX,
         statement="∂M/∂δ ≤ 0 for the sequential JL dimension M(ε, δ, T; c₀) on the same box: "
                   "a smaller failure probability needs a larger sketch",
         source=_COVER, label="DERIVED")
_declare("seqproj.formula.min_dim_increasing_in_T", sp.Integer(0), sp.diff(M_SEQ, T), JL_BOX,
         statement="∂M/∂T ≥ 0 for the sequential JL dimension M(ε, δ, T; c₀) on the same box: "
                   "a longer horizon needs a larger sketch (only through log(1 + T))",
         source=_COVER, label="DERIVED")
_declare("seqproj.formula.mixture_boundary_concave", 2 * H_MIX * sp.diff(H_MIX, u, 2), sp.diff(H_MIX, u) ** 2,
         dict(u=(0.0, 1e6), c=(0.0, 60.0)),
         statement="2 H H'' ≤ H'² for H(u) = (1+u)(log(1+u) + c), u = v/ρ ∈ [0, 1e6], "
                   "c = 2 log(1/α) ∈ [0, 60]: the two-sided normal-mixture boundary √(ρ H(v/ρ)) is "
                   "concave in v for every ρ > 0 and α ∈ [e^-30, 1]",
         source=_MIX, label="DERIVED",
         notes="(√H)'' = (2HH'' − H'²)/(4H^{3/2}) and H > 0, so the inequality is concavity; "
               "by hand H'² − 2HH'' = (log(1+u) + c)² + 1 ≥ 1, so it is not tight anywhere")
_declare("seqproj.formula.mixture_below_tangent", mixture_boundary(r), MIX_TANGENT, dict(r=(0.0, 1000.0)),
         statement="the normal-mixture boundary at α = α_opt = 0.05 lies below its tangent line at "
                   "v = v_opt (its linear envelope): B(v) ≤ B(v_opt) + B'(v_opt)(v − v_opt) for "
                   "v/v_opt ∈ [0, 1000] (B(v; v_opt) = √v_opt · B(v/v_opt; 1), so v_opt = 1 is general)",
         source=_MIX, label="DERIVED", atol=1e-12,
         notes="equality at v = v_opt; atol = 1e-12 absorbs the two roundings of the tangent's "
               "constants, which do not cancel exactly in ball arithmetic at the contact point")
