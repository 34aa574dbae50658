r"""Trust region masking and its sample-based proxies (theory ``mismatch.md#trm``, CONFIRMED).

Inputs are padded per-token arrays of shape ``(N, T_max)`` with a boolean
``response_mask`` marking valid tokens (a response of length ``T_i`` has its
first ``T_i`` entries valid).  ``logp_pi``/``logp_mu`` are the trainer's and
sampler's log-probs of the sampled tokens; ``kl`` the exact per-context
``KL(μ(·|c_t) ‖ π(·|c_t))`` from full-vocabulary logits.  Each mask returns a
boolean ``(N,)`` array, ``True`` = **accepted** (kept).

* TRM-Max: accept iff ``max_t KL(c_t) ≤ δ``; TRM-Avg: ``(1/T) Σ_t KL(c_t) ≤ δ_avg``.
* proxies (only sampled-token log-probs): k2-max ``max_t Δ_t²/2 ≤ δ`` and
  k3-mean ``mean_t (e^{Δ_t} − 1 − Δ_t) ≤ δ_avg`` with ``Δ_t = log π − log μ``.
* length-neutral: ``w_t = min(1, (T−t)ε, sqrt((T−t)δ/2))``,
  ``W = Σ_t |ρ_t − 1| w_t``; accept iff ``W ≤ δ_W Σ_t w_t`` (``T`` the
  response's own length, ``t = 1..T``).
* sequence MIS: ``ρ(y) ≤ C``; geometric: ``C_lo ≤ ρ(y)^{1/T} ≤ C_hi``.
* :func:`masked_gradient` — ``(1/N) Σ_i M_i (R_i − b) Σ_t ρ_t ∇log π_t``,
  normalised by the **total** ``N``.
* :func:`proxy_acceptance` — exact, by enumeration, how often each proxy
  accepts a sequence whose exact max KL exceeds ``δ``.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from ..policies import (DEFAULT_MAX_BYTES, TabularPolicy, check_enumerable, check_pair, per_context_kl,
                        sequence_log_probs, token_log_ratio_tables)
from ..engine import check_finite_array, check_int, check_real

__all__ = ["check_padded", "trm_max_mask", "trm_avg_mask", "k2_max_mask", "k3_mean_mask",
           "length_neutral_weights", "length_neutral_mask", "sequence_mis_mask", "geometric_mask",
           "masked_gradient", "ProxyAcceptance", "proxy_acceptance", "trm_acceptance"]


def check_padded(response_mask, *arrays, names=(), log_probs: bool = False) -> tuple:
    """Validate ``(N, T_max)`` arrays against a boolean-like ``response_mask``.

    Returns the mask as bool and the arrays as float64 with invalid entries set
    to 0 (they are never read).  Every array must hold real numbers (complex,
    string, object and boolean arrays are refused with a ``TypeError`` naming
    it: a complex entry is never silently truncated to its real part), and every
    valid entry must be finite.  ``log_probs=True``: the arrays are
    log-probabilities, so every valid entry must be ``≤ 0`` (a probability is at
    most 1); a positive one is refused with its name, index and value.
    """
    m = np.asarray(response_mask)
    if m.ndim != 2:
        raise ValueError(f"response_mask must be 2-D (N, T_max), got shape {m.shape}")
    if m.dtype != bool:
        if not np.all((m == 0) | (m == 1)):
            raise ValueError("response_mask must contain only 0/1 (or booleans)")
        m = m.astype(bool)
    out = [m]
    for name, a in zip(names, arrays):
        a = check_finite_array(name, a, finite=False)
        if a.shape != m.shape:
            raise ValueError(f"{name} must have the shape of response_mask {m.shape}, got {a.shape}")
        if not np.all(np.isfinite(a[m])):
            raise ValueError(f"{name} contains NaN or inf at a valid (masked-in) position")
        if log_probs and np.any(m & (a > 0.0)):
            i, j = (int(v) for v in np.argwhere(m & (a > 0.0))[0])
            raise ValueError(f"{name} must hold log-probabilities (≤ 0 at valid positions), got "
                             f"{name}[{i}, {j}] = {float(a[i, j])!r} > 0")
        out.append(np.where(m, a, 0.0))
    return tuple(out)


def _lengths(m):
    L = m.sum(axis=1)
    if np.any(L == 0):
        raise ValueError("every response must have at least one valid token (a row of response_mask is all 0)")
    return L


def trm_max_mask(kl, response_mask, delta: float) -> np.ndarray:
    """TRM-Max: accept iff ``max_t KL(c_t) ≤ δ`` (exact KL)."""
    delta = check_real("delta", delta, lo=0.0)
    m, k = check_padded(response_mask, kl, names=("kl",))
    _lengths(m)
    return np.where(m, k, -np.inf).max(axis=1) <= delta


def trm_avg_mask(kl, response_mask, delta_avg: float) -> np.ndarray:
    """TRM-Avg: accept iff ``(1/T) Σ_t KL(c_t) ≤ δ_avg``."""
    delta_avg = check_real("delta_avg", delta_avg, lo=0.0)
    m, k = check_padded(response_mask, kl, names=("kl",))
    return k.sum(axis=1) / _lengths(m) <= delta_avg


def k2_max_mask(logp_pi, logp_mu, response_mask, delta: float) -> np.ndarray:
    """k2-max proxy: accept iff ``max_t (log π − log μ)²/2 ≤ δ``."""
    delta = check_real("delta", delta, lo=0.0)
    m, a, b = check_padded(response_mask, logp_pi, logp_mu, names=("logp_pi", "logp_mu"), log_probs=True)
    _lengths(m)
    k2 = 0.5 * (a - b) ** 2
    return np.where(m, k2, -np.inf).max(axis=1) <= delta


def k3_mean_mask(logp_pi, logp_mu, response_mask, delta_avg: float) -> np.ndarray:
    """k3-mean proxy: accept iff ``mean_t (e^{Δ_t} − 1 − Δ_t) ≤ δ_avg``."""
    delta_avg = check_real("delta_avg", delta_avg, lo=0.0)
    m, a, b = check_padded(response_mask, logp_pi, logp_mu, names=("logp_pi", "logp_mu"), log_probs=True)
    d = a - b
    k3 = np.where(m, np.expm1(d) - d, 0.0)
    return k3.sum(axis=1) / _lengths(m) <= delta_avg


#: Largest response length of :func:`length_neutral_weights` (2**27 floats = 1 GiB).
MAX_POSITIONS = 2 ** 27


def length_neutral_weights(T: int, *, eps: float, delta: float) -> np.ndarray:
    """``w_t = min(1, (T−t)ε, sqrt((T−t)δ/2))`` for ``t = 1..T`` (``T ≤ 2**27``: one float per position)."""
    T = check_int("T", T, lo=1, hi=MAX_POSITIONS)
    eps = check_real("eps", eps, lo=0.0)
    delta = check_real("delta", delta, lo=0.0)
    k = T - np.arange(1, T + 1, dtype=float)
    return np.minimum(1.0, np.minimum(k * eps, np.sqrt(k * delta / 2.0)))


def length_neutral_mask(logp_pi, logp_mu, response_mask, *, eps: float, delta: float,
                        delta_w: float) -> np.ndarray:
    """Accept iff ``W(y) = Σ_t |ρ_t − 1| w_t ≤ δ_W Σ_t w_t`` (each response's own ``T``).

    A response with ``Σ_t w_t = 0`` (``T = 1``, or ``ε = 0``) is accepted.
    """
    delta_w = check_real("delta_w", delta_w, lo=0.0)
    eps = check_real("eps", eps, lo=0.0)
    delta = check_real("delta", delta, lo=0.0)
    m, a, b = check_padded(response_mask, logp_pi, logp_mu, names=("logp_pi", "logp_mu"), log_probs=True)
    L = _lengths(m)
    if not np.all(m == (np.arange(m.shape[1])[None, :] < L[:, None])):
        raise ValueError("length_neutral_mask needs left-aligned responses (valid tokens first)")
    t = np.arange(1, m.shape[1] + 1)[None, :]
    k = np.maximum(L[:, None] - t, 0).astype(float)
    w = np.where(m, np.minimum(1.0, np.minimum(k * eps, np.sqrt(k * delta / 2.0))), 0.0)
    W = (np.abs(np.expm1(a - b)) * w).sum(axis=1)
    return W <= delta_w * w.sum(axis=1)


def sequence_mis_mask(logp_pi, logp_mu, response_mask, C: float) -> np.ndarray:
    """Sequence MIS: accept iff ``ρ(y) = exp(Σ_t Δ_t) ≤ C`` (compared in log space)."""
    C = check_real("C", C, lo=0.0, lo_open=True)
    m, a, b = check_padded(response_mask, logp_pi, logp_mu, names=("logp_pi", "logp_mu"), log_probs=True)
    _lengths(m)
    return (a - b).sum(axis=1) <= np.log(C)


def geometric_mask(logp_pi, logp_mu, response_mask, C_lo: float, C_hi: float) -> np.ndarray:
    """Geometric mask: accept iff ``C_lo ≤ ρ_geo ≤ C_hi``, ``ρ_geo = exp(mean_t Δ_t)``."""
    C_lo = check_real("C_lo", C_lo, lo=0.0, lo_open=True)
    C_hi = check_real("C_hi", C_hi, lo=0.0, lo_open=True)
    if C_lo > C_hi:
        raise ValueError(f"thresholds must satisfy C_lo ≤ C_hi, got C_lo={C_lo} > C_hi={C_hi}")
    m, a, b = check_padded(response_mask, logp_pi, logp_mu, names=("logp_pi", "logp_mu"), log_probs=True)
    g = (a - b).sum(axis=1) / _lengths(m)
    return (g >= np.log(C_lo)) & (g <= np.log(C_hi))


def masked_gradient(accept, reward, logp_pi, logp_mu, score, response_mask, *, baseline: float = 0.0) -> np.ndarray:
    r"""``(1/N) Σ_i M_i (R_i − b) Σ_t ρ_t^{(i)} ∇log π(y_t^{(i)}|c_t^{(i)})`` — normalised by the
    total ``N`` (theory ``mismatch.md#trm``), not by the number accepted.  ``score`` has shape ``(N, T_max, d)``."""
    m, a, b = check_padded(response_mask, logp_pi, logp_mu, names=("logp_pi", "logp_mu"), log_probs=True)
    acc = np.asarray(accept)
    N = m.shape[0]
    if acc.shape != (N,) or acc.dtype != bool:
        raise ValueError(f"accept must be a boolean array of shape ({N},), got {acc.shape} {acc.dtype}")
    r = check_finite_array("reward", reward, ndim=1)
    if r.shape != (N,):
        raise ValueError(f"reward must have shape ({N},), got {r.shape}")
    s = check_finite_array("score", score, ndim=3)
    if s.shape[:2] != m.shape:
        raise ValueError(f"score must have shape (N, T_max, d) with (N, T_max) = {m.shape}, got {s.shape}")
    baseline = check_real("baseline", baseline)
    rho = np.where(m, np.exp(a - b), 0.0)
    per = np.einsum("nt,ntd->nd", rho, s)
    with np.errstate(over="ignore", invalid="ignore"):
        out = ((acc * (r - baseline))[:, None] * per).sum(axis=0) / N
    if np.all(np.isfinite(out)) or not np.all(np.isfinite(per)):
        return out if np.all(np.isfinite(out)) else _refuse_gradient(out)
    # an intermediate left float64 (e.g. baseline = ±1e308): the same sum with every factor scaled
    # by an exact power of two — (R − b)/4, per/2^{e_p} (|·| ≤ 1), the N-term sum by 2^{−e_N} —
    # and scaled back (exact up to underflow of terms ~2^{1000} below the largest)
    _, e_p = np.frexp(np.max(np.abs(per))) if per.size else (0.0, 0)
    e_n = int(N).bit_length()
    coef = acc * (np.ldexp(r, -2) - np.ldexp(baseline, -2))
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = np.ldexp((coef[:, None] * np.ldexp(per, -int(e_p))), -e_n).sum(axis=0) / N
        out = np.ldexp(scaled, 2 + int(e_p) + e_n)
    return out if np.all(np.isfinite(out)) else _refuse_gradient(out)


def _refuse_gradient(out):
    i = int(np.argmax(~np.isfinite(out)))
    raise ValueError(f"reward, baseline, score or the ratios exp(logp_pi − logp_mu) are too large: component {i} "
                     "of the masked gradient "
                     "(1/N) Σ_i M_i (R_i − b) Σ_t ρ_t ∇log π_t overflows float64; rescale the rewards")


@dataclass(frozen=True)
class ProxyAcceptance:
    """Exact (enumeration) acceptance of each mask under ``y ∼ μ``.

    ``p_violation = P_μ(max_t KL(c_t) > δ)``; for each mask ``name``:
    ``accept[name] = P_μ(accepted)``, ``false_accept[name] = P_μ(accepted and
    max KL > δ)`` and ``false_accept_given_violation[name] = P_μ(accepted |
    max KL > δ)`` (``nan`` when no sequence violates).
    """

    delta: float
    delta_avg: float
    p_violation: float
    accept: dict
    false_accept: dict
    false_accept_given_violation: dict

    def to_dict(self) -> dict:
        return asdict(self)


def _per_sequence_stats(mu: TabularPolicy, pi: TabularPolicy):
    V, T = mu.V, mu.T
    kl = per_context_kl(mu, pi)
    lr = token_log_ratio_tables(mu, pi)
    mx = np.full(V ** T, -np.inf); avg = np.zeros(V ** T)
    k2max = np.full(V ** T, -np.inf); k3 = np.zeros(V ** T)
    for t in range(T):
        sh = (V ** (t + 1), V ** (T - t - 1))
        klt = np.repeat(kl[t], V)[:, None]      # context KL, same for every next token
        d = lr[t].reshape(-1)[:, None]
        np.maximum(mx.reshape(sh), klt, out=mx.reshape(sh))
        avg.reshape(sh)[...] += klt
        np.maximum(k2max.reshape(sh), 0.5 * d * d, out=k2max.reshape(sh))
        k3.reshape(sh)[...] += np.expm1(d) - d
    return mx, avg / T, k2max, k3 / T


def proxy_acceptance(mu: TabularPolicy, pi: TabularPolicy, delta: float, *, delta_avg: float | None = None,
                     max_bytes: int = DEFAULT_MAX_BYTES) -> ProxyAcceptance:
    """How often each mask accepts, and accepts a sequence whose exact max KL exceeds ``δ``.

    Masks: ``trm_max`` (exact), ``trm_avg`` (exact, threshold ``δ_avg``,
    default ``δ``), ``k2_max`` (threshold ``δ``), ``k3_mean`` (threshold
    ``δ_avg``).  ``trm_max`` never false-accepts (by construction; a test).
    """
    V, T = check_pair(mu, pi)
    delta = check_real("delta", delta, lo=0.0)
    delta_avg = delta if delta_avg is None else check_real("delta_avg", delta_avg, lo=0.0)
    check_enumerable(V, T, n_arrays=8, max_bytes=max_bytes)
    mx, avg, k2max, k3 = _per_sequence_stats(mu, pi)
    p = np.exp(sequence_log_probs(mu))
    viol = mx > delta
    pv = float(p @ viol)
    masks = {"trm_max": mx <= delta, "trm_avg": avg <= delta_avg,
             "k2_max": k2max <= delta, "k3_mean": k3 <= delta_avg}
    acc = {k: float(p @ v) for k, v in masks.items()}
    fa = {k: float(p @ (v & viol)) for k, v in masks.items()}
    fag = {k: (fa[k] / pv if pv > 0 else float("nan")) for k in masks}
    return ProxyAcceptance(delta=delta, delta_avg=delta_avg, p_violation=pv, accept=acc, false_accept=fa,
                           false_accept_given_violation=fag)


def trm_acceptance(p: float, T: int) -> float:
    """``(1 − p)^T``: TRM-Max acceptance when each position violates independently w.p. ``p``."""
    p = check_real("p", p, lo=0.0, hi=1.0)
    T = check_int("T", T, lo=1)
    if p >= 1:
        return 0.0
    if p == 0:
        return 1.0
    # exp(T log1p(−p)) with T of any size (an int beyond float range must not overflow)
    log_rate = math.log(T) + math.log(-math.log1p(-p))       # log(T · (−log(1 − p)))
    return 0.0 if log_rate > 709.0 else math.exp(-math.exp(log_rate))
