"""The experiments that the ``ensemble.*`` claims and the ensemble figures share.

An :class:`~proofs_check.engine.Experiment` runs trials in chunks under the engine's
seeding and is measured once per process (and stored with ``out``): a claim reads it
through ``experiment=..., reduce=...`` and a figure through
:func:`proofs_check.engine.measure`, so both see the same numbers.  The functions
that build them live with the mathematics (:mod:`.tracking`, :mod:`.regret_sweep`,
:mod:`.deep_exploration`); the settings are named here, once.

* Tracking — :data:`TRACKING_VS_M`, :data:`TRACKING_VS_D`, :data:`TRACKING_VS_T` (set-up
  :data:`TRACK_SETUP`): claims ``ensemble.tracking.*``; figures
  ``ensemble_tracking_vs_m`` and ``ensemble_tracking_vs_d_T``.
* Regret — :data:`FINITE_SWEEPS` (families :data:`SWEEP_FAMILIES`): claims
  ``ensemble.regret.finite.*``; figures ``ensemble_regret_vs_m`` and
  ``ensemble_regret_curves``.  :data:`SMALLEST_M` (grid :data:`MSTAR_GRID`):
  ``ensemble.regret.smallest_m_vs_d``; :data:`SMALLEST_M_LAW` (d-grid :data:`LAW_DS`):
  ``ensemble.regret.smallest_m_vs_d.isotonic``; :data:`ENV_SWEEPS`:
  ``ensemble.regret.{compact,contexts}.*``.
* DeepSea — :data:`DEEPSEA_STUDY` and :data:`DEEPSEA_SGD` (grid :data:`STUDY_NS`): figure
  ``deepsea``; :data:`DEEPSEA_SMALL`, :data:`DEEPSEA_EPS12`, :data:`DEEPSEA_PAIR`: claims
  ``ensemble.deepsea.*``; :data:`WINDOW`: the solve rule's window.
  Issue 23 §3 (``ensemble.md#deep-sea-laws``): :data:`DEEPSEA_CURVE` (grid :data:`CURVE_NS`):
  claims ``ensemble.deepsea.{rlsvi,hyper}.curvature``; :data:`DEEPSEA_SIGMA` (σ grid
  :data:`SIGMAS`): figure ``deepsea_sigma``; :data:`DEEPSEA_MSTAR20`: claims
  ``ensemble.deepsea.hyper.smallest_m_n20.*``; :data:`DEEPSEA_STOCH`: the stochastic variant.
"""
from __future__ import annotations

from .deep_exploration import WINDOW, deep_sea_experiment
from .deep_sea_laws import mstar_experiment
from .regret_sweep import (ENV_KINDS, MSTAR_GRID, SWEEP_FAMILIES, env_sweep, finite_sweep,
                           smallest_m_experiment, smallest_m_law_experiment)
from .tracking import tracking_experiment

__all__ = [
    # tracking
    "TRACK_SETUP", "TRACKING_VS_M", "TRACKING_VS_D", "TRACKING_VS_T",
    # regret
    "SWEEP_FAMILIES", "FINITE_SWEEPS", "MSTAR_GRID", "SMALLEST_M", "LAW_DS", "SMALLEST_M_LAW",
    "ENV_SWEEPS",
    # DeepSea
    "WINDOW", "STUDY_NS", "DEEPSEA_STUDY", "DEEPSEA_SGD", "DEEPSEA_SMALL", "DEEPSEA_EPS12",
    "DEEPSEA_PAIR", "CURVE_NS", "DEEPSEA_CURVE", "SIGMAS", "SIGMA_NS", "DEEPSEA_SIGMA",
    "DEEPSEA_MSTAR20", "DEEPSEA_STOCH",
]

# ---------------------------------------------------------------------------
# tracking (theory ensemble.md#tracking)
# ---------------------------------------------------------------------------

#: Reference set-up of the tracking runs (theory ``ensemble.md#tracking``).
TRACK_SETUP = {"d": 10, "T": 2000, "K": 100, "prior_var": 1.0, "noise_sd": 1.0}
#: sup error vs M (d = 10, T = 2000), random and Haar start on the same seeds.
TRACKING_VS_M = tracking_experiment("M", (10, 20, 40, 80, 160, 320), TRACK_SETUP,
                                    starts=("random", "haar"))
