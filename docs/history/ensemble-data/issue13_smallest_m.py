"""Issue 13: smallest Gaussian-family M within 10% of exact-TS regret at d = 100, 200 (finite arms).

The sweep setting of the note (K = 1000 arms Unif[−1/√5, 1/√5]^d, θ* ~ N(0, 10 I), σ = 1, T = 2000),
run through the fused kernels (`simulate_fused`, `simulate_ts_fused`; their regret trajectories equal
the lock-step simulator's, tests/ensemble/test_fused_round.py).  Every agent of a repetition sees the
same θ*, arms and noise (common random numbers: the same generator state per repetition).  Prints, per
M, the mean final-regret ratio E++/TS and a 90% percentile bootstrap interval (paired resampling of
repetitions, 2000 resamples, seed 0).  Usage: python issue13_smallest_m.py D N_REPS
"""
import sys
import time

import numpy as np

from proofs_check.engine.blas import single_threaded_blas
from seqproj.ensemble import EnsemblePP, ExactTS, FiniteArmEnv
from seqproj.ensemble.cholesky_update import simulate_ts_fused
from seqproj.ensemble.fused_round import simulate_fused

d, n = int(sys.argv[1]), int(sys.argv[2])
MS = (8, 16, 32, 64)
T = 2000
env = FiniteArmEnv(d, 1000)
root = np.random.SeedSequence(0)
final = np.empty((1 + len(MS), n))
t0 = time.time()
with single_threaded_blas():
    for r, ss in enumerate(root.spawn(n)):
        final[0, r] = simulate_ts_fused(env, ExactTS(), T, np.random.default_rng(ss)).sum()
        for j, M in enumerate(MS):
            final[1 + j, r] = simulate_fused(env, EnsemblePP(M), T, np.random.default_rng(ss)).sum()
        print(f"rep {r} done, {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
boot = np.random.default_rng(0).integers(0, n, size=(2000, n))
ts = final[0]
print(f"d = {d}, {n} reps, T = {T}, K = 1000, seed 0; TS mean final regret {ts.mean():.1f} "
      f"(sd {ts.std(ddof=1):.1f}); {time.time() - t0:.0f} s")
for j, M in enumerate(MS):
    e = final[1 + j]
    ratio = e.mean() / ts.mean()
    bs = e[boot].mean(axis=1) / ts[boot].mean(axis=1)
    lo, hi = np.percentile(bs, [5, 95])
    print(f"  M = {M:3d}: E++ mean {e.mean():8.1f}  ratio to TS {ratio:.3f}  90% CI [{lo:.3f}, {hi:.3f}]")
