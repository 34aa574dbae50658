r"""The tabular autoregressive policy: one logit row per prefix.

Layout (``docs/theory/mismatch.md#enumeration``): a policy over a vocabulary of ``V``
tokens and horizon ``T`` stores, for each depth ``t = 0..T-1``, a logit table of
shape ``(V**t, V)``.  Row ``r`` of depth ``t`` is the prefix ``(y_1..y_t)`` whose
base-``V`` number, with ``y_1`` the most significant digit, is ``r``; extending
prefix ``r`` by token ``v`` gives prefix ``r*V + v`` of depth ``t+1``.  A full
sequence is indexed the same way in ``range(V**T)``; a reward is an array of
shape ``(V**T,)``.  Code depth ``t`` is the context of spec position ``t+1``.

Also here: the memory guard every enumeration calls first
(:func:`check_enumerable`) and the argument checks shared by the other modules
of the package (:func:`check_pair`, :func:`check_reward`).
"""
from __future__ import annotations

import math
import numbers
from typing import Sequence

import numpy as np

from ..engine import as_generator, check_bool, check_choice, check_finite_array, check_int, check_real, shown

__all__ = ["DEFAULT_MAX_BYTES", "TabularPolicy", "check_enumerable", "check_pair", "check_reward"]

#: Default memory ceiling for one enumeration (bytes).  Override per call.
DEFAULT_MAX_BYTES = 2 * 1024 ** 3


# --------------------------------------------------------------------------
# memory guard
# --------------------------------------------------------------------------

#: Whole-call peak / estimate.  The estimate ``n_arrays × 8 × V**T`` plus the
#: logit tables counts the arrays a function keeps; temporaries (``exp`` of a
#: table, masks, broadcast views made contiguous) come on top.  Measured with
#: ``tracemalloc`` over the enumerating entry points (``docs/history/policies.md``):
#: the peak of a whole call was at most 1.91 × the old per-object estimate at
#: V = 2, T = 18–20 (``remainder_vs_bounds``; ``divergence_summary`` 1.81),
#: 1.59 at V = 4, 1.48 at V = 8, 1.43 at V = 16 — so the guard multiplies the
#: estimate by 2 and adds :data:`FIXED_OVERHEAD` for the Python objects of
#: small calls (2.03 × at V = 2, T = 14 without it).
PEAK_FACTOR = 2.0

#: Bytes added to every estimate (lists, tuples, dataclasses, small arrays of a call).
FIXED_OVERHEAD = 2 ** 20

#: Largest ``n_arrays`` a caller may declare.
_MAX_N_ARRAYS = 10 ** 6


def check_max_bytes(max_bytes) -> float:
    """``max_bytes`` as a positive number of bytes (an int of any size, or a finite float > 0).

    ``nan``, ``±inf``, ``0``, negatives, bools, strings and complex numbers are
    refused: a limit that compares false with everything would switch the guard off.
    """
    if isinstance(max_bytes, numbers.Integral) and not isinstance(max_bytes, bool):
        if max_bytes <= 0:
            raise ValueError(f"max_bytes must be a positive number of bytes, got {shown(max_bytes)}")
        return max_bytes
    return check_real("max_bytes", max_bytes, lo=0.0, lo_open=True)


def check_option(name: str, value, allowed):
    """:func:`~proofs_check.engine.validate.check_choice` for string options: a non-string
    (an array would make ``value in allowed`` ambiguous) is refused naming ``name``."""
    if not isinstance(value, str):
        raise ValueError(f"{name} must be one of {sorted(allowed)}, got {shown(value)}")
    return check_choice(name, value, allowed)


def _gib(n) -> str:
    """``n`` bytes in GiB for a message (any size of int)."""
    return f"{n / 2**30:.3g} GiB" if n < 2 ** 1000 else f"2**{math.log2(n):.4g} bytes"