#: sup error vs d at M = 8d (T = 2000).
TRACKING_VS_D = tracking_experiment("d", (5, 10, 20, 40), {"T": 2000, "K": 100, "M_per_d": 8})
#: sup error vs T at d = 10, M = 80.
TRACKING_VS_T = tracking_experiment("T", (100, 300, 1000, 3000), {"d": 10, "M": 80, "K": 100})

# ---------------------------------------------------------------------------
# regret against exact TS (theory ensemble.md#regret)
# ---------------------------------------------------------------------------

#: The sweeps of the regret claims and figures: d ∈ {10, 50}, K = 1000, T = 2000, the full M grid.
FINITE_SWEEPS = {d: finite_sweep(d) for d in (10, 50)}
#: The experiment of ``ensemble.regret.smallest_m_vs_d``: d ∈ {4, 8, 16, 32}, K = 100, T = 500,
#: 30 repetitions per replicate and d.
SMALLEST_M = smallest_m_experiment()
#: d-grid of the isotonic smallest-M law (a factor 16 in d).
LAW_DS = (4, 8, 16, 32, 64)
#: The experiment of ``ensemble.regret.smallest_m_vs_d.isotonic``: d ∈ {4, …, 64}, K = 100,
#: T = 500, 30 lock-step repetitions of TS and every grid M per replicate and d.
SMALLEST_M_LAW = smallest_m_law_experiment(LAW_DS)
#: The environment sweeps of the ``ensemble.regret.{compact,contexts}.*`` claims:
#: d ∈ {10, 20}, T = 1000, K = 100 fresh arms per round for the contexts.
ENV_SWEEPS = {(kind, d): env_sweep(kind, d) for kind in ENV_KINDS for d in (10, 20)}

# ---------------------------------------------------------------------------
# DeepSea (theory ensemble.md#deep-sea)
# ---------------------------------------------------------------------------

#: The grid of the scaling study.
STUDY_NS = (5, 8, 12, 16, 20, 30, 40, 50)
#: The scaling study: every agent but the SGD variant on N ∈ {5 … 50}.
DEEPSEA_STUDY = deep_sea_experiment("study", agents=("rlsvi", "hyper", "bootstrap", "eps_greedy"),
                                    Ns=STUDY_NS)
#: The SGD variant beside the closed form on N ≤ 20 (the SGD sweep costs 2K·steps× more).
DEEPSEA_SGD = deep_sea_experiment("sgd", agents=("hyper", "hyper_sgd"), Ns=(5, 8, 12, 16, 20))
#: The claims' small grid (quick enough for ``report --quick``).
DEEPSEA_SMALL = deep_sea_experiment("small", agents=("rlsvi", "hyper"), Ns=(6, 8, 10, 12, 16))
#: The control: ε-greedy and exact RLSVI on common instances at N = 12.
DEEPSEA_EPS12 = deep_sea_experiment("eps12", agents=("rlsvi", "eps_greedy"), Ns=(12,))
#: HyperAgent against exact RLSVI on common instances at N = 20.
DEEPSEA_PAIR = deep_sea_experiment("pair20", agents=("rlsvi", "hyper"), Ns=(20,))
#: The curvature claims' grid (a factor 5 in N; chosen on a pilot with seeds outside the claims').
CURVE_NS = (8, 16, 24, 32, 40)
#: RLSVI and HyperAgent on :data:`CURVE_NS`.
DEEPSEA_CURVE = deep_sea_experiment("curve", agents=("rlsvi", "hyper"), Ns=CURVE_NS)
#: The agents' noise scale σ of the σ sweep (0.1 is the study's).
SIGMAS = (0.03, 0.1, 0.3, 1.0)
#: The σ sweep's grid.
SIGMA_NS = (5, 8, 12, 16)
#: RLSVI and HyperAgent at each σ (id ``ensemble.deepsea.sigma<100σ>``).
DEEPSEA_SIGMA = {s: deep_sea_experiment(f"sigma{round(100 * s):03d}", agents=("rlsvi", "hyper"),
                                        Ns=SIGMA_NS, noise_sd=s) for s in SIGMAS}
#: Exact RLSVI and HyperAgent at M = 1 and M = 6 (the largest grid M ≤ log(2N²) = 6.68) at N = 20.
DEEPSEA_MSTAR20 = mstar_experiment("mstar20", Ns=(20,), ms=(1, 6))
#: The stochastic variant (bsuite's deep_sea_stochastic) with σ = 1, the reward noise's sd.
DEEPSEA_STOCH = deep_sea_experiment("stochastic", agents=("rlsvi", "hyper"), Ns=SIGMA_NS,
                                    stochastic=True, noise_sd=1.0)
