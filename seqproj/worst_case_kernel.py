r"""Backward induction of the worst-case sequential JL problem: numba kernel and NumPy reference.

The controlled chain (derivation in :mod:`seqproj.worst_case`, theory
``docs/theory/seqproj.md#worst-case``): state ``(u, V)`` with ``u = ‖S‖²/V``
on a grid ``nodes`` of the band ``[1−ε, 1+ε]`` and ``V`` (in units of
``c_x``) on a log-uniform grid ``vgrid``; action ``x²`` from ``x2`` (``x2[0] = 0``
is the pause); with ``a = x²/V`` the new ratio is

    u' = α + β ζ,   α = (u + a R²)/(1 + a),   β = 2 √(a u) R/(1 + a),

``ζ`` the first coordinate of a uniform point of ``S^{M−1}`` and ``R = 1``
(sphere) or ``R² ~ χ²_M/M`` independent of ``ζ`` (Gaussian; quadrature
nodes ``r2`` with weights ``wr``).  ``V' = V + x²``.

The value of the next step is the piecewise-linear interpolant of its grid
values in ``u`` (linear in ``log V`` between V nodes) inside the band and 1
outside.  Its expectation under the law of ``u'`` is **exact** given the CDF
``F_ζ`` and the partial first moment ``K_ζ(k) = E[ζ 1{ζ ≤ k}]`` of ``ζ``:
on a cell ``[u_j, u_{j+1}]`` (width ``h_j``) the interpolant is ``W_j + (W_{j+1} − W_j)(y − u_j)/h_j``, so

    E[f(u') 1{u' ∈ cell}] = W_j ΔF + (W_{j+1} − W_j)/h_j · (ΔK_U − u_j ΔF),
    F_U(c) = F_ζ(k),  E[U 1{U ≤ c}] = α F_ζ(k) + β K_ζ(k),  k = (c − α)/β,

and the exit mass is ``F_U(1−ε⁻) + 1 − F_U(1+ε)``.  ``F_ζ``, ``K_ζ`` come from
a table (``(1+ζ)/2 ~ Beta(m, m)``, ``m = (M−1)/2``: ``F_ζ(k) = I_b(m, m)``,
``K_ζ(k) = I_b(m+1, m) − I_b(m, m)``, ``b = (1+k)/2``) read by cubic Hermite
interpolation with the exact derivatives ``F' = f_ζ``, ``K' = k f_ζ``
(interpolation error ``O(Δ⁴)``, ≈ 1e-10 at the default table).

:func:`dp_kernel` (numba) and :func:`dp_numpy` (plain Python/NumPy reference,
same operations) agree to rounding; the tests compare them.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

#: The numba kernels (dp_kernel, expect_next, expect_next_cubic, pchip_slopes, table_eval) check
#: nothing and are called only by the validated solvers in :mod:`seqproj.worst_case` /
#: :mod:`seqproj.worst_case_fast`: out of ``__all__`` (issue 26).  ``dp_numpy``,
#: ``expect_cubic_quadrature`` and ``transition_row`` are the NumPy references.
__all__ = [
    "dp_numpy",
    "expect_cubic_quadrature",
    "transition_row",
]


@njit(cache=True, nogil=True)
def table_eval(k, tlo, dz, F, f, K):
    """``(F_ζ(k), K_ζ(k))`` by cubic Hermite interpolation of the tables (0/1 and 0 beyond them)."""
    n = F.shape[0]
    thi = tlo + dz * (n - 1)
    if k <= tlo:
        return 0.0, 0.0
    if k >= thi:
        return 1.0, 0.0
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
    z0 = tlo + dz * i
    z1 = z0 + dz
    Fv = h00 * F[i] + h10 * dz * f[i] + h01 * F[i + 1] + h11 * dz * f[i + 1]
    Kv = h00 * K[i] + h10 * dz * z0 * f[i] + h01 * K[i + 1] + h11 * dz * z1 * f[i + 1]
    if Fv < 0.0:
        Fv = 0.0
    elif Fv > 1.0:
        Fv = 1.0
    return Fv, Kv


@njit(cache=True, nogil=True)
def _cell(nodes, y):
    """Index ``j`` of the cell ``[nodes[j], nodes[j+1]]`` holding ``y`` (clipped to ``[0, n−2]``)."""
    n = nodes.shape[0]
    if y <= nodes[0]:
        return 0
    if y >= nodes[n - 1]:
        return n - 2
    a = 0
    b = n - 1
    while b - a > 1:
        m = (a + b) // 2
        if nodes[m] <= y:
            a = m
        else:
            b = m
    return a


@njit(cache=True, nogil=True)
def expect_next(u, a, w, nodes, ea, eb, r2, wr, tlo, dz, F, f, K):
    """``E[f(u')]`` for one state and action ``a = x²/V``; ``f`` = piecewise-linear interpolant
    of ``w`` on the sorted ``nodes`` of the band, 1 outside."""
    n = w.shape[0]
    lo = nodes[0]
    hi = nodes[n - 1]
    zmax = tlo + dz * (F.shape[0] - 1)
    hmin = (eb - ea) * 1e-14
    tot = 0.0
    for r in range(r2.shape[0]):
        R2 = r2[r]
        al = (u + a * R2) / (1.0 + a)
        be = 2.0 * math.sqrt(a * u * R2) / (1.0 + a)
        if be <= hmin:
            # deterministic move (pause, or u = 0)
            if al < ea or al > eb:
                tot += wr[r]
            elif al <= lo:
                tot += wr[r] * w[0]
            elif al >= hi:
                tot += wr[r] * w[n - 1]
            else:
                j = _cell(nodes, al)
                th = (al - nodes[j]) / (nodes[j + 1] - nodes[j])
                tot += wr[r] * ((1.0 - th) * w[j] + th * w[j + 1])
            continue
        # exit mass
        Fea, _ = table_eval((ea - al) / be, tlo, dz, F, f, K)
        Feb, _ = table_eval((eb - al) / be, tlo, dz, F, f, K)
        Flo, _ = table_eval((lo - al) / be, tlo, dz, F, f, K)
        Fhi, _ = table_eval((hi - al) / be, tlo, dz, F, f, K)
        # exit mass, and the end segments [ea, u_0], [u_{n−1}, eb] where the value is held constant
        acc = Fea + (1.0 - Feb) + w[0] * (Flo - Fea) + w[n - 1] * (Feb - Fhi)
        # cells meeting the support [al + be*tlo, al + be*zmax]; cells beyond it carry no mass
        ylo = al + be * tlo
        yhi = al + be * zmax
        if yhi > lo and ylo < hi:
            j0 = _cell(nodes, ylo)
            j1 = _cell(nodes, yhi)
            cj = nodes[j0]
            Fa, Ka = table_eval((cj - al) / be, tlo, dz, F, f, K)
            Ma = al * Fa + be * Ka
            for j in range(j0, j1 + 1):
                cn = nodes[j + 1]
                Fb, Kb = table_eval((cn - al) / be, tlo, dz, F, f, K)
                Mb = al * Fb + be * Kb
                dF = Fb - Fa
                acc += w[j] * dF + (w[j + 1] - w[j]) / (cn - cj) * ((Mb - Ma) - cj * dF)
                Fa = Fb
                Ma = Mb
                cj = cn
        tot += wr[r] * acc
    return tot


@njit(cache=True, nogil=True)
def pchip_slopes(x, y, d):
    """Fritsch–Carlson monotone slopes ``d`` of the data ``(x, y)`` (weighted harmonic mean of
    the neighbouring secants, 0 at local extrema; one-sided secants at the ends): the
    interpolant is C¹, monotone where the data are, and never leaves their range."""
    n = x.shape[0]
    if n == 1:
        d[0] = 0.0
        return
    if n == 2:
        s = (y[1] - y[0]) / (x[1] - x[0])
        d[0] = s
        d[1] = s
        return
    for j in range(1, n - 1):
        h0 = x[j] - x[j - 1]
        h1 = x[j + 1] - x[j]
        s0 = (y[j] - y[j - 1]) / h0
        s1 = (y[j + 1] - y[j]) / h1
        if s0 * s1 <= 0.0:
            d[j] = 0.0
        else:
            w1 = 2.0 * h1 + h0
            w2 = h1 + 2.0 * h0
            d[j] = (w1 + w2) / (w1 / s0 + w2 / s1)
    d[0] = (y[1] - y[0]) / (x[1] - x[0])
    d[n - 1] = (y[n - 1] - y[n - 2]) / (x[n - 1] - x[n - 2])


@njit(cache=True, nogil=True)
def _dens(k, logc, cpow):
    """Density of ζ: ``exp(logc) (1 − k²)^cpow`` on ``(−1, 1)``."""
    if k <= -1.0 or k >= 1.0:
        return 0.0 if cpow > 0.0 else math.exp(logc)
    return math.exp(logc + cpow * math.log1p(-k * k))


_GL_X = np.array([-math.sqrt(0.6), 0.0, math.sqrt(0.6)])
_GL_W = np.array([5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0])


@njit(cache=True, nogil=True)
def _moments(k, tlo, dz, F, f, K, logc, cpow, M):
    """Partial moments ``I_m(k) = E[ζ^m 1{ζ ≤ k}]``, m = 0..3, from the recursion
    ``(M + m − 2) I_m = −(1 − k²) k^{m−1} f(k) + (m − 1) I_{m−2}``."""
    Fk, _ = table_eval(k, tlo, dz, F, f, K)
    if k <= -1.0:
        return 0.0, 0.0, 0.0, 0.0
    fk = _dens(k, logc, cpow) if k < 1.0 else 0.0
    q = (1.0 - k * k) * fk
    if k >= 1.0:
        q = 0.0
    I1 = -q / (M - 1.0)
    I2 = (-q * k + Fk) / M
    I3 = (-q * k * k + 2.0 * I1) / (M + 1.0)
    return Fk, I1, I2, I3


@njit(cache=True, nogil=True)
def expect_next_cubic(u, a, w, dw, nodes, ea, eb, r2, wr, tlo, dz, F, f, K, logc, cpow, M):
    """``E[p(u')]`` for one state and action ``a``; ``p`` = the cubic Hermite interpolant of
    values ``w`` and slopes ``dw`` on ``nodes`` inside the band, 1 outside.

    Per cell ``p = W_j + d_j y + c_2 y² + c_3 y³`` (``y = u' − u_j``), integrated exactly with
    the partial moments of ``ζ`` (:func:`_moments`) — or, on cells narrower than a quarter of
    the standard deviation of ``ζ`` (where the moment differences would cancel), by 3-point
    Gauss–Legendre against the closed-form density (relative error < 1e-9)."""
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
                hj = nodes[j + 1] - nodes[j]
                y = al - nodes[j]
                s = (w[j + 1] - w[j]) / hj
                c2 = (3.0 * s - 2.0 * dw[j] - dw[j + 1]) / hj
                c3 = (dw[j] + dw[j + 1] - 2.0 * s) / (hj * hj)
                tot += wr[r] * (w[j] + y * (dw[j] + y * (c2 + y * c3)))
            continue
        Fea, _ = table_eval((ea - al) / be, tlo, dz, F, f, K)
        Feb, _ = table_eval((eb - al) / be, tlo, dz, F, f, K)
        Flo, _ = table_eval((lo - al) / be, tlo, dz, F, f, K)
        Fhi, _ = table_eval((hi - al) / be, tlo, dz, F, f, K)
        # exit mass, and the end segments [ea, u_0], [u_{n−1}, eb] where the value is held constant
        acc = Fea + (1.0 - Feb) + w[0] * (Flo - Fea) + w[n - 1] * (Feb - Fhi)
        ylo = al + be * tlo
        yhi = al + be * L
        if yhi > lo and ylo < hi:
            j0 = _cell(nodes, ylo)
            j1 = _cell(nodes, yhi)
            ka = (nodes[j0] - al) / be
            A0, A1, A2, A3 = _moments(ka, tlo, dz, F, f, K, logc, cpow, M)
            for j in range(j0, j1 + 1):
                hj = nodes[j + 1] - nodes[j]
                kb = (nodes[j + 1] - al) / be
                B0, B1, B2, B3 = _moments(kb, tlo, dz, F, f, K, logc, cpow, M)
                s = (w[j + 1] - w[j]) / hj
                c2 = (3.0 * s - 2.0 * dw[j] - dw[j + 1]) / hj
                c3 = (dw[j] + dw[j + 1] - 2.0 * s) / (hj * hj)
                de = al - nodes[j]
                if hj / be < 0.25 * sdz:
                    # narrow cell: Gauss–Legendre in ζ over [ka, kb] ∩ [tlo, L]
                    za = max(ka, tlo)
                    zb = min(kb, L)
                    if zb > za:
                        mid = 0.5 * (za + zb)
                        hw = 0.5 * (zb - za)
                        for g in range(3):
                            z = mid + hw * _GL_X[g]
                            y = de + be * z
                            acc += hw * _GL_W[g] * _dens(z, logc, cpow) * (
                                w[j] + y * (dw[j] + y * (c2 + y * c3)))
                else:
                    d0 = B0 - A0
                    d1 = B1 - A1
                    d2 = B2 - A2
                    d3 = B3 - A3
                    m1 = de * d0 + be * d1
                    m2 = de * de * d0 + 2.0 * de * be * d1 + be * be * d2
                    m3 = (de * de * de * d0 + 3.0 * de * de * be * d1 + 3.0 * de * be * be * d2
                          + be * be * be * d3)
                    acc += w[j] * d0 + dw[j] * m1 + c2 * m2 + c3 * m3
                A0, A1, A2, A3 = B0, B1, B2, B3
                ka = kb
        tot += wr[r] * acc
    return tot


@njit(cache=True, nogil=True)
def _interp_v(W, lg, lv):
    """Column of ``W`` (shape (N_u, N_ρ)) interpolated linearly in ``log ρ`` at ``lv`` (clamped
    to the grid ``lg``)."""
    nv = lg.shape[0]
    nu = W.shape[0]
    out = np.empty(nu)
    if nv == 1 or lv <= lg[0]:
        for i in range(nu):
            out[i] = W[i, 0]
        return out
    if lv >= lg[nv - 1]:
        for i in range(nu):
            out[i] = W[i, nv - 1]
        return out
    m = 0
    while lg[m + 1] < lv:
        m += 1
    th = (lv - lg[m]) / (lg[m + 1] - lg[m])
    for i in range(nu):
        out[i] = (1.0 - th) * W[i, m] + th * W[i, m + 1]
    return out


@njit(cache=True, nogil=True)
def _interp_col(W, Dr, lg, lv, cubic):
    """Column of ``W`` at ``log ρ = lv``: linear, or cubic Hermite with slopes ``Dr`` (clamped)."""
    nv = lg.shape[0]
    if not cubic or nv == 1 or lv <= lg[0] or lv >= lg[nv - 1]:
        return _interp_v(W, lg, lv)
    nu = W.shape[0]
    m = 0
    while lg[m + 1] < lv:
        m += 1
    hh = lg[m + 1] - lg[m]
    t = (lv - lg[m]) / hh
    t2 = t * t
    t3 = t2 * t
    h00 = 2.0 * t3 - 3.0 * t2 + 1.0
    h10 = t3 - 2.0 * t2 + t
    h01 = -2.0 * t3 + 3.0 * t2
    h11 = t3 - t2
    out = np.empty(nu)
    for i in range(nu):
        out[i] = h00 * W[i, m] + h10 * hh * Dr[i, m] + h01 * W[i, m + 1] + h11 * hh * Dr[i, m + 1]
    return out


@njit(cache=True, nogil=True)
def dp_kernel(T, nodes, ea, eb, lrho, v0, x2, r2, wr, tlo, dz, F, f, K, maximize, store_policy,
              cubic, logc, cpow, M):
    """Backward induction over ``T`` steps.

    ``V`` is carried as ``ρ = V_{t−1}/(v_0 + t − 1)`` (``log ρ`` grid ``lrho``, ascending, last
    node 0 = the "always the maximum" diagonal; units ``c_x = 1``).  Returns ``(W_T, W_{T−1},
    policy)``: values ``(N_u, N_ρ)`` with ``T`` and ``T−1`` steps to go, and
    ``policy[t−1, i, k]`` = index into ``x2`` played at step ``t`` from ``(u_i, ρ_k)`` (shape
    (1, 1, 1) unless ``store_policy``).  ``maximize=False`` takes the minimum instead
    (a mutation/diagnostic switch).  ``cubic``: monotone C¹ cubic (PCHIP) interpolation in
    ``u`` and in ``log ρ`` (:func:`expect_next_cubic`); else piecewise linear
    (:func:`expect_next`, a Markov chain on the grid)."""
    nv = lrho.shape[0]
    nu = nodes.shape[0]
    na = x2.shape[0]
    W = np.zeros((nu, nv))
    Wprev = np.zeros((nu, nv))
    if store_policy:
        pol = np.zeros((T, nu, nv), dtype=np.int8)
    else:
        pol = np.zeros((1, 1, 1), dtype=np.int8)
    Wn = np.zeros((nu, nv))
    best = np.empty(nu)
    barg = np.zeros(nu, dtype=np.int8)
    Dr = np.zeros((nu, nv))
    du = np.zeros(nu)
    rowv = np.empty(nv)
    rowd = np.empty(nv)
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
        for k in range(nv):
            V = math.exp(lrho[k]) * Dp
            # the pause x = 0 (index 0): V unchanged, so ρ moves to V/Dn
            wp = _interp_col(W, Dr, lrho, math.log(V / Dn), cubic)
            for i in range(nu):
                best[i] = wp[i]
                barg[i] = 0
            for ai in range(na - 1, 0, -1):
                a = x2[ai] / V
                wcol = _interp_col(W, Dr, lrho, math.log((V + x2[ai]) / Dn), cubic)
                if cubic:
                    pchip_slopes(nodes, wcol, du)
                for i in range(nu):
                    if cubic:
                        e = expect_next_cubic(nodes[i], a, wcol, du, nodes, ea, eb, r2, wr, tlo, dz, F, f, K,
                                              logc, cpow, M)
                    else:
                        e = expect_next(nodes[i], a, wcol, nodes, ea, eb, r2, wr, tlo, dz, F, f, K)
                    better = (e > best[i]) if maximize else (e < best[i])
                    if better or (barg[i] == 0 and e == best[i]):      # ties: prefer x > 0
                        best[i] = e
                        barg[i] = ai
            for i in range(nu):
                Wn[i, k] = best[i]
                if store_policy:
                    pol[t - 1, i, k] = barg[i]
        for i in range(nu):
            for k in range(nv):
                Wprev[i, k] = W[i, k]
                W[i, k] = Wn[i, k]
    return W, Wprev, pol


# --------------------------------------------------------------------------
# NumPy reference (same recursion, written independently with vectorised cells)
# --------------------------------------------------------------------------

def _table_np(k, tlo, dz, F, f, K):
    k = np.asarray(k, dtype=float)
    n = F.shape[0]
    s = np.clip((k - tlo) / dz, 0.0, n - 1 - 1e-12)
    i = np.minimum(s.astype(np.int64), n - 2)
    t = s - i
    z0 = tlo + dz * i
    z1 = z0 + dz
    h00 = 2 * t ** 3 - 3 * t ** 2 + 1
    h10 = t ** 3 - 2 * t ** 2 + t
    h01 = -2 * t ** 3 + 3 * t ** 2
    h11 = t ** 3 - t ** 2
    Fv = np.clip(h00 * F[i] + h10 * dz * f[i] + h01 * F[i + 1] + h11 * dz * f[i + 1], 0.0, 1.0)
    Kv = h00 * K[i] + h10 * dz * z0 * f[i] + h01 * K[i + 1] + h11 * dz * z1 * f[i + 1]
    below = k <= tlo
    above = k >= tlo + dz * (n - 1)
    Fv = np.where(below, 0.0, np.where(above, 1.0, Fv))
    Kv = np.where(below | above, 0.0, Kv)
    return Fv, Kv


def transition_row(u, a, nodes, r2, wr, table, ea=None, eb=None):
    """``(exit probability, weights)`` with ``E[f(u')] = exit + Σ_j weights[j] w_j`` for every
    grid vector ``w`` (the linear functional of :func:`expect_next`, NumPy)."""
    tlo, dz, F, f, K = table
    nodes = np.asarray(nodes, dtype=float)
    nu = nodes.size
    lo, hi = nodes[0], nodes[-1]
    ea = lo if ea is None else ea
    eb = hi if eb is None else eb
    h = eb - ea
    ex = 0.0
    wt = np.zeros(nu)
    for R2, q in zip(r2, wr):
        al = (u + a * R2) / (1 + a)
        be = 2 * math.sqrt(a * u * R2) / (1 + a)
        if be <= 1e-14 * h:
            if al < ea or al > eb:
                ex += q
            elif al <= lo:
                wt[0] += q
            elif al >= hi:
                wt[-1] += q
            else:
                j = min(max(int(np.searchsorted(nodes, al, side="right")) - 1, 0), nu - 2)
                th = (al - nodes[j]) / (nodes[j + 1] - nodes[j])
                wt[j] += q * (1 - th)
                wt[j + 1] += q * th
            continue
        Fn, Kn = _table_np((nodes - al) / be, tlo, dz, F, f, K)
        Mn = al * Fn + be * Kn
        Fe, _ = _table_np(np.array([(ea - al) / be, (eb - al) / be]), tlo, dz, F, f, K)
        ex += q * (Fe[0] + 1 - Fe[1])
        wt[0] += q * (Fn[0] - Fe[0])
        wt[-1] += q * (Fe[1] - Fn[-1])
        dF = np.diff(Fn)
        dM = np.diff(Mn)
        lin = (dM - nodes[:-1] * dF) / np.diff(nodes)         # coefficient of (w_{j+1} − w_j)
        wt[:-1] += q * (dF - lin)
        wt[1:] += q * lin
    return ex, wt


def _pchip_np(x, y):
    """Fritsch–Carlson slopes (NumPy, vectorised; the same rule as :func:`pchip_slopes`)."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    n = x.size
    if n == 1:
        return np.zeros(1)
    h = np.diff(x)
    s = np.diff(y) / h
    d = np.empty(n)
    d[0], d[-1] = s[0], s[-1]
    if n > 2:
        w1 = 2 * h[1:] + h[:-1]
        w2 = h[1:] + 2 * h[:-1]
        with np.errstate(divide="ignore", invalid="ignore"):
            hm = (w1 + w2) / (w1 / s[:-1] + w2 / s[1:])
        d[1:-1] = np.where(s[:-1] * s[1:] <= 0, 0.0, hm)
    return d


def _hermite_np(x, y, d, xq):
    """Cubic Hermite interpolant of ``(x, y, d)`` at ``xq`` (clamped to the ends)."""
    xq = np.clip(np.asarray(xq, float), x[0], x[-1])
    j = np.clip(np.searchsorted(x, xq, side="right") - 1, 0, x.size - 2)
    h = x[j + 1] - x[j]
    t = (xq - x[j]) / h
    return ((2 * t ** 3 - 3 * t ** 2 + 1) * y[j] + (t ** 3 - 2 * t ** 2 + t) * h * d[j]
            + (-2 * t ** 3 + 3 * t ** 2) * y[j + 1] + (t ** 3 - t ** 2) * h * d[j + 1])


def expect_cubic_quadrature(u, a, w, nodes, r2, wr, table, M, n_gl=8, ea=None, eb=None):
    """Reference of :func:`expect_next_cubic` by composite Gauss–Legendre (``n_gl`` points per
    cell image in ζ) against the Beta density from SciPy — independent of the moment formulas."""
    from scipy import stats
    tlo, dz, F, f, K = table
    L = tlo + dz * (F.size - 1)
    nodes = np.asarray(nodes, float)
    d = _pchip_np(nodes, w)
    gx, gw = np.polynomial.legendre.leggauss(n_gl)
    m = (M - 1) / 2.0
    ea = nodes[0] if ea is None else ea
    eb = nodes[-1] if eb is None else eb
    tot = 0.0
    for R2, q in zip(r2, wr):
        al = (u + a * R2) / (1 + a)
        be = 2 * math.sqrt(a * u * R2) / (1 + a)
        if be <= 1e-14 * (eb - ea):
            tot += q * (1.0 if (al < ea or al > eb) else _hermite_np(nodes, w, d, al))
            continue
        cdf = lambda c: stats.beta.cdf((1 + (c - al) / be) / 2, m, m)
        ex = cdf(ea) + 1 - cdf(eb) + w[0] * (cdf(nodes[0]) - cdf(ea)) + w[-1] * (cdf(eb) - cdf(nodes[-1]))
        ks = np.clip((nodes - al) / be, max(tlo, -1.0), min(L, 1.0))
        acc = ex
        for za, zb in zip(ks[:-1], ks[1:]):
            if zb <= za:
                continue
            z = 0.5 * (za + zb) + 0.5 * (zb - za) * gx
            dens = stats.beta.pdf((1 + z) / 2, m, m) / 2
            acc += 0.5 * (zb - za) * np.sum(gw * dens * _hermite_np(nodes, w, d, al + be * z))
        tot += q * acc
    return tot


def dp_numpy(T, nodes, lrho, v0, x2, r2, wr, table, maximize=True, cubic=False, M=None, ea=None,
             eb=None):
    """NumPy reference of :func:`dp_kernel` (value only).  Linear: builds each transition row
    with :func:`transition_row`; cubic: interpolates with its own PCHIP and integrates by
    :func:`expect_cubic_quadrature`.  Slow; for small grids and tests."""
    nv = len(lrho)
    nu = len(nodes)
    W = np.zeros((nu, nv))

    def col(W, lv):
        if nv == 1:
            return W[:, 0].copy()
        if not cubic:
            return np.array([np.interp(lv, lrho, W[i]) for i in range(nu)])
        return np.array([_hermite_np(lrho, W[i], _pchip_np(lrho, W[i]), lv) for i in range(nu)])

    for n in range(1, T + 1):
        t = T - n + 1
        Dp, Dn = v0 + t - 1.0, v0 + float(t)
        Wn = np.empty_like(W)
        for k in range(nv):
            V = math.exp(lrho[k]) * Dp
            cands = [col(W, math.log(V / Dn))]
            for ai in range(1, len(x2)):
                wcol = col(W, math.log((V + x2[ai]) / Dn))
                e = np.empty(nu)
                for i in range(nu):
                    if cubic:
                        e[i] = expect_cubic_quadrature(nodes[i], x2[ai] / V, wcol, nodes, r2, wr,
                                                       table, M, ea=ea, eb=eb)
                    else:
                        ex, wt = transition_row(nodes[i], x2[ai] / V, nodes, r2, wr, table, ea, eb)
                        e[i] = ex + wt @ wcol
                cands.append(e)
            C = np.array(cands)
            Wn[:, k] = C.max(axis=0) if maximize else C.min(axis=0)
        W = Wn
    return W