def check_enumerable(V: int, T: int, *, n_arrays: int = 6, max_bytes: int = DEFAULT_MAX_BYTES) -> int:
    """Refuse, before allocating anything, an enumeration needing more than ``max_bytes``.

    The estimate is ``PEAK_FACTOR × 8 bytes × V**T × (n_arrays + 2V/(V−1)) + FIXED_OVERHEAD``:
    ``n_arrays`` float64 arrays over all sequences plus the logit tables
    (``≈ V**T · V/(V−1)`` floats each, two per policy), times :data:`PEAK_FACTOR`
    for the temporaries of the whole call (measured).  It is compared in log
    space, so any ``V`` and ``T`` (``2**4096``, ``10**400``) is answered without
    overflow.  Returns ``V**T``; otherwise raises ``ValueError`` quoting the size needed.
    """
    V = check_int("V", V, lo=2)
    T = check_int("T", T, lo=1)
    n_arrays = check_int("n_arrays", n_arrays, lo=1, hi=_MAX_N_ARRAYS)
    limit = check_max_bytes(max_bytes)
    per_seq = 8.0 * PEAK_FACTOR * (n_arrays + 2.0 + 2 / (V - 1))      # 2V/(V−1), no float(V)
    Tf = float(T) if T.bit_length() < 1000 else math.inf      # beyond: more bytes than atoms
    log2_arrays = Tf * math.log2(V) + math.log2(per_seq)
    log2_fixed = math.log2(FIXED_OVERHEAD)
    hi_, lo_ = max(log2_arrays, log2_fixed), min(log2_arrays, log2_fixed)
    log2_need = hi_ + math.log2(1.0 + 2.0 ** (lo_ - hi_))          # log2(arrays + fixed), no overflow
    if log2_need > math.log2(limit):
        log10_seq = Tf * math.log10(V)
        if log2_need < 1000:
            need = f"{2.0 ** log2_need / 2**30:.3g} GiB"
        else:
            need = f"2**{log2_need:.4g} bytes"
        raise ValueError(
            f"enumeration over V**T = {shown(V)}**{shown(T)} ≈ 10**{log10_seq:.4g} sequences would need about "
            f"{need} ({n_arrays} float64 arrays over sequences plus logit tables, × {PEAK_FACTOR:g} for "
            f"the temporaries of the whole call, + 1 MiB); the limit is max_bytes={shown(max_bytes)} "
            f"({_gib(limit)}). "
            f"Use a smaller T, the i.i.d.-tilt closed form, or Monte Carlo.")
    return V ** T


def _log_softmax(z: np.ndarray) -> np.ndarray:
    """``log softmax`` along the last axis with the max shift (as :func:`proofs_check.logits.log_softmax`).

    ``z − max z`` is exact for the entries that matter and ``log Σ exp(z − max) ∈ [0, log V]``,
    so the probabilities sum to 1 to rounding and the log-probabilities stay finite for
    logits up to the float maximum (``z − logsumexp(z)`` loses ``ulp(|z|)``: at 1e16 the
    probabilities summed to 2).
    """
    z = np.asarray(z, dtype=float)
    zs = z - np.max(z, axis=-1, keepdims=True)
    return zs - np.log(np.sum(np.exp(zs), axis=-1, keepdims=True))


# --------------------------------------------------------------------------
# the tabular policy
# --------------------------------------------------------------------------

