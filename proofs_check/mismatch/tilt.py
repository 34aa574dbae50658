r"""Closed forms for long horizons: the i.i.d. tilt and count-state tilts.

**i.i.d. tilt** (theory ``mismatch.md#enumeration``): the same token pair ``(μ, π)`` at every prefix.  The
remainder coefficient of a sequence depends only on its token counts ``n``:

.. math::

    c(n) = P^π(n) − P^μ(n)\Big(1 + \sum_v n_v (r_v − 1)\Big),\qquad r_v = π_v/μ_v,

with ``P(n)`` the multinomial probability of the count vector, so the
worst-case remainder ``max_{R∈[0,1]} |Error| = Σ_n c(n)_+`` is a sum over
``C(T+V−1, V−1)`` count vectors (``T+1`` for ``V = 2``), computed in log space
— ``T = 4096`` takes milliseconds.  Divergences: ``δ = KL(μ‖π)``,
``ε = TV(μ, π)``, ``D_KL^seq = Tδ``, ``D̄_t = ε``,
``D_TV^seq = ½ Σ_n |P^π(n) − P^μ(n)|``.

**Count-state tilt** (``V = 2``, our construction for the OPEN horizon-scaling
question of theory ``mismatch.md#bounds``): ``μ`` i.i.d. with ``μ(1) = m``; ``π(1 | c_t) = m + ε_0
s(t, k)`` where ``k`` is the number of 1s in the prefix and ``s`` a sign rule
(``"constant"`` = the i.i.d. tilt, ``"majority"``: push toward the side the
prefix already leans to, ``"contrarian"``: the opposite, ``"alternating"``:
``(−1)^t``).  A forward dynamic program over ``(t, k)`` gives, for the rewards
that depend only on the final count ``K``, the exact worst case
``Σ_k c̃(k)_+`` with ``c̃(k) = Σ_{y: K(y)=k} c(y)`` — a **lower bound** on the
worst case over all rewards (exact for ``"constant"``), plus ``δ``, ``ε``,
``D_KL^seq``, ``D̄_t`` exactly; ``O(T²)`` time.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from itertools import combinations

import numpy as np
from scipy.special import gammaln

from ..engine import check_finite_array, check_int, check_real
from ..policies.tabular import check_option
from .bounds import trm_bounds

__all__ = ["TiltResult", "iid_tilt_worst_case", "count_state_tilt", "STATE_TILT_RULES",
           "compositions"]

STATE_TILT_RULES = ("constant", "majority", "contrarian", "alternating")


def compositions(T: int, V: int, *, max_count: int = 5_000_000) -> np.ndarray:
    """All count vectors ``n ∈ N^V`` with ``Σ n = T``: array ``(C(T+V−1, V−1), V)``.

    Refuses (ValueError with the count) above ``max_count``.
    """
    T = check_int("T", T, lo=0, hi=10 ** 9)
    V = check_int("V", V, lo=2, hi=10 ** 6)
    max_count = check_int("max_count", max_count, lo=1)
    total = math.comb(T + V - 1, V - 1)
    if total > max_count:
        raise ValueError(f"{total} count vectors for T={T}, V={V} exceed max_count={max_count}")
    if V == 2:
        k = np.arange(T + 1)
        return np.stack([T - k, k], axis=1)
    # stars and bars: choose V-1 bar positions among T+V-1 slots
    bars = np.array(list(combinations(range(T + V - 1), V - 1)), dtype=np.int64).reshape(-1, V - 1)
    edges = np.concatenate([np.full((bars.shape[0], 1), -1), bars,
                            np.full((bars.shape[0], 1), T + V - 1)], axis=1)
    return np.diff(edges, axis=1) - 1


@dataclass(frozen=True)
class TiltResult:
    """Worst-case remainder and divergences of a long-horizon tilt.

    ``abs_error`` is ``max_R |Error|`` (exact for the i.i.d. tilt; a lower
    bound, over count-dependent rewards, for state tilts — see ``exact``).
    ``bounds`` is :func:`trm_bounds` evaluated on the exact divergences.
    """

    T: int
    abs_error: float
    exact: bool
    delta: float
    eps: float
    d_kl_seq: float
    d_tv_seq: float | None
    bounds: dict
    gain_range: float

    @property
    def tightness(self) -> float:
        return self.abs_error / self.bounds["unified"] if self.bounds["unified"] > 0 else 0.0

    def to_dict(self) -> dict:
        d = asdict(self)
        d["tightness"] = self.tightness
        return d


def _log_multinomial(n: np.ndarray, logp: np.ndarray) -> np.ndarray:
    T = n.sum(axis=1)
    return gammaln(T + 1) - gammaln(n + 1).sum(axis=1) + n @ logp


def iid_tilt_worst_case(mu_token, pi_token, T: int, *, max_count: int = 5_000_000) -> TiltResult:
    """Exact worst-case ``|Error|`` of the i.i.d. tilt at horizon ``T`` (closed form).

    ``mu_token``, ``pi_token``: strictly positive probability vectors of length
    ``V``.  ``bounds`` uses the measured ``ε``, ``D_KL^seq = Tδ``,
    ``D_TV^seq`` and ``D̄_t = ε``.  ``gain_range = max_R |J(π) − J(μ)| =
    D_TV^seq``.
    """
    m = check_finite_array("mu_token", mu_token, ndim=1)
    p = check_finite_array("pi_token", pi_token, ndim=1)
    for name, a in (("mu_token", m), ("pi_token", p)):
        if a.size < 2 or np.any(a <= 0) or abs(a.sum() - 1) > 1e-9:
            raise ValueError(f"{name} must be a strictly positive probability vector (V ≥ 2), got {a}")
    if m.size != p.size:
        raise ValueError(f"mu_token and pi_token must have the same length, got {m.size} and {p.size}")
    T = check_int("T", T, lo=1)
    lm, lp = np.log(m / m.sum()), np.log(p / p.sum())
    n = compositions(T, m.size, max_count=max_count)
    Pm = np.exp(_log_multinomial(n, lm))
    Pp = np.exp(_log_multinomial(n, lp))
    S = n @ np.expm1(lp - lm)
    c = Pp - Pm * (1.0 + S)
    abs_err = float(max(np.maximum(c, 0).sum(), np.maximum(-c, 0).sum()))
    mm, pp = np.exp(lm), np.exp(lp)
    delta = float(np.sum(mm * (np.expm1(lp - lm) - (lp - lm))))
    eps = float(0.5 * np.abs(pp - mm).sum())
    dtv = float(min(0.5 * np.abs(Pp - Pm).sum(), 1.0))
    b = trm_bounds(T, max(delta, 0.0), eps=min(eps, 1.0), d_kl_seq=T * max(delta, 0.0), d_tv_seq=dtv,
                   dbar=np.full(T, min(eps, 1.0)))
    return TiltResult(T=T, abs_error=abs_err, exact=True, delta=delta, eps=eps, d_kl_seq=T * delta,
                      d_tv_seq=dtv, bounds=b, gain_range=dtv)


def _sign_rule(rule: str, t: int, k: np.ndarray, m: float) -> np.ndarray:
    if rule == "constant":
        return np.ones(k.shape)
    if rule == "alternating":
        return np.full(k.shape, 1.0 if t % 2 == 0 else -1.0)
    lean = np.where(k >= t * m, 1.0, -1.0)
    return lean if rule == "majority" else -lean


def count_state_tilt(m: float, eps0: float, T: int, *, rule: str = "majority") -> TiltResult:
    """Worst case over count-dependent rewards for a ``V = 2`` count-state tilt (see module doc).

    ``m = μ(1) ∈ (0, 1)``; ``π(1 | t, k) = m + eps0 · s(t, k)`` with
    ``0 ≤ eps0 < min(m, 1 − m)``.  ``abs_error`` is exact for
    ``rule="constant"`` and a lower bound on ``max_R |Error|`` otherwise.
    ``d_tv_seq`` is not available (path-dependent): the mixed-TV bound uses
    Pinsker from ``D_KL^seq``.
    """
    m = check_real("m", m, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    T = check_int("T", T, lo=1)
    eps0 = check_real("eps0", eps0, lo=0.0, hi=min(m, 1 - m), hi_open=True)
    check_option("rule", rule, STATE_TILT_RULES)
    A = np.zeros(T + 1); A[0] = 1.0        # P^μ(K_t = k)
    Bm = np.zeros(T + 1)                   # E_μ[Σ_{s≤t}(ρ_s − 1); K_t = k]
    Pp = np.zeros(T + 1); Pp[0] = 1.0      # P^π(K_t = k)
    delta = eps = dkl = 0.0
    dbar = np.empty(T)
    for t in range(T):
        k = np.arange(t + 1)
        q1 = m + eps0 * _sign_rule(rule, t, k, m)
        r1, r0 = q1 / m, (1 - q1) / (1 - m)
        kl = m * np.log(m / q1) + (1 - m) * np.log((1 - m) / (1 - q1))
        tv = np.abs(q1 - m)
        a = A[:t + 1]
        delta = max(delta, float(kl.max()))
        eps = max(eps, float(tv.max()))
        dkl += float(a @ kl)
        dbar[t] = float(a @ tv)
        nA = np.zeros(T + 1); nB = np.zeros(T + 1); nP = np.zeros(T + 1)
        b = Bm[:t + 1]
        nA[1:t + 2] += m * a; nA[:t + 1] += (1 - m) * a
        nB[1:t + 2] += m * (b + a * (r1 - 1)); nB[:t + 1] += (1 - m) * (b + a * (r0 - 1))
        pp = Pp[:t + 1]
        nP[1:t + 2] += q1 * pp; nP[:t + 1] += (1 - q1) * pp
        A, Bm, Pp = nA, nB, nP
    c = Pp - A - Bm
    abs_err = float(max(np.maximum(c, 0).sum(), np.maximum(-c, 0).sum()))
    b = trm_bounds(T, delta, eps=min(eps, 1.0), d_kl_seq=dkl, dbar=np.clip(dbar, 0, 1))
    return TiltResult(T=T, abs_error=abs_err, exact=(rule == "constant"), delta=delta, eps=eps,
                      d_kl_seq=dkl, d_tv_seq=None, bounds=b,
                      gain_range=float(0.5 * np.abs(Pp - A).sum()))
