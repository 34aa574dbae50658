r"""Backward induction of the worst-case sequential JL problem: the fast (parallel) solver.

Same recursion, same grid and same formulas as :func:`seqproj.worst_case_kernel.dp_kernel`
(the reference kept beside it; theory ``docs/theory/seqproj.md#worst-case``, the derivation in
:mod:`seqproj.worst_case`): with ``a = x²/V`` the next ratio is ``u' = α + β ζ``,
``α = (u + a R²)/(1 + a)``, ``β = 2√(a u R²)/(1 + a)``, and the expectation of the
interpolated next value is integrated exactly per cell from the partial moments
``I_m(k) = E[ζ^m 1{ζ ≤ k}]`` (wide cells) or by 3-point Gauss–Legendre against the density
``f_ζ(k) = c (1 − k²)^{(M−3)/2}`` (cells narrower than ``¼`` of the standard deviation of ``ζ``).
What changes is only how the work is organised (issue 25 §1):

* **parallel over grid nodes**: at each step the ``n_ρ · n_x`` (ρ node, action) pairs are
  independent work items — the interpolated column with its slopes, then the expectation
  at every ``u`` node; they run in one ``numba.prange`` per step (one fork–join), and the
  maximum over actions is taken afterwards in the reference's order (ties broken identically);
* **per-column tables**: the PCHIP slopes and the cubic coefficients
  ``c₂ = (3s − 2d_j − d_{j+1})/h_j``, ``c₃ = (d_j + d_{j+1} − 2s)/h_j²`` of each interpolated
  column are computed once per column, not once per (node, cell);
* **partial moments only where used**: a cell boundary's moments ``(F_ζ, f_ζ)`` are evaluated
  only if a wide cell touches it (the reference evaluates them at every boundary and discards
  them between two narrow cells); the exit masses read ``F_ζ`` only.

Every number is computed by the reference's formula in the reference's order of operations,
so the values agree with :func:`~seqproj.worst_case_kernel.dp_kernel` to rounding of the
hoisted coefficients (measured ≤ 1e-14 over ``T ≤ 10⁴``;
``tests/seqproj/test_worst_case_fast.py`` requires 1e-12 and the same policy).  What is *not*
reused, and why: the transition depends on the step ``t`` through ``V = ρ (V_0 + c_x(t − 1))`` and
on ``M`` through the law of ``ζ``, so no transition is tabulated across steps or across ``M``;
a finite backward induction has no iteration to warm-start.  Reuse across solves is one level
up (:func:`seqproj.worst_case.worst_case_value` memoises a solve, so the bracket's lower side
reuses the upper side's refined grid).
"""
from __future__ import annotations

import math
import threading

import numpy as np
from numba import njit, prange

from .worst_case_kernel import _GL_W, _GL_X, _cell, _interp_col, expect_next, pchip_slopes

__all__ = ["dp_fast"]


@njit(cache=True, nogil=True)
def _F(k, tlo, dz, F, f):
    """``F_ζ(k)`` from the table: the F part of :func:`seqproj.worst_case_kernel.table_eval`,
    the same operations in the same order."""
    n = F.shape[0]
    thi = tlo + dz * (n - 1)
    if k <= tlo:
        return 0.0
    if k >= thi:
        return 1.0
    s = (k - tlo) / dz
    i = int(s)
    if i >= n - 1:
        i = n - 2
    t = s - i
    t2 = t * t
    t3 = t2 * t
    h00 = 2.0 * t3 - 3.0 * t2 + 1.0
    h10 = t3 - 2.0 * t2 + t
    h01 = -2.0 * t3 + 3.0 * t2
    h11 = t3 - t2
    Fv = h00 * F[i] + h10 * dz * f[i] + h01 * F[i + 1] + h11 * dz * f[i + 1]
    if Fv < 0.0:
        Fv = 0.0
    elif Fv > 1.0:
        Fv = 1.0
    return Fv


@njit(cache=True, nogil=True)
def _dens_exact(k, logc, cpow):
    """The closed form ``exp(logc + cpow·log1p(−k²))`` (as :func:`seqproj.worst_case_kernel._dens`)."""
    if k <= -1.0 or k >= 1.0:
        return 0.0 if cpow > 0.0 else math.exp(logc)
    return math.exp(logc + cpow * math.log1p(-k * k))


