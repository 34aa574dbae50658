"""``mismatch.lemma.*`` — the lemmas behind the bounds, as inequality searches.

The advantage lemma (the paper's constant 2 and the tight constant 1), the master inequality, the
context shift, Pinsker, ``D_KL^seq ≤ Tδ``, the length-neutral bound and the ``(4/3)T^{3/2}δ``
closed form.  The evaluators are in :mod:`proofs_check.mismatch.inequalities`; where no mpmath
evaluator exists, ``atol`` is a stated forward-error bound (:func:`float_remainder_allowance`).
"""
from __future__ import annotations

import functools

from proofs_check.engine import InequalityClaim, register
from proofs_check.mismatch.inequalities import (evaluate_advantage, evaluate_context_shift, evaluate_kl_seq,
                                                evaluate_length_neutral, evaluate_master, evaluate_pinsker,
                                                evaluate_pm_closed_form, float_remainder_allowance,
                                                project_T_delta, sample_T_delta)
from proofs_check.mismatch.pairs import clip_logits, sample_pair, sample_pair_reward

from ._common import SEARCH, ours, paper

_sh = {"V": 2, "T": 3}
_PAIR = functools.partial(sample_pair, generator="uniform", **_sh)      # a uniform-mismatch pair
_PAIR_R = functools.partial(sample_pair_reward, **_sh)                  # a pair and a reward
_FLOAT = dict(atol=float_remainder_allowance(**_sh), version=2)         # stated float64 forward error
_TRM = paper("trm", "decomposition")

for _id, _st, _label, _src, _sample, _evaluate, _extra in [
    ("advantage_paper", "|g_t(c)| ≤ 2 TV(c) for R ∈ [0,1] (the paper's constant)", "CONFIRMED", _TRM,
     _PAIR_R, functools.partial(evaluate_advantage, const=2.0, **_sh),
     dict(notes="the worst ratio found is ≈ 1/2 of the bound: the factor-2 slack")),
    ("advantage_tight", "|g_t(c)| ≤ TV(c) for R ∈ [0,1] (the constant 1 suffices)", "DERIVED",
     ours("decomposition", "our derivation: the constant 1 suffices"),
     _PAIR_R, functools.partial(evaluate_advantage, const=1.0, **_sh),
     dict(notes="A(v) = Q(v) − V(c) with Q ∈ [0, 1] spans an interval of length ≤ 1; Σ_v (π − μ) A = "
                "Σ_v (π − μ)(A − a) for any a; the midpoint a gives |A − a| ≤ ½")),
    ("master", "|Error| ≤ Σ_t 2 ‖g_t‖_∞ ‖d_t^π − d_t^μ‖_TV", "CONFIRMED", _TRM,
     _PAIR_R, functools.partial(evaluate_master, **_sh), _FLOAT),
    ("context_shift", "‖d_t^π − d_t^μ‖_TV ≤ min(1, (t−1)ε, √((t−1)δ/2), D_TV^seq, √(D_KL^seq/2))", "CONFIRMED",
     _TRM, _PAIR, functools.partial(evaluate_context_shift, **_sh), {}),
    ("pinsker", "TV(c) ≤ min(1, √(KL(c)/2)) at every context", "CONFIRMED",
     paper("trm", "decomposition", note="Pinsker's inequality, as the paper's proofs use it"),
     _PAIR, functools.partial(evaluate_pinsker, **_sh), {}),
    ("kl_seq_le_T_delta", "D_KL^seq ≤ T δ", "CONFIRMED", _TRM, _PAIR, functools.partial(evaluate_kl_seq, **_sh), {}),
    ("length_neutral", "|Error| ≤ 2 E_μ W, W = Σ_t |ρ_t − 1| min(1, (T−t)ε, √((T−t)δ/2))", "CONFIRMED",
     paper("trm", "trm", note="the length-neutral variant"),
     _PAIR_R, functools.partial(evaluate_length_neutral, **_sh), _FLOAT),
]:
    register(InequalityClaim(id=f"mismatch.lemma.{_id}", statement=_st, source=_src, label=_label, params=_sh,
                             sample=_sample, evaluate=_evaluate, project=clip_logits, **_extra, **SEARCH))

register(InequalityClaim(
    id="mismatch.lemma.pm_kl_closed_form",
    statement="4 √(δ/2) Σ_t √((t−1)δ/2) ≤ (4/3) T^{3/2} δ when the caps are inactive",
    source=paper("trm", "bounds"), label="CONFIRMED", params={"T": "2..8000"},
    sample=sample_T_delta, evaluate=evaluate_pm_closed_form, project=project_T_delta,
    **{**SEARCH, "step": 0.5}))
