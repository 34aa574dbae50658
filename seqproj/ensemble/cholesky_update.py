r"""Rank-one updates of a Cholesky factor (exact Thompson sampling in O(d²) per round).

Exact TS keeps :math:`L_t` with :math:`L_tL_t^\top = \Sigma_t^{-1}` (the
precision): an observation adds :math:`x_tx_t^\top/\sigma^2`, a rank-one update
of :math:`L` (:func:`chol_rank1_update`, Givens-style, O(d²)); a posterior
sample is :math:`\mu_t + L_t^{-\top}g` (:func:`solve_upper_t`, back
substitution).  numba kernels with a NumPy reference of the update
(:func:`chol_rank1_update_ref`), tested against each other and against
``numpy.linalg.cholesky``.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from proofs_check.engine.validate import check_finite_array

from ._limits import MAX_D

__all__ = ["chol_rank1_update", "chol_rank1_update_ref", "solve_upper_t"]


@njit(cache=True, nogil=True)
def chol_rank1_update(L, x):
    """In place: lower ``L`` becomes the Cholesky factor of ``L Lᵀ + x xᵀ`` (O(d²))."""
    n = x.shape[0]
    w = x.copy()
    for k in range(n):
        lkk = L[k, k]
        r = math.sqrt(lkk * lkk + w[k] * w[k])
        c = r / lkk
        s = w[k] / lkk
        L[k, k] = r
        for i in range(k + 1, n):
            L[i, k] = (L[i, k] + s * w[i]) / c
            w[i] = c * w[i] - s * L[i, k]


def chol_rank1_update_ref(L, x):
    """NumPy reference of :func:`chol_rank1_update` (returns a new factor).

    ``L`` must be a finite square lower-triangular array with a positive diagonal
    (a Cholesky factor), ``x`` a finite vector of matching length; a result that
    overflows float64 is refused (``ValueError``)."""
    L = np.array(check_finite_array("L", L, ndim=2), dtype=float)
    w = np.array(check_finite_array("x", x, ndim=1), dtype=float)
    n = w.size
    if L.shape != (n, n):
        raise ValueError(f"L must have shape ({n}, {n}) to match x of length {n}, got {L.shape}")
    if n > MAX_D:
        raise ValueError(f"x must have at most {MAX_D} entries (the dimension d), got {n}")
    if np.any(np.triu(L, 1) != 0.0):
        raise ValueError("L must be lower triangular (a Cholesky factor)")
    if not np.all(np.diag(L) > 0.0):
        raise ValueError("L must have a positive diagonal (a Cholesky factor)")
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for k in range(n):
            r = float(np.hypot(L[k, k], w[k]))
            c, s = r / L[k, k], w[k] / L[k, k]
            L[k, k] = r
            L[k + 1:, k] = (L[k + 1:, k] + s * w[k + 1:]) / c
            w[k + 1:] = c * w[k + 1:] - s * L[k + 1:, k]
    if not np.all(np.isfinite(L)):
        raise ValueError("L and x are too large: the updated factor overflows float64")
    return L


@njit(cache=True, nogil=True)
def solve_upper_t(L, g):
    """Solve ``Lᵀ u = g`` for lower-triangular ``L`` (back substitution)."""
    n = g.shape[0]
    u = np.empty(n)
    for i in range(n - 1, -1, -1):
        acc = g[i]
        for j in range(i + 1, n):
            acc -= L[j, i] * u[j]
        u[i] = acc / L[i, i]
    return u