class TabularPolicy:
    """An autoregressive policy with one logit row per prefix.

    Parameters
    ----------
    logits : sequence of ``T`` arrays
        ``logits[t]`` has shape ``(V**t, V)``; finite.

    The log-probabilities ``log π(·|c)`` are computed once (log-softmax per
    row) and stored read-only.  ``V ≥ 2``, ``T ≥ 1``.
    """

    __slots__ = ("_logits", "_logp", "V", "T", "_cache")

    def __init__(self, logits: Sequence[np.ndarray]):
        if isinstance(logits, np.ndarray) or not isinstance(logits, (list, tuple)):
            raise TypeError("logits must be a list of T arrays, depth t of shape (V**t, V); "
                            f"got {type(logits).__name__}")
        T = len(logits)
        if T < 1:
            raise ValueError(f"T = len(logits) must be ≥ 1, got {T}")
        first = check_finite_array("logits[0]", logits[0], ndim=2)
        if first.shape[0] != 1:
            raise ValueError(f"logits[0] must have shape (1, V), got {first.shape}")
        V = first.shape[1]
        if V < 2:
            raise ValueError(f"vocabulary size V must be ≥ 2, got V = {V}")
        tabs, logp = [], []
        for t, z in enumerate(logits):
            z = check_finite_array(f"logits[{t}]", z, ndim=2)
            if z.shape != (V ** t, V):
                raise ValueError(f"logits[{t}] must have shape (V**t, V) = ({V ** t}, {V}), got {z.shape}")
            z = np.array(z, dtype=float)
            lp = _log_softmax(z)
            z.setflags(write=False)
            lp.setflags(write=False)
            tabs.append(z)
            logp.append(lp)
        self._logits = tuple(tabs)
        self._logp = tuple(logp)
        self.V = int(V)
        self.T = int(T)
        self._cache = {}

    # --- accessors -------------------------------------------------------
    @property
    def logits(self) -> tuple:
        """The logit tables (read-only arrays)."""
        return self._logits

    def log_probs(self, t: int) -> np.ndarray:
        """``log π(v | c)`` for every prefix ``c`` of depth ``t``: shape ``(V**t, V)``."""
        t = check_int("t", t, lo=0, hi=self.T - 1)
        return self._logp[t]

    def probs(self, t: int) -> np.ndarray:
        """``π(v | c)`` at depth ``t``: shape ``(V**t, V)`` (cached, read-only)."""
        key = ("probs", t)
        got = self._cache.get(key)
        if got is None:
            got = np.exp(self.log_probs(t))
            got.setflags(write=False)
            self._cache[key] = got
        return got

    @property
    def n_params(self) -> int:
        """Number of logits ``Σ_t V**t · V``."""
        return sum(z.size for z in self._logits)

    def flat_logits(self) -> np.ndarray:
        """All logits concatenated depth by depth (row-major)."""
        return np.concatenate([z.ravel() for z in self._logits])

    @classmethod
    def from_flat(cls, x, V: int, T: int) -> "TabularPolicy":
        """Inverse of :meth:`flat_logits`."""
        V = check_int("V", V, lo=2)
        T = check_int("T", T, lo=1)
        x = check_finite_array("x", x, ndim=1)
        n = 0
        for t in range(T):              # stops as soon as the count passes x.size (T = 1e308 would never end)
            n += V ** t * V
            if n > x.size:
                break
        if x.size != n:
            raise ValueError(f"x must have Σ_t V**t·V = {n} entries for V={V}, T={T}, got {x.size}")
        out, k = [], 0
        for t in range(T):
            m = V ** t * V
            out.append(x[k:k + m].reshape(V ** t, V))
            k += m
        return cls(out)

    @classmethod
    def random(cls, V: int, T: int, rng, *, scale: float = 1.0,
               max_bytes: int = DEFAULT_MAX_BYTES) -> "TabularPolicy":
        """Logits i.i.d. ``N(0, scale²)``."""
        check_enumerable(V, T, n_arrays=1, max_bytes=max_bytes)
        scale = check_real("scale", scale, lo=0.0)
        g = as_generator(rng)
        return cls([scale * g.standard_normal((V ** t, V)) for t in range(T)])

    @classmethod
    def uniform(cls, V: int, T: int, *, max_bytes: int = DEFAULT_MAX_BYTES) -> "TabularPolicy":
        """The uniform policy (all logits 0)."""
        check_enumerable(V, T, n_arrays=1, max_bytes=max_bytes)
        return cls([np.zeros((V ** t, V)) for t in range(T)])

    @classmethod
    def iid(cls, token_probs, T: int, *, max_bytes: int = DEFAULT_MAX_BYTES) -> "TabularPolicy":
        """The same token distribution ``p`` at every prefix (an i.i.d. policy)."""
        p = _check_prob_vector("token_probs", token_probs)
        V = p.size
        check_enumerable(V, T, n_arrays=1, max_bytes=max_bytes)
        z = np.log(p)
        return cls([np.broadcast_to(z, (V ** t, V)).copy() for t in range(T)])

    def with_logits(self, t: int, rows, new_rows) -> "TabularPolicy":
        """A copy with ``logits[t][rows] = new_rows`` (``rows``: distinct-or-not integer row indices in
        ``[0, V**t)``; ``new_rows``: finite real logits of shape ``(len(rows), V)``)."""
        t = check_int("t", t, lo=0, hi=self.T - 1)
        n_rows = self.V ** t
        r = np.asarray(rows)
        if r.size == 0 and r.ndim == 1:
            r = r.astype(np.int64)
        if r.ndim != 1 or r.dtype.kind not in "iu":
            raise TypeError(f"rows must be a 1-D array of integer row indices of logits[{t}], got {shown(rows)}")
        if r.size and (int(r.min()) < 0 or int(r.max()) >= n_rows):
            raise ValueError(f"rows must lie in [0, {n_rows}) (the rows of logits[{t}]), got {shown(rows)}")
        new = check_finite_array("new_rows", new_rows, ndim=2)
        if new.shape != (r.size, self.V):
            raise ValueError(f"new_rows must have shape ({r.size}, {self.V}) (one row of V logits per entry of "
                             f"rows), got {new.shape}")
        tabs = [np.array(z) for z in self._logits]
        tabs[t][r] = new
        return TabularPolicy(tabs)

    def __repr__(self) -> str:
        return f"TabularPolicy(V={self.V}, T={self.T})"

    def __reduce__(self):
        return (TabularPolicy, (list(self._logits),))


