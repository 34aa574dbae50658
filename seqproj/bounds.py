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

import mpmath
import numpy as np
from scipy import optimize, special

from proofs_check.engine import check_bool, check_finite_array, shown

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
    """``value`` as a float array of finite reals: bools, strings, complex numbers, ``Decimal``,
    ``None``, objects and integers beyond the float range are refused with a message naming
    ``name`` (:func:`proofs_check.engine.validate.check_finite_array`)."""
    return check_finite_array(f"{name} (a real number or array of reals)", value)


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
                         f"got {shown(value)}")
    return a


def _together(**arrays):
    """``ValueError`` naming the arguments when their shapes do not broadcast together."""
    try:
        np.broadcast_shapes(*(np.shape(a) for a in arrays.values()))
    except ValueError:
        shapes = ", ".join(f"{k} {np.shape(a)}" for k, a in arrays.items())
        raise ValueError(f"{', '.join(arrays)} must broadcast together, got shapes {shapes}") from None


def _finite_out(name, x, what):
    x = np.asarray(x, dtype=float)
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name}: {what} overflows the float range for these arguments")
    return float(x) if x.ndim == 0 else x


def _out(x):
    return float(x) if np.ndim(x) == 0 else x


def _log_neg(a):
    """``log(1/a)`` for ``a`` in (0, 1) without forming ``1/a`` (which is inf for subnormal ``a``)."""
    return -np.log(a)


# --------------------------------------------------------------------------
# exact integer ceilings
# --------------------------------------------------------------------------
#
# A minimum dimension is the smallest integer M with M >= b(args), b a real
# expression of the (float) arguments.  Rounding b in float64 is wrong twice:
# past 2^63 the cast to int64 wraps (ε ≤ 1e-9 gave −2^63), and near 1e18 the
# float spacing (128) plus any "noise guard" under-rounds by hundreds.  So b is
# evaluated in mpmath at a precision that resolves its fractional part (the
# float arguments are converted exactly), the ceiling is a Python int, and the
# precision is raised until b is provably not within the evaluation error of an
# integer.  The result M satisfies M − 1 < b ≤ M.

_MAX_PREC = 1 << 16


def _ceil_exact(expr, args):
    """``ceil(expr(*args))`` in exact arithmetic (``args`` are Python floats, converted exactly)."""
    prec = 96
    while prec <= _MAX_PREC:
        with mpmath.workprec(prec):
            v = expr(*[mpmath.mpf(a) for a in args])
            if not mpmath.isfinite(v):
                raise ValueError("the bound is not finite for these arguments")
            if v == 0:
                return 0
            mag = int(mpmath.floor(mpmath.log(abs(v), 2))) + 1
            if mag > prec - 40:                    # not enough bits for the fractional part
                prec = 2 * max(prec, mag + 64)
                continue
            c = int(mpmath.ceil(v))
            near = min(abs(v - c), abs(v - (c - 1)))
            if near > mpmath.ldexp(1, mag - prec + 24):    # well clear of the evaluation error
                return c
            if near == 0 and prec >= 4 * 96:       # an exact integer (e.g. log 1 = 0)
                return int(v)
        prec *= 2
    raise ValueError("the bound lies too close to an integer to decide its ceiling at "
                     f"{_MAX_PREC} bits; refused rather than risk a dimension below the bound")


def _ceil_all(expr, *arrays):
    """:func:`_ceil_exact` elementwise over the broadcast ``arrays``.  A scalar result is a
    Python int; an array result is int64 when every value fits, else an object array of
    Python ints (exact; never a wrapped int64)."""
    try:
        b = np.broadcast_arrays(*arrays)
    except ValueError:
        raise ValueError("the arguments must broadcast together, got shapes "
                         f"{[np.shape(a) for a in arrays]}") from None
    shape = b[0].shape
    if b[0].size > 1_000_000:
        raise ValueError(f"the arguments broadcast to {b[0].size} values; at most 1000000 "
                         "exact ceilings per call")
    vals = [_ceil_exact(expr, [float(x[i]) for x in b]) for i in np.ndindex(shape)]
    if not shape:
        return vals[0]
    if all(-2 ** 63 < v < 2 ** 63 for v in vals):
        return np.array(vals, dtype=np.int64).reshape(shape)
    out = np.empty(len(vals), dtype=object)
    out[:] = vals
    return out.reshape(shape)


