"""Claims: divergence-augmented policy optimization — the trajectory KL, its gradient and the
truncated-IS accumulation of a per-step divergence (theory ``baselines.md#divergence-augmentation``)."""
from __future__ import annotations

import functools

from proofs_check.baselines.dapo import (accumulation_onpolicy_cases, dapo_chain_cases, dapo_gradient_cases,
                                         per_decision_cases)
from proofs_check.engine import IdentityClaim, Source, register

THEORY = "baselines.md#divergence-augmentation"
# our derivation: no paper
OURS = Source(theory=THEORY, note="in the setting of Divergence-Augmented Policy Optimization")


def _derived(name: str, statement: str, fn, params: dict, **kw) -> None:
    """Register one of our identities (DERIVED, expected to hold), its case generator bound to ``params``."""
    register(IdentityClaim(id=f"baselines.dapo.{name}", statement=statement, source=OURS, label="DERIVED",
                           role="statement", expected="holds", params=params,
                           fn=functools.partial(fn, **params), **kw))


_derived("chain_rule", "KL(P^π ‖ P^μ) = Σ_t E_{d_t^π} KL(π(·|c) ‖ μ(·|c)) (tabular V=3, T=4)",
         dapo_chain_cases, {"V": 3, "T": 4}, version=2, tol=1e-13, tol_mode="scale",
         chunk_size=20, default_budget=200, quick_budget=40)
_derived("gradient_form", "∇_θ KL(P^π‖P^μ) = E_π[Σ_t ∇log π(y_t|c_t) Σ_{k≥t} log(π/μ)(y_k|c_k)] "
                          "(complex-step derivative, V=2, T=3)",
         dapo_gradient_cases, {"V": 2, "T": 3}, tol=1e-12, tol_mode="mixed",
         chunk_size=5, default_budget=40, quick_budget=10)
_derived("accumulation_onpolicy", "correct truncated-IS accumulation with all ratios 1 = discounted reward-to-go "
                                  "of the per-step divergence",
         accumulation_onpolicy_cases, {"recursion": "correct"}, version=2, tol=1e-13, tol_mode="scale",
         chunk_size=50, default_budget=500, quick_budget=100)
_derived("per_decision_is", "no truncation, μ ≠ π: E_μ[V_0] = E_π[Σ_j γ^j reg_j] for the correct recursion "
                            "(tabular V=2, T=4)",
         per_decision_cases, {"V": 2, "T": 4}, tol=1e-12, tol_mode="mixed",
         chunk_size=10, default_budget=50, quick_budget=10)

register(IdentityClaim(
    id="baselines.dapo.transcribed_recursion",
    statement="the transcribed released recursion with all ratios 1 = discounted reward-to-go",
    source=Source(papers=("dapo-div",), theory=THEORY,
                  note="our transcription of the authors' released recursion, kept as a documented "
                       "counterexample"),
    label="RECONSTRUCTED", role="control", expected="refuted", version=2,
    params={"recursion": "transcribed"},
    fn=functools.partial(accumulation_onpolicy_cases, recursion="transcribed"), tol=1e-13, tol_mode="scale",
    chunk_size=50, default_budget=100, quick_budget=50,
    notes="A documented counterexample: e.g. (1, 10, 100, 1000), γ = 0.5 gives "
          "(426, 760, 600, 1000) against (156, 310, 600, 1000).",
))
