"""From what a claim's function returns to the chunk statistics of its kind.

Each ``_<kind>_stats(..., out, n)`` checks the output of ``fn(rng, n)`` (or of
``reduce(stats)`` for a claim that reads an experiment) and turns it into the
short list the engine stores and decides from (see :mod:`.claims` for the
table of kinds); a wrong shape or a non-finite value raises ``ValueError``
naming what is wrong.
"""
from __future__ import annotations

import math

import numpy as np

__all__: list[str] = []


def _user_chunk(fn, to_stats, rng, n):
    """Run the user's ``fn(rng, n)`` and turn its output into chunk statistics."""
    return to_stats(fn(rng, n), n)


def _reduced_chunk(experiment_fn, reduce, to_stats, rng, n):
    """A chunk of an experiment-reading claim computed directly (no memo)."""
    from .experiment import as_arrays, _experiment_chunk

    return to_stats(reduce(as_arrays(_experiment_chunk(experiment_fn, rng, n))), n)


def _probability_stats(events, n):
    events = int(events)
    if events < 0 or events > n:
        raise ValueError(f"probability sampler returned {events} events for {n} trials")
    return [events]


def _identity_stats(tol_mode, out, n):
    if tol_mode == "scale":
        if not (isinstance(out, tuple) and len(out) == 3):
            raise ValueError("identity evaluator with tol_mode='scale' must return (lhs, rhs, scale)")
        lhs, rhs, scale = out
    else:
        if not (isinstance(out, tuple) and len(out) == 2):
            raise ValueError(f"identity evaluator with tol_mode={tol_mode!r} must return (lhs, rhs)")
        lhs, rhs = out
        scale = None
    lhs = np.asarray(lhs, dtype=float).ravel()
    rhs = np.asarray(rhs, dtype=float).ravel()
    if lhs.shape != rhs.shape:
        raise ValueError(f"identity evaluator returned lhs {lhs.shape} and rhs {rhs.shape}")
    if not (np.all(np.isfinite(lhs)) and np.all(np.isfinite(rhs))):
        return [int(lhs.size), math.inf, math.inf]
    err = np.abs(lhs - rhs)
    if tol_mode == "absolute":
        scaled = err
    elif tol_mode == "relative":
        scaled = err / np.maximum(np.maximum(np.abs(lhs), np.abs(rhs)), np.finfo(float).tiny)
    elif tol_mode == "scale":
        scale = np.broadcast_to(np.asarray(scale, dtype=float).ravel(), lhs.shape)
        if not np.all(np.isfinite(scale) & (scale > 0)):
            raise ValueError("identity evaluator returned a scale that is not finite and > 0")
        scaled = err / scale
    else:  # mixed
        scaled = err / np.maximum(1.0, np.maximum(np.abs(lhs), np.abs(rhs)))
    return [int(lhs.size), float(err.max(initial=0.0)), float(scaled.max(initial=0.0))]


def _scaling_stats(m, out, n):
    y = np.asarray(out, dtype=float)
    if y.shape != (n, m):
        raise ValueError(f"scaling measurement returned shape {y.shape}, expected {(n, m)}")
    return y.ravel().tolist()


def _comparison_stats(bounds, out, n):
    d = np.asarray(out, dtype=float).ravel()
    if d.shape != (n,):
        raise ValueError(f"comparison sampler returned {d.shape}, expected ({n},)")
    if not np.all(np.isfinite(d)):
        raise ValueError("comparison sampler returned non-finite differences")
    if bounds is not None:
        lo, hi = bounds
        bad = (d < lo) | (d > hi)
        if np.any(bad):
            raise ValueError(f"comparison sampler returned d = {float(d[bad][0])!r} outside the "
                             f"declared bounds [{lo}, {hi}]: fix the bounds or the sampler")
    return d.tolist()
