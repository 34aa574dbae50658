"""Benchmark: the fused OTB advantage kernel vs a per-token Python loop and vs a memory copy.

Prints, from one run (same process, same arrays):

* throughput (tokens/s) of :func:`optimal_token_baseline_advantage` on
  512 responses × 8192 tokens (groups of 8, ragged lengths), of the plain-NumPy
  reference, and of the per-token Python loop (:func:`otb_advantage_loop`) on a
  subset of the rows; the ratio kernel/loop (target ≥ 50×);
* effective memory bandwidth of the kernel, bytes of its inputs read + outputs
  written over its time, against ``np.copy`` of the same input arrays
  (read + write); the ratio (target ≥ 0.25).

Timings are the median of ``--repeat`` runs after a warm-up (the min is shown
too).  The machine is shared: other processes change the absolute numbers, so
only the ratios measured in this run mean anything.

    python bench/otb.py [--rows 512] [--length 8192] [--group 8] [--loop-rows 8] [--repeat 5] [--seed 0]
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from proofs_check.baselines import optimal_token_baseline_advantage, otb_advantage_loop, otb_advantage_numpy


def make_batch(rows, length, group, seed):
    rng = np.random.default_rng(seed)
    lens = rng.integers(length // 4, length + 1, rows)
    mask = (np.arange(length)[None, :] < lens[:, None]).astype(np.float64)
    rewards = np.zeros((rows, length))
    rewards[np.arange(rows), lens - 1] = (rng.random(rows) < 0.5).astype(float)
    p_tok = rng.beta(5, 1, (rows, length))
    log_probs = np.log(p_tok)
    spp = np.clip(p_tok ** 2 + rng.uniform(0, 1, (rows, length)) * (1 - p_tok) ** 2, 1e-12, 1.0)
    group_ids = np.repeat(np.arange(rows // group), group)
    return rewards, mask, group_ids, log_probs, spp


def timed(fn, repeat):
    fn()  # warm-up (and numba compilation)
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts), min(ts)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=512)
    ap.add_argument("--length", type=int, default=8192)
    ap.add_argument("--group", type=int, default=8)
    ap.add_argument("--loop-rows", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    r, m, g, lp, spp = make_batch(a.rows, a.length, a.group, a.seed)
    tokens = a.rows * a.length

    t_k, t_k_min = timed(lambda: optimal_token_baseline_advantage(r, m, g, lp, spp), a.repeat)
    t_np, t_np_min = timed(lambda: otb_advantage_numpy(r, m, g, lp, spp), max(1, a.repeat // 2))
    sub = slice(0, a.loop_rows)
    t_loop, t_loop_min = timed(lambda: otb_advantage_loop(r[sub], m[sub], g[sub], lp[sub], spp[sub]), 3)
    loop_tokens = a.loop_rows * a.length

    # agreement on the loop subset
    A1, _ = optimal_token_baseline_advantage(r[sub], m[sub], g[sub], lp[sub], spp[sub])
    A2, _ = otb_advantage_loop(r[sub], m[sub], g[sub], lp[sub], spp[sub])
    agree = float(np.max(np.abs(A1 - A2)))

    inputs = (r, m, lp, spp)
    in_bytes = sum(x.nbytes for x in inputs)
    out_bytes = 2 * r.nbytes
    t_copy, t_copy_min = timed(lambda: [np.copy(x) for x in inputs], a.repeat)
    bw_kernel = (in_bytes + out_bytes) / t_k
    bw_copy = 2 * in_bytes / t_copy

    thr_k, thr_np, thr_loop = tokens / t_k, tokens / t_np, loop_tokens / t_loop
    print(f"OTB advantage benchmark: {a.rows} responses x {a.length} tokens, groups of {a.group}, "
          f"seed {a.seed}, median of {a.repeat} runs (shared machine: absolute numbers vary)")
    print(f"{'implementation':34s} {'time (s)':>10s} {'min (s)':>10s} {'tokens/s':>12s}")
    print(f"{'fused kernel (numba)':34s} {t_k:10.4f} {t_k_min:10.4f} {thr_k:12.3e}")
    print(f"{'NumPy reference (vectorised)':34s} {t_np:10.4f} {t_np_min:10.4f} {thr_np:12.3e}")
    print(f"{'per-token Python loop (' + str(a.loop_rows) + ' rows)':34s} {t_loop:10.4f} {t_loop_min:10.4f} "
          f"{thr_loop:12.3e}")
    print(f"{'np.copy of the 4 input arrays':34s} {t_copy:10.4f} {t_copy_min:10.4f}")
    print()
    print(f"speed-up kernel / per-token loop : {thr_k / thr_loop:10.1f}x   (target >= 50x)")
    print(f"speed-up kernel / NumPy reference: {thr_k / thr_np:10.1f}x")
    print(f"kernel effective bandwidth       : {bw_kernel / 1e9:10.2f} GB/s "
          f"({(in_bytes + out_bytes) / 1e6:.0f} MB read+written)")
    print(f"np.copy bandwidth                : {bw_copy / 1e9:10.2f} GB/s ({2 * in_bytes / 1e6:.0f} MB)")
    print(f"bandwidth ratio kernel / copy    : {bw_kernel / bw_copy:10.3f}    (target >= 0.25)")
    print(f"max |kernel - loop| on the subset: {agree:.2e}")
    return {"speedup_loop": thr_k / thr_loop, "bandwidth_ratio": bw_kernel / bw_copy, "agree": agree}


if __name__ == "__main__":
    main()
