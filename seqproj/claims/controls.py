"""Controls (theory ``#controls``): the engine refutes the band where it must fail.

* a power control: the band at M = 32, far below the theorem's M (p ≈ 0.48);
* the look-ahead adversary: not predictable, failure rate 1.
"""
from __future__ import annotations

from proofs_check.engine import Source

from ..bounds import sequential_jl_min_dim
from ..experiments import band_experiment
from .common import DELTA, EPS, T, register_path_claim

register_path_claim(
    "seqproj.coverage.sphere.constant.M32",
    f"P(∃ t ≤ T: ‖S_t‖²/V_t ∉ [1−ε, 1+ε]) ≤ δ at M = 32 (ε = {EPS}, δ = {DELTA}, T = {T}), "
    "sphere columns, constant design",
    Source(theory="seqproj.md#controls", note="our reference run: p ≈ 0.48 at M = 32"),
    "DERIVED", experiment=band_experiment(32), event="failed", delta=DELTA, role="control",
    expected="refuted",
    notes="power check: at M far below the theorem's the failure rate is ≈ 0.48 (our reference run), so "
          "the claim must be refuted")

EPS_C, T_C = 0.9, 400
#: the theorem's M at ε = 0.9, T = 400: 338 < T, so a null vector of the columns exists
M_C = int(sequential_jl_min_dim(EPS_C, DELTA, T_C))
register_path_claim(
    "seqproj.negative_control.lookahead",
    f"P(∃ t ≤ T: ‖S_t‖²/V_t ∉ [1−ε, 1+ε]) ≤ δ at the theorem's M = {M_C} (T = {T_C}, ε = {EPS_C}, "
    f"δ = {DELTA}) for a look-ahead adversary (x in the null space of the columns)",
    Source(papers=("seqjl",), where="sequential JL theorem", theory="seqproj.md#controls",
           note="the theorem with its predictability assumption removed: our negative control"),
    "DERIVED", experiment=band_experiment(M_C, simulator="lookahead", eps=EPS_C, T=T_C, chunk_size=5),
    event="failed", delta=DELTA, role="control", expected="refuted", quick=10, default=20,
    notes="the adversary is not predictable (p = 1): shows that predictability is essential. "
          "ε = 0.9 so that the theorem's M is below T (needed for a null vector) at a small cost")
