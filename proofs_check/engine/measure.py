"""Measuring an experiment: its chunks, run once per process and kept.

:func:`measure` runs an :class:`~.experiment.Experiment` in chunks under the
engine's seeding (chunk ``k`` draws from ``SeedSequence(seed,
spawn_key=(k,))``, ``docs/theory/engine.md`` §3), keeps every chunk in memory
for the process and, with ``out``, in the folder's store
(``OUT/theorycheck.sqlite``, exported to ``OUT/experiments/<id>.chunks.jsonl``).
:func:`experiment_chunks` is the same for the engine: the chunks a claim that
reads the experiment decides from.

The in-process memo is keyed by the experiment's fingerprint, the root seed,
the chunk size and the chunk index — the identity of a chunk, not the state of
a generator.
"""
from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

from .errors import ResultFileError
from .executors import Executor, make_executor
from .experiment import Experiment
from .runner import run_chunks, spot_check
from .store import ChunkStore
from .validate import check_budget, check_seed

__all__ = ["Measurement", "measure", "experiment_chunks", "clear_measurements", "set_default_store"]


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


#: the chunk store :func:`measure` reads and writes when it is called without ``out``, and the
#: time from which its runs were written by this very run of the program (see below)
_DEFAULT_OUT: list = [None, None]


def set_default_store(out, *, trusted_since: float | None = None) -> None:
    """Make :func:`measure` calls without ``out`` in this process use the chunk store in the
    folder ``out`` (``None``: memory only again, the default).  A report sets it in its figure
    workers to its own ``chunks`` folder, so a figure reads the chunks the claims measured
    instead of measuring them again (chunks are identified by experiment fingerprint, seed,
    chunk size and index, so the numbers are the same either way).

    ``trusted_since`` (a ``time.time()``): a stored run *created* at or after it was written by
    the caller's own program run — the same code — so the resume spot check (up to 14 chunks
    recomputed, :func:`.runner.spot_check`) is skipped for it; older runs are spot-checked as
    always."""
    if out is not None and not isinstance(out, (str, os.PathLike)):
        raise TypeError(f"out must be a folder path or None, got {type(out).__name__}")
    if trusted_since is not None and (isinstance(trusted_since, bool)
                                      or not isinstance(trusted_since, (int, float))):
        raise TypeError(f"trusted_since must be a time.time() value or None, got {trusted_since!r:.60}")
    _DEFAULT_OUT[0] = None if out is None else os.fspath(out)
    _DEFAULT_OUT[1] = None if out is None or trusted_since is None else float(trusted_since)


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
                      progress: Callable[[int, int], None] | None = None,
                      trusted_since: float | None = None) -> list[dict]:
    """Chunks ``0..n_chunks−1`` of ``experiment`` (a prefix, if ``stop`` ends
    the run early), from the memo, the result file in ``out`` or a fresh run.
    ``seed`` is a checked root seed (:func:`.validate.check_seed`).  A stored run created at or
    after ``trusted_since`` is not spot-checked (:func:`set_default_store`)."""
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
            trusted = (trusted_since is not None and store.created is not None
                       and store.created >= trusted_since)
            if checked not in _SPOT_CHECKED and not have and not trusted:   # once per process and store
                spot_check(store, experiment.chunk_task(), seed, executor)
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
    """Run (or recall) ``budget`` trials of ``experiment``, rounded up to whole chunks.
    ``out``: a folder whose chunk store is read and written (default: the one set by
    :func:`set_default_store`, else none)."""
    if not isinstance(experiment, Experiment):
        raise TypeError(f"experiment must be an Experiment, got {type(experiment).__name__}")
    budget = check_budget(budget)
    seed = check_seed(seed)
    n_chunks = -(-budget // experiment.chunk_size)
    trusted_since = None
    if out is None:
        out, trusted_since = _DEFAULT_OUT
    owned = not isinstance(executor, Executor)
    ex = make_executor(executor, workers)
    try:
        chunks = experiment_chunks(experiment, n_chunks, seed=seed, executor=ex, out=out,
                                   progress=progress, trusted_since=trusted_since)
    finally:
        if owned:
            ex.close()
    names = list(chunks[0])
    stats = {name: np.concatenate([np.asarray(c[name]) for c in chunks]) for name in names}
    return Measurement(experiment=experiment, seed=seed, chunks=tuple(chunks), stats=stats)
