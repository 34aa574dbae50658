r"""Drivers of the full sequential projection protocol (``docs/theory/seqproj.md#protocol``): columns in ``R^M``.

:func:`simulate_full` validates its parameters (:func:`seqproj.protocol.make_setup`),
draws one 64-bit key per trial from the chunk's generator and runs either the
numba kernel or its bit-identical NumPy reference (:mod:`seqproj.kernels`).
The look-ahead negative control and the inner-product protocol have their own
drivers (:mod:`seqproj.lookahead`, :mod:`seqproj.inner_product`); the exact
reduced simulation is :mod:`seqproj.reduced`.

Random stream (the reproducibility contract).  The chunk's generator draws
one 64-bit key per trial (:func:`seqproj.rng.draw_keys`) and nothing else.
Every variate of trial ``i`` is a pure function of its key and an index
(:mod:`seqproj.rng`): the ``M`` normals ``g`` of column ``z_t`` are
sub-streams ``(t−1)M .. tM−1``, and ``z_t`` is a deterministic function of
``g`` (:func:`seqproj.columns.columns_from_normals`); the adversary's uniform
at step ``t`` is sub-stream ``2^40 + t``.

Parallelism: the kernel is ``nogil`` and draws its own numbers from the
per-trial keys, so chunks run in parallel on threads
(:func:`proofs_check.engine.runner.map_chunks` with ``executor="threads"``),
each chunk with its own generator — never numba's global RNG.

Validate once: :func:`simulate_full_setup` and :func:`exit_times_full_setup` run chunks of
trials on a validated :class:`~seqproj.protocol.SimSetup` (``f(rng, n, *, setup)``, the
engine's convention, so an experiment binds the setup with :func:`functools.partial`);
:func:`simulate_full` and :func:`exit_times_full` build the setup and run them in one call.
"""
from __future__ import annotations

import numpy as np

from proofs_check.engine import as_generator, check_bool, check_choice, shown

from .adversaries import require_predictable
from .kernels import full_block_numpy, full_exit_kernel, full_exit_numpy, full_kernel
from .protocol import PathStats, SimSetup, check_memory, check_trials, empty_outputs, make_setup
from .rng import adversary_uniforms_np, draw_keys, normals_np

__all__ = ["simulate_full", "exit_times_full", "simulate_full_setup", "exit_times_full_setup",
           "full_block_size"]

_BLOCK_DOUBLES = 1 << 19  # ≈ 4 MB of normals per block


