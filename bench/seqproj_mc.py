"""Benchmarks of the sequential-projection simulators, as interleaved comparisons.

    python -m bench seqproj          # the comparisons below, through the harness
    python bench/seqproj_mc.py --rare [--workers N]   # the 1e-5 rare-event check

Sphere columns, constant design, ε = 0.5, T = 300.  Comparisons (A vs B, ratio
time_B/time_A, MET iff the median over rounds ≥ target):

* issue 13: ``check_coverage(64, 0.5, 0.101, 300)`` at its default (all cores,
  first-exit kernel) vs a plain failure-flag numba kernel of the reduced
  recursion on the same cores (``prange``, numba's ``np.random``, early exit;
  target ≥ 1) and vs vectorised NumPy of the same recursion (Generator normals
  and χ², active trials compacted at exits; target ≥ 3);
* RNG rooflines (one core each side): the reduced kernel (path statistics, one
  trial at a time) vs drawing just its normal + χ² variates one at a time
  (:func:`bench.roofline.counter_normal_chisq_sum`, same count); the first-exit
  kernel (lane-parallel) vs the same draws made in SIMD lanes
  (:func:`bench.roofline.lane_normal_chisq_sum`, the fastest way known here); the full kernel
  at M = 64, 256, 1024 vs drawing just its M normals per step
  (:func:`bench.roofline.counter_normals_sum`) — target ≥ 0.5 each;
* issue 3, now interleaved: full kernel on all cores ≥ 2× the NumPy full
  simulation (one thread, NumPy's normals, pairwise sums) at each M; reduced
  kernel ≥ 100× it at M = 256; reduced time at M = 1024 ≤ 1.5× M = 64.
"""
from __future__ import annotations

import argparse
import functools
import math
import os
import sys
import time

import numpy as np
from numba import njit, prange

if __package__ in (None, ""):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bench.harness import Comparison  # noqa: E402
from bench.roofline import counter_normal_chisq_sum, counter_normals_sum, lane_normal_chisq_sum  # noqa: E402
from proofs_check.engine import default_workers  # noqa: E402
from proofs_check.engine import map_chunks  # noqa: E402
from seqproj import PathBook, check_coverage, make_setup, simulate_full, simulate_reduced  # noqa: E402
from seqproj.kernels import LANES  # noqa: E402
from seqproj.reduced import chisq_constants, exit_times_reduced  # noqa: E402

T = 300
EPS = 0.5


# -- references -------------------------------------------------------------------------

@njit(parallel=True, cache=True)
def plain_failure_kernel(n, T, M, eps, seed):
    """What a user writes: the reduced recursion (sphere, x_t = 1) over ``prange`` trials with
    numba's ``np.random`` (one state per thread), failure flag only, stop at the first exit."""
    np.random.seed(seed)
    fails = np.zeros(n, dtype=np.int64)
    for i in prange(n):
        s2 = 1.0
        V = 1.0
        for t in range(1, T + 1):
            a = np.random.standard_normal()
            b = np.random.chisquare(M - 1)
            dot = math.sqrt(s2) * (a / math.sqrt(a * a + b))
            s2 = s2 + 2.0 * dot + 1.0
            V += 1.0
            if abs(s2 / V - 1.0) > eps:
                fails[i] = 1
                break
    return fails.sum()


def numpy_failures(n, T, M, eps, rng):
    """Vectorised NumPy of the same recursion: NumPy's normals and χ², the active trials
    compacted whenever some leave the band."""
    s2 = np.ones(n)
    fails = 0
    for t in range(1, T + 1):
        a = rng.standard_normal(s2.size)
        b = rng.chisquare(M - 1, s2.size)
        s2 = s2 + 2.0 * (np.sqrt(s2) * (a / np.sqrt(a * a + b))) + 1.0
        out = np.abs(s2 / (t + 1.0) - 1.0) > eps
        k = int(np.count_nonzero(out))
        if k:
            fails += k
            s2 = s2[~out]
    return fails


