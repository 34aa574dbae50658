"""Baselines for REINFORCE on sequences: the optimal token baseline (OTB), its
relatives, logit dynamics and divergence augmentation (theory page
``docs/theory/baselines.md``).

Modules, by mathematical object:

* :mod:`.otb` — the OTB group estimator on padded batches: fused numba kernel,
  NumPy reference, per-token loop;
* :mod:`.group` — group mean, leave-one-out, the group estimate of ``b*``;
* :mod:`.population` — the exact population model (every response enumerated)
  and the per-position baselines' exact variances; :mod:`.population_mp` its
  mpmath twin;
* :mod:`.moments` — exact finite-group moments (bias, MSE) by enumerating
  ``N``-tuples;
* :mod:`.proxy` — the logit-gradient proxy against its definition and the true
  energy; :mod:`.logit_dynamics` — one policy-gradient step on the logits;
* :mod:`.instances` — small random instances as flat vectors (worst-case search
  domains); :mod:`.ragged` — random ragged batches;
* :mod:`.dapo` — the trajectory KL, its gradient and the truncated-IS
  accumulation of a per-step divergence;
* :mod:`.toy` — the toy problem (a counting task trained by REINFORCE);
  :mod:`.toy_sweeps` — the toy over many seeds;
* :mod:`.experiments` — the experiments that claims and figures share.

This package exports the estimators, the exact models and the functions a user
calls (``__all__`` below); the claims' case generators, chunk functions and
reductions, the search-domain helpers of :mod:`.instances` and the experiments
stay in their modules: import them from there.

Claims live in :mod:`.claims` (a package, one module per family), loaded by the
registry through the ``theorycheck.claims`` entry point, never from here.
"""
from .dapo import (discounted_reward_to_go, kl_gradient_complex_step, kl_gradient_reward_to_go,
                   per_decision_is_check, trajectory_kl, trajectory_kl_chain, transcribed_accumulation,
                   truncated_is_accumulation)
from .experiments import group_mse_experiment, toy_pair_experiment
from .group import global_bstar_advantage, group_mean_advantage, rloo_advantage
from .moments import GROUP_KINDS, GroupMoments, group_estimator_moments
from .otb import optimal_token_baseline_advantage, otb_advantage_loop, otb_advantage_numpy
from .population import (POPULATION_KINDS, ExactModel, PopulationComparison, compare_population_baselines,
                         exact_model, population_baselines, population_variances)
from .population_mp import linear_model_mp, population_variances_mp, tabular_model_mp
from .proxy import dense_tabular_scores, proxy_correlation
from .ragged import ragged_batch
from .toy import (TOY_KINDS, CountTask, TrainResult, advantages, batch_gradients, checkpoints, exact_return,
                  gradient_variance, gradient_variance_estimate, policy_gradient, sample_batch, train)
from .toy_sweeps import best_lr_comparison, diff_interval, learning_auc, mean_interval, sweep_summary

__all__ = [
    # the OTB group estimator on padded batches (kernel, NumPy reference, per-token loop)
    "optimal_token_baseline_advantage", "otb_advantage_numpy", "otb_advantage_loop", "ragged_batch",
    # group estimators
    "group_mean_advantage", "rloo_advantage", "global_bstar_advantage",
    # the exact population model and the per-position baselines' variances (float64, mpmath)
    "ExactModel", "exact_model", "POPULATION_KINDS", "population_baselines", "population_variances",
    "PopulationComparison", "compare_population_baselines",
    "tabular_model_mp", "linear_model_mp", "population_variances_mp",
    # exact finite-group moments
    "GROUP_KINDS", "GroupMoments", "group_estimator_moments",
    # the logit-gradient proxy
    "dense_tabular_scores", "proxy_correlation",
    # DAPO: trajectory KL, its gradient, the truncated-IS accumulation
    "trajectory_kl", "trajectory_kl_chain", "kl_gradient_reward_to_go", "kl_gradient_complex_step",
    "truncated_is_accumulation", "transcribed_accumulation", "discounted_reward_to_go",
    "per_decision_is_check",
    # the toy problem trained by REINFORCE, and summaries over seeds
    "CountTask", "TOY_KINDS", "exact_return", "sample_batch", "advantages", "policy_gradient",
    "TrainResult", "checkpoints", "train", "batch_gradients", "gradient_variance",
    "gradient_variance_estimate",
    "sweep_summary", "mean_interval", "diff_interval", "learning_auc", "best_lr_comparison",
    # experiments of the shapes claims and figures use
    "toy_pair_experiment", "group_mse_experiment",
]
