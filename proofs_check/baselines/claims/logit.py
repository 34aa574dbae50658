"""Claims: one policy-gradient step on the logits (theory ``baselines.md#logit-dynamics``)."""
from __future__ import annotations

import functools

from proofs_check.baselines.logit_dynamics import (ETA_GRID, PANEL_SEED, PANEL_SIZE, TOL_GRID,
                                                   approximation_error_curves, breaking_step_curves,
                                                   update_norm_cases, zero_sum_cases)
from proofs_check.engine import IdentityClaim, ScalingClaim, Source, register
from proofs_check.symbolic import prove_zero_sum_logit_update

THEORY = "baselines.md#logit-dynamics"
OURS = Source(theory=THEORY)  # our derivation: no paper
CONTEXTS = {"max_v": 20_000, "max_scale": 1e4}


def _prove_zero_sum() -> bool:
    return all(prove_zero_sum_logit_update(V) for V in range(2, 7)) and prove_zero_sum_logit_update(None)


register(IdentityClaim(
    id="baselines.logit.zero_sum",
    statement="Σ_j Δz_j = 0 for Δz = ηA(e_a − p), |ηA| ≤ 10, |z| ≤ 1e4",
    source=OURS, label="DERIVED", role="statement", expected="holds", version=2, params={"max_v": 20_000},
    fn=functools.partial(zero_sum_cases, **CONTEXTS), tol=1e-13, tol_mode="scale", proof=_prove_zero_sum,
    chunk_size=50, default_budget=500, quick_budget=100,
))

register(IdentityClaim(
    id="baselines.logit.update_norm",
    statement="‖Δz‖ = η|A| √(1 − 2p_a + Σ_b p_b²)",
    source=Source(papers=("logit-dynamics",), theory=THEORY,
                  note="confident policies make small updates, low-probability choices large ones"),
    label="CONFIRMED", role="statement", expected="holds", version=2, params={"max_v": 20_000},
    fn=functools.partial(update_norm_cases, **CONTEXTS), tol=1e-13, tol_mode="scale",
    chunk_size=50, default_budget=500, quick_budget=100,
))

_PANEL_NOTE = ("Deterministic: a fixed panel of {n} contexts (V = 8, z ~ 2·N(0, I), seed {seed}), A = 1; "
               "the curve is the {what} over the panel. Window: the theoretical exponent ± 0.1, fixed "
               "before the data.").format
PANEL = {"V": 8, "panel_seed": PANEL_SEED, "panel_size": PANEL_SIZE}

for cid, statement, x, fn, lo, hi, what in (
        ("first_order_error", "error of Δlog p_i ≈ ηA[(δ_ia − p_i) − (p_a − Σp²)] grows like η^a, a ∈ [1.9, 2.1]",
         ETA_GRID, functools.partial(approximation_error_curves, order=1, V=8), 1.9, 2.1, "worst error"),
        ("second_order_error", "error of KL(p‖p') ≈ ½Δzᵀ(diag p − ppᵀ)Δz grows like η^a, a ∈ [2.9, 3.1]",
         ETA_GRID, functools.partial(approximation_error_curves, order=2, V=8), 2.9, 3.1, "worst absolute error"),
        ("first_order_breaking_step",
         "step size where the first-order error first exceeds tol scales like tol^a, a ∈ [0.4, 0.6]",
         TOL_GRID, functools.partial(breaking_step_curves, order=1, V=8), 0.4, 0.6, "smallest breaking step"),
        ("second_order_breaking_step",
         "step size where the second-order KL's relative error first exceeds tol scales like tol^a, a ∈ [0.9, 1.1]",
         TOL_GRID, functools.partial(breaking_step_curves, order=2, V=8), 0.9, 1.1, "smallest breaking step")):
    register(ScalingClaim(
        id=f"baselines.logit.{cid}", statement=statement,
        source=OURS, label="DERIVED", role="statement", expected="holds", version=2,
        params=dict(PANEL), x=x, fn=fn, deterministic=True,
        exponent_lo=lo, exponent_hi=hi, chunk_size=1, default_budget=1, quick_budget=1,
        notes=_PANEL_NOTE(n=PANEL_SIZE, seed=PANEL_SEED, what=what),
    ))
