"""Benchmark: the worst-case DP solver, fast (:mod:`seqproj.worst_case_fast`) against the reference kernel.

Comparisons (``comparisons(quick)``, interleaved by :mod:`bench.harness`; ``python -m bench worst_case``):
A = :func:`seqproj.worst_case_fast.dp_fast`, B = :func:`seqproj.worst_case_kernel.dp_kernel` (today's
solver until issue 25), the same grid, the same problem (sphere columns, PCHIP interpolation,
``M = 88``, ``ε = 0.5``, ``T = 100``, grid ``(n_u, n_v, n_x) = (49, 5, 16)``: the bracket's refined
grid; ``--quick``: ``(25, 3, 16)``, ``T = 30``):

* ``worst-case DP fast on all threads vs reference kernel`` — target ≥ 10× (issue 25 §1);
* ``worst-case DP fast serial vs reference kernel`` — the same items in one thread, target ≥ 1
  (it must not be slower; the serial gain is the hoisted per-column tables and the lazy moments).

``setup`` solves once with both and raises unless the values agree to 1e-12 and the policies are
equal (the answer must be the same; the measured difference is printed by the CLI).

``python bench/worst_case_dp.py [--quick] [--rounds N] [--table]`` prints, per grid, the old and new
times (median over interleaved rounds), the ratio with its [min, max], the maximal value
difference; one coarse solve at ``T = 10⁴``; and with ``--table`` the estimated run time of the
``M*`` bracket table from measured per-``M`` bracket evaluations (see :func:`_table`).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

if __package__ in (None, ""):                          # python bench/worst_case_dp.py
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bench.harness import Comparison, measure  # noqa: E402

__all__ = ["comparisons", "problem", "solve_old", "solve_new", "main"]


def problem(M, eps, T, n_u, n_v, n_x, columns="sphere"):
    """The kernels' arguments for one problem on one grid (as :func:`seqproj.worst_case.worst_case_value`)."""
    from seqproj.worst_case import radius_nodes, worst_case_grids, zeta_density_constants, zeta_table

    ug, lr, x2 = worst_case_grids(eps, T, n_u=n_u, n_v=n_v, n_x=n_x)
    r2, wr = radius_nodes(M, columns)
    logc, cpow = zeta_density_constants(M)
    return dict(T=T, nodes=ug, ea=1.0 - eps, eb=1.0 + eps, lrho=lr, v0=1.0, x2=x2, r2=r2, wr=wr,
                table=zeta_table(M), logc=logc, cpow=cpow, M=float(M))


def solve_old(p, policy=False):
    from seqproj.worst_case_kernel import dp_kernel

    return dp_kernel(p["T"], p["nodes"], p["ea"], p["eb"], p["lrho"], p["v0"], p["x2"], p["r2"], p["wr"],
                     *p["table"], True, policy, True, p["logc"], p["cpow"], p["M"])


def solve_new(p, policy=False, parallel=True):
    from seqproj.worst_case_fast import dp_fast

    return dp_fast(p["T"], p["nodes"], p["ea"], p["eb"], p["lrho"], p["v0"], p["x2"], p["r2"], p["wr"],
                   p["table"], True, policy, True, p["logc"], p["cpow"], p["M"], parallel=parallel)


def agreement(p) -> float:
    """Max |W_old − W_new| (both steps returned) after checking the policies are equal; raises if
    the values differ by more than 1e-12."""
    Wo, Po, polo = solve_old(p, policy=True)
    Wn, Pn, poln = solve_new(p, policy=True)
    d = float(max(np.abs(Wo - Wn).max(), np.abs(Po - Pn).max()))
    if not d <= 1e-12 or not np.array_equal(polo, poln):
        raise AssertionError(f"fast solver disagrees with the reference: max |ΔW| = {d:.3g}, "
                             f"{int((polo != poln).sum())} policy entries differ")
    return d


def comparisons(quick: bool) -> list:
    grid = (25, 3, 16) if quick else (49, 5, 16)
    T = 30 if quick else 100
    p = problem(88, 0.5, T, *grid)
    work = f"M = 88, ε = 0.5, T = {T}, (n_u, n_v, n_x) = {grid}, PCHIP, sphere"
    return [
        Comparison("worst-case DP fast on all threads vs reference kernel", lambda: solve_new(p, parallel=True),
                   lambda: solve_old(p), target=10.0, work=work, setup=lambda: agreement(p)),
        Comparison("worst-case DP fast serial vs reference kernel", lambda: solve_new(p, parallel=False),
                   lambda: solve_old(p), target=1.0, work=work, setup=lambda: agreement(p)),
    ]


