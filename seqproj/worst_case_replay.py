r"""Replay of the DP's optimal Markov policy as an adversary in the **full** protocol (columns in ``R^M``).

Validation of :mod:`seqproj.worst_case` (issue 15 §1, theory ``#worst-case``): the
policy table ``policy[t−1, i, k]`` (index into ``xgrid``) is played as a
state-feedback adversary — at step ``t`` it reads only the past through
``u = ‖S_{t−1}‖²/V_{t−1}`` and ``ρ = V_{t−1}/(x_0² + c_x(t−1))`` (nearest grid node
in ``u`` and in ``log ρ``), so it is predictable — and the column ``z_t`` is
drawn *after* ``x_t`` is fixed, exactly as in :func:`seqproj.kernels.full_kernel`
(same counter-based stream: the ``M`` normals of ``z_t`` are sub-streams
``(t−1)M .. tM−1`` of the trial's key; sphere ``z = g/‖g‖``, Gaussian ``z = g/√M``).
The full kernel's adversary dispatch cannot take a policy table, hence this
driver (the columns and the update are the full simulator's; nothing is
reduced).  The failure event is ``∃ t ≤ T: |‖S_t‖²/V_t − 1| > ε``.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from proofs_check.engine import as_generator, check_int

from .bookkeeping import band_deviation
from .kernels import full_column_step
from .rng import draw_keys
from .worst_case import WorstCase
from .worst_case_kernel import _cell

#: ``replay_kernel`` (numba, checks nothing) is called only by the validated ``replay_policy*``:
#: out of ``__all__`` (issue 26); ``replay_numpy`` is its NumPy reference.
__all__ = ["replay_numpy", "replay_policy", "replay_policy_reduced"]


@njit(cache=True, nogil=True)
def _nearest(grid, y):
    """Index of the node of the sorted ``grid`` (≥ 2 nodes) nearest to ``y`` (ties: the lower)."""
    a = _cell(grid, y)
    return a if (y - grid[a]) <= (grid[a + 1] - y) else a + 1


@njit(cache=True, nogil=True)
def replay_kernel(keys, T, M, fam, x0, cx, eps, ugrid, lrho, xgrid, policy, exit_t):
    """Full simulation of ``len(keys)`` trials under the policy table; ``exit_t[i]`` = first
    exit time (``T + 1`` if none).  ``fam`` 0 sphere, 1 Gaussian (the full kernels' family
    codes).  The column and the update are :func:`seqproj.kernels.full_column_step`, the exit
    test :func:`seqproj.bookkeeping.band_deviation` — only ``x_t`` comes from the table."""
    S = np.zeros(M)
    g = np.empty(M)
    z = np.empty(M)
    sqM = math.sqrt(M)
    sqcx = math.sqrt(cx)
    for tr in range(keys.shape[0]):
        key = keys[tr]
        for j in range(M):
            S[j] = 0.0
        S[0] = x0
        s2 = x0 * x0
        V = x0 * x0
        et = T + 1
        for t in range(1, T + 1):
            i = _nearest(ugrid, s2 / V)
            k = _nearest(lrho, math.log((V / cx) / (x0 * x0 / cx + (t - 1.0))))
            x = sqcx * xgrid[policy[t - 1, i, k]]
            # column z_t drawn only now (predictability)
            s2 = full_column_step(key, t, M, fam, 0, sqM, x, S, g, z)[1]
            V += x * x
            if band_deviation(s2, V) > eps:
                et = t
                break
        exit_t[tr] = et


def replay_numpy(normals, T, fam, x0, cx, eps, ugrid, lrho, xgrid, policy):
    """NumPy reference of :func:`replay_kernel` for a block ``normals`` ``(n, T, M)``."""
    n, _, M = normals.shape
    S = np.zeros((n, M))
    S[:, 0] = x0
    s2 = np.full(n, x0 * x0)
    V = np.full(n, x0 * x0)
    et = np.full(n, T + 1)
    alive = np.ones(n, dtype=bool)
    for t in range(1, T + 1):
        u = s2 / V
        i = np.array([replay_kernel_nearest(ugrid, y) for y in u])
        k = np.array([replay_kernel_nearest(lrho, math.log((v / cx) / (x0 * x0 / cx + t - 1.0)))
                      for v in V])
        x = math.sqrt(cx) * xgrid[policy[t - 1, i, k]]
        gz = normals[:, t - 1, :]
        z = gz / (np.sqrt((gz * gz).sum(1))[:, None] if fam == 0 else math.sqrt(M))
        Sn = S + x[:, None] * z
        S = np.where(alive[:, None], Sn, S)
        s2 = np.where(alive, (S * S).sum(1), s2)
        V = np.where(alive, V + x * x, V)
        out = alive & (np.abs(s2 / V - 1.0) > eps)
        et[out] = t
        alive &= ~out
    return et


def replay_kernel_nearest(grid, y):
    return _nearest.py_func(grid, y)


def replay_policy(wc, n, rng):
    """Play the policy of a :class:`~seqproj.worst_case.WorstCase` (computed with
    ``policy=True``) in ``n`` full-protocol trials.  Returns ``(failures, n, exit_times)``."""
    if not isinstance(wc, WorstCase):
        raise TypeError(f"wc must be a WorstCase (from seqproj.worst_case), got {type(wc).__name__}")
    if wc.policy is None:
        raise ValueError("wc.policy is None: compute the WorstCase with policy=True")
    n = check_int("n", n, lo=1, hi=10 ** 8)
    keys = draw_keys(as_generator(rng), n)
    exit_t = np.empty(n, dtype=np.int64)
    fam = 0 if wc.columns == "sphere" else 1
    replay_kernel(keys, wc.T, wc.M, fam, float(wc.x0), float(wc.cx), float(wc.eps),
                  np.asarray(wc.ugrid, float), np.asarray(wc.lrho, float),
                  np.asarray(wc.xgrid, float), wc.policy, exit_t)
    return int((exit_t <= wc.T).sum()), n, exit_t


def replay_policy_reduced(wc, n, rng):
    r"""Play the policy of ``wc`` in ``n`` trials of the **reduced** chain (theory ``#reduced``):
    ``u_t = (u + 2√(a u) R ζ + a R²)/(1 + a)``, ``a = x_t²/V_{t−1}``, ``(1+ζ)/2 ~ Beta((M−1)/2,
    (M−1)/2)``, ``R = 1`` (sphere) or ``R² ~ χ²_M/M`` (Gaussian), ``V_t = V_{t−1} + x_t²``.

    The policy reads only ``(u, V)``, so by rotation invariance this chain has exactly the law
    of the full protocol under the same adversary (:func:`replay_policy`); it costs O(1) per
    step instead of O(M).  The node lookup is :func:`replay_policy`'s.  Returns
    ``(failures, n, exit_times)``; the failure count is exact Binomial(n, q) with ``q`` the
    policy's failure probability, a lower bound on ``p*``."""
    if not isinstance(wc, WorstCase):
        raise TypeError(f"wc must be a WorstCase (from seqproj.worst_case), got {type(wc).__name__}")
    if wc.policy is None:
        raise ValueError("wc.policy is None: compute the WorstCase with policy=True")
    n = check_int("n", n, lo=1, hi=10 ** 8)
    g = as_generator(rng)
    M, T, eps, cx, x0 = wc.M, wc.T, float(wc.eps), float(wc.cx), float(wc.x0)
    ug, lr, xg = (np.asarray(wc.ugrid, float), np.asarray(wc.lrho, float), np.asarray(wc.xgrid, float))
    m = (M - 1) / 2.0
    u = np.ones(n)
    V = np.full(n, x0 * x0)
    et = np.full(n, T + 1, dtype=np.int64)
    alive = np.arange(n)
    v0 = x0 * x0 / cx

    def nearest(grid, y):
        j = np.clip(np.searchsorted(grid, y) - 1, 0, len(grid) - 2)
        return np.where(y - grid[j] <= grid[j + 1] - y, j, j + 1)

    for t in range(1, T + 1):
        if alive.size == 0:
            break
        ua, Va = u[alive], V[alive]
        i = nearest(ug, ua)
        k = nearest(lr, np.log((Va / cx) / (v0 + (t - 1.0)))) if len(lr) > 1 else np.zeros(alive.size, int)
        x2 = cx * xg[wc.policy[t - 1, i, k]] ** 2
        a = x2 / Va
        zeta = 2.0 * g.beta(m, m, size=alive.size) - 1.0
        R2 = np.ones(alive.size) if wc.columns == "sphere" else g.chisquare(M, size=alive.size) / M
        un = (ua + 2.0 * np.sqrt(a * ua * R2) * zeta + a * R2) / (1.0 + a)
        u[alive], V[alive] = un, Va + x2
        out = np.abs(un - 1.0) > eps
        et[alive[out]] = t
        alive = alive[~out]
    return int((et <= T).sum()), n, et
