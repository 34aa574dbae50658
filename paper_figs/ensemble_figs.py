"""Figures for linear Ensemble++ (theory ``docs/theory/ensemble.md``).

* ``ensemble_tracking_vs_m`` — sup tracking error vs M (log–log), random vs
  Haar start on the same seeds, with the 2√(d/M) line;
* ``ensemble_tracking_vs_d_T`` — the same error at M = 8d vs d, and vs T;
* ``ensemble_regret_vs_m`` — final regret vs M per family, d ∈ {10, 50},
  K = 1000, T = 2000, 50 repetitions, with the exact-TS level and band;
* ``ensemble_regret_curves`` — cumulative regret over time for TS, three
  Ensemble++ families, classic ensemble sampling, LinUCB and greedy.

Every Monte Carlo number comes from :func:`proofs_check.engine.measure` of an
experiment of :mod:`seqproj.ensemble` under the engine's seeding — the same
experiments, hence the same chunks, the ``ensemble.tracking.*`` and
``ensemble.regret.finite.*`` claims reduce.  ``quick=True`` measures smaller
experiments of the same functions (a few seconds); the numbers plotted are
returned as the figure's data.
"""
from __future__ import annotations

import math

import numpy as np

from proofs_check.engine import measure
from seqproj.ensemble import (FINITE_SWEEPS, SWEEP_FAMILIES, TRACK_SETUP, TRACKING_VS_D,
                              TRACKING_VS_M, TRACKING_VS_T, RegretSweep, family_label, finite_sweep,
                              smallest_m_within, tracking_experiment)

from .style import figure, new_figure

#: Replicates plotted by the tracking figures (the claims use the first 10, 6 and 8).
_TRACK_RUNS = {"M": 10, "d": 8, "T": 8}
#: Repetitions plotted by the regret figures (the claims' default budget).
_SWEEP_REPS = 50


def _tracking(vary: str, quick: bool):
    """The tracking experiment behind a panel, and the replicates to measure."""
    if not quick:
        return {"M": TRACKING_VS_M, "d": TRACKING_VS_D, "T": TRACKING_VS_T}[vary], _TRACK_RUNS[vary]
    if vary == "M":
        exp = tracking_experiment("M", (10, 40, 160), {**TRACK_SETUP, "T": 200},
                                  starts=("random", "haar"), name="vs_M.quick")
    elif vary == "d":
        exp = tracking_experiment("d", (5, 10), {"T": 200, "K": 100, "M_per_d": 8}, name="vs_d.quick")
    else:
        exp = tracking_experiment("T", (50, 200), {"d": 10, "M": 80, "K": 100}, name="vs_T.quick")
    return exp, 2


def _sweep(d: int, quick: bool, seed: int) -> RegretSweep:
    """The finite-arm sweep at ``d`` read back from its stored chunks."""
    if quick:
        exp = finite_sweep(d, K=100, T=200, ms=(1, 2, 4, 8 * d))
        return RegretSweep.from_measurement(measure(exp, 4, seed=seed))
    return RegretSweep.from_measurement(measure(FINITE_SWEEPS[d], _SWEEP_REPS, seed=seed))


def _sweep_ds(quick):
    return (3, 5) if quick else tuple(FINITE_SWEEPS)


def _median_q(vals):
    v = np.asarray(vals, float)
    return float(np.median(v)), float(np.quantile(v, 0.25)), float(np.quantile(v, 0.75))


def _columns(stats, start="random"):
    """Median and quartiles of each grid column of a tracking statistic."""
    return [_median_q(col) for col in np.asarray(stats[start], float).T]


