r"""The trust-region bounds and the worst-case remainder in mpmath: the second implementation.

Beside :mod:`.bounds` (float64, vectorised) and the float worst case
(:func:`~proofs_check.mismatch.decomposition.worst_case_reward`,
:func:`~proofs_check.mismatch.tilt.iid_tilt_worst_case`), an independent
re-implementation in mpmath arithmetic at the caller's precision
(``with mpmath.workdps(50): ...``).  The bound claims re-evaluate every float64
violation here before calling it a counterexample; ``tests/mismatch/test_bounds_mp.py``
checks that the two implementations agree on random inputs.

* :func:`trm_bounds_mp` — every bound of theory ``mismatch.md#bounds`` (``m(u) = min(1, u)``);
* :func:`tabular_worst_case_mp` — worst case over ``R ∈ [0, 1]`` and the
  divergences of a tabular pair by a per-sequence loop;
* :func:`iid_tilt_worst_case_mp` — the i.i.d.-tilt multinomial sum with exact
  factorials.
"""
from __future__ import annotations

import itertools
import math
import numbers

import mpmath as mp

from ..engine import check_finite_array, check_int, check_real, shown
from .pairs import n_logits
from .tilt import compositions

__all__ = ["trm_bounds_mp", "tabular_worst_case_mp", "iid_tilt_worst_case_mp"]

#: Largest horizon of :func:`trm_bounds_mp` (its sums are explicit mpmath loops, ~10 µs a term).
MAX_T_MP = 100_000
#: Largest number of sequences ``V**T`` :func:`tabular_worst_case_mp` enumerates (a Python loop
#: in mpmath: about 1 s per 1 000 sequences at T = 10).
MAX_SEQUENCES_MP = 20_000
#: Largest number of count vectors ``C(T+V−1, V−1)`` :func:`iid_tilt_worst_case_mp` sums over.
MAX_COMPOSITIONS_MP = 50_000


def _mp_real(name, value, lo=None, hi=None):
    """A finite real (``int``, ``float``, NumPy real or ``mpf``) in ``[lo, hi]`` as an ``mpf``."""
    if isinstance(value, mp.mpf):
        if not mp.isfinite(value):
            raise ValueError(f"{name} must be finite, got {value}")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise ValueError(f"{name} must lie in [{lo}, {hi}], got {value}")
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise ValueError(f"{name} must lie in [{lo}, {hi}], got {shown(value)}")
        return mp.mpf(int(value))
    return mp.mpf(check_real(name, value, lo=lo, hi=hi))


def _theta(theta, need: int) -> list:
    x = check_finite_array("theta", theta, ndim=1)
    if x.size < need:
        raise ValueError(f"theta must have at least {need} entries (the logits of mu then pi), got {x.size}")
    return x


def trm_bounds_mp(T, delta, eps, d_kl_seq, d_tv_seq, dbar):
    """:func:`~proofs_check.mismatch.bounds.trm_bounds` in mpmath arithmetic (current precision).

    Every argument is required (``dbar`` a sequence of ``T`` numbers); returns every key of
    :data:`~proofs_check.mismatch.bounds.BOUND_KEYS` as an ``mpf``.
    """
    T = check_int("T", T, lo=1, hi=MAX_T_MP)
    delta = _mp_real("delta", delta, lo=0)
    eps = _mp_real("eps", eps, lo=0, hi=1)
    d_kl_seq = _mp_real("d_kl_seq", d_kl_seq, lo=0)
    d_tv_seq = _mp_real("d_tv_seq", d_tv_seq, lo=0, hi=1)
    if isinstance(dbar, (str, bytes)) or not hasattr(dbar, "__len__"):
        raise TypeError(f"dbar must be a sequence of T = {T} numbers in [0, 1], got {shown(dbar)}")
    if len(dbar) != T:
        raise ValueError(f"dbar must hold T = {T} numbers, got {len(dbar)}")
    dbar = [_mp_real(f"dbar[{i}]", x, lo=0, hi=1) for i, x in enumerate(dbar)]

    def m(u):
        return mp.mpf(1) if u > 1 else u

    sq = mp.fsum(m(mp.sqrt((t - 1) * delta / 2)) for t in range(1, T + 1))
    out = {"classical": 2 * T * (T - 1) * eps ** 2,
           "pm_kl": 4 * m(mp.sqrt(delta / 2)) * sq,
           "pm_tv": 4 * m(eps) * sq,
           "mix_kl": 4 * T * m(mp.sqrt(delta / 2)) * m(mp.sqrt(d_kl_seq / 2)),
           "mix_tv": 4 * T * m(eps) * m(d_tv_seq),
           "coupling": 4 * m(eps) * mp.fsum(m((t - 1) * eps) for t in range(1, T + 1)),
           "adaptive": 4 * mp.fsum(dbar[t - 1] * min(mp.mpf(1), (T - t) * eps, mp.sqrt((T - t) * delta / 2))
                                   for t in range(1, T + 1))}
    out["unified"] = min(out.values())
    return out


