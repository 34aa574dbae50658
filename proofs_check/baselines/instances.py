r"""Small random instances as flat parameter vectors: the domains of the worst-case
searches over population variances.

An instance is a policy with an outcome reward ``R ∈ [0, 1]`` per response,
written as one flat float vector ``θ`` so that a search can perturb it:

* **tabular** (``V``, ``T``): ``θ = (every logit of every prefix, R)``;
  :func:`instance_sample`, :func:`instance_project`, :func:`tabular_instance`;
* **shared parameters** (``V``, ``T``, ``d``): a linear-softmax policy with
  features ``φ(c, v) = G[last token of c (or BOS), v]`` shared across depths
  (the family of ``LinearSoftmaxPolicy.random``),
  ``θ = (G of shape (V+1, V, d), parameters (d), R)``;
  :func:`shared_instance_sample`, :func:`shared_instance_project`,
  :func:`shared_policy`.

:func:`variance_pair` / :func:`shared_variance_pair` return the exact
population variances ``(Var[ĝ_small], Var[ĝ_large])`` of two baselines (float64,
:mod:`.population`); :func:`variance_pair_mp` / :func:`shared_variance_pair_mp`
the same at mpmath precision (:mod:`.population_mp`), for confirming a
counterexample.  Theory page ``docs/theory/baselines.md#population-variance``
and ``#shared-parameters``.
"""
from __future__ import annotations

import numpy as np

from proofs_check.policies import LinearSoftmaxPolicy, TabularPolicy

from proofs_check.engine import as_generator, check_finite_array, check_int, check_real

from ._args import choice as _choice
from ._args import enum_size
from .population import POPULATION_KINDS, exact_model, population_baselines, population_variances
from .population_mp import linear_model_mp, population_variances_mp, tabular_model_mp

__all__ = ["instance_sample", "instance_project", "tabular_instance", "variance_pair", "variance_pair_mp",
           "shared_instance_sample", "shared_instance_project", "shared_policy", "shared_variance_pair",
           "shared_variance_pair_mp"]


# ---------------------------------------------------------------------------
# tabular instances
# ---------------------------------------------------------------------------

def _n_logits(V, T):
    return sum(V ** t * V for t in range(T))


def _vt(V, T):
    return enum_size(V, T, max_seq=4096)


def _theta(theta, size):
    th = check_finite_array("theta", theta, ndim=1)
    if th.size != size:
        raise ValueError(f"theta must hold {size} numbers for these sizes, got {th.size}")
    return th


def _pair_kinds(small, large):
    return _choice("small", small, POPULATION_KINDS), _choice("large", large, POPULATION_KINDS)


def instance_sample(rng, *, V: int, T: int, scale: float):
    """``θ`` = (all tabular logits ``∼ N(0, scale²)``, rewards ``∼ U[0, 1]``)."""
    rng = as_generator(rng, "rng")
    V, T = _vt(V, T)
    scale = check_real("scale", scale, lo=0.0, hi=1e6)
    return np.concatenate([scale * rng.standard_normal(_n_logits(V, T)), rng.random(V ** T)])


def instance_project(theta, *, V: int, T: int):
    """Logits clipped to ``[−12, 12]``, rewards to ``[0, 1]``."""
    V, T = _vt(V, T)
    n_par = _n_logits(V, T)
    out = _theta(theta, n_par + V ** T).copy()
    out[:n_par] = np.clip(out[:n_par], -12, 12)
    out[n_par:] = np.clip(out[n_par:], 0.0, 1.0)
    return out


def tabular_instance(theta, *, V: int, T: int):
    """``(TabularPolicy, R)`` of a flat (projected) ``θ``."""
    V, T = _vt(V, T)
    n_par = _n_logits(V, T)
    theta = _theta(theta, n_par + V ** T)
    return TabularPolicy.from_flat(theta[:n_par], V, T), theta[n_par:]


def variance_pair(theta, *, small: str, large: str, V: int, T: int):
    """``(Var[small], Var[large])`` for the inequality ``Var[small] ≤ Var[large]`` (float64)."""
    _pair_kinds(small, large)
    pol, R = tabular_instance(instance_project(theta, V=V, T=T), V=V, T=T)
    v = population_variances(exact_model(pol, R))
    return v[small], v[large]