@njit(cache=True, nogil=True)
def _moments_fast(k, tlo, dz, F, f, logc, cpow, M):
    """Partial moments ``I_0..I_3`` at ``k`` (as :func:`seqproj.worst_case_kernel._moments`)."""
    Fk = _F(k, tlo, dz, F, f)
    if k <= -1.0:
        return 0.0, 0.0, 0.0, 0.0
    if k < 1.0:
        q = (1.0 - k * k) * _dens_exact(k, logc, cpow)
    else:
        q = 0.0
    I1 = -q / (M - 1.0)
    I2 = (-q * k + Fk) / M
    I3 = (-q * k * k + 2.0 * I1) / (M + 1.0)
    return Fk, I1, I2, I3


@njit(cache=True, nogil=True)
def _expect_cubic(u, a, w, dw, c2, c3, nodes, ea, eb, r2, wr, tlo, dz, F, f, logc, cpow, M):
    """``E[p(u')]`` for one state and action (as :func:`seqproj.worst_case_kernel.expect_next_cubic`),
    with the column's cubic coefficients ``c2``, ``c3`` precomputed and lazy boundary moments."""
    n = w.shape[0]
    lo = nodes[0]
    hi = nodes[n - 1]
    L = tlo + dz * (F.shape[0] - 1)
    sdz = 1.0 / math.sqrt(M)
    hmin = (eb - ea) * 1e-14
    tot = 0.0
    for r in range(r2.shape[0]):
        R2 = r2[r]
        al = (u + a * R2) / (1.0 + a)
        be = 2.0 * math.sqrt(a * u * R2) / (1.0 + a)
        if be <= hmin:
            if al < ea or al > eb:
                tot += wr[r]
            elif al <= lo:
                tot += wr[r] * w[0]
            elif al >= hi:
                tot += wr[r] * w[n - 1]
            else:
                j = _cell(nodes, al)
                y = al - nodes[j]
                tot += wr[r] * (w[j] + y * (dw[j] + y * (c2[j] + y * c3[j])))
            continue
        Fea = _F((ea - al) / be, tlo, dz, F, f)
        Feb = _F((eb - al) / be, tlo, dz, F, f)
        Flo = _F((lo - al) / be, tlo, dz, F, f)
        Fhi = _F((hi - al) / be, tlo, dz, F, f)
        acc = Fea + (1.0 - Feb) + w[0] * (Flo - Fea) + w[n - 1] * (Feb - Fhi)
        ylo = al + be * tlo
        yhi = al + be * L
        if yhi > lo and ylo < hi:
            j0 = _cell(nodes, ylo)
            j1 = _cell(nodes, yhi)
            ka = (nodes[j0] - al) / be
            have = False
            A0 = 0.0
            A1 = 0.0
            A2 = 0.0
            A3 = 0.0
            for j in range(j0, j1 + 1):
                hj = nodes[j + 1] - nodes[j]
                kb = (nodes[j + 1] - al) / be
                de = al - nodes[j]
                if hj / be < 0.25 * sdz:
                    za = max(ka, tlo)
                    zb = min(kb, L)
                    if zb > za:
                        mid = 0.5 * (za + zb)
                        hw = 0.5 * (zb - za)
                        for g in range(3):
                            z = mid + hw * _GL_X[g]
                            y = de + be * z
                            acc += hw * _GL_W[g] * _dens_exact(z, logc, cpow) * (
                                w[j] + y * (dw[j] + y * (c2[j] + y * c3[j])))
                    have = False
                else:
                    if not have:
                        A0, A1, A2, A3 = _moments_fast(ka, tlo, dz, F, f, logc, cpow, M)
                    B0, B1, B2, B3 = _moments_fast(kb, tlo, dz, F, f, logc, cpow, M)
                    d0 = B0 - A0
                    d1 = B1 - A1
                    d2 = B2 - A2
                    d3 = B3 - A3
                    m1 = de * d0 + be * d1
                    m2 = de * de * d0 + 2.0 * de * be * d1 + be * be * d2
                    m3 = (de * de * de * d0 + 3.0 * de * de * be * d1 + 3.0 * de * be * be * d2
                          + be * be * be * d3)
                    acc += w[j] * d0 + dw[j] * m1 + c2[j] * m2 + c3[j] * m3
                    A0, A1, A2, A3 = B0, B1, B2, B3
                    have = True
                ka = kb
        tot += wr[r] * acc
    return tot


