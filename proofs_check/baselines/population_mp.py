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
    th = [mpmath.mpf(float(x)) for x in theta]
    phi = [[[[mpmath.mpf(float(x)) for x in features[t][r][v]] for v in range(V)] for r in range(V ** t)]
           for t in range(T)]
    rows = [[_softmax_mp([_dot(phi[t][r][v], th) for v in range(V)]) for r in range(V ** t)] for t in range(T)]

    def score_at(t, row, tok, p):
        f = phi[t][row]
        return [f[tok][k] - mpmath.fsum(p[v] * f[v][k] for v in range(V)) for k in range(len(th))]

    return _enumerate(V, T, lambda t, row: rows[t][row], score_at)


def population_variances_mp(P, R, scores, proxy) -> dict:
    """``{kind: E‖ĝ_b − E ĝ_b‖²}`` for the baselines of :func:`~.population.population_baselines`.

    ``P[y]`` response probabilities, ``R[y]`` outcome rewards, ``scores[y][t]``
    explicit score vectors, ``proxy[y][t]`` the logit-gradient proxy.  Baselines
    (``G_t = R``): ``none`` 0; ``mean`` ``E R``; ``global_bstar``
    ``E[‖S‖² R]/E‖S‖²``; ``otb`` ``E[W_t R]/E W_t`` with ``W_t = Σ_{j≤t} proxy_j``;
    ``per_token`` ``E[⟨s_k, S⟩ R]/E‖s_k‖²``.  The mean ``E ĝ_b`` is formed for each
    baseline (not assumed equal to ``g``).
    """
    n, T = len(P), len(scores[0])
    R = [mpmath.mpf(float(r)) for r in R]
    D = len(scores[0][0])
    S = [[mpmath.fsum(scores[y][t][k] for t in range(T)) for k in range(D)] for y in range(n)]
    S2 = [_dot(S[y], S[y]) for y in range(n)]
    E = lambda f: mpmath.fsum(P[y] * f(y) for y in range(n))  # noqa: E731
    W = [[mpmath.fsum(proxy[y][:t + 1]) for t in range(T)] for y in range(n)]
    zero = mpmath.mpf(0)
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
