"""Linear Ensemble++ / HyperAgent (theory page ``docs/theory/ensemble.md``).

Modules, each named after what it computes:

* :mod:`.index_families` — index ζ and perturbation z laws;
* :mod:`.posterior_factor` — :class:`LinearEnsemblePP`, the incremental
  posterior mean and factor (and the Haar start :func:`haar_rows`);
* :mod:`.batch_posterior` — the batch solutions it must reproduce (ridge
  posterior, classic ensemble sampling);
* :mod:`.hypermodel` — HyperAgent's :class:`LinearHypermodel` trained by (S)GD;
* :mod:`.tracking` — the tracking error ‖Σ^{-1/2}AAᵀΣ^{-1/2} − I‖ and its
  supremum under adaptive play (the whitening by Σ in :mod:`.whitening`);
* :mod:`.diagnosis` — what went wrong, in words (:func:`diagnose_factor`,
  :func:`checked_cholesky`, :func:`anticoncentration`);
* :mod:`.equivalences`, :mod:`.failure_modes` — random cases of the
  equivalences and of the failure modes (chunk functions of the claims);
* :mod:`.environments`, :mod:`.agents`, :mod:`.cholesky_update`,
  :mod:`.bandits` — linear bandits, agent specifications, the rank-one
  Cholesky kernels of exact TS, the lock-step simulator and runner
  (:mod:`.run_setup`: the set-up it shares with the fused simulators of
  :mod:`.fused_round` and :mod:`.cholesky_update`);
* :mod:`.regret_sweep` — the finite-arm regret sweep as an experiment, and
  the smallest ensemble size within 10% of TS;
* :mod:`.deepsea`, :mod:`.deep_agents` (kernels in :mod:`.deep_kernels`),
  :mod:`.deep_exploration` — DeepSea(N), tabular RLSVI / HyperAgent /
  bootstrapped ensemble / ε-greedy, and the deep-exploration study;
  :mod:`.deep_sea_laws` — its local exponents, curvature and smallest index dimension;
* :mod:`.experiments` — the experiments that claims and figures share.

This package exports the mathematical objects and the functions a user calls
(``__all__`` below).  The claims' chunk functions and reductions, the numba
kernels and the experiments stay in their modules: import them from there.

Claims live in :mod:`.claims` (a package by family), loaded by the registry
through the ``theorycheck.claims`` entry point — never imported from here.
"""
from .agents import EnsemblePP, EnsembleSampling, ExactTS, Greedy, LinUCB
from .bandits import BanditResult, cumulative_regrets, run_bandit, simulate_reference, simulate_repetition
from .batch_posterior import ensemble_sampling_members, ridge_posterior
from .deep_agents import (RLSVI, BootstrappedEnsemble, EpsilonGreedy, HyperAgent, clark_max,
                          hyper_closed_form, rlsvi_row_posterior)
from .deep_exploration import (ExponentFit, bsuite_learning_time, budget, deep_sea_experiment,
                               episodes_to_solve, fit_exponent, fit_median_exponent, index_dim, make_agent,
                               run_deep_sea, step_times)
from .deep_sea_laws import (Curvature, LocalExponent, curvature, local_exponents, mstar_log_slope,
                            smallest_m_table)
from .deepsea import DeepSea, optimal_return
from .diagnosis import (FactorDiagnosis, anticoncentration, checked_cholesky, default_tracking_threshold,
                        diagnose_factor)
from .environments import ChangingContextEnv, FiniteArmEnv, SphereEnv
from .hypermodel import LinearHypermodel
from .index_families import (INDEX_FAMILIES, PERTURBATION_FAMILIES, sample_index, sample_perturbation,
                             sample_rows)
from .posterior_factor import LinearEnsemblePP, haar_rows
from .regret_sweep import (RegretSweep, SmallestM, env_sweep, env_sweep_ms, family_label, finite_sweep,
                           isotonic_nonincreasing, smallest_m_experiment, smallest_m_isotonic,
                           smallest_m_on_grid, smallest_m_within, sweep_agents, sweep_ms)
from .tracking import sup_tracking_error, tracking_error, tracking_experiment

__all__ = [
    # the posterior factor of Ensemble++, the batch solutions it reproduces, HyperAgent
    "LinearEnsemblePP", "haar_rows", "ridge_posterior", "ensemble_sampling_members", "LinearHypermodel",
    # index and perturbation laws
    "INDEX_FAMILIES", "PERTURBATION_FAMILIES", "sample_index", "sample_perturbation", "sample_rows",
    # tracking error and diagnosis
    "tracking_error", "sup_tracking_error", "FactorDiagnosis", "diagnose_factor",
    "default_tracking_threshold", "checked_cholesky", "anticoncentration",
    # linear bandits: environments, agents, simulators
    "FiniteArmEnv", "SphereEnv", "ChangingContextEnv",
    "ExactTS", "EnsemblePP", "EnsembleSampling", "LinUCB", "Greedy",
    "simulate_repetition", "simulate_reference", "cumulative_regrets", "run_bandit", "BanditResult",
    # regret against TS: sweeps and the smallest ensemble size
    "sweep_ms", "sweep_agents", "family_label", "finite_sweep", "RegretSweep", "SmallestM",
    "smallest_m_within", "smallest_m_on_grid", "smallest_m_experiment", "env_sweep", "env_sweep_ms",
    "isotonic_nonincreasing", "smallest_m_isotonic",
    # tracking experiments
    "tracking_experiment",
    # DeepSea: environment, agents, the deep-exploration study
    "DeepSea", "optimal_return", "RLSVI", "HyperAgent", "BootstrappedEnsemble", "EpsilonGreedy",
    "clark_max", "rlsvi_row_posterior", "hyper_closed_form",
    "index_dim", "budget", "make_agent", "episodes_to_solve", "run_deep_sea", "deep_sea_experiment",
    "ExponentFit", "fit_exponent", "fit_median_exponent", "step_times", "bsuite_learning_time",
    "LocalExponent", "local_exponents", "Curvature", "curvature", "smallest_m_table", "mstar_log_slope",
]
