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

Both paths of a simulator are separate numba functions built from the same inlined pieces
(:func:`full_column_step`; or :func:`reduced_update` after the draws, then
:func:`seqproj.bookkeeping.band_deviation`) and draw the same variates of the same
sub-streams, so the first exit time — hence every failure count — is bit-identical between
them; the exit path just stops drawing after it.

The two reduced kernels are **lane-parallel**: :data:`LANES` trials advance a step together,
so the branch-free first attempts of the counter-based samplers
(:func:`seqproj.rng.normal_first_attempt`, :func:`~seqproj.rng.chisq_first_attempt`) and the
recursion compile to SIMD instructions, and only the ≈ 3 % rejected attempts are redrawn one at
a time (:func:`reduced_draws_lanes`).  They are compiled with ``error_model="numpy"`` — a
division that Python semantics would check for zero blocks vectorisation; no divisor here can
be zero (``V_t ≥ x_0² > 0``, ``g_1² + q > 0``, ``M ≥ 3``).  Order of trials does not matter:
each trial's variates are a function of its key only.

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
                          book_step, book_step_lanes, inner_band)
from .columns import columns_from_normals, fill_column
from .rng import adversary_uniform, chisq_first_attempt, counter_chisq, counter_normal, normal_first_attempt

#: The numba kernels (full_kernel, reduced_kernel, *_exit_kernel, full_column_step, reduced_update,
#: reduced_draws_lanes) check nothing and are called only by the validated drivers
#: (:mod:`seqproj.simulate`, :mod:`seqproj.reduced`, :mod:`seqproj.worst_case_replay`): internal,
#: out of ``__all__`` (issue 26).  Their NumPy references ``*_numpy`` stay public.
__all__ = ["LANES", "full_block_numpy", "reduced_block_numpy", "full_exit_numpy", "reduced_exit_numpy"]


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

#: trials advanced together by the reduced kernels (SIMD width × many: the per-pass overhead then
#: vanishes; 128 measured fastest of 16–256, python -m bench "reduced*")
LANES = 128


@njit(inline="always", nogil=True)
def reduced_update(s2, x, a, b, fam, fM, sqM):
    """The reduced recursion's arithmetic: from ``‖S_{t−1}‖² = s2``, coefficient ``x``, ``g_1 = a``
    and ``q = b ~ χ²_{M−1}``, return ``(⟨S_{t−1}, z_t⟩, ‖S_t‖²)`` (``fam`` 0 sphere, 1 Gaussian;
    the formulas of the module docstring; ``‖S_t‖²`` clipped at 0 against rounding)."""
    r = math.sqrt(s2)
    if fam == 0:
        dot = r * (a / math.sqrt(a * a + b))
        s2n = s2 + 2.0 * x * dot + x * x
    else:
        dot = r * (a / sqM)
        s2n = s2 + 2.0 * x * dot + x * x * ((a * a + b) / fM)
    if s2n < 0.0:
        s2n = 0.0
    return dot, s2n


@njit(inline="always", nogil=True)
def reduced_draws_lanes(nb, keys, t, d, c, a, b, ok_a, ok_b):
    """Step ``t``'s ``g_1`` (normal sub-stream ``2(t−1)``) and ``q ~ χ²_{M−1}`` (chi-square
    sub-stream ``2(t−1)+1``) of ``nb`` lanes (lane ``j``: key ``keys[j]``, step ``t[j]``) into
    ``a``, ``b`` — bit for bit :func:`~seqproj.rng.counter_normal` and
    :func:`~seqproj.rng.counter_chisq` of those sub-streams.  The branch-free first attempts of
    all lanes run as SIMD, the rejected ≈ 3 % are redrawn by the scalar samplers."""
    for j in range(nb):
        st = np.uint64(2 * (t[j] - 1))
        a[j], ok_a[j] = normal_first_attempt(keys[j], st)                        # g_1
        b[j], ok_b[j] = chisq_first_attempt(keys[j], st + np.uint64(1), d, c)    # q ~ chi2_{M-1}
    for j in range(nb):
        if not ok_a[j]:
            a[j] = counter_normal(keys[j], np.uint64(2 * (t[j] - 1)), np.uint64(0))[0]
        if not ok_b[j]:
            b[j] = counter_chisq(keys[j], np.uint64(2 * (t[j] - 1) + 1), d, c)