def speedup_row(M, eps, T, grid, rounds, parallel):
    """Interleaved old/new timing on one grid: ``dict`` with times, ratios and max |ΔW|."""
    p = problem(M, eps, T, *grid)
    d = agreement(p)
    res = measure(Comparison("row", lambda: solve_new(p, parallel=parallel), lambda: solve_old(p), target=1.0),
                  rounds)
    return {"M": M, "eps": eps, "T": T, "grid": grid, "parallel": parallel, "old_s": res["time_b"]["median"],
            "new_s": res["time_a"]["median"], "ratio": res["ratio"], "maxdiff": d}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python bench/worst_case_dp.py", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--table", action="store_true", help="also time per-solve cost for the M* table estimate")
    a = ap.parse_args(argv)
    import numba

    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"worst-case DP bench: {os.cpu_count()} cores, numba {numba.get_num_threads()} threads "
          f"({numba.config.THREADING_LAYER}), load average {load}, rounds {a.rounds}", flush=True)
    rows = [(88, 0.5, 100, (25, 3, 16)), (88, 0.5, 100, (49, 5, 16)), (338, 0.25, 100, (49, 5, 16)),
            (100, 0.5, 1000, (25, 3, 16))]
    if a.quick:
        rows = [(88, 0.5, 30, (25, 3, 16))]
    print("grid (n_u,n_v,n_x) | M | eps | T | threads | old s | new s | ratio median [min, max] | max |ΔW|")
    for M, eps, T, grid in rows:
        for par in (False, True):
            r = speedup_row(M, eps, T, grid, a.rounds, par)
            print(f"{grid} | {M} | {eps} | {T} | {'all' if par else 1} | {r['old_s']:.3f} | {r['new_s']:.3f} | "
                  f"{r['ratio']['median']:.2f} [{r['ratio']['min']:.2f}, {r['ratio']['max']:.2f}] | "
                  f"{r['maxdiff']:.1e}", flush=True)
    if not a.quick:
        from seqproj.worst_case import _use_threads

        p = problem(1000, 0.5, 10_000, 25, 3, 16)
        par = _use_threads(10_000 * 3 * 31 * 25)
        solve_new(problem(88, 0.5, 3, 25, 3, 16), parallel=par)
        t0 = time.perf_counter()
        W, _, _ = solve_new(p, parallel=par)
        print(f"one coarse solve (25, 3, 16) at T = 10^4, M = 1000, eps = 0.5: {time.perf_counter() - t0:.2f} s "
              f"(threads: {'all' if par else 1}; p = {W[12, -1]:.6g}; load {os.getloadavg()[0]:.2f})", flush=True)
    if a.table:
        _table(a.rounds)
    print(f"load average at end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


def _table(rounds):
    """Per-``M`` cost of the bracket, measured: ``worst_case_upper`` + ``worst_case_lower`` at one ``M``
    per ``ε`` (memo cleared first, as for a new ``M`` of a bisection) at ``T = 100`` and ``1000``;
    ``T = 300`` interpolated and ``T = 10⁴`` extrapolated linearly in ``T`` (an overestimate: the
    cost per step falls as the steps ``a = x²/V`` shrink); :func:`bracket_estimate` for the table."""
    import seqproj.worst_case as wcm
    from seqproj.worst_case import worst_case_upper
    from seqproj.worst_case_bracket import worst_case_lower

    Ms = {0.5: 100, 0.25: 380, 0.1: 2400}            # inside (or near) the brackets; ε = 0.1: ∝ 1/ε²
    per_M = {}
    for eps, M in Ms.items():
        for T in (100, 1000):
            wcm._SOLVES.clear()
            t0 = time.perf_counter()
            U, info = worst_case_upper(M, eps, T)
            t1 = time.perf_counter()
            lo, _ = worst_case_lower(M, eps, T, n=20_000, seed=5000 + M, alpha=0.01)
            t2 = time.perf_counter()
            per_M[(eps, T)] = t2 - t0
            print(f"eps {eps} M {M} T {T}: upper {t1 - t0:.1f} s (U = {U:.4g}, action grids "
                  f"{list(info['p_actions'])}), lower {t2 - t1:.1f} s (CP lo = {lo:.4g}); load "
                  f"{os.getloadavg()[0]:.1f}", flush=True)
    tot = 0.0
    for eps in Ms:
        a, b = per_M[(eps, 100)], per_M[(eps, 1000)]
        slope = (b - a) / 900.0
        for T in (100, 300, 1000, 10_000):
            sec = 14 * (a + slope * (T - 100))
            tot += sec
            print(f"M* bracket cell eps = {eps}, T = {T}: ~{sec / 60:.1f} min (14 M evaluated)", flush=True)
    print(f"whole table (12 cells, one after another): ~{tot / 60:.0f} min")


if __name__ == "__main__":
    raise SystemExit(main())
