"""``ensemble.equivalence.*``: the three equivalences of linear Ensemble++ (theory
``ensemble.md#equivalences``, ``ensemble.md#hypermodel``)."""
from __future__ import annotations

import functools

from proofs_check.engine import IdentityClaim, Source, register

from ..equivalences import ensemble_sampling_cases, hypermodel_cases, ridge_cases


def _equivalence(name, statement, source, fn, params, *, tol, chunk_size, default_budget, quick_budget,
                 notes=""):
    """Register ``ensemble.equivalence.<name>``: the random cases ``fn(rng, n, **params)`` agree
    to ``tol`` (mixed), a DERIVED statement expected to hold."""
    register(IdentityClaim(
        id=f"ensemble.equivalence.{name}", statement=statement, source=source,
        label="DERIVED", params=dict(params), fn=functools.partial(fn, **params),
        tol=tol, tol_mode="mixed", chunk_size=chunk_size, default_budget=default_budget,
        quick_budget=quick_budget, role="statement", expected="holds", notes=notes))


# The incremental factor against the two batch solutions it must reproduce (random cases of each).
for _name, _cases, _papers, _statement, _note in (
        ("mean_is_ridge", ridge_cases, ("ensemblepp",),
         "Ensemble++ mean μ_t and Σ_t (Sherman–Morrison) equal the ridge/Kalman posterior "
         "(I/s₀ + XᵀX/σ²)⁻¹ and its mean, for every index/perturbation family",
         "the incremental update as in the authors' released code; its equality with the ridge "
         "posterior is derived on the theory page"),
        ("one_hot_is_ensemble_sampling", ensemble_sampling_cases, ("ensemblepp", "ensemble-sampling"),
         "one-hot index √M e_m + Gaussian perturbations: μ_t + A_t√M e_m equals member m of "
         "classic ensemble sampling (perturbed prior N(0, s₀I), perturbed rewards N(0, σ²))",
         "classic ensemble sampling as the one-hot special case of the incremental update (derived "
         "on the theory page)")):
    _equivalence(_name, _statement, Source(papers=_papers, theory="ensemble.md#equivalences", note=_note),
                 _cases, {"d_max": 8, "M_max": 12, "n_max": 40}, tol=1e-9, chunk_size=50,
                 default_budget=500, quick_budget=100)

_equivalence(
    "sgd_to_closed_form",
    "HyperAgent linear hypermodel trained by gradient descent on the symmetrised loss "
    "(exact ±√M eᵢ set, or 2 sampled ξ with mirrors) converges to (μ_t, A_t) of Ensemble++",
    Source(papers=("hyperagent", "hyperdqn", "ensemblepp"), theory="ensemble.md#hypermodel",
           note="the linear hypermodel (a base model whose parameters a hypermodel maps from a random "
                "index, introduced with HyperDQN) and its loss as in the authors' code; its minimiser "
                "is the closed form (derived on the theory page)"),
    hypermodel_cases, {"d_max": 5, "M_max": 6, "n_max": 15, "steps_max": 30000},
    tol=1e-8, chunk_size=10, default_budget=60, quick_budget=20,
    notes="The closed form is a fixed point of every symmetrised step (the residual of the "
          "normal equations multiplies the empirical ΞᵀΞ), so sampled indices converge exactly too.")
