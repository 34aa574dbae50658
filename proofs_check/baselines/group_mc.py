r"""Monte Carlo twins of the exact group-estimator bias claims (theory
``baselines.md#group-estimators-mc``; issue 15).

``baselines.bias.group_mean`` and ``baselines.bias.rloo`` compute ``E ĝ`` exactly by enumerating
every N-tuple.  Here groups of ``N`` responses are *sampled* from one fixed tabular instance
(:data:`MC_INSTANCE`), their advantages computed by the batch implementations
(:func:`~.group.group_mean_advantage`, :func:`~.group.rloo_advantage` on padded
``token_rewards``/``response_mask``/``group_ids`` arrays, as a trainer would call them), and the
gradient estimate ``ĝ = (1/N) Σ_i Σ_t A^i_t s_t(y_i)`` is projected on ``e = g/‖g‖``:

.. math::  u = \langle \hat g, e\rangle / \lVert g\rVert = \frac{1}{N\lVert g\rVert^2}
           \sum_i \sum_t A^i_t \langle s_t(y_i), g\rangle ,

whose exact mean is ``(N − 1)/N`` for the self-inclusive group mean and ``1`` for leave-one-out
(DERIVED, outcome reward).  The claims check ``E u`` against these values as equivalences
(two one-sided claims each, margin ``1/(2N)``, half the gap between the two values), through the
engine's chunked sampling path (the experiment :data:`~.experiments.GROUP_MC`).
"""
from __future__ import annotations

import functools
from collections.abc import Mapping

import numpy as np

from proofs_check.engine import as_generator, check_choice, check_finite_array, check_int, shown
from proofs_check.policies import TabularPolicy

from .group import group_mean_advantage, rloo_advantage
from .population import exact_model

__all__ = ["MC_INSTANCE", "mc_instance", "group_projection_trials", "projection_minus"]

#: The fixed instance: tabular V = 2, T = 3, logit scale 1.5, rewards U[0, 1] per response,
#: drawn from ``default_rng(seed)`` exactly as the exact claims draw theirs; group size N = 4.
MC_INSTANCE = {"V": 2, "T": 3, "seed": 0, "N": 4}


@functools.lru_cache(maxsize=4)
def _model(V, T, seed):
    rng = np.random.default_rng(seed)
    return exact_model(TabularPolicy.random(V, T, rng, scale=1.5), rng.random(V ** T))


def mc_instance(*, V=2, T=3, seed=0):
    """``(model, g_norm², h)``: the :class:`~.population.ExactModel`, ``‖g‖²`` and
    ``h[y, t] = ⟨s_t(y), g⟩`` of the fixed instance (cached)."""
    V = check_int("V", V, lo=2, hi=4)
    T = check_int("T", T, lo=1, hi=6)
    seed = check_int("seed", seed, lo=0)
    m = _model(V, T, seed)
    Rfull = np.repeat(m.R[:, None], T, axis=1)
    g = m.mean_gradient(Rfull)
    return m, m.sq_norm(g), m.inner_with(g)


def group_projection_trials(rng, n, *, V=2, T=3, seed=0, N=4) -> dict:
    """``n`` independent groups of ``N`` responses ``y ∼ π`` of the fixed instance; per group the
    normalised projection ``u`` for the group mean (``mean``) and leave-one-out (``rloo``)
    advantages computed by the batch implementations.  Returns ``{kind: (n,)}``."""
    rng = as_generator(rng)
    n = check_int("n", n, lo=1, hi=1_000_000)
    N = check_int("N", N, lo=2, hi=64)
    m, g2, h = mc_instance(V=V, T=T, seed=seed)
    idx = rng.choice(m.n_seq, size=n * N, p=m.P / m.P.sum())           # (n·N,) sequences
    tr = np.zeros((n * N, T))
    tr[:, -1] = m.R[idx]                                               # outcome reward at the end
    mask = np.ones((n * N, T))
    gid = np.repeat(np.arange(n), N)
    out = {}
    for kind, fn in (("mean", group_mean_advantage), ("rloo", rloo_advantage)):
        A, _ = fn(tr, mask, gid)
        per = (A * h[idx]).sum(axis=1)                                 # Σ_t A_t ⟨s_t(y_i), g⟩
        out[kind] = per.reshape(n, N).sum(axis=1) / (N * g2)
    return out


def projection_minus(stats, *, kind: str, value: str) -> np.ndarray:
    """Per group ``u_kind − v`` with ``v = (N − 1)/N`` (``value="shrunk"``) or ``1``
    (``value="one"``), ``N`` of :data:`MC_INSTANCE`."""
    if not isinstance(stats, Mapping):
        raise TypeError(f"stats must be a mapping of statistics (a dict), got {shown(stats)}")
    check_choice("kind", kind, ("mean", "rloo"))
    check_choice("value", value, ("shrunk", "one"))
    if kind not in stats:
        raise ValueError(f"stats lacks the statistic {kind!r}")
    u = check_finite_array(f"stats[{kind!r}]", stats[kind], ndim=1)
    N = MC_INSTANCE["N"]
    return u - ((N - 1) / N if value == "shrunk" else 1.0)
