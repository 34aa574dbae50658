r"""The exact population model in mpmath: the float version's high-precision twin.

The same quantities as :mod:`.population` — per-position constant baselines of
each kind in :data:`~.population.POPULATION_KINDS` and the exact
``E‖ĝ − E ĝ‖²`` of ``ĝ = Σ_t s_t (R − b_t)`` — computed at the working
precision of :mod:`mpmath` from *explicit* score vectors (no tabular
structure, no Gram tensor), so it is independent of the float code as well as
more precise.  Its use: confirming a float64 counterexample of a variance
inequality at 50 digits (``InequalityClaim(evaluate_mp=...)``), and the tests
that the two versions agree.

* :func:`tabular_model_mp` — ``(P, scores, proxy)`` of a tabular policy from its
  per-depth logit tables;
* :func:`linear_model_mp` — the same for a linear-softmax policy
  ``z(c, v) = φ(c, v)·θ``;
* :func:`population_variances_mp` — ``{kind: variance}`` as ``mpf``.

Sizes are tiny (``V**T`` responses up to a few dozen); everything is a plain
Python loop over ``mpf`` numbers.  Call inside ``mpmath.workdps(...)`` to set
the precision.  Theory page ``docs/theory/baselines.md#population-variance``.
"""
from __future__ import annotations

import mpmath
import numpy as np

from proofs_check.engine import check_finite_array, shown

from ._args import enum_size

__all__ = ["tabular_model_mp", "linear_model_mp", "population_variances_mp"]


def _softmax_mp(z):
    top = max(z)
    e = [mpmath.exp(v - top) for v in z]
    tot = mpmath.fsum(e)
    return [x / tot for x in e]


def _dot(u, v):
    return mpmath.fsum(a * b for a, b in zip(u, v))


def _enumerate(V, T, probs_at, score_at):
    """``P[y]``, ``scores[y][t]`` (vectors) and ``proxy[y][t]`` for every response ``y``.

    ``probs_at(t, row)`` gives the next-token distribution at the depth-``t``
    prefix ``row``; ``score_at(t, row, tok, p)`` the score vector of choosing
    ``tok`` there.
    """
    P, scores, proxy = [], [], []
    for y in range(V ** T):
        prob, s_y, w_y = mpmath.mpf(1), [], []
        for t in range(T):
            row = y // V ** (T - t)
            tok = (y // V ** (T - 1 - t)) % V
            p = probs_at(t, row)
            prob *= p[tok]
            s_y.append(score_at(t, row, tok, p))
            w_y.append(1 - 2 * p[tok] + mpmath.fsum(q * q for q in p))
        P.append(prob)
        scores.append(s_y)
        proxy.append(w_y)
    return P, scores, proxy


def tabular_model_mp(logit_tables, V: int, T: int):
    """``(P, scores, proxy)`` of the tabular policy with ``logit_tables[t]`` of shape ``(V**t, V)``.

    The score of a response at depth ``t`` is the dense vector over all
    ``Σ_t V**t·V`` logits with ``e_{y_t} − π(·|c_t)`` in the block of its prefix.
    """
    V, T = enum_size(V, T, max_seq=256)
    logit_tables = _tables("logit_tables", logit_tables, [(V ** t, V) for t in range(T)])
    offsets = [0]
    for t in range(T):
        offsets.append(offsets[-1] + V ** t * V)
    rows = [[_softmax_mp([mpmath.mpf(float(v)) for v in logit_tables[t][r]]) for r in range(V ** t)]
            for t in range(T)]

    def score_at(t, row, tok, p):
        s = [mpmath.mpf(0)] * offsets[-1]
        base = offsets[t] + row * V
        for v in range(V):
            s[base + v] = (1 if v == tok else 0) - p[v]
        return s

    return _enumerate(V, T, lambda t, row: rows[t][row], score_at)


def linear_model_mp(theta, features, V: int, T: int):
    """``(P, scores, proxy)`` of the linear-softmax policy ``z(c, v) = φ(c, v)·θ``.

    ``features[t]`` has shape ``(V**t, V, d)``; the score is
    ``φ(c_t, y_t) − Σ_v π(v|c_t) φ(c_t, v)`` (a ``d``-vector).
    """
    V, T = enum_size(V, T, max_seq=256)
    theta = check_finite_array("theta", theta, ndim=1)
    if not 1 <= theta.size <= 64:
        raise ValueError(f"theta must hold 1 to 64 parameters, got {theta.size}")
    features = _tables("features", features, [(V ** t, V, theta.size) for t in range(T)])
    th = [mpmath.mpf(float(x)) for x in theta]
    phi = [[[[mpmath.mpf(float(x)) for x in features[t][r][v]] for v in range(V)] for r in range(V ** t)]
           for t in range(T)]
    rows = [[_softmax_mp([_dot(phi[t][r][v], th) for v in range(V)]) for r in range(V ** t)] for t in range(T)]

    def score_at(t, row, tok, p):
        f = phi[t][row]
        return [f[tok][k] - mpmath.fsum(p[v] * f[v][k] for v in range(V)) for k in range(len(th))]

    return _enumerate(V, T, lambda t, row: rows[t][row], score_at)


def _tables(name, tables, shapes):
    """``tables[t]`` as finite float arrays of the given shapes."""
    if isinstance(tables, (str, bytes, np.ndarray)) or not hasattr(tables, "__len__"):
        raise TypeError(f"{name} must be a sequence of {len(shapes)} arrays, got {shown(tables)}")
    if len(tables) != len(shapes):
        raise ValueError(f"{name} must hold {len(shapes)} arrays (one per depth), got {len(tables)}")
    out = []
    for t, shape in enumerate(shapes):
        a = check_finite_array(f"{name}[{t}]", tables[t])
        if a.shape != shape:
            raise ValueError(f"{name}[{t}] must have shape {shape}, got {a.shape}")
        out.append(a)
    return out


def _real_mp(name, x):
    if isinstance(x, mpmath.mpf):
        v = x
    elif isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_)):
        v = mpmath.mpf(float(x)) if isinstance(x, (float, np.floating)) else mpmath.mpf(int(x))
    else:
        raise TypeError(f"{name} must hold real numbers (float or mpf), got {shown(x)}")
    if not mpmath.isfinite(v):
        raise ValueError(f"{name} must hold finite numbers, got {shown(x)}")
    return v