def full_block_size(T: int, M: int) -> int:
    """Trials per block of the full simulation's NumPy reference (fixed rule)."""
    return max(1, _BLOCK_DOUBLES // (T * M))


def simulate_full(M, eps, T, n, rng, *, columns="sphere", adversary="constant", x0=1.0, cx=1.0,
                  s=None, grid=None, mix_alpha=0.05, mix_rho=None, anytime_delta=0.05,
                  anytime_const=16.0, backend="numba", exact=True) -> PathStats:
    r"""Simulate ``n`` independent runs of the protocol with explicit columns in ``R^M``.

    Parameters
    ----------
    M : sketch dimension; ``eps`` : band half-width ε ∈ (0, 1); ``T`` : horizon.
    n : number of trials; ``rng`` : Generator / SeedSequence / int.
    columns : column family (:mod:`seqproj.columns`); ``s`` for ``"sparse"``.
    adversary : a **predictable** adversary name or :class:`~seqproj.adversaries.Adversary`
        (the look-ahead control has its own :func:`seqproj.lookahead.simulate_lookahead`).
    x0 : ``x_0 ≠ 0``; ``cx`` : bound on ``x_t²``.
    grid : times at which the ratio path is recorded (default ≈ 30 points).
    mix_alpha, mix_rho : level and ρ of the mixture-step check (default ρ from the proof, theory ``#coverage`` step 5).
    anytime_delta, anytime_const : δ and constant of the any-time band (theory ``#anytime``).
    backend : ``"numba"`` (kernel) or ``"numpy"`` (reference; ``exact=False`` uses
        pairwise sums — faster, same law, not bit-identical).

    Returns :class:`~seqproj.protocol.PathStats`.  Cost O(n·T·M).
    """
    setup = make_setup(M, eps, T, columns=columns, adversary=adversary, x0=x0, cx=cx, s=s, grid=grid,
                       mix_alpha=mix_alpha, mix_rho=mix_rho, anytime_delta=anytime_delta,
                       anytime_const=anytime_const)
    return simulate_full_setup(rng, n, setup=setup, backend=backend, exact=exact)


def exit_times_full(M, eps, T, n, rng, *, columns="sphere", adversary="constant", x0=1.0, cx=1.0,
                    s=None, backend="numba"):
    r"""First exit times ``τ = min{t ≤ T: |‖S_t‖²/V_t − 1| > ε}`` (``T + 1`` if none) of ``n``
    full-protocol trials — the time-uniform failure flag is ``τ ≤ T``.

    Same parameters and random stream as :func:`simulate_full` (so ``τ`` equals its
    ``exit_time`` bit for bit), through a compiled path that computes nothing else and stops
    each trial at its first exit (:func:`seqproj.kernels.full_exit_kernel`).  Returns an int64
    array of length ``n``.  Cost O(n·τ·M).
    """
    setup = make_setup(M, eps, T, columns=columns, adversary=adversary, x0=x0, cx=cx, s=s)
    return exit_times_full_setup(rng, n, setup=setup, backend=backend)


def _run_checks(setup, n, backend):
    """``n`` as a number of trials, after the (cheap) checks of a run on a validated ``setup``
    (no rebuild): a backend, and the NumPy reference's memory."""
    if not isinstance(setup, SimSetup):
        raise TypeError(f"setup must be a SimSetup (seqproj.protocol.make_setup), got {shown(setup)}")
    require_predictable(setup.adversary)
    n = check_trials(n, setup)
    if not isinstance(backend, str):
        raise TypeError(f"backend must be 'numba' or 'numpy', got {shown(backend)}")
    check_choice("backend", backend, ("numba", "numpy"))
    if backend == "numpy":
        check_memory(f"the NumPy reference's normals of one trial (T·M = {setup.T * setup.M})",
                     2 * setup.T * setup.M, "T and M")
    return n


def exit_times_full_setup(rng, n, *, setup: SimSetup, backend="numba") -> np.ndarray:
    """First exit times (int64, ``T + 1`` if none) of ``n`` full-protocol trials on a validated
    ``setup`` (:func:`seqproj.protocol.make_setup`); see :func:`exit_times_full`."""
    n = _run_checks(setup, n, backend)
    rng = as_generator(rng)
    T, M = setup.T, setup.M
    et = np.empty(n, dtype=np.int64)
    keys = draw_keys(rng, n)                    # the only draw from the chunk's generator
    x0, eps, sqcx, code, prm = setup.kernel_args()[:5]
    if backend == "numba":
        full_exit_kernel(keys, T, M, setup.adversary.needs_uniforms, setup.family.code, setup.family.s,
                         x0, eps, sqcx, code, prm, et)
    else:
        nb_max = full_block_size(T, M)
        streams = np.arange(T * M, dtype=np.uint64)
        for start in range(0, n, nb_max):
            sl = slice(start, min(n, start + nb_max))
            normals = normals_np(keys[sl], streams).reshape(-1, T, M)
            et[sl] = full_exit_numpy(normals, adversary_uniforms_np(keys[sl], T), setup)
    return et


def simulate_full_setup(rng, n, *, setup: SimSetup, backend="numba", exact=True,
                        block=None) -> PathStats:
    """:class:`~seqproj.protocol.PathStats` of ``n`` full-protocol trials on a validated ``setup``
    (:func:`seqproj.protocol.make_setup`); see :func:`simulate_full` (``block``: trials per block
    of the NumPy reference, default :func:`full_block_size`)."""
    n = _run_checks(setup, n, backend)
    exact = check_bool("exact", exact)
    rng = as_generator(rng)
    T, M = setup.T, setup.M
    out = empty_outputs(n, setup.grid.size)
    keys = draw_keys(rng, n)                    # the only draw from the chunk's generator
    if backend == "numba":
        full_kernel(keys, T, M, setup.adversary.needs_uniforms, setup.family.code, setup.family.s,
                    *setup.kernel_args(), *out)
    else:
        nb_max = full_block_size(T, M) if block is None else int(block)
        streams = np.arange(T * M, dtype=np.uint64)
        for start in range(0, n, nb_max):
            sl = slice(start, min(n, start + nb_max))
            normals = normals_np(keys[sl], streams).reshape(-1, T, M)
            u = adversary_uniforms_np(keys[sl], T)
            for o, r in zip(out, full_block_numpy(normals, u, setup, exact=exact)):
                o[sl] = r
    return PathStats.from_outputs(out, setup)