@njit(cache=True, nogil=True)
def _column(W, Dr, lrho, lv, cubic, slopes, nodes, col, du, c2, c3):
    """Fill ``col`` (the value column at ``log ρ = lv``, cubic in ``log ρ`` if ``cubic``) and, if
    ``slopes``, its PCHIP slopes ``du`` in ``u`` and per-cell coefficients ``c2``, ``c3`` (the
    expressions of ``expect_next_cubic``)."""
    v = _interp_col(W, Dr, lrho, lv, cubic)
    nu = v.shape[0]
    for i in range(nu):
        col[i] = v[i]
    if slopes:
        pchip_slopes(nodes, col, du)
        for j in range(nu - 1):
            hj = nodes[j + 1] - nodes[j]
            s = (col[j + 1] - col[j]) / hj
            c2[j] = (3.0 * s - 2.0 * du[j] - du[j + 1]) / hj
            c3[j] = (du[j] + du[j + 1] - 2.0 * s) / (hj * hj)


@njit(cache=True, nogil=True)
def _pair(q, W, Dr, lrho, Dp, Dn, x2, cubic, nodes, cols, dus, c2s, c3s, E, ea, eb, r2, wr, tlo, dz, F, f, K,
          logc, cpow, M):
    """Work item ``q = k·n_a + ai`` of one step: the column of action ``ai`` at ``ρ_k`` (with its
    slopes and cubic coefficients), then ``E[k, ai, i]`` for every ``u`` node (``ai > 0``)."""
    na = x2.shape[0]
    nu = nodes.shape[0]
    k = q // na
    ai = q - k * na
    V = math.exp(lrho[k]) * Dp
    if ai == 0:
        lv = math.log(V / Dn)
    else:
        lv = math.log((V + x2[ai]) / Dn)
    col = cols[k, ai]
    du = dus[k, ai]
    c2 = c2s[k, ai]
    c3 = c3s[k, ai]
    _column(W, Dr, lrho, lv, cubic, cubic and ai > 0, nodes, col, du, c2, c3)
    if ai == 0:
        return
    a = x2[ai] / V
    for i in range(nu):
        if cubic:
            E[k, ai, i] = _expect_cubic(nodes[i], a, col, du, c2, c3, nodes, ea, eb, r2, wr, tlo, dz, F, f,
                                        logc, cpow, M)
        else:
            E[k, ai, i] = expect_next(nodes[i], a, col, nodes, ea, eb, r2, wr, tlo, dz, F, f, K)


@njit(cache=True, parallel=True)
def _sweep_parallel(W, Dr, lrho, Dp, Dn, x2, cubic, nodes, cols, dus, c2s, c3s, E, ea, eb, r2, wr, tlo, dz, F, f,
                    K, logc, cpow, M):
    """All work items of one step, ``numba.prange`` over them (one fork–join per step)."""
    for q in prange(lrho.shape[0] * x2.shape[0]):
        _pair(q, W, Dr, lrho, Dp, Dn, x2, cubic, nodes, cols, dus, c2s, c3s, E, ea, eb, r2, wr, tlo, dz, F, f, K,
              logc, cpow, M)


@njit(cache=True, nogil=True)
def _sweep_serial(W, Dr, lrho, Dp, Dn, x2, cubic, nodes, cols, dus, c2s, c3s, E, ea, eb, r2, wr, tlo, dz, F, f,
                  K, logc, cpow, M):
    """All work items of one step, in order (the same items as :func:`_sweep_parallel`)."""
    for q in range(lrho.shape[0] * x2.shape[0]):
        _pair(q, W, Dr, lrho, Dp, Dn, x2, cubic, nodes, cols, dus, c2s, c3s, E, ea, eb, r2, wr, tlo, dz, F, f, K,
              logc, cpow, M)


