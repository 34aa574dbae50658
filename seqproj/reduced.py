r"""Exact reduced simulation of the protocol (``docs/theory/seqproj.md#reduced``, DERIVED) — O(1) per step.

For sphere and Gaussian columns, and an adversary whose ``x_t`` depends on the
past only through ``(‖S_s‖², V_s)_{s<t}`` (plus its own independent
randomness), the law of the whole path ``(‖S_t‖², V_t)`` is reproduced
exactly by two scalars per step.  With ``r = ‖S_{t−1}‖``, ``g_1 ~ N(0, 1)`` the
component of ``g`` along ``S_{t−1}`` and ``q ~ χ²_{M−1}`` the squared norm of the
rest (independent; rotation invariance of ``g``):

* Gaussian ``z = g/√M``: ``‖S_t‖² = r² + 2x_t r g_1/√M + x_t²(g_1² + q)/M``;
* sphere ``z = g/‖g‖``: ``⟨S_{t−1}, z⟩ = r g_1/√(g_1² + q)``, ``‖S_t‖² = r² + 2x_t⟨S_{t−1}, z⟩ + x_t²``.

The martingale of the mixture step uses the same ``⟨S_{t−1}, z_t⟩``, so all
path statistics of :class:`seqproj.protocol.PathStats` come out exactly in law.
Anything else (Rademacher, one-hot, sparse columns; an adversary that reads
coordinates of ``S``; the look-ahead control) is refused with a ``ValueError``.

Random stream: one 64-bit key per trial from the chunk's generator; at step
``t``, ``g_1`` is normal sub-stream ``2(t−1)`` and ``q`` chi-square sub-stream
``2(t−1)+1`` of the counter-based generator of :mod:`seqproj.rng`
(``q = 2·Gamma((M−1)/2)`` by Marsaglia–Tsang, so ``M ≥ 3``).  The numba
kernel (:func:`seqproj.kernels.reduced_kernel`) draws them on the fly (O(1)
work per step whatever M); the NumPy reference draws the same numbers
vectorised and agrees bit for bit.

Validate once: :func:`reduced_setup` checks a configuration and returns its frozen
:class:`~seqproj.protocol.SimSetup`; :func:`simulate_reduced_setup` and
:func:`exit_times_reduced_setup` run chunks of trials on it (``f(rng, n, *, setup)``, the
engine's convention, so an experiment binds the setup with :func:`functools.partial`).
:func:`simulate_reduced` and :func:`exit_times_reduced` are the two steps in one call.
"""
from __future__ import annotations

import math

import numpy as np

from proofs_check.engine import as_generator, check_choice, check_int, shown

from .adversaries import ADVERSARIES, Adversary, adversary as make_adversary
from .columns import FAMILIES, ColumnFamily
from .kernels import reduced_block_numpy, reduced_exit_kernel, reduced_exit_numpy, reduced_kernel
from .protocol import (M_MAX, PathStats, SimSetup, check_memory, check_trials, empty_outputs,
                       make_setup)
from .rng import adversary_uniforms_np, chisq_np, draw_keys, normals_np

__all__ = ["simulate_reduced", "exit_times_reduced", "reduced_setup", "simulate_reduced_setup",
           "exit_times_reduced_setup", "reduced_block_size", "check_reduced_supported", "chisq_constants"]

_BLOCK = 1 << 18


