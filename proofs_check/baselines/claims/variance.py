"""Claims: exact population variances of per-position constant baselines — the tabular ordering
(theory ``baselines.md#population-variance``) and what changes with shared parameters
(``baselines.md#shared-parameters``).  Decided by worst-case search over small random instances;
a float64 counterexample is re-checked at 50 digits."""
from __future__ import annotations

import functools

from proofs_check.baselines.instances import (instance_project, instance_sample, shared_instance_project,
                                              shared_instance_sample, shared_variance_pair,
                                              shared_variance_pair_mp, variance_pair, variance_pair_mp)
from proofs_check.engine import InequalityClaim, Source, register

OURS = Source(theory="baselines.md#population-variance")  # our derivation: no paper
TABULAR = {"V": 2, "T": 3}

for small, large, label, source, note in (
        ("per_token", "otb", "DERIVED", OURS,
         "per-position constants: the per-token optimum minimises the variance"),
        ("per_token", "global_bstar", "DERIVED", OURS,
         "b* is a per-position constant, so the per-token optimum wins"),
        ("otb", "global_bstar", "DERIVED", OURS,
         "tabular, outcome reward: Var(b) = Σ_t a_t (b_t − b_t°)² + const with a_t = E‖s_t‖², "
         "b_t° the per-token optimum; OTB's B_t is the a-weighted prefix mean of b°, b* the full mean, "
         "and Welford's update S_t = S_{t−1} + a_t (A_t/A_{t−1})(b°_t − B_t)² gives "
         "Σ_t a_t (b* − b°_t)² ≥ Σ_t a_t (B_t − b°_t)², so no counterexample exists here (ours)"),
        ("otb", "mean", "DERIVED", OURS, "follows from otb ≤ b* ≤ mean in the tabular case"),
        ("global_bstar", "mean", "CONFIRMED",
         Source(papers=("otb",), theory="baselines.md#population-variance",
                note="the classic optimal scalar baseline b* = E[‖S‖² R]/E‖S‖², the paper's starting point"),
         "b* minimises E‖S(R − b)‖² over scalars b")):
    register(InequalityClaim(
        id=f"baselines.variance.{small}_le_{large}",
        statement=f"tabular V=2, T=3, R∈[0,1]: population Var[ĝ_{small}] ≤ Var[ĝ_{large}]",
        source=source, label=label, role="statement", expected="holds",
        params={**TABULAR, "scale": 2.0},
        sample=functools.partial(instance_sample, **TABULAR, scale=2.0),
        project=functools.partial(instance_project, **TABULAR),
        evaluate=functools.partial(variance_pair, small=small, large=large, **TABULAR),
        evaluate_mp=functools.partial(variance_pair_mp, small=small, large=large, **TABULAR),
        atol=0.0, rtol=1e-9, chunk_size=100, default_budget=1_000, quick_budget=200, notes=note,
    ))

SHARED = {"V": 2, "T": 3, "d": 2}
QUESTION = Source(papers=("otb",), theory="baselines.md#shared-parameters",
                  note="our question: the paper's theorem statement was not read, and OTB's weights are the "
                       "logit proxy, not E⟨s_t, S⟩R")
for small, large, label, expected, source, note in (
        ("otb", "global_bstar", "OPEN", "refuted", QUESTION,
         "shared θ: OTB weights are the logit proxy, not E⟨s_t, S⟩R — search for losses"),
        ("otb", "mean", "OPEN", "refuted", QUESTION,
         "shared θ: search for instances where OTB loses to the plain mean"),
        ("per_token", "otb", "DERIVED", "holds",
         Source(theory="baselines.md#shared-parameters"),
         "the per-token optimum minimises the variance over per-position constants")):
    register(InequalityClaim(
        id=f"baselines.variance.shared.{small}_le_{large}",
        statement=f"linear-softmax (shared θ), V=2, T=3, d=2, R∈[0,1]: population Var[ĝ_{small}] ≤ Var[ĝ_{large}]",
        source=source, label=label, role="statement", expected=expected,
        params={**SHARED, "weights": "proxy"},
        sample=functools.partial(shared_instance_sample, **SHARED, scale=2.0),
        project=functools.partial(shared_instance_project, **SHARED),
        evaluate=functools.partial(shared_variance_pair, small=small, large=large, **SHARED, weights="proxy"),
        evaluate_mp=functools.partial(shared_variance_pair_mp, small=small, large=large, **SHARED,
                                      weights="proxy"),
        atol=0.0, rtol=1e-9, chunk_size=100, default_budget=2_000, quick_budget=200, notes=note,
    ))
