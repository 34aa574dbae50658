r"""Gradient estimators under training–inference mismatch (theory ``mismatch.md#estimators``, blog, CONFIRMED).

Samples ``y ∼ μ`` (the sampler), target ``g = ∇_θ J(π_θ) = E_π[f]`` with
``f(y) = R(y) ∇ log π(y)`` and ``∇ log π(y) = Σ_t s_t(y)``,
``s_t(y) = ∇_θ log π(y_t | c_t)`` (a :class:`~proofs_check.policies.LinearSoftmaxPolicy`
supplies the score tables).  Per-sample estimators (``A = R − b``):

=============  ==================================================
``naive``      ``f(y)``
``token_is``   ``A Σ_t ρ_t s_t``
``token_tis``  ``A Σ_t min(ρ_t, C) s_t``
``seq_is``     ``ρ(y) f(y)``
``seq_tis``    ``min(ρ(y), C) f(y)``
``seq_mis``    ``1{ρ(y) ≤ C} ρ(y) f(y)``
``geo_mask``   ``1{C_lo ≤ ρ_geo ≤ C_hi} f(y)``, ``ρ_geo = ρ^{1/T}``
=============  ==================================================

:func:`estimator_moments` gives the exact mean, bias ``E_μ[est] − g``,
variance ``E_μ‖est − E est‖²`` (trace) and per-sample MSE by enumeration;
:func:`estimator_samples` evaluates the same estimators on sampled responses
for Monte Carlo.  The ``token_*`` estimators use the sequence reward as the
per-token advantage (REINFORCE with baseline ``b``), the blog's setting.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..policies import (DEFAULT_MAX_BYTES, LinearSoftmaxPolicy, TabularPolicy, check_enumerable, check_pair,
                        check_reward, sequence_log_probs, token_log_probs)
from ..engine import check_real

__all__ = ["ESTIMATORS", "EstimatorMoments", "estimator_values", "estimator_moments", "estimator_samples",
           "check_thresholds", "length_trap_horizon"]

ESTIMATORS = ("naive", "token_is", "token_tis", "seq_is", "seq_tis", "seq_mis", "geo_mask")


def check_thresholds(C: float, C_lo: float, C_hi: float) -> tuple:
    """``C > 0`` and ``0 ≤ C_lo ≤ C_hi`` (ValueError naming the offender)."""
    C = check_real("C", C, lo=0.0, lo_open=True)
    C_lo = check_real("C_lo", C_lo, lo=0.0)
    C_hi = check_real("C_hi", C_hi, lo=0.0)
    if C_lo > C_hi:
        raise ValueError(f"thresholds must satisfy C_lo ≤ C_hi, got C_lo={C_lo} > C_hi={C_hi}")
    return C, C_lo, C_hi


def length_trap_horizon(C: float, rho_bar: float) -> float:
    """``T* = log C / log ρ̄``: with per-token ratios ``ρ̄ > 1`` every response longer
    than ``T*`` has ``ρ(y) = ρ̄^T > C`` and is rejected by a sequence threshold (theory ``mismatch.md#estimators``)."""
    C = check_real("C", C, lo=1.0, lo_open=True)
    rho_bar = check_real("rho_bar", rho_bar, lo=1.0, lo_open=True)
    return math.log(C) / math.log(rho_bar)


def _check_policies(mu, pi):
    if not isinstance(pi, LinearSoftmaxPolicy):
        raise TypeError(f"pi must be a LinearSoftmaxPolicy (it supplies ∇_θ log π), got {type(pi).__name__}")
    check_pair(mu, pi.tabular())
    return mu.V, mu.T


def _per_sequence(mu: TabularPolicy, pi: LinearSoftmaxPolicy, C: float):
    """Per-sequence ``Σ_t s_t``, ``Σ_t ρ_t s_t``, ``Σ_t min(ρ_t, C) s_t`` and ``log ρ``."""
    V, T = mu.V, mu.T
    d = pi.d
    tab = pi.tabular()
    scores = pi.score_tables()
    S = np.zeros((V ** T, d)); SR = np.zeros((V ** T, d)); ST = np.zeros((V ** T, d))
    for t in range(T):
        lr = tab.log_probs(t) - mu.log_probs(t)
        rho = np.exp(lr)
        s = scores[t].reshape(V ** (t + 1), d)
        view = lambda a: a.reshape(V ** (t + 1), V ** (T - t - 1), d)  # noqa: E731
        view(S)[...] += s[:, None, :]
        view(SR)[...] += (rho.reshape(-1, 1) * s)[:, None, :]
        view(ST)[...] += (np.minimum(rho, C).reshape(-1, 1) * s)[:, None, :]
    log_rho = sequence_log_probs(tab) - sequence_log_probs(mu)
    return S, SR, ST, log_rho


def _values(S, SR, ST, log_rho, r, T, C, C_lo, C_hi, baseline) -> dict:
    rho = np.exp(log_rho)
    f = r[:, None] * S
    A = (r - baseline)[:, None]
    geo = np.exp(log_rho / T)
    return {
        "naive": f,
        "token_is": A * SR,
        "token_tis": A * ST,
        "seq_is": rho[:, None] * f,
        "seq_tis": np.minimum(rho, C)[:, None] * f,
        "seq_mis": ((rho <= C) * rho)[:, None] * f,
        "geo_mask": ((geo >= C_lo) & (geo <= C_hi))[:, None] * f,
    }


def _prepare(mu, pi, reward, C, C_lo, C_hi, baseline, max_bytes):
    V, T = _check_policies(mu, pi)
    r = check_reward(reward, V, T)
    C, C_lo, C_hi = check_thresholds(C, C_lo, C_hi)
    baseline = check_real("baseline", baseline)
    check_enumerable(V, T, n_arrays=12 * pi.d, max_bytes=max_bytes)
    S, SR, ST, log_rho = _per_sequence(mu, pi, C)
    return r, S, _values(S, SR, ST, log_rho, r, T, C, C_lo, C_hi, baseline)


def estimator_values(mu: TabularPolicy, pi: LinearSoftmaxPolicy, reward, *, C: float = 2.0,
                     C_lo: float = 0.5, C_hi: float = 2.0, baseline: float = 0.0,
                     max_bytes: int = DEFAULT_MAX_BYTES) -> dict:
    """Every estimator's value on every sequence: dict name -> ``(V**T, d)`` array."""
    return _prepare(mu, pi, reward, C, C_lo, C_hi, baseline, max_bytes)[2]


@dataclass(frozen=True)
class EstimatorMoments:
    """Exact moments of one estimator under ``y ∼ μ``.

    ``mean`` and ``bias = mean − g`` are ``(d,)`` arrays; ``variance`` is the
    trace ``E‖est − mean‖²``; ``mse = ‖bias‖² + variance`` (one sample).
    """

    name: str
    mean: np.ndarray
    bias: np.ndarray
    bias_norm: float
    variance: float
    mse: float

    def to_dict(self) -> dict:
        return {"name": self.name, "mean": self.mean.tolist(), "bias": self.bias.tolist(),
                "bias_norm": self.bias_norm, "variance": self.variance, "mse": self.mse}


def estimator_moments(mu: TabularPolicy, pi: LinearSoftmaxPolicy, reward, *, C: float = 2.0,
                      C_lo: float = 0.5, C_hi: float = 2.0, baseline: float = 0.0,
                      max_bytes: int = DEFAULT_MAX_BYTES) -> tuple:
    """``(g, {name: EstimatorMoments})`` — exact target gradient and moments by enumeration."""
    r, S, vals = _prepare(mu, pi, reward, C, C_lo, C_hi, baseline, max_bytes)
    pmu = np.exp(sequence_log_probs(mu))
    ppi = np.exp(sequence_log_probs(pi.tabular()))
    g = ppi @ (r[:, None] * S)
    out = {}
    for name, v in vals.items():
        mean = pmu @ v
        second = float(pmu @ (v * v).sum(axis=1))
        var = max(second - float(mean @ mean), 0.0)
        bias = mean - g
        bn = float(np.linalg.norm(bias))
        out[name] = EstimatorMoments(name=name, mean=mean, bias=bias, bias_norm=bn, variance=var,
                                     mse=bn ** 2 + var)
    return g, out


def estimator_samples(mu: TabularPolicy, pi: LinearSoftmaxPolicy, reward_fn, tokens, *, C: float = 2.0,
                      C_lo: float = 0.5, C_hi: float = 2.0, baseline: float = 0.0) -> dict:
    """Every estimator on sampled responses ``tokens`` (``(n, T)``, drawn from ``μ``).

    ``reward_fn`` is either a ``(V**T,)`` reward array (looked up by sequence
    index) or an ``(n,)`` array of rewards for the given responses.  Works from
    per-token log-probs only, as a trainer would.  Returns name -> ``(n, d)``.
    """
    V, T = _check_policies(mu, pi)
    C, C_lo, C_hi = check_thresholds(C, C_lo, C_hi)
    y = np.asarray(tokens)
    from ..policies import sequence_index
    idx = sequence_index(y, V)
    rf = np.asarray(reward_fn, dtype=float)
    if rf.shape == (V ** T,):
        r = rf[idx]
    elif rf.shape == (y.shape[0],):
        r = rf
    else:
        raise ValueError(f"reward_fn must have shape (V**T,)=({V ** T},) or (n,)=({y.shape[0]},), got {rf.shape}")
    lmu, _ = token_log_probs(mu, y)
    lpi, _ = token_log_probs(pi.tabular(), y)
    lr = lpi - lmu
    rho_t = np.exp(lr)
    scores = pi.score_tables()
    n, d = y.shape[0], pi.d
    s_t = np.empty((n, T, d))
    row = np.zeros(n, dtype=np.int64)
    for t in range(T):
        s_t[:, t] = scores[t][row, y[:, t]]
        row = row * V + y[:, t]
    SR = np.einsum("nt,ntd->nd", rho_t, s_t)
    ST = np.einsum("nt,ntd->nd", np.minimum(rho_t, C), s_t)
    return _values(s_t.sum(axis=1), SR, ST, lr.sum(axis=1), r, T, C, C_lo, C_hi,
                   check_real("baseline", baseline))
