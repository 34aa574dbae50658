"""Experiments: one simulation, stored once, read by several claims and figures.

An :class:`Experiment` is a picklable ``fn(rng, n) -> {name: array}`` that
runs ``n`` independent trials and returns named per-trial statistics (each
array's first axis has length ``n``).  It is run in chunks under the engine's
seeding (chunk ``k`` draws from ``SeedSequence(seed, spawn_key=(k,))``,
exactly like a claim; ``docs/theory/engine.md`` §3) by
:func:`~.measure.measure`, which keeps every chunk for the process and, with
``out``, in the folder's store — so a claim that reads the experiment
(``Claim(experiment=..., reduce=...)``) and the figure that plots it see the
same numbers, computed once.
"""
from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from .chunkstats import experiment_chunk
from .fingerprint import canonical, describe_callable

__all__ = ["Experiment"]


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
        """Hash of everything that determines the chunks: id, version, chunk size,
        parameters and the effective arguments of ``fn`` (:mod:`.fingerprint`)."""
        payload = json.dumps({"experiment": self.id, "version": int(self.version),
                              "chunk_size": int(self.chunk_size), "params": canonical(dict(self.params)),
                              "fn": describe_callable(self.fn)}, sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    def chunk_task(self):
        """The picklable ``task(rng, n) -> {name: list}`` that runs one chunk."""
        return functools.partial(experiment_chunk, self.fn)
