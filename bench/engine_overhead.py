"""Engine overhead: a trivial Bernoulli claim at 10^7 trials through the engine
against a bare NumPy loop drawing the same numbers, in one run.

    python bench/engine_overhead.py [--trials 10000000] [--chunk 1000000] [--repeat 5]

Prints the best-of-``repeat`` wall time of each and the ratios
(targets: engine on 1 worker ≤ 1.5× the bare loop; on 2 workers < 1×).
"""
from __future__ import annotations

import argparse
import functools
import os
import platform
import time

import numpy as np

from proofs_check.engine import ProbabilityClaim, make_executor, verify_claim
from proofs_check.engine.runner import chunk_rng
from proofs_check.selftest.samplers import bernoulli_events

P = 0.01


def bare_loop(trials: int, chunk: int, seed: int) -> int:
    """The same chunk generators and draws, no engine."""
    events = 0
    for k in range(trials // chunk):
        events += int(np.count_nonzero(chunk_rng(seed, k).random(chunk) < P))
    return events


def best_of(fn, repeat):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=10_000_000)
    ap.add_argument("--chunk", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    claim = ProbabilityClaim(id="bench.bernoulli", statement="P(X=1) ≤ δ", source="bench", label="DERIVED",
                             fn=functools.partial(bernoulli_events, p=P), delta=0.02, chunk_size=a.chunk)
    t_bare, k_bare = best_of(lambda: bare_loop(a.trials, a.chunk, a.seed), a.repeat)
    rows = [("bare NumPy loop", 1, t_bare, k_bare)]
    for name, workers in (("serial", 1), ("threads", 1), ("threads", 2), ("processes", 2), ("dask", 2)):
        with make_executor(name, workers) as ex:
            verify_claim(claim, budget=4 * a.chunk, seed=a.seed, method="fixed", executor=ex)  # warm pool
            t, r = best_of(lambda: verify_claim(claim, budget=a.trials, seed=a.seed, method="fixed",
                                                executor=ex), a.repeat)
        rows.append((f"engine ({name})", workers, t, r.events))
    print(f"engine overhead, {a.trials:.0e} Bernoulli({P}) trials in chunks of {a.chunk}, seed {a.seed}, "
          f"best of {a.repeat}; {os.cpu_count()} cores, numpy {np.__version__}, {platform.python_version()}")
    print(f"{'run':24s} {'workers':>7s} {'seconds':>9s} {'ratio vs bare':>14s} {'events':>9s}")
    for name, w, t, k in rows:
        print(f"{name:24s} {w:7d} {t:9.3f} {t / t_bare:14.2f} {k:9d}")
    assert len({k for *_, k in rows}) == 1, "event counts differ between runs"
    print("targets: engine 1 worker ≤ 1.50× bare; engine 2 workers < 1.00× bare")


if __name__ == "__main__":
    main()
