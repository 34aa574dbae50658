"""Per-round cost of posterior sampling in a linear bandit (theory ``docs/theory/ensemble.md#cost``).

One round = sample a parameter + score K arms + update the posterior with the
played arm.  Compared in one run, at d ∈ {50, 100, 200, 400}, K = 1000:

* ``ensemble++``   — linear Ensemble++ (:class:`seqproj.ensemble.LinearEnsemblePP`),
  M = d·⌈log T⌉ with T = 2000 (M = 8d): Sherman–Morrison on Σ, rank-one on A,
  sample = one matrix-vector product.  O(d² + dM) = O(d²) at M ∝ d.
* ``ts-refactor``  — exact Thompson sampling that refactorises Σ every round
  (Sherman–Morrison on Σ, then ``cholesky(Σ)``): O(d³).
* ``ts-mvn``       — the most common implementation,
  ``Generator.multivariate_normal(μ, Σ)`` (an SVD of Σ every round): O(d³).
* ``ts-rank1``     — exact TS with a Cholesky factor of the precision kept by
  rank-one updates (numba kernel) and triangular solves: O(d²).

All methods run with single-threaded BLAS (multi-threaded OpenBLAS on a loaded
2-core machine made single timings swing by 100×).  Prints per-round times
(minimum of 5 timed blocks, and the median/min spread as the uncertainty), ratios to Ensemble++, and
the least-squares exponent of time vs d for each method.  Usage:
``python bench/ensemble_step.py [--quick]``.
"""
from __future__ import annotations

import math
import sys
import time

import numpy as np
from scipy.linalg import solve_triangular

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))

from proofs_check.engine.blas import single_threaded_blas  # noqa: E402
from seqproj.ensemble import LinearEnsemblePP, chol_rank1_update  # noqa: E402


def _problem(d, K, seed):
    g = np.random.default_rng(seed)
    X = g.uniform(-1 / math.sqrt(5), 1 / math.sqrt(5), size=(K, d))
    theta = math.sqrt(10) * g.standard_normal(d)
    return g, X, theta


def run_epp(d, K, M, rounds, seed=0):
    g, X, theta = _problem(d, K, seed)
    ens = LinearEnsemblePP(d, M, prior_var=10.0, noise_sd=1.0, rng=g)
    t0 = time.perf_counter()
    for _ in range(rounds):
        th = ens.sample(g)
        x = X[int(np.argmax(X @ th))]
        ens.update(x, float(x @ theta + g.standard_normal()))
    return (time.perf_counter() - t0) / rounds


def run_ts_refactor(d, K, rounds, seed=0, mvn=False):
    g, X, theta = _problem(d, K, seed)
    Sigma = 10.0 * np.eye(d)
    mu = np.zeros(d)
    t0 = time.perf_counter()
    for _ in range(rounds):
        if mvn:
            th = g.multivariate_normal(mu, Sigma)
        else:
            th = mu + np.linalg.cholesky(Sigma) @ g.standard_normal(d)
        x = X[int(np.argmax(X @ th))]
        y = float(x @ theta + g.standard_normal())
        gv = Sigma @ x
        c = 1.0 + float(x @ gv)
        Sigma -= np.outer(gv, gv / c)
        mu += gv * ((y - float(x @ mu)) / c)
    return (time.perf_counter() - t0) / rounds


def run_ts_rank1(d, K, rounds, seed=0):
    g, X, theta = _problem(d, K, seed)
    L = np.eye(d) / math.sqrt(10.0)          # Cholesky of the precision Σ⁻¹
    b = np.zeros(d)
    t0 = time.perf_counter()
    for _ in range(rounds):
        w = solve_triangular(L, b, lower=True, check_finite=False)
        w += g.standard_normal(d)             # Lᵀ u = L⁻¹ b + g  ->  u = μ + L⁻ᵀ g
        th = solve_triangular(L, w, lower=True, trans="T", check_finite=False)
        x = X[int(np.argmax(X @ th))]
        y = float(x @ theta + g.standard_normal())
        chol_rank1_update(L, x)
        b += y * x
    return (time.perf_counter() - t0) / rounds


def timed(fn, *args, target=0.2, reps=5):
    """Minimum over ``reps`` timed blocks (the least disturbed by other jobs)."""
    per = fn(*args, 3)                        # warm-up (and numba compile)
    rounds = max(5, int(target / max(per, 1e-6)))
    blocks = [fn(*args, rounds) for _ in range(reps)]
    return float(np.min(blocks)), float(np.median(blocks))


def main(quick=False):
    T, K = 2000, 1000
    ds = (25, 50, 100) if quick else (50, 100, 200, 400)
    logT = math.ceil(math.log(T))
    print(f"per-round cost (sample + score K = {K} arms + update), M = d·⌈log T⌉ = {logT}d "
          f"(T = {T}); float64; single-threaded BLAS; minimum of 5 timed blocks of ≈0.2 s; "
          "machine shared with other jobs")
    names = ("ensemble++", "ts-refactor", "ts-mvn", "ts-rank1")
    res = {n: [] for n in names}
    med = {n: [] for n in names}
    for d in ds:
        for n, fn, args in (("ensemble++", run_epp, (d, K, logT * d)),
                            ("ts-refactor", run_ts_refactor, (d, K)),
                            ("ts-mvn", lambda dd, kk, r: run_ts_refactor(dd, kk, r, mvn=True), (d, K)),
                            ("ts-rank1", run_ts_rank1, (d, K))):
            lo, mid = timed(fn, *args)
            res[n].append(lo)
            med[n].append(mid)
    hdr = f"{'d':>5} " + " ".join(f"{n + ' [ms]':>16}" for n in names) + \
        f" {'refactor/E++':>13} {'mvn/E++':>9} {'rank1/E++':>10}"
    print(hdr)
    for i, d in enumerate(ds):
        e = res["ensemble++"][i]
        print(f"{d:>5} " + " ".join(f"{1e3 * res[n][i]:>16.4f}" for n in names)
              + f" {res['ts-refactor'][i] / e:>13.2f} {res['ts-mvn'][i] / e:>9.2f}"
              + f" {res['ts-rank1'][i] / e:>10.2f}")
    print("spread (median/min of the 5 blocks; load from other jobs): "
          + "; ".join(f"{n} " + ", ".join(f"{m / l:.2f}" for m, l in zip(med[n], res[n]))
                      for n in names))
    lx = np.log(np.asarray(ds, float))
    print("fitted exponent of time vs d (least squares on log–log, all d; last two d):")
    for n in names:
        ly = np.log(res[n])
        full = np.polyfit(lx, ly, 1)[0]
        tail = (ly[-1] - ly[-2]) / (lx[-1] - lx[-2])
        print(f"  {n:<12} {full:5.2f}   {tail:5.2f}")
    return res


if __name__ == "__main__":
    with single_threaded_blas():
        main(quick="--quick" in sys.argv)
