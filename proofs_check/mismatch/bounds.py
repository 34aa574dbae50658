r"""The family of trust-region bounds on ``|Error| = |J(π) − J(μ) − L'(π)|``.

Spec ``mismatch.md`` §5 (CONFIRMED; "Trust Region Masking for Long-Horizon LLM
RL", arXiv 2512.23075).  With ``m(u) = min(1, u)`` and sums over ``t = 1..T``:

=========  ==========================================================  =========
key        bound                                                        scaling
=========  ==========================================================  =========
classical  ``2 T (T−1) ε²``  (``= T(T−1)δ`` when ``ε = sqrt(δ/2)``)       T²
pm_kl      ``4 m(sqrt(δ/2)) Σ_t m(sqrt((t−1)δ/2))``                       T^{3/2}
pm_tv      ``4 m(ε) Σ_t m(sqrt((t−1)δ/2))``                               T^{3/2}
mix_kl     ``4 T m(sqrt(δ/2)) m(sqrt(D_KL^seq/2))``                       T
mix_tv     ``4 T m(ε) m(D_TV^seq)``                                       T
coupling   ``4 m(ε) Σ_t m((t−1)ε)``                                       T², T
adaptive   ``4 Σ_t D̄_t min(1, (T−t)ε, sqrt((T−t)δ/2))``                   data
unified    ``B* = min`` of the bounds present
=========  ==========================================================  =========

Every bound assumes ``R ∈ [0, 1]``.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from ..policies import DEFAULT_MAX_BYTES, TabularPolicy, divergence_summary
from ..engine import check_finite_array, check_int, check_real, shown
from ..policies.tabular import check_option

__all__ = ["BOUND_KEYS", "trm_bounds", "trm_bounds_from_policies", "pm_kl_closed_form", "RemainderCheck",
           "remainder_vs_bounds"]

#: Keys of :func:`trm_bounds` (``adaptive`` only when ``dbar`` is given).
BOUND_KEYS = ("classical", "pm_kl", "pm_tv", "mix_kl", "mix_tv", "coupling", "adaptive", "unified")


def _m(u):
    return np.minimum(1.0, u)


#: Largest horizon :func:`trm_bounds` accepts: every ``t ≤ 2**53`` is exact in
#: float64, and the sums below are evaluated in closed form (O(1) time and memory).
MAX_T = 2 ** 53

#: ``ζ(−1/2)``, the constant of the Euler–Maclaurin expansion of ``Σ_{k≤n} √k``.
_ZETA_MINUS_HALF = -0.20788622497735456601


def _sum_sqrt(n: int) -> float:
    """``Σ_{k=1}^{n} √k`` (0 for ``n ≤ 0``): a direct sum up to 4096, beyond it the
    Euler–Maclaurin expansion ``(2/3)n^{3/2} + n^{1/2}/2 + ζ(−1/2) + n^{−1/2}/24 − n^{−5/2}/1920``
    (the next term is below ``n^{−9/2} ≤ 1e−16``, so the result is exact to rounding)."""
    if n <= 0:
        return 0.0
    if n <= 4096:
        return math.fsum(math.sqrt(k) for k in range(1, n + 1))
    x = float(n)
    r = math.sqrt(x)
    return math.fsum((2.0 / 3.0 * x * r, 0.5 * r, _ZETA_MINUS_HALF, 1.0 / (24.0 * r), -1.0 / (1920.0 * x * x * r)))


def _first_at_least_one(c: float, T: int, f) -> int:
    """The smallest ``k ≥ 0`` with ``f(k) = min(1, ·)`` saturated, i.e. ``f(k) ≥ 1``, capped at ``T``
    (``f`` increasing in ``k``; ``c`` the float estimate of the crossing)."""
    if not math.isfinite(c) or c >= T:
        k = T
    else:
        k = max(0, math.ceil(c))
    while k > 0 and f(k - 1) >= 1.0:
        k -= 1
    while k < T and f(k) < 1.0:
        k += 1
    return k


def _sum_min1_sqrt(T: int, delta: float) -> float:
    """``Σ_{k=0}^{T−1} min(1, sqrt(kδ/2))`` in closed form: the ``K`` unsaturated terms
    ``sqrt(δ/2) Σ_{k<K} √k`` plus ``T − K`` ones."""
    if delta == 0.0:
        return 0.0
    c = math.sqrt(delta / 2.0)
    K = _first_at_least_one(2.0 / delta if delta > 0 else math.inf, T, lambda k: math.sqrt(k * delta / 2.0))
    return c * _sum_sqrt(K - 1) + float(T - K)


def _sum_min1_linear(T: int, eps: float) -> float:
    """``Σ_{k=0}^{T−1} min(1, kε)`` in closed form: ``ε K(K−1)/2`` (arithmetic sum, exact
    integer) plus ``T − K`` ones."""
    if eps == 0.0:
        return 0.0
    K = _first_at_least_one(1.0 / eps, T, lambda k: k * eps)
    return eps * float(K * (K - 1) // 2) + float(T - K)


def _check_T(T) -> int:
    T = check_int("T", T, lo=1)
    if T > MAX_T:
        raise ValueError(f"T must be at most 2**53 = {MAX_T} (the largest horizon whose every t is exact in "
                         f"float64), got {shown(T)}")
    return T


def trm_bounds(T: int, delta: float, *, eps: float | None = None, d_kl_seq: float | None = None,
               d_tv_seq: float | None = None, dbar=None) -> dict:
    r"""Every bound of theory ``mismatch.md#bounds`` on ``|Error|`` for ``R ∈ [0, 1]``.

    Parameters
    ----------
    T : int in [1, 2**53]
        Horizon.  The sums over ``t`` are evaluated in closed form (O(1) time and
        memory); ``dbar`` (length ``T``) is the only input whose size grows with ``T``.
    delta : float ≥ 0
        ``δ = max_{t,c} KL(μ(·|c) ‖ π(·|c))``.
    eps : float in [0, 1], optional
        ``ε = max_{t,c} TV(c)``; ``None`` means ``sqrt(δ/2)`` (Pinsker, "KL-only").
    d_kl_seq : float ≥ 0, optional
        ``D_KL^seq``; without it (and without ``d_tv_seq``) the mixed bounds are
        omitted.
    d_tv_seq : float in [0, 1], optional
        ``D_TV^seq``; ``None`` means ``sqrt(D_KL^seq/2)`` when ``d_kl_seq`` is given.
    dbar : array of ``T`` floats in [0, 1], optional
        ``D̄_t = E_{d_t^μ} TV(c)`` for ``t = 1..T``; enables ``adaptive``.

    Returns
    -------
    dict with keys ``classical, pm_kl, pm_tv, [mix_kl], [mix_tv], coupling,
    [adaptive], unified`` — ``unified`` the minimum of the bounds present.
    """
    T = _check_T(T)
    delta = check_real("delta", delta, lo=0.0)
    if eps is None:
        eps = math.sqrt(delta / 2.0)
    else:
        eps = check_real("eps", eps, lo=0.0, hi=1.0)
    if d_kl_seq is not None:
        d_kl_seq = check_real("d_kl_seq", d_kl_seq, lo=0.0)
    if d_tv_seq is not None:
        d_tv_seq = check_real("d_tv_seq", d_tv_seq, lo=0.0, hi=1.0)
    elif d_kl_seq is not None:
        d_tv_seq = math.sqrt(d_kl_seq / 2.0)
    # Σ_t m(sqrt((t−1)δ/2)) and Σ_t m((t−1)ε) in closed form: O(1) time and memory for any T ≤ MAX_T
    # (materialising t = 1..T took 7 TiB at T = 1e12, and arange wrapped to an empty sum at T = 2**63).
    sq = _sum_min1_sqrt(T, delta)
    out = {
        "classical": 2.0 * float(T * (T - 1)) * eps ** 2,
        "pm_kl": 4.0 * float(_m(math.sqrt(delta / 2.0))) * float(sq),
        "pm_tv": 4.0 * float(_m(eps)) * float(sq),
    }
    if d_kl_seq is not None:
        out["mix_kl"] = 4.0 * T * float(_m(math.sqrt(delta / 2.0))) * float(_m(math.sqrt(d_kl_seq / 2.0)))
    if d_tv_seq is not None:
        out["mix_tv"] = 4.0 * T * float(_m(eps)) * float(_m(d_tv_seq))
    out["coupling"] = 4.0 * float(_m(eps)) * _sum_min1_linear(T, eps)
    if dbar is not None:
        db = check_finite_array("dbar", dbar, ndim=1)
        if db.shape != (T,):
            raise ValueError(f"dbar must have shape (T,) = ({T},), got {db.shape}")
        if db.min() < 0 or db.max() > 1:
            raise ValueError(f"dbar entries must lie in [0, 1], got [{db.min():.6g}, {db.max():.6g}]")
        k = T - np.arange(1, T + 1, dtype=float)
        w = np.minimum(1.0, np.minimum(k * eps, np.sqrt(k * delta / 2.0)))
        out["adaptive"] = 4.0 * float(db @ w)
    out["unified"] = float(min(out.values()))
    return {k: float(v) for k, v in out.items()}


def pm_kl_closed_form(T: int, delta: float) -> float:
    """``(4/3) T^{3/2} δ`` — an upper bound on ``pm_kl`` when the caps are inactive
    (from ``Σ_{k<T} √k ≤ (2/3) T^{3/2}``); not an equality (theory ``mismatch.md#bounds``)."""
    T = _check_T(T)
    delta = check_real("delta", delta, lo=0.0)
    return 4.0 / 3.0 * T ** 1.5 * delta


def trm_bounds_from_policies(mu: TabularPolicy, pi: TabularPolicy, *, mode: str = "kl+tv",
                             max_bytes: int = DEFAULT_MAX_BYTES) -> dict:
    """:func:`trm_bounds` with every argument measured exactly by enumeration.

    ``mode="kl+tv"`` passes the measured ``ε``, ``D_KL^seq``, ``D_TV^seq`` and
    ``D̄_t``; ``mode="kl_only"`` passes only ``δ`` and ``D_KL^seq`` (so that
    ``ε = sqrt(δ/2)`` and ``D_TV^seq = sqrt(D_KL^seq/2)`` by Pinsker) and
    ``D̄_t`` — as in theory ``mismatch.md#bounds`` ("KL-only" vs "KL+TV").  ``D̄_t`` is measured
    in both modes (``adaptive`` is data-dependent by nature).
    """
    check_option("mode", mode, ("kl+tv", "kl_only"))
    s = divergence_summary(mu, pi, max_bytes=max_bytes)
    dbar = np.clip(np.asarray(s.dbar), 0.0, 1.0)
    if mode == "kl+tv":
        return trm_bounds(s.T, s.delta, eps=min(s.eps, 1.0), d_kl_seq=s.d_kl_seq,
                          d_tv_seq=min(s.d_tv_seq, 1.0), dbar=dbar)
    return trm_bounds(s.T, s.delta, d_kl_seq=s.d_kl_seq, dbar=dbar)


@dataclass(frozen=True)
class RemainderCheck:
    """``|Error|`` for a given reward against every bound, with the tightness ratios."""

    remainder: float
    bounds: dict
    tightness: dict
    holds: bool

    def to_dict(self) -> dict:
        return asdict(self)


def remainder_vs_bounds(mu: TabularPolicy, pi: TabularPolicy, reward, *, mode: str = "kl+tv",
                        max_bytes: int = DEFAULT_MAX_BYTES) -> RemainderCheck:
    """``|J(π) − J(μ) − L'(π)|`` for ``reward`` against :func:`trm_bounds_from_policies`.

    The bounds of theory ``mismatch.md#bounds`` assume ``R ∈ [0, 1]``: a reward outside is refused
    with a ``ValueError`` naming the bounds (rescale it first: the remainder is
    linear in ``R``, and a constant shift does change it).
    """
    from ..policies import check_pair, check_reward
    from .decomposition import trm_decomposition

    V, T = check_pair(mu, pi)
    check_reward(reward, V, T, unit=True,
                 purpose="the trust-region bounds classical/pm_kl/pm_tv/mix_kl/mix_tv/coupling/adaptive/unified "
                         "of theory ``mismatch.md#bounds`` assume R ∈ [0, 1]")
    err = abs(trm_decomposition(mu, pi, reward, max_bytes=max_bytes).remainder)
    b = trm_bounds_from_policies(mu, pi, mode=mode, max_bytes=max_bytes)
    tight = {k: (err / v if v > 0 else (0.0 if err == 0 else math.inf)) for k, v in b.items()}
    return RemainderCheck(remainder=err, bounds=b, tightness=tight,
                          holds=all(err <= v * (1 + 1e-9) + 1e-13 for v in b.values()))