@njit(cache=True, nogil=True, error_model="numpy")
def reduced_kernel(keys, T, M, needs_u, fam, d, c, x0, eps, sqcx, code, prm, grid, rho, mix_l, K,
                   any_ld, x0sq, exit_t, final, rgrid, mix, anyx, maxdev):
    """Reduced simulation of ``len(keys)`` trials (``fam`` 0 sphere, 1 Gaussian; ``(d, c)``
    the Marsaglia–Tsang constants of ``χ²_{M−1}``), every path statistic over all ``T`` steps.

    Lane-parallel: :data:`LANES` trials run in step together; per step the draws
    (:func:`reduced_draws_lanes`), ``x_t`` (scalar, :func:`~seqproj.adversaries.choose_x`), the
    recursion (:func:`reduced_update`, SIMD) and the books (:func:`book_step_lanes`).  The same
    variates and operations as one trial at a time (:func:`reduced_block_numpy` agrees bit for
    bit)."""
    fM = float(M)
    sqM = math.sqrt(fM)
    consts = book_constants(T, eps, M, rho, mix_l, K, any_ld, x0sq)
    n = keys.shape[0]
    B = LANES
    lt = np.empty(B, dtype=np.int64)
    a = np.empty(B)
    b = np.empty(B)
    x = np.empty(B)
    dot = np.empty(B)
    s2n = np.empty(B)
    ok_a = np.empty(B, dtype=np.bool_)
    ok_b = np.empty(B, dtype=np.bool_)
    s2 = np.empty(B)
    V = np.empty(B)
    D = np.empty(B)
    vm = np.empty(B)
    et = np.empty(B, dtype=np.int64)
    md = np.empty(B)
    mx = np.empty(B, dtype=np.bool_)
    ax = np.empty(B, dtype=np.bool_)
    dev = np.empty(B)
    for i0 in range(0, n, B):
        nb = min(B, n - i0)
        lk = keys[i0:i0 + nb]
        gi = 0
        for j in range(nb):
            s2[j], V[j], D[j], vm[j], et[j], md[j], mx[j], ax[j], gi = book_start(consts, x0, grid, rgrid,
                                                                                 i0 + j)
        for t in range(1, T + 1):
            lt[:] = t
            reduced_draws_lanes(nb, lk, lt, d, c, a, b, ok_a, ok_b)
            if code != 0:
                for j in range(nb):
                    u = adversary_uniform(lk[j], t) if needs_u else 0.0
                    x[j] = choose_x(code, prm, s2[j], V[j], u, eps, fM, sqcx, et[j] <= t - 1, 0.0)
            else:                                                # code 0: a constant
                x[:] = choose_x(0, prm, x0sq, x0sq, 0.0, eps, fM, sqcx, False, 0.0)
            if fam == 0:                                         # literal fam: see reduced_exit_kernel
                for j in range(nb):
                    dot[j], s2n[j] = reduced_update(s2[j], x[j], a[j], b[j], 0, fM, sqM)
            else:
                for j in range(nb):
                    dot[j], s2n[j] = reduced_update(s2[j], x[j], a[j], b[j], 1, fM, sqM)
            book_step_lanes(nb, t, x, dot, s2n, consts, s2, V, D, vm, et, md, mx, ax, dev)
            while gi < grid.shape[0] and grid[gi] == t:
                for j in range(nb):
                    rgrid[i0 + j, gi] = s2[j] / V[j]
                gi += 1
        for j in range(nb):
            exit_t[i0 + j] = et[j]
            final[i0 + j] = s2[j] / V[j]
            mix[i0 + j] = mx[j]
            anyx[i0 + j] = ax[j]
            maxdev[i0 + j] = md[j]


