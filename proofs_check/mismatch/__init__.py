"""Training–inference mismatch and trust region masking (spec ``mismatch.md``).

Submodules, named after the mathematics:

* :mod:`.decomposition` — gain = tangent − Δ, performance-difference form,
  worst-case reward, the ``E|ρ_t − 1| = 2 D̄_t`` and future-TV identities.
* :mod:`.bounds` — the trust-region bounds of §5 (:func:`trm_bounds`).
* :mod:`.tilt` — i.i.d.-tilt closed forms (T up to thousands) and structured
  count-state tilts for the horizon-scaling question.
* :mod:`.estimators` — the gradient estimators of §3, exact moments and
  Monte Carlo.
* :mod:`.masks` — TRM-max/avg, proxies, length-neutral, MIS, geometric; the
  masked gradient; exact proxy acceptance.
* :mod:`.monitoring` — monitoring statistics (§3) and the veRL per-token /
  per-sequence statistics and rejection rules (§7).
"""
from .bounds import (BOUND_KEYS, RemainderCheck, pm_kl_closed_form, remainder_vs_bounds, trm_bounds,
                     trm_bounds_from_policies)
from .decomposition import (PerformanceDifference, TRMDecomposition, WorstCase, abs_ratio_identity,
                            future_tv_identity, performance_difference, remainder_coefficients,
                            tangent_per_sequence, trm_decomposition, worst_case_reward)

__all__ = [
    "BOUND_KEYS", "RemainderCheck", "remainder_vs_bounds", "trm_bounds", "trm_bounds_from_policies", "pm_kl_closed_form",
    "TRMDecomposition", "trm_decomposition", "PerformanceDifference", "performance_difference",
    "remainder_coefficients", "WorstCase", "worst_case_reward", "future_tv_identity",
    "abs_ratio_identity", "tangent_per_sequence",
]
