r"""The machine's roofline numbers, measured in the same run as the comparisons.

* normal draws per second on one core: the counter-based ziggurat of
  :mod:`seqproj.rng` in numba (what the seqproj kernels draw), numba's own
  ``np.random.standard_normal``, and NumPy's ``Generator.standard_normal``;
* χ²_{M−1} draws per second (:func:`seqproj.rng.counter_chisq`, Marsaglia–Tsang);
* memory copy rate of ``np.copy`` (bytes read + written per second).

:func:`normals_op` / :func:`normal_chisq_op` are the "equal work" RNG operations
that kernels are compared with: the same number of draws as the kernel makes,
nothing else.
"""
from __future__ import annotations

import time

import numpy as np
from numba import njit

from seqproj.kernels import LANES
from seqproj.rng import chisq_first_attempt, counter_chisq, counter_normal, normal_first_attempt

__all__ = ["counter_normals_sum", "counter_normal_chisq_sum", "lane_normal_chisq_sum", "numba_normals_sum", "measure_roofline",
           "format_roofline"]


@njit(cache=True, nogil=True)
def counter_normals_sum(keys, per_key):
    """``per_key`` counter-based normals for each key (sub-streams ``0..per_key−1``); their sum."""
    s = 0.0
    for i in range(keys.shape[0]):
        for j in range(per_key):
            s += counter_normal(keys[i], np.uint64(j), np.uint64(0))[0]
    return s


@njit(cache=True, nogil=True)
def counter_normal_chisq_sum(keys, per_key, d, c):
    """``per_key`` (normal, χ²) pairs per key — the reduced kernel's draws (sub-streams
    ``2t``, ``2t+1``); their sum."""
    s = 0.0
    for i in range(keys.shape[0]):
        for t in range(per_key):
            s += counter_normal(keys[i], np.uint64(2 * t), np.uint64(0))[0]
            s += counter_chisq(keys[i], np.uint64(2 * t + 1), d, c)
    return s


@njit(cache=True, nogil=True)
def lane_normal_chisq_sum(keys, per_key, d, c):
    """The same draws as :func:`counter_normal_chisq_sum`, drawn the fastest way known here:
    :data:`~seqproj.kernels.LANES` keys at a time, the branch-free first attempts in SIMD, the
    rejections redrawn by the scalar samplers (the draw passes of
    :func:`seqproj.kernels.reduced_exit_kernel`, nothing else); their sum.

    Any ``len(keys)``: the keys go in blocks of ``LANES`` and the last block holds the
    ``len(keys) mod LANES`` left over, exactly as :func:`seqproj.kernels.reduced_kernel` splits
    its trials (``nb = min(LANES, n − i0)``) — so for ``n`` keys this is the kernel's draws for
    ``n`` trials, ``n · per_key`` (normal, χ²) pairs, no more (no padding lanes, which would be
    draws the kernel does not make) and no fewer (no rounding down).  An earlier version refused a
    ``len(keys)`` not a multiple of ``LANES`` (the lanes would have read past the end of
    ``keys``), which made both reduced-kernel rooflines of ``python -m bench`` fail at their
    sizes of 2000 and 8000 trials (issue 25)."""
    B = LANES
    n = keys.shape[0]
    a = np.empty(B)
    b = np.empty(B)
    ok_a = np.empty(B, dtype=np.bool_)
    ok_b = np.empty(B, dtype=np.bool_)
    s = 0.0
    for i0 in range(0, n, B):
        nb = min(B, n - i0)                 # the last block: the keys left over
        for t in range(per_key):
            st = np.uint64(2 * t)
            for j in range(nb):
                a[j], ok_a[j] = normal_first_attempt(keys[i0 + j], st)
                b[j], ok_b[j] = chisq_first_attempt(keys[i0 + j], st + np.uint64(1), d, c)
            for j in range(nb):
                if not ok_a[j]:
                    a[j] = counter_normal(keys[i0 + j], st, np.uint64(0))[0]
                if not ok_b[j]:
                    b[j] = counter_chisq(keys[i0 + j], st + np.uint64(1), d, c)
            for j in range(nb):
                s += a[j] + b[j]
    return s


@njit(cache=True, nogil=True)
def counter_chisq_sum(keys, per_key, d, c):
    s = 0.0
    for i in range(keys.shape[0]):
        for t in range(per_key):
            s += counter_chisq(keys[i], np.uint64(2 * t + 1), d, c)
    return s


@njit(cache=True)
def numba_normals_sum(n):
    """``n`` draws of numba's own ``np.random.standard_normal``; their sum."""
    s = 0.0
    for _ in range(n):
        s += np.random.standard_normal()
    return s


def _rate(fn, units, min_time):
    """Best rate (units/s) over repeats lasting at least ``min_time`` in all."""
    fn()
    best, spent = 0.0, 0.0
    while spent < min_time:
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        spent += dt
        best = max(best, units / dt)
    return best


def measure_roofline(quick: bool = False) -> dict:
    """Per-core rates: ``counter_normal``, ``numba_normal``, ``numpy_normal``, ``chisq`` (draws/s,
    χ²_{255}), ``copy`` (bytes read + written per second by ``np.copy`` of 64 MB)."""
    from seqproj.reduced import chisq_constants

    min_time = 0.2 if quick else 0.6
    keys = np.arange(1, 1001, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    per = 1000
    d, c = chisq_constants(256)
    rng = np.random.default_rng(0)
    buf = np.empty(1_000_000)
    src = np.ones(8_000_000)
    return {
        "counter_normal": _rate(lambda: counter_normals_sum(keys, per), keys.size * per, min_time),
        "numba_normal": _rate(lambda: numba_normals_sum(1_000_000), 1_000_000, min_time),
        "numpy_normal": _rate(lambda: rng.standard_normal(out=buf), buf.size, min_time),
        "chisq": _rate(lambda: counter_chisq_sum(keys, per, d, c), keys.size * per, min_time),
        "copy": _rate(lambda: np.copy(src), 2 * src.nbytes, min_time),
    }


def format_roofline(r: dict) -> str:
    return (f"roofline (one core, best rate): normals {r['counter_normal'] / 1e6:.0f} M/s counter-based "
            f"in numba, {r['numba_normal'] / 1e6:.0f} M/s numba np.random, {r['numpy_normal'] / 1e6:.0f} "
            f"M/s NumPy Generator; chi2_255 {r['chisq'] / 1e6:.0f} M/s counter-based; "
            f"np.copy {r['copy'] / 1e9:.1f} GB/s (read + write)")
