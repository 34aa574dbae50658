r"""The toy over many training seeds: chunk functions for experiments, and the
intervals that summarise them.

Chunk functions ``f(rng, n, *, ...) -> {name: array}`` (one trial = one draw
of training seeds; the engine's seeding decides the draws):

* :func:`sweep_trials` — every baseline ``kind`` at every group size ``N``;
  per trial and ``N`` one training seed shared by all kinds (common random
  numbers), statistics ``final/<kind>/<N>`` (exact ``J`` after the run),
  ``returns/<kind>/<N>`` (``J`` at :func:`~.toy.checkpoints`) and
  ``grad_norms/<kind>/<N>`` (per step);
* :func:`pair_trials` — two configurations with independent seeds (the
  headline: OTB at ``N = 4`` against the group mean at ``N = 32``), the same
  statistic names; :func:`final_difference` reduces it to the paired
  differences of the final returns;
* :func:`gradient_trials` — one step's estimator at the initial ``θ`` for every
  ``(kind, N)``, one batch per ``N`` shared by all kinds; statistics
  ``<kind>/<N>`` (flat gradients), summarised by
  :func:`~.toy.gradient_variance_estimate`.

Summaries: :func:`mean_interval` (Student t over seeds), :func:`diff_interval`
(Welch), :func:`sweep_summary`.  :func:`best_lr_comparison` and
:func:`learning_auc` compare step sizes (explicit root seed).  Theory page
``docs/theory/baselines.md#toy-headline``.
"""
from __future__ import annotations

import numpy as np
from scipy import stats as _stats

from collections.abc import Mapping

from proofs_check.engine import check_finite_array, check_instance, check_int, check_real, shown

from ._args import choice as _choice
from ._args import chunk_args, int_list, stats_column
from .toy import TOY_KINDS, CountTask, TrainResult, batch_gradients, train


def _kinds(kinds):
    if isinstance(kinds, (str, bytes)) or not hasattr(kinds, "__iter__"):
        raise TypeError(f"kinds must be a sequence of baseline names, got {shown(kinds)}")
    out = [_choice("kinds", k, TOY_KINDS) for k in kinds]
    if not out:
        raise ValueError("kinds must name at least one baseline")
    return out


def _config(name, c):
    if isinstance(c, (str, bytes)) or not hasattr(c, "__len__") or len(c) != 2:
        raise TypeError(f"{name} must be a pair (kind, N), got {shown(c)}")
    return _choice(f"{name}[0]", c[0], TOY_KINDS), check_int(f"{name}[1]", c[1], lo=1, hi=1 << 20)


def _train_args(task, steps, batch, lr, eval_every):
    check_instance("task", task, CountTask)
    return (check_int("steps", steps, lo=1, hi=1_000_000), check_int("batch", batch, lo=1, hi=1 << 20),
            check_real("lr", lr, lo=0.0, lo_open=True), check_int("eval_every", eval_every, lo=1))

__all__ = ["sweep_trials", "pair_trials", "final_difference", "gradient_trials", "sweep_summary",
           "mean_interval", "diff_interval", "learning_auc", "best_lr_comparison"]


def _seed_draws(rng, shape):
    return rng.integers(0, 2 ** 31, size=shape)


def _runs_stats(runs, key) -> dict:
    return {f"final/{key}": np.array([r.final_return for r in runs]),
            f"returns/{key}": np.array([r.returns for r in runs]),
            f"grad_norms/{key}": np.array([r.grad_norms for r in runs])}


def sweep_trials(rng, n, *, task: CountTask, kinds, Ns, steps: int, batch: int, lr: float,
                 eval_every: int) -> dict:
    """``n`` trials of training every ``(kind, N)`` at an equal token budget ``steps·batch·T``.

    Trial ``i`` draws one training seed per ``N`` (in the order of ``Ns``); every
    kind trains from it (common random numbers across baselines at equal ``N``).
    """
    rng, n = chunk_args(rng, n, hi=10_000)
    steps, batch, lr, eval_every = _train_args(task, steps, batch, lr, eval_every)
    kinds, Ns = _kinds(kinds), int_list("Ns", Ns, lo=1, hi=batch)
    seeds = _seed_draws(rng, (n, len(Ns)))
    out = {}
    for j, N in enumerate(Ns):
        for kind in kinds:
            runs = [train(task, kind, N, steps=steps, batch=batch, lr=lr, seed=int(seeds[i, j]),
                          eval_every=eval_every) for i in range(n)]
            out.update(_runs_stats(runs, f"{kind}/{N}"))
    return out


