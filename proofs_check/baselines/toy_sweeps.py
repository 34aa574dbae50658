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

from .toy import CountTask, batch_gradients, train

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
    seeds = [tuple(int(x) for x in _seed_draws(rng, 2)) for _ in range(n)]
    out = {}
    for (kind, N), col in ((a, 0), (b, 1)):
        runs = [train(task, kind, N, steps=steps, batch=batch, lr=lr, seed=s[col], eval_every=eval_every)
                for s in seeds]
        out.update(_runs_stats(runs, f"{kind}/{N}"))
    return out


def final_difference(stats, *, a: str, b: str) -> np.ndarray:
    """Per trial ``J_a − J_b`` of the final returns (``a``, ``b`` as ``"kind/N"``)."""
    return np.asarray(stats[f"final/{a}"], dtype=float) - np.asarray(stats[f"final/{b}"], dtype=float)


def gradient_trials(rng, n, *, task: CountTask, kinds, Ns, batch: int) -> dict:
    """``n`` draws of one step's estimator at the initial ``θ`` for every ``(kind, N)`` (flat gradients)."""
    theta0 = task.initial_theta()
    out = {f"{kind}/{N}": np.empty((n, task.n_states * task.V)) for kind in kinds for N in Ns}
    for i in range(n):
        for N in Ns:
            for kind, g in batch_gradients(theta0, task, kinds, N, batch=batch, rng=rng).items():
                out[f"{kind}/{N}"][i] = g
    return out


def mean_interval(x, level: float = 0.95) -> tuple:
    """``(mean, lo, hi)`` — a Student-t interval over seeds."""
    x = np.asarray(x, dtype=float)
    m = float(x.mean())
    if x.size < 2:
        return m, float("nan"), float("nan")
    h = float(_stats.t.ppf(0.5 + level / 2, x.size - 1) * x.std(ddof=1) / np.sqrt(x.size))
    return m, m - h, m + h


def diff_interval(x, y, level: float = 0.95) -> tuple:
    """``(mean(x) − mean(y), lo, hi)`` — Welch interval (independent seeds)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
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
    out = {"final": {}, "final_mean_lo_hi": {}, "curves": {}, "grad_norm_mean": {}}
    for kind in kinds:
        for N in Ns:
            key = f"{kind}/{N}"
            fin = np.asarray(stats[f"final/{key}"], dtype=float)
            out["final"][key] = fin.tolist()
            out["final_mean_lo_hi"][key] = list(mean_interval(fin))
            out["curves"][key] = np.mean(stats[f"returns/{key}"], axis=0).tolist()
            out["grad_norm_mean"][key] = np.mean(stats[f"grad_norms/{key}"], axis=0).tolist()
    return out


def learning_auc(result) -> float:
    """Area under the exact-return curve of a :class:`~.toy.TrainResult` per token, normalised to [0, 1]
    (trapezoid over checkpoints)."""
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