@figure("ensemble_tracking_vs_m")
def tracking_vs_m(*, quick: bool, seed: int):
    exp, runs = _tracking("M", quick)
    m = measure(exp, runs, seed=seed)
    p = exp.params
    d, T, ms = p["d"], p["T"], tuple(p["M"])
    data = {"d": d, "T": T, "K": p["K"], "M": list(ms), "runs": m.trials, "seed": seed,
            "experiment": exp.id}
    fig, ax = new_figure()
    for init, mk in (("random", "o"), ("haar", "s")):
        stats = _columns(m.stats, init)
        med = [s[0] for s in stats]
        data[init] = {"median": med, "q25": [s[1] for s in stats], "q75": [s[2] for s in stats]}
        ax.errorbar(ms, med, yerr=[[v - s[1] for v, s in zip(med, stats)],
                                   [s[2] - v for v, s in zip(med, stats)]],
                    marker=mk, capsize=2, label=f"{init} start (median, IQR)")
    mm = np.geomspace(ms[0], ms[-1], 50)
    ax.plot(mm, 2 * np.sqrt(d / mm), "k--", lw=1, label=r"$2\sqrt{d/M}$")
    ax.plot(mm, 2 * np.sqrt(d / mm) + d / mm, "k:", lw=1,
            label=r"$2\sqrt{d/M}+d/M$ (Marchenko–Pastur edge)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("ensemble size M")
    ax.set_ylabel(r"$\sup_{t\leq T}\|\Sigma_t^{-1/2}A_tA_t^\top\Sigma_t^{-1/2}-I\|$")
    ax.set_title(f"d = {d}, K = {p['K']} unit arms, T = {T}")
    ax.legend()
    return fig, data


@figure("ensemble_tracking_vs_d_T")
def tracking_vs_d_T(*, quick: bool, seed: int):
    (exp_d, runs_d), (exp_T, runs_T) = _tracking("d", quick), _tracking("T", quick)
    md, mT = measure(exp_d, runs_d, seed=seed), measure(exp_T, runs_T, seed=seed)
    ds, Ts = tuple(exp_d.params["d"]), tuple(exp_T.params["T"])
    sd, sT = _columns(md.stats), _columns(mT.stats)
    fig, (a1, a2) = new_figure(ncols=2)
    for ax, xs, st, xl in ((a1, ds, sd, "d (M = 8d)"),
                           (a2, Ts, sT, f"T (d = {exp_T.params['d']}, M = {exp_T.params['M']})")):
        med = [s[0] for s in st]
        ax.errorbar(xs, med, yerr=[[v - s[1] for v, s in zip(med, st)],
                                   [s[2] - v for v, s in zip(med, st)]], marker="o", capsize=2)
        ax.set_xscale("log")
        ax.set_ylim(0, max(1.5, 1.2 * max(s[2] for s in st)))
        ax.set_xlabel(xl)
    a1.set_ylabel("sup tracking error (median, IQR)")
    a1.axhline(2 * math.sqrt(1 / 8), color="k", ls="--", lw=1, label=r"$2\sqrt{1/8}$")
    a1.legend()
    data = {"d": list(ds), "T_for_d": exp_d.params["T"], "by_d": [list(s) for s in sd],
            "T": list(Ts), "by_T": [list(s) for s in sT], "runs": [md.trials, mT.trials],
            "seed": seed, "experiments": [exp_d.id, exp_T.id], "columns": ["median", "q25", "q75"]}
    return fig, data


@figure("ensemble_regret_vs_m")
def regret_vs_m(*, quick: bool, seed: int):
    ds = _sweep_ds(quick)
    fig, axes = new_figure(ncols=len(ds))
    data = {"d": list(ds), "seed": seed, "margin": 0.10, "panels": []}
    for ax, d in zip(axes, ds):
        res = _sweep(d, quick, seed)
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
            ms = list(res.ms)
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
    res = _sweep(d, quick, seed)
    M = 8 * d
    fig, ax = new_figure()
    t = res.times
    data = {"d": d, "M": M, "T": res.T, "n_reps": res.n_reps, "seed": seed, "curves": {}}
    for lab in res.curve_labels:
        mean, lo, hi = res.curve_mean_ci(lab)
        ax.plot(t, mean, lw=1.2, label=lab)
        ax.fill_between(t, lo, hi, alpha=0.15, lw=0)
        data["curves"][lab] = {"t": t.tolist(), "mean": mean.tolist(), "lo": lo.tolist(),
                               "hi": hi.tolist()}
    ax.set_yscale("log")
    ax.set_xlabel("round t")
    ax.set_ylabel("cumulative regret (mean, 95% CI)")
    ax.set_title(f"finite arms, d = {d}, M = 8d = {M}, {res.n_reps} reps")
    ax.legend(fontsize=6.5)
    return fig, data
