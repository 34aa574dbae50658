"""Fixed-time JL fails under a predictable stopping adversary (theory ``#fixed-time``).

The stopping adversary plays ``x_t = 1`` until the ratio first leaves the band,
then ``x_t = 0``: at ``t = T`` the sketch is out of band with the time-uniform
failure probability, above the Dasgupta–Gupta fixed-vector bound.  A fixed
design (independent of the projection) is the positive control.
"""
from __future__ import annotations

from proofs_check.engine import Source

from ..bounds import fixed_vector_jl_failure_bound
from ..experiments import FIXED_TIME_T, fixed_time_experiment
from .common import EPS, register_path_claim

M_B, T_B = 32, FIXED_TIME_T
#: the Dasgupta–Gupta bound 2 exp(−(M/2)(ε²/2 − ε³/3)) at M = 32, ε = 0.5: 0.5272
DG = float(fixed_vector_jl_failure_bound(M_B, EPS))

for fam, adv, expect, quick in (("gaussian", "stopping", "refuted", 40_000),
                                ("sphere", "stopping", "refuted", 200_000),
                                ("gaussian", "constant", "holds", 20_000)):
    stopping = adv == "stopping"
    register_path_claim(
        f"seqproj.fixed_time.{adv}.{fam}",
        f"P(‖S_T‖²/V_T ∉ [1−ε, 1+ε]) ≤ 2·exp(−(M/2)(ε²/2 − ε³/3)) = {DG:.4f} (fixed-vector JL) "
        f"at M = {M_B}, T = {T_B}, ε = {EPS}, {fam} columns, {adv} adversary",
        Source(papers=("dasgupta-gupta",), where="Lemma 2.2", theory="seqproj.md#fixed-time",
               note=("applied to a predictable stopping adversary, where its independence "
                     "assumption fails (our check B)") if stopping else
                    "a fixed design is independent of the projection: the lemma applies"),
        "CONFIRMED", experiment=fixed_time_experiment(M_B, fam, adv), event="out_at_T", delta=DG,
        role="control", expected=expect, quick=quick, default=5 * quick,
        notes=("the stopping adversary is predictable; the fixed-vector guarantee assumes data "
               "independent of the projection, so it need not hold — and it does not (our "
               "reference 0.538 sphere / 0.568 Gaussian): must be refuted") if stopping
        else "positive control: a fixed design is independent of the projection, DG applies")
