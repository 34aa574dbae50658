"""Per-round cost of posterior sampling in a linear bandit (theory ``docs/theory/ensemble.md#cost``).

One round = sample a parameter + score K = 1000 arms + update the posterior with the played arm,
on the finite-arm problem of the regret sweep (arms Unif[−1/√5, 1/√5]^d, θ* ~ N(0, 10 I), σ = 1).
Comparisons (``comparisons(quick)``, run interleaved by :mod:`bench.harness`; ``python -m bench
ensemble_step``):

* ``ensemble++ fused round vs np.copy roofline (d=200, M=8d)`` — the fused round
  (:mod:`seqproj.ensemble.fused_round`: one read of the factor per round, the deferred rank-k
  update every k rounds) against ``np.copy`` of the bytes the round touches
  (:func:`~seqproj.ensemble.fused_round.bytes_per_round`: ``8[dM(1+2/k) + k(d+M) + d(d+1) + Kd]``),
  one copy of a buffer of half that size per round (a copy reads and writes).  Target ≥ 0.5 (issue
  13).  The same against ``np.copyto`` into a preallocated buffer (no allocation: a stricter
  roofline), same target.
* ``ensemble++ fused vs plain round (d=200, M=8d)`` — against the existing
  :class:`~seqproj.ensemble.LinearEnsemblePP` round (``sample`` + score + ``update``; four passes
  over the factor); target ≥ 1 (not slower).
* ``ensemble++ at M* vs rank-one exact TS, d=…`` — the fused Ensemble++ round at the smallest
  M found within 10% of TS regret (:data:`M_STAR`, from the regret measurements of
  ``docs/history/ensemble.md``) against exact TS with a rank-one-updated Cholesky factor of the
  precision, built the same way (:func:`seqproj.ensemble.cholesky_update.ts_rounds`: two passes
  over the triangle per round).  Target ≥ 1 (Ensemble++ faster) for d ≥ 200; d = 50, 100 locate
  the crossover.

Both sides of every comparison run single-threaded (BLAS included).  ``python bench/ensemble_step.py
[--quick]`` runs this module alone.
"""
from __future__ import annotations

import math
import os
import sys

import numpy as np

if __package__ in (None, ""):                          # python bench/ensemble_step.py
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bench.harness import Comparison  # noqa: E402
from proofs_check.engine import single_threaded_blas  # noqa: E402

K = 1000
#: Smallest Gaussian-family M whose mean final regret is within 10% of exact TS (sweep setting,
#: T = 2000): d = 50 from the issue-4 sweep (50 reps: ratio 1.04 at M = 8); d = 100, 200, 400
#: measured for issue 13 (docs/history/ensemble-data/issue13_smallest_m.py); d = 800 not measured —
#: the value of d = 400 is carried over (stated in the note).
M_STAR = {50: 8, 100: 8, 200: 8, 400: 8, 800: 8}


def _problem(d, seed=0):
    g = np.random.default_rng(seed)
    X = g.uniform(-1 / math.sqrt(5), 1 / math.sqrt(5), size=(K, d))
    theta = math.sqrt(10) * g.standard_normal(d)
    return g, X, X @ theta


def epp_runner(d, M, rounds, seed=0):
    """``(run, bytes_per_call)``: ``run()`` plays ``rounds`` fused Ensemble++ rounds on a state kept
    between calls (indices and perturbations pre-drawn once and recycled: timing only)."""
    from seqproj.ensemble.fused_round import EppState, bytes_per_round, default_deferral, run_epp_rounds

    g, X, Xth = _problem(d, seed)
    k = default_deferral(d, M)
    zeta = g.standard_normal((rounds, M))
    z = g.standard_normal((rounds, M)) / math.sqrt(M)
    eta = g.standard_normal(rounds)
    st = EppState(np.zeros(d), 10.0, math.sqrt(10.0 / M) * g.standard_normal((d, M)), zeta[0], k)
    best = float(Xth.max())

    def run():
        with single_threaded_blas():
            run_epp_rounds(X, Xth, best, eta, 1.0, zeta, z, st)

    return run, bytes_per_round(d, M, K, k) * rounds


