"""``mismatch.ppo_clip.*`` — token-level PPO clipping leaks (TRM paper, theory ``mismatch.md#trm``; issue 15).

The library is :mod:`proofs_check.mismatch.ppo_clip`.  The identity checks where the gradient of
the clipped token objective flows (finite differences against the stated rule); the two
probability claims read the experiment :data:`~proofs_check.mismatch.experiments.PPO_PATHS` (a fresh
``low_prob`` pair, one response and a uniform reward per trial) and state the naive beliefs that
token clipping, or token masking, keeps the update inside the trust region — both refuted, as the
TRM paper says.
"""
from __future__ import annotations

import functools

from proofs_check.engine import IdentityClaim, ProbabilityClaim, register
from proofs_check.mismatch.experiments import PPO_PATHS
from proofs_check.mismatch.ppo_clip import leak_cases, leak_events, token_mask_violations

from ._common import paper

register(IdentityClaim(
    id="mismatch.ppo_clip.gradient_region",
    statement="∂/∂ρ min(ρA, clip(ρ, 1−ε, 1+ε)A) = A·1{(A > 0 ∧ ρ < 1+ε) ∨ (A < 0 ∧ ρ > 1−ε)} off the "
              "kinks: the unclipped branch stays active for ρ > 1+ε with A < 0 and ρ < 1−ε with A > 0",
    source=paper("trm", "ppo-clip", note="the leak of token-level clipping"),
    label="CONFIRMED",
    params={"rho": "log-uniform [e^-3, e^3]", "A": "N(0, 1)", "eps": "U[0.05, 0.3]",
            "derivative": "central finite difference, step 1e-6·ρ", "kink_margin": 1e-3},
    fn=leak_cases, tol=1e-6, tol_mode="absolute",
    chunk_size=500, default_budget=5_000, quick_budget=1_000, role="statement", expected="holds",
    version=1,
    notes="The objective is piecewise linear in ρ, so the central difference is exact up to "
          "rounding (≈ 1e-10) away from the kinks ρ = 1 ± ε; points within 1e-3·ρ of a kink are "
          "redrawn."))

_P = {"V": 2, "T": 6, "generator": "low_prob, fresh pair per trial", "reward": "U(0, 1)",
      "advantage": "R − 0.5"}

register(ProbabilityClaim(
    id="mismatch.ppo_clip.clipping_stops_outside_tokens",
    statement="token-level PPO clipping (ε = 0.2) passes no gradient from tokens whose ratio lies "
              "outside [1 − ε, 1 + ε]: P(some token of a response leaks) ≤ 1%",
    source=paper("trm", "ppo-clip", note="the naive reading of clipping as a trust region; the paper "
                                         "shows the unclipped branch stays active"),
    label="CONFIRMED",
    params={**_P, "eps": 0.2},
    experiment=PPO_PATHS, reduce=functools.partial(leak_events, eps=0.2), delta=0.01,
    chunk_size=250, default_budget=4_000, quick_budget=250, role="control", expected="refuted",
    version=1,
    notes="A leak: ρ_t > 1 + ε with A < 0, or ρ_t < 1 − ε with A > 0, at some position (the "
          "gradient of min(ρA, clip(ρ)A) is A there).  1% fixed in advance as 'rare'."))

register(ProbabilityClaim(
    id="mismatch.ppo_clip.token_mask_bounds_kl",
    statement="token masking (drop tokens with ρ_t ∉ [1 − ε, 1 + ε], ε = 0.2) holds the update inside "
              "the trust region: P(a response still carrying gradient passes a context with exact "
              "KL(μ‖π)(c_t) > δ = 0.02) ≤ 1%",
    source=paper("trm", "ppo-clip", note="token masking leaves max_{t,c} KL(c) unchanged; only "
                                         "sequence-level masking (TRM) bounds it"),
    label="CONFIRMED",
    params={**_P, "eps": 0.2, "delta": 0.02},
    experiment=PPO_PATHS, reduce=functools.partial(token_mask_violations, eps=0.2, delta=0.02),
    delta=0.01, chunk_size=250, default_budget=4_000, quick_budget=250, role="control",
    expected="refuted", version=1,
    notes="The exact per-context KL is the oracle of the TRM claims (exact_path_kl, from the raw "
          "logits).  Compare mismatch.trm.exact_never_false_accepts: TRM-Max admits no such "
          "response."))
