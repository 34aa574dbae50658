"""``mismatch.estimator.*`` — bias and variance bounds of the gradient estimators.

A shared-parameter linear-softmax trainer (one θ moves many contexts, so biases are visible) and a
sampler offset from it; every quantity exact by enumeration
(:func:`proofs_check.mismatch.inequalities.evaluate_estimator_bound`).  The two bias bounds allow a
stated forward-error bound (:func:`estimator_bias_allowance`): the bias is exactly 0 where the
right-hand side is.
"""
from __future__ import annotations

import functools

from proofs_check.engine import InequalityClaim, register
from proofs_check.mismatch.inequalities import estimator_bias_allowance, evaluate_estimator_bound
from proofs_check.mismatch.pairs import clip_logits, sample_linear

from ._common import SEARCH, paper

_E = {"V": 2, "T": 4, "d": 3, "seed": 7}

for _w, _st in [("naive", "‖bias(naive)‖ ≤ 2 sup‖f‖ TV(P^π, P^μ)"),
                ("tis_excess", "‖bias(seq TIS)‖ ≤ K E_μ[(ρ − C)_+], K = sup‖f‖"),
                ("tis_chi2", "K E_μ[(ρ − C)_+] ≤ K (1 + χ²_seq)/C"),
                ("is_second_moment", "E_μ ρ² ≤ (1 + max_c χ²(c))^T"),
                ("seq_tis", "Var(seq TIS) ≤ C² E_μ‖f‖²"),
                ("seq_mis", "Var(seq MIS) ≤ C² E_μ‖f‖²")]:
    register(InequalityClaim(
        id=f"mismatch.estimator.{_w}", statement=_st, source=paper("speed-kills", "estimators"),
        label="CONFIRMED", params={**_E, "C": 2.0, "policy": "LinearSoftmaxPolicy (shared θ)"},
        sample=functools.partial(sample_linear, V=_E["V"], T=_E["T"], d=_E["d"]),
        evaluate=functools.partial(evaluate_estimator_bound, which=_w, C=2.0, **_E),
        atol=estimator_bias_allowance(C=2.0, **_E) if _w in ("naive", "tis_excess") else 0.0,
        version=2 if _w in ("naive", "tis_excess") else 1, project=clip_logits, **SEARCH))
