"""Figures for linear Ensemble++ (spec ``ensemble.md`` §4).

* ``ensemble_tracking_vs_m`` — sup tracking error vs M (log–log), random vs
  Haar start, with the 2√(d/M) line;
* ``ensemble_tracking_vs_d_T`` — the same error at M = 8d vs d, and vs T;
* ``ensemble_regret_vs_m`` — final regret vs M per family, d ∈ {10, 50},
  K = 1000, T = 2000, 50 repetitions, with the exact-TS level and band;
* ``ensemble_regret_curves`` — cumulative regret over time for TS, two
  Ensemble++ families, classic ensemble sampling, LinUCB and greedy.

``quick=True`` shrinks every size (a few seconds); the numbers plotted are
returned as the figure's data.  The regret sweep uses the same chunks (seed,
chunk size 5) as the ``ensemble.regret.finite.*`` claims.
"""
from __future__ import annotations

import math

import numpy as np

from seqproj.ensemble.bandits import (SWEEP_FAMILIES, FiniteArmEnv, family_label, run_bandit,
                             smallest_m_within, sweep_agents, sweep_ms)
from seqproj.ensemble import sup_tracking_error

from .style import figure, new_figure

_SWEEP_MEMO: dict = {}


def regret_sweep(d: int, *, quick: bool, seed: int, executor=None, workers=None):
    """The finite-arm sweep result (memoised per process)."""
    key = (d, quick, seed)
    if key not in _SWEEP_MEMO:
        if quick:
            env, T, reps, ms = FiniteArmEnv(d, 100), 200, 4, (1, 2, 4, 8 * d)
            agents = sweep_agents(d, ms=ms)
        else:
            env, T, reps = FiniteArmEnv(d, 1000), 2000, 50
            agents = sweep_agents(d)
        _SWEEP_MEMO[key] = run_bandit(env, agents, T, reps, seed, executor=executor,
                                      chunk_size=5, workers=workers)
    return _SWEEP_MEMO[key]


def _sweep_ds(quick):
    return (3, 5) if quick else (10, 50)


def _median_q(vals):
    v = np.asarray(vals, float)
    return float(np.median(v)), float(np.quantile(v, 0.25)), float(np.quantile(v, 0.75))


