r"""The look-ahead adversary: the negative control of ``docs/theory/seqproj.md#controls`` (NOT predictable).

It draws the columns ``z_1..z_T`` first, then picks ``x_{1:T}`` in the null
space of ``(z_1 … z_T)`` (possible when ``T > M``): the projection of a
Gaussian vector onto that null space, scaled so that ``max_t |x_t| = √c_x``.
Then ``S_T = x_0 z_0`` while ``V_T = x_0² + ‖x‖²``, so the ratio at ``T``
collapses and the band is left.  It violates the theorem's only real
assumption (predictability), so the theorem says nothing about it.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from proofs_check.engine import as_generator, shown

from .bookkeeping import PathBook
from .columns import columns_from_normals
from .protocol import PathStats, SimSetup, check_memory, check_trials, empty_outputs, make_setup

#: ``null_vector`` (numba, checks nothing) is internal to :func:`simulate_lookahead` and stays out of
#: ``__all__`` (issue 26).
__all__ = ["simulate_lookahead", "lookahead_setup", "simulate_lookahead_setup"]


@njit(cache=True, nogil=True)
def null_vector(Z, h):
    """``h`` minus its projection onto the column space of ``Z`` (T×M, T > M).

    Modified Gram–Schmidt with one re-orthogonalisation pass, in numba (no BLAS
    threads: OpenBLAS oversubscription on a loaded machine made LAPACK's QR
    25× slower here).  The result ``x`` satisfies ``Zᵀx ≈ 0``.
    """
    T, M = Z.shape
    Q = np.ascontiguousarray(Z.T).copy()          # row k = column k of Z
    x = h.copy()
    for k in range(M):
        for _ in range(2):
            for j in range(k):
                d = 0.0
                for t in range(T):
                    d += Q[j, t] * Q[k, t]
                for t in range(T):
                    Q[k, t] -= d * Q[j, t]
        nn = 0.0
        for t in range(T):
            nn += Q[k, t] * Q[k, t]
        nrm = math.sqrt(nn)
        for t in range(T):
            Q[k, t] /= nrm
    for _ in range(2):
        for k in range(M):
            d = 0.0
            for t in range(T):
                d += Q[k, t] * x[t]
            for t in range(T):
                x[t] -= d * Q[k, t]
    return x


def simulate_lookahead(M, eps, T, n, rng, *, columns="sphere", x0=1.0, cx=1.0, grid=None,
                       mix_alpha=0.05, mix_rho=None, anytime_delta=0.05,
                       anytime_const=16.0) -> PathStats:
    r"""Negative control (check C): ``n`` runs of a **look-ahead** adversary that sees all columns.

    Same parameters and :class:`~seqproj.protocol.PathStats` as
    :func:`seqproj.simulate.simulate_full` (no adversary argument); needs ``T > M``.
    NumPy, O(n·T·M²).
    """
    setup = lookahead_setup(M, eps, T, columns=columns, x0=x0, cx=cx, grid=grid, mix_alpha=mix_alpha,
                            mix_rho=mix_rho, anytime_delta=anytime_delta, anytime_const=anytime_const)
    return simulate_lookahead_setup(rng, n, setup=setup)


def lookahead_setup(M, eps, T, *, columns="sphere", **kw) -> SimSetup:
    """The validated :class:`~seqproj.protocol.SimSetup` of the look-ahead control: every check of
    :func:`seqproj.protocol.make_setup` (``kw``: ``x0``, ``cx``, ``grid``, ``mix_alpha``,
    ``mix_rho``, ``anytime_delta``, ``anytime_const``), ``T > M``, and one trial's memory."""
    setup = make_setup(M, eps, T, columns=columns, adversary="lookahead", allow_lookahead=True, **kw)
    M, T = setup.M, setup.T
    if T <= M:
        raise ValueError(f"the look-ahead adversary needs T > M to find a null vector, got T={T}, M={M}")
    check_memory(f"one trial's columns and their orthogonalisation (T·M = {T * M})", 3 * T * M,
                 "T and M")
    return setup


def simulate_lookahead_setup(rng, n, *, setup: SimSetup) -> PathStats:
    """:class:`~seqproj.protocol.PathStats` of ``n`` look-ahead trials on a validated ``setup``
    (:func:`lookahead_setup`); see :func:`simulate_lookahead`."""
    if not isinstance(setup, SimSetup) or setup.adversary.name != "lookahead":
        raise TypeError(f"setup must be the SimSetup of seqproj.lookahead.lookahead_setup, got {shown(setup)}")
    n = check_trials(n, setup)
    rng = as_generator(rng)
    M, T = setup.M, setup.T
    fam = setup.family
    out = empty_outputs(n, setup.grid.size)
    for i in range(n):
        Z = columns_from_normals(rng.standard_normal((T, M)), fam)       # row t-1 is z_t
        h = rng.standard_normal(T)
        # remove from h its projection onto range(Z) ⊂ R^T: then Z^T x = sum_t x_t z_t = 0,
        # a null vector of (z_1 ... z_T).
        x = null_vector(Z, h)
        x *= math.sqrt(setup.cx) / np.max(np.abs(x))
        book = PathBook(1, setup)
        S = np.zeros(M)
        S[0] = setup.x0
        for t in range(1, T + 1):
            z = Z[t - 1]
            dot = np.array([S @ z])
            S = S + x[t - 1] * z
            book.step(t, np.array([x[t - 1]]), dot, np.array([S @ S]))
        for o, r in zip(out, book.stats()):
            o[i] = r[0]
    return PathStats.from_outputs(out, setup)
