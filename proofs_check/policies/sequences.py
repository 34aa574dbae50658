r"""Sequence quantities of a tabular policy: exact enumeration over all ``V**T``
responses, and sampling.

Everything is computed in log space and vectorised over all prefixes of a depth
(a loop over the ``T`` depths, never over sequences).  ``d_t^π`` is the
distribution of the context ``c_{t+1} = y_{≤t}`` (code depth ``t`` = context of
spec position ``t+1``); ``J(π) = Σ_y P^π(y) R(y)``.
"""
from __future__ import annotations

import math

import numpy as np

from ..engine import check_finite_array, check_instance, as_generator, check_int
from .tabular import DEFAULT_MAX_BYTES, TabularPolicy, check_enumerable, check_pair, check_reward

__all__ = ["prefix_log_probs", "sequence_log_probs", "sequence_probs", "context_distributions",
           "expected_return", "token_log_ratio_tables", "expand_to_sequences", "sample_responses",
           "token_log_probs", "sequence_index"]


# --------------------------------------------------------------------------
# enumeration
# --------------------------------------------------------------------------

def prefix_log_probs(policy: TabularPolicy, *, max_bytes: int = DEFAULT_MAX_BYTES) -> list:
    """``log P^π(y_{≤t})`` for ``t = 0..T``: a list of ``T+1`` arrays, entry ``t`` of shape ``(V**t,)``.

    Entry ``T`` is the sequence log-probability.  Cached on the policy.
    """
    if not isinstance(policy, TabularPolicy):
        raise TypeError(f"policy must be a TabularPolicy, got {type(policy).__name__}")
    got = policy._cache.get("prefix")
    if got is not None:
        return got
    check_enumerable(policy.V, policy.T, n_arrays=2, max_bytes=max_bytes)
    out = [np.zeros(1)]
    for t in range(policy.T):
        out.append((out[-1][:, None] + policy.log_probs(t)).ravel())
    for a in out:
        a.setflags(write=False)
    policy._cache["prefix"] = out
    return out


def sequence_log_probs(policy: TabularPolicy, *, max_bytes: int = DEFAULT_MAX_BYTES) -> np.ndarray:
    """``log P^π(y)`` for all ``V**T`` sequences, shape ``(V**T,)``."""
    return prefix_log_probs(policy, max_bytes=max_bytes)[-1]


def context_distributions(policy: TabularPolicy, *, max_bytes: int = DEFAULT_MAX_BYTES) -> list:
    """``d_t(c) = P(y_{≤t} = c)`` for depth ``t = 0..T−1`` (position ``t+1`` of ``mismatch.md#setting``; cached)."""
    check_instance('policy', policy, TabularPolicy)
    got = policy._cache.get("ctx")
    if got is None:
        got = [np.exp(a) for a in prefix_log_probs(policy, max_bytes=max_bytes)[:-1]]
        for a in got:
            a.setflags(write=False)
        policy._cache["ctx"] = got
    return got


def sequence_probs(policy: TabularPolicy, *, max_bytes: int = DEFAULT_MAX_BYTES) -> np.ndarray:
    """``P^π(y)`` for all sequences (``exp`` of :func:`sequence_log_probs`; cached)."""
    check_instance('policy', policy, TabularPolicy)
    got = policy._cache.get("seqp")
    if got is None:
        got = np.exp(sequence_log_probs(policy, max_bytes=max_bytes))
        got.setflags(write=False)
        policy._cache["seqp"] = got
    return got


def expected_return(policy: TabularPolicy, reward, *, max_bytes: int = DEFAULT_MAX_BYTES) -> float:
    """``J(π) = Σ_y P^π(y) R(y)`` (exact)."""
    check_instance('policy', policy, TabularPolicy)
    r = check_reward(reward, policy.V, policy.T)
    return float(sequence_probs(policy, max_bytes=max_bytes) @ r)


def token_log_ratio_tables(mu: TabularPolicy, pi: TabularPolicy) -> list:
    """``log ρ(v|c) = log π(v|c) − log μ(v|c)`` per depth: list of ``(V**t, V)`` arrays."""
    check_pair(mu, pi)
    return [pi.log_probs(t) - mu.log_probs(t) for t in range(mu.T)]


