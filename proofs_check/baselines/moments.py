r"""Exact finite-group moments of the self-inclusive group estimators.

For a group of ``N`` responses ``y_1..y_N`` drawn i.i.d. from the policy,
``ĝ = (1/N) Σ_i Σ_t s_t(y_i) A^i_t`` with the advantages of each kind in
:data:`GROUP_KINDS` (none, group mean, leave-one-out, group ``b*``, OTB with
the logit proxy).  :func:`group_estimator_moments` enumerates all
``n_seq**N`` tuples of an :class:`~.population.ExactModel` and returns the exact
mean, bias, cosine, scale, MSE and variance (:class:`GroupMoments`).

Random-instance experiments built on it (chunk functions ``f(rng, n, *, ...)``):
:func:`group_bias_cases`, :func:`otb_bias_curve`, :func:`group_mse_trials` (read through
:func:`mse_difference`).
Theory page ``docs/theory/baselines.md#group-estimators``.
"""
from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass

import numpy as np

from proofs_check.engine import check_instance, check_int, check_real

from ._args import choice as _choice
from ._args import chunk_args, enum_size, int_list, stats_column

from proofs_check.policies import TabularPolicy

from .population import ExactModel, exact_model

__all__ = ["GroupMoments", "group_estimator_moments", "GROUP_KINDS",
           "group_bias_cases", "otb_bias_curve", "group_mse_trials", "mse_difference"]

#: The group estimators of :func:`group_estimator_moments`.
GROUP_KINDS = ("none", "mean", "rloo", "global_bstar", "otb")


def _group_coefficients(kind, R, W, eps):
    """Coefficients ``a[.., i, t]`` of ``s_t(y_i)`` in ``ĝ = (1/N) Σ_i Σ_t s_t(y_i) a_it``.

    ``R`` (B, N) outcome rewards of the tuple, ``W`` (B, N, T) cumulative proxy.
    """
    Bn, N = R.shape
    T = W.shape[2]
    G = np.repeat(R[:, :, None], T, axis=2)
    if kind == "none" or N == 1:
        return G
    if kind == "mean":
        b = R.mean(axis=1)[:, None, None]
    elif kind == "rloo":
        b = ((R.sum(axis=1, keepdims=True) - R) / (N - 1))[:, :, None]
    elif kind == "global_bstar":
        E = W[:, :, -1]
        b = ((E * R).sum(axis=1) / (E.sum(axis=1) + eps))[:, None, None]
    elif kind == "otb":
        b = ((G * W).sum(axis=1) / (W.sum(axis=1) + eps))[:, None, :]
    else:  # pragma: no cover - checked by caller
        raise ValueError(kind)
    return G - b


@dataclass(frozen=True)
class GroupMoments:
    """Exact moments of a self-inclusive group estimator ``ĝ = (1/N) Σ_i Σ_t s_t(y_i) A^i_t``.

    ``bias_ratio = ‖E ĝ − g‖/‖g‖``; ``cosine = cos(E ĝ, g)``;
    ``scale = ⟨E ĝ, g⟩/‖g‖²`` (``(N−1)/N`` for the group mean);
    ``mse = E‖ĝ − g‖²``; ``variance = E‖ĝ − E ĝ‖²``.
    """

    kind: str
    N: int
    bias_ratio: float
    cosine: float
    scale: float
    mse: float
    variance: float
    grad_norm: float
    n_tuples: int

    def to_dict(self) -> dict:
        return asdict(self)


