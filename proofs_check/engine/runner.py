"""The chunked Monte Carlo runner (``docs/theory/engine.md`` §3).

A run is defined by a root seed and a number of fixed-size chunks.  Chunk
``k`` draws from ``SeedSequence(seed, spawn_key=(k,))`` — the same stream as
``SeedSequence(seed).spawn(k + 1)[k]`` — so its statistics depend only on
``(seed, k, chunk_size)``.  Results are combined in index order, and an early
stop is decided on the index-ordered prefix, so totals and stopping points are
identical on every executor and worker count.

The seed is checked once where a run starts (:func:`map_chunks` here,
``verify_claim`` and ``measure`` above) and handed down: :func:`run_chunks`
and the per-chunk generator take it as checked.  :func:`chunk_rng` and
:func:`run_chunk`, public for callers outside the engine, check their own.
"""
from __future__ import annotations

import json
import math
import re
from typing import Callable, Sequence

import numpy as np

from .errors import ResultFileError
from .executors import Executor, make_executor
from .store import ChunkStore, dump_stats, plain_stats
from .validate import check_int, check_seed

__all__ = ["chunk_rng", "run_chunk", "map_chunks", "run_chunks", "spot_check", "spot_check_size"]


#: map_chunks returns every chunk's result in a list: at most this many.
MAX_MAPPED_CHUNKS = 10 ** 7


def chunk_rng(seed: int, k: int) -> np.random.Generator:
    """The generator of chunk ``k`` under root ``seed``."""
    return _chunk_rng(check_seed(seed), check_int("k", k, lo=0))


def run_chunk(task: Callable, seed: int, k: int, n: int):
    """Run one chunk: ``task(chunk_rng(seed, k), n)``."""
    return task(chunk_rng(seed, k), n)