def _check_prob_vector(name: str, p) -> np.ndarray:
    p = check_finite_array(name, p, ndim=1)
    if p.size < 2:
        raise ValueError(f"{name} must have V ≥ 2 entries, got {p.size}")
    if np.any(p <= 0) or abs(p.sum() - 1.0) > 1e-9:
        raise ValueError(f"{name} must be a strictly positive probability vector summing to 1, got {p}")
    return p / p.sum()


def check_pair(mu, pi) -> tuple[int, int]:
    """``mu`` and ``pi`` are TabularPolicies with the same ``(V, T)``; returns it."""
    for name, p in (("mu", mu), ("pi", pi)):
        if not isinstance(p, TabularPolicy):
            raise TypeError(f"{name} must be a TabularPolicy, got {type(p).__name__}")
    if (mu.V, mu.T) != (pi.V, pi.T):
        raise ValueError(f"mu and pi must share (V, T); got mu (V={mu.V}, T={mu.T}), pi (V={pi.V}, T={pi.T})")
    return mu.V, mu.T


def check_reward(reward, V: int, T: int, *, unit: bool = False, purpose: str = "") -> np.ndarray:
    """A reward array of shape ``(V**T,)``; with ``unit=True`` it must lie in ``[0, 1]``."""
    V = check_int("V", V, lo=2)
    T = check_int("T", T, lo=1)
    unit = check_bool("unit", unit)
    if not isinstance(purpose, str):
        raise TypeError(f"purpose must be a string, got {shown(purpose)}")
    r = check_finite_array("reward", reward, ndim=1)
    if (T.bit_length() > 64 or T * math.log2(V) > 62):
        raise ValueError(f"reward must have V**T entries, and V**T = {shown(V)}**{shown(T)} exceeds 2**62")
    if r.shape != (V ** T,):
        raise ValueError(f"reward must have shape (V**T,) = ({V ** T},), got {r.shape}")
    if unit and (r.min() < 0.0 or r.max() > 1.0):
        why = f" ({purpose})" if purpose else ""
        raise ValueError(f"reward must lie in [0, 1]{why}; got values in [{r.min():.6g}, {r.max():.6g}]")
    return r
