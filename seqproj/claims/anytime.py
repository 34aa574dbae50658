"""The any-time form (theory ``#anytime``): the band with ``x_0² + c_x T`` replaced by the realised ``V_t``."""
from __future__ import annotations

from proofs_check.engine import Source

from ..experiments import band_experiment
from .common import DELTA, register_path_claim

M_F, T_F = 256, 2000

for adv in ("constant", "stopping", "pushing", "random"):
    register_path_claim(
        f"seqproj.anytime.sphere.{adv}",
        f"P(∃ t ≤ T: |‖S_t‖²/V_t − 1| > ε_t(V_t)) ≤ δ = {DELTA}, ε_t solving "
        f"M ε² = 16(1+ε)(log(1/δ) + log(V_t/x_0²)), M = {M_F}, T = {T_F}, sphere columns, "
        f"{adv} adversary",
        Source(papers=("seqjl",), where="sequential JL theorem", theory="seqproj.md#anytime",
               note="any-time corollary derived by us from the theorem; whether the "
                    "paper states it is OPEN"),
        "DERIVED", experiment=band_experiment(M_F, "sphere", adv, T=T_F), event="anytime_exit",
        delta=DELTA, role="statement", expected="holds", params={"anytime_delta": DELTA},
        notes="ε_t may exceed 1 early on (lower side vacuous); the band's δ is the simulators' "
              "default anytime_delta = 0.05")
