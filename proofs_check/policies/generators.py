r"""The mismatch generators of theory ``mismatch.md#enumeration``: policy pairs ``(μ, π)``.

* ``uniform`` — Gaussian noise of scale ``σ`` on every logit;
* ``sparse`` ("MoE flip") — at a few prefixes ``μ(v|c) = p_mu`` but ``π(v|c) = p_pi``;
* ``low_prob`` — perturb only the tokens with ``μ(v|c) < τ``;
* ``iid_tilt`` — the same per-token pair at every prefix.

:func:`random_pair` draws a random base policy and dispatches on :data:`GENERATORS`.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

from ..engine import check_instance, as_generator, check_int, check_real
from .tabular import DEFAULT_MAX_BYTES, TabularPolicy, _check_prob_vector, _log_softmax, check_option

__all__ = ["GENERATORS", "uniform_mismatch", "sparse_mismatch", "low_probability_mismatch", "iid_tilt_pair",
           "random_pair"]

#: Names of the mismatch generators of theory ``mismatch.md#enumeration``.
GENERATORS = ("uniform", "sparse", "low_prob", "iid_tilt")


def uniform_mismatch(mu: TabularPolicy, rng, *, sigma: float = 0.1) -> tuple:
    """``π`` = ``μ`` with Gaussian noise ``N(0, σ²)`` on every logit.  Returns ``(mu, pi)``."""
    check_instance('mu', mu, TabularPolicy)
    sigma = check_real("sigma", sigma, lo=0.0)
    g = as_generator(rng)
    return mu, TabularPolicy([z + sigma * g.standard_normal(z.shape) for z in mu.logits])


def _set_prob(logp_row: np.ndarray, v: int, p: float) -> np.ndarray:
    """Log-probabilities with token ``v`` set to ``p`` and the others rescaled."""
    others = np.delete(np.arange(logp_row.size), v)
    out = np.empty_like(logp_row)
    rest = logsumexp(logp_row[others])
    out[others] = logp_row[others] - rest + math.log1p(-p)
    out[v] = math.log(p)
    return out


def sparse_mismatch(mu: TabularPolicy, rng, *, n_flips: int = 2, p_mu: float = 0.9,
                    p_pi: float = 0.001, sigma: float = 0.0) -> tuple:
    """"MoE flip": at ``n_flips`` random prefixes set ``μ(v|c) = p_mu`` and ``π(v|c) = p_pi``.

    Elsewhere ``π = μ`` (plus optional Gaussian logit noise ``sigma``).  The
    prefixes are drawn uniformly over all ``(depth, row)`` pairs weighted by
    depth uniformly (so shallow, frequently visited prefixes are hit too).
    Returns ``(mu', pi)`` — both are modified at the flipped prefixes.
    """
    check_instance('mu', mu, TabularPolicy)
    n_flips = check_int("n_flips", n_flips, lo=0)
    p_mu = check_real("p_mu", p_mu, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    p_pi = check_real("p_pi", p_pi, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    sigma = check_real("sigma", sigma, lo=0.0)
    g = as_generator(rng)
    mu_tabs = [np.array(z) for z in mu.logits]
    pi_tabs = [z + sigma * g.standard_normal(z.shape) if sigma > 0 else np.array(z) for z in mu.logits]
    V = mu.V
    for _ in range(n_flips):
        t = int(g.integers(mu.T))
        r = int(g.integers(V ** t))
        v = int(g.integers(V))
        base = _log_softmax(mu_tabs[t][r])
        mu_tabs[t][r] = _set_prob(base, v, p_mu)
        pi_tabs[t][r] = _set_prob(base, v, p_pi)
    return TabularPolicy(mu_tabs), TabularPolicy(pi_tabs)


def low_probability_mismatch(mu: TabularPolicy, rng, *, tau: float = 0.1, sigma: float = 0.5,
                             shift: float = 1.0) -> tuple:
    """Perturb only tokens with ``μ(v|c) < τ``: ``z_π = z_μ + σ·N(0,1) − shift`` there.

    ``shift > 0`` makes ``π ≪ μ`` on the rare tokens, where the blog finds the
    real mismatch.  Returns ``(mu, pi)``.
    """
    check_instance('mu', mu, TabularPolicy)
    tau = check_real("tau", tau, lo=0.0, hi=1.0, lo_open=True)
    sigma = check_real("sigma", sigma, lo=0.0)
    shift = check_real("shift", shift)
    g = as_generator(rng)
    out = []
    for t in range(mu.T):
        z = mu.logits[t]
        low = mu.probs(t) < tau
        out.append(z + low * (sigma * g.standard_normal(z.shape) - shift))
    return mu, TabularPolicy(out)


def iid_tilt_pair(mu_token, pi_token, T: int, *, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple:
    """The same per-token pair ``(μ, π)`` at every prefix; returns tabular ``(mu, pi)``.

    For long ``T`` use the closed forms in :mod:`proofs_check.mismatch`
    (counts are multinomial) instead of enumeration.
    """
    m = _check_prob_vector("mu_token", mu_token)
    p = _check_prob_vector("pi_token", pi_token)
    if m.size != p.size:
        raise ValueError(f"mu_token and pi_token must have the same length V, got {m.size} and {p.size}")
    return TabularPolicy.iid(m, T, max_bytes=max_bytes), TabularPolicy.iid(p, T, max_bytes=max_bytes)


def random_pair(generator: str, V: int, T: int, rng, *, scale: float = 1.0, **kw) -> tuple:
    """A random policy pair from one of :data:`GENERATORS`.

    The base ``μ`` has logits ``N(0, scale²)``; keyword arguments go to the
    generator (``uniform``: ``sigma``; ``sparse``: ``n_flips, p_mu, p_pi,
    sigma``; ``low_prob``: ``tau, sigma, shift``; ``iid_tilt``: ``sigma``,
    the logit-noise scale between the token distributions, and
    ``alpha`` the Dirichlet concentration of ``μ``'s token distribution).
    """
    check_option("generator", generator, GENERATORS)
    g = as_generator(rng)
    if generator == "iid_tilt":
        sigma = check_real("sigma", kw.pop("sigma", 0.3), lo=0.0)
        alpha = check_real("alpha", kw.pop("alpha", 2.0), lo=0.0, lo_open=True)
        if kw:
            raise TypeError(f"unexpected keyword arguments for iid_tilt: {sorted(kw)}")
        m = g.dirichlet(np.full(V, alpha))
        m = np.clip(m, 1e-12, None)
        m /= m.sum()
        z = np.log(m) + sigma * g.standard_normal(V)
        p = np.exp(_log_softmax(z))
        return iid_tilt_pair(m, p, T)
    mu = TabularPolicy.random(V, T, g, scale=scale)
    if generator == "uniform":
        return uniform_mismatch(mu, g, **kw)
    if generator == "sparse":
        return sparse_mismatch(mu, g, **kw)
    return low_probability_mismatch(mu, g, **kw)
