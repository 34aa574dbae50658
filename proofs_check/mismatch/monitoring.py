r"""Monitoring statistics (theory ``mismatch.md#estimators``) and the veRL rollout-correction conventions (theory ``mismatch.md#verl``).

**Monitoring** from token log-probs, ``Δ_t = log π(y_t) − log μ(y_t)``:
``k1 = −Δ_t``, ``k2 = Δ_t²/2``, ``k3 = e^{Δ_t} − Δ_t − 1`` (k1, k3 unbiased
for ``KL(c)`` under μ; k3 ≥ 0); per-sequence log-perplexity gap
``mean_t log μ − mean_t log π = −log ρ_geo``.

**veRL** (``verl/trainer/ppo/rollout_corr_helper.py``, CONFIRMED from code per
theory ``mismatch.md#verl``; the function names here are ours):

* ``log r_t = log π_old − log π_rollout``, clamped to ``[−20, 20]`` before
  exponentiation (``clamp=20.0`` keyword);
* ``token_k1 = −log r``, ``token_k2 = (log r)²/2``, ``token_k3 = r − 1 − log r``;
  per sequence over valid tokens ``seq_sum_k*``, ``seq_mean_k*``,
  ``seq_max_k2``, ``seq_max_k3``;
* a k1 keep-rule ``log(lower) ≤ k1 ≤ log(upper)`` — since ``k1 = log(μ/π)`` it
  bounds ``μ/π``, **not** ``π/μ`` (asymmetric thresholds are mirrored relative
  to intuition); a single value ``u`` means ``lower = 1/u``;
* k2/k3 options take an upper threshold only;
* several criteria are **ANDed**; rejection zeroes the response mask (token
  options zero the offending tokens, ``seq_*`` options the whole response) and
  never the IS weights;
* truncated IS clamps the weight above (``min(w, upper)``); ``"lo_hi"`` zeroes
  the weight outside ``[lo, hi]``.  Sequence-level weights are
  ``exp(Σ_t log r_t)`` with the clamp applied to the summed log-ratio.

Which log-ratio is clamped (the per-token one) and the token-vs-sequence reach
of a token option's rejection are our reading of the theory page's summary.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..engine import check_choice, check_real, shown
from .masks import _lengths, check_padded

__all__ = ["MonitoringStats", "monitoring_statistics", "verl_statistics", "RS_OPTIONS",
           "parse_k1_threshold", "verl_rejection_mask", "verl_is_weights"]

RS_OPTIONS = ("token_k1", "token_k2", "token_k3", "seq_sum_k1", "seq_sum_k2", "seq_sum_k3",
              "seq_mean_k1", "seq_mean_k2", "seq_mean_k3", "seq_max_k2", "seq_max_k3")


@dataclass(frozen=True)
class MonitoringStats:
    """Per-token ``k1, k2, k3`` (``(N, T_max)``, zero at padding), per-sequence
    means and the log-perplexity gap ``−log ρ_geo`` (``(N,)``)."""

    k1: np.ndarray
    k2: np.ndarray
    k3: np.ndarray
    mean_k1: np.ndarray
    mean_k2: np.ndarray
    mean_k3: np.ndarray
    log_ppl_gap: np.ndarray

    def to_dict(self) -> dict:
        return {k: v.tolist() for k, v in self.__dict__.items()}


def monitoring_statistics(logp_pi, logp_mu, response_mask) -> MonitoringStats:
    """Spec §3 monitoring quantities from sampled-token log-probs."""
    m, a, b = check_padded(response_mask, logp_pi, logp_mu, names=("logp_pi", "logp_mu"), log_probs=True)
    L = _lengths(m)
    d = a - b
    k1 = np.where(m, -d, 0.0)
    k2 = np.where(m, 0.5 * d * d, 0.0)
    k3 = np.where(m, np.expm1(d) - d, 0.0)
    gap = (b.sum(axis=1) - a.sum(axis=1)) / L
    return MonitoringStats(k1=k1, k2=k2, k3=k3, mean_k1=k1.sum(1) / L, mean_k2=k2.sum(1) / L,
                           mean_k3=k3.sum(1) / L, log_ppl_gap=gap)


def verl_statistics(old_log_prob, rollout_log_prob, response_mask, *, clamp: float = 20.0) -> dict:
    """veRL per-token and per-sequence statistics (theory ``mismatch.md#verl``).

    Returns a dict with ``log_ratio`` (clamped), ``token_k1/k2/k3`` (``(N, T)``,
    zero at padding) and ``seq_sum_k1..3``, ``seq_mean_k1..3``,
    ``seq_max_k2``, ``seq_max_k3`` (``(N,)``).
    """
    clamp = check_real("clamp", clamp, lo=0.0, lo_open=True)
    m, a, b = check_padded(response_mask, old_log_prob, rollout_log_prob,
                           names=("old_log_prob", "rollout_log_prob"), log_probs=True)
    L = _lengths(m)
    lr = np.clip(a - b, -clamp, clamp)
    out = {"log_ratio": np.where(m, lr, 0.0)}
    ks = {"k1": -lr, "k2": 0.5 * lr * lr, "k3": np.exp(lr) - 1.0 - lr}
    for k, v in ks.items():
        v = np.where(m, v, 0.0)
        out[f"token_{k}"] = v
        out[f"seq_sum_{k}"] = v.sum(axis=1)
        out[f"seq_mean_{k}"] = v.sum(axis=1) / L
    for k in ("k2", "k3"):
        out[f"seq_max_{k}"] = np.where(m, out[f"token_{k}"], -np.inf).max(axis=1)
    return out


def _check_name(name, value, allowed):
    """``check_choice`` for string options (an array would make ``in`` ambiguous)."""
    if not isinstance(value, str):
        raise ValueError(f"{name} must be one of {sorted(allowed)}, got {shown(value)}")
    return check_choice(name, value, allowed)


def parse_k1_threshold(threshold) -> tuple:
    """``"lower_upper"`` string, a ``(lower, upper)`` pair, or one value ``u`` (→ ``(1/u, u)``).

    Returns ``(lower, upper)`` with ``0 < lower ≤ upper``; the keep-rule is
    ``log(lower) ≤ k1 ≤ log(upper)``.
    """
    if isinstance(threshold, str):
        parts = threshold.split("_")
        if len(parts) not in (1, 2):
            raise ValueError(f"k1 threshold string must be 'lower_upper' or 'upper', got {threshold!r}")
        try:
            vals = tuple(float(v) for v in parts)
        except ValueError:
            raise ValueError(f"threshold string must hold numbers as 'lower_upper' or 'upper', "
                             f"got {shown(threshold)}") from None
    elif isinstance(threshold, (tuple, list)):
        if len(threshold) not in (1, 2):
            raise ValueError(f"threshold must be a (lower, upper) pair, got {shown(threshold)}")
        vals = tuple(threshold)
    else:
        vals = (threshold,)
    if len(vals) == 1:
        u = check_real("threshold", vals[0], lo=0.0, lo_open=True)
        lo, hi = (1.0 / u, u) if u >= 1 else (u, 1.0 / u)
    elif len(vals) == 2:
        lo = check_real("lower", vals[0], lo=0.0, lo_open=True)
        hi = check_real("upper", vals[1], lo=0.0, lo_open=True)
        if lo > hi:
            raise ValueError(f"k1 thresholds must satisfy lower ≤ upper, got lower={lo} > upper={hi}")
    else:
        raise ValueError(f"k1 threshold must have one or two values, got {threshold!r}")
    return lo, hi


def verl_rejection_mask(old_log_prob, rollout_log_prob, response_mask, criteria: dict, *,
                        clamp: float = 20.0) -> np.ndarray:
    """New response mask after the ANDed rejection ``criteria`` (``{option: threshold}``).

    ``*_k1`` options keep ``log(lower) ≤ k1 ≤ log(upper)``; k2/k3 options keep
    ``value ≤ threshold``.  ``token_*`` options zero the offending tokens;
    ``seq_*`` options zero the whole response.  IS weights are untouched
    (compute them separately with :func:`verl_is_weights`).
    """
    if not isinstance(criteria, dict) or not criteria:
        raise ValueError("criteria must be a non-empty dict {option: threshold}")
    stats = verl_statistics(old_log_prob, rollout_log_prob, response_mask, clamp=clamp)
    m = check_padded(response_mask)[0]
    keep_tok = m.copy()
    keep_seq = np.ones(m.shape[0], dtype=bool)
    for opt, thr in criteria.items():
        _check_name("criteria option", opt, RS_OPTIONS)
        v = stats[opt]
        if opt.endswith("k1"):
            lo, hi = parse_k1_threshold(thr)
            ok = (v >= math.log(lo)) & (v <= math.log(hi))
        else:
            hi = check_real(f"threshold of {opt}", thr, lo=0.0)
            ok = v <= hi
        if opt.startswith("token_"):
            keep_tok &= ok | ~m
        else:
            keep_seq &= ok
    return m & keep_tok & keep_seq[:, None]


def verl_is_weights(old_log_prob, rollout_log_prob, response_mask, *, level: str = "token",
                    mode: str = "truncate", upper: float = 2.0, lower: float | None = None,
                    clamp: float = 20.0) -> np.ndarray:
    """IS weights ``r = π_old/π_rollout`` (token) or ``Π_t r_t`` (sequence, broadcast over tokens).

    Token level: each token's log-ratio is clamped to ``±clamp`` before ``exp``.
    Sequence level: the *sum* of the unclamped token log-ratios is clamped to
    ``±clamp``, as veRL does — for log-ratios (25, −24, 0.1) the weight is
    ``e^{1.1} = 3.004``; clamping each token first would give
    ``e^{20 − 20 + 0.1} = 1.105``.
    ``mode="truncate"``: ``min(r, upper)``; ``mode="lo_hi"``: ``r`` inside
    ``[lower, upper]`` and 0 outside (``lower`` defaults to ``1/upper``).
    Padding gets weight 0.
    """
    _check_name("level", level, ("token", "sequence"))
    _check_name("mode", mode, ("truncate", "lo_hi"))
    upper = check_real("upper", upper, lo=0.0, lo_open=True)
    lower = 1.0 / upper if lower is None else check_real("lower", lower, lo=0.0)
    if lower > upper:
        raise ValueError(f"IS thresholds must satisfy lower ≤ upper, got lower={lower} > upper={upper}")
    clamp = check_real("clamp", clamp, lo=0.0, lo_open=True)
    m, a, b = check_padded(response_mask, old_log_prob, rollout_log_prob,
                           names=("old_log_prob", "rollout_log_prob"), log_probs=True)
    if m.size == 0:
        raise ValueError("response_mask must hold at least one sequence and one position")
    raw = np.where(m, a - b, 0.0)
    if level == "token":
        w = np.exp(np.clip(raw, -clamp, clamp))
    else:
        s = np.clip(raw.sum(axis=1), -clamp, clamp)
        w = np.broadcast_to(np.exp(s)[:, None], m.shape).copy()
    if mode == "truncate":
        w = np.minimum(w, upper)
    else:
        w = np.where((w >= lower) & (w <= upper), w, 0.0)
    return np.where(m, w, 0.0)