def reduced_block_size(T: int) -> int:
    """Trials per block of the reduced simulation's random stream (fixed rule)."""
    return max(1, _BLOCK // T)


def check_reduced_supported(columns, adversary) -> None:
    """``ValueError`` with the reason if the reduced simulator cannot serve this combination."""
    if isinstance(columns, ColumnFamily):
        fam_name = columns.name
    elif isinstance(columns, str):
        fam_name = check_choice("columns", columns, FAMILIES)
    else:
        raise TypeError(f"columns must be a column family name {list(FAMILIES)} or a ColumnFamily, "
                        f"got {shown(columns)}")
    if isinstance(adversary, str):
        check_choice("adversary", adversary, ADVERSARIES)
    adv = make_adversary(adversary) if isinstance(adversary, str) else adversary
    if not isinstance(adv, Adversary):
        raise TypeError(f"adversary must be a name or Adversary, got {shown(adversary)}")
    if fam_name not in ("sphere", "gaussian"):
        raise ValueError(f"columns={fam_name!r} is not supported by the reduced simulator: its exact "
                         "reduction needs rotation-invariant columns, allowed: "
                         "['gaussian', 'sphere']; use simulate_full")
    if not isinstance(adv, Adversary):
        raise TypeError(f"adversary must be a name or Adversary, got {type(adversary).__name__}")
    if not adv.predictable:
        raise ValueError(f"adversary={adv.name!r} is not predictable (a look-ahead negative control); "
                         "the reduced simulator serves only predictable adversaries that depend on "
                         "(‖S_s‖², V_s); use simulate_lookahead")
    if not adv.reduced_ok:
        raise ValueError(f"adversary={adv.name!r} reads more of the past than (‖S_s‖², V_s) "
                         "(e.g. coordinates of S), so the reduced simulator cannot serve it; allowed: "
                         "['constant', 'magnitude', 'pushing', 'random', 'stopping']; use simulate_full")


def chisq_constants(M: int) -> tuple:
    """``(d, c)`` of Marsaglia–Tsang for ``χ²_{M−1} = 2·Gamma((M−1)/2)`` (needs ``M ≥ 3``)."""
    d = (M - 1) / 2.0 - 1.0 / 3.0
    return d, 1.0 / math.sqrt(9.0 * d)


def simulate_reduced(M, eps, T, n, rng, *, columns="sphere", adversary="constant", x0=1.0, cx=1.0,
                     grid=None, mix_alpha=0.05, mix_rho=None, anytime_delta=0.05, anytime_const=16.0,
                     backend="numba") -> PathStats:
    r"""Exact-in-law simulation of ``n`` runs in O(n·T), independent of ``M``.

    Same parameters and :class:`~seqproj.protocol.PathStats` as
    :func:`seqproj.simulate.simulate_full`; ``columns`` must be ``"sphere"`` or
    ``"gaussian"`` and ``adversary`` one that depends only on ``(‖S_s‖², V_s)``
    (``constant``, ``random``, ``stopping``, ``magnitude``, ``pushing``), ``M ≥ 3``.
    ``backend="numpy"`` runs the plain-NumPy reference.
    """
    setup = reduced_setup(M, eps, T, columns=columns, adversary=adversary, x0=x0, cx=cx, grid=grid,
                          mix_alpha=mix_alpha, mix_rho=mix_rho, anytime_delta=anytime_delta,
                          anytime_const=anytime_const)
    return simulate_reduced_setup(rng, n, setup=setup, backend=backend)


def exit_times_reduced(M, eps, T, n, rng, *, columns="sphere", adversary="constant", x0=1.0, cx=1.0,
                       backend="numba"):
    r"""First exit times ``τ = min{t ≤ T: |‖S_t‖²/V_t − 1| > ε}`` (``T + 1`` if none) of ``n``
    reduced trials — the failure flag of the time-uniform bound is ``τ ≤ T``.

    Same parameters and random stream as :func:`simulate_reduced` (so ``τ`` equals its
    ``exit_time`` bit for bit), but a compiled path that computes nothing else and stops each
    trial at its first exit (:func:`seqproj.kernels.reduced_exit_kernel`).  Returns an int64
    array of length ``n``.
    """
    setup = reduced_setup(M, eps, T, columns=columns, adversary=adversary, x0=x0, cx=cx)
    return exit_times_reduced_setup(rng, n, setup=setup, backend=backend)


def reduced_setup(M, eps, T, *, columns="sphere", adversary="constant", **kw) -> SimSetup:
    """The validated :class:`~seqproj.protocol.SimSetup` of a reduced simulation: the reduced
    simulator can serve ``columns`` and ``adversary`` (:func:`check_reduced_supported`),
    ``M ≥ 3``, and every check of :func:`seqproj.protocol.make_setup` (``kw``: ``x0``, ``cx``,
    ``grid``, ``mix_alpha``, ``mix_rho``, ``anytime_delta``, ``anytime_const``)."""
    check_reduced_supported(columns, adversary)
    M = check_int("M", M, lo=3, hi=M_MAX)
    return make_setup(M, eps, T, columns=columns, adversary=adversary, **kw)


def _run_checks(setup, n, backend):
    """``n`` as a number of trials, after the (cheap) checks of a run on a validated ``setup``:
    a reduced set-up (no rebuild: its family, adversary and ``M`` are read), a backend, and
    the NumPy reference's memory."""
    if not isinstance(setup, SimSetup):
        raise TypeError(f"setup must be a SimSetup (seqproj.reduced.reduced_setup), got {shown(setup)}")
    check_reduced_supported(setup.family, setup.adversary)
    check_int("M", setup.M, lo=3)
    n = check_trials(n, setup)
    if not isinstance(backend, str):
        raise TypeError(f"backend must be 'numba' or 'numpy', got {shown(backend)}")
    check_choice("backend", backend, ("numba", "numpy"))
    if backend == "numpy":
        check_memory(f"the NumPy reference's draws of one trial (T = {setup.T})", 4 * setup.T, "T")
    return n


def _reduced_draws_np(setup, keys, d, c):
    """``(g1, q, u)`` of the reduced simulation for a block of trial keys (NumPy, ``(nb, T)`` each)."""
    st = np.arange(setup.T, dtype=np.uint64)
    g1 = normals_np(keys, 2 * st)
    q = chisq_np(np.broadcast_to(keys[:, None], g1.shape),
                 np.broadcast_to((2 * st + 1)[None, :], g1.shape), d, c)
    return g1, q, adversary_uniforms_np(keys, setup.T)


def exit_times_reduced_setup(rng, n, *, setup: SimSetup, backend="numba") -> np.ndarray:
    """First exit times (int64, ``T + 1`` if none) of ``n`` reduced trials on a validated
    ``setup`` (:func:`reduced_setup`); see :func:`exit_times_reduced`."""
    n = _run_checks(setup, n, backend)
    rng = as_generator(rng)
    T, M = setup.T, setup.M
    et = np.empty(n, dtype=np.int64)
    d, c = chisq_constants(M)
    keys = draw_keys(rng, n)                     # the only draw from the chunk's generator
    x0, eps, sqcx, code, prm = setup.kernel_args()[:5]
    if backend == "numba":
        reduced_exit_kernel(keys, T, M, setup.adversary.needs_uniforms, setup.family.code, d, c,
                            x0, eps, sqcx, code, prm, et)
    else:
        nb_max = reduced_block_size(T)
        for start in range(0, n, nb_max):
            sl = slice(start, min(n, start + nb_max))
            et[sl] = reduced_exit_numpy(*_reduced_draws_np(setup, keys[sl], d, c), setup)
    return et


def simulate_reduced_setup(rng, n, *, setup: SimSetup, backend="numba") -> PathStats:
    """:class:`~seqproj.protocol.PathStats` of ``n`` reduced trials on a validated ``setup``
    (:func:`reduced_setup`); see :func:`simulate_reduced`."""
    n = _run_checks(setup, n, backend)
    rng = as_generator(rng)
    T, M = setup.T, setup.M
    out = empty_outputs(n, setup.grid.size)
    d, c = chisq_constants(M)
    keys = draw_keys(rng, n)                     # the only draw from the chunk's generator
    if backend == "numba":
        reduced_kernel(keys, T, M, setup.adversary.needs_uniforms, setup.family.code, d, c,
                       *setup.kernel_args(), *out)
    else:
        nb_max = reduced_block_size(T)
        for start in range(0, n, nb_max):
            sl = slice(start, min(n, start + nb_max))
            for o, r in zip(out, reduced_block_numpy(*_reduced_draws_np(setup, keys[sl], d, c), setup)):
                o[sl] = r
    return PathStats.from_outputs(out, setup)
