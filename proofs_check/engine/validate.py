"""Argument checks shared by every module: fail at the boundary, loudly.

Each check raises ``ValueError`` (or ``TypeError`` for a wrong type) whose
message names the argument, quotes the value received and states what is
allowed — never a NumPy traceback from deep inside, a silent NaN, or a hang.
"""
from __future__ import annotations

import numbers

import numpy as np

from .limits import MAX_BUDGET, MIN_ALPHA

__all__ = ["as_generator", "check_int", "check_real", "check_open_unit", "check_finite_array",
           "check_choice", "check_bool", "check_instance", "shown",
           "check_alpha", "check_budget", "check_seed"]


def as_generator(rng, name: str = "rng") -> np.random.Generator:
    """A ``numpy.random.Generator`` from a Generator, SeedSequence, int ≥ 0 or None.

    ``None`` is refused: randomness must be explicit (``docs/theory/engine.md`` §3).
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, np.random.SeedSequence):
        return np.random.default_rng(rng)
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        if rng < 0:
            raise ValueError(f"{name} must be a non-negative integer seed, got {rng}")
        return np.random.default_rng(int(rng))
    raise TypeError(f"{name} must be a numpy Generator, SeedSequence or non-negative int seed, "
                    f"got {shown(rng)}")


def shown(value, limit: int = 60) -> str:
    """``repr(value)``, shortened in the middle past ``limit`` characters (a
    400-digit integer is not echoed whole)."""
    text = repr(value)
    if len(text) <= limit:
        return text
    extra = f" ({len(str(value))} digits)" if isinstance(value, int) else ""
    return f"{text[:limit // 2]}…{text[-limit // 4:]}{extra}"


def check_int(name: str, value, *, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as an int in ``[lo, hi]`` (either end optional)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be an integer, got {shown(value)}")
    value = int(value)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        rng = (f"{'[' if lo is not None else '('}{lo if lo is not None else '-inf'}, "
               f"{hi if hi is not None else 'inf'}{']' if hi is not None else ')'}")
        raise ValueError(f"{name} must be an integer in {rng}, got {shown(value)}")
    return value


def check_real(name: str, value, *, lo: float | None = None, hi: float | None = None,
               lo_open: bool = False, hi_open: bool = False) -> float:
    """``value`` as a finite float in the interval given by ``lo``/``hi``
    (bools, strings, complex numbers and ``Decimal`` are refused)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {shown(value)}")
    try:
        v = float(value)
    except OverflowError:
        raise ValueError(f"{name} must be finite, got {shown(value)}") from None
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {shown(value)}")
    bad = ((lo is not None and (v < lo or (lo_open and v == lo)))
           or (hi is not None and (v > hi or (hi_open and v == hi))))
    if bad:
        left = ("(" if lo_open or lo is None else "[") + (f"{lo:g}" if lo is not None else "-inf")
        right = (f"{hi:g}" if hi is not None else "inf") + (")" if hi_open or hi is None else "]")
        raise ValueError(f"{name} must lie in {left}, {right}, got {shown(value)}")
    return v


def check_open_unit(name: str, value) -> float:
    """``value`` in the open interval (0, 1) — e.g. ``eps``, ``delta``, ``alpha``."""
    return check_real(name, value, lo=0.0, hi=1.0, lo_open=True, hi_open=True)


def check_finite_array(name: str, value, *, ndim: int | None = None, dtype=float,
                       finite: bool = True) -> np.ndarray:
    """``value`` as an array of real numbers with no NaN/inf (and the given ``ndim``).

    Refused with a message naming ``name``: ``None``, strings, complex numbers,
    ``Decimal`` and other objects, integers beyond the float range, ragged
    nesting, NaN/inf, and a wrong number of dimensions.  ``finite=False`` keeps
    every check but the NaN/inf one (for padded arrays whose padding is never
    read: the caller checks the entries it reads)."""
    if value is None or isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be an array of real numbers, got {shown(value)}")
    raw = np.asarray(value) if not isinstance(value, np.ndarray) else value
    if raw.dtype.kind == "c" or raw.dtype.kind in "USVM" or (
            raw.dtype == object and any(not isinstance(v, numbers.Real) or isinstance(v, bool)
                                        for v in raw.ravel()[:10_000])):
        raise TypeError(f"{name} must be an array of real numbers, got dtype {raw.dtype} "
                        f"({shown(value)})")
    if raw.dtype.kind == "b" and np.dtype(dtype).kind != "b":
        raise TypeError(f"{name} must be an array of numbers, got booleans")
    try:
        with np.errstate(over="raise", invalid="raise"):
            arr = np.asarray(raw, dtype=dtype)
    except (TypeError, ValueError, OverflowError, FloatingPointError) as exc:
        raise ValueError(f"{name} must be an array of finite real numbers: {exc}") from None
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {arr.shape}")
    if finite and arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(f"{name} contains NaN or inf (first at index {tuple(int(i) for i in bad)})")
    return arr


def check_instance(name: str, value, cls):
    """``value`` must be an instance of ``cls`` (a class or a tuple of classes)."""
    if not isinstance(value, cls):
        want = " or ".join(c.__name__ for c in (cls if isinstance(cls, tuple) else (cls,)))
        raise TypeError(f"{name} must be a {want}, got {shown(value)}")
    return value


def check_bool(name: str, value) -> bool:
    """``value`` must be a bool (``True``/``False`` or a NumPy bool) — not ``'no'``, not 0/1."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {shown(value)}")


def check_choice(name: str, value, allowed) -> str:
    """``value`` must be one of ``allowed``."""
    try:
        ok = value in allowed
    except TypeError:                      # unhashable values cannot be in a set of choices
        ok = False
    if not ok or isinstance(value, bool) and not any(isinstance(a, bool) for a in allowed):
        raise ValueError(f"{name} must be one of {sorted(allowed, key=str)}, got {shown(value)}")
    return value


# -- the three arguments of every run: checked once where a run starts ----------

def check_alpha(alpha) -> float:
    """An error level α: a real number in ``[MIN_ALPHA, 1)`` (:data:`.limits.MIN_ALPHA`)."""
    a = check_real("alpha", alpha)
    if not 0.0 < a < 1.0:
        raise ValueError(f"alpha must lie in the open interval (0, 1), got {shown(alpha)}")
    if a < MIN_ALPHA:
        raise ValueError(f"alpha must be at least {MIN_ALPHA:g} (smaller levels are beyond double "
                         f"precision), got {a!r}")
    return a


def check_budget(budget) -> int:
    """A budget: an integer in ``[1, MAX_BUDGET]`` (:data:`.limits.MAX_BUDGET`)."""
    return check_int("budget", budget, lo=1, hi=MAX_BUDGET)


def check_seed(seed) -> int:
    """A root seed: an integer ≥ 0."""
    return check_int("seed", seed, lo=0)
