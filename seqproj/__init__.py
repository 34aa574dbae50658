"""Sequential (adaptive, martingale) random projections: the sequential JL lemma, checked.

Public API (theory: ``docs/theory/seqproj.md``): column families, adversaries, the protocol's
parameters and path statistics, the full, look-ahead, inner-product and exact
reduced simulators, per-trial events as engine experiments, dimension bounds
and time-uniform boundaries, and the one-call checks :func:`check_coverage` /
:func:`empirical_min_dim`.  Claims live in :mod:`seqproj.claims` (found by
the engine through the ``theorycheck.claims`` entry point, not imported
here); linear Ensemble++ is the subpackage :mod:`seqproj.ensemble`.

Modules: ``columns`` (column laws), ``adversaries`` (coefficient rules),
``rng`` (counter-based generator), ``protocol`` (setup, path statistics),
``bookkeeping`` (the per-step update shared by both kernels), ``kernels``
(numba kernels + NumPy references), ``simulate`` / ``reduced`` /
``lookahead`` / ``inner_product`` (drivers), ``events`` (chunk functions and
experiments), ``bounds``, ``check``; ``experiments`` names the experiments (and the setting
ε, δ, T) that the claims and the figures share.

Validate once: :func:`simulation_setup` checks a configuration and returns its frozen
:class:`SimSetup`; the ``*_setup`` run functions (``f(rng, n, *, setup)``) take it, so an
experiment binds it with :func:`functools.partial` and no chunk rebuilds it.
"""
from .adversaries import ADVERSARIES, PREDICTABLE, Adversary, adversary, require_predictable
from .bookkeeping import PathBook
from .bounds import (anytime_jl_eps, fixed_vector_jl_failure_bound, fixed_vector_jl_min_dim,
                     normal_mixture_bound, normal_mixture_rho, self_normalized_bound,
                     sequential_jl_eps, sequential_jl_min_dim, sklearn_jl_min_dim,
                     union_bound_jl_min_dim)
from .check import MinDimResult, check_coverage, empirical_min_dim
from .columns import FAMILIES, ColumnFamily, column_family, columns_from_normals, sample_columns
from .events import (EVENTS, choose_simulator, count_events, count_true, inner_product_events,
                     path_events, path_experiment, simulate_paths, simulation_setup, tail_difference)
from .inner_product import simulate_inner_product
from .lookahead import simulate_lookahead
from .protocol import PathStats, SimSetup, make_setup
from .reduced import (check_reduced_supported, exit_times_reduced_setup, simulate_reduced,
                      simulate_reduced_setup)
from .simulate import exit_times_full_setup, simulate_full, simulate_full_setup
from .worst_case import WorstCase, worst_case_min_dim, worst_case_refined, worst_case_value

__all__ = [
    "ADVERSARIES", "PREDICTABLE", "Adversary", "adversary", "require_predictable",
    "PathBook",
    "anytime_jl_eps", "fixed_vector_jl_failure_bound", "fixed_vector_jl_min_dim",
    "normal_mixture_bound", "normal_mixture_rho", "self_normalized_bound", "sequential_jl_eps",
    "sequential_jl_min_dim", "sklearn_jl_min_dim", "union_bound_jl_min_dim",
    "MinDimResult", "check_coverage", "empirical_min_dim",
    "FAMILIES", "ColumnFamily", "column_family", "columns_from_normals", "sample_columns",
    "EVENTS", "choose_simulator", "count_events", "count_true", "inner_product_events",
    "path_events", "path_experiment", "simulate_paths", "simulation_setup", "tail_difference",
    "simulate_inner_product", "simulate_lookahead",
    "PathStats", "SimSetup", "make_setup",
    "check_reduced_supported", "simulate_reduced", "simulate_reduced_setup", "exit_times_reduced_setup",
    "simulate_full", "simulate_full_setup", "exit_times_full_setup",
    "WorstCase", "worst_case_refined", "worst_case_min_dim", "worst_case_value",
]
