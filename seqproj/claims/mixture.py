"""The mixture step of the proof alone (theory ``#mixture``).

The martingale ``2D_t = 2Σ x_s⟨S_{s−1}, z_s⟩`` with intrinsic time
``v_t = Σ 4x_s²‖S_{s−1}‖²/M`` must cross the two-sided normal-mixture boundary
with probability at most α.
"""
from __future__ import annotations

from proofs_check.engine import Source

from ..experiments import band_experiment
from .common import T, register_path_claim

#: α = 0.05 is also the simulators' default ``mix_alpha``, so these claims read the same
#: experiments as the tails claims at M = 128 (one stored run, two families of claims)
M_D, ALPHA_D = 128, 0.05

for fam in ("sphere", "gaussian"):
    for adv in ("constant", "pushing"):
        register_path_claim(
            f"seqproj.mixture.{fam}.{adv}",
            f"P(∃ t ≤ T: |2D_t| > √((v_t + ρ)(log(1 + v_t/ρ) + 2 log(1/α)))) ≤ α = {ALPHA_D}, "
            f"2D_t = 2 Σ x_s ⟨S_(s−1), z_s⟩, v_t = Σ 4 x_s² ‖S_(s−1)‖²/M, ρ = 2(1+ε)V_0²/M; "
            f"M = {M_D}, T = {T}, {fam} columns, {adv} adversary",
            Source(papers=("howard2021", "seqjl"), where="Prop. 4/5", theory="seqproj.md#mixture",
                   note="the two-sided normal-mixture boundary applied to step 4 of the "
                        "sequential JL proof (our reconstruction of the proof)"),
            "DERIVED", experiment=band_experiment(M_D, fam, adv), event="mix_cross", delta=ALPHA_D,
            role="statement", expected="holds", params={"alpha": ALPHA_D},
            notes="our reference: 0.011–0.016 for the constant design; α = 0.05 fixed before the runs")
