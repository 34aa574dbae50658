"""Padded ``(N, L)`` batches of responses: validation, the group index and the
masked reward-to-go shared by every group estimator (:mod:`.otb`, :mod:`.group`).

Private helpers; the public estimators validate through them, so every
estimator refuses the same inputs with the same messages (the argument, the
``(row, position)`` of the first bad entry and its value).
"""
from __future__ import annotations

import numpy as np

from proofs_check.engine import check_finite_array


def _as_2d(name, value, shape=None):
    try:
        arr = np.asarray(value)
    except Exception as exc:  # pragma: no cover - asarray rarely raises
        raise TypeError(f"{name} must be array-like: {exc}") from None
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D (N, L) array, got shape {arr.shape}")
    if shape is not None and arr.shape != shape:
        raise ValueError(f"{name} has shape {arr.shape}, but token_rewards has shape {shape}")
    return np.ascontiguousarray(arr, dtype=np.float64)


def _group_index(group_ids, N):
    if isinstance(group_ids, (list, tuple)):
        kinds = {"string" if isinstance(v, (str, bytes, np.str_)) else "number" for v in group_ids}
        if len(kinds) > 1:
            raise TypeError("group_ids must be labels of one type (all integers or all strings), got a mix "
                            "of strings and numbers")
    try:
        g = np.asarray(group_ids)
    except ValueError as exc:               # ragged nesting
        raise ValueError(f"group_ids must be a 1-D array of labels: {exc}") from None
    if g.ndim != 1 or g.shape[0] != N:
        raise ValueError(f"group_ids must be a 1-D array of length N = {N}, got shape {g.shape}")
    if g.dtype.kind == "c":
        raise TypeError(f"group_ids must hold integer or string labels, got dtype {g.dtype}")
    if g.dtype.kind == "f" and not np.all(np.isfinite(g)):
        raise ValueError("group_ids contains NaN or inf")
    if g.dtype == object:
        kinds = {type(v) for v in g.tolist()}
        if len(kinds) > 1 or not kinds <= {int, str, bytes}:
            raise TypeError("group_ids must be labels of one type (all integers or all strings), got "
                            f"types {sorted(k.__name__ for k in kinds)}")
    try:
        _, inv = np.unique(g, return_inverse=True)
    except TypeError as exc:
        raise TypeError(f"group_ids must be mutually comparable labels (one type): {exc}") from None
    inv = inv.astype(np.int64).ravel()
    order = np.argsort(inv, kind="stable").astype(np.int64)
    counts = np.bincount(inv)
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return inv, order, starts


def _validate_batch(token_rewards, response_mask, group_ids, log_probs, sum_pi_squared, is_weights):
    r = _as_2d("token_rewards", token_rewards)
    N, L = r.shape
    if N == 0 or L == 0:
        raise ValueError(f"the batch is empty: token_rewards has shape {r.shape}; need N ≥ 1 responses "
                         "and L ≥ 1 positions (no empty groups)")
    m = _as_2d("response_mask", response_mask, r.shape)
    lp = _as_2d("log_probs", log_probs, r.shape)
    spp = _as_2d("sum_pi_squared", sum_pi_squared, r.shape)
    isw = None if is_weights is None else _as_2d("is_weights", is_weights, r.shape)
    inv, order, starts = _group_index(group_ids, N)
    return r, m, lp, spp, isw, inv, order, starts



def _first_bad(name, bad, arr, what):
    if np.any(bad):
        i, t = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(f"{name} {what}; first bad entry at (row {i}, position {t}) with value {arr[i, t]!r}")


def _check_values_numpy(r, m, lp, spp, isw):
    """Every check of the kernel, in NumPy, with the position of the first bad entry."""
    _first_bad("response_mask", ~((m == 0) | (m == 1)), m, "must contain only 0 and 1")
    for name, arr in (("token_rewards", r), ("log_probs", lp), ("sum_pi_squared", spp)):
        _first_bad(name, ~np.isfinite(arr), arr, "contains NaN or inf")
    valid = m == 1
    _first_bad("log_probs", valid & (lp > 0), lp, "must be ≤ 0 (a log-probability) at unmasked positions")
    _first_bad("sum_pi_squared", valid & ~((spp > 0) & (spp <= 1)), spp, "must lie in (0, 1] at unmasked positions")
    if isw is not None:
        _first_bad("is_weights", ~np.isfinite(isw), isw, "contains NaN or inf")
        _first_bad("is_weights", isw < 0, isw, "must be ≥ 0")


def _reward_to_go(r, m):
    """Masked reverse cumulative sum ``G_t = Σ_{k≥t} m_k r_k`` along the last axis."""
    return np.flip(np.cumsum(np.flip(r * m, axis=1), axis=1), axis=1)


def _returns_and_groups(token_rewards, response_mask, group_ids):
    """Validated ``(r, m)`` and the group index ``(inv, starts)``, for the estimators that need no
    log-probabilities (group mean, leave-one-out; they form the reward-to-go themselves, scaled when
    it would overflow)."""
    r = _as_2d("token_rewards", token_rewards)
    if r.size == 0:
        raise ValueError(f"the batch is empty: token_rewards has shape {r.shape}")
    m = _as_2d("response_mask", response_mask, r.shape)
    check_finite_array("token_rewards", r)
    if not np.all((m == 0) | (m == 1)):
        raise ValueError("response_mask must contain only 0 and 1")
    inv, order, starts = _group_index(group_ids, r.shape[0])
    return r, m, inv, starts

