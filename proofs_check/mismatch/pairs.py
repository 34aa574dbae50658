r"""Random policy pairs for the mismatch checks, and their flat encodings for search.

Draws (each a function of an explicit ``numpy.random.Generator``):

* :func:`draw_pair` — a pair from one of the four generators of theory ``mismatch.md#enumeration``
  (:data:`proofs_check.policies.GENERATORS`) at a random mismatch level
  (log-uniform logit-noise scale in ``[0.01, 1.5]``);
* :func:`draw_case` — a pair of a random shape from :data:`SHAPES`, the
  generator cycling with the case index;
* :func:`draw_linear_case` — a shared-parameter trainer
  (:class:`~proofs_check.policies.LinearSoftmaxPolicy`), a sampler perturbed
  from it, a reward and a clipping constant ``C`` (the estimator identities).

Constructions (deterministic):

* :func:`kl_one_pair` — ``KL(c) = 1`` at one context of ``μ``-probability ``p``
  and 0 elsewhere (no sequence-only control, theory ``mismatch.md#bounds`` Proposition);
* :func:`violation_pair` — an i.i.d. sampler and a trainer that differs exactly
  after a 1 (TRM acceptance ``(1 − p)^{T−1}``, theory ``mismatch.md#trm``).

Flat encodings (the search space of the inequality claims): a pair is the
concatenation of the two policies' logits (:func:`pair_from_flat`), optionally
followed by reward logits (``R = sigmoid``); an i.i.d. tilt is the pair of token
logit vectors (:func:`tilt_probs_from_flat`).  :func:`clip_logits` keeps a
point finite during ascent.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit

from ..policies import (GENERATORS, LinearSoftmaxPolicy, TabularPolicy, low_probability_mismatch, per_context_kl,
                        random_pair, sparse_mismatch, uniform_mismatch)

__all__ = ["SHAPES", "draw_pair", "draw_case", "draw_linear_case", "kl_one_pair", "violation_pair",
           "n_logits", "pair_from_flat", "sample_pair", "sample_pair_reward", "pair_reward_from_flat",
           "tilt_probs_from_flat", "clip_logits", "sample_linear", "linear_from_flat"]

#: (V, T) shapes used by the identity claims (theory ``mismatch.md#enumeration`` sizes).
SHAPES = ((2, 1), (2, 3), (2, 6), (3, 2), (3, 4), (4, 2), (4, 3))


# --------------------------------------------------------------------------
# random pairs
# --------------------------------------------------------------------------

def draw_pair(rng: np.random.Generator, generator: str, V: int, T: int):
    """A random pair from ``generator`` with a random mismatch level."""
    lvl = float(np.exp(rng.uniform(np.log(0.01), np.log(1.5))))
    if generator == "uniform":
        return random_pair("uniform", V, T, rng, sigma=lvl)
    if generator == "sparse":
        return random_pair("sparse", V, T, rng, n_flips=int(rng.integers(1, 4)),
                           p_mu=float(rng.uniform(0.5, 0.99)), p_pi=float(np.exp(rng.uniform(-9, -1))))
    if generator == "low_prob":
        return random_pair("low_prob", V, T, rng, tau=float(rng.uniform(0.05, 0.4)), sigma=lvl,
                           shift=float(rng.uniform(0, 2)))
    return random_pair("iid_tilt", V, T, rng, sigma=lvl)


def draw_case(rng: np.random.Generator, k: int):
    """Case ``k``: a shape drawn from :data:`SHAPES`, generator ``GENERATORS[k mod 4]``."""
    V, T = SHAPES[int(rng.integers(len(SHAPES)))]
    return draw_pair(rng, GENERATORS[k % len(GENERATORS)], V, T)


def draw_linear_case(rng: np.random.Generator, k: int, *, d: int = 3):
    """``(mu, lin, R, C)``: a linear-softmax trainer ``lin`` (``d`` parameters), a tabular sampler
    ``mu`` perturbed from it by generator ``GENERATORS[k mod 4]``, a reward ``R ∈ [0, 1]`` and a
    clipping constant ``C ∈ [1.05, 4]``."""
    V, T = ((2, 3), (2, 5), (3, 2), (3, 3), (4, 2))[int(rng.integers(5))]
    lin = LinearSoftmaxPolicy.random(V, T, d, rng, scale=float(rng.uniform(0.5, 3.0)))
    gen = GENERATORS[k % len(GENERATORS)]
    if gen == "iid_tilt":   # tilt the sampler's logits uniformly across contexts
        z = rng.standard_normal(V) * float(np.exp(rng.uniform(np.log(0.02), np.log(1.0))))
        mu = TabularPolicy([lz + z for lz in lin.tabular().logits])
    else:
        base = lin.tabular()
        if gen == "uniform":
            _, mu = uniform_mismatch(base, rng, sigma=float(np.exp(rng.uniform(np.log(0.02), 0.0))))
        elif gen == "sparse":
            mu, _ = sparse_mismatch(base, rng, n_flips=2)
        else:
            _, mu = low_probability_mismatch(base, rng, tau=0.3, sigma=0.5, shift=-1.0)
    R = rng.random(V ** T)
    C = float(rng.uniform(1.05, 4.0))
    return mu, lin, R, C


# --------------------------------------------------------------------------
# constructions
# --------------------------------------------------------------------------

def kl_one_pair(p: float, kl_target: float = 1.0):
    """V=2, T=2 pair: ``μ(y_1 = 1) = p``; at context ``y_1 = 1`` ``KL(μ‖π) = kl_target``, elsewhere 0."""
    z0 = np.array([[math.log1p(-p), math.log(p)]])
    m = 0.5

    def kl(q):
        return m * math.log(m / q) + (1 - m) * math.log((1 - m) / (1 - q)) - kl_target

    q = brentq(kl, 1e-300, 0.5)
    mu1 = np.zeros((2, 2))
    pi1 = np.array([[0.0, 0.0], [math.log(q), math.log1p(-q)]])
    return TabularPolicy([z0, mu1]), TabularPolicy([z0, pi1])


def violation_pair(p: float, T: int):
    """V=2 pair for the TRM acceptance check: i.i.d. sampler ``μ(1) = p``; ``π`` differs
    exactly at the contexts whose last token is 1.  Returns ``(mu, pi, delta)`` with
    ``δ`` half the smallest positive context KL, so those contexts violate."""
    mu = TabularPolicy.iid([1 - p, p], T)
    tabs = [np.array(z) for z in mu.logits]
    for t in range(1, T):
        last = np.arange(2 ** t) % 2 == 1
        tabs[t][last] = [math.log(0.5), math.log(0.5)] if abs(p - 0.5) > 0.2 else [0.0, 3.0]
    pi = TabularPolicy(tabs)
    kl = per_context_kl(mu, pi)
    delta = 0.5 * min(float(k[k > 0].min()) for k in kl[1:])
    return mu, pi, delta


# --------------------------------------------------------------------------
# flat encodings (search points)
# --------------------------------------------------------------------------

def n_logits(V: int, T: int) -> int:
    """Number of logits of one tabular policy, ``Σ_t V**t · V``."""
    return sum(V ** t * V for t in range(T))


def pair_from_flat(theta, V: int, T: int):
    """``(mu, pi)`` from the concatenation of their flat logits (extra entries ignored)."""
    n = n_logits(V, T)
    return TabularPolicy.from_flat(theta[:n], V, T), TabularPolicy.from_flat(theta[n:2 * n], V, T)


def sample_pair(rng, *, generator, V, T, iid_T=None):
    """A starting point: flat ``(mu logits, pi logits)`` (token logits for ``iid_tilt``)."""
    mu, pi = draw_pair(rng, generator, V, T if iid_T is None else 1)
    if iid_T is not None:
        return np.concatenate([mu.logits[0][0], pi.logits[0][0]])
    return np.concatenate([mu.flat_logits(), pi.flat_logits()])


def sample_pair_reward(rng, *, V, T):
    """``(mu logits, pi logits, reward logits)``; ``R = sigmoid(reward logits)``."""
    g = GENERATORS[int(rng.integers(3))]
    mu, pi = draw_pair(rng, g, V, T)
    return np.concatenate([mu.flat_logits(), pi.flat_logits(), 3.0 * rng.standard_normal(V ** T)])


def pair_reward_from_flat(theta, V: int, T: int):
    """``(mu, pi, R)`` from a point of :func:`sample_pair_reward`."""
    mu, pi = pair_from_flat(theta, V, T)
    return mu, pi, expit(theta[2 * n_logits(V, T):])


def tilt_probs_from_flat(theta, V: int):
    """The token distributions ``(μ, π)`` of an i.i.d. tilt from ``2V`` logits."""
    a, b = theta[:V], theta[V:2 * V]
    m = np.exp(a - a.max()); m /= m.sum()
    p = np.exp(b - b.max()); p /= p.sum()
    return m, p


def clip_logits(theta, *, bound=30.0):
    """Keep logits finite and moderate during ascent."""
    return np.clip(theta, -bound, bound)


def sample_linear(rng, *, V, T, d):
    """``(θ (d), sampler logit offset (flat), reward logits (V**T))``."""
    off = float(np.exp(rng.uniform(np.log(0.02), np.log(1.5)))) * rng.standard_normal(n_logits(V, T))
    return np.concatenate([rng.standard_normal(d) * float(rng.uniform(0.3, 3.0)), off,
                           3.0 * rng.standard_normal(V ** T)])


def linear_from_flat(theta, V: int, T: int, d: int, seed: int):
    """``(lin, mu, R)`` from a point of :func:`sample_linear`: the trainer has the features of
    ``LinearSoftmaxPolicy.random(V, T, d, seed)`` and parameters ``θ``; the sampler's logits are
    the trainer's plus the offset; ``R = sigmoid(reward logits)``."""
    lin0 = LinearSoftmaxPolicy.random(V, T, d, seed)
    lin = lin0.with_theta(theta[:d])
    n = n_logits(V, T)
    off = theta[d:d + n]
    mu = TabularPolicy.from_flat(lin.tabular().flat_logits() + off, V, T)
    R = expit(theta[d + n:])
    return lin, mu, R