@njit(cache=True, nogil=True, error_model="numpy")
def reduced_exit_kernel(keys, T, M, needs_u, fam, d, c, x0, eps, sqcx, code, prm, exit_t):
    """First exit time of ``len(keys)`` reduced trials (``T + 1``: never); a trial stops at its
    first exit.  Same variates and operations as :func:`reduced_kernel` up to that step, so
    the exit times agree bit for bit.

    Lane-parallel: :data:`LANES` trials advance one step at a time together, each at its own
    ``t``; a lane whose trial exits (or reaches ``T``) takes the next trial at once, and once
    none is left the remaining trials are kept packed in the first lanes.  A step is
    four passes over the lanes — (1) both draws (:func:`reduced_draws_lanes`, SIMD first
    attempts), (2) ``x_t`` (scalar; a constant needs no pass), (3) :func:`reduced_update` and the
    division-free band test (SIMD), (4) the exact band test where needed, exits and refills.
    ≈ 2× the one-trial-at-a-time loop on one core (``python -m bench "reduced first-exit"``)."""
    fM = float(M)
    sqM = math.sqrt(fM)
    eps_in = inner_band(eps)
    x0sq = x0 * x0
    n = keys.shape[0]
    B = LANES
    lk = np.zeros(B, dtype=np.uint64)          # the lane's trial key
    lt = np.ones(B, dtype=np.int64)            # the step it runs next
    li = np.zeros(B, dtype=np.int64)           # its trial index
    s2 = np.full(B, x0sq)
    V = np.full(B, x0sq)
    a = np.empty(B)
    b = np.empty(B)
    x = np.empty(B)
    x[:] = choose_x(0, prm, x0sq, x0sq, 0.0, eps, fM, sqcx, False, 0.0)   # code 0: constant
    ok_a = np.empty(B, dtype=np.bool_)
    ok_b = np.empty(B, dtype=np.bool_)
    near = np.empty(B, dtype=np.bool_)
    nxt = min(B, n)
    for j in range(nxt):
        lk[j] = keys[j]
        li[j] = j
    hi = nxt                                                    # lanes [0, hi) hold a trial
    while hi > 0:
        reduced_draws_lanes(hi, lk, lt, d, c, a, b, ok_a, ok_b)  # (1) draws, SIMD
        if code != 0:                                           # (2) x_t
            for j in range(hi):
                u = adversary_uniform(lk[j], lt[j]) if needs_u else 0.0
                x[j] = choose_x(code, prm, s2[j], V[j], u, eps, fM, sqcx, False, 0.0)
        # (3) the recursion, SIMD; one loop per family with a literal `fam` (a branch-free body
        # each: measured 5–15 % faster than one loop that passes the variable)
        if fam == 0:
            for j in range(hi):
                xj = x[j]
                s2n = reduced_update(s2[j], xj, a[j], b[j], 0, fM, sqM)[1]
                Vn = V[j] + xj * xj
                s2[j] = s2n
                V[j] = Vn
                near[j] = not (abs(s2n - Vn) <= eps_in * Vn)    # band_exit's fast test
        else:
            for j in range(hi):
                xj = x[j]
                s2n = reduced_update(s2[j], xj, a[j], b[j], 1, fM, sqM)[1]
                Vn = V[j] + xj * xj
                s2[j] = s2n
                V[j] = Vn
                near[j] = not (abs(s2n - Vn) <= eps_in * Vn)
        for j in range(hi - 1, -1, -1):                         # (4) exits, refills
            t = lt[j]
            if near[j] and band_deviation(s2[j], V[j]) > eps:
                exit_t[li[j]] = t
            elif t == T:
                exit_t[li[j]] = T + 1
            else:
                lt[j] = t + 1
                continue
            if nxt < n:                                         # the next trial takes the lane
                lk[j] = keys[nxt]
                li[j] = nxt
                lt[j] = 1
                s2[j] = x0sq
                V[j] = x0sq
                nxt += 1
            else:                                               # no trial left: the last lane
                hi -= 1                                         # (done this step) moves here
                lk[j] = lk[hi]
                li[j] = li[hi]
                lt[j] = lt[hi]
                s2[j] = s2[hi]
                V[j] = V[hi]


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
