"""Claims: the OTB group estimator as implemented (theory ``baselines.md#otb-implementation``)."""
from __future__ import annotations

import functools

from proofs_check.baselines.ragged import otb_equal_weight_cases, otb_reference_cases
from proofs_check.engine import IdentityClaim, Source, register
from proofs_check.symbolic import prove_otb_equal_weights

THEORY = "baselines.md#otb-implementation"


def _prove_equal_weights() -> bool:
    return all(prove_otb_equal_weights(N) for N in range(1, 7)) and prove_otb_equal_weights(None)


BATCH = {"N": 16, "L": 12, "V": 6}
register(IdentityClaim(
    id="baselines.otb.reference",
    statement="fused OTB kernel = per-token loop of the implementation's steps 1–6 on ragged batches "
              "(groups of one, ties, IS weights, zero tail)",
    source=Source(papers=("verl", "otb"), where="compute_optimal_token_baseline_advantage (trainer/ppo/core_algos.py)",
                  theory=THEORY, note="the estimator as implemented by the authors"),
    label="CONFIRMED", role="statement", expected="holds", version=2,
    params=dict(BATCH),
    fn=functools.partial(otb_reference_cases, **BATCH), tol=1e-13, tol_mode="scale",
    chunk_size=20, default_budget=200, quick_budget=40,
))

register(IdentityClaim(
    id="baselines.otb.equal_weights_group_mean",
    statement="equal energies in a group (ε = 0): B_t = per-position group mean of G_t",
    source=Source(theory=THEORY),  # our derivation: no paper
    label="DERIVED", role="statement", expected="holds", version=2,
    params={"eps": 0.0}, fn=functools.partial(otb_equal_weight_cases, eps=0.0), tol=1e-13, tol_mode="scale",
    proof=_prove_equal_weights, chunk_size=50, default_budget=500, quick_budget=100,
))
