"""Experiments: one simulation, stored once, read by several claims and figures.

An :class:`Experiment` is a picklable ``fn(rng, n) -> {name: array}`` that
runs ``n`` independent trials and returns named per-trial statistics (each
array's first axis has length ``n``).  :func:`measure` runs it in chunks under
the engine's seeding (chunk ``k`` draws from ``SeedSequence(seed,
spawn_key=(k,))``, exactly like a claim), keeps every chunk in memory for the
process and, with ``out``, in the folder's store (``OUT/theorycheck.sqlite``,
exported to ``OUT/experiments/<id>.chunks.jsonl``) — so a
claim that reads the experiment (``Claim(experiment=..., reduce=...)``) and
the figure that plots it see the same numbers, computed once.

The in-process memo is keyed by the experiment's fingerprint, the root seed,
the chunk size and the chunk index — the identity of a chunk, not the state of
a generator.
"""
from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from .executors import Executor, make_executor
from .runner import run_chunks
from .store import ChunkStore, ResultFileError, spot_check

__all__ = ["Experiment", "Measurement", "measure", "experiment_chunks", "clear_measurements", "as_arrays"]


@dataclass(frozen=True, kw_only=True)
class Experiment:
    """A simulation producing named per-trial statistics.

    ``fn(rng, n)`` runs ``n`` independent trials and returns a mapping from
    statistic names to arrays whose first axis has length ``n``.  ``version``
    is bumped when the code under ``fn`` changes what it computes in a way the
    fingerprint cannot see.
    """

    id: str
    fn: Callable[[np.random.Generator, int], Mapping[str, Any]]
    chunk_size: int = 100
    params: Mapping[str, Any] = field(default_factory=dict)
    version: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id or " " in self.id:
            raise ValueError(f"experiment id must be a non-empty string without spaces, got {self.id!r}")
        if isinstance(self.chunk_size, bool) or not isinstance(self.chunk_size, (int, np.integer)) \
                or self.chunk_size < 1:
            raise ValueError(f"experiment {self.id}: chunk_size must be a positive integer, "
                             f"got {self.chunk_size!r}")
        if not callable(self.fn):
            raise TypeError(f"experiment {self.id}: fn must be callable, got {self.fn!r}")

    def fingerprint(self) -> str:
        from .fingerprint import canonical, describe_callable

        payload = json.dumps({"experiment": self.id, "version": int(self.version),
                              "chunk_size": int(self.chunk_size), "params": canonical(dict(self.params)),
                              "fn": describe_callable(self.fn)}, sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    def chunk_task(self):
        import functools

        return functools.partial(_experiment_chunk, self.fn)


def _experiment_chunk(fn, rng, n) -> dict:
    out = fn(rng, n)
    if not isinstance(out, Mapping) or not out:
        raise ValueError(f"an experiment must return a non-empty mapping of named per-trial arrays, "
                         f"got {type(out).__name__}")
    stats = {}
    for name, value in out.items():
        arr = np.asarray(value)
        if arr.ndim == 0 or arr.shape[0] != n:
            raise ValueError(f"experiment statistic {name!r} has shape {arr.shape}; its first axis "
                             f"must be the {n} trials")
        stats[str(name)] = arr.tolist()
    return stats


def as_arrays(stats: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """A chunk's statistics as NumPy arrays (what a claim's ``reduce`` receives)."""
    return {name: np.asarray(value) for name, value in stats.items()}


# -- the in-process memo: chunk identity -> statistics -------------------------

_MEMO: "OrderedDict[tuple, dict]" = OrderedDict()
_MEMO_LOCK = threading.Lock()
_MEMO_MAX = 4096
#: Stores whose chunks of an experiment were spot-checked by this process.
_SPOT_CHECKED: set = set()


def _memo_chunks(key, n_chunks: int) -> dict:
    """The memoised chunks ``k < n_chunks`` of one (experiment, seed, chunk size);
    scans the memo (bounded), never ``range(n_chunks)``."""
    with _MEMO_LOCK:
        found = {full[-1]: s for full, s in _MEMO.items() if full[:-1] == key and full[-1] < n_chunks}
        for k in found:
            _MEMO.move_to_end(key + (k,))
    return found


def _memo_put(key, stats) -> None:
    with _MEMO_LOCK:
        _MEMO[key] = stats
        _MEMO.move_to_end(key)
        while len(_MEMO) > _MEMO_MAX:
            _MEMO.popitem(last=False)


def clear_measurements() -> None:
    """Forget every chunk measured in this process (e.g. after patching code in a test)."""
    with _MEMO_LOCK:
        _MEMO.clear()
        _SPOT_CHECKED.clear()


@dataclass(frozen=True)
class Measurement:
    """The chunks of an experiment: ``stats[name]`` stacks every trial in chunk order."""

    experiment: Experiment
    seed: int
    chunks: tuple
    stats: Mapping[str, np.ndarray]

    @property
    def trials(self) -> int:
        return sum(len(next(iter(c.values()))) for c in self.chunks) if self.chunks else 0


def experiment_chunks(experiment: Experiment, n_chunks: int, *, seed: int, executor: Executor,
                      out=None, stop: Callable[[dict], bool] | None = None,
                      progress: Callable[[int, int], None] | None = None) -> list[dict]:
    """Chunks ``0..n_chunks−1`` of ``experiment`` (a prefix, if ``stop`` ends
    the run early), from the memo, the result file in ``out`` or a fresh run."""
    fp = experiment.fingerprint()
    key = (fp, int(seed), int(experiment.chunk_size))
    have = _memo_chunks(key, n_chunks)
    header = {"kind": "experiment", "fingerprint": fp, "seed": int(seed),
              "chunk_size": int(experiment.chunk_size)}
    name = f"experiment:{experiment.id}"
    try:
        store = ChunkStore.open(out, name, header, resume=True)
        checked = (str(store.db_path), name, fp, int(seed), experiment.chunk_size)
        try:
            if checked not in _SPOT_CHECKED and not have:   # once per process and store
                spot_check(store, experiment.chunk_task(), seed)
                _SPOT_CHECKED.add(checked)
        except ResultFileError:
            store.close()
            raise
    except ResultFileError:        # another fingerprint or seed, or a damaged run: measure afresh
        store = ChunkStore.open(out, name, header, resume=False)
    with store:
        for k, s in have.items():
            if k not in store.chunks:
                store.append(k, s)
        prefix = run_chunks(experiment.chunk_task(), n_chunks, chunk_size=experiment.chunk_size,
                            seed=seed, executor=executor, store=store, stop=stop, progress=progress)
    for k, s in enumerate(prefix):
        _memo_put(key + (k,), s)
    return prefix


def measure(experiment: Experiment, budget: int, *, seed: int = 0, executor=None,
            workers: int | None = None, out=None,
            progress: Callable[[int, int], None] | None = None) -> Measurement:
    """Run (or recall) ``budget`` trials of ``experiment``, rounded up to whole chunks."""

    from .verify import check_budget, check_seed

    if not isinstance(experiment, Experiment):
        raise TypeError(f"experiment must be an Experiment, got {type(experiment).__name__}")
    budget = check_budget(budget)
    seed = check_seed(seed)
    n_chunks = -(-budget // experiment.chunk_size)
    owned = not isinstance(executor, Executor)
    ex = make_executor(executor, workers)
    try:
        chunks = experiment_chunks(experiment, n_chunks, seed=int(seed), executor=ex, out=out,
                                   progress=progress)
    finally:
        if owned:
            ex.close()
    names = list(chunks[0])
    stats = {name: np.concatenate([np.asarray(c[name]) for c in chunks]) for name in names}
    return Measurement(experiment=experiment, seed=int(seed), chunks=tuple(chunks), stats=stats)