@njit(cache=True, nogil=True)
def _dp_fast_kernel(T, nodes, ea, eb, lrho, v0, x2, r2, wr, tlo, dz, F, f, K, maximize, store_policy, cubic,
                    logc, cpow, M, parallel):
    """The backward induction (returns ``(W_T, W_{T−1}, policy)`` as ``dp_kernel``)."""
    nv = lrho.shape[0]
    nu = nodes.shape[0]
    na = x2.shape[0]
    W = np.zeros((nu, nv))
    Wprev = np.zeros((nu, nv))
    if store_policy:
        pol = np.zeros((T, nu, nv), dtype=np.int8)
    else:
        pol = np.zeros((1, 1, 1), dtype=np.int8)
    Dr = np.zeros((nu, nv))
    rowv = np.empty(nv)
    rowd = np.empty(nv)
    cols = np.zeros((nv, na, nu))
    dus = np.zeros((nv, na, nu))
    c2s = np.zeros((nv, na, nu))
    c3s = np.zeros((nv, na, nu))
    E = np.zeros((nv, na, nu))
    for n in range(1, T + 1):
        if cubic:
            for i in range(nu):
                for k in range(nv):
                    rowv[k] = W[i, k]
                pchip_slopes(lrho, rowv, rowd)
                for k in range(nv):
                    Dr[i, k] = rowd[k]
        t = T - n + 1
        Dp = v0 + (t - 1.0)
        Dn = v0 + float(t)
        if parallel:
            _sweep_parallel(W, Dr, lrho, Dp, Dn, x2, cubic, nodes, cols, dus, c2s, c3s, E, ea, eb, r2, wr, tlo,
                            dz, F, f, K, logc, cpow, M)
        else:
            _sweep_serial(W, Dr, lrho, Dp, Dn, x2, cubic, nodes, cols, dus, c2s, c3s, E, ea, eb, r2, wr, tlo,
                          dz, F, f, K, logc, cpow, M)
        # maximum over actions in the reference's order: ai = n_a − 1 … 1 against the pause
        for k in range(nv):
            for i in range(nu):
                best = cols[k, 0, i]
                barg = 0
                for ai in range(na - 1, 0, -1):
                    e = E[k, ai, i]
                    better = (e > best) if maximize else (e < best)
                    if better or (barg == 0 and e == best):      # ties: prefer x > 0 (as dp_kernel)
                        best = e
                        barg = ai
                Wprev[i, k] = W[i, k]
                W[i, k] = best
                if store_policy:
                    pol[t - 1, i, k] = barg
    return W, Wprev, pol


_WARM_LOCK = threading.Lock()
_warm = []


def _warm_up():
    """Load (or compile) the kernel once, under a lock, in the first calling thread: concurrent
    *first* calls from several threads crashed the process (segfault at address 0, measured with
    :func:`seqproj.worst_case._prefetch` on numba 0.68); later calls run concurrently."""
    if _warm:
        return
    with _WARM_LOCK:
        if _warm:
            return
        nodes = np.array([0.6, 1.0, 1.4])
        lrho = np.zeros(1)
        x2 = np.array([0.0, 1.0])
        one = np.ones(1)
        k = np.linspace(-1.0, 1.0, 5)
        F = (1.0 + k) / 2.0
        f = np.full(5, 0.5)
        for par in (False, True):
            _dp_fast_kernel(1, nodes, 0.5, 1.5, lrho, 1.0, x2, one, one, -1.0, 0.5, F, f, f * 0.0, True, False,
                            True, math.log(0.5), 0.0, 3.0, par)
        _warm.append(True)


def dp_fast(T, nodes, ea, eb, lrho, v0, x2, r2, wr, table, maximize, store_policy, cubic, logc, cpow, M,
            parallel=True):
    """The fast solver: ``(W_T, W_{T−1}, policy)`` as :func:`seqproj.worst_case_kernel.dp_kernel`
    returns them (same arguments; the ζ table passed as one tuple ``(tlo, dz, F, f, K)``).
    ``parallel``: one ``numba.prange`` over the step's work items (``numba.get_num_threads()``
    threads) or a serial loop over the same items — the values are identical either way.
    Called by :func:`seqproj.worst_case.worst_case_value`, which validates the problem and
    builds the grids."""
    _warm_up()
    tlo, dz, F, f, K = table
    return _dp_fast_kernel(int(T), np.ascontiguousarray(nodes, dtype=float), float(ea), float(eb),
                           np.ascontiguousarray(lrho, dtype=float), float(v0),
                           np.ascontiguousarray(x2, dtype=float), np.ascontiguousarray(r2, dtype=float),
                           np.ascontiguousarray(wr, dtype=float), float(tlo), float(dz), F, f, K,
                           bool(maximize), bool(store_policy), bool(cubic), float(logc), float(cpow), float(M),
                           bool(parallel))
