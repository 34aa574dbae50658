r"""Exact reduced simulation of the protocol (spec ``seqproj.md`` §7, DERIVED) — O(1) per step.

For sphere and Gaussian columns, and an adversary whose ``x_t`` depends on the
past only through ``(‖S_s‖², V_s)_{s<t}`` (plus its own independent
randomness), the law of the whole path ``(‖S_t‖², V_t)`` is reproduced
exactly by two scalars per step.  With ``r = ‖S_{t−1}‖``, ``g_1 ~ N(0, 1)`` the
component of ``g`` along ``S_{t−1}`` and ``q ~ χ²_{M−1}`` the squared norm of the
rest (independent; rotation invariance of ``g``):

* Gaussian ``z = g/√M``: ``‖S_t‖² = r² + 2x_t r g_1/√M + x_t²(g_1² + q)/M``;
* sphere ``z = g/‖g‖``: ``⟨S_{t−1}, z⟩ = r g_1/√(g_1² + q)``, ``‖S_t‖² = r² + 2x_t⟨S_{t−1}, z⟩ + x_t²``.

The martingale of the mixture step uses the same ``⟨S_{t−1}, z_t⟩``, so all
path statistics of :class:`seqproj.simulate.PathStats` come out exactly in law.
Anything else (Rademacher, one-hot, sparse columns; an adversary that reads
coordinates of ``S``; the look-ahead control) is refused with a ``ValueError``.

Random stream: one 64-bit key per trial from the chunk's generator; at step
``t``, ``g_1`` is normal sub-stream ``2(t−1)`` and ``q`` chi-square sub-stream
``2(t−1)+1`` of the counter-based generator of :mod:`seqproj.simulate`
(``q = 2·Gamma((M−1)/2)`` by Marsaglia–Tsang, so ``M ≥ 3``).  The numba
kernel draws them on the fly (O(1) work per step whatever M); the NumPy
reference draws the same numbers vectorised and agrees bit for bit.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from proofs_check.engine.validate import as_generator, check_choice, check_int

from .adversaries import Adversary, adversary as make_adversary
from .columns import ColumnFamily
from .simulate import (PathStats, SimSetup, _adv_unif, _anytime_eps, _Book, _chisq, _choose_x,
                       _choose_x_np, _normal, adversary_uniforms_np, chisq_np, draw_keys, make_setup,
                       normals_np)

__all__ = ["simulate_reduced", "reduced_block_size", "check_reduced_supported"]

_BLOCK = 1 << 18


def reduced_block_size(T: int) -> int:
    """Trials per block of the reduced simulation's random stream (fixed rule)."""
    return max(1, _BLOCK // T)


def check_reduced_supported(columns, adversary) -> None:
    """``ValueError`` with the reason if the reduced simulator cannot serve this combination."""
    fam_name = columns.name if isinstance(columns, ColumnFamily) else columns
    adv = make_adversary(adversary) if isinstance(adversary, str) else adversary
    if fam_name not in ("sphere", "gaussian"):
        raise ValueError(f"columns={fam_name!r} is not supported by the reduced simulator: its exact "
                         "reduction (spec §7) needs rotation-invariant columns, allowed: "
                         "['gaussian', 'sphere']; use simulate_full")
    if not isinstance(adv, Adversary):
        raise TypeError(f"adversary must be a name or Adversary, got {type(adversary).__name__}")
    if not adv.predictable:
        raise ValueError(f"adversary={adv.name!r} is not predictable (a look-ahead negative control); "
                         "the reduced simulator serves only predictable adversaries that depend on "
                         "(||S_s||^2, V_s); use simulate_lookahead")
    if not adv.reduced_ok:
        raise ValueError(f"adversary={adv.name!r} reads more of the past than (||S_s||^2, V_s) "
                         "(e.g. coordinates of S), so the reduced simulator cannot serve it; allowed: "
                         "['constant', 'magnitude', 'pushing', 'random', 'stopping']; use simulate_full")


def chisq_constants(M: int) -> tuple:
    """``(d, c)`` of Marsaglia–Tsang for ``χ²_{M−1} = 2·Gamma((M−1)/2)`` (needs ``M ≥ 3``)."""
    d = (M - 1) / 2.0 - 1.0 / 3.0
    return d, 1.0 / math.sqrt(9.0 * d)


@njit(cache=True, nogil=True)
def _reduced_kernel(keys, T, M, needs_u, fam, d, c, x0, eps, sqcx, code, prm, grid, rho, mix_l, K,
                    any_ld, x0sq, exit_t, final, rgrid, mix, anyx, maxdev):
    nb = keys.shape[0]
    G = grid.shape[0]
    fM = float(M)
    sqM = math.sqrt(fM)
    eps0 = _anytime_eps(x0sq, fM, K, any_ld, x0sq)
    for i in range(nb):
        key = keys[i]
        s2 = x0 * x0
        V = x0 * x0
        D = 0.0
        vm = 0.0
        et = T + 1
        md = 0.0
        mx = False
        ax = False
        gi = 0
        while gi < G and grid[gi] == 0:
            rgrid[i, gi] = s2 / V
            gi += 1
        for t in range(1, T + 1):
            u = _adv_unif(key, t) if needs_u else 0.0
            x = _choose_x(code, prm, s2, V, u, eps, fM, sqcx, et <= t - 1, 0.0)
            r = math.sqrt(s2)
            a = _normal(key, np.uint64(2 * (t - 1)), np.uint64(0))[0]       # g_1
            b = _chisq(key, np.uint64(2 * (t - 1) + 1), d, c)                # q ~ chi2_{M-1}
            if fam == 0:
                dot = r * (a / math.sqrt(a * a + b))
                s2n = s2 + 2.0 * x * dot + x * x
            else:
                dot = r * (a / sqM)
                s2n = s2 + 2.0 * x * dot + x * x * ((a * a + b) / fM)
            if s2n < 0.0:
                s2n = 0.0
            s2p = s2
            s2 = s2n
            V += x * x
            D += x * dot
            vm += ((4.0 * x) * x) * s2p / fM
            ratio = s2 / V
            dev = abs(ratio - 1.0)
            if dev > md:
                md = dev
            if et == T + 1 and dev > eps:
                et = t
            # exact shortcuts: log1p(.) >= 0 and eps_t >= eps_0 (monotone in floating point)
            lhs = (2.0 * D) * (2.0 * D)
            if lhs > (vm + rho) * mix_l and lhs > (vm + rho) * (math.log1p(vm / rho) + mix_l):
                mx = True
            if dev > eps0 and dev > _anytime_eps(V, fM, K, any_ld, x0sq):
                ax = True
            while gi < G and grid[gi] == t:
                rgrid[i, gi] = ratio
                gi += 1
        exit_t[i] = et
        final[i] = s2 / V
        mix[i] = mx
        anyx[i] = ax
        maxdev[i] = md


def _reduced_block_numpy(g1, q, u, setup: SimSetup):
    nb, T = g1.shape
    fM = float(setup.M)
    sqM = math.sqrt(fM)
    adv = setup.adversary
    prm = adv.params_array()
    sqcx = math.sqrt(setup.cx)
    book = _Book(nb, setup)
    zero = np.zeros(nb)
    for t in range(1, T + 1):
        s2 = book.s2
        x = _choose_x_np(adv.code, prm, s2, book.V, u[:, t - 1], setup.eps, fM, sqcx,
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


def simulate_reduced(M, eps, T, n, rng, *, columns="sphere", adversary="constant", x0=1.0, cx=1.0,
                     grid=None, mix_alpha=0.05, mix_rho=None, anytime_delta=0.05, anytime_const=16.0,
                     backend="numba") -> PathStats:
    r"""Exact-in-law simulation of ``n`` runs in O(n·T), independent of ``M`` (spec §7).

    Same parameters and :class:`~seqproj.simulate.PathStats` as
    :func:`seqproj.simulate.simulate_full`; ``columns`` must be ``"sphere"`` or
    ``"gaussian"`` and ``adversary`` one that depends only on ``(‖S_s‖², V_s)``
    (``constant``, ``random``, ``stopping``, ``magnitude``, ``pushing``), ``M ≥ 3``.
    ``backend="numpy"`` runs the plain-NumPy reference.
    """
    if isinstance(columns, str):
        check_choice("columns", columns, ("sphere", "gaussian", "rademacher", "onehot", "sparse"))
    check_reduced_supported(columns, adversary)
    M = check_int("M", M, lo=3)
    setup = make_setup(M, eps, T, columns=columns, adversary=adversary, x0=x0, cx=cx, grid=grid,
                       mix_alpha=mix_alpha, mix_rho=mix_rho, anytime_delta=anytime_delta,
                       anytime_const=anytime_const)
    n = check_int("n", n, lo=0)
    check_choice("backend", backend, ("numba", "numpy"))
    return _simulate_reduced_setup(setup, n, as_generator(rng), backend)


def _simulate_reduced_setup(setup: SimSetup, n: int, rng, backend="numba") -> PathStats:
    T, M, G = setup.T, setup.M, setup.grid.size
    out = (np.empty(n, dtype=np.int64), np.empty(n), np.empty((n, G)), np.empty(n, dtype=np.bool_),
           np.empty(n, dtype=np.bool_), np.empty(n))
    args = setup.kernel_args()
    d, c = chisq_constants(M)
    keys = draw_keys(rng, n)                     # the only draw from the chunk's generator
    if backend == "numba":
        _reduced_kernel(keys, T, M, setup.adversary.needs_uniforms, setup.family.code, d, c, *args,
                        *out)
    else:
        nb_max = reduced_block_size(T)
        st = np.arange(T, dtype=np.uint64)
        for start in range(0, n, nb_max):
            sl = slice(start, min(n, start + nb_max))
            k = keys[sl]
            g1 = normals_np(k, 2 * st)
            q = chisq_np(np.broadcast_to(k[:, None], g1.shape),
                         np.broadcast_to((2 * st + 1)[None, :], g1.shape), d, c)
            u = adversary_uniforms_np(k, T)
            for o, r in zip(out, _reduced_block_numpy(g1, q, u, setup)):
                o[sl] = r
    et, fin, rg, mx, ax, md = out
    return PathStats(et, fin, md, mx, ax, rg, setup.grid, M, T, setup.eps)
