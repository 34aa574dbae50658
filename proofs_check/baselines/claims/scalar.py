r"""``baselines.scalar.*`` — the algebra behind "OTB never loses to b*", *proved* (theory
``baselines.md#welford-gap``).

With ``a_t = E‖s_t‖²``, the per-token optima ``b°_t``, ``A_t = Σ_{j≤t} a_j`` and the running
``a``-weighted means ``B_t`` (OTB's baselines; ``B_T = b*``), the variance gap between the global
``b*`` and OTB is (theory ``#population-variance``)

.. math:: \Sigma_t a_t (b^* − b°_t)^2 − \Sigma_t a_t (B_t − b°_t)^2
          = \Sigma_{t ≥ 2} \frac{a_t^2 A_{t−1}}{A_t^2} (b°_t − B_{t−1})^2 \;\ge\; 0 ,

because ``B_t − b°_t = (A_{t−1}/A_t)(B_{t−1} − b°_t)`` and Welford's update gives the first sum as
``Σ_t a_t (A_{t−1}/A_t)(b°_t − B_{t−1})²``.  The claim is the identity at ``T = 3``, with
``a_1 = 1`` and ``b°_1 = 0`` (both sides are homogeneous of degree 1 in ``a`` and invariant under
a common shift of the ``b°``, so this is general): four variables on a closed box, decided
symbolically (``sympy.simplify``) and otherwise in ball arithmetic
(``proofs_check.engine.certify``; ``docs/theory/engine.md`` §2.8).

The inequality ``gap ≥ 0`` stated directly in these four variables is *not* proved by
branch-and-bound in 30 s: the two sides nearly cancel on wide ``a`` boxes. The identity
makes it evident: every term on the right is a square times a positive weight.

:data:`EXPRESSIONS` keeps the sides and the box for the mutation tests
(``tests/engine/test_proved_claims.py``).
"""
from __future__ import annotations

import sympy as sp

from proofs_check.declare import Box, identity
from proofs_check.engine import Source

a2, a3, b2, b3 = sp.symbols("a2 a3 b2 b3")
_A = (sp.Integer(1), sp.Integer(1), a2, a3)          # a_1 = 1 (index 0 unused)
_B0 = (sp.Integer(0), sp.Integer(0), b2, b3)         # b°_1 = 0
_CUM = (None, sp.Integer(1), 1 + a2, 1 + a2 + a3)    # A_t


def _running_mean(t):
    return sum(_A[j] * _B0[j] for j in range(1, t + 1)) / _CUM[t]


B_STAR = _running_mean(3)
#: Σ_t a_t (b* − b°_t)² − Σ_t a_t (B_t − b°_t)²: the excess variance of b* over OTB (T = 3).
GAP = (sum(_A[t] * (B_STAR - _B0[t]) ** 2 for t in (1, 2, 3))
       - sum(_A[t] * (_running_mean(t) - _B0[t]) ** 2 for t in (1, 2, 3)))
#: Σ_{t≥2} a_t² A_{t−1}/A_t² (b°_t − B_{t−1})².
WELFORD = sum(_A[t] ** 2 * _CUM[t - 1] / _CUM[t] ** 2 * (_B0[t] - _running_mean(t - 1)) ** 2 for t in (2, 3))

BOX = dict(a2=(0.01, 100.0), a3=(0.01, 100.0), b2=(-1.0, 1.0), b3=(-1.0, 1.0))
EXPRESSIONS = {"baselines.scalar.otb_welford_gap": ("identity", GAP, WELFORD, BOX, 1e-12)}

identity("baselines.scalar.otb_welford_gap", GAP, WELFORD, domain=Box(**BOX), tol=1e-12,
         tol_mode="mixed",
         statement="Σ_t a_t (b* − b°_t)² − Σ_t a_t (B_t − b°_t)² = Σ_{t≥2} a_t² A_{t−1}/A_t² (b°_t − B_{t−1})² "
                   "at T = 3 (a_1 = 1, b°_1 = 0; a_2, a_3 ∈ [0.01, 100], b°_2, b°_3 ∈ [−1, 1]): the variance "
                   "gap between the global b* and OTB is a sum of nonnegative terms",
         source=Source(theory="baselines.md#welford-gap",
                       note="our derivation of 'OTB never loses to b*' (tabular policy, per-position "
                            "constants), through Welford's update"),
         label="DERIVED", role="statement", expected="holds", budget=2_000, quick_budget=500,
         chunk_size=500,
         notes="proved symbolically (sympy simplify); homogeneity in a and shift invariance in b° make "
               "a_1 = 1, b°_1 = 0 general")