def plain_epp_runner(d, M, rounds, seed=0):
    """``rounds`` rounds of the existing :class:`~seqproj.ensemble.LinearEnsemblePP` (sample,
    score, update)."""
    from seqproj.ensemble import LinearEnsemblePP

    g, X, Xth = _problem(d, seed)
    ens = LinearEnsemblePP(d, M, prior_var=10.0, noise_sd=1.0, rng=g)

    def run():
        with single_threaded_blas():
            for _ in range(rounds):
                th = ens.sample(g)
                a = int(np.argmax(X @ th))
                ens.update(X[a], float(Xth[a] + g.standard_normal()))

    return run


def ts_runner(d, rounds, seed=0):
    """``rounds`` exact-TS rounds (:func:`~seqproj.ensemble.cholesky_update.ts_rounds`) on a state
    kept between calls."""
    from seqproj.ensemble.cholesky_update import ts_rounds

    g, X, Xth = _problem(d, seed)
    G = g.standard_normal((rounds, d))
    eta = g.standard_normal(rounds)
    L = np.asfortranarray(np.eye(d) / math.sqrt(10.0))
    w, b = np.zeros(d), np.zeros(d)
    reg, ch = np.empty(rounds), np.empty(rounds, dtype=np.int64)
    best = float(Xth.max())

    def run():
        ts_rounds(X, Xth, best, eta, 1.0, G, L, w, b, reg, ch)

    return run


def copy_runner(nbytes, calls, prealloc):
    """``calls`` copies of a buffer of ``nbytes / 2`` bytes (each copy reads and writes it)."""
    src = np.ones(max(1, int(nbytes) // 16))
    dst = np.empty_like(src)
    if prealloc:
        def run():
            for _ in range(calls):
                np.copyto(dst, src)
    else:
        def run():
            for _ in range(calls):
                np.copy(src)
    return run


def comparisons(quick: bool) -> list:
    d = 200
    M = 8 * d
    rounds = 20 if quick else 60
    run_epp, nbytes = epp_runner(d, M, rounds)
    per_round = nbytes // rounds
    out = []
    for prealloc, label in ((False, "np.copy"), (True, "np.copyto, preallocated")):
        out.append(Comparison(
            name=f"ensemble++ fused round vs {label} roofline (d={d}, M=8d)",
            run_a=run_epp, run_b=copy_runner(per_round, rounds, prealloc), target=0.5,
            work=f"{rounds} rounds, K={K}; {per_round / 1e6:.2f} MB touched per round "
                 f"(8[dM(1+2/k)+k(d+M)+d(d+1)+Kd]) vs {rounds} copies of {per_round / 2e6:.2f} MB",
            setup=run_epp))
    plain = plain_epp_runner(d, M, rounds)
    out.append(Comparison(
        name=f"ensemble++ fused vs plain round (d={d}, M=8d)", run_a=run_epp, run_b=plain, target=1.0,
        work=f"{rounds} rounds each (sample + score K={K} + update); plain = LinearEnsemblePP",
        setup=lambda: (run_epp(), plain())))
    for dd in ((50, 200) if quick else (50, 100, 200, 400, 800)):
        # ≈ 20–60 ms per call: the round costs ≈ d² (Σ or the triangle) + Kd (scoring) flops
        r = max(8, int((1e7 if quick else 3e7) / (dd * dd + K * dd)))
        a, _ = epp_runner(dd, M_STAR[dd], r)
        b = ts_runner(dd, r)
        tag = "" if dd >= 200 else " (crossover probe)"
        out.append(Comparison(
            name=f"ensemble++ at M*={M_STAR[dd]} vs rank-one exact TS, d={dd}{tag}", run_a=a, run_b=b,
            target=1.0, work=f"{r} rounds each, K={K}; both fused numba kernels",
            setup=lambda a=a, b=b: (a(), b())))
    return out


if __name__ == "__main__":
    from bench.harness import format_result, measure

    q = "--quick" in sys.argv
    for c in comparisons(q):
        print(format_result(measure(c, 3 if q else 7)), f"({c.work})", flush=True)
