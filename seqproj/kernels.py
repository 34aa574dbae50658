r"""The two simulation kernels (numba) and their NumPy references, step by step the same.

Per trial and step ``t``: the adversary picks ``x_t`` from the past
(:func:`seqproj.adversaries.choose_x`), *then* the step's randomness is drawn —
the order that makes the adversary predictable (theory ``#pitfalls``: an off-by-one
that lets ``x_t`` see ``z_t``) — and the shared bookkeeping
(:func:`seqproj.bookkeeping.book_step`) updates the path statistics.

* **Full kernel** (theory ``#protocol``): the column ``z_t ∈ R^M`` from ``M`` normals of
  sub-streams ``(t−1)M .. tM−1`` of the trial's key, ``⟨S_{t−1}, z_t⟩`` and
  ``‖S_t‖²`` by sequential sums; O(M) per step.
* **Reduced kernel** (theory ``#reduced``, DERIVED): for sphere and Gaussian columns only
  ``g_1 ~ N(0, 1)`` (the component of the column's normals along ``S_{t−1}``,
  normal sub-stream ``2(t−1)``) and ``q ~ χ²_{M−1}`` (the squared norm of the
  rest, chi-square sub-stream ``2(t−1)+1``); with ``r = ‖S_{t−1}‖``:

  - Gaussian ``z = g/√M``: ``⟨S_{t−1}, z⟩ = r g_1/√M``, ``‖S_t‖² = r² + 2x_t r g_1/√M + x_t²(g_1² + q)/M``;
  - sphere ``z = g/‖g‖``: ``⟨S_{t−1}, z⟩ = r g_1/√(g_1² + q)``, ``‖S_t‖² = r² + 2x_t⟨S_{t−1}, z⟩ + x_t²``;

  O(1) per step whatever M.

Two compiled paths per simulator (issue 13: compute what is asked, no branch in the hot loop
decides it):

* **path statistics** — :func:`full_kernel`, :func:`reduced_kernel`: every statistic of
  :class:`seqproj.protocol.PathStats` (exit time, final ratio, ratio grid, maximum deviation,
  mixture-boundary crossing, any-time exit) over all ``T`` steps;
* **first exit only** — :func:`full_exit_kernel`, :func:`reduced_exit_kernel`: the first exit
  time from the band ``[1−ε, 1+ε]`` (``T + 1`` if none), and a trial stops there.  This is
  all a time-uniform failure flag (``exit ≤ T``) needs.

Both paths of a simulator are separate numba functions built from the same inlined step
(:func:`full_column_step` or :func:`reduced_increment`, then
:func:`seqproj.bookkeeping.band_deviation`) and draw the same variates of the same
sub-streams, so the first exit time — hence every failure count — is bit-identical between
them; the exit path just stops drawing after it.

Each numba kernel has a NumPy reference beside it (:func:`full_block_numpy`,
:func:`reduced_block_numpy`) that takes the same variates from
:mod:`seqproj.rng` vectorised over a block of trials, does the same
floating-point operations in the same order (sums run sequentially, see
``np.cumsum``) and so agrees bit for bit.  The kernels are ``nogil`` and draw
their own numbers from the per-trial keys, so chunks run in parallel on threads.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .adversaries import choose_x, choose_x_np
from .bookkeeping import (PathBook, band_deviation, band_exit, book_constants, book_finish, book_start,
                          book_step, inner_band)
from .columns import columns_from_normals, fill_column
from .rng import adversary_uniform, counter_chisq, counter_normal

__all__ = ["full_kernel", "reduced_kernel", "full_exit_kernel", "reduced_exit_kernel",
           "full_column_step", "reduced_increment", "full_block_numpy", "reduced_block_numpy",
           "full_exit_numpy", "reduced_exit_numpy"]


# --------------------------------------------------------------------------
# full protocol, O(M) per step
# --------------------------------------------------------------------------

@njit(inline="always", nogil=True)
def full_column_step(key, t, M, fam, s, sqM, x, S, g, z):
    """Draw column ``z_t`` (normal sub-streams ``(t−1)M .. tM−1``; family code ``fam``), update
    ``S ← S + x z_t`` in place and return ``(⟨S_{t−1}, z_t⟩, ‖S_t‖²)`` by sequential sums
    (``g``, ``z``: work arrays of length ``M``).  Inlined into both full kernels."""
    base = (t - 1) * M
    dot = 0.0
    acc = 0.0
    if fam == 1:
        # Gaussian: one fused pass (same operations and order as the reference)
        for j in range(M):
            zj = counter_normal(key, np.uint64(base + j), np.uint64(0))[0] / sqM
            dot += S[j] * zj
            S[j] += x * zj
            acc += S[j] * S[j]
    elif fam == 0:
        nn = 0.0
        for j in range(M):
            gj = counter_normal(key, np.uint64(base + j), np.uint64(0))[0]
            g[j] = gj
            nn += gj * gj
        nrm = math.sqrt(nn)
        for j in range(M):
            zj = g[j] / nrm
            dot += S[j] * zj
            S[j] += x * zj
            acc += S[j] * S[j]
    else:
        for j in range(M):
            g[j] = counter_normal(key, np.uint64(base + j), np.uint64(0))[0]
        fill_column(g, fam, s, sqM, z)
        for j in range(M):
            dot += S[j] * z[j]
            S[j] += x * z[j]
            acc += S[j] * S[j]
    return dot, acc


@njit(cache=True, nogil=True)
def full_kernel(keys, T, M, needs_u, fam, s, x0, eps, sqcx, code, prm, grid, rho, mix_l, K, any_ld,
                x0sq, exit_t, final, rgrid, mix, anyx, maxdev):
    """Full simulation of ``len(keys)`` trials into the output arrays (family code ``fam``)."""
    sqM = math.sqrt(M)
    fM = float(M)
    consts = book_constants(T, eps, M, rho, mix_l, K, any_ld, x0sq)
    S = np.zeros(M)
    z = np.empty(M)
    g = np.empty(M)
    for i in range(keys.shape[0]):
        key = keys[i]
        for j in range(M):
            S[j] = 0.0
        S[0] = x0
        # the book lives in locals (a loop-carried tuple costs ~7 % in the O(M) loops below)
        s2, V, D, vm, et, md, mx, ax, gi = book_start(consts, x0, grid, rgrid, i)
        for t in range(1, T + 1):
            u = adversary_uniform(key, t) if needs_u else 0.0
            x = choose_x(code, prm, s2, V, u, eps, fM, sqcx, et <= t - 1, S[0])
            # column z_t is drawn only now, after x_t is fixed (predictability)
            dot, acc = full_column_step(key, t, M, fam, s, sqM, x, S, g, z)
            s2, V, D, vm, et, md, mx, ax, gi = book_step((s2, V, D, vm, et, md, mx, ax, gi), t, x, dot,
                                                         acc, consts, grid, rgrid, i)
        book_finish((s2, V, D, vm, et, md, mx, ax, gi), i, exit_t, final, mix, anyx, maxdev)


@njit(cache=True, nogil=True)
def full_exit_kernel(keys, T, M, needs_u, fam, s, x0, eps, sqcx, code, prm, exit_t):
    """First exit time of ``len(keys)`` full-protocol trials (``T + 1``: never); a trial stops
    at its first exit.  Same variates and operations as :func:`full_kernel` up to that step."""
    sqM = math.sqrt(M)
    fM = float(M)
    eps_in = inner_band(eps)
    S = np.zeros(M)
    z = np.empty(M)
    g = np.empty(M)
    for i in range(keys.shape[0]):
        key = keys[i]
        for j in range(M):
            S[j] = 0.0
        S[0] = x0
        s2 = x0 * x0
        V = x0 * x0
        et = T + 1
        for t in range(1, T + 1):
            u = adversary_uniform(key, t) if needs_u else 0.0
            x = choose_x(code, prm, s2, V, u, eps, fM, sqcx, False, S[0])
            dot, s2 = full_column_step(key, t, M, fam, s, sqM, x, S, g, z)
            V += x * x
            if band_exit(s2, V, eps, eps_in):
                et = t
                break
        exit_t[i] = et


def full_block_numpy(normals, u, setup, exact=True):
    """NumPy reference of :func:`full_kernel` for a block: ``normals`` ``(nb, T, M)``,
    adversary uniforms ``u`` ``(nb, T)``; ``exact=False`` uses pairwise sums (same law,
    not bit-identical).  Returns :meth:`PathBook.stats`."""
    nb, T, M = normals.shape
    fam, adv = setup.family, setup.adversary
    sqcx = math.sqrt(setup.cx)
    prm = adv.params_array()
    S = np.zeros((nb, M))
    S[:, 0] = setup.x0
    book = PathBook(nb, setup)

    def rowsum(a):
        return np.cumsum(a, axis=1)[:, -1] if exact else np.einsum("ij->i", a)

    for t in range(1, T + 1):
        x = choose_x_np(adv.code, prm, book.s2, book.V, u[:, t - 1], setup.eps, float(M), sqcx,
                        book.et <= t - 1, S[:, 0])
        g = normals[:, t - 1, :]
        if exact or fam.name != "sphere":
            z = columns_from_normals(g, fam)
        else:
            z = g / np.sqrt(np.einsum("ij,ij->i", g, g))[:, None]
        dot = rowsum(S * z)
        S += x[:, None] * z
        book.step(t, x, dot, rowsum(S * S))
    return book.stats()


# --------------------------------------------------------------------------
# exact reduced simulation, O(1) per step (sphere, Gaussian)
# --------------------------------------------------------------------------

@njit(inline="always", nogil=True)
def reduced_increment(key, t, s2, x, fam, d, c, fM, sqM):
    """Step ``t`` of the reduced recursion from ``‖S_{t−1}‖² = s2`` with coefficient ``x``: draws
    ``g_1`` (normal sub-stream ``2(t−1)``) and ``q ~ χ²_{M−1}`` (chi-square sub-stream
    ``2(t−1)+1``) and returns ``(⟨S_{t−1}, z_t⟩, ‖S_t‖²)``.  Inlined into both reduced kernels."""
    r = math.sqrt(s2)
    a = counter_normal(key, np.uint64(2 * (t - 1)), np.uint64(0))[0]       # g_1
    b = counter_chisq(key, np.uint64(2 * (t - 1) + 1), d, c)                # q ~ chi2_{M-1}
    if fam == 0:
        dot = r * (a / math.sqrt(a * a + b))
        s2n = s2 + 2.0 * x * dot + x * x
    else:
        dot = r * (a / sqM)
        s2n = s2 + 2.0 * x * dot + x * x * ((a * a + b) / fM)
    if s2n < 0.0:
        s2n = 0.0
    return dot, s2n


@njit(cache=True, nogil=True)
def reduced_kernel(keys, T, M, needs_u, fam, d, c, x0, eps, sqcx, code, prm, grid, rho, mix_l, K,
                   any_ld, x0sq, exit_t, final, rgrid, mix, anyx, maxdev):
    """Reduced simulation of ``len(keys)`` trials (``fam`` 0 sphere, 1 Gaussian; ``(d, c)``
    the Marsaglia–Tsang constants of ``χ²_{M−1}``)."""
    fM = float(M)
    sqM = math.sqrt(fM)
    consts = book_constants(T, eps, M, rho, mix_l, K, any_ld, x0sq)
    for i in range(keys.shape[0]):
        key = keys[i]
        s2, V, D, vm, et, md, mx, ax, gi = book_start(consts, x0, grid, rgrid, i)
        for t in range(1, T + 1):
            u = adversary_uniform(key, t) if needs_u else 0.0
            x = choose_x(code, prm, s2, V, u, eps, fM, sqcx, et <= t - 1, 0.0)
            dot, s2n = reduced_increment(key, t, s2, x, fam, d, c, fM, sqM)
            s2, V, D, vm, et, md, mx, ax, gi = book_step((s2, V, D, vm, et, md, mx, ax, gi), t, x, dot,
                                                         s2n, consts, grid, rgrid, i)
        book_finish((s2, V, D, vm, et, md, mx, ax, gi), i, exit_t, final, mix, anyx, maxdev)


@njit(cache=True, nogil=True)
def reduced_exit_kernel(keys, T, M, needs_u, fam, d, c, x0, eps, sqcx, code, prm, exit_t):
    """First exit time of ``len(keys)`` reduced trials (``T + 1``: never); a trial stops at its
    first exit.  Same variates and operations as :func:`reduced_kernel` up to that step."""
    fM = float(M)
    sqM = math.sqrt(fM)
    eps_in = inner_band(eps)
    for i in range(keys.shape[0]):
        key = keys[i]
        s2 = x0 * x0
        V = x0 * x0
        et = T + 1
        for t in range(1, T + 1):
            u = adversary_uniform(key, t) if needs_u else 0.0
            x = choose_x(code, prm, s2, V, u, eps, fM, sqcx, False, 0.0)
            dot, s2 = reduced_increment(key, t, s2, x, fam, d, c, fM, sqM)
            V += x * x
            if band_exit(s2, V, eps, eps_in):
                et = t
                break
        exit_t[i] = et


def reduced_block_numpy(g1, q, u, setup):
    """NumPy reference of :func:`reduced_kernel` for a block: ``g1``, ``q``, ``u`` of shape
    ``(nb, T)``.  Returns :meth:`PathBook.stats`."""
    nb, T = g1.shape
    fM = float(setup.M)
    sqM = math.sqrt(fM)
    adv = setup.adversary
    prm = adv.params_array()
    sqcx = math.sqrt(setup.cx)
    book = PathBook(nb, setup)
    zero = np.zeros(nb)
    for t in range(1, T + 1):
        s2 = book.s2
        x = choose_x_np(adv.code, prm, s2, book.V, u[:, t - 1], setup.eps, fM, sqcx,
                        book.et <= t - 1, zero)
        r = np.sqrt(s2)
        a = g1[:, t - 1]
        b = q[:, t - 1]
        if setup.family.name == "sphere":
            dot = r * (a / np.sqrt(a * a + b))
            s2n = s2 + 2.0 * x * dot + x * x
        else:
            dot = r * (a / sqM)
            s2n = s2 + 2.0 * x * dot + x * x * ((a * a + b) / fM)
        book.step(t, x, dot, np.maximum(s2n, 0.0))
    return book.stats()


# --------------------------------------------------------------------------
# NumPy references of the first-exit kernels
# --------------------------------------------------------------------------

def full_exit_numpy(normals, u, setup):
    """NumPy reference of :func:`full_exit_kernel` for a block (``normals`` ``(nb, T, M)``,
    ``u`` ``(nb, T)``): first exit times, bit-identical.  Vectorised over the block, it runs every
    step (a trial's exit time is fixed at its first exit; the later steps do not change it)."""
    nb, T, M = normals.shape
    adv = setup.adversary
    prm = adv.params_array()
    sqcx = math.sqrt(setup.cx)
    S = np.zeros((nb, M))
    S[:, 0] = setup.x0
    s2 = np.full(nb, setup.x0 * setup.x0)
    V = s2.copy()
    et = np.full(nb, T + 1, dtype=np.int64)
    never = np.zeros(nb, dtype=bool)
    for t in range(1, T + 1):
        x = choose_x_np(adv.code, prm, s2, V, u[:, t - 1], setup.eps, float(M), sqcx, never, S[:, 0])
        z = columns_from_normals(normals[:, t - 1, :], setup.family)
        S += x[:, None] * z
        s2 = np.cumsum(S * S, axis=1)[:, -1]
        V = V + x * x
        et = np.where((et == T + 1) & (band_deviation.py_func(s2, V) > setup.eps), t, et)
    return et


def reduced_exit_numpy(g1, q, u, setup):
    """NumPy reference of :func:`reduced_exit_kernel` for a block (``g1``, ``q``, ``u`` of shape
    ``(nb, T)``): first exit times, bit-identical (every step is run, as in
    :func:`full_exit_numpy`)."""
    nb, T = g1.shape
    fM = float(setup.M)
    sqM = math.sqrt(fM)
    adv = setup.adversary
    prm = adv.params_array()
    sqcx = math.sqrt(setup.cx)
    s2 = np.full(nb, setup.x0 * setup.x0)
    V = s2.copy()
    et = np.full(nb, T + 1, dtype=np.int64)
    never = np.zeros(nb, dtype=bool)
    zero = np.zeros(nb)
    sphere = setup.family.name == "sphere"
    for t in range(1, T + 1):
        x = choose_x_np(adv.code, prm, s2, V, u[:, t - 1], setup.eps, fM, sqcx, never, zero)
        r = np.sqrt(s2)
        a = g1[:, t - 1]
        b = q[:, t - 1]
        if sphere:
            dot = r * (a / np.sqrt(a * a + b))
            s2 = s2 + 2.0 * x * dot + x * x
        else:
            dot = r * (a / sqM)
            s2 = s2 + 2.0 * x * dot + x * x * ((a * a + b) / fM)
        s2 = np.maximum(s2, 0.0)
        V = V + x * x
        et = np.where((et == T + 1) & (band_deviation.py_func(s2, V) > setup.eps), t, et)
    return et
