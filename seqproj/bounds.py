r"""Dimension bounds for (sequential) Johnson–Lindenstrauss and time-uniform boundaries.

All functions are vectorised (NumPy broadcasting) and check their domain.

Reference values (``docs/theory/seqproj.md#fixed-time``; δ = 0.05, c_0 = c_x = x_0 = 1):

>>> import numpy as np
>>> eps = np.array([0.5, 0.5, 0.1]); T = np.array([10**3, 10**4, 10**4])
>>> sequential_jl_min_dim(eps, 0.05, T).tolist()
[951, 1172, 21483]

The reference table lists 254 / 310 / 5528 for the union bound: those are the
bound *rounded to the nearest integer* (254.32, 309.58, 5528.24).  A dimension
must be an integer at least the bound, so this function rounds up:

>>> union_bound_jl_min_dim(eps, 0.05, T).tolist()
[255, 310, 5529]

The table's sklearn column (331 / 442 / 7894) is scikit-learn's own value, which
truncates; rounding its formula up gives one more in each case:

>>> sklearn_jl_min_dim(T, eps).tolist()
[332, 443, 7895]
>>> sklearn_jl_min_dim(T, eps, round_up=False).tolist()   # scikit-learn's int()
[331, 442, 7894]
"""
from __future__ import annotations

import math


import numpy as np
from scipy import optimize, special

__all__ = [
    "sequential_jl_min_dim",
    "sequential_jl_eps",
    "anytime_jl_eps",
    "union_bound_jl_min_dim",
    "sklearn_jl_min_dim",
    "fixed_vector_jl_failure_bound",
    "fixed_vector_jl_min_dim",
    "normal_mixture_rho",
    "normal_mixture_bound",
    "self_normalized_bound",
]


# --------------------------------------------------------------------------
# domain checks (vectorised)
# --------------------------------------------------------------------------

def _arr(name, value):
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a number or array of numbers, got {value!r}")
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number or array of numbers, got {value!r}") from None
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return a


def _open_unit(name, value):
    a = _arr(name, value)
    if np.any((a <= 0) | (a >= 1)):
        bad = a[(a <= 0) | (a >= 1)].ravel()[0]
        raise ValueError(f"{name} must lie in the open interval (0, 1), got {bad!r}")
    return a


def _positive(name, value):
    a = _arr(name, value)
    if np.any(a <= 0):
        raise ValueError(f"{name} must be > 0, got {a[a <= 0].ravel()[0]!r}")
    return a


def _at_least_one(name, value):
    a = _arr(name, value)
    if np.any(a < 1):
        raise ValueError(f"{name} must be >= 1, got {a[a < 1].ravel()[0]!r}")
    return a


def _nonzero(name, value):
    a = _arr(name, value)
    if np.any(a == 0):
        raise ValueError(f"{name} must be nonzero (x_0 = 0 makes the mixture's rho degenerate), "
                         f"got {value!r}")
    return a


def _out(x, as_int=False):
    if as_int:
        x = np.asarray(x).astype(np.int64)
    if np.ndim(x) == 0:
        return int(x) if as_int else float(x)
    return x


def _ceil(x):
    # guard against 951.0000000000001-style float noise turning into 952
    return np.ceil(np.asarray(x) * (1.0 - 4 * np.finfo(float).eps))


# --------------------------------------------------------------------------
# sequential JL (theory #coverage) and its inverse
# --------------------------------------------------------------------------

def _seq_log_term(delta, T, cx, x0):
    return np.log(1.0 / delta) + np.log1p(cx * T / x0 ** 2)