def _chunk_rng(seed: int, k: int) -> np.random.Generator:
    """:func:`chunk_rng` for a checked seed and index (the runner's own calls)."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(k,)))


def _run_chunk(task: Callable, seed: int, k: int, n: int):
    """:func:`run_chunk` for a checked seed and index (what the executors call)."""
    return task(_chunk_rng(seed, k), n)


def map_chunks(task: Callable, budget: int, *, chunk_size: int, seed: int = 0,
               executor: str | Executor | None = None, workers: int | None = None,
               progress: Callable[[int, int], None] | None = None) -> list:
    """Run ``budget`` units of ``task`` in chunks; results in chunk order.

    Chunk ``k`` calls ``task(chunk_rng(seed, k), n_k)`` with ``n_k = chunk_size``
    except for a shorter last chunk, so exactly ``budget`` units run.  ``task``
    must be picklable for the ``processes`` and ``dask`` executors.
    """
    if not callable(task):
        raise TypeError(f"task must be a callable task(rng, n), got {type(task).__name__}")
    budget = check_int("budget", budget, lo=1)
    chunk_size = check_int("chunk_size", chunk_size, lo=1)
    seed = check_seed(seed)
    n_chunks = -(-budget // chunk_size)
    if n_chunks > MAX_MAPPED_CHUNKS:
        raise ValueError(f"budget {budget} in chunks of {chunk_size} makes {n_chunks} chunks, more than the "
                         f"{MAX_MAPPED_CHUNKS} whose results map_chunks can hold; use larger chunks")
    sizes = [chunk_size] * (n_chunks - 1) + [budget - chunk_size * (n_chunks - 1)]
    out: list = [None] * n_chunks
    owned = not isinstance(executor, Executor)
    ex = make_executor(executor, workers)
    try:
        done_units = 0
        tasks = ((k, (task, seed, k, sizes[k])) for k in range(n_chunks))
        for k, res in ex.imap(_run_chunk, tasks, window=2 * ex.workers):
            out[k] = res
            done_units += sizes[k]
            if progress is not None:
                progress(done_units, int(budget))
    finally:
        if owned:
            ex.close()
    return out


def run_chunks(task: Callable, n_chunks: int, *, chunk_size: int, seed: int,
               executor: Executor, store: ChunkStore | None = None,
               stop: Callable[[Sequence], bool] | None = None,
               progress: Callable[[int, int], None] | None = None) -> list:
    """Run chunks ``0..n_chunks−1`` (skipping those already in ``store``).

    Each finished chunk is appended to ``store`` at once, so an interrupted run
    keeps it.  ``stop(stats)`` is called on each chunk's statistics in index
    order; when it returns True the run ends there and the returned prefix
    ends with that chunk.  Returns the list of chunk statistics used.
    ``seed`` is a checked root seed (:func:`.validate.check_seed`).
    """
    done: dict[int, list] = dict(store.chunks) if store is not None else {}
    prefix: list = []

    def advance() -> bool:
        while len(prefix) < n_chunks and len(prefix) in done:
            stats = done[len(prefix)]
            prefix.append(stats)
            if stop is not None and stop(stats):
                return True
        return False

    if advance():
        return prefix
    todo = (k for k in range(len(prefix), n_chunks) if k not in done)   # lazy: n_chunks may be huge
    if progress is not None:
        progress(len(done), n_chunks)
    tasks = ((k, (task, seed, k, chunk_size)) for k in todo)
    # one chunk in flight per worker: with early stopping every chunk beyond the stopping
    # point is wasted work (it runs to its end), and 2x the workers wasted up to twice as much
    # on a loaded machine (issue 13); the window changes the time only, never the prefix used
    gen = executor.imap(_run_chunk, tasks, window=executor.workers)
    try:
        for k, stats in gen:
            if isinstance(stats, list):
                stats = [v.item() if isinstance(v, np.generic) else v for v in stats]
            done[k] = stats
            if store is not None:
                store.append(k, stats)
            if progress is not None:
                progress(len(done), n_chunks)
            if advance():
                break
    finally:
        gen.close()
    return prefix


#: The resume spot check must catch a changed claim with at least this probability.
SPOT_CHECK_POWER = 1.0 - 1e-6


def spot_check_size(chunk_size: int, stored: int) -> int:
    """How many stored chunks the resume spot check recomputes.

    Worst case to catch: the code changed in a way the fingerprint cannot see
    (a library it calls, state reached at call time) so that a Bernoulli
    claim's p moved by Δ ≥ 1/m, m = ``chunk_size``.  A chunk draws m uniforms
    u and counts u < p; with the same seed its count is unchanged only if no u
    falls between the old and the new p, which has probability
    ``q = (1 − Δ)^m ≤ (1 − 1/m)^m ≤ e^{−1}`` (``(1 − 1/m)^m`` increases to
    ``1/e``).  Chunks draw from independent streams (``SeedSequence(seed,
    spawn_key=(k,))``), so ``s`` distinct recomputed chunks all agree with the
    stored ones with probability ``q^s``; ``q^s ≤ 1 − SPOT_CHECK_POWER = 1e-6``
    needs ``s = ⌈ln(1e−6) / ln q⌉`` — 14 for every m ≥ 10 (q → 1/e, ln 1e6 =
    13.8), 10 for m = 2, 1 for m = 1.  Capped by the number of chunks
    ``stored`` (all of them are then recomputed, which catches any change).
    Source: the binomial coupling above; ``docs/theory/engine.md`` §3 (chunk
    streams)."""
    m = int(chunk_size)
    if m <= 1:
        return min(1, stored)
    q = (1.0 - 1.0 / m) ** m
    need = math.ceil(math.log(1.0 - SPOT_CHECK_POWER) / math.log(q) - 1e-9)
    return max(0, min(int(need), int(stored)))


def spot_check(store: ChunkStore, task, seed: int, executor: Executor | None = None) -> None:
    """Recompute a seeded random sample of the stored chunks and compare each
    with the stored one.

    A record that checks out by range and checksum but was not produced by
    this code and seed — the code changed in a way the fingerprint cannot see,
    an edit that recomputed the checksum, a file from elsewhere — is refused.
    The sample holds the highest stored chunk and :func:`spot_check_size`
    chunks in all, drawn without replacement by a generator seeded with the
    run's seed and fingerprint (the same chunks on every resume of one run);
    a change of a Bernoulli claim's p by ≥ 1/chunk_size is caught with
    probability ≥ 1 − 1e-6.  A chunk that differs is computed once more: if the
    two fresh evaluations (same seed) differ from each other the claim is
    NON-DETERMINISTIC — it reads state besides its rng argument — and is
    reported as such (naming the globals it reads that usually cause it),
    not as edited.  Costs up to 14 chunks, run on ``executor`` when one is
    given (in parallel on its workers), else here; ``seed`` is a checked root seed."""
    if not store.chunks:
        return
    from .fingerprint import nondeterministic_reads

    size = int(store.header["chunk_size"])
    keys = sorted(store.chunks)
    s = spot_check_size(size, len(keys))
    fp = str(store.header.get("fingerprint", ""))
    entropy = [int(seed), int(fp, 16) if re.fullmatch(r"[0-9a-f]+", fp) else len(fp)]
    rng = np.random.default_rng(np.random.SeedSequence(entropy))
    rest = keys[:-1]
    picked = [keys[-1]] + [rest[i] for i in sorted(rng.choice(len(rest), size=min(s - 1, len(rest)),
                                                              replace=False))] if s > 1 else [keys[-1]]

    def as_stored(stats):
        return json.loads(dump_stats(plain_stats(stats)))

    def fresh(k):
        return as_stored(_run_chunk(task, seed, k, size))

    if executor is not None and executor.workers > 1 and len(picked) > 1:
        gen = executor.imap(_run_chunk, ((k, (task, seed, k, size)) for k in picked), window=executor.workers)
        try:
            computed = {k: as_stored(stats) for k, stats in gen}
        finally:
            gen.close()
    else:
        computed = None
    for k in picked:
        first = computed[k] if computed is not None else fresh(k)
        if first == store.chunks[k]:
            continue
        if fresh(k) != first:
            reads = nondeterministic_reads(task)
            why = (f"it reads {', '.join(reads)}" if reads else
                   "it reads state besides its rng argument, e.g. global np.random, time or a mutable global")
            raise ResultFileError(f"claim {store.name} is NON-DETERMINISTIC: two evaluations of chunk {k} with "
                                  f"seed {seed} differ ({why}); its results cannot be reproduced or resumed — "
                                  f"draw only from the rng argument, then run without --resume")
        raise ResultFileError(f"result store {store.db_path}: chunk {k} of {store.name} differs from a "
                              f"recomputation with this code and seed; it was edited or written by other "
                              f"code (a change the fingerprint cannot see) — delete the store or run "
                              f"without --resume")