def expand_to_sequences(table: np.ndarray, t: int, V: int, T: int) -> np.ndarray:
    """View a per-(prefix, token) table of depth ``t`` as a per-sequence array.

    ``table`` has ``V**(t+1)`` entries (shape ``(V**t, V)`` or flat); the result
    has shape ``(V**(t+1), V**(T−t−1))`` (a broadcast view, no copy): entry
    ``[s // V**(T−t−1), s % ...]`` is the value at the depth-``t`` token of
    sequence ``s``.  ``.reshape(-1)`` after a broadcast op gives ``(V**T,)``.
    """
    V = check_int("V", V, lo=2)
    T = check_int("T", T, lo=1)
    t = check_int("t", t, lo=0, hi=T - 1)
    if T * math.log2(V) > 62:
        raise ValueError(f"V**T = {V}**{T} sequences do not fit a NumPy index (at most 2**62)")
    a = check_finite_array("table", table).reshape(-1)
    if a.size != V ** (t + 1):
        raise ValueError(f"table at depth t={t} must have V**(t+1) = {V ** (t + 1)} entries, got {a.size}")
    return np.broadcast_to(a[:, None], (V ** (t + 1), V ** (T - t - 1)))


# --------------------------------------------------------------------------
# sampling
# --------------------------------------------------------------------------

#: Largest ``n × T`` of :func:`sample_responses` (2**28 int64 tokens = 2 GiB).
MAX_SAMPLE_ENTRIES = 2 ** 28


def sample_responses(policy: TabularPolicy, n: int, rng) -> np.ndarray:
    """``n`` responses ``y ∼ π``: integer array ``(n, T)`` (vectorised over ``n``)."""
    if not isinstance(policy, TabularPolicy):
        raise TypeError(f"policy must be a TabularPolicy, got {type(policy).__name__}")
    V, T = policy.V, policy.T
    n = check_int("n", n, lo=1, hi=max(1, MAX_SAMPLE_ENTRIES // T))
    g = as_generator(rng)
    y = np.empty((n, T), dtype=np.int64)
    row = np.zeros(n, dtype=np.int64)
    for t in range(T):
        cdf = np.cumsum(np.exp(policy.log_probs(t)[row]), axis=1)
        u = g.random(n) * cdf[:, -1]
        tok = (u[:, None] >= cdf).sum(axis=1)
        tok = np.minimum(tok, V - 1)
        y[:, t] = tok
        row = row * V + tok
    return y


def sequence_index(tokens, V: int) -> np.ndarray:
    """Base-``V`` index of each row of ``tokens`` (``y_1`` most significant)."""
    y = np.asarray(tokens)
    if y.ndim != 2 or y.dtype.kind not in "iu":
        raise ValueError(f"tokens must be a 2-D integer array (n, T), got shape {y.shape} dtype {y.dtype}")
    V = check_int("V", V, lo=2)
    if y.size and (y.min() < 0 or y.max() >= V):
        raise ValueError(f"tokens must lie in [0, V-1] = [0, {V - 1}]")
    idx = np.zeros(y.shape[0], dtype=np.int64)
    for t in range(y.shape[1]):
        idx = idx * V + y[:, t]
    return idx


def token_log_probs(policy: TabularPolicy, tokens) -> tuple:
    """Per-token log-probs along given responses.

    Returns ``(logp, logp_full)``: ``logp[i, t] = log π(y_t | c_t)`` of shape
    ``(n, T)`` and ``logp_full[i, t, :] = log π(· | c_t)`` of shape ``(n, T, V)``
    (the full-vocabulary log-probs, as a sampler would store logits).
    """
    check_instance('policy', policy, TabularPolicy)
    y = np.asarray(tokens)
    V, T = policy.V, policy.T
    if y.ndim != 2 or y.shape[1] != T or y.dtype.kind not in "iu":
        raise ValueError(f"tokens must be an integer array (n, T={T}), got shape {y.shape}")
    if y.size and (y.min() < 0 or y.max() >= V):
        raise ValueError(f"tokens must lie in [0, V-1] = [0, {V - 1}]")
    n = y.shape[0]
    full = np.empty((n, T, V))
    row = np.zeros(n, dtype=np.int64)
    for t in range(T):
        full[:, t] = policy.log_probs(t)[row]
        row = row * V + y[:, t]
    lp = np.take_along_axis(full, y[:, :, None], axis=2)[:, :, 0]
    return lp, full