def sequential_jl_min_dim(eps, delta, T, *, c0=1.0, cx=1.0, x0=1.0, const=16.0):
    r"""Smallest sketch dimension of the sequential JL theorem.

    .. math::
        M \ge \mathrm{const}\cdot c_0\,\frac{1+\varepsilon}{\varepsilon^2}
              \Big(\log\frac1\delta + \log\big(1 + \frac{c_x T}{x_0^2}\big)\Big)

    ``eps`` = ε, ``delta`` = δ, ``T`` = horizon, ``c0`` = sub-Gaussian factor of
    the columns, ``cx`` = bound on ``x_t²``, ``x0`` = first coefficient.  The
    result is rounded up to an integer.

    See Li, "Probability Tools for Sequential Random Projection"
    (arXiv 2402.14026), sequential JL theorem; theory ``#coverage``, label RECONSTRUCTED
    (``const = 16`` and the placement of ``c0`` are exposed for that reason).

    >>> sequential_jl_min_dim(0.5, 0.05, 300)
    836
    """
    eps = _open_unit("eps", eps)
    delta = _open_unit("delta", delta)
    T = _at_least_one("T", T)
    c0, cx, const = _positive("c0", c0), _positive("cx", cx), _positive("const", const)
    x0 = _nonzero("x0", x0)
    m = const * c0 * (1.0 + eps) / eps ** 2 * _seq_log_term(delta, T, cx, x0)
    return _out(_ceil(m), as_int=True)


def _solve_eps(M, K, L):
    # M eps^2 = K (1 + eps) L  ->  positive root
    kl = K * L
    return (kl + np.sqrt(kl * kl + 4.0 * M * kl)) / (2.0 * M)


def sequential_jl_eps(M, delta, T, *, c0=1.0, cx=1.0, x0=1.0, const=16.0):
    r"""Inverse of :func:`sequential_jl_min_dim`: the ε certified by dimension ``M``.

    Solves ``M ε² = const·c0·(1+ε)·L`` with ``L = log(1/δ) + log(1 + c_x T/x_0²)``:

    .. math:: \varepsilon = \frac{KL + \sqrt{K^2L^2 + 4MKL}}{2M},\quad K = \mathrm{const}\,c_0 .

    The value may exceed 1 (the lower side of the band is then vacuous).
    Theory ``#coverage``, RECONSTRUCTED.

    >>> round(sequential_jl_eps(836, 0.05, 300), 4)
    0.4998
    """
    M = _at_least_one("M", M)
    delta = _open_unit("delta", delta)
    T = _at_least_one("T", T)
    c0, cx, const = _positive("c0", c0), _positive("cx", cx), _positive("const", const)
    x0 = _nonzero("x0", x0)
    return _out(_solve_eps(M, const * c0, _seq_log_term(delta, T, cx, x0)))


def anytime_jl_eps(M, delta, V, *, c0=1.0, x0=1.0, const=16.0):
    r"""Any-time form (theory ``#anytime``): the band half-width at realised ``V_t``.

    Replaces ``x_0² + c_x T`` by ``V_t``: ``L = log(1/δ) + log(V_t / x_0²)`` and
    ``ε_t`` solves ``M ε² = const·c0·(1+ε)·L``.  No horizon.  ``V`` ≥ ``x0²``.
    Theory ``#anytime``, DERIVED (whether the paper states it is OPEN).
    """
    M = _at_least_one("M", M)
    delta = _open_unit("delta", delta)
    c0, const = _positive("c0", c0), _positive("const", const)
    x0 = _nonzero("x0", x0)
    V = _positive("V", V)
    if np.any(V < x0 ** 2 * (1 - 1e-12)):
        raise ValueError(f"V must be >= x0**2 = {float(np.min(x0 ** 2))}, got {float(np.min(V))}")
    L = np.log(1.0 / delta) + np.log(np.maximum(V / x0 ** 2, 1.0))
    return _out(_solve_eps(M, const * c0, L))


# --------------------------------------------------------------------------
# classical comparators (theory #fixed-time)
# --------------------------------------------------------------------------

def _jl_gap(eps):
    return eps ** 2 / 2.0 - eps ** 3 / 3.0