def group_estimator_moments(model: ExactModel, N: int, kind: str, *, eps: float = 1e-8,
                            max_tuples: int = 1 << 21, chunk: int = 1 << 14) -> GroupMoments:
    """Exact mean, bias and MSE of a group estimator by enumerating all ``n_seq**N`` tuples.

    ``kind`` in :data:`GROUP_KINDS`; OTB uses the logit proxy as ``w`` (as the
    implementation does) and the ``eps`` guard.  Uses the Gram tensor, so the
    model must be small (``n_seq·T`` up to a few hundred).
    """
    check_instance("model", model, ExactModel)
    N = check_int("N", N, lo=1, hi=12)
    _choice("kind", kind, GROUP_KINDS)
    eps = check_real("eps", eps, lo=0.0)
    max_tuples = check_int("max_tuples", max_tuples, lo=1, hi=1 << 24)
    chunk = check_int("chunk", chunk, lo=1, hi=1 << 16)
    n, T = model.n_seq, model.T
    total = n ** N
    if total > max_tuples:
        raise ValueError(f"n_seq**N = {n}**{N} = {total} tuples exceeds max_tuples = {max_tuples}")
    K = model.gram().reshape(n * T, n * T)
    Wc = np.cumsum(model.proxy, axis=1)
    Rfull = np.repeat(model.R[:, None], T, axis=1)
    g = model.mean_gradient(Rfull)
    g2 = model.sq_norm(g)
    h = model.inner_with(g)  # (n, T)
    logP = np.log(np.maximum(model.P, 1e-300))
    abar = np.zeros((n, T))  # E[a_1t | y_1 = y]
    second = 0.0
    cross = 0.0
    all_idx = itertools.product(range(n), repeat=N)
    done = 0
    while done < total:
        m = min(chunk, total - done)
        tup = np.fromiter(itertools.chain.from_iterable(itertools.islice(all_idx, m)),
                          dtype=np.int64, count=m * N).reshape(m, N)
        done += m
        wt = np.exp(logP[tup].sum(axis=1))  # (m,)
        a = _group_coefficients(kind, model.R[tup], Wc[tup], eps)  # (m, N, T)
        # E‖ĝ‖²: (1/N²) Σ_{i,j} Σ_{t,u} a_it a_ju K[y_i t, y_j u]
        flat = (tup[:, :, None] * T + np.arange(T)[None, None, :]).reshape(m, N * T)
        av = a.reshape(m, N * T)
        Kb = K[flat[:, :, None], flat[:, None, :]]  # (m, NT, NT)
        sq = np.einsum("mi,mij,mj->m", av, Kb, av) / N ** 2
        second += float(wt @ sq)
        cross += float(wt @ (np.sum(a * h[tup], axis=(1, 2)) / N))
        np.add.at(abar, tup[:, 0], wt[:, None] * a[:, 0, :])
    # abar currently holds Σ P(tuple) a_1t over tuples with y_1 = y, i.e. P(y) E[a|y]
    with np.errstate(invalid="ignore", divide="ignore"):
        abar = np.where(model.P[:, None] > 0, abar / model.P[:, None], 0.0)
    mean_g = model.mean_gradient(abar)
    m2 = model.sq_norm(mean_g)
    bias2 = max(m2 - 2 * cross + g2, 0.0)
    mse = second - 2 * cross + g2
    var = second - m2
    gn = float(np.sqrt(g2))
    return GroupMoments(kind=kind, N=N, bias_ratio=float(np.sqrt(bias2)) / gn if gn > 0 else float("nan"),
                        cosine=float(cross / (np.sqrt(m2) * gn)) if m2 > 0 and gn > 0 else float("nan"),
                        scale=float(cross / g2) if g2 > 0 else float("nan"),
                        mse=float(mse), variance=float(var), grad_norm=gn, n_tuples=int(total))


# ---------------------------------------------------------------------------
# experiments on random tabular instances (chunk functions)
# ---------------------------------------------------------------------------

def _random_model(rng, V, T):
    """A random tabular policy (logit scale 1.5) with rewards ``U[0, 1]`` per response, enumerated."""
    return exact_model(TabularPolicy.random(V, T, rng, scale=1.5), rng.random(V ** T))


def group_bias_cases(rng, n, *, kind: str, V: int, T: int, Ns):
    """Exact scale and bias of a group estimator against their closed forms, ``n`` random instances.

    Group mean: ``(scale, |bias|/|g|) = ((N−1)/N, 1/N)``; leave-one-out:
    ``(scale, (|bias|/|g|)²) = (1, 0)``.  Returns ``(lhs, rhs)`` for each ``N`` in ``Ns``.
    """
    _choice("kind", kind, ("mean", "rloo"))
    rng, n = chunk_args(rng, n, hi=1000)
    V, T = enum_size(V, T, max_seq=64)
    Ns = int_list("Ns", Ns, lo=1, hi=12)
    lhs, rhs = [], []
    for _ in range(n):
        m = _random_model(rng, V, T)
        for N in Ns:
            gm = group_estimator_moments(m, N, kind, max_tuples=1 << 16)
            if kind == "mean":
                lhs += [gm.scale, gm.bias_ratio]
                rhs += [(N - 1) / N, 1.0 / N]
            else:
                lhs += [gm.scale, gm.bias_ratio ** 2]
                rhs += [1.0, 0.0]
    return np.array(lhs), np.array(rhs)


def otb_bias_curve(rng, n, *, Ns, V: int, T: int):
    """``|E ĝ − g|/|g|`` of the OTB group estimator at each ``N`` of ``Ns`` (exact), ``n`` random instances."""
    rng, n = chunk_args(rng, n, hi=1000)
    V, T = enum_size(V, T, max_seq=64)
    Ns = int_list("Ns", Ns, lo=1, hi=12)
    out = np.empty((n, len(Ns)))
    for i in range(n):
        m = _random_model(rng, V, T)
        out[i] = [group_estimator_moments(m, N, "otb", max_tuples=1 << 16).bias_ratio for N in Ns]
    return out


def group_mse_trials(rng, n, *, N: int, V: int, T: int) -> dict:
    """Exact MSE at group size ``N`` of every estimator in :data:`GROUP_KINDS`, ``n`` random instances.

    Returns ``{kind: (n,) array}`` (one row per instance, the same instance for every kind).
    """
    rng, n = chunk_args(rng, n, hi=1000)
    V, T = enum_size(V, T, max_seq=64)
    N = check_int("N", N, lo=1, hi=12)
    out = {kind: np.empty(n) for kind in GROUP_KINDS}
    for i in range(n):
        m = _random_model(rng, V, T)
        for kind in GROUP_KINDS:
            out[kind][i] = group_estimator_moments(m, N, kind, max_tuples=1 << 16).mse
    return out


def mse_difference(stats, *, a: str, b: str) -> np.ndarray:
    """Per instance ``MSE[a] − MSE[b]`` from the statistics of :func:`group_mse_trials`."""
    x, y = stats_column(stats, a), stats_column(stats, b)
    if x.shape != y.shape:
        raise ValueError(f"stats[{a!r}] and stats[{b!r}] must have the same shape, got {x.shape} and {y.shape}")
    return x - y
