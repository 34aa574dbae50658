r"""Monte Carlo twins of the exact estimator claims (theory ``mismatch.md#estimators-mc``; issue 15).

The ``mismatch.identity.seq_is_unbiased`` / ``mis_bias`` and ``mismatch.estimator.*`` claims
compute every mean and variance exactly by enumeration.  Here the same estimators are *sampled*
(``y ∼ μ``, per-token log-probs only, :func:`~.estimators.estimator_samples`) through the engine's
chunked Monte Carlo path, on one fixed policy pair whose exact moments fix the thresholds in
advance, so the sampled verdicts are known:

* naive ``f(y)`` is biased: ``E⟨e, ĝ_naive − g⟩ = ‖b_naive‖`` (``e = b_naive/‖b_naive‖``);
* sequence IS is unbiased: ``E⟨e, ĝ_IS − g⟩ = 0``, checked as an equivalence (two one-sided
  claims, margin ``½‖b_naive‖``);
* sequence MIS has bias ``−E_π[f 1{ρ > C}]``: ``E⟨e', ĝ_MIS − g⟩ − ⟨e', b_formula⟩ = 0``
  (``e' = b_formula/‖b_formula‖``), equivalence with margin ``½‖b_formula‖``;
* sequence TIS has smaller per-sample MSE than sequence IS: ``E[‖ĝ_TIS − g‖² − ‖ĝ_IS − g‖²] < 0``.

The pair (:data:`MC_CASE`): V = 2, T = 6, a linear-softmax trainer with d = 3 shared parameters
(features of ``LinearSoftmaxPolicy.random(2, 6, 3, 7)``) and a sampler offset, drawn by
:func:`~.pairs.sample_linear` with seed 5 — the first seed in 0, 1, … whose exact moments have
``1 ≤ χ²_seq ≤ 2`` (truncation matters, yet sequence IS has a usable Monte Carlo variance) and
``‖b_naive‖ ≥ ¼ sd(naive)`` (the bias is visible at a few thousand samples); a rule on exact
moments, not on any sample.  The samples are the experiment :data:`~.experiments.ESTIMATOR_MC`.
"""
from __future__ import annotations

import functools
from collections.abc import Mapping

import numpy as np

from ..engine import as_generator, check_choice, check_finite_array, check_int, check_real, shown
from ..policies import sample_responses, sequence_log_probs
from .estimators import estimator_moments, estimator_samples, estimator_values
from .pairs import linear_from_flat, sample_linear

__all__ = ["MC_CASE", "MC_ESTIMATORS", "mc_case", "ExactTargets", "exact_targets", "estimator_mc_trials",
           "projected_error", "squared_error_gap"]

#: The fixed pair of the Monte Carlo claims (selection rule in the module docstring).
MC_CASE = {"V": 2, "T": 6, "d": 3, "feature_seed": 7, "point_seed": 5, "C": 2.0}
#: The sampled estimators.
MC_ESTIMATORS = ("naive", "seq_is", "seq_tis", "seq_mis")


def mc_case(*, V=2, T=6, d=3, feature_seed=7, point_seed=5, C=2.0):
    """``(lin, mu, R)``: the point ``sample_linear(default_rng(point_seed))`` of
    :func:`~.pairs.linear_from_flat` (``C`` is not used here; it is part of the case)."""
    V = check_int("V", V, lo=2, hi=4)
    T = check_int("T", T, lo=1, hi=8)
    d = check_int("d", d, lo=1, hi=16)
    point_seed = check_int("point_seed", point_seed, lo=0)
    feature_seed = check_int("feature_seed", feature_seed, lo=0)
    check_real("C", C, lo=1.0, hi=1e6, lo_open=True)
    theta = sample_linear(np.random.default_rng(point_seed), V=V, T=T, d=d)
    return linear_from_flat(theta, V, T, d, feature_seed)