def fixed_vector_jl_failure_bound(M, eps):
    r"""Dasgupta–Gupta bound for one fixed vector under a Gaussian projection:

    .. math:: P(|\|\Pi u\|^2 - \|u\|^2| > \varepsilon\|u\|^2) \le
              2\exp\!\big(-\tfrac M2(\varepsilon^2/2 - \varepsilon^3/3)\big).

    Theory ``#fixed-time``, CONFIRMED.  Valid only for ``u`` independent of ``Π``.

    >>> round(fixed_vector_jl_failure_bound(32, 0.5), 4)
    0.5272
    """
    M = _at_least_one("M", M)
    eps = _open_unit("eps", eps)
    return _out(np.minimum(1.0, 2.0 * np.exp(-(M / 2.0) * _jl_gap(eps))))


def fixed_vector_jl_min_dim(eps, delta):
    """Smallest ``M`` with :func:`fixed_vector_jl_failure_bound` ≤ δ (rounded up).

    >>> fixed_vector_jl_min_dim(0.5, 0.05)
    89
    """
    eps = _open_unit("eps", eps)
    delta = _open_unit("delta", delta)
    return _out(_ceil(2.0 * np.log(2.0 / delta) / _jl_gap(eps)), as_int=True)


def union_bound_jl_min_dim(eps, delta, n_vectors):
    r"""Union bound over ``n_vectors`` fixed vectors, failure δ:

    .. math:: M \ge \frac{2\log(2T/\delta)}{\varepsilon^2/2 - \varepsilon^3/3},

    rounded up (the reference table rounds to nearest; see the module doctest).
    Theory ``#fixed-time``, CONFIRMED.
    """
    eps = _open_unit("eps", eps)
    delta = _open_unit("delta", delta)
    n = _at_least_one("n_vectors", n_vectors)
    return _out(_ceil(2.0 * np.log(2.0 * n / delta) / _jl_gap(eps)), as_int=True)


def sklearn_jl_min_dim(n_samples, eps, *, round_up=True):
    r"""scikit-learn's ``johnson_lindenstrauss_min_dim(n_samples, eps)`` formula

    .. math:: M = \frac{4\log n}{\varepsilon^2/2 - \varepsilon^3/3}.

    Difference with scikit-learn: scikit-learn returns ``int(...)``, which
    truncates and so sits one below its own bound whenever the bound is not an
    integer; we round up (``round_up=False`` reproduces scikit-learn exactly).
    The formula is a union bound over about ``n²/2`` pairs with success
    probability merely positive (no δ).  Theory ``#fixed-time``, CONFIRMED.
    """
    n = _at_least_one("n_samples", n_samples)
    eps = _open_unit("eps", eps)
    m = 4.0 * np.log(n) / _jl_gap(eps)
    return _out(_ceil(m) if round_up else np.floor(m), as_int=True)


# --------------------------------------------------------------------------
# time-uniform boundaries (theory #mixture)
# --------------------------------------------------------------------------

def normal_mixture_rho(v_opt, alpha_opt=0.05):
    r"""``ρ = v_opt / (2 log(1/α_opt) + log(1 + 2 log(1/α_opt)))`` (theory ``#mixture``, CONFIRMED),
    the mixture precision that makes the two-sided boundary tightest at ``v_opt``."""
    v_opt = _positive("v_opt", v_opt)
    a = _open_unit("alpha_opt", alpha_opt)
    la = 2.0 * np.log(1.0 / a)
    return _out(v_opt / (la + np.log1p(la)))


def _one_sided_solve(v, rho, alpha):
    # half-normal mixture: log M(s) = log 2 + 0.5 log(rho/(v+rho)) + s²/(2(v+rho)) + log Φ(s/sqrt(v+rho))
    w = v + rho
    target = math.log(1.0 / alpha)

    def f(s):
        return (math.log(2.0) + 0.5 * math.log(rho / w) + s * s / (2 * w)
                + special.log_ndtr(s / math.sqrt(w)) - target)

    hi = math.sqrt(w * (math.log1p(v / rho) + 2 * target)) + 1.0
    return optimize.brentq(f, 0.0, hi, xtol=1e-13 * max(1.0, hi))


