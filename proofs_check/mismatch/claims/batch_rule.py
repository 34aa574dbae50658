"""The batch-size-invariant rule for the step size and the queue: ``mismatch.batch_rule.*`` (issue 23, part 2).

The rule ``η(B) = η₀ B/B₀``, ``k(B) = k₀ B₀/B`` (DERIVED from the two staleness laws, theory
``mismatch.md#batch-rule``; :func:`proofs_check.mismatch.batch_rule.batch_rule`) holds the
sampler–trainer gap ``KL(P^{θ_{s−k}} ‖ P^{θ_s})`` — the measure of ``mismatch.scaling.staleness_*`` —
fixed as ``B`` grows over a 32× range; the two naive rules with a fixed queue (``η ∝ B``; ``η``
fixed) move it out of the band; the rule breaks past the queue floor ``B* = k₀B₀`` and, with the
queue held fixed, in the drift regime.

Declared before any run (role, label, expected): every claim here is a ``statement``, label
``DERIVED``, expected ``holds``.  The band for "fixed" is an exponent of the gap against ``B`` in
``[−0.2, 0.2]`` (a factor ``32^{0.2} ≈ 2`` over the whole range at most); "moved out" is an
exponent in ``[0.8, 1.2]`` (``η ∝ B``: noise term ``∝ kη²/B ∝ B``) or ``[−1.2, −0.8]`` (``η`` fixed:
``∝ 1/B``).  Random claims: the delta-method interval on the slope of ``log E gap``
(van der Vaart 1998, §3.1; asymptotic in the number of seeds); drift claims: exact-gradient curves,
deterministic.
"""
from __future__ import annotations

import functools
import math

from proofs_check.engine import ScalingClaim, register
from proofs_check.mismatch.batch_rule import BREAK_B_GRID, RULE_B_GRID, RULE_SETTING, drift_gap_curve
from proofs_check.mismatch.experiments import BATCH_BREAK, BATCH_GAP, TOY
from proofs_check.mismatch.update_size import stat

from ._common import DETERMINISTIC, HOLDS, ours

_OURS = ours("batch-rule", "our derivation from the two staleness laws (the paper's rule is OPEN)")
_NOISE = dict(estimand="mean",  # the laws are of the expected KL (E over the gradient noise)
              chunk_size=2, default_budget=32, quick_budget=4, **HOLDS)
_PARAMS = {**TOY, **RULE_SETTING, "reward": "flat 0.5 (noise regime)", "B": list(RULE_B_GRID)}

register(ScalingClaim(
    id="mismatch.batch_rule.rule_holds_gap",
    statement="noise regime: under the rule η = η₀B/B₀, k = k₀B₀/B the sampler–trainer gap "
              "KL(π_{θ_{s−k}} ‖ π_{θ_s}) stays fixed as B grows 32× (exponent in B ∈ [−0.2, 0.2])",
    source=_OURS, label="DERIVED", params={**_PARAMS, "rule": "η ∝ B, k ∝ 1/B"},
    experiment=BATCH_GAP, reduce=functools.partial(stat, name="gap[rule]"), x=RULE_B_GRID,
    exponent_lo=-0.2, exponent_hi=0.2, **_NOISE))
register(ScalingClaim(
    id="mismatch.batch_rule.linear_moves_gap",
    statement="noise regime: the naive rule η ∝ B with the queue fixed (k = k₀) moves the gap out of the "
              "band: it grows ∝ B (exponent ∈ [0.8, 1.2])",
    source=_OURS, label="DERIVED", params={**_PARAMS, "rule": "η ∝ B, k = k₀"},
    experiment=BATCH_GAP, reduce=functools.partial(stat, name="gap[linear]"), x=RULE_B_GRID,
    exponent_lo=0.8, exponent_hi=1.2, **_NOISE))
register(ScalingClaim(
    id="mismatch.batch_rule.fixed_moves_gap",
    statement="noise regime: the naive rule η fixed, k = k₀ fixed moves the gap out of the band: it "
              "shrinks ∝ 1/B (exponent ∈ [−1.2, −0.8])",
    source=_OURS, label="DERIVED", params={**_PARAMS, "rule": "η = η₀, k = k₀"},
    experiment=BATCH_GAP, reduce=functools.partial(stat, name="gap[fixed]"), x=RULE_B_GRID,
    exponent_lo=-1.2, exponent_hi=-0.8, **_NOISE))
register(ScalingClaim(
    id="mismatch.batch_rule.breaks_at_queue_floor",
    statement="where the rule breaks: past B* = k₀B₀ = 128 the queue floors at k = 1 and, with η ∝ B, "
              "the gap grows ∝ B again (exponent over B ∈ {128, …, 1024} in [0.8, 1.2])",
    source=_OURS, label="DERIVED", params={**_PARAMS, "windows": 16, "B": list(BREAK_B_GRID),
                                         "rule": "η ∝ B, k = max(1, k₀B₀/B)"},
    experiment=BATCH_BREAK, reduce=functools.partial(stat, name="gap[rule]"), x=BREAK_B_GRID,
    exponent_lo=0.8, exponent_hi=1.2, **_NOISE))

_DRIFT = {**TOY, **RULE_SETTING, "mode": "exact gradient, R ∼ U[0, 1] (drift regime)", "B": list(RULE_B_GRID)}
register(ScalingClaim(
    id="mismatch.batch_rule.drift_rule_holds_gap",
    statement="drift regime (exact gradient): the rule holds kη fixed, so the drift gap ½k²η²gᵀFg stays "
              "fixed too (exponent in B ∈ [−0.2, 0.2])",
    source=_OURS, label="DERIVED", params={**_DRIFT, "rule": "η ∝ B, k ∝ 1/B"},
    fn=functools.partial(drift_gap_curve, rule="rule", B_grid=RULE_B_GRID, **RULE_SETTING), x=RULE_B_GRID,
    exponent_lo=-0.2, exponent_hi=0.2, **DETERMINISTIC, **HOLDS))
register(ScalingClaim(
    id="mismatch.batch_rule.drift_breaks_fixed_queue",
    statement="where a fixed-queue rule breaks: with k = k₀ = 32 fixed, η ∝ √B (which holds the noise term "
              "kη²/B) lets the drift gap ½k²η²gᵀFg grow at least ∝ B (exponent ≥ 0.8)",
    source=_OURS, label="DERIVED", params={**_DRIFT, "rule": "η ∝ √B, k = k₀"},
    fn=functools.partial(drift_gap_curve, rule="sqrt", B_grid=RULE_B_GRID, **RULE_SETTING), x=RULE_B_GRID,
    exponent_lo=0.8, exponent_hi=math.inf, **DETERMINISTIC, **HOLDS))
