"""The sequential JL band holds at the theorem's M (theory ``#coverage``).

Every column family inside the assumptions × every predictable adversary, plus
one-hot columns (outside the assumptions) as a measurement.
"""
from __future__ import annotations

from proofs_check.engine import Source

from ..adversaries import PREDICTABLE
from ..columns import column_family
from ..events import choose_simulator
from ..experiments import band_experiment
from .common import DELTA, EPS, M_THEOREM, T, register_path_claim

#: column families inside the theorem's assumptions (Gaussian through the non-unit-norm relaxation)
COVERAGE_FAMILIES = ("sphere", "rademacher", "gaussian")

for fam in COVERAGE_FAMILIES:
    for adv in PREDICTABLE:
        sim = choose_simulator(fam, adv)
        relaxed = column_family(fam, M_THEOREM).assumptions == "relaxed"
        register_path_claim(
            f"seqproj.coverage.{fam}.{adv}",
            f"P(∃ t ≤ T: ‖S_t‖²/V_t ∉ [1−ε, 1+ε]) ≤ δ at the theorem's M = {M_THEOREM} "
            f"(ε = {EPS}, δ = {DELTA}, T = {T}), {fam} columns, {adv} adversary",
            Source(papers=("seqjl",), where="sequential JL theorem", theory="seqproj.md#coverage",
                   note="the constant 16 and the placement of c₀ are reconstructed"
                        + ("; Gaussian columns through the non-unit-norm relaxation"
                           if relaxed else "")),
            "RECONSTRUCTED", experiment=band_experiment(M_THEOREM, fam, adv, simulator=sim),
            event="failed", delta=DELTA, role="statement", expected="holds",
            notes=("Gaussian columns are inside the assumptions only through the non-unit-norm "
                   "relaxation (theory #nonunit, larger constants); checked here at the unit-norm theorem's M. " if relaxed else "")
            + f"simulator: {sim}")

register_path_claim(
    "seqproj.coverage.onehot.constant",
    f"P(∃ t ≤ T: ‖S_t‖²/V_t ∉ [1−ε, 1+ε]) ≤ δ at the theorem's M = {M_THEOREM}, one-hot columns "
    "(outside the assumptions: c₀ ≈ M/log M)",
    Source(papers=("seqjl",), where="sequential JL theorem", theory="seqproj.md#tails",
           note="one-hot columns violate the theorem's sub-Gaussian assumption: a measurement"),
    "DERIVED", experiment=band_experiment(M_THEOREM, "onehot"), event="failed", delta=DELTA,
    role="measurement", expected=None,
    notes="flagged: one-hot columns violate the sub-Gaussian assumption; a 'holds' here is "
          "not covered by the theorem")
