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

from .population import exact_model, population_baselines, population_variances
from .population_mp import linear_model_mp, population_variances_mp, tabular_model_mp

__all__ = ["instance_sample", "instance_project", "tabular_instance", "variance_pair", "variance_pair_mp",
           "shared_instance_sample", "shared_instance_project", "shared_policy", "shared_variance_pair",
           "shared_variance_pair_mp"]


# ---------------------------------------------------------------------------
# tabular instances
# ---------------------------------------------------------------------------

def _n_logits(V, T):
    return sum(V ** t * V for t in range(T))


def instance_sample(rng, *, V: int, T: int, scale: float):
    """``θ`` = (all tabular logits ``∼ N(0, scale²)``, rewards ``∼ U[0, 1]``)."""
    return np.concatenate([scale * rng.standard_normal(_n_logits(V, T)), rng.random(V ** T)])


def instance_project(theta, *, V: int, T: int):
    """Logits clipped to ``[−12, 12]``, rewards to ``[0, 1]``."""
    n_par = _n_logits(V, T)
    out = np.array(theta, dtype=float)
    out[:n_par] = np.clip(out[:n_par], -12, 12)
    out[n_par:] = np.clip(out[n_par:], 0.0, 1.0)
    return out


def tabular_instance(theta, *, V: int, T: int):
    """``(TabularPolicy, R)`` of a flat (projected) ``θ``."""
    n_par = _n_logits(V, T)
    return TabularPolicy.from_flat(theta[:n_par], V, T), theta[n_par:]


def variance_pair(theta, *, small: str, large: str, V: int, T: int):
    """``(Var[small], Var[large])`` for the inequality ``Var[small] ≤ Var[large]`` (float64)."""
    pol, R = tabular_instance(instance_project(theta, V=V, T=T), V=V, T=T)
    v = population_variances(exact_model(pol, R))
    return v[small], v[large]


def variance_pair_mp(theta, *, small: str, large: str, V: int, T: int):
    """:func:`variance_pair` at the current mpmath precision, from explicit score vectors."""
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
    return (V + 1) * V * d, d, V ** T


def shared_instance_sample(rng, *, V: int, T: int, d: int, scale: float):
    """``θ`` = (feature table ``G ∼ N(0, 1)`` of shape (V+1, V, d), parameters ``∼ N(0, scale²/d)``,
    rewards ``∼ U[0, 1]``)."""
    nG, nt, nR = _shared_sizes(V, T, d)
    return np.concatenate([rng.standard_normal(nG), scale * rng.standard_normal(nt) / np.sqrt(d),
                           rng.random(nR)])


def shared_instance_project(theta, *, V: int, T: int, d: int):
    """Features and parameters clipped to ``[−6, 6]``, rewards to ``[0, 1]``."""
    nG, nt, nR = _shared_sizes(V, T, d)
    out = np.array(theta, dtype=float)
    out[:nG + nt] = np.clip(out[:nG + nt], -6, 6)
    out[nG + nt:] = np.clip(out[nG + nt:], 0.0, 1.0)
    return out


def shared_policy(theta, *, V: int, T: int, d: int):
    """``(LinearSoftmaxPolicy, R)`` of a flat ``θ``: features ``φ(c, v) = G[last token of c (or BOS), v]``."""
    nG, nt, nR = _shared_sizes(V, T, d)
    G = theta[:nG].reshape(V + 1, V, d)
    feats = [G[V][None].copy()] + [G[np.arange(V ** t) % V] for t in range(1, T)]
    return LinearSoftmaxPolicy(theta[nG:nG + nt], feats), theta[nG + nt:]


def shared_variance_pair(theta, *, small: str, large: str, V: int, T: int, d: int, weights: str):
    """``(Var[small], Var[large])`` of a shared-parameter instance (float64); OTB weighted by
    ``weights`` (``"proxy"`` or ``"true"``)."""
    pol, R = shared_policy(shared_instance_project(theta, V=V, T=T, d=d), V=V, T=T, d=d)
    m = exact_model(pol, R)
    v = population_variances(m, population_baselines(m, weights=weights))
    return v[small], v[large]


def shared_variance_pair_mp(theta, *, small: str, large: str, V: int, T: int, d: int, weights: str):
    """:func:`shared_variance_pair` at the current mpmath precision (``weights="proxy"`` only)."""
    if weights != "proxy":
        raise ValueError(f"the mpmath version weights OTB by the logit proxy only, got weights={weights!r}")
    pol, R = shared_policy(shared_instance_project(theta, V=V, T=T, d=d), V=V, T=T, d=d)
    v = population_variances_mp(*_mp_parts(linear_model_mp(pol.theta, pol.features, V, T), R))
    return v[small], v[large]
