"""``ensemble.failure.*``: each failure mode detected with a diagnosis (theory
``ensemble.md#failure-modes``).  All are controls: the detector must fire on the
faulty run and stay silent on the correct one (``rhs`` of the identity)."""
from __future__ import annotations

import functools

from proofs_check.engine import ComparisonClaim, IdentityClaim, Source, register, sign_of

from ..failure_modes import (broken_predictability_flags, float32_flags, one_hot_small_m_gap,
                             rank_deficient_flags, unnormalised_perturbation_flags)

_THEORY = "ensemble.md#failure-modes"
_FLAG = ("lhs = [detector fires on the faulty run, detector fires on the correct run], "
         "rhs = [1, 0]")
_PREDICTABLE = ("predictability is the hypothesis of the sequential JL lemma; the adversary and "
                "the detector are ours")


def _detector(name, statement, source, params, fn, *, chunk_size, default_budget, quick_budget,
              notes=_FLAG):
    """Register ``ensemble.failure.<name>``: a DERIVED control whose flags ``fn`` must equal
    their ``rhs`` (tolerance 0.5: flags are 0 or 1)."""
    register(IdentityClaim(
        id=f"ensemble.failure.{name}", statement=statement, source=source, label="DERIVED",
        params=params, fn=fn, tol=0.5, tol_mode="absolute", chunk_size=chunk_size,
        default_budget=default_budget, quick_budget=quick_budget, role="control", expected="holds",
        notes=notes))


# The two faults diagnose_factor must name, each against the correct run.
for _name, _flags, _T, _params, _statement, _note in (
        ("unnormalised_perturbation", unnormalised_perturbation_flags, 100,
         {"d": "2..8", "M": "max(16, 4d..8d)"},
         "perturbations N(0, I) instead of N(0, I/M) make A Aᵀ ≈ M Σ; diagnose_factor says so, "
         "and stays silent on the correct update",
         "E zzᵀ = I instead of I/M gives E AAᵀ = M·Σ"),
        ("rank_deficient", rank_deficient_flags, 50, {"d": "3..11", "M": "1..d−1"},
         "M < d: A Aᵀ has rank M < d (samples never move in d − M directions); "
         "diagnose_factor reports it, and not for M = 4d",
         "rank AAᵀ ≤ M")):
    _detector(_name, _statement, Source(theory=_THEORY, note=_note), {**_params, "T": _T},
              functools.partial(_flags, T=_T), chunk_size=10, default_budget=40, quick_budget=10)

# Predictability broken two ways; the sup tracking error must cross the diagnostic threshold.
for _mode, _name, _statement in (
        ("lookahead", "lookahead_perturbation",
         "drawing z_t before x_t (the action maximises xᵀP_{t−1}z_t) breaks predictability: "
         "the sup tracking error exceeds the diagnostic threshold 2√(d/M) + d/M + 0.5, "
         "which the predictable run (same seed) stays under; d = 5, M = 40, T = 300"),
        ("reuse", "reused_perturbation",
         "reusing one z for every update makes the sup tracking error exceed the diagnostic "
         "threshold, which the fresh-z run (same seed) stays under; d = 5, M = 40, T = 300")):
    _detector(_name, _statement, Source(papers=("seqjl",), theory=_THEORY, note=_PREDICTABLE),
              {"d": 5, "M": 40, "T": 300},
              functools.partial(broken_predictability_flags, mode=_mode, d=5, M=40, T=300),
              chunk_size=5, default_budget=20, quick_budget=5)

_detector(
    "float32_sqrt",
    "a float32 Cholesky square root of an ill-conditioned Σ_t (κ ≥ 3·10⁸) is refused "
    "with a diagnosis, while the float64 Cholesky of the precision whitens it to 10⁻³ "
    "in every direction",
    Source(theory=_THEORY, note="a float32 factor is wrong in directions where κ·ε₃₂ ≳ 1"),
    {"d": "5..29", "log10_kappa": "8.5..10"}, float32_flags,
    chunk_size=20, default_budget=100, quick_budget=20,
    notes="lhs = [float32 refused with the float64 advice, float64 precision Cholesky ok], rhs = [1, 1]")

register(ComparisonClaim(
    id="ensemble.failure.one_hot_small_m",
    statement="one-hot index at small M (classic ensemble sampling, M = 2 < d = 10) loses "
              "anti-concentration: on more instances than the reverse its final regret exceeds "
              "1.5× exact TS, E sign(R_ES − 1.5 R_TS) > 0 (finite arms, K = 100, T = 1000)",
    source=Source(papers=("ensemble-sampling",), theory=_THEORY,
                  note="classic ensemble sampling; the excess regret at M < d, the factor 1.5 "
                       "and the majority reading are our operationalisation"),
    label="DERIVED", params={"d": 10, "M": 2, "K": 100, "T": 1000, "factor": 1.5,
                             "statistic": "sign"},
    fn=functools.partial(sign_of, functools.partial(one_hot_small_m_gap, d=10, M=2, K=100, T=1000,
                                                    factor=1.5)),
    threshold=0.0, alternative="greater",
    # Issue 21: a regret under a Gaussian θ* has no almost-sure range, and the true variance
    # bound 1.5²·T²·E[Δ²] ≈ 1.2e9 is ≈ 2000× the observed variance (sd ≈ 830): declared, this
    # positive control could never hold.  The sign of each instance's gap is in [−1, 1], so
    # the betting sequence decides the majority statement, anytime-valid
    # (docs/theory/engine.md#sign-comparison).  Version 1 read Hall's interval on the mean gap.
    bounds=(-1.0, 1.0), version=2,
    chunk_size=10, default_budget=50, quick_budget=20, role="statement", expected=None,
    notes="The known failure mode (one-hot index, M < d) as excess regret.  Factor rule: 1.5× TS, "
          "'loses anti-concentration' made quantitative before the runs.  One fresh instance per "
          "repetition.  Version 2 (issue 21): a majority (sign statistic, bounds [−1, 1], "
          "betting sequence, anytime-valid) instead of a mean decided by Hall's asymptotic "
          "interval.  Version 1 was a positive control expected to hold; the majority reading "
          "is not settled (seed 0: E sign 0.16, 95 % CS [−0.25, 0.70] at n = 50 — the excess "
          "regret is carried by a minority of instances), so it is a statement with no expected "
          "verdict, not a control."))
