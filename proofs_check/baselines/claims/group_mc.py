"""Claims: Monte Carlo twins of the exact group-estimator bias claims (issue 15; theory
``baselines.md#group-estimators-mc``).

``baselines.bias.group_mean`` / ``baselines.bias.rloo`` enumerate every N-tuple; these claims
sample groups through the engine's chunked path (one stored experiment,
:data:`proofs_check.baselines.experiments.GROUP_MC`), compute the advantages with the batch
implementations and check the normalised projection ``u = ⟨ĝ, g⟩/‖g‖²`` against its exact mean —
``(N − 1)/N`` for the group mean, ``1`` for leave-one-out — as equivalences (two one-sided claims,
margin ``1/(2N)``, fixed in advance as half the gap between the two values).
"""
from __future__ import annotations

import functools

from proofs_check.baselines.experiments import GROUP_MC
from proofs_check.baselines.group_mc import MC_INSTANCE, projection_minus
from proofs_check.engine import ComparisonClaim, Source, register

THEORY = "baselines.md#group-estimators-mc"
_N = MC_INSTANCE["N"]
_MARGIN = 1.0 / (2 * _N)
_P = {**MC_INSTANCE, "sampling": "groups of N responses y ∼ π; advantages by group_mean_advantage / "
                                 "rloo_advantage", "margin": "1/(2N)"}

for _kind, _value, _text in (("mean", "shrunk", "self-inclusive group mean: E⟨ĝ, g⟩/‖g‖² = (N−1)/N"),
                             ("rloo", "one", "leave-one-out: E⟨ĝ, g⟩/‖g‖² = 1 (unbiased)")):
    for _side, _alt, _thr in (("upper", "less", _MARGIN), ("lower", "greater", -_MARGIN)):
        register(ComparisonClaim(
            id=f"baselines.mc.{'group_mean' if _kind == 'mean' else 'rloo'}_scale.{_side}",
            statement=f"sampled, N = {_N}, tabular V = 2, T = 3: {_text} to within ±1/(2N) "
                      f"({_side} side of the equivalence)",
            source=Source(theory=THEORY, note="our derivation (outcome reward); Monte Carlo twin of "
                                              f"baselines.bias.{'group_mean' if _kind == 'mean' else 'rloo'}"),
            label="DERIVED", params=_P,
            experiment=GROUP_MC, reduce=functools.partial(projection_minus, kind=_kind, value=_value),
            threshold=_thr, alternative=_alt, bounds=None,
            chunk_size=GROUP_MC.chunk_size, default_budget=20_000, quick_budget=2_000,
            role="statement", expected="holds", version=1,
            notes="One fixed instance (seed 0, drawn as the exact claims draw theirs); one group per "
                  "trial, independent.  No bounds declared (|u| can reach T·max|h|/‖g‖² ≫ the "
                  "margin): Hall's interval, asymptotic."))