@figure("ensemble_tracking_vs_m")
def tracking_vs_m(*, quick: bool, seed: int):
    d = 10
    T = 200 if quick else 2000
    ms = (10, 40, 160) if quick else (10, 20, 40, 80, 160, 320)
    runs = 2 if quick else 10
    g = np.random.default_rng(seed)
    seeds = [int(s) for s in g.integers(0, 2**63, size=runs)]
    data = {"d": d, "T": T, "K": 100, "M": list(ms), "runs": runs, "seeds": seeds}
    fig, ax = new_figure()
    for init, mk in (("random", "o"), ("haar", "s")):
        stats = [_median_q([sup_tracking_error(d, M, T, s, init=init) for s in seeds]) for M in ms]
        med = [s[0] for s in stats]
        data[init] = {"median": med, "q25": [s[1] for s in stats], "q75": [s[2] for s in stats]}
        ax.errorbar(ms, med, yerr=[[m - s[1] for m, s in zip(med, stats)],
                                   [s[2] - m for m, s in zip(med, stats)]],
                    marker=mk, capsize=2, label=f"{init} start (median, IQR)")
    mm = np.geomspace(ms[0], ms[-1], 50)
    ax.plot(mm, 2 * np.sqrt(d / mm), "k--", lw=1, label=r"$2\sqrt{d/M}$")
    ax.plot(mm, 2 * np.sqrt(d / mm) + d / mm, "k:", lw=1,
            label=r"$2\sqrt{d/M}+d/M$ (Marchenko–Pastur edge)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("ensemble size M")
    ax.set_ylabel(r"$\sup_{t\leq T}\|\Sigma_t^{-1/2}A_tA_t^\top\Sigma_t^{-1/2}-I\|$")
    ax.set_title(f"d = {d}, K = 100 unit arms, T = {T}")
    ax.legend()
    return fig, data


@figure("ensemble_tracking_vs_d_T")
def tracking_vs_d_T(*, quick: bool, seed: int):
    ds = (5, 10) if quick else (5, 10, 20, 40)
    Ts = (50, 200) if quick else (100, 300, 1000, 3000)
    runs = 2 if quick else 8
    T_d = 200 if quick else 2000
    g = np.random.default_rng(seed)
    seeds = [int(s) for s in g.integers(0, 2**63, size=runs)]
    fig, (a1, a2) = new_figure(ncols=2)
    sd = [_median_q([sup_tracking_error(d, 8 * d, T_d, s) for s in seeds]) for d in ds]
    sT = [_median_q([sup_tracking_error(10, 80, T, s) for s in seeds]) for T in Ts]
    for ax, xs, st, xl in ((a1, ds, sd, "d (M = 8d)"), (a2, Ts, sT, "T (d = 10, M = 80)")):
        med = [s[0] for s in st]
        ax.errorbar(xs, med, yerr=[[m - s[1] for m, s in zip(med, st)],
                                   [s[2] - m for m, s in zip(med, st)]], marker="o", capsize=2)
        ax.set_xscale("log")
        ax.set_ylim(0, max(1.5, 1.2 * max(s[2] for s in st)))
        ax.set_xlabel(xl)
    a1.set_ylabel("sup tracking error (median, IQR)")
    a1.axhline(2 * math.sqrt(1 / 8), color="k", ls="--", lw=1, label=r"$2\sqrt{1/8}$")
    a1.legend()
    data = {"d": list(ds), "T_for_d": T_d, "by_d": [list(s) for s in sd], "T": list(Ts),
            "by_T": [list(s) for s in sT], "runs": runs, "seeds": seeds,
            "columns": ["median", "q25", "q75"]}
    return fig, data


@figure("ensemble_regret_vs_m")
def regret_vs_m(*, quick: bool, seed: int):
    ds = _sweep_ds(quick)
    fig, axes = new_figure(ncols=len(ds))
    data = {"d": list(ds), "seed": seed, "margin": 0.10, "panels": []}
    for ax, d in zip(axes, ds):
        res = regret_sweep(d, quick=quick, seed=seed)
        ms = sweep_ms(d) if not quick else (1, 2, 4, 8 * d)
        ts_m, (ts_lo, ts_hi) = res.final_mean_ci("TS")
        ax.axhspan(ts_lo, ts_hi, color="k", alpha=0.12, lw=0)
        ax.axhline(ts_m, color="k", lw=1.2, label="exact TS (95% CI)")
        ax.axhline(1.1 * ts_m, color="k", lw=0.8, ls=":", label="TS + 10%")
        panel = {"d": d, "T": res.T, "n_reps": res.n_reps, "TS": [ts_m, ts_lo, ts_hi], "families": {}}
        for lab in ("LinUCB", "Greedy"):
            m, ci = res.final_mean_ci(lab)
            panel[lab] = [m, ci[0], ci[1]]
        for idx, pert in SWEEP_FAMILIES:
            fam = family_label(idx, pert)
            vals = [res.final_mean_ci(f"{fam}[M={M}]") for M in ms]
            mean = [v[0] for v in vals]
            # lower bars clipped at 95% of the mean (log axis)
            ax.errorbar(ms, mean, yerr=[[min(m - v[1][0], 0.95 * m) for m, v in zip(mean, vals)],
                                        [v[1][1] - m for m, v in zip(mean, vals)]],
                        marker="o", ms=2.5, capsize=1.5, lw=1,
                        label="ensemble sampling (one-hot)" if fam == "ES" else fam)
            nb = 500 if quick else 2000
            sm = smallest_m_within(res, idx, pert, margin=0.10, n_boot=nb, seed=seed)
            sm1 = smallest_m_within(res, idx, pert, margin=0.10, n_boot=nb, seed=seed, rule="first")
            panel["families"][fam] = {"M": list(ms), "mean": mean,
                                      "ci": [list(v[1]) for v in vals], "smallest_M": sm.to_dict(),
                                      "first_M_within": sm1.to_dict()}
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("ensemble size M")
        ax.set_title(f"d = {d}, K = {'100' if quick else '1000'}, T = {res.T}, {res.n_reps} reps")
        data["panels"].append(panel)
    axes[0].set_ylabel("mean final regret (95% CI)")
    axes[-1].legend(fontsize=6)
    return fig, data


@figure("ensemble_regret_curves")
def regret_curves(*, quick: bool, seed: int):
    d = _sweep_ds(quick)[-1]
    res = regret_sweep(d, quick=quick, seed=seed)
    M = 8 * d
    picks = ["TS", f"gaussian[M={M}]", f"sphere[M={M}]", f"ES[M={M}]", f"signed_coord[M={M}]",
             "LinUCB", "Greedy"]
    fig, ax = new_figure()
    t = np.arange(1, res.T + 1)
    data = {"d": d, "M": M, "T": res.T, "n_reps": res.n_reps, "seed": seed, "curves": {}}
    step = max(1, res.T // 200)
    for lab in picks:
        i = res.index(lab)
        ax.plot(t, res.mean[i], lw=1.2, label=lab)
        ax.fill_between(t, res.lo[i], res.hi[i], alpha=0.15, lw=0)
        data["curves"][lab] = {"t": t[::step].tolist(), "mean": res.mean[i, ::step].tolist(),
                               "lo": res.lo[i, ::step].tolist(), "hi": res.hi[i, ::step].tolist()}
    ax.set_yscale("log")
    ax.set_xlabel("round t")
    ax.set_ylabel("cumulative regret (mean, 95% CI)")
    ax.set_title(f"finite arms, d = {d}, M = 8d = {M}, {res.n_reps} reps")
    ax.legend(fontsize=6.5)
    return fig, data
