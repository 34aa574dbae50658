"""``ensemble.equivalence.*``: the three equivalences of linear Ensemble++ (theory
``ensemble.md#equivalences``, ``ensemble.md#hypermodel``)."""
from __future__ import annotations

import functools

from proofs_check.engine import IdentityClaim, Source, register

from ..equivalences import ensemble_sampling_cases, hypermodel_cases, ridge_cases

register(IdentityClaim(
    id="ensemble.equivalence.mean_is_ridge",
    statement="Ensemble++ mean μ_t and Σ_t (Sherman–Morrison) equal the ridge/Kalman posterior "
              "(I/s₀ + XᵀX/σ²)⁻¹ and its mean, for every index/perturbation family",
    source=Source(papers=("ensemblepp",), theory="ensemble.md#equivalences",
                  note="the incremental update as in the authors' released code; its equality "
                       "with the ridge posterior is derived on the theory page"),
    label="DERIVED", params={"d_max": 8, "M_max": 12, "n_max": 40},
    fn=functools.partial(ridge_cases, d_max=8, M_max=12, n_max=40),
    tol=1e-9, tol_mode="mixed", chunk_size=50, default_budget=500, quick_budget=100,
    role="statement", expected="holds"))

register(IdentityClaim(
    id="ensemble.equivalence.one_hot_is_ensemble_sampling",
    statement="one-hot index √M e_m + Gaussian perturbations: μ_t + A_t√M e_m equals member m of "
              "classic ensemble sampling (perturbed prior N(0, s₀I), perturbed rewards N(0, σ²))",
    source=Source(papers=("ensemblepp", "ensemble-sampling"), theory="ensemble.md#equivalences",
                  note="classic ensemble sampling as the one-hot special case of the incremental "
                       "update (derived on the theory page)"),
    label="DERIVED", params={"d_max": 8, "M_max": 12, "n_max": 40},
    fn=functools.partial(ensemble_sampling_cases, d_max=8, M_max=12, n_max=40),
    tol=1e-9, tol_mode="mixed", chunk_size=50, default_budget=500, quick_budget=100,
    role="statement", expected="holds"))

register(IdentityClaim(
    id="ensemble.equivalence.sgd_to_closed_form",
    statement="HyperAgent linear hypermodel trained by gradient descent on the symmetrised loss "
              "(exact ±√M eᵢ set, or 2 sampled ξ with mirrors) converges to (μ_t, A_t) of Ensemble++",
    source=Source(papers=("hyperagent", "ensemblepp"), theory="ensemble.md#hypermodel",
                  note="the linear hypermodel and its loss as in the authors' code; its minimiser "
                       "is the closed form (derived on the theory page)"),
    label="DERIVED", params={"d_max": 5, "M_max": 6, "n_max": 15, "steps_max": 30000},
    fn=functools.partial(hypermodel_cases, d_max=5, M_max=6, n_max=15, steps_max=30000),
    tol=1e-8, tol_mode="mixed", chunk_size=10, default_budget=60, quick_budget=20,
    role="statement", expected="holds",
    notes="The closed form is a fixed point of every symmetrised step (the residual of the "
          "normal equations multiplies the empirical ΞᵀΞ), so sampled indices converge exactly too."))
