r"""Horizon scaling of the worst-case remainder and of the bounds (theory ``mismatch.md#bounds``, the OPEN question).

Curve functions ``f(rng, n, *, ...)`` return an ``(n, len(T_grid))`` array, one
row per replicate: the exact worst case ``max_{R∈[0,1]} |Error|`` (or a bound)
against the horizon ``T``, from the closed forms of :mod:`.tilt` — the i.i.d.
tilt (T up to 4096 in milliseconds), the count-state tilts (lower bounds), and
a near-one-hot tilt whose remainder grows like ``T²`` while ``Tε ≪ 1``.
Curves that use no randomness (``random=False``) repeat one row.
"""
from __future__ import annotations

import numpy as np

from .tilt import count_state_tilt, iid_tilt_worst_case

__all__ = ["T_GRID", "T_GRID_LONG", "T_GRID_NEAR", "iid_tilt_curve", "state_tilt_curve", "near_deterministic_curve"]

#: Horizons of the scaling claims (the i.i.d. tilt to 1024, the long grid to 4096, the near-one-hot grid).
T_GRID = (8, 16, 32, 64, 128, 256, 512, 1024)
T_GRID_LONG = (8, 32, 128, 512, 1024, 2048, 4096)
T_GRID_NEAR = (16, 32, 64, 128, 256, 512, 1024, 2048)


def iid_tilt_curve(rng, n, *, quantity, T_grid, m1=0.5, tilt=0.01, random=False):
    """``(n, len(T_grid))``: worst-case ``|Error|`` (or a bound) of the i.i.d. tilt vs ``T``.

    With ``random=True`` each replicate draws ``μ(1) ∈ U(0.2, 0.8)`` and a tilt
    in ``U(0.003, 0.02)``; otherwise the theory page's ``μ = (½, ½)``, ``π = (½ + 0.01, ½ − 0.01)``.
    """
    out = np.empty((n, len(T_grid)))
    for i in range(n):
        m, e = (float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.003, 0.02))) if random else (m1, tilt)
        for j, T in enumerate(T_grid):
            r = iid_tilt_worst_case([1 - m, m], [1 - m - e, m + e], T)
            out[i, j] = r.abs_error if quantity == "abs_error" else r.bounds[quantity]
    return out


def state_tilt_curve(rng, n, *, rule, T_grid, m=0.5, eps0=0.01):
    """Count-state tilt: worst case over count rewards vs ``T`` (a lower bound on max_R |Error|)."""
    out = np.empty((n, len(T_grid)))
    for i in range(n):
        for j, T in enumerate(T_grid):
            out[i, j] = count_state_tilt(m, eps0, T, rule=rule).abs_error
    return out


def near_deterministic_curve(rng, n, *, a=1e-9, eps=1e-6, T_grid=T_GRID_NEAR):
    """``μ = (1 − a, a)``, ``π = (1 − a − ε, a + ε)`` i.i.d.: worst-case ``|Error|`` vs ``T``."""
    row = [iid_tilt_worst_case([1 - a, a], [1 - a - eps, a + eps], T).abs_error for T in T_grid]
    return np.tile(row, (n, 1))