def normal_mixture_bound(v, alpha, v_opt, alpha_opt=0.05, two_sided=True):
    r"""Normal-mixture uniform boundary (Howard, Ramdas, McAuliffe, Sekhon 2021, Prop. 4/5).

    Two-sided (``two_sided=True``): with probability ``1 − α``, for all times,

    .. math:: |s_t| \le \sqrt{(v_t + \rho)\big(\log(1 + v_t/\rho) + 2\log(1/\alpha)\big)},

    with ρ from :func:`normal_mixture_rho` ``(v_opt, alpha_opt)``; the same as
    confseq's ``normal_mixture_bound(..., is_one_sided=False)``.  Theory ``#mixture``,
    CONFIRMED.

    One-sided (``two_sided=False``): the boundary of the half-normal mixture
    ``2√(ρ/(v+ρ)) exp(s²/(2(v+ρ))) Φ(s/√(v+ρ)) = 1/α``, solved numerically,
    with the same ρ (DERIVED: ρ for the one-sided case is tuned with the
    two-sided formula; the boundary is valid for any ρ > 0).

    ``v`` = intrinsic time (variance process), ``alpha`` = α.

    >>> round(normal_mixture_bound(1.0, 0.05, 1.0), 4)
    3.0352
    """
    v = _arr("v", v)
    if np.any(v < 0):
        raise ValueError(f"v must be >= 0, got {float(v[v < 0].ravel()[0])!r}")
    alpha = _open_unit("alpha", alpha)
    rho = np.asarray(normal_mixture_rho(v_opt, alpha_opt))
    if two_sided:
        return _out(np.sqrt((v + rho) * (np.log1p(v / rho) + 2.0 * np.log(1.0 / alpha))))
    vb, rb, ab = np.broadcast_arrays(v, rho, alpha)
    out = np.array([_one_sided_solve(float(a), float(b), float(c))
                    for a, b, c in zip(vb.ravel(), rb.ravel(), ab.ravel())]).reshape(vb.shape)
    return _out(out)


def self_normalized_bound(V_bar, V, delta, *, R=1.0):
    r"""Abbasi-Yadkori, Pál, Szepesvári (2011), Thm 1: the radius² of the
    self-normalized bound for vector martingales.

    With ``η_t`` conditionally ``R``-sub-Gaussian, ``X_t`` predictable,
    ``V̄_t = V + Σ X_s X_sᵀ`` and ``S_t = Σ η_s X_s``, with probability
    ``1 − δ``, for all t,

    .. math:: \|S_t\|^2_{\bar V_t^{-1}} \le 2R^2\log\Big(\frac{\det(\bar V_t)^{1/2}
              \det(V)^{-1/2}}{\delta}\Big).

    ``V_bar`` and ``V`` are ``(..., d, d)`` positive-definite matrices (or
    scalars for ``d = 1``); returns the right-hand side.  In one dimension with
    ``V = ρ`` and ``R = 1`` this is the two-sided normal mixture boundary
    squared, divided by ``v + ρ``.  Theory ``#mixture``, CONFIRMED.
    """
    delta = _open_unit("delta", delta)
    R = _positive("R", R)
    Vb = _arr("V_bar", V_bar)
    V0 = _arr("V", V)
    if Vb.ndim < 2:
        if np.any(Vb <= 0) or np.any(V0 <= 0):
            raise ValueError("V_bar and V must be positive")
        ld_b, ld_0 = np.log(Vb), np.log(V0)
    else:
        if Vb.shape[-1] != Vb.shape[-2] or V0.shape[-2:] != Vb.shape[-2:]:
            raise ValueError(f"V_bar and V must be square with equal sizes, got {Vb.shape} and {V0.shape}")
        sb, ld_b = np.linalg.slogdet(Vb)
        s0, ld_0 = np.linalg.slogdet(V0)
        if np.any(sb <= 0) or np.any(s0 <= 0):
            raise ValueError("V_bar and V must be positive definite")
    return _out(2.0 * R ** 2 * (0.5 * (ld_b - ld_0) + np.log(1.0 / delta)))