def _seq(name, x, n=None):
    if isinstance(x, (str, bytes)) or not hasattr(x, "__len__") or (isinstance(x, np.ndarray) and x.ndim == 0):
        raise TypeError(f"{name} must be a sequence, got {shown(x)}")
    if n is not None and len(x) != n:
        raise ValueError(f"{name} must have length {n}, got {len(x)}")
    if len(x) == 0:
        raise ValueError(f"{name} must not be empty")
    return x


def _check_mp_parts(P, R, scores, proxy):
    P = [_real_mp("P", p) for p in _seq("P", P)]
    n = len(P)
    if n > 4096:
        raise ValueError(f"P must hold at most 4096 responses (a plain-Python mpmath loop), got {n}")
    if any(p < 0 for p in P):
        raise ValueError("P must hold probabilities ≥ 0")
    R = [_real_mp("R", r) for r in _seq("R", R, n)]
    _seq("scores", scores, n)
    T = len(_seq("scores[0]", scores[0]))
    D = len(_seq("scores[0][0]", scores[0][0]))
    sc = [[[_real_mp("scores", v) for v in _seq(f"scores[{y}][{t}]", scores[y][t], D)]
           for t in range(T) for _ in [_seq(f"scores[{y}]", scores[y], T)]] for y in range(n)]
    _seq("proxy", proxy, n)
    px = [[_real_mp("proxy", v) for v in _seq(f"proxy[{y}]", proxy[y], T)] for y in range(n)]
    return P, R, sc, px


def population_variances_mp(P, R, scores, proxy) -> dict:
    """``{kind: E‖ĝ_b − E ĝ_b‖²}`` for the baselines of :func:`~.population.population_baselines`.

    ``P[y]`` response probabilities, ``R[y]`` outcome rewards, ``scores[y][t]``
    explicit score vectors, ``proxy[y][t]`` the logit-gradient proxy.  Baselines
    (``G_t = R``): ``none`` 0; ``mean`` ``E R``; ``global_bstar``
    ``E[‖S‖² R]/E‖S‖²``; ``otb`` ``E[W_t R]/E W_t`` with ``W_t = Σ_{j≤t} proxy_j``;
    ``per_token`` ``E[⟨s_k, S⟩ R]/E‖s_k‖²``.  The mean ``E ĝ_b`` is formed for each
    baseline (not assumed equal to ``g``).
    """
    P, R, scores, proxy = _check_mp_parts(P, R, scores, proxy)
    n, T = len(P), len(scores[0])
    D = len(scores[0][0])
    S = [[mpmath.fsum(scores[y][t][k] for t in range(T)) for k in range(D)] for y in range(n)]
    S2 = [_dot(S[y], S[y]) for y in range(n)]
    E = lambda f: mpmath.fsum(P[y] * f(y) for y in range(n))  # noqa: E731
    W = [[mpmath.fsum(proxy[y][:t + 1]) for t in range(T)] for y in range(n)]
    zero = mpmath.mpf(0)
    if E(lambda y: S2[y]) == 0 or any(E(lambda y: _dot(scores[y][k], scores[y][k])) == 0 or
                                      E(lambda y: W[y][k]) == 0 for k in range(T)):
        raise ValueError("P and scores give a zero expected energy at some position (E‖s_k‖² = 0 or "
                         "E W_k = 0): the optimal baselines are undefined")
    baselines = {
        "none": [zero] * T,
        "mean": [E(lambda y: R[y])] * T,
        "global_bstar": [E(lambda y: S2[y] * R[y]) / E(lambda y: S2[y])] * T,
        "otb": [E(lambda y: W[y][t] * R[y]) / E(lambda y: W[y][t]) for t in range(T)],
        "per_token": [E(lambda y: _dot(scores[y][k], S[y]) * R[y]) / E(lambda y: _dot(scores[y][k], scores[y][k]))
                      for k in range(T)],
    }
    out = {}
    for kind, b in baselines.items():
        g = [[mpmath.fsum(scores[y][t][k] * (R[y] - b[t]) for t in range(T)) for k in range(D)] for y in range(n)]
        mean = [E(lambda y: g[y][k]) for k in range(D)]
        out[kind] = E(lambda y: _dot(g[y], g[y])) - _dot(mean, mean)
    return out
