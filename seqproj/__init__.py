"""Sequential (adaptive, martingale) random projections and linear Ensemble++.

Public API of the sequential random projection part (spec ``seqproj.md``):
column families, adversaries, the full and the exact reduced simulators,
dimension bounds and time-uniform boundaries, and the one-call checks
:func:`check_coverage` / :func:`empirical_min_dim`.  Claims live in
:mod:`seqproj.claims` (imported by the registry, not here).
"""
from .adversaries import ADVERSARIES, PREDICTABLE, Adversary, adversary, require_predictable
from .bounds import (anytime_jl_eps, fixed_vector_jl_failure_bound, fixed_vector_jl_min_dim,
                     normal_mixture_bound, normal_mixture_rho, self_normalized_bound,
                     sequential_jl_eps, sequential_jl_min_dim, sklearn_jl_min_dim,
                     union_bound_jl_min_dim)
from .check import MinDimResult, check_coverage, count_events, empirical_min_dim
from .columns import FAMILIES, ColumnFamily, column_family, sample_columns
from .reduced import check_reduced_supported, simulate_reduced
from .simulate import PathStats, simulate_full, simulate_inner_product, simulate_lookahead

__all__ = [
    "ADVERSARIES", "PREDICTABLE", "Adversary", "adversary", "require_predictable",
    "anytime_jl_eps", "fixed_vector_jl_failure_bound", "fixed_vector_jl_min_dim",
    "normal_mixture_bound", "normal_mixture_rho", "self_normalized_bound", "sequential_jl_eps",
    "sequential_jl_min_dim", "sklearn_jl_min_dim", "union_bound_jl_min_dim",
    "MinDimResult", "check_coverage", "count_events", "empirical_min_dim",
    "FAMILIES", "ColumnFamily", "column_family", "sample_columns",
    "check_reduced_supported", "simulate_reduced",
    "PathStats", "simulate_full", "simulate_inner_product", "simulate_lookahead",
]
