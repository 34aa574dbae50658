r"""Numba kernels of the DeepSea agents' backward passes, beside their NumPy references.

* :func:`ridge_backward` — the one-hot ridge/Bayesian fit of Bellman targets,
  row by row backwards, :math:`Q_h = (q_0/s_0 + T_h/\sigma^2)/p + G/\sqrt p`
  with :math:`T_h = R_h + \sum_k C_{h,k}\max_a Q_{h+1}(c + k − 1, a)` and
  :math:`p = 1/s_0 + n/\sigma^2`: RLSVI (``q0 = 0``, ``G`` standard normal),
  the bootstrapped members (``q0`` the member's prior, ``G = 0``) and the
  certainty-equivalent mean (``q0 = G = 0``).  Reference:
  :func:`ridge_backward_ref`.
* :func:`hyper_backward` — HyperAgent's closed-form backward fit
  (:func:`~seqproj.ensemble.deep_agents.hyper_closed_form` is the reference).
* :func:`hyper_sgd_sweep` — the SGD sweep with given indices (reference:
  :func:`hyper_sgd_sweep_ref`).

All kernels update their output arrays in place (``cache=True, nogil=True``).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__: list[str] = []

_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


@njit(cache=True, nogil=True)
def ridge_backward(n, R, C, q0, G, s0, sig, Q):
    B, N = n.shape[0], n.shape[1]
    sig2 = sig * sig
    V = np.zeros(N)
    Vc = np.zeros(N)
    for b in range(B):
        for h in range(N - 1, -1, -1):
            for c in range(N):
                for a in range(2):
                    t = R[b, h, c, a]
                    if h < N - 1:
                        for k in range(3):
                            w = C[b, h, c, a, k]
                            if w != 0.0:
                                cn = min(max(c + k - 1, 0), N - 1)
                                t += w * V[cn]
                    p = 1.0 / s0 + n[b, h, c, a] / sig2
                    Q[b, h, c, a] = (q0[b, h, c, a] / s0 + t / sig2) / p + G[b, h, c, a] / math.sqrt(p)
                Vc[c] = max(Q[b, h, c, 0], Q[b, h, c, 1])
            for c in range(N):
                V[c] = Vc[c]
    return Q


def ridge_backward_ref(n, R, C, q0, G, s0, sig):
    """NumPy reference of :func:`ridge_backward` (returns Q)."""
    B, N = n.shape[0], n.shape[1]
    idx = [np.clip(np.arange(N) + k - 1, 0, N - 1) for k in range(3)]
    Q = np.empty_like(n)
    V = np.zeros((B, N))
    for h in range(N - 1, -1, -1):
        T = R[:, h].copy()
        if h < N - 1:
            for k in range(3):
                T += C[:, h, :, :, k] * V[:, idx[k], None]
        p = 1.0 / s0 + n[:, h] / sig**2
        Q[:, h] = (q0[:, h] / s0 + T / sig**2) / p + G[:, h] / np.sqrt(p)
        V = Q[:, h].max(axis=-1)
    return Q


@njit(cache=True, nogil=True)
def _clark_row(mu, A, h, b, N, M, m, g):
    for c in range(N):
        th2 = 0.0
        for j in range(M):
            d = A[b, h, c, 0, j] - A[b, h, c, 1, j]
            th2 += d * d
        th = math.sqrt(th2)
        dm = mu[b, h, c, 0] - mu[b, h, c, 1]
        if th <= 1e-300:
            P = 1.0 if dm >= 0 else 0.0
            phi = 0.0
        else:
            al = dm / th
            P = 0.5 * math.erfc(-al * _INV_SQRT2)
            phi = math.exp(-0.5 * al * al) * _INV_SQRT_2PI
        m[c] = mu[b, h, c, 1] + dm * P + th * phi
        for j in range(M):
            g[c, j] = P * A[b, h, c, 0, j] + (1.0 - P) * A[b, h, c, 1, j]


@njit(cache=True, nogil=True)
def hyper_backward(n, R, C, Pz, s0, sig, mu, A):
    """Closed form; ``Pz = A0/s0 + Z/σ``; writes ``mu`` (B,N,N,2) and ``A`` (B,N,N,2,M)."""
    B, N, M = n.shape[0], n.shape[1], Pz.shape[4]
    sig2 = sig * sig
    m = np.zeros(N)
    g = np.zeros((N, M))
    for b in range(B):
        for h in range(N - 1, -1, -1):
            for c in range(N):
                for a in range(2):
                    p = 1.0 / s0 + n[b, h, c, a] / sig2
                    t = R[b, h, c, a]
                    for j in range(M):
                        A[b, h, c, a, j] = Pz[b, h, c, a, j]
                    if h < N - 1:
                        for k in range(3):
                            w = C[b, h, c, a, k]
                            if w != 0.0:
                                cn = min(max(c + k - 1, 0), N - 1)
                                t += w * m[cn]
                                for j in range(M):
                                    A[b, h, c, a, j] += w * g[cn, j] / sig2
                    mu[b, h, c, a] = t / sig2 / p
                    for j in range(M):
                        A[b, h, c, a, j] /= p
            _clark_row(mu, A, h, b, N, M, m, g)
    return mu, A


@njit(cache=True, nogil=True)
def hyper_sgd_sweep(n, R, C, Z, A0, s0, sig, lr, Xi, mu, A):
    """One backward sweep; ``Xi`` (N, steps, B, 2K, M) the indices (mirrored)."""
    B, N, M = n.shape[0], n.shape[1], A0.shape[4]
    steps, K2 = Xi.shape[1], Xi.shape[3]
    sig2 = sig * sig
    V = np.zeros((N, K2))
    gA = np.zeros(M)
    for b in range(B):
        for h in range(N - 1, -1, -1):
            for st in range(steps):
                if h < N - 1:
                    for c in range(N):
                        for k in range(K2):
                            q0 = mu[b, h + 1, c, 0]
                            q1 = mu[b, h + 1, c, 1]
                            for j in range(M):
                                x = Xi[h, st, b, k, j]
                                q0 += A[b, h + 1, c, 0, j] * x
                                q1 += A[b, h + 1, c, 1, j] * x
                            V[c, k] = max(q0, q1)
                for c in range(N):
                    for a in range(2):
                        p = 1.0 / s0 + n[b, h, c, a] / sig2
                        gmu = 0.0
                        for j in range(M):
                            gA[j] = 0.0
                        for k in range(K2):
                            y = R[b, h, c, a]
                            q = mu[b, h, c, a]
                            q0v = 0.0
                            zx = 0.0
                            for j in range(M):
                                x = Xi[h, st, b, k, j]
                                q += A[b, h, c, a, j] * x
                                q0v += A0[b, h, c, a, j] * x
                                zx += Z[b, h, c, a, j] * x
                            y += sig * zx
                            if h < N - 1:
                                for kk in range(3):
                                    w = C[b, h, c, a, kk]
                                    if w != 0.0:
                                        y += w * V[min(max(c + kk - 1, 0), N - 1), k]
                            G = p * q - q0v / s0 - y / sig2
                            gmu += G
                            for j in range(M):
                                gA[j] += G * Xi[h, st, b, k, j]
                        mu[b, h, c, a] -= lr * gmu / K2 / p
                        for j in range(M):
                            A[b, h, c, a, j] -= lr * gA[j] / K2 / p
    return mu, A


def hyper_sgd_sweep_ref(n, R, C, Z, A0, s0, sig, lr, Xi, mu, A):
    """NumPy reference of :func:`hyper_sgd_sweep` (updates ``mu``, ``A`` in place)."""
    N = n.shape[1]
    steps = Xi.shape[1]
    idx = [np.clip(np.arange(N) + k - 1, 0, N - 1) for k in range(3)]
    for h in range(N - 1, -1, -1):
        p = 1.0 / s0 + n[:, h] / sig**2
        for st in range(steps):
            X = Xi[h, st]                                                   # (B, 2K, M)
            Y = R[:, h, :, :, None] + sig * np.einsum("bcam,bkm->bcak", Z[:, h], X)
            if h < N - 1:
                Vn = (mu[:, h + 1, :, :, None]
                      + np.einsum("bcam,bkm->bcak", A[:, h + 1], X)).max(axis=2)   # (B, N, 2K)
                for k in range(3):
                    Y += C[:, h, :, :, k, None] * Vn[:, idx[k], None, :]
            Q = mu[:, h, :, :, None] + np.einsum("bcam,bkm->bcak", A[:, h], X)
            Q0 = np.einsum("bcam,bkm->bcak", A0[:, h], X)
            G = p[..., None] * Q - Q0 / s0 - Y / sig**2
            mu[:, h] -= lr * G.mean(axis=-1) / p
            A[:, h] -= lr * (np.einsum("bcak,bkm->bcam", G, X) / X.shape[1]) / p[..., None]
    return mu, A
