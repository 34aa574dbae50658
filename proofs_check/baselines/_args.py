"""Argument checks shared by this topic's public functions (thin wrappers over
:mod:`proofs_check.engine.validate`): the chunk-function arguments ``(rng, n)``,
sizes with an upper bound stating what the machine can do, and the enumeration
size ``V**T`` refused before anything is allocated."""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from proofs_check.engine import as_generator, check_choice, check_finite_array, check_int, shown

#: Most trials one chunk-function call runs (a chunk is seconds of work, not hours).
MAX_TRIALS = 100_000
#: Largest number of responses ``V**T`` any enumeration here builds (arrays of ``V**T · T`` floats).
MAX_SEQ = 1 << 16


def chunk_args(rng, n, *, hi: int = MAX_TRIALS):
    """``(Generator, n)`` for a chunk function ``f(rng, n, ...)``."""
    return as_generator(rng, "rng"), check_int("n", n, lo=0, hi=hi)


def enum_size(V, T, *, name_v: str = "V", name_t: str = "T", max_seq: int = MAX_SEQ,
              v_hi: int = 64, t_hi: int = 64):
    """``(V, T)`` as ints with ``V**T ≤ max_seq`` (exact integer arithmetic, checked before allocating)."""
    V = check_int(name_v, V, lo=2, hi=v_hi)
    T = check_int(name_t, T, lo=1, hi=t_hi)
    if V ** T > max_seq:
        raise ValueError(f"{name_v}**{name_t} = {V}**{T} responses exceeds the enumeration limit {max_seq}; "
                         "use a smaller vocabulary or horizon")
    return V, T


def int_list(name: str, value, *, lo: int, hi: int) -> list:
    """A non-empty sequence of ints in ``[lo, hi]`` (a bare scalar or a string is refused)."""
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a non-empty sequence of integers, got {shown(value)}")
    try:
        items = list(value)
    except TypeError:
        raise TypeError(f"{name} must be a non-empty sequence of integers, got {shown(value)}") from None
    if not items or len(items) > 1000:
        raise ValueError(f"{name} must hold 1 to 1000 integers, got {len(items)}")
    return [check_int(f"{name}[{i}]", v, lo=lo, hi=hi) for i, v in enumerate(items)]


def stats_column(stats, key: str, name: str = "stats") -> np.ndarray:
    """``stats[key]`` as a finite float array (``stats`` a mapping of named statistics)."""
    if not isinstance(stats, Mapping):
        raise TypeError(f"{name} must be a mapping of named statistics, got {shown(stats)}")
    if not isinstance(key, str):
        raise TypeError(f"statistic names must be strings, got {shown(key)}")
    if key not in stats:
        raise ValueError(f"{name} has no statistic {key!r} (has {sorted(stats)[:8]})")
    return check_finite_array(f"{name}[{key!r}]", stats[key])


def choice(name: str, value, allowed):
    """:func:`check_choice` that also refuses arrays and other non-strings by name (``value in
    allowed`` on an array would raise NumPy's unnamed "truth value is ambiguous")."""
    if not isinstance(value, str):
        raise ValueError(f"{name} must be one of {sorted(allowed)}, got {shown(value)}")
    return check_choice(name, value, allowed)
