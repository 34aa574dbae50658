"""One chunk of work, from a user function to the statistics the engine keeps.

A claim's chunk task is a picklable ``task(rng, n) -> list`` built from the
helpers here: :func:`user_chunk` runs the claim's own ``fn(rng, n)``;
:func:`reduced_chunk` runs an experiment's chunk and maps it through the
claim's ``reduce``.  Either way the output goes through the kind's
``to_stats(output, n)`` (``Claim.stats_function()``, defined in the kind's
module under :mod:`.kinds`), which checks it and turns it into the short list
the engine stores and decides from.

:func:`experiment_chunk` is the chunk task of an
:class:`~.experiment.Experiment` (named per-trial statistics) and
:func:`as_arrays` what a claim's ``reduce`` receives.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

__all__ = ["user_chunk", "reduced_chunk", "experiment_chunk", "as_arrays"]


def user_chunk(fn, to_stats, rng, n):
    """Run the user's ``fn(rng, n)`` and turn its output into chunk statistics."""
    return to_stats(fn(rng, n), n)


def reduced_chunk(experiment_fn, reduce, to_stats, rng, n):
    """A chunk of an experiment-reading claim computed directly (no memo)."""
    return to_stats(reduce(as_arrays(experiment_chunk(experiment_fn, rng, n))), n)


def experiment_chunk(fn, rng, n) -> dict:
    """One chunk of an experiment: ``fn(rng, n)`` checked to be named per-trial
    arrays of length ``n``, as plain lists."""
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
