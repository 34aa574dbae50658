"""Size limits and shared argument checks of :mod:`seqproj.ensemble` (private).

Every size argument (d, M, K, T, n, …) is bounded *before* anything is
allocated: an array of more than :data:`MAX_CELLS` float64 entries (1 GiB) is
refused with a message, as are dimensions and ensemble sizes beyond what a
dense ``d × d`` covariance or a ``d × M`` factor in memory can hold.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from proofs_check.engine import check_choice as _check_choice
from proofs_check.engine import check_int, shown

#: Largest dimension d (a dense d × d covariance of float64 is 800 MB at 10 000).
MAX_D = 10_000
#: Largest ensemble size M.
MAX_M = 1_000_000
#: Largest number of arms K.
MAX_K = 10_000_000
#: Largest horizon T (rounds are a Python loop: 10⁸ rounds are days of work).
MAX_T = 100_000_000
#: Largest number of replicates / draws / steps in one call.
MAX_N = 100_000_000
#: Largest number of float64 entries one call may allocate at once (2²⁷ = 1 GiB).
MAX_CELLS = 2 ** 27


class NotPositiveDefiniteError(ValueError, RuntimeError):
    """A covariance that is not (numerically) positive definite.

    A ``ValueError`` (the matrix passed in is not a valid covariance) and, for
    code written before the argument checks, a ``RuntimeError``."""


def check_size(name: str, value, *, lo: int = 1, hi: int) -> int:
    """``value`` as an int in ``[lo, hi]``; the message says why ``hi``."""
    return check_int(name, value, lo=lo, hi=hi)


def check_cells(what: str, *sizes: int) -> None:
    """Refuse an allocation of ``prod(sizes)`` float64 entries above :data:`MAX_CELLS`."""
    total = 1
    for s in sizes:
        total *= int(s)
    if total > MAX_CELLS:
        raise ValueError(f"{what} would need {total} float64 entries ({8 * total / 2**30:.3g} GiB), "
                         f"above the limit of {MAX_CELLS} (1 GiB) of one call: choose smaller sizes")


def check_mapping(name: str, value, keys) -> Mapping:
    """``value`` must be a mapping holding every key of ``keys``."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping of statistics (a dict), got {shown(value)}")
    missing = [k for k in keys if k not in value]
    if missing:
        raise ValueError(f"{name} lacks the statistic(s) {missing}; has {sorted(map(str, value))}")
    return value


def check_int_sequence(name: str, value, *, lo: int, hi: int, max_len: int = 10_000) -> tuple:
    """``value`` as a non-empty tuple of ints in ``[lo, hi]`` (at most ``max_len`` of them)."""
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a sequence of integers, got {shown(value)}")
    if isinstance(value, np.ndarray) and value.ndim != 1:
        raise ValueError(f"{name} must be a flat sequence of integers, got shape {value.shape}")
    if hasattr(value, "__len__") and len(value) > max_len:
        raise ValueError(f"{name} must hold at most {max_len} entries, got {len(value)}")
    out = tuple(check_int(f"{name} entry", v, lo=lo, hi=hi) for v in value)
    if not out:
        raise ValueError(f"{name} must not be empty")
    return out


def check_choice(name: str, value, allowed) -> str:
    """``value`` must be one of the strings ``allowed`` (a non-string — an array, a number — is a
    ``TypeError`` naming ``name``, never NumPy's ambiguous-truth-value error)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {sorted(allowed)}, got {shown(value)}")
    return _check_choice(name, value, allowed)
