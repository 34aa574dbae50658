r"""One Ensemble++ bandit round — sample, score, update — fused into one read of the factor.

The round of linear Ensemble++ (theory ``docs/theory/ensemble.md#update``; the
rank-one form of :class:`~seqproj.ensemble.LinearEnsemblePP`, DERIVED by
Sherman–Morrison) at round t, with :math:`A_{t-1}` the ``d × M`` factor:

.. math::

    \tilde\theta_t = \mu_{t-1} + A_{t-1}\zeta_t,\quad
    x_t = \arg\max_{x\in\mathcal X} x^\top\tilde\theta_t,\quad
    g = \Sigma_{t-1}x_t,\ c = \sigma^2 + x_t^\top g,\\
    \mu_t = \mu_{t-1} + g\,(y_t - x_t^\top\mu_{t-1})/c,\quad
    \Sigma_t = \Sigma_{t-1} - gg^\top/c,\quad
    A_t = A_{t-1} + (g/c)\,r_t^\top,\ r_t = \sigma z_t - A_{t-1}^\top x_t .

Written plainly (:class:`~seqproj.ensemble.LinearEnsemblePP`, the lock-step
simulator) a round streams over the factor **four** times: ``A ζ`` (read),
``Aᵀx`` (read), the rank-one update (read + write); and over Σ three times
(``Σx`` read, update read + write).

**Passes (DERIVED here).**  Two facts of the algebra cut this down:

1. ζ_{t+1} does not depend on the data (it is drawn from its own stream, like
   z_t), so the *next* sample's product :math:`A\zeta_{t+1}` can be formed in
   the same sweep that forms :math:`A^\top x_t`.
2. The factor is a sum of rank-one terms, :math:`A_t = A_0 + \sum_{s\le t}u_sr_s^\top`
   (:math:`u_s = g_s/c_s`), so updates can be **deferred**: keep
   :math:`A = \hat A + UV^\top` with the last ``j ≤ k`` terms in ``U`` (``d × k``)
   and ``V`` (``k × M``); then
   :math:`A^\top x = \hat A^\top x + V^\top(U^\top x)` and
   :math:`A\zeta = \hat A\zeta + U(V\zeta)`, and the pending terms are added to
   :math:`\hat A` (a rank-``k`` update) in the sweep of the round where ``j``
   reaches ``k``.

So each round reads :math:`\hat A` **once** (:math:`\hat A^\top x_t` and
:math:`\hat A\zeta_{t+1}` together) and writes it once every ``k`` rounds.  One
read per round is the minimum: :math:`A_{t-1}^\top x_t` depends on every entry
and ``x_t`` is only known after the round's sample has been scored.  Σ is kept
the same way with one deferred rank-one term: the sweep that forms
:math:`g_t = \Sigma_{t-1}x_t` first subtracts :math:`g_{t-1}g_{t-1}^\top/c_{t-1}`
(one read + one write of the upper triangle).  Bytes touched per round
(float64, :func:`bytes_per_round`):

.. math::

    8\,\big[\,dM\,(1 + 2/k) + k\,(d + M) + d(d+1) + Kd\,\big] + O(d + M + K)

(``Â`` read every round, and read and written by the rank-k update every k-th;
``U``, ``V`` read about twice at mean fill ``k/2``; Σ's upper triangle read and
written; the K arms read once to score).  The default ``k`` minimises the
first two terms, :math:`k = \lceil\sqrt{2dM/(d+M)}\,\rceil`
(:func:`default_deferral`; 19 at d = 200, M = 8d).  Against the plain round
(``8[4dM + 3d² + Kd]``) that is ≈ 3.3× fewer factor bytes at d = 200, M = 8d.
The rank-k update is BLAS ``dgemm`` (compute-efficient; the kernel returns to
the caller for it) when ``dM ≥`` :data:`BLAS_FLUSH_CELLS`, an in-kernel loop
otherwise (a Python round trip would cost more than the update).

:func:`epp_rounds` is the numba kernel (``fastmath`` reassociation only, so
the sums are vectorised; ``cache=True``, ``nogil``); :func:`epp_rounds_ref` is
the NumPy reference of the same deferred algebra; :func:`simulate_fused` runs
one bandit repetition with exactly the random streams of
:func:`~seqproj.ensemble.simulate_reference` — same algebra, different rounding
(≤ 1e-12 relative on the state), hence the same regret trajectory.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit
from scipy.linalg.blas import dgemm as _dgemm

from proofs_check.engine import check_instance, check_int

from ._limits import MAX_M, check_cells
from .agents import EnsemblePP
from .greedy import greedy_arm
from .index_families import sample_index, sample_perturbation
from .run_setup import BLOCK, check_finite_run, draw_finite_repetition, epp_start

#: The raw numba kernel :func:`epp_rounds` checks nothing and is not exported: call it through
#: :func:`run_epp_rounds` / :func:`simulate_fused` (its NumPy reference is :func:`epp_rounds_ref`).
__all__ = ["EppState", "bytes_per_round", "default_deferral", "epp_rounds_ref",
           "epp_flush", "simulate_fused"]

#: Reassociation (and FMA contraction) lets LLVM vectorise the dot products; no
#: finite-math flags, so NaN/inf still propagate to the checks.
_FM = {"reassoc", "contract", "nsz"}

#: From this many factor cells on, the rank-k update of Â is a BLAS ``dgemm`` by the caller.
BLAS_FLUSH_CELLS = 1 << 14


def default_deferral(d: int, M: int) -> int:
    r"""``k = ⌈√(2dM/(d+M))⌉`` (minimises ``2dM/k + k(d+M)``, the deferred factor traffic), in [1, 64]."""
    d = check_int("d", d, lo=1)
    M = check_int("M", M, lo=1, hi=MAX_M)
    return int(min(64, max(1, math.ceil(math.sqrt(2 * d * M / (d + M))))))


def bytes_per_round(d: int, M: int, K: int, k: int) -> int:
    """Bytes the fused round touches on average (the formula of the module docstring)."""
    d, M, K = (check_int(n, v, lo=1) for n, v in (("d", d), ("M", M), ("K", K)))
    k = check_int("k", k, lo=1, hi=1024)
    return int(8 * (d * M * (1 + 2 / k) + k * (d + M) + d * (d + 1) + K * d + 6 * d + 4 * M + K))


class EppState:
    """The deferred state of one Ensemble++ agent.

    ``mu`` (μ), ``S`` (Σ before its pending term; the kernel keeps the upper
    triangle), ``gp``/``cp`` (pending Σ term ``gp gpᵀ/cp``; ``cp = 0``: none),
    ``Ah`` (Â, ``d × M``, C order), ``U`` (``d × k``), ``V`` (``k × M``),
    ``j`` (pending factor terms), ``theta`` (the current sample θ̃_t).
    """

    def __init__(self, mu0, s0: float, A0, zeta1, k: int):
        d, M = A0.shape
        self.k = int(k)
        self.mu = np.array(mu0, dtype=float)
        self.S = s0 * np.eye(d)
        self.gp = np.zeros(d)
        self.cp = np.zeros(1)
        self.Ah = np.array(A0, dtype=float, order="C")          # a copy: the kernel writes it
        self.U = np.zeros((d, self.k))
        self.V = np.zeros((self.k, M))
        self.j = np.zeros(1, dtype=np.int64)
        self.theta = self.mu + self.Ah @ np.asarray(zeta1, dtype=float)

    def copy(self) -> "EppState":
        new = object.__new__(EppState)
        for name, val in vars(self).items():
            setattr(new, name, val.copy() if isinstance(val, np.ndarray) else val)
        return new

    def materialised(self):
        """``(μ, Σ, A)`` with every pending term applied (copies; the state is unchanged)."""
        up = np.triu(self.S)
        S = up + np.triu(up, 1).T
        if self.cp[0] > 0:
            S = S - np.outer(self.gp, self.gp) / self.cp[0]
        j = int(self.j[0])
        return self.mu.copy(), S, self.Ah + self.U[:, :j] @ self.V[:j]


@njit(cache=True, nogil=True, fastmath=_FM)
def epp_rounds(X, Xth, best, eta, sig, zeta_next, z, mu, S, gp, cp, Ah, U, V, j, theta,
               regret, choice, start, inline_flush):
    """Run fused rounds ``start … n−1`` (``n = eta.shape[0]``) in place (see the module docstring).

    ``X`` (K × d) arms, ``Xth = X θ*``, ``best = max Xth``, ``eta`` the standard
    normal reward noises, ``sig`` = σ, ``zeta_next[s]`` the index ζ of the
    round *after* round s, ``z[s]`` its perturbation.  When the ``k``-th
    pending term is appended after round s, the terms are added to Â here
    (``inline_flush``) or the kernel returns ``−(s + 1)`` for the caller to do
    it with a BLAS rank-k update and resume at ``start = s + 1``.  Returns 0 when
    done, or ``s + 1`` if Σ lost positive definiteness at round s (the state is
    then inconsistent).  Writes the instantaneous regret and the chosen arm.
    """
    K, d = X.shape
    M = Ah.shape[1]
    k = U.shape[1]
    n = eta.shape[0]
    g = np.empty(d)
    p = np.empty(M)
    q = np.empty(d)
    w = np.empty(k)
    h = np.empty(k)
    sig2 = sig * sig
    for s in range(start, n):
        # ---- score the current sample: one read of the arms
        a_best = greedy_arm(X, theta)
        x = X[a_best]
        choice[s] = a_best
        regret[s] = best - Xth[a_best]
        y = Xth[a_best] + sig * eta[s]
        # ---- Σ: apply the pending term and form g = Σ x (upper triangle, one read + write)
        coef = 1.0 / cp[0] if cp[0] > 0.0 else 0.0
        for i in range(d):
            g[i] = 0.0
        for i in range(d):
            gi = coef * gp[i]
            xi = x[i]
            sii = S[i, i] - gi * gp[i]
            if not sii > 0.0:
                return s + 1
            S[i, i] = sii
            acc = sii * xi
            for jj in range(i + 1, d):
                v = S[i, jj] - gi * gp[jj]
                S[i, jj] = v
                acc += v * x[jj]
                g[jj] += v * xi
            g[i] += acc
        qq = 0.0
        xm = 0.0
        for i in range(d):
            qq += x[i] * g[i]
            xm += x[i] * mu[i]
        if not qq > 0.0:
            return s + 1
        c = sig2 + qq
        e = (y - xm) / c
        for i in range(d):
            mu[i] += g[i] * e
            gp[i] = g[i]
        cp[0] = c
        # ---- factor: one read of Â for Âᵀx and Â ζ_{t+1}, plus the pending terms V(Uᵀx)
        jn = j[0]
        for m in range(M):
            p[m] = 0.0
        zn = zeta_next[s]
        for i in range(d):
            row = Ah[i]
            xi = x[i]
            acc = 0.0
            for m in range(M):
                a_im = row[m]
                p[m] += xi * a_im
                acc += a_im * zn[m]
            q[i] = acc
        for l in range(jn):
            w[l] = 0.0
        for i in range(d):
            xi = x[i]
            for l in range(jn):
                w[l] += U[i, l] * xi
        for l in range(jn):
            wl = w[l]
            vl = V[l]
            for m in range(M):
                p[m] += wl * vl[m]
        # r = σ z − A_{t−1}ᵀ x becomes the new pending term (u = g/c, v = r)
        zs = z[s]
        vrow = V[jn]
        for m in range(M):
            vrow[m] = sig * zs[m] - p[m]
        for i in range(d):
            U[i, jn] = g[i] / c
        jn += 1
        j[0] = jn
        # ---- next sample θ̃_{t+1} = μ_t + Â ζ_{t+1} + U (V ζ_{t+1})
        for l in range(jn):
            acc = 0.0
            vl = V[l]
            for m in range(M):
                acc += vl[m] * zn[m]
            h[l] = acc
        for i in range(d):
            acc = q[i]
            for l in range(jn):
                acc += U[i, l] * h[l]
            theta[i] = mu[i] + acc
        # ---- k pending terms: add them to Â (here, or by the caller's BLAS rank-k update)
        if jn == k:
            if not inline_flush:
                return -(s + 1)
            for i in range(d):
                row = Ah[i]
                for l in range(k):
                    ul = U[i, l]
                    vl = V[l]
                    for m in range(M):
                        row[m] += ul * vl[m]
            j[0] = 0
    return 0


@njit(cache=True, nogil=True)
def _flush_kernel(S, gp, cp, Ah, U, V, j):
    d = S.shape[0]
    if cp[0] > 0.0:
        coef = 1.0 / cp[0]
        for i in range(d):
            gi = coef * gp[i]
            for jj in range(i, d):
                S[i, jj] -= gi * gp[jj]
        cp[0] = 0.0
    for i in range(Ah.shape[0]):
        for l in range(j[0]):
            ul = U[i, l]
            for m in range(Ah.shape[1]):
                Ah[i, m] += ul * V[l, m]
    j[0] = 0


def epp_flush(state: EppState) -> None:
    """Apply every pending term to ``state`` in place (Σ's upper triangle and Â)."""
    check_instance("state", state, EppState)
    _flush_kernel(state.S, state.gp, state.cp, state.Ah, state.U, state.V, state.j)


def epp_rounds_ref(X, Xth, best, eta, sig, zeta_next, z, state: EppState):
    """NumPy reference of :func:`epp_rounds`: the same deferred algebra, whole-array operations
    (Σ kept full and symmetric).  Updates ``state`` in place; returns ``(regret, choice)``."""
    n = len(eta)
    regret = np.empty(n)
    choice = np.empty(n, dtype=np.int64)
    k = state.k
    S = np.triu(state.S) + np.triu(state.S, 1).T
    for s in range(n):
        a = int(np.argmax(X @ state.theta))
        x = X[a]
        choice[s] = a
        regret[s] = best - Xth[a]
        y = Xth[a] + sig * eta[s]
        if state.cp[0] > 0:
            S -= np.outer(state.gp, state.gp) / state.cp[0]
        if not np.all(np.diag(S) > 0):
            raise ValueError(f"Σ lost positive definiteness at round {s}")
        g = S @ x
        c = sig * sig + float(x @ g)
        state.mu += g * ((y - float(x @ state.mu)) / c)
        state.gp[:] = g
        state.cp[0] = c
        j = int(state.j[0])
        p = state.Ah.T @ x + state.V[:j].T @ (state.U[:, :j].T @ x)
        q = state.Ah @ zeta_next[s]
        state.V[j] = sig * z[s] - p
        state.U[:, j] = g / c
        j += 1
        state.j[0] = j
        state.theta[:] = state.mu + q + state.U[:, :j] @ (state.V[:j] @ zeta_next[s])
        if j == k:
            state.Ah += state.U @ state.V
            state.j[0] = 0
    state.S[:] = S
    return regret, choice


def run_epp_rounds(X, Xth, best, eta, sig, zeta_next, z, state: EppState):
    """:func:`epp_rounds` on ``state`` (the BLAS rank-k update between kernel calls for a large
    factor); returns ``(regret, choice)``.  A loss of positive definiteness is a ``RuntimeError``
    naming the round.  Call it under single-threaded BLAS for bit-reproducible results."""
    n = len(eta)
    regret = np.empty(n)
    choice = np.empty(n, dtype=np.int64)
    inline = state.Ah.size < BLAS_FLUSH_CELLS
    s = 0
    while True:
        st = epp_rounds(X, Xth, best, eta, sig, zeta_next, z, state.mu, state.S, state.gp, state.cp,
                        state.Ah, state.U, state.V, state.j, state.theta, regret, choice, s, inline)
        if st > 0:
            raise RuntimeError(f"Σ_t lost positive definiteness at round {st} of this call "
                               "(xᵀΣx ≤ 0 or a diagonal entry ≤ 0); refusing to continue")
        if st == 0:
            return regret, choice
        # Âᵀ += Vᵀ Uᵀ (the C-ordered arrays are their transposes in Fortran order)
        _dgemm(1.0, state.V.T, state.U.T, beta=1.0, c=state.Ah.T, overwrite_c=1)
        state.j[0] = 0
        s = -st


def simulate_fused(env, agent, T, rng, *, k: int | None = None, reference: bool = False,
                   return_state: bool = False):
    """One repetition of one Ensemble++ agent on a finite-arm environment, fused rounds.

    Same random streams as :func:`~seqproj.ensemble.simulate_reference` (and the
    lock-step simulator with this single agent): θ*, arms and noise, the start
    B, ζ and z drawn in blocks of :data:`~.run_setup.BLOCK` rounds.  Returns
    the ``(T,)`` instantaneous regrets (and the final :class:`EppState`, flushed,
    with ``return_state``).  ``k``: deferral depth (default :func:`default_deferral`);
    ``reference=True`` runs :func:`epp_rounds_ref` instead of the kernel.
    """
    check_instance("agent", agent, EnsemblePP)
    env, agent, T, rng = check_finite_run(env, agent, T, rng, caller="simulate_fused")
    if k is not None:
        k = check_int("k", k, lo=1, hi=1024)
    X, Xth, best, eta, s0, sig, ss = draw_finite_repetition(env, agent, T, rng)
    regret, state = agent_regret(X, Xth, best, eta, agent, s0, sig, ss, k=k, reference=reference)
    if return_state:
        if reference:
            state.S[:] = state.materialised()[1]
            state.Ah[:] = state.materialised()[2]
            state.cp[0] = 0.0
            state.j[0] = 0
        else:
            epp_flush(state)
        return regret, state
    return regret


def agent_regret(X, Xth, best, eta, agent, s0, sig, ss, *, k=None, reference=False,
                 index_sampler=None, perturbation_sampler=None):
    """The ``(T,)`` instantaneous regrets of one Ensemble++ agent on the fixed arms ``X``
    (``Xth = Xθ*``, ``best = max Xth``, ``eta`` the T standard normal noises), the agent's random
    streams spawned from the SeedSequence ``ss`` exactly as the lock-step simulator does (start B,
    ζ, z; indices and perturbations drawn in blocks of ``BLOCK`` rounds); and the final state.
    Used by :func:`simulate_fused` and by the lock-step simulator for finite-arm environments,
    which passes its own ``sample_index``/``sample_perturbation`` (``index_sampler``,
    ``perturbation_sampler``; default those of :mod:`.index_families`)."""
    draw_index = index_sampler or sample_index
    draw_perturbation = perturbation_sampler or sample_perturbation

    T = eta.shape[0]
    d, M = X.shape[1], agent.M
    k = default_deferral(d, M) if k is None else k
    check_cells("the deferred factor terms", k, d + M)
    A0, rz, rp = epp_start(agent, d, s0, ss)

    def draw(n_b):
        return (draw_index(agent.index, M, rz, size=n_b, s=agent.s),
                draw_perturbation(agent.perturbation, M, rp, size=n_b, s=agent.s))

    zeta_b, z_b = draw(min(BLOCK, T))
    state = EppState(np.zeros(d), s0, A0, zeta_b[0], k)
    regret = np.empty(T)
    for t0 in range(0, T, BLOCK):
        n_b = min(BLOCK, T - t0)
        if t0 + n_b < T:
            nxt = draw(min(BLOCK, T - t0 - n_b))
            first = nxt[0][0]
        else:
            nxt, first = None, np.zeros(M)
        zeta_next = np.ascontiguousarray(np.vstack([zeta_b[1:n_b], first[None, :]]))
        args = (X, Xth, best, eta[t0:t0 + n_b], sig, zeta_next, np.ascontiguousarray(z_b[:n_b]), state)
        regret[t0:t0 + n_b] = (epp_rounds_ref(*args) if reference else run_epp_rounds(*args))[0]
        if nxt is not None:
            zeta_b, z_b = nxt
    return regret, state