def pair_trials(rng, n, *, task: CountTask, a, b, steps: int, batch: int, lr: float, eval_every: int) -> dict:
    """``n`` trials of two configurations ``a = (kind, N)`` and ``b`` with independent seeds.

    Trial ``i`` draws two seeds ``(s_a, s_b)`` from ``rng`` and trains ``a`` from
    ``s_a``, ``b`` from ``s_b`` (statistics named as in :func:`sweep_trials`).
    """
    rng, n = chunk_args(rng, n, hi=10_000)
    steps, batch, lr, eval_every = _train_args(task, steps, batch, lr, eval_every)
    a, b = _config("a", a), _config("b", b)
    seeds = [tuple(int(x) for x in _seed_draws(rng, 2)) for _ in range(n)]
    out = {}
    for (kind, N), col in ((a, 0), (b, 1)):
        runs = [train(task, kind, N, steps=steps, batch=batch, lr=lr, seed=s[col], eval_every=eval_every)
                for s in seeds]
        out.update(_runs_stats(runs, f"{kind}/{N}"))
    return out


def final_difference(stats, *, a: str, b: str) -> np.ndarray:
    """Per trial ``J_a − J_b`` of the final returns (``a``, ``b`` as ``"kind/N"``)."""
    x, y = stats_column(stats, f"final/{a}"), stats_column(stats, f"final/{b}")
    if x.shape != y.shape:
        raise ValueError(f"stats for a={a!r} and b={b!r} must have the same shape, got {x.shape} and {y.shape}")
    return x - y


def gradient_trials(rng, n, *, task: CountTask, kinds, Ns, batch: int) -> dict:
    """``n`` draws of one step's estimator at the initial ``θ`` for every ``(kind, N)`` (flat gradients)."""
    rng, n = chunk_args(rng, n, hi=10_000)
    check_instance("task", task, CountTask)
    kinds = _kinds(kinds)
    batch = check_int("batch", batch, lo=1, hi=1 << 16)
    Ns = int_list("Ns", Ns, lo=1, hi=batch)
    theta0 = task.initial_theta()
    out = {f"{kind}/{N}": np.empty((n, task.n_states * task.V)) for kind in kinds for N in Ns}
    for i in range(n):
        for N in Ns:
            for kind, g in batch_gradients(theta0, task, kinds, N, batch=batch, rng=rng).items():
                out[f"{kind}/{N}"][i] = g
    return out


