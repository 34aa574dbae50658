"""How conservative the theorem's M is: the efficiency ratio ``M_theorem / M*`` (theory ``#efficiency``).

The divisors bracket the measured ratio (7–11 across our runs) from outside
with a margin (5 below 7, 20 above 11), fixed before the runs: ``div5`` states ``M* ≤
M_theorem/5`` (holds), ``div20`` is the control ``M* > M_theorem/20`` (the
band at ``M_theorem/20`` must be refuted).  :func:`seqproj.empirical_min_dim`
gives the point estimate.
"""
from __future__ import annotations

from proofs_check.engine import Source

from ..experiments import band_experiment
from .common import DELTA, EPS, M_THEOREM, T, register_path_claim

for div, role, expect in ((5, "statement", "holds"), (20, "control", "refuted")):
    M = -(-M_THEOREM // div)
    register_path_claim(
        f"seqproj.efficiency.M_theorem_div{div}",
        f"P(∃ t ≤ T: ‖S_t‖²/V_t ∉ [1−ε, 1+ε]) ≤ δ already at M = ⌈M_theorem/{div}⌉ = {M} "
        f"(sphere, constant design, ε = {EPS}, δ = {DELTA}, T = {T})",
        Source(theory="seqproj.md#efficiency",
               note="our measurement of the slack of the sequential JL theorem's M"),
        "RECONSTRUCTED", experiment=band_experiment(M), event="failed", delta=DELTA, role=role,
        expected=expect, params={"M_theorem": M_THEOREM},
        notes=("holds: M* ≤ M_theorem/5" if div == 5 else "refuted: M* > M_theorem/20")
        + "; together the two bracket the efficiency ratio M_theorem/M* in [5, 20]; "
          "seqproj.empirical_min_dim gives the point estimate")