def variance_pair_mp(theta, *, small: str, large: str, V: int, T: int):
    """:func:`variance_pair` at the current mpmath precision, from explicit score vectors."""
    _pair_kinds(small, large)
    V, T = enum_size(V, T, max_seq=64)
    pol, R = tabular_instance(instance_project(theta, V=V, T=T), V=V, T=T)
    v = population_variances_mp(*_mp_parts(tabular_model_mp(pol.logits, V, T), R))
    return v[small], v[large]


def _mp_parts(model, R):
    P, scores, proxy = model
    return P, R, scores, proxy


# ---------------------------------------------------------------------------
# shared-parameter (linear-softmax) instances
# ---------------------------------------------------------------------------

def _shared_sizes(V, T, d):
    V, T = enum_size(V, T, max_seq=4096)
    d = check_int("d", d, lo=1, hi=256)
    return (V + 1) * V * d, d, V ** T


def shared_instance_sample(rng, *, V: int, T: int, d: int, scale: float):
    """``θ`` = (feature table ``G ∼ N(0, 1)`` of shape (V+1, V, d), parameters ``∼ N(0, scale²/d)``,
    rewards ``∼ U[0, 1]``)."""
    rng = as_generator(rng, "rng")
    nG, nt, nR = _shared_sizes(V, T, d)
    scale = check_real("scale", scale, lo=0.0, hi=1e6)
    return np.concatenate([rng.standard_normal(nG), scale * rng.standard_normal(nt) / np.sqrt(d),
                           rng.random(nR)])


def shared_instance_project(theta, *, V: int, T: int, d: int):
    """Features and parameters clipped to ``[−6, 6]``, rewards to ``[0, 1]``."""
    nG, nt, nR = _shared_sizes(V, T, d)
    out = _theta(theta, nG + nt + nR).copy()
    out[:nG + nt] = np.clip(out[:nG + nt], -6, 6)
    out[nG + nt:] = np.clip(out[nG + nt:], 0.0, 1.0)
    return out


def shared_policy(theta, *, V: int, T: int, d: int):
    """``(LinearSoftmaxPolicy, R)`` of a flat ``θ``: features ``φ(c, v) = G[last token of c (or BOS), v]``."""
    nG, nt, nR = _shared_sizes(V, T, d)
    theta = _theta(theta, nG + nt + nR)
    G = theta[:nG].reshape(V + 1, V, d)
    feats = [G[V][None].copy()] + [G[np.arange(V ** t) % V] for t in range(1, T)]
    return LinearSoftmaxPolicy(theta[nG:nG + nt], feats), theta[nG + nt:]


def shared_variance_pair(theta, *, small: str, large: str, V: int, T: int, d: int, weights: str):
    """``(Var[small], Var[large])`` of a shared-parameter instance (float64); OTB weighted by
    ``weights`` (``"proxy"`` or ``"true"``)."""
    _pair_kinds(small, large)
    _choice("weights", weights, ("proxy", "true"))
    pol, R = shared_policy(shared_instance_project(theta, V=V, T=T, d=d), V=V, T=T, d=d)
    m = exact_model(pol, R)
    v = population_variances(m, population_baselines(m, weights=weights))
    return v[small], v[large]


def shared_variance_pair_mp(theta, *, small: str, large: str, V: int, T: int, d: int, weights: str):
    """:func:`shared_variance_pair` at the current mpmath precision (``weights="proxy"`` only)."""
    _pair_kinds(small, large)
    _choice("weights", weights, ("proxy", "true"))
    enum_size(V, T, max_seq=64)
    if weights != "proxy":
        raise ValueError(f"the mpmath version weights OTB by the logit proxy only, got weights={weights!r}")
    pol, R = shared_policy(shared_instance_project(theta, V=V, T=T, d=d), V=V, T=T, d=d)
    v = population_variances_mp(*_mp_parts(linear_model_mp(pol.theta, pol.features, V, T), R))
    return v[small], v[large]