def numpy_full_batched(setup, n, rng):
    """The natural NumPy full simulation, batched over ``n`` trials (one thread):
    NumPy's own normals, pairwise sums, the same bookkeeping as the kernels."""
    M = setup.M
    S = np.zeros((n, M))
    S[:, 0] = setup.x0
    book = PathBook(n, setup)
    x = np.ones(n)
    for t in range(1, setup.T + 1):
        g = rng.standard_normal((n, M))
        z = g / np.sqrt(np.einsum("ij,ij->i", g, g))[:, None]
        dot = np.einsum("ij,ij->i", S, z)
        S += x[:, None] * z
        book.step(t, x, dot, np.einsum("ij,ij->i", S, S))
    return int((book.et <= setup.T).sum())


def _failures(rng, n, *, simulate, M):
    """Chunk task: time-uniform failures of ``n`` trials (sphere, constant design)."""
    return int(simulate(M, EPS, T, n, rng).failed.sum())


def _keys(n):
    return np.random.default_rng(12345).integers(0, 2 ** 63, size=n, dtype=np.uint64)


def roofline_sizes(quick: bool) -> dict:
    """Sizes of the RNG-roofline comparisons: ``{"reduced": trials of the two reduced kernels,
    "full": {M: trials of the full kernel}}`` (``T`` steps each).  The reduced count need not be
    a multiple of :data:`~seqproj.kernels.LANES` (2000 is not): the kernels and
    :func:`bench.roofline.lane_normal_chisq_sum` both run the remainder as a short last block."""
    return {"reduced": 2000 if quick else 8000,
            "full": {M: max(1, (2 ** 20 if quick else 2 ** 22) // (T * M)) for M in (64, 256, 1024)}}


# -- comparisons ------------------------------------------------------------------------

def comparisons(quick: bool) -> list[Comparison]:
    cores = default_workers()
    out = []
    seeds = iter(range(1, 10 ** 9))

    # issue 13: the public entry point at its defaults
    budget = 20_000 if quick else 200_000

    def cov():
        return check_coverage(64, 0.5, 0.101, T, budget=budget, seed=next(seeds)).events

    def plain():
        import numba
        numba.set_num_threads(cores)
        return int(plain_failure_kernel(budget, T, 64, EPS, next(seeds)))

    def warm():
        check_coverage(64, 0.5, 0.101, T, budget=2000, seed=0)
        plain_failure_kernel(100, 10, 64, EPS, 0)

    work = f"{budget} trials of M=64, eps=0.5, T=300 (p ~ 0.10, no early stop), {cores} cores"
    out.append(Comparison(f"check_coverage default vs plain failure-flag numba kernel ({cores} threads)",
                          cov, plain, 1.0, work, warm))
    out.append(Comparison("check_coverage default vs vectorised NumPy (reduced recursion, 1 thread)",
                          cov, lambda: numpy_failures(budget, T, 64, EPS, np.random.default_rng(next(seeds))),
                          3.0, work, warm))

    # RNG rooflines, one core each side, equal draws
    sizes = roofline_sizes(quick)
    n_red = sizes["reduced"]
    keys = _keys(n_red)
    d64, c64 = chisq_constants(64)
    d256, c256 = chisq_constants(256)
    out.append(Comparison(
        "reduced kernel (path statistics, 1 core, lanes) vs its RNG roofline (the same draws in SIMD lanes)",
        lambda: simulate_reduced(64, EPS, T, n_red, next(seeds)),
        lambda: lane_normal_chisq_sum(keys, T, d64, c64), 0.5,
        f"{n_red} trials x {T} steps at M=64 (every step runs)",
        lambda: (simulate_reduced(64, EPS, 5, 2, 0), lane_normal_chisq_sum(keys[:LANES], 2, d64, c64))))
    out.append(Comparison(
        "reduced first-exit kernel (1 core, lanes) vs its RNG roofline (the same draws in SIMD lanes)",
        lambda: exit_times_reduced(256, EPS, T, n_red, next(seeds)),
        lambda: lane_normal_chisq_sum(keys, T, d256, c256), 0.5,
        f"{n_red} trials x {T} steps at M=256 (exits ~1e-5: every step runs)",
        lambda: (exit_times_reduced(256, EPS, 5, 2, 0), lane_normal_chisq_sum(keys[:LANES], 2, d256, c256))))
    for M, n_full in sizes["full"].items():
        kf = _keys(n_full)
        out.append(Comparison(
            f"full kernel (path statistics, 1 core) vs its RNG roofline (M normals per step), M={M}",
            functools.partial(lambda M, n: simulate_full(M, EPS, T, n, next(seeds)), M, n_full),
            functools.partial(counter_normals_sum, kf, T * M), 0.5,
            f"{n_full} trials x {T} steps x {M} normals",
            functools.partial(lambda M: (simulate_full(M, EPS, 3, 1, 0), counter_normals_sum(kf[:1], 3)), M)))

    # issue 3 targets, now interleaved: all cores vs one NumPy thread
    for M in (64, 256, 1024):
        setup = make_setup(M, EPS, T)
        n_a = max(4, (2 ** 14 if quick else 2 ** 16) // M)
        chunk = max(1, n_a // (2 * cores))
        task = functools.partial(_failures, simulate=simulate_full, M=M)
        out.append(Comparison(
            f"full kernel ({cores} threads) vs NumPy full simulation (1 thread), M={M}",
            functools.partial(lambda task, n, chunk: map_chunks(task, n, chunk_size=chunk, seed=next(seeds),
                                                                executor="threads", workers=cores),
                              task, n_a, chunk),
            functools.partial(lambda setup, n: numpy_full_batched(setup, n, np.random.default_rng(next(seeds))),
                              setup, n_a),
            2.0, f"{n_a} trials x {T} steps", lambda: simulate_full(8, EPS, 5, 2, 0)))
    n_r = 2 ** 16 // 256
    red = functools.partial(_failures, simulate=simulate_reduced, M=256)
    setup256 = make_setup(256, EPS, T)
    n_rr = 40 * n_r
    out.append(Comparison(
        f"reduced kernel ({cores} threads) vs NumPy full simulation (1 thread), M=256, per trial",
        lambda: map_chunks(red, n_rr, chunk_size=n_rr // (2 * cores), seed=next(seeds), executor="threads",
                           workers=cores),
        # B does 1/40 of the trials: the time ratio target 100 per trial is 100/40 = 2.5 per call
        lambda: numpy_full_batched(setup256, n_r, np.random.default_rng(next(seeds))),
        100.0 / 40, f"A {n_rr} trials, B {n_r} trials (target 100x per trial)",
        lambda: simulate_reduced(8, EPS, 5, 2, 0)))
    n_c = 20_000 if quick else 100_000
    out.append(Comparison(
        "reduced kernel time at M=64 / at M=1024 (O(1) in M: target >= 1/1.5)",
        lambda: map_chunks(functools.partial(_failures, simulate=simulate_reduced, M=1024), n_c,
                           chunk_size=n_c // (2 * cores), seed=next(seeds), executor="threads", workers=cores),
        lambda: map_chunks(functools.partial(_failures, simulate=simulate_reduced, M=64), n_c,
                           chunk_size=n_c // (2 * cores), seed=next(seeds), executor="threads", workers=cores),
        1 / 1.5, f"{n_c} trials each"))
    return out


def rare_event(cores):
    """The rare-event check: p at M = 256 (≈ 1e-5) from 10^7 reduced trials, exact 95 % interval."""
    t0 = time.perf_counter()
    r = check_coverage(256, 0.5, 1e-5, T, budget=10_000_000, seed=0, alpha=0.05, method="fixed",
                       executor="threads", workers=cores, chunk_size=250_000)
    lo, hi = r.ci
    print(f"rare event: M=256, eps=0.5, T={T}, sphere, constant, seed=0: {r.events} events in "
          f"{r.trials} trials, p_hat = {r.p_hat:.3e}, exact 95% CI [{lo:.3e}, {hi:.3e}], "
          f"relative width {(hi - lo) / r.p_hat:.2f}, {time.perf_counter() - t0:.0f} s on {cores} cores")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rare", action="store_true", help="run the 1e-5 rare-event check")
    ap.add_argument("--workers", type=int, default=default_workers())
    args = ap.parse_args(argv)
    if args.rare:
        rare_event(args.workers)
    else:
        from bench.run_all import main as run_all
        run_all(["seqproj_mc"])


if __name__ == "__main__":
    main()
