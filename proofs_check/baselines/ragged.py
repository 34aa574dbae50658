r"""Random ragged batches, and the OTB implementations compared on them.

* :func:`ragged_batch` — a random padded ``(N, L)`` batch with ragged lengths
  (including 0 and ties for the longest), a group of one and optional
  truncated IS weights; log-probabilities and ``Σπ²`` from random logits;
* chunk functions ``f(rng, n, *, ...)`` returning ``(lhs, rhs, scale)``:
  :func:`otb_reference_cases` (the fused kernel against the per-token loop,
  every option combination) and :func:`otb_equal_weight_cases` (equal
  energies: OTB's baseline is the per-position group mean).

Theory page ``docs/theory/baselines.md#otb-implementation``.
"""
from __future__ import annotations

import numpy as np

from proofs_check.logits import log_softmax, sum_pi_squared

from proofs_check.engine import as_generator, check_bool, check_int, check_real

from ._args import chunk_args
from .otb import optimal_token_baseline_advantage, otb_advantage_loop

__all__ = ["ragged_batch", "otb_reference_cases", "otb_equal_weight_cases"]


def ragged_batch(rng, *, N: int = 16, L: int = 12, V: int = 6, n_groups: int = 5, is_weights: bool = True):
    """A random padded batch: ragged lengths (incl. 0 and ties), groups of one, optional IS weights."""
    rng = as_generator(rng, "rng")
    N = check_int("N", N, lo=1, hi=100_000)
    L = check_int("L", L, lo=1, hi=100_000)
    V = check_int("V", V, lo=2, hi=100_000)
    if N * L * V > 1 << 26:
        raise ValueError(f"N·L·V = {N * L * V} logits exceeds the limit {1 << 26} of one batch")
    n_groups = check_int("n_groups", n_groups, lo=1, hi=1 << 30)
    is_weights = check_bool("is_weights", is_weights)
    lens = rng.integers(0, L + 1, N)
    if rng.random() < 0.5:  # a tie for the longest
        lens[:2] = L
    m = (np.arange(L)[None, :] < lens[:, None]).astype(float)
    r = rng.normal(size=(N, L)) * (rng.random((N, L)) < 0.3)
    z = rng.normal(size=(N, L, V)) * rng.uniform(0.1, 5)
    a = rng.integers(0, V, (N, L))
    lp = np.take_along_axis(log_softmax(z), a[..., None], -1)[..., 0]
    spp = sum_pi_squared(z)
    g = rng.integers(0, n_groups, N)
    g[-1] = n_groups + 7  # a group of one
    isw = np.minimum(rng.lognormal(0, 0.5, (N, L)), 2.0) if is_weights else None
    return r, m, g, lp, spp, isw


def otb_reference_cases(rng, n, *, N: int, L: int, V: int):
    """Kernel vs the per-token loop on random ragged batches (all option combinations).

    Scale per batch: ``L² · max|r|`` — ``G_t`` accumulates up to ``L`` rewards (error
    ``≲ L ε max|r|``) and ``B_t`` is a ratio of sums of up to ``L`` weights (relative error
    ``≲ L ε``) times ``|G| ≤ L max|r|``.
    """
    rng, n = chunk_args(rng, n, hi=1000)
    N = check_int("N", N, lo=2, hi=64)
    L = check_int("L", L, lo=1, hi=64)
    V = check_int("V", V, lo=2, hi=64)
    lhs, rhs, sc = [], [], []
    for _ in range(n):
        r, m, g, lp, spp, isw = ragged_batch(rng, N=N, L=L, V=V)
        s = r.shape[1] ** 2 * max(float(np.max(np.abs(r))), np.finfo(float).tiny)
        for use_is in (False, True):
            for tail in (False, True):
                kw = {"is_weights": isw if use_is else None, "handle_zero_tail": tail}
                A1, R1 = optimal_token_baseline_advantage(r, m, g, lp, spp, **kw)
                A2, R2 = otb_advantage_loop(r, m, g, lp, spp, **kw)
                lhs += [A1.ravel(), R1.ravel()]
                rhs += [A2.ravel(), R2.ravel()]
                sc.append(np.full(2 * r.size, s))
    return np.concatenate(lhs), np.concatenate(rhs), np.concatenate(sc)


def otb_equal_weight_cases(rng, n, *, eps: float):
    """Equal per-token energies in a group (identical log-probs and Σπ²): B_t = per-position mean of G.

    Scale per group: ``N L · max|r|`` (``G`` sums up to ``L`` rewards, ``B`` averages ``N`` of them).
    """
    rng, n = chunk_args(rng, n, hi=10_000)
    eps = check_real("eps", eps, lo=0.0, hi=1.0)
    lhs, rhs, sc = [], [], []
    for _ in range(n):
        N, L = int(rng.integers(2, 8)), int(rng.integers(1, 10))
        r = rng.normal(size=(N, L))
        m = np.ones((N, L))
        p = rng.uniform(0.05, 0.6)
        lp = np.full((N, L), np.log(p))
        spp = np.full((N, L), min(1.0, p * p + rng.uniform(0.01, 0.3)))
        A, G = optimal_token_baseline_advantage(r, m, np.zeros(N), lp, spp, eps=eps)
        lhs.append(A.ravel())
        rhs.append((G - G.mean(axis=0, keepdims=True)).ravel())
        sc.append(np.full(N * L, N * L * float(np.max(np.abs(r)))))
    return np.concatenate(lhs), np.concatenate(rhs), np.concatenate(sc)
