"""Training–inference mismatch and trust region masking; the theory is ``docs/theory/mismatch.md``.

Library modules, named after the mathematics (their public names are re-exported here):

* :mod:`.decomposition` — gain = tangent − Δ, performance-difference form,
  worst-case reward, the ``E|ρ_t − 1| = 2 D̄_t`` and future-TV identities.
* :mod:`.bounds` — the trust-region bounds (:func:`trm_bounds`);
  :mod:`.bounds_mp` — the same bounds and the worst-case remainder in mpmath
  (the second implementation that confirms float64 violations).
* :mod:`.tilt` — i.i.d.-tilt closed forms (T up to thousands) and structured
  count-state tilts for the horizon-scaling question.
* :mod:`.estimators` — the gradient estimators, exact moments and Monte Carlo.
* :mod:`.masks` — TRM-max/avg, proxies, length-neutral, MIS, geometric; the
  masked gradient; exact proxy acceptance.
* :mod:`.monitoring` — monitoring statistics and the veRL per-token /
  per-sequence statistics and rejection rules.
* :mod:`.staleness` — the tabular SGD toy of the update-size section.

Modules that build the checks (used by the claims, figures, notebook and bench;
import them by module path):

* :mod:`.pairs` — random policy pairs, constructions and flat encodings;
* :mod:`.cases` — the identity case generators ``(lhs, rhs, scale)``;
* :mod:`.inequalities` — every inequality as ``point ↦ (lhs, rhs)``;
* :mod:`.horizon` — horizon-scaling curves; :mod:`.update_size` — the
  staleness toy's runs; :mod:`.trm_oracle` — the independent TRM oracle;
* :mod:`.lr_schedule` — the variable-length toy of the length-triggered LR
  decay (issue 23): sampler with a state-dependent error and bf16 rounding,
  schedules, trigger, the trials and the sensitivity table;
* :mod:`.experiments` — the experiments that claims and figures share.

The claims (``mismatch.*``) are registered by :mod:`.claims`, which nothing
outside it imports.
"""
from .bounds import (BOUND_KEYS, RemainderCheck, pm_kl_closed_form, remainder_vs_bounds, trm_bounds,
                     trm_bounds_from_policies)
from .bounds_mp import iid_tilt_worst_case_mp, tabular_worst_case_mp, trm_bounds_mp
from .decomposition import (PerformanceDifference, TRMDecomposition, WorstCase, abs_ratio_identity,
                            future_tv_identity, performance_difference, remainder_coefficients,
                            tangent_per_sequence, trm_decomposition, worst_case_reward)
from .estimators import (ESTIMATORS, EstimatorMoments, check_thresholds, estimator_moments, estimator_samples,
                         estimator_values, length_trap_horizon)
from .masks import (ProxyAcceptance, check_padded, geometric_mask, k2_max_mask, k3_mean_mask, length_neutral_mask,
                    length_neutral_weights, masked_gradient, proxy_acceptance, sequence_mis_mask, trm_acceptance,
                    trm_avg_mask, trm_max_mask)
from .monitoring import (RS_OPTIONS, MonitoringStats, monitoring_statistics, parse_k1_threshold, verl_is_weights,
                         verl_rejection_mask, verl_statistics)
from .staleness import SGDTrace, bf16_round, exact_gradient, fisher_quadratic, run_sgd, sampled_gradient, staleness_kl
from .tilt import STATE_TILT_RULES, TiltResult, compositions, count_state_tilt, iid_tilt_worst_case

__all__ = [
    # bounds
    "BOUND_KEYS", "RemainderCheck", "remainder_vs_bounds", "trm_bounds", "trm_bounds_from_policies",
    "pm_kl_closed_form", "trm_bounds_mp", "tabular_worst_case_mp", "iid_tilt_worst_case_mp",
    # decomposition
    "TRMDecomposition", "trm_decomposition", "PerformanceDifference", "performance_difference",
    "remainder_coefficients", "WorstCase", "worst_case_reward", "future_tv_identity",
    "abs_ratio_identity", "tangent_per_sequence",
    # estimators
    "ESTIMATORS", "EstimatorMoments", "estimator_values", "estimator_moments", "estimator_samples",
    "check_thresholds", "length_trap_horizon",
    # masks
    "check_padded", "trm_max_mask", "trm_avg_mask", "k2_max_mask", "k3_mean_mask", "length_neutral_weights",
    "length_neutral_mask", "sequence_mis_mask", "geometric_mask", "masked_gradient", "ProxyAcceptance",
    "proxy_acceptance", "trm_acceptance",
    # monitoring
    "MonitoringStats", "monitoring_statistics", "verl_statistics", "RS_OPTIONS", "parse_k1_threshold",
    "verl_rejection_mask", "verl_is_weights",
    # staleness
    "exact_gradient", "sampled_gradient", "bf16_round", "SGDTrace", "run_sgd", "staleness_kl", "fisher_quadratic",
    # tilt
    "TiltResult", "iid_tilt_worst_case", "count_state_tilt", "STATE_TILT_RULES", "compositions",
]
