"""Tails by column family (theory ``#tails``).

Tails threshold, fixed before any run: a family "has sphere-like
tails" when its failure rate at M = 128 is at most twice our sphere
reference rate (0.0102).  Sphere, Gaussian, Rademacher and sparse columns must meet
it; one-hot columns (reference 0.034) must not — and must fail more often
than the sphere.
"""
from __future__ import annotations

import functools

from proofs_check.engine import ComparisonClaim, Source, register

from ..columns import FAMILIES, column_family
from ..events import choose_simulator, tail_difference
from ..experiments import TAILS_M, tails_experiment
from .common import EPS, T, register_path_claim

#: our reference sphere failure rate at M = 128, T = 300, ε = 0.5, constant design
SPHERE_REF_E = 0.0051
DELTA_E = 2.0 * SPHERE_REF_E
M_E = TAILS_M

for fam in FAMILIES:
    info = column_family(fam, M_E)
    sim = choose_simulator(fam, "constant")
    onehot = fam == "onehot"
    reduced = sim == "reduced"
    register_path_claim(
        f"seqproj.tails.{fam}",
        f"P(∃ t ≤ T: ‖S_t‖²/V_t ∉ [1−ε, 1+ε]) ≤ {DELTA_E:g} = 2 × the reference sphere rate at "
        f"M = {M_E}, T = {T}, ε = {EPS}, constant design, {fam} columns (c₀ = {info.c0:.3g}, inside "
        f"the assumptions: {info.assumptions})",
        Source(theory="seqproj.md#tails",
               note="threshold = 2 × our sphere reference rate 0.0051"),
        "DERIVED", experiment=tails_experiment(fam), event="failed", delta=DELTA_E,
        quick=20_000 if reduced else 4000, default=200_000 if reduced else 40_000,
        role="control" if onehot else "statement", expected="refuted" if onehot else "holds",
        params={"s": info.s, "c0": info.c0, "assumptions": info.assumptions},
        notes=("flagged: outside the theorem's assumptions (heavy tails); reference rate 0.034, "
               "so the claim must be refuted" if onehot else
               "threshold = 2 × the sphere reference 0.0051 (rule fixed before the runs)"))

register(ComparisonClaim(
    id="seqproj.tails.onehot_vs_sphere",
    statement=f"P_onehot(fail) − P_sphere(fail) > 0 at M = {M_E}, T = {T}, ε = {EPS}, constant design "
              "(one-hot columns, outside the assumptions, fail more often)",
    source=Source(theory="seqproj.md#tails",
                  note="our check: one-hot fails ≈ 6× the sphere's rate"),
    label="DERIVED",
    params={"M": M_E, "T": T, "eps": EPS, "family": "onehot"},
    fn=functools.partial(tail_difference, M=M_E, eps=EPS, T=T, family="onehot"),
    threshold=0.0, alternative="greater",
    # a difference of two indicators lies in [−1, 1] almost surely: the engine's betting
    # confidence sequence for a bounded mean then gives an anytime-valid verdict
    bounds=(-1.0, 1.0),
    chunk_size=500, quick_budget=2000, default_budget=10_000,
    role="statement", expected="holds",
    notes="flagged family; the two indicators of a pair come from independent trials, so the "
          "differences are i.i.d. in [−1, 1] with mean P_onehot − P_sphere"))
