"""The experiments of the mismatch topic: what the claims reduce and the figures plot.

An :class:`~proofs_check.engine.Experiment` runs trials in chunks under the
engine's seeding and is measured once per process (and stored with ``out``):
a claim reads it through ``experiment=..., reduce=...`` and a figure through
:func:`proofs_check.engine.measure`, so both see the same numbers.  The trial
functions live with the mathematics (:mod:`.update_size`, :mod:`.trm_oracle`,
:mod:`.tightness`, :mod:`.estimator_mc`, :mod:`.ppo_clip`); the experiments are
named here, once, with the settings they share.

* :data:`NOISE_K`, :data:`NOISE_B`, :data:`SAMPLER_KL` — the staleness toy
  (:data:`TOY`, grids :data:`K_GRID`, :data:`B_GRID`): claims
  ``mismatch.scaling.staleness_noise_*`` and
  ``mismatch.staleness.smaller_step_less_mismatch``; figure ``mismatch_staleness``.
* :data:`TRM_PATHS` — fresh ``low_prob`` pairs and one response per trial: claims
  ``mismatch.trm.*``; the proxy panel of the figure ``mismatch_trm_acceptance``.
* :data:`TIGHTNESS` — random pairs of the shapes :data:`TIGHTNESS_SHAPES`: the figure
  ``mismatch_tightness``.
* :data:`ESTIMATOR_MC` — samples of the estimators on the fixed pair :data:`MC_CASE`:
  claims ``mismatch.mc.*``.
* :data:`PPO_PATHS` — fresh ``low_prob`` pairs, one response and a uniform reward per
  trial: claims ``mismatch.ppo_clip.*``.
* :data:`BATCH_GAP`, :data:`BATCH_BREAK` — the gap along ``B`` under the batch-size-invariant rule
  and the naive rules (:mod:`.batch_rule`): claims ``mismatch.batch_rule.*``.
"""
from __future__ import annotations

import functools

from ..engine import Experiment
from ..policies import GENERATORS
from .estimator_mc import MC_CASE, estimator_mc_trials
from .lr_schedule import REWARD_TOL, TAU_FACTOR, TOY_LR, TRIGGER, lr_schedule_trials
from .ppo_clip import ppo_path_trials
from .tightness import TIGHTNESS_SHAPES, tightness_trials
from .trm_oracle import trm_path_trials
from .update_size import B_GRID, K_GRID, TOY, noise_B_trials, noise_k_trials, sampler_kl_trials

__all__ = [
    # staleness (the update-size toy)
    "TOY", "K_GRID", "B_GRID", "NOISE_K", "NOISE_B", "SAMPLER_KL",
    # trust region masking
    "TRM_PATHS",
    # tightness of the unified bound at random pairs
    "TIGHTNESS_SHAPES", "TIGHTNESS",
    # Monte Carlo twins of the exact estimator claims
    "MC_CASE", "ESTIMATOR_MC",
    # token-level PPO clipping
    "PPO_PATHS",
    # the length-triggered LR schedule (issue 23)
    "LR_PARAMS", "LR_SCHEDULE",
]

#: The noise-regime runs of ``mismatch.scaling.staleness_noise_k`` and of ``mismatch_staleness``.
NOISE_K = Experiment(id="mismatch.staleness.noise_k", fn=functools.partial(noise_k_trials, eta=0.05, B=16, steps=120),
                     chunk_size=2, params={**TOY, "eta": 0.05, "B": 16, "steps": 120, "k": list(K_GRID)})
#: The noise-regime runs of ``mismatch.scaling.staleness_noise_B`` and of ``mismatch_staleness``.
NOISE_B = Experiment(id="mismatch.staleness.noise_B", fn=functools.partial(noise_B_trials, eta=0.05, steps=30),
                     chunk_size=2, params={**TOY, "eta": 0.05, "steps": 30, "B": list(B_GRID)})
#: The sampler–trainer runs of ``mismatch.staleness.smaller_step_less_mismatch`` and of ``mismatch_staleness``.
SAMPLER_KL = Experiment(id="mismatch.staleness.sampler_kl",
                        fn=functools.partial(sampler_kl_trials, etas=(0.025, 0.05, 0.1), k=4, B=16, steps=40,
                                             err_scale=0.02),
                        chunk_size=4, params={**TOY, "eta": [0.025, 0.05, 0.1], "k": 4, "B": 16, "steps": 40,
                                              "err_scale": 0.02})

