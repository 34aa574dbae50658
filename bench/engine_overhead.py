"""Engine overhead: a trivial Bernoulli claim at 10^8 trials through the engine against a bare
NumPy loop drawing the same numbers, as interleaved comparisons (``python -m bench engine``).

A = ``verify_claim`` (fixed budget) on an executor, B = the bare loop over the same chunk
generators; ratio time_B/time_A.  Targets: one worker ≥ 1/1.5 (engine ≤ 1.5× the bare loop);
two workers ≥ 1 (faster than the bare loop); the default executor (``executor=None``,
"auto": all cores) ≥ 1.  Dask is left out: its scheduler round trips (~5 ms per chunk) make
it slower than one core on one machine — it is there to scale out.

    python bench/engine_overhead.py      # the same comparisons, this module only
"""
from __future__ import annotations

import atexit
import functools
import os
import sys

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bench.harness import Comparison  # noqa: E402
from proofs_check.engine import ProbabilityClaim, make_executor, verify_claim  # noqa: E402
from proofs_check.engine import chunk_rng  # noqa: E402
from proofs_check.selftest.samplers import bernoulli_events  # noqa: E402

P = 0.01


def bare_loop(trials: int, chunk: int, seed: int) -> int:
    """The same chunk generators and draws, no engine."""
    events = 0
    for k in range(trials // chunk):
        events += int(np.count_nonzero(chunk_rng(seed, k).random(chunk) < P))
    return events


def comparisons(quick: bool) -> list[Comparison]:
    # 10^8 trials (~0.2 s a call): at 10^7 (~20 ms) scheduling jitter alone spread the per-round
    # ratios over ±30 % and left the two-worker targets unsettled
    trials, chunk = (10_000_000, 500_000) if quick else (100_000_000, 1_000_000)
    claim = ProbabilityClaim(id="bench.bernoulli", statement="P(X=1) ≤ δ", source="bench", label="DERIVED",
                             fn=functools.partial(bernoulli_events, p=P), delta=0.02, chunk_size=chunk)
    pools: dict = {}

    def pool(name, workers):
        key = (name, workers)
        if key not in pools:
            pools[key] = make_executor(name, workers)
            atexit.register(pools[key].close)
        return pools[key]

    expected = []

    def bare():
        k = bare_loop(trials, chunk, 0)
        expected.append(k)
        return k

    def engine(name, workers):
        ex = None if name is None else pool(name, workers)
        r = verify_claim(claim, budget=trials, seed=0, method="fixed", executor=ex)
        if expected and r.events != expected[-1]:
            raise AssertionError(f"engine counted {r.events} events, the bare loop {expected[-1]}")
        return r.events

    out = []
    for name, workers, target in (("serial", 1, 1 / 1.5), ("threads", 1, 1 / 1.5), ("threads", 2, 1.0),
                                  ("processes", 2, 1.0), (None, None, 1.0)):
        label = "default (auto, all cores)" if name is None else f"{name}, {workers} worker(s)"
        warm = functools.partial(lambda n, w: verify_claim(claim, budget=4 * chunk, seed=0, method="fixed",
                                                           executor=None if n is None else pool(n, w)),
                                 name, workers)
        out.append(Comparison(f"engine ({label}) vs bare NumPy loop", functools.partial(engine, name, workers),
                              bare, target, f"{trials:.0e} Bernoulli({P}) trials in chunks of {chunk}", warm))
    return out


if __name__ == "__main__":
    from bench.run_all import main as run_all

    run_all(["engine_overhead"] + sys.argv[1:])