def mean_interval(x, level: float = 0.95) -> tuple:
    """``(mean, lo, hi)`` — a Student-t interval over seeds.

    One value has zero degrees of freedom: the interval is the whole line ``(m, −inf, inf)`` (the
    t quantile is infinite), never NaN."""
    x = check_finite_array("x", x).ravel()
    level = check_real("level", level, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    if x.size < 1:
        raise ValueError("x must hold at least one value")
    m = float(x.mean())
    if x.size < 2:
        return m, -float("inf"), float("inf")
    h = float(_stats.t.ppf(0.5 + level / 2, x.size - 1) * x.std(ddof=1) / np.sqrt(x.size))
    return m, m - h, m + h


def diff_interval(x, y, level: float = 0.95) -> tuple:
    """``(mean(x) − mean(y), lo, hi)`` — Welch interval (independent seeds)."""
    x, y = check_finite_array("x", x).ravel(), check_finite_array("y", y).ravel()
    level = check_real("level", level, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    if x.size < 2 or y.size < 2:
        raise ValueError(f"x and y must hold at least two values each, got {x.size} and {y.size}")
    d = float(x.mean() - y.mean())
    vx, vy = x.var(ddof=1) / x.size, y.var(ddof=1) / y.size
    se = np.sqrt(vx + vy)
    if se == 0:
        return d, d, d
    df = (vx + vy) ** 2 / (vx ** 2 / (x.size - 1) + vy ** 2 / (y.size - 1))
    h = float(_stats.t.ppf(0.5 + level / 2, df) * se)
    return d, d - h, d + h


def sweep_summary(stats, *, kinds, Ns) -> dict:
    """Per ``"kind/N"``: the final returns over trials, their mean and 95% t-interval, the mean
    learning curve and the mean gradient norm per step."""
    kinds, Ns = _kinds(kinds), int_list("Ns", Ns, lo=1, hi=1 << 20)
    if not isinstance(stats, Mapping):
        raise TypeError(f"stats must be a mapping of named statistics, got {shown(stats)}")
    out = {"final": {}, "final_mean_lo_hi": {}, "curves": {}, "grad_norm_mean": {}}
    for kind in kinds:
        for N in Ns:
            key = f"{kind}/{N}"
            fin = stats_column(stats, f"final/{key}")
            out["final"][key] = fin.tolist()
            out["final_mean_lo_hi"][key] = list(mean_interval(fin))
            out["curves"][key] = np.mean(stats_column(stats, f"returns/{key}"), axis=0).tolist()
            out["grad_norm_mean"][key] = np.mean(stats_column(stats, f"grad_norms/{key}"), axis=0).tolist()
    return out


def learning_auc(result) -> float:
    """Area under the exact-return curve of a :class:`~.toy.TrainResult` per token, normalised to [0, 1]
    (trapezoid over checkpoints)."""
    check_instance("result", result, TrainResult)
    if len(result.tokens) < 2:
        raise ValueError("result must have at least two checkpoints for an area")
    x = np.asarray(result.tokens, dtype=float)
    y = np.asarray(result.returns, dtype=float)
    return float(np.sum((y[1:] + y[:-1]) * np.diff(x)) / 2 / (x[-1] - x[0]))


def _seed_for(root, kind_idx, N, s):
    return int(np.random.SeedSequence(root, spawn_key=(kind_idx, N, s)).generate_state(1)[0])


def best_lr_comparison(task: CountTask, configs, lrs, *, seeds: int = 10, steps: int = 40, batch: int = 32,
                       root_seed: int = 0, eval_every: int = 2) -> dict:
    """Final return and learning-curve area (AUC, :func:`learning_auc`) of each ``(kind, N)`` at each
    step size in ``lrs`` (mean and 95% t-interval over seeds), and the best step size per
    configuration chosen on the mean AUC (the intervals are not corrected for that selection).

    Seed ``s`` of ``N`` trains from ``SeedSequence(root_seed, spawn_key=(1, N, s))`` at every step size
    and for every kind (common random numbers)."""
    check_instance("task", task, CountTask)
    if isinstance(configs, (str, bytes)) or not hasattr(configs, "__iter__"):
        raise TypeError(f"configs must be a sequence of (kind, N) pairs, got {shown(configs)}")
    configs = [_config("configs[i]", c) for c in configs]
    lrs = check_finite_array("lrs", lrs, ndim=1)
    if lrs.size == 0 or np.any(lrs <= 0):
        raise ValueError("lrs must hold at least one positive step size")
    seeds = check_int("seeds", seeds, lo=2, hi=10_000)
    steps = check_int("steps", steps, lo=1, hi=1_000_000)
    batch = check_int("batch", batch, lo=1, hi=1 << 20)
    root_seed = check_int("root_seed", root_seed, lo=0)
    eval_every = check_int("eval_every", eval_every, lo=1)
    out = {}
    for kind, N in configs:
        rows = {}
        for lr in lrs:
            runs = [train(task, kind, N, steps=steps, batch=batch, lr=lr,
                          seed=_seed_for(root_seed, 1, N, s), eval_every=eval_every) for s in range(seeds)]
            finals = [r.final_return for r in runs]
            aucs = [learning_auc(r) for r in runs]
            rows[float(lr)] = {"finals": finals, "aucs": aucs, "final_mean_lo_hi": mean_interval(finals),
                               "auc_mean_lo_hi": mean_interval(aucs)}
        best = max(rows, key=lambda k: rows[k]["auc_mean_lo_hi"][0])
        out[f"{kind}/{N}"] = {"by_lr": rows, "best_lr": best}
    return out