def _floor_all(expr, *arrays):
    """``floor`` of the same exact value: ``ceil(b) − 1`` unless ``b`` is an integer."""
    neg = _ceil_all(lambda *a: -expr(*a), *arrays)
    return -neg


# --------------------------------------------------------------------------
# sequential JL (theory #coverage) and its inverse
# --------------------------------------------------------------------------

def _seq_log_term(delta, T, cx, x0):
    # log(1/δ) + log(1 + c_x T / x_0²), in log space (c_x T / x_0² may overflow)
    with np.errstate(divide="ignore"):
        r = np.log(cx) + np.log(T) - 2.0 * np.log(np.abs(x0))
    return _log_neg(delta) + np.logaddexp(0.0, r)


def _mp_gap(e):
    return e * e / 2 - e ** 3 / 3


def _mp_seq(eps, delta, T, c0, cx, x0, const):
    return (const * c0 * (1 + eps) / eps ** 2
            * (-mpmath.log(delta) + mpmath.log1p(cx * T / x0 ** 2)))


def sequential_jl_min_dim(eps, delta, T, *, c0=1.0, cx=1.0, x0=1.0, const=16.0):
    r"""Smallest sketch dimension of the sequential JL theorem.

    .. math::
        M \ge \mathrm{const}\cdot c_0\,\frac{1+\varepsilon}{\varepsilon^2}
              \Big(\log\frac1\delta + \log\big(1 + \frac{c_x T}{x_0^2}\big)\Big)

    ``eps`` = ε, ``delta`` = δ, ``T`` = horizon, ``c0`` = sub-Gaussian factor of
    the columns, ``cx`` = bound on ``x_t²``, ``x0`` = first coefficient.  The
    result is the exact integer ceiling of the right-hand side at the given
    (float) arguments, computed in multi-precision arithmetic, so ``M − 1``
    violates the inequality and ``M`` satisfies it: a Python ``int`` for scalar
    arguments (of any size: ε = 1e-9 gives about 3.7e20), an ``int64`` array, or
    an object array of Python ints when a value does not fit in int64.

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
    _together(eps=eps, delta=delta, T=T, c0=c0, cx=cx, x0=x0, const=const)
    return _ceil_all(_mp_seq, eps, delta, T, c0, cx, x0, const)


def _solve_eps(M, K, L):
    # M eps^2 = K (1 + eps) L  ->  positive root (kl + sqrt(kl² + 4 M kl)) / (2M), written
    # with a = K L / M so that nothing overflows for large M or K L
    # with a = K L / M so that nothing overflows for large M or K L.  The float result is
    # within a few ulps of the root; it is raised by 64 ulps (relative 1.4e-14) so that the
    # certified ε is never below the exact root (exact M(ε) ≤ M, see the tests)
    a = K * L / M
    with np.errstate(over="ignore", invalid="ignore"):
        return (a + np.sqrt(a) * np.sqrt(a + 4.0)) / 2.0 * (1.0 + 64 * np.finfo(float).eps)


def sequential_jl_eps(M, delta, T, *, c0=1.0, cx=1.0, x0=1.0, const=16.0):
    r"""Inverse of :func:`sequential_jl_min_dim`: the ε certified by dimension ``M``.

    Solves ``M ε² = const·c0·(1+ε)·L`` with ``L = log(1/δ) + log(1 + c_x T/x_0²)``:

    .. math:: \varepsilon = \frac{KL + \sqrt{K^2L^2 + 4MKL}}{2M},\quad K = \mathrm{const}\,c_0 .

    The value may exceed 1 (the lower side of the band is then vacuous).  It is rounded
    up by 64 ulps, so that :func:`sequential_jl_min_dim` of it (exact) is at most ``M``.
    ``ValueError`` if it overflows the float range.
    Theory ``#coverage``, RECONSTRUCTED.

    >>> round(sequential_jl_eps(836, 0.05, 300), 4)
    0.4998
    """
    M = _at_least_one("M", M)
    delta = _open_unit("delta", delta)
    T = _at_least_one("T", T)
    c0, cx, const = _positive("c0", c0), _positive("cx", cx), _positive("const", const)
    x0 = _nonzero("x0", x0)
    _together(M=M, delta=delta, T=T, c0=c0, cx=cx, x0=x0, const=const)
    with np.errstate(over="ignore"):
        eps = _solve_eps(M, const * c0, _seq_log_term(delta, T, cx, x0))
    return _finite_out("sequential_jl_eps (const, c0)", eps, "the certified eps")


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
    _together(M=M, delta=delta, V=V, c0=c0, x0=x0, const=const)
    with np.errstate(over="ignore", under="ignore"):
        x0sq = x0 ** 2
        if np.any(V < x0sq * (1 - 1e-12)):
            raise ValueError(f"V must be >= x0**2 = {float(np.min(x0sq))}, got {float(np.min(V))}")
        lr = np.log(V) - 2.0 * np.log(np.abs(x0))
        L = _log_neg(delta) + np.maximum(lr, 0.0)
        eps = _solve_eps(M, const * c0, L)
    return _finite_out("anytime_jl_eps (const, c0)", eps, "the any-time half-width")


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
    _together(M=M, eps=eps)
    with np.errstate(under="ignore"):
        return _out(np.minimum(1.0, 2.0 * np.exp(-(M / 2.0) * _jl_gap(eps))))


def fixed_vector_jl_min_dim(eps, delta):
    """Smallest ``M`` with :func:`fixed_vector_jl_failure_bound` ≤ δ: the exact integer
    ceiling of ``2 log(2/δ) / (ε²/2 − ε³/3)`` (see :func:`sequential_jl_min_dim` for the
    return types).

    >>> fixed_vector_jl_min_dim(0.5, 0.05)
    89
    """
    eps = _open_unit("eps", eps)
    delta = _open_unit("delta", delta)
    _together(eps=eps, delta=delta)
    return _ceil_all(lambda e, d: 2 * mpmath.log(2 / d) / _mp_gap(e), eps, delta)


def union_bound_jl_min_dim(eps, delta, n_vectors):
    r"""Union bound over ``n_vectors`` fixed vectors, failure δ:

    .. math:: M \ge \frac{2\log(2T/\delta)}{\varepsilon^2/2 - \varepsilon^3/3},

    the exact integer ceiling (the reference table rounds to nearest; see the module
    doctest; return types as :func:`sequential_jl_min_dim`).
    Theory ``#fixed-time``, CONFIRMED.
    """
    eps = _open_unit("eps", eps)
    delta = _open_unit("delta", delta)
    n = _at_least_one("n_vectors", n_vectors)
    _together(eps=eps, delta=delta, n_vectors=n)
    return _ceil_all(lambda e, d, m: 2 * mpmath.log(2 * m / d) / _mp_gap(e), eps, delta, n)


def sklearn_jl_min_dim(n_samples, eps, *, round_up=True):
    r"""scikit-learn's ``johnson_lindenstrauss_min_dim(n_samples, eps)`` formula

    .. math:: M = \frac{4\log n}{\varepsilon^2/2 - \varepsilon^3/3}.

    Difference with scikit-learn: scikit-learn returns ``int(...)``, which
    truncates and so sits one below its own bound whenever the bound is not an
    integer; we round up (``round_up=False`` reproduces scikit-learn's truncation,
    but exactly).  Both are computed in exact arithmetic (return types as
    :func:`sequential_jl_min_dim`).
    The formula is a union bound over about ``n²/2`` pairs with success
    probability merely positive (no δ).  Theory ``#fixed-time``, CONFIRMED.
    """
    n = _at_least_one("n_samples", n_samples)
    eps = _open_unit("eps", eps)
    round_up = check_bool("round_up", round_up)
    _together(n_samples=n, eps=eps)

    def expr(m, e):
        return 4 * mpmath.log(m) / _mp_gap(e)
    return _ceil_all(expr, n, eps) if round_up else _floor_all(expr, n, eps)


# --------------------------------------------------------------------------
# time-uniform boundaries (theory #mixture)
# --------------------------------------------------------------------------

#: Range of the intrinsic times ``v`` and ``v_opt`` accepted by the boundaries: beyond it
#: ``ρ`` underflows or ``(v + ρ)·log(...)`` overflows the float range.
_V_MIN, _V_MAX = 1e-300, 1e250


def normal_mixture_rho(v_opt, alpha_opt=0.05):
    r"""``ρ = v_opt / (2 log(1/α_opt) + log(1 + 2 log(1/α_opt)))`` (theory ``#mixture``, CONFIRMED),
    the mixture precision that makes the two-sided boundary tightest at ``v_opt``."""
    v_opt = _positive("v_opt", v_opt)
    if np.any((v_opt < _V_MIN) | (v_opt > _V_MAX)):
        bad = v_opt[(v_opt < _V_MIN) | (v_opt > _V_MAX)].ravel()[0]
        raise ValueError(f"v_opt must lie in [{_V_MIN:g}, {_V_MAX:g}] (outside it rho or the "
                         f"boundary leaves the float range), got {float(bad)!r}")
    a = _open_unit("alpha_opt", alpha_opt)
    _together(v_opt=v_opt, alpha_opt=a)
    la = 2.0 * _log_neg(a)
    with np.errstate(under="ignore"):
        rho = v_opt / (la + np.log1p(la))
    return _out(rho)


def _one_sided_solve(v, rho, alpha):
    # half-normal mixture: log M(s) = log 2 + 0.5 log(rho/(v+rho)) + s²/(2(v+rho)) + log Φ(s/sqrt(v+rho))
    w = v + rho
    target = -math.log(alpha)

    def f(s):
        return (math.log(2.0) + 0.5 * math.log(rho / w) + s * s / (2 * w)
                + special.log_ndtr(s / math.sqrt(w)) - target)

    hi = math.sqrt(w) * math.sqrt(math.log(w) - math.log(rho) + 2 * target) + 1.0
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
    if np.any((v < 0) | (v > _V_MAX)):
        bad = v[(v < 0) | (v > _V_MAX)].ravel()[0]
        raise ValueError(f"v must lie in [0, {_V_MAX:g}], got {float(bad)!r}")
    alpha = _open_unit("alpha", alpha)
    two_sided = check_bool("two_sided", two_sided)
    rho = np.asarray(normal_mixture_rho(v_opt, alpha_opt))
    try:
        vb, rb, ab = np.broadcast_arrays(v, rho, alpha)
    except ValueError:
        raise ValueError(f"v, alpha and v_opt must broadcast together, got shapes {v.shape}, "
                         f"{alpha.shape}, {rho.shape}") from None
    if two_sided:
        # log(1 + v/ρ) = logaddexp(0, log v − log ρ): v/ρ may overflow; log(1/α) = −log α
        with np.errstate(divide="ignore"):
            lr = np.logaddexp(0.0, np.log(vb) - np.log(rb))
        return _out(np.sqrt(vb + rb) * np.sqrt(lr + 2.0 * _log_neg(ab)))
    if vb.size > 100_000:
        raise ValueError(f"v, alpha and v_opt broadcast to {vb.size} values; the one-sided "
                         "boundary is solved per value, at most 100000 per call")
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
    _together(delta=delta, R=R)
    if Vb.ndim < 2 and V0.ndim < 2:
        if np.any(Vb <= 0) or np.any(V0 <= 0):
            raise ValueError("V_bar and V must be positive")
        ld_b, ld_0 = np.log(Vb), np.log(V0)
    else:
        if Vb.ndim < 2 or V0.ndim < 2 or Vb.shape[-1] != Vb.shape[-2] \
                or V0.shape[-2:] != Vb.shape[-2:]:
            raise ValueError(f"V_bar and V must be square with equal sizes, got {Vb.shape} and {V0.shape}")
        if Vb.shape[-1] > 4096:
            raise ValueError(f"V_bar and V must be at most 4096 x 4096 (a log-determinant per "
                             f"matrix), got {Vb.shape}")
        if Vb.shape[-1] == 0:
            raise ValueError(f"V_bar and V must be at least 1 x 1, got {Vb.shape}")
        sb, ld_b = np.linalg.slogdet(Vb)
        s0, ld_0 = np.linalg.slogdet(V0)
        if np.any(sb <= 0) or np.any(s0 <= 0) or not (np.all(np.isfinite(ld_b))
                                                     and np.all(np.isfinite(ld_0))):
            raise ValueError("V_bar and V must be positive definite")
    try:
        half = 0.5 * (ld_b - ld_0)
    except ValueError:
        raise ValueError(f"V_bar and V must broadcast together, got shapes {Vb.shape} and "
                         f"{V0.shape}") from None
    _together(V_bar=half, delta=delta, R=R)
    with np.errstate(over="ignore"):
        out = 2.0 * R ** 2 * (half + _log_neg(delta))
    return _finite_out("self_normalized_bound (R)", out, "the radius²")
