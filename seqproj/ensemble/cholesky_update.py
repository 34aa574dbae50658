r"""Rank-one updates of a Cholesky factor (exact Thompson sampling in O(d²) per round).

Exact TS keeps :math:`L_t` with :math:`L_tL_t^\top = \Sigma_t^{-1}` (the
precision): an observation adds :math:`x_tx_t^\top/\sigma^2`, a rank-one update
of :math:`L` (:func:`chol_rank1_update`, Givens-style, O(d²)); a posterior
sample is :math:`\mu_t + L_t^{-\top}g` (:func:`solve_upper_t`, back
substitution).  The public functions are **checked wrappers** (dtype, shape,
writeability, finiteness, triangularity and a finite result are verified; a
refusal is a ``ValueError``/``TypeError`` naming the argument) around the raw
numba kernels :func:`chol_rank1_update_kernel` and :func:`solve_upper_t_kernel`,
which check nothing (an out-of-range shape reads or writes out of bounds) and are
kept out of ``__all__`` for the callers that have validated once, e.g. the
lock-step simulator's round loop.  Each kernel has a NumPy reference beside it
(:func:`chol_rank1_update_ref`, :func:`solve_upper_t_ref`), tested against each
other and against ``numpy.linalg.cholesky`` / ``scipy.linalg.solve_triangular``.

:func:`ts_rounds` is whole exact-TS bandit rounds in one kernel, built for
speed the way :mod:`.fused_round` builds Ensemble++ (the two are compared at
equal regret in ``bench/ensemble_step.py``): the factor is kept in **Fortran**
order (columns contiguous), the Givens sweep over column k also performs
step k of the forward substitution :math:`w = L'^{-1}b'`
(:math:`b = \Sigma_t^{-1}\mu_t = \sum_s x_sy_s/\sigma^2`), so a round is two
passes over the lower triangle — the back substitution
:math:`\tilde\theta = L^{-\top}(w + g)` (read) and the fused update (read +
write): :math:`8\,[\tfrac32 d(d+1) + Kd]` bytes per round.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from proofs_check.engine import check_finite_array, check_instance

from ._limits import MAX_D
from .agents import ExactTS
from .greedy import greedy_arm
from .run_setup import check_finite_run, draw_finite_repetition

__all__ = ["chol_rank1_update", "chol_rank1_update_ref", "solve_upper_t", "solve_upper_t_ref"]

_FM = {"reassoc", "contract", "nsz"}   # vectorised sums; no finite-math flags


def _check_factor(name: str, L, n: int, vec: str) -> np.ndarray:
    """``L`` as a finite float64 ``(n, n)`` lower-triangular array with a positive diagonal
    (``n`` the length of the vector argument ``vec``)."""
    if L.shape != (n, n):
        raise ValueError(f"{name} must have shape ({n}, {n}) to match {vec} of length {n}, got {L.shape}")
    if n > MAX_D:
        raise ValueError(f"{name} must be at most {MAX_D} × {MAX_D} (the dimension d), got {L.shape}")
    if not np.all(np.isfinite(L)):
        bad = np.argwhere(~np.isfinite(L))[0]
        raise ValueError(f"{name} contains NaN or inf (first at index {tuple(int(i) for i in bad)})")
    if np.any(np.triu(L, 1) != 0.0):
        i, j = (int(v) for v in np.argwhere(np.triu(L, 1) != 0.0)[0])
        raise ValueError(f"{name} must be lower triangular (a Cholesky factor), "
                         f"got {name}[{i}, {j}] = {float(L[i, j])!r}")
    diag = np.diag(L)
    if not np.all(diag > 0.0):
        k = int(np.argmin(diag > 0.0))
        raise ValueError(f"{name} must have a positive diagonal (a Cholesky factor), got {name}[{k}, {k}] = "
                         f"{float(diag[k])!r}")
    return L


def chol_rank1_update(L, x) -> None:
    """In place: the lower Cholesky factor ``L`` becomes the Cholesky factor of ``L Lᵀ + x xᵀ``.

    Givens-style rank-one update, O(d²) (Golub & Van Loan, *Matrix Computations*, 4th ed.,
    §6.5.4): for ``k = 1..d``, ``r = hypot(L_kk, w_k)``, ``c = r/L_kk``, ``s = w_k/L_kk``,
    ``L_kk ← r``, ``L_ik ← (L_ik + s w_i)/c``, ``w_i ← c w_i − s L_ik`` (``i > k``).

    Checked wrapper of :func:`chol_rank1_update_kernel`: ``L`` must be a writeable
    native-float64 ndarray (it is updated in place; any memory layout), square,
    finite, lower triangular with a positive diagonal; ``x`` a finite real vector of
    length ``L.shape[0]``.  An update whose result overflows float64 is refused and
    ``L`` is left unchanged.  Refusals are ``TypeError``/``ValueError`` naming ``L``
    or ``x``.  NumPy reference: :func:`chol_rank1_update_ref`.
    """
    if not isinstance(L, np.ndarray):
        raise TypeError(f"L must be a numpy float64 array (it is updated in place), got {type(L).__name__}")
    if L.dtype != np.float64:
        raise TypeError(f"L must be a native float64 array (it is updated in place), got dtype {L.dtype}")
    if not L.flags.writeable:
        raise ValueError("L must be writeable (it is updated in place), got a read-only array")
    if L.ndim != 2:
        raise ValueError(f"L must have 2 dimensions, got shape {L.shape}")
    w = np.ascontiguousarray(check_finite_array("x", x, ndim=1))
    _check_factor("L", L, w.size, "x")
    before = L.copy()
    with np.errstate(all="ignore"):
        chol_rank1_update_kernel(L, w)
    if not np.all(np.isfinite(L)):
        L[...] = before
        raise ValueError("L and x are too large: the updated factor overflows float64 (L left unchanged)")


@njit(cache=True, nogil=True)
def chol_rank1_update_kernel(L, x):
    """Raw numba kernel of :func:`chol_rank1_update` (in place, O(d²)); checks NOTHING.

    ``L`` must be a float64 ``(n, n)`` lower Cholesky factor and ``x`` a float64 vector
    of length ``n``: a longer ``x`` writes out of bounds, an integer ``L`` is updated in a
    temporary copy and left unchanged.  Call :func:`chol_rank1_update` unless the
    arguments are validated once outside a hot loop."""
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
    w = np.array(check_finite_array("x", x, ndim=1), dtype=float)
    L = _check_factor("L", np.array(check_finite_array("L", L, ndim=2), dtype=float), w.size, "x")
    n = w.size
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


def solve_upper_t(L, g) -> np.ndarray:
    """``u`` solving ``Lᵀ u = g`` for a lower-triangular ``L`` (back substitution, O(d²)).

    ``u_i = (g_i − Σ_{j>i} L_ji u_j) / L_ii`` for ``i = d..1`` (Golub & Van Loan, *Matrix
    Computations*, 4th ed., §3.1.2).  Checked wrapper of :func:`solve_upper_t_kernel`:
    ``L`` must be a finite real ``(d, d)`` lower-triangular array with a positive
    diagonal (a Cholesky factor; any dtype, layout or byte order — it is read as
    float64), ``g`` a finite real vector of length ``d``; a solution that overflows
    float64 is refused.  Refusals are ``TypeError``/``ValueError`` naming ``L`` or ``g``.
    NumPy reference: :func:`solve_upper_t_ref`.
    """
    g = np.ascontiguousarray(check_finite_array("g", g, ndim=1))
    L = np.ascontiguousarray(check_finite_array("L", L, ndim=2))
    _check_factor("L", L, g.size, "g")
    with np.errstate(all="ignore"):
        u = solve_upper_t_kernel(L, g)
    if not np.all(np.isfinite(u)):
        raise ValueError("L and g are too badly scaled: the solution of Lᵀu = g overflows float64")
    return u


def solve_upper_t_ref(L, g) -> np.ndarray:
    """NumPy reference of :func:`solve_upper_t` (same checks, row-vectorised back substitution)."""
    g = check_finite_array("g", g, ndim=1)
    L = _check_factor("L", check_finite_array("L", L, ndim=2), g.size, "g")
    u = np.zeros(g.size)
    with np.errstate(all="ignore"):
        for i in range(g.size - 1, -1, -1):
            u[i] = (g[i] - L[i + 1:, i] @ u[i + 1:]) / L[i, i]
    if not np.all(np.isfinite(u)):
        raise ValueError("L and g are too badly scaled: the solution of Lᵀu = g overflows float64")
    return u


@njit(cache=True, nogil=True)
def solve_upper_t_kernel(L, g):
    """Raw numba kernel of :func:`solve_upper_t`; checks NOTHING (a ``g`` longer than
    ``L`` reads out of bounds; a zero diagonal divides by zero).  Call
    :func:`solve_upper_t` unless the arguments are validated once outside a hot loop."""
    n = g.shape[0]
    u = np.empty(n)
    for i in range(n - 1, -1, -1):
        acc = g[i]
        for j in range(i + 1, n):
            acc -= L[j, i] * u[j]
        u[i] = acc / L[i, i]
    return u


@njit(cache=True, nogil=True, fastmath=_FM)
def ts_rounds(X, Xth, best, eta, sig, G, L, w, b, regret, choice):
    r"""Exact Thompson-sampling rounds ``0 … n−1`` (``n = eta.shape[0]``) in place.

    ``L``: lower Cholesky factor of the precision :math:`\Sigma_t^{-1}`, Fortran
    order; ``b`` = :math:`\sum_s x_sy_s/\sigma^2`; ``w`` = :math:`L^{-1}b`.
    Round s: :math:`\tilde\theta = L^{-\top}(w + G_s)` (so
    :math:`\tilde\theta\sim N(\mu_t, \Sigma_t)`, the sample of the lock-step
    simulator with the same ``G``), play the best arm of ``X`` under
    :math:`\tilde\theta`, observe :math:`y = x^\top\theta^* + \sigma\eta_s`, then
    :math:`LL^\top \leftarrow LL^\top + xx^\top/\sigma^2` (Givens, as
    :func:`chol_rank1_update`) fused with the forward substitution for the new
    ``w``.  Writes the instantaneous regret and the chosen arm.
    """
    K, d = X.shape
    n = eta.shape[0]
    th = np.empty(d)
    v = np.empty(d)
    bb = np.empty(d)
    inv_sig = 1.0 / sig
    for s in range(n):
        # back substitution Lᵀ θ = w + g (column i of L is contiguous)
        for i in range(d - 1, -1, -1):
            acc = w[i] + G[s, i]
            for jj in range(i + 1, d):
                acc -= L[jj, i] * th[jj]
            th[i] = acc / L[i, i]
        a_best = greedy_arm(X, th)
        choice[s] = a_best
        regret[s] = best - Xth[a_best]
        y = Xth[a_best] + sig * eta[s]
        coef = y * inv_sig * inv_sig
        for i in range(d):
            xi = X[a_best, i]
            v[i] = xi * inv_sig
            b[i] += xi * coef
            bb[i] = b[i]
        # Givens sweep, column k, fused with step k of the forward substitution L' w = b'
        for k in range(d):
            lkk = L[k, k]
            r = math.sqrt(lkk * lkk + v[k] * v[k])
            c = r / lkk
            sn = v[k] / lkk
            ic = 1.0 / c
            L[k, k] = r
            wk = bb[k] / r
            w[k] = wk
            for i in range(k + 1, d):
                lik = (L[i, k] + sn * v[i]) * ic
                L[i, k] = lik
                v[i] = c * v[i] - sn * lik
                bb[i] -= wk * lik
    return 0


def simulate_ts_fused(env, agent, T, rng):
    """One repetition of exact TS through :func:`ts_rounds` on a finite-arm environment,
    with the random streams of :func:`~seqproj.ensemble.simulate_repetition` (same θ*,
    arms, noise and Gaussian draws); returns the ``(T,)`` instantaneous regrets."""
    check_instance("agent", agent, ExactTS)
    env, agent, T, rng = check_finite_run(env, agent, T, rng, caller="simulate_ts_fused")
    X, Xth, best, eta, s0, sig, ss = draw_finite_repetition(env, agent, T, rng)
    return ts_agent_regret(X, Xth, best, eta, s0, sig, ss)


def ts_agent_regret(X, Xth, best, eta, s0, sig, ss):
    """The ``(T,)`` instantaneous regrets of exact TS (prior ``N(0, s0 I)``, noise σ = ``sig``) on
    the fixed arms ``X`` through :func:`ts_rounds`, its Gaussian draws from the SeedSequence ``ss``
    as in the lock-step simulator (``T × d`` standard normals)."""
    T = eta.shape[0]
    d = X.shape[1]
    G = np.random.default_rng(ss).standard_normal((T, d))
    L = np.asfortranarray(np.eye(d) / math.sqrt(s0))
    regret = np.empty(T)
    choice = np.empty(T, dtype=np.int64)
    ts_rounds(X, Xth, float(best), eta, float(sig), G, L, np.zeros(d), np.zeros(d), regret, choice)
    return regret
