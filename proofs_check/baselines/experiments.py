"""The experiments that claims and figures of this topic share.

An :class:`~proofs_check.engine.Experiment` runs trials in chunks under the
engine's seeding and is measured once per process (and stored with ``out``):
a claim reads it through ``experiment=..., reduce=...`` and a figure through
:func:`proofs_check.engine.measure`, so both see the same numbers.

* :data:`TOY_HEADLINE`, :data:`TOY_HEADLINE_EOS` — the toy headline: OTB at
  ``N = 4`` and the group mean at ``N = 32``, independent training seeds,
  equal token budget (fixed length, :data:`TOY_TASK`; variable length,
  :data:`TOY_TASK_EOS`).  Claims ``baselines.toy.headline(_eos)``; figures
  ``baselines_group_size_sweep(_eos)`` (learning curves, the headline
  interval).
* :func:`group_mse_experiment` — exact group-estimator MSEs at ``N = 4`` on
  random tabular instances; at ``T = 3`` (:data:`GROUP_MSE`) read by the
  claims ``baselines.mse.*`` and by the figure
  ``baselines_variance_vs_horizon``.
* :func:`toy_pair_experiment` builds a headline-style experiment for other
  tasks (the figures' quick mode).
* :data:`GROUP_MC` — groups sampled from the fixed instance
  :data:`~.group_mc.MC_INSTANCE`, projected on the exact gradient: the claims
  ``baselines.mc.*``.
"""
from __future__ import annotations

import functools

from proofs_check.engine import Experiment
from proofs_check.engine import check_instance, check_int, check_real

from ._args import enum_size

from .group_mc import MC_INSTANCE, group_projection_trials
from .moments import group_mse_trials
from .toy import CountTask
from .toy_sweeps import pair_trials

__all__ = ["TOY_TASK", "TOY_TASK_EOS", "TOY_LR", "TOY_LR_EOS", "TOY_STEPS", "TOY_BATCH", "TOY_EVAL_EVERY",
           "HEADLINE_PAIR", "toy_pair_experiment", "TOY_HEADLINE", "TOY_HEADLINE_EOS",
           "group_mse_experiment", "GROUP_MSE", "GROUP_MC"]

#: The toy of the headline (fixed length): initial success 3.7 %.
TOY_TASK = CountTask(V=4, T=48, n_prompts=3, threshold=18)
#: The variable-length toy: token 3 is EOS (initial EOS logit −3); initial success 6.9 %.
TOY_TASK_EOS = CountTask(V=4, T=48, n_prompts=3, threshold=20, eos=True, eos_logit=-3.0)
TOY_LR, TOY_LR_EOS = 0.3, 0.6
#: 40 steps of 32 responses: 40 · 32 · 48 = 61 440 sampled tokens for every group size.
TOY_STEPS, TOY_BATCH, TOY_EVAL_EVERY = 40, 32, 5
#: The headline comparison: ``(kind, N)`` of OTB at N = 4 and of the group mean at N = 32.
HEADLINE_PAIR = (("otb", 4), ("mean", 32))


def toy_pair_experiment(id: str, task: CountTask, *, lr: float, steps: int = TOY_STEPS, batch: int = TOY_BATCH,
                        eval_every: int = TOY_EVAL_EVERY, chunk_size: int = 2) -> Experiment:
    """OTB at N = 4 against the group mean at N = 32 on ``task`` (:func:`~.toy_sweeps.pair_trials`)."""
    if not isinstance(id, str) or not id:
        raise TypeError(f"id must be a non-empty string, got {id!r:.60}")
    check_instance("task", task, CountTask)
    lr = check_real("lr", lr, lo=0.0, lo_open=True)
    steps = check_int("steps", steps, lo=1, hi=1_000_000)
    batch = check_int("batch", batch, lo=4, hi=1 << 20)
    eval_every = check_int("eval_every", eval_every, lo=1)
    chunk_size = check_int("chunk_size", chunk_size, lo=1, hi=10_000)
    a, b = HEADLINE_PAIR
    params = {"task": task.to_dict(), "a": list(a), "b": list(b), "steps": steps, "batch": batch, "lr": lr,
              "eval_every": eval_every}
    return Experiment(id=id, fn=functools.partial(pair_trials, task=task, a=a, b=b, steps=steps, batch=batch,
                                                  lr=lr, eval_every=eval_every),
                      chunk_size=chunk_size, params=params)


TOY_HEADLINE = toy_pair_experiment("baselines.toy.headline", TOY_TASK, lr=TOY_LR)
TOY_HEADLINE_EOS = toy_pair_experiment("baselines.toy.headline_eos", TOY_TASK_EOS, lr=TOY_LR_EOS)


def group_mse_experiment(T: int, *, N: int = 4, V: int = 2, chunk_size: int = 5) -> Experiment:
    """Exact MSE of every group estimator at group size ``N`` on random tabular instances
    (logit scale 1.5, rewards ``U[0, 1]``) of horizon ``T`` (:func:`~.moments.group_mse_trials`)."""
    V, T = enum_size(V, T, max_seq=64)
    N = check_int("N", N, lo=1, hi=12)
    chunk_size = check_int("chunk_size", chunk_size, lo=1, hi=10_000)
    params = {"N": N, "V": V, "T": T}
    return Experiment(id=f"baselines.group_mse.N{N}.V{V}.T{T}",
                      fn=functools.partial(group_mse_trials, **params), chunk_size=chunk_size, params=params)


GROUP_MSE = group_mse_experiment(3)


#: The groups every ``baselines.mc.*`` claim reduces (one stored experiment).
GROUP_MC = Experiment(id="baselines.group_mc", fn=functools.partial(group_projection_trials, **MC_INSTANCE),
                      chunk_size=2_000, params=dict(MC_INSTANCE))