class ExactTargets:
    """Exact quantities of a case by enumeration: target ``g``, the naive bias ``b_naive``, the
    MIS bias formula ``−E_π[f 1{ρ > C}]``, per-estimator exact bias/variance/MSE, ``K = max‖f‖``,
    ``ρ_max``."""

    def __init__(self, lin, mu, R, C):
        g, mom = estimator_moments(mu, lin, R, C=C, C_hi=max(2.0, C))
        f = estimator_values(mu, lin, R, C=C, C_hi=max(2.0, C))["naive"]
        lpi = sequence_log_probs(lin.tabular())
        rho = np.exp(lpi - sequence_log_probs(mu))
        self.g = g
        self.moments = mom
        self.b_naive = mom["naive"].bias
        self.b_mis_formula = -(np.exp(lpi) * (rho > C)) @ f
        self.K = float(np.linalg.norm(f, axis=1).max())
        self.rho_max = float(rho.max())
        self.C = float(C)


@functools.lru_cache(maxsize=8)
def _targets(V, T, d, feature_seed, point_seed, C):
    lin, mu, R = mc_case(V=V, T=T, d=d, feature_seed=feature_seed, point_seed=point_seed, C=C)
    return ExactTargets(lin, mu, R, C)


def exact_targets(**case) -> ExactTargets:
    """:class:`ExactTargets` of the case (keywords of :func:`mc_case`; cached)."""
    full = {**MC_CASE, **case}
    unknown = sorted(set(full) - set(MC_CASE))
    if unknown:
        raise TypeError(f"unknown case keyword(s) {unknown}; allowed {sorted(MC_CASE)}")
    mc_case(**full)  # validates
    return _targets(*(full[k] for k in ("V", "T", "d", "feature_seed", "point_seed", "C")))


def estimator_mc_trials(rng, n, *, V=2, T=6, d=3, feature_seed=7, point_seed=5, C=2.0) -> dict:
    """``n`` responses ``y ∼ μ`` of the case and every estimator of :data:`MC_ESTIMATORS` on each,
    from per-token log-probs (:func:`~.estimators.estimator_samples`): name → ``(n, d)``."""
    rng = as_generator(rng)
    n = check_int("n", n, lo=1, hi=1_000_000)
    lin, mu, R = mc_case(V=V, T=T, d=d, feature_seed=feature_seed, point_seed=point_seed, C=C)
    y = sample_responses(mu, n, rng)
    vals = estimator_samples(mu, lin, R, y, C=C, C_hi=max(2.0, C))
    return {k: vals[k] for k in MC_ESTIMATORS}


def _values(stats, name):
    if not isinstance(stats, Mapping):
        raise TypeError(f"stats must be a mapping of statistics (a dict), got {shown(stats)}")
    check_choice("name", name, MC_ESTIMATORS)
    if name not in stats:
        raise ValueError(f"stats lacks the statistic {name!r}")
    return check_finite_array(f"stats[{name!r}]", stats[name], ndim=2)


def projected_error(stats, *, name: str, direction: str, offset: str = "none") -> np.ndarray:
    """Per sample ``⟨e, ĝ_name(y) − g⟩ − o`` on :data:`MC_CASE`, with ``e`` the unit vector of
    ``direction`` (``"naive_bias"``: ``b_naive``; ``"mis_formula"``: ``−E_π[f 1{ρ > C}]``) and
    ``o = ⟨e, b_formula⟩`` for ``offset="mis_formula"``, ``o = 0`` for ``"none"``."""
    v = _values(stats, name)
    check_choice("direction", direction, ("naive_bias", "mis_formula"))
    check_choice("offset", offset, ("none", "mis_formula"))
    tg = exact_targets()
    b = tg.b_naive if direction == "naive_bias" else tg.b_mis_formula
    e = b / np.linalg.norm(b)
    o = float(e @ tg.b_mis_formula) if offset == "mis_formula" else 0.0
    if v.shape[1] != e.size:
        raise ValueError(f"stats[{name!r}] must have {e.size} columns, got shape {v.shape}")
    return (v - tg.g[None, :]) @ e - o


def squared_error_gap(stats, *, a: str, b: str) -> np.ndarray:
    """Per sample ``‖ĝ_a(y) − g‖² − ‖ĝ_b(y) − g‖²`` on :data:`MC_CASE`."""
    va, vb = _values(stats, a), _values(stats, b)
    g = exact_targets().g
    if va.shape != vb.shape or va.shape[1] != g.size:
        raise ValueError(f"stats[{a!r}] and stats[{b!r}] must both have shape (n, {g.size}), got "
                         f"{va.shape} and {vb.shape}")
    return ((va - g) ** 2).sum(axis=1) - ((vb - g) ** 2).sum(axis=1)
