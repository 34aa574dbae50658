r"""How tight the unified bound is at random policy pairs: ``|Error| / B*`` under the worst-case reward.

The bound claims search for the worst pair; this experiment samples typical
ones.  Each trial draws a shape from :data:`TIGHTNESS_SHAPES` and one pair from
every generator (:func:`~.pairs.draw_pair`, random mismatch level) and records
``max_{R∈[0,1]} |Error| / B*`` computed exactly (``0`` where ``B* = 0``: the
remainder is then exactly 0 too, e.g. a mismatch only at the last position).  The experiment is
:data:`~.experiments.TIGHTNESS`.
"""
from __future__ import annotations

import numpy as np

from ..policies import GENERATORS
from .bounds import trm_bounds_from_policies
from .decomposition import worst_case_reward
from .pairs import draw_pair

__all__ = ["TIGHTNESS_SHAPES", "tightness_trials"]

#: (V, T) shapes of the random pairs.
TIGHTNESS_SHAPES = ((2, 4), (2, 8), (3, 3), (4, 3))


def tightness_trials(rng, n, *, shapes=TIGHTNESS_SHAPES):
    """``{"ratio[g]": (n,), "shape[g]": (n,)}`` for each generator ``g``: the tightness of ``B*`` at a
    pair from ``g`` and the index in ``shapes`` of its ``(V, T)``."""
    out = {}
    for g in GENERATORS:
        out[f"ratio[{g}]"] = np.empty(n)
        out[f"shape[{g}]"] = np.empty(n, dtype=np.int64)
    for i in range(n):
        for g in GENERATORS:
            j = int(rng.integers(len(shapes)))
            mu, pi = draw_pair(rng, g, *shapes[j])
            b = trm_bounds_from_policies(mu, pi)["unified"]
            out[f"ratio[{g}]"][i] = worst_case_reward(mu, pi).abs_error / b if b > 0 else 0.0
            out[f"shape[{g}]"][i] = j
    return out