#: The trials of the ``mismatch.trm.*`` claims and of the proxy panel of ``mismatch_trm_acceptance``.
TRM_PATHS = Experiment(id="mismatch.trm.paths", fn=functools.partial(trm_path_trials, V=2, T=6), chunk_size=500,
                       params={"V": 2, "T": 6, "generator": "low_prob (draw_pair), fresh pair per trial"})

#: Random pairs of the figure ``mismatch_tightness``.
TIGHTNESS = Experiment(id="mismatch.tightness.random_pairs", fn=functools.partial(tightness_trials,
                                                                                 shapes=TIGHTNESS_SHAPES),
                       chunk_size=20, params={"shapes": [list(s) for s in TIGHTNESS_SHAPES],
                                              "generators": list(GENERATORS)})

#: The samples every ``mismatch.mc.*`` claim reduces (one stored experiment).
ESTIMATOR_MC = Experiment(id="mismatch.estimator_mc", fn=functools.partial(estimator_mc_trials, **MC_CASE),
                          chunk_size=500, params=dict(MC_CASE))

#: The trials of the ``mismatch.ppo_clip.*`` probability claims: V = 2, T = 6, ``low_prob`` pairs
#: (the blog's setting: the mismatch sits on low-probability tokens, with π ≪ μ there).
PPO_PATHS = Experiment(id="mismatch.ppo_clip.paths",
                       fn=functools.partial(ppo_path_trials, V=2, T=6, generator="low_prob"),
                       chunk_size=250,
                       params={"V": 2, "T": 6, "generator": "low_prob (draw_pair), fresh pair per trial",
                               "reward": "U(0, 1)", "baseline": 0.5})


# --- issue 23 part 2: the batch-size-invariant rule (theory ``mismatch.md#batch-rule``) -------------
from .batch_rule import BREAK_B_GRID, RULE_B_GRID, RULE_SETTING, batch_gap_trials  # noqa: E402

__all__ += ["RULE_B_GRID", "BREAK_B_GRID", "BATCH_GAP", "BATCH_BREAK"]

#: The noise-regime gap along :data:`RULE_B_GRID` under the derived rule and the two naive rules, paired
#: (claims ``mismatch.batch_rule.*``; the band table of ``mismatch.md#batch-rule``).
BATCH_GAP = Experiment(id="mismatch.batch_rule.gap",
                       fn=functools.partial(batch_gap_trials, rules=("rule", "linear", "fixed"),
                                            B_grid=RULE_B_GRID, reward="flat", **RULE_SETTING),
                       chunk_size=2, params={**TOY, **RULE_SETTING, "reward": "flat 0.5 (noise regime)",
                                             "rules": ["rule", "linear", "fixed"], "B": list(RULE_B_GRID)})
#: The derived rule past ``B* = k₀B₀ = 128``, where the queue floors at one step (claim
#: ``mismatch.batch_rule.breaks_at_queue_floor``).
BATCH_BREAK = Experiment(id="mismatch.batch_rule.break",
                         fn=functools.partial(batch_gap_trials, rules=("rule",), B_grid=BREAK_B_GRID,
                                              reward="flat", **{**RULE_SETTING, "windows": 16}),
                         chunk_size=2, params={**TOY, **RULE_SETTING, "windows": 16,
                                               "reward": "flat 0.5 (noise regime)",
                                               "rules": ["rule"], "B": list(BREAK_B_GRID)})

#: Parameters of the LR-schedule toy and its trigger (shown in the claims' params).
LR_PARAMS = {**{k: getattr(TOY_LR, k) for k in ("V", "H", "w", "p_eos0", "kappa", "c_star", "B", "steps", "eta",
                                               "bf16", "baseline")},
             **{f"trigger_{k}": getattr(TRIGGER, k) for k in ("window", "rho", "decay", "cooldown")},
             "small_eta_factor": 0.25, "tau_factor": TAU_FACTOR, "reward_tol": REWARD_TOL, "last": 30}
#: One seed per trial, four runs on common random numbers (constant η, η/4, length-triggered decay,
#: cosine of the same total decay): claims ``mismatch.lr_schedule.*``; figure ``mismatch_lr_schedule``.
LR_SCHEDULE = Experiment(id="mismatch.lr_schedule.runs",
                         fn=functools.partial(lr_schedule_trials, toy=TOY_LR, trigger=TRIGGER, small_eta_factor=0.25,
                                              tau_factor=TAU_FACTOR, last=30),
                         chunk_size=4, params=LR_PARAMS)
