"""``mismatch.bound.<key>.<generator>`` — every trust-region bound under the worst-case reward.

The inequality ``max_{R∈[0,1]} |Error| ≤ bound`` (worst-case reward ``R = 1{c > 0}``), searched
over policy pairs from each generator: random starts, then local ascent on all logits; the engine
reports the tightness ratio and the pair attaining it.  No allowance is subtracted: every float64
violation is re-evaluated by the 50-digit mpmath re-implementation
(:func:`proofs_check.mismatch.inequalities.evaluate_bound_mp`); ``atol = MP_ATOL = 1e-30``
(mpmath rounding only), ``rtol = 0``.
"""
from __future__ import annotations

import functools

from proofs_check.engine import InequalityClaim, register
from proofs_check.mismatch.bounds import BOUND_KEYS
from proofs_check.mismatch.inequalities import MP_ATOL, describe_pair, evaluate_bound, evaluate_bound_mp
from proofs_check.mismatch.pairs import clip_logits, sample_pair
from proofs_check.policies import GENERATORS

from ._common import paper

#: (V, T) of the search per generator (``T = None``: an i.i.d. tilt at horizon :data:`IID_T`).
BOUND_SHAPE = {"uniform": (2, 3), "sparse": (2, 3), "low_prob": (3, 2), "iid_tilt": (2, None)}
IID_T = 32

for _key in BOUND_KEYS:
    for _gen in GENERATORS:
        _V, _T = BOUND_SHAPE[_gen]
        _kw = dict(V=_V, T=_T, iid_T=IID_T if _gen == "iid_tilt" else None)
        register(InequalityClaim(
            id=f"mismatch.bound.{_key}.{_gen}",
            statement=f"max_(R∈[0,1]) |J(π) − J(μ) − L'(π)| ≤ {_key} bound (KL+TV measured)",
            source=paper("trm", "bounds"),
            label="CONFIRMED",
            params={"key": _key, "generator": _gen, "V": _V, "T": _T if _T else IID_T,
                    "search": "random pairs from the generator, then local ascent on all logits"},
            sample=functools.partial(sample_pair, generator=_gen, **_kw),
            evaluate=functools.partial(evaluate_bound, key=_key, **_kw),
            project=clip_logits,
            describe_point=functools.partial(describe_pair, key=_key, **_kw),
            evaluate_mp=functools.partial(evaluate_bound_mp, key=_key, **_kw),
            atol=MP_ATOL, rtol=0.0, role="statement", expected="holds", version=2,
            step=0.3, chunk_size=100, default_budget=1_000, quick_budget=200,
            notes="tightness = worst-case |Error| / bound; the worst-case reward is R = 1{c > 0}; "
                  "float64 violations are confirmed or rejected in mpmath (atol = MP_ATOL, rtol = 0)"))