def tabular_worst_case_mp(theta, V, T):
    """``(max_{R∈[0,1]} |Error|, trm_bounds_mp(...))`` for a tabular pair, in mpmath, by enumeration.

    ``theta`` is ``concat(mu.flat_logits(), pi.flat_logits())`` (:func:`~proofs_check.mismatch.pairs.pair_from_flat`);
    the logits are read as exact binary numbers and everything after is in mpmath: a per-sequence
    loop (the float code is vectorised by depth), worst case ``max(Σ c_+, Σ c_−)``, the divergences
    ``ε, δ, D_KL^seq, D_TV^seq, D̄_t``.
    """
    V = check_int("V", V, lo=2, hi=MAX_SEQUENCES_MP)
    T = check_int("T", T, lo=1, hi=MAX_T_MP)
    if T * math.log(V) > math.log(MAX_SEQUENCES_MP):
        raise ValueError(f"V**T = {V}**{T} sequences exceed the {MAX_SEQUENCES_MP} this mpmath loop enumerates "
                         f"(use worst_case_reward, the float implementation)")
    n = n_logits(V, T)
    theta = _theta(theta, 2 * n)

    def tables(x):
        out, k = [], 0
        for t in range(T):
            rows = []
            for r in range(V ** t):
                z = [mp.mpf(float(v)) for v in x[k + r * V:k + (r + 1) * V]]
                lse = mp.log(mp.fsum(mp.exp(v) for v in z))
                rows.append([v - lse for v in z])
            out.append(rows)
            k += V ** t * V
        return out

    lm, lp = tables(theta[:n]), tables(theta[n:2 * n])
    c_pos = c_neg = mp.mpf(0)
    d_kl = d_tv = mp.mpf(0)
    eps = delta = mp.mpf(0)
    dbar = [mp.mpf(0)] * T
    ctx_mu = [dict() for _ in range(T)]
    for y in itertools.product(range(V), repeat=T):
        row, lmu, lpi, tang = 0, mp.mpf(0), mp.mpf(0), mp.mpf(0)
        for t, v in enumerate(y):
            ctx_mu[t][row] = mp.exp(lmu)
            lmu += lm[t][row][v]
            lpi += lp[t][row][v]
            tang += mp.exp(lp[t][row][v] - lm[t][row][v]) - 1
            row = row * V + v
        pm, pp = mp.exp(lmu), mp.exp(lpi)
        c = pp - pm * (1 + tang)
        c_pos += max(c, 0)
        c_neg += max(-c, 0)
        d_kl += pm * (lmu - lpi)
        d_tv += abs(pp - pm) / 2
    for t in range(T):
        for r, w in ctx_mu[t].items():
            pm_r = [mp.exp(v) for v in lm[t][r]]
            pp_r = [mp.exp(v) for v in lp[t][r]]
            tv = mp.fsum(abs(a - b) for a, b in zip(pp_r, pm_r)) / 2
            kl = mp.fsum(a * (la - lb) for a, la, lb in zip(pm_r, lm[t][r], lp[t][r]))
            eps, delta = max(eps, tv), max(delta, kl)
            dbar[t] += w * tv
    one, zero = mp.mpf(1), mp.mpf(0)      # rounding at the last digit must not trip the range checks
    return max(c_pos, c_neg), trm_bounds_mp(T, max(delta, zero), min(eps, one), max(d_kl, zero), min(d_tv, one),
                                            [min(max(x, zero), one) for x in dbar])


def iid_tilt_worst_case_mp(theta, V, T):
    """The i.i.d.-tilt closed form in mpmath: ``theta`` is the ``2V`` token logits of ``(μ, π)``.

    Sums over count vectors with exact factorials (the float code works in log space with
    ``gammaln``); returns ``(max_R |Error|, trm_bounds_mp(...))``.
    """
    V = check_int("V", V, lo=2, hi=MAX_COMPOSITIONS_MP)
    T = check_int("T", T, lo=1, hi=MAX_T_MP)
    if math.comb(T + V - 1, V - 1) > MAX_COMPOSITIONS_MP:
        raise ValueError(f"the C(T+V−1, V−1) = {math.comb(T + V - 1, V - 1)} count vectors for T={T}, V={V} "
                         f"exceed the {MAX_COMPOSITIONS_MP} this mpmath sum handles (use iid_tilt_worst_case)")
    theta = _theta(theta, 2 * V)
    a = [mp.mpf(float(v)) for v in theta[:V]]
    b = [mp.mpf(float(v)) for v in theta[V:2 * V]]
    la = mp.log(mp.fsum(mp.exp(v) for v in a))
    lb = mp.log(mp.fsum(mp.exp(v) for v in b))
    m = [mp.exp(v - la) for v in a]
    p = [mp.exp(v - lb) for v in b]
    cp = cn = tv_seq = mp.mpf(0)
    for nvec in compositions(T, V):
        coef = mp.factorial(T) / mp.fprod(mp.factorial(int(k)) for k in nvec)
        Pm = coef * mp.fprod(mi ** int(k) for mi, k in zip(m, nvec))
        Pp = coef * mp.fprod(pi ** int(k) for pi, k in zip(p, nvec))
        S = mp.fsum(int(k) * (pi / mi - 1) for pi, mi, k in zip(p, m, nvec))
        c = Pp - Pm * (1 + S)
        cp += max(c, 0)
        cn += max(-c, 0)
        tv_seq += abs(Pp - Pm) / 2
    delta = mp.fsum(mi * mp.log(mi / pi) for mi, pi in zip(m, p))
    eps = mp.fsum(abs(pi - mi) for mi, pi in zip(m, p)) / 2
    delta, eps = max(delta, mp.mpf(0)), min(eps, mp.mpf(1))
    return max(cp, cn), trm_bounds_mp(T, delta, eps, T * delta, min(tv_seq, mp.mpf(1)), [eps] * T)
