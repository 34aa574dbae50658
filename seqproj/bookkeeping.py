r"""Per-step bookkeeping of a path: one numba step shared by both kernels, and its NumPy twin.

After ``x_t`` is chosen and the column ``z_t`` drawn, every simulator knows
``x_t``, ``⟨S_{t−1}, z_t⟩`` and ``‖S_t‖²``; from them it updates, in this order,

* ``V_t = V_{t−1} + x_t²``, ``D_t = D_{t−1} + x_t⟨S_{t−1}, z_t⟩``,
  ``v_t = v_{t−1} + 4x_t²‖S_{t−1}‖²/M`` (intrinsic time of ``2D_t``, theory ``#coverage`` step 2);
* the ratio ``‖S_t‖²/V_t``, its deviation ``|ratio − 1|``, the running maximum
  and the first exit time from ``[1−ε, 1+ε]``;
* whether ``(2D_t)² > (v_t + ρ)(log(1 + v_t/ρ) + 2 log(1/α))`` (the two-sided
  normal-mixture boundary, theory ``#mixture``);
* whether ``|ratio − 1| > ε_t(V_t)``, the any-time half-width solving
  ``M ε² = K (1+ε)(log(1/δ) + log(V_t/x_0²))`` (theory ``#anytime``);
* the ratio at the recording times ``grid``.

:func:`book_step` is that update for one trial in numba, inlined into both the
full kernel and the reduced kernel (:mod:`seqproj.kernels`) — so the two
kernels cannot drift apart; :class:`PathBook` is the same update vectorised
over the trials of a block for the NumPy references.  Both perform the same
floating-point operations in the same order, so they agree bit for bit.

The book of one trial is the tuple ``(‖S_t‖², V_t, D_t, v_t, exit time, max
deviation, mixture crossed, any-time band left, next grid index)`` — the
kernels keep it in nine locals and pass it packed (``book_step((s2, V, …), …)``),
since a tuple carried across the step loop costs about 7 % in the full kernel's
O(M) loops; the constants are ``(T, ε, M, ρ, 2 log(1/α), K, log(1/δ), x_0², ε_0)``
(:func:`book_constants`).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

#: The numba kernels of this module (band_deviation, band_exit, inner_band, anytime_half_width,
#: book_*) are internal building blocks of the simulation kernels (they check nothing; the
#: validated drivers in :mod:`seqproj.simulate` call them) and stay out of ``__all__`` (issue 26);
#: ``PathBook`` is the checked NumPy reference of the same bookkeeping.
__all__ = ["PathBook"]


@njit(inline="always", nogil=True)
def band_deviation(s2, V):
    """``|‖S_t‖²/V_t − 1|``: the path has left the band at ``t`` iff this exceeds ε.  The one
    expression every kernel (path statistics or first exit only) and reference decides exits by;
    works on NumPy arrays through ``band_deviation.py_func``."""
    return abs(s2 / V - 1.0)


@njit(inline="always", nogil=True)
def inner_band(eps):
    """``ε_in = ε(1 − 10⁻⁹) − 10⁻¹⁵`` (negative for tiny ε: then :func:`band_exit` always
    divides).  If ``|s2 − V| ≤ ε_in·V`` in floating point, then ``|s2/V − 1| ≤ ε_in + 4.5·10⁻¹⁶``
    after every rounding (relative errors ≤ 2⁻⁵³ in the subtraction, the product, the
    quotient and ``q − 1``), which is ``< ε``: the exact test would also say "inside"."""
    return eps * (1.0 - 1e-9) - 1e-15


@njit(inline="always", nogil=True)
def band_exit(s2, V, eps, eps_in):
    """``band_deviation(s2, V) > eps``, bit for bit, without a division on the paths that are
    clearly inside (``eps_in`` from :func:`inner_band`): a multiplication decides those, the
    exact test the rest."""
    if abs(s2 - V) <= eps_in * V:
        return False
    return band_deviation(s2, V) > eps


@njit(cache=True, nogil=True)
def anytime_half_width(V, M, K, ld, x0sq):
    """``ε_t`` solving ``M ε² = K (1+ε) L``, ``L = log(1/δ) + log(V/x_0²)`` (``ld = log(1/δ)``)."""
    L = ld + math.log(V / x0sq)
    kl = K * L
    return (kl + math.sqrt(kl * kl + 4.0 * M * kl)) / (2.0 * M)


@njit(cache=True, nogil=True)
def book_constants(T, eps, M, rho, mix_l, K, any_ld, x0sq):
    """The constants tuple of :func:`book_step`; ``ε_0`` is the any-time half-width at ``V = x_0²``."""
    fM = float(M)
    return (T, eps, fM, rho, mix_l, K, any_ld, x0sq, anytime_half_width(x0sq, fM, K, any_ld, x0sq))


@njit(inline="always", nogil=True)
def book_start(consts, x0, grid, rgrid, i):
    """The book of trial ``i`` at ``t = 0`` (``S_0 = x_0 z_0``), recording the grid times 0."""
    s2 = x0 * x0
    V = x0 * x0
    gi = 0
    while gi < grid.shape[0] and grid[gi] == 0:
        rgrid[i, gi] = s2 / V
        gi += 1
    return (s2, V, 0.0, 0.0, consts[0] + 1, 0.0, False, False, gi)


@njit(inline="always", nogil=True)
def book_step(book, t, x, dot, s2n, consts, grid, rgrid, i):
    """The book after step ``t`` with coefficient ``x``, ``dot = ⟨S_{t−1}, z_t⟩`` and ``s2n = ‖S_t‖²``."""
    s2p, V, D, vm, et, md, mx, ax, gi = book
    T, eps, fM, rho, mix_l, K, any_ld, x0sq, eps0 = consts
    s2 = s2n
    V += x * x
    D += x * dot
    vm += ((4.0 * x) * x) * s2p / fM
    ratio = s2 / V
    dev = band_deviation(s2, V)
    if dev > md:
        md = dev
    if et == T + 1 and dev > eps:
        et = t
    # exact shortcuts: log1p(.) >= 0 and eps_t >= eps_0 (monotone in floating point)
    lhs = (2.0 * D) * (2.0 * D)
    if lhs > (vm + rho) * mix_l and lhs > (vm + rho) * (math.log1p(vm / rho) + mix_l):
        mx = True
    if dev > eps0 and dev > anytime_half_width(V, fM, K, any_ld, x0sq):
        ax = True
    while gi < grid.shape[0] and grid[gi] == t:
        rgrid[i, gi] = ratio
        gi += 1
    return (s2, V, D, vm, et, md, mx, ax, gi)


@njit(inline="always", nogil=True)
def book_step_lanes(nb, t, x, dot, s2n, consts, s2, V, D, vm, et, md, mx, ax, dev):
    """:func:`book_step` for ``nb`` trials at the same step ``t`` whose books live in arrays
    (``s2 … ax``, updated in place; ``dev`` a work array), the same operations in the same order,
    so bit for bit the same books.  The first pass has no data-dependent branch (SIMD); the two
    tests that need a logarithm — the mixture boundary and the any-time half-width — run in a
    second, scalar pass only for lanes past their cheap pre-test and not yet crossed.  The ratio
    grid is recorded by the caller (all lanes share ``t``)."""
    T, eps, fM, rho, mix_l, K, any_ld, x0sq, eps0 = consts
    for j in range(nb):                  # (few arrays per loop: SIMD needs few alias checks)
        xj = x[j]
        D[j] = D[j] + xj * dot[j]
        vm[j] = vm[j] + ((4.0 * xj) * xj) * s2[j] / fM
    for j in range(nb):
        xj = x[j]
        V[j] = V[j] + xj * xj
        s2[j] = s2n[j]
    for j in range(nb):
        dv = band_deviation(s2[j], V[j])
        md[j] = dv if dv > md[j] else md[j]
        dev[j] = dv
    for j in range(nb):
        et[j] = t if (et[j] == T + 1) & (dev[j] > eps) else et[j]
    for j in range(nb):
        if not mx[j]:
            lhs = (2.0 * D[j]) * (2.0 * D[j])
            if lhs > (vm[j] + rho) * mix_l and lhs > (vm[j] + rho) * (math.log1p(vm[j] / rho) + mix_l):
                mx[j] = True
        if not ax[j] and dev[j] > eps0 and dev[j] > anytime_half_width(V[j], fM, K, any_ld, x0sq):
            ax[j] = True


@njit(inline="always", nogil=True)
def book_finish(book, i, exit_t, final, mix, anyx, maxdev):
    """Write trial ``i``'s path statistics into the kernels' output arrays."""
    s2, V, D, vm, et, md, mx, ax, gi = book
    exit_t[i] = et
    final[i] = s2 / V
    mix[i] = mx
    anyx[i] = ax
    maxdev[i] = md


class PathBook:
    """:func:`book_step` vectorised over ``n`` trials (the NumPy references' bookkeeping).

    ``setup`` is a :class:`seqproj.protocol.SimSetup`; :meth:`step` takes arrays
    ``x``, ``dot``, ``s2_new`` of length ``n``; :meth:`stats` returns the kernels'
    outputs ``(exit time, final ratio, ratio grid, mixture crossed, any-time left,
    max deviation)``.
    """

    def __init__(self, n, setup):
        from proofs_check.engine import check_instance, check_int

        from .columns import check_memory
        from .limits import N_MAX
        from .protocol import SimSetup

        n = check_int("n", n, lo=1, hi=N_MAX)
        self.setup = check_instance("setup", setup, SimSetup)
        check_memory("the n × (grid + 8) bookkeeping arrays", n * (setup.grid.size + 8), "n")
        x0 = setup.x0
        self.s2 = np.full(n, x0 * x0)
        self.V = np.full(n, x0 * x0)
        self.D = np.zeros(n)
        self.vm = np.zeros(n)
        self.et = np.full(n, setup.T + 1, dtype=np.int64)
        self.md = np.zeros(n)
        self.mx = np.zeros(n, dtype=bool)
        self.ax = np.zeros(n, dtype=bool)
        self.rgrid = np.zeros((n, setup.grid.size))
        (_, _, _, _, _, _, self.rho, self.mix_l, self.K, self.any_ld, self.x0sq) = setup.kernel_args()
        self._record(0, self.s2 / self.V)

    def _record(self, t, ratio):
        hit = self.setup.grid == t
        if hit.any():
            self.rgrid[:, hit] = ratio[:, None]

    def step(self, t, x, dot, s2_new):
        fM = float(self.setup.M)
        s2p = self.s2
        self.s2 = s2_new
        self.V = self.V + x * x
        self.D = self.D + x * dot
        self.vm = self.vm + ((4.0 * x) * x) * s2p / fM
        ratio = self.s2 / self.V
        dev = band_deviation.py_func(self.s2, self.V)
        self.md = np.maximum(self.md, dev)
        self.et = np.where((self.et == self.setup.T + 1) & (dev > self.setup.eps), t, self.et)
        self.mx |= (2.0 * self.D) * (2.0 * self.D) > (self.vm + self.rho) * (
            np.log1p(self.vm / self.rho) + self.mix_l)
        kl = self.K * (self.any_ld + np.log(self.V / self.x0sq))
        self.ax |= dev > (kl + np.sqrt(kl * kl + 4.0 * fM * kl)) / (2.0 * fM)
        self._record(t, ratio)

    def stats(self):
        return (self.et, self.s2 / self.V, self.rgrid, self.mx, self.ax, self.md)
