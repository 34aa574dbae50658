r"""The inner-product protocol (``docs/theory/seqproj.md#inner-product``): two coefficient streams, one set of columns.

``x`` and ``y`` are sketched by the same columns, ``S_t(x) = Σ_{s≤t} x_s z_s``
and ``S_t(y)`` likewise; the corollary (polarisation on ``x ± y`` with ``δ/2``
each, ``(x_t ± y_t)² ≤ 4c_x``) bounds the inner-product error
``e_t = ⟨S_t(x), S_t(y)⟩ − Σ_{s≤t} x_s y_s`` by ``(ε/2)(V_t(x) + V_t(y))`` for
all ``t ≤ T`` with probability ``1 − δ`` once ``M ≥ sequential_jl_min_dim(ε,
δ/2, T, cx=4c_x, x0=min(|x_0+y_0|, |x_0−y_0|))``.  DERIVED.
"""
from __future__ import annotations

import math

import numpy as np

from proofs_check.engine import as_generator, check_int, check_real

from .columns import column_family, columns_from_normals
from .limits import M_MAX, N_MAX, T_MAX
from .protocol import check_memory
from .simulate import full_block_size

__all__ = ["simulate_inner_product"]


def simulate_inner_product(M, eps, T, n, rng, *, columns="sphere", x0=1.0, y0=0.0, cx=1.0):
    r"""Whether the inner-product band is left, for ``n`` runs (boolean array of length ``n``).

    ``x_t = √c_x`` (constant design) and the predictable ``y_t = √c_x·sign(e_{t−1})``
    pushing the current error further (``+√c_x`` when ``e = 0``); a run fails when
    ``|e_t| > (ε/2)(V_t(x) + V_t(y))`` at some ``t ≤ T``.  The columns come from
    ``rng.standard_normal`` in blocks.  NumPy, O(n·T·M).
    """
    M = check_int("M", M, lo=1, hi=M_MAX)
    eps = check_real("eps", eps, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    T = check_int("T", T, lo=1, hi=T_MAX)
    n = check_int("n", n, lo=0, hi=N_MAX)
    check_memory(f"one trial's normals (T·M = {T * M})", T * M, "T and M")
    x0 = check_real("x0", x0, lo=-1e50, hi=1e50)
    y0 = check_real("y0", y0, lo=-1e50, hi=1e50)
    cx = check_real("cx", cx, lo=1e-100, hi=1e100)
    if x0 + y0 == 0.0 or x0 - y0 == 0.0:
        raise ValueError(f"x0 ± y0 must be nonzero for the polarisation argument, got x0={x0}, y0={y0}")
    fam = column_family(columns, M)
    rng = as_generator(rng)
    sq = math.sqrt(cx)
    out = np.zeros(n, dtype=bool)
    nb_max = full_block_size(T, M)
    start = 0
    while start < n:
        nb = min(nb_max, n - start)
        normals = rng.standard_normal((nb, T, M))
        Sx = np.zeros((nb, M))
        Sy = np.zeros((nb, M))
        Sx[:, 0], Sy[:, 0] = x0, y0
        Vx = np.full(nb, x0 * x0)
        Vy = np.full(nb, y0 * y0)
        P = np.full(nb, x0 * y0)
        err = np.einsum("ij,ij->i", Sx, Sy) - P
        bad = np.zeros(nb, dtype=bool)
        for t in range(1, T + 1):
            x = np.full(nb, sq)
            y = np.where(err >= 0.0, sq, -sq)
            z = columns_from_normals(normals[:, t - 1, :], fam)
            Sx += x[:, None] * z
            Sy += y[:, None] * z
            Vx += x * x
            Vy += y * y
            P += x * y
            err = np.einsum("ij,ij->i", Sx, Sy) - P
            bad |= np.abs(err) > 0.5 * eps * (Vx + Vy)
        out[start:start + nb] = bad
        start += nb
    return out
