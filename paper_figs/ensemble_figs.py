"""Figures for linear Ensemble++ (theory ``docs/theory/ensemble.md``).

* ``ensemble_tracking_vs_m`` — sup tracking error vs M (log–log), random vs
  Haar start on the same seeds, with the 2√(d/M) line;
* ``ensemble_tracking_vs_d_T`` — the same error at M = 8d vs d, and vs T;
* ``ensemble_regret_vs_m`` — final regret relative to exact TS vs M per family group, d ∈ {10, 50},
  K = 1000, T = 2000, 50 repetitions, with the exact-TS level and band;
* ``ensemble_regret_curves`` — cumulative regret over time for TS, three
  Ensemble++ families, classic ensemble sampling, LinUCB and greedy.

Every Monte Carlo number comes from :func:`proofs_check.engine.measure` of an
experiment of :mod:`seqproj.ensemble` under the engine's seeding — the same
experiments, hence the same chunks, the ``ensemble.tracking.*`` and
``ensemble.regret.finite.*`` claims reduce.  ``quick=True`` measures smaller
experiments of the same functions (a few seconds), except the regret figures, which read
the claims' own d = 10 experiment (K = 1000, T = 2000) at one chunk of 5 repetitions
(about 10 s); the numbers plotted are returned as the figure's data.
"""
from __future__ import annotations

import functools
import math

import matplotlib.ticker
import numpy as np

from proofs_check.engine import measure
from seqproj.ensemble import RegretSweep, family_label, smallest_m_within, tracking_experiment
from seqproj.ensemble.experiments import (FINITE_SWEEPS, SWEEP_FAMILIES, TRACK_SETUP, TRACKING_VS_D,
                                          TRACKING_VS_M, TRACKING_VS_T)

from .registry import figure
from .style import grid_ticks, new_figure, panel_letters, ref_line

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


#: Repetitions of the quick regret figures: one chunk of the claims' own experiment.
_QUICK_SWEEP_REPS = 5


@functools.lru_cache(maxsize=4)
def _sweep(d: int, quick: bool, seed: int) -> RegretSweep:
    """The finite-arm sweep at ``d`` read back from its stored chunks: the claims' own experiment
    (:data:`FINITE_SWEEPS`: K = 1000, T = 2000, the claims' M grid); quick reads fewer repetitions
    (its first chunk).  Cached: two figures read the same sweep."""
    return RegretSweep.from_measurement(measure(FINITE_SWEEPS[d], _QUICK_SWEEP_REPS if quick else _SWEEP_REPS,
                                                seed=seed))


def _sweep_ds(quick):
    """The claims' dimensions; a quick build reads only the smaller one (d = 50 costs ~30 s per chunk)."""
    ds = tuple(FINITE_SWEEPS)
    return ds[:1] if quick else ds


#: Plain names of the agents of the regret sweeps (the code's labels are family identifiers).
_PLAIN = {"gaussian": "Gaussian index", "sphere": "sphere index", "cube": "cube index",
          "signed_coord": "signed-coordinate index", "sparse": "sparse index",
          "ES": "ensemble sampling (one-hot)", "TS": "exact Thompson sampling", "LinUCB": "LinUCB",
          "Greedy": "greedy"}


def plain_agent(label: str) -> str:
    """``"gaussian[M=40]"`` -> ``"Gaussian index, M = 40"``; unknown labels are returned as they are."""
    fam, _, rest = label.partition("[")
    name = _PLAIN.get(fam, fam)
    return f"{name}, {rest.rstrip(']').replace('=', ' = ')}" if rest else name


def _median_q(vals):
    v = np.asarray(vals, float)
    return float(np.median(v)), float(np.quantile(v, 0.25)), float(np.quantile(v, 0.75))


def _columns(stats, start="random"):
    """Median and quartiles of each grid column of a tracking statistic."""
    return [_median_q(col) for col in np.asarray(stats[start], float).T]


@figure("ensemble_tracking_vs_m",
        caption="Sup tracking error sup_t ||Σ_t^{-1/2} A_t A_t^T Σ_t^{-1/2} − I|| of linear Ensemble++ against "
                "the ensemble size M (d = 10, K unit arms, T rounds), median and interquartile range over "
                "independent replicates, random and Haar (orthogonal) start on the same seeds, with the "
                "2√(d/M) rate and the Marchenko–Pastur edge 2√(d/M) + d/M. Supports "
                "ensemble.tracking.decay_in_M and ensemble.tracking.haar_start_lowers_sup.",
        claims=("ensemble.tracking.decay_in_M", "ensemble.tracking.haar_start_lowers_sup"), width="column")
def tracking_vs_m(*, quick: bool, seed: int):
    exp, runs = _tracking("M", quick)
    m = measure(exp, runs, seed=seed)
    p = exp.params
    d, T, ms = p["d"], p["T"], tuple(p["M"])
    data = {"d": d, "T": T, "K": p["K"], "M": list(ms), "runs": m.trials, "seed": seed,
            "experiment": exp.id}
    fig, ax = new_figure(height=3.0)
    for init, mk, c in (("random", "o", "C0"), ("haar", "s", "C1")):
        stats = _columns(m.stats, init)
        med = [s[0] for s in stats]
        data[init] = {"median": med, "q25": [s[1] for s in stats], "q75": [s[2] for s in stats]}
        ax.errorbar(ms, med, yerr=[[v - s[1] for v, s in zip(med, stats)],
                                   [s[2] - v for v, s in zip(med, stats)]],
                    marker=mk, color=c, ls="-",
                    label=f"{'Haar' if init == 'haar' else 'random'} start (median, IQR)")
    mm = np.geomspace(ms[0], ms[-1], 50)
    ax.plot(mm, 2 * np.sqrt(d / mm), "k--", lw=0.9, label=r"$2\sqrt{d/M}$")
    ax.plot(mm, 2 * np.sqrt(d / mm) + d / mm, "k:", lw=0.9, label=r"$2\sqrt{d/M}+d/M$ (MP edge)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    grid_ticks(ax, ms, "x", "%d")
    ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax.set_xlabel("ensemble size M")
    ax.set_ylabel(r"$\sup_{t\leq T}\|\Sigma_t^{-1/2}A_tA_t^\top\Sigma_t^{-1/2}-I\|$")
    ax.set_title(f"d = {d}, K = {p['K']} unit arms, T = {T}, {m.trials} runs")
    fig.legend(loc="outside lower center", ncol=2, columnspacing=0.8)
    return fig, data


#: Seed offsets of the independent single-T runs of ``ensemble_tracking_vs_d_T`` panel (b).
_T_SEED_STRIDE = 1000


@figure("ensemble_tracking_vs_d_T",
        caption="Sup tracking error of linear Ensemble++ at M = 8d, median and interquartile range: (a) "
                "against d (T = 2000 in the full build), (b) against the horizon T (d = 10, M = 80). In (b) "
                "each T is an independent run (root seed + 1000·(i+1)): on shared seeds the running sup "
                "of the shorter horizon is a prefix of the longer one's and is reached early, which made "
                "the panel flat by construction. The dashed line is 2√(d/M) = 2√(1/8). The shared y axis is zoomed "
                "onto the data and that line (it does not start at 0); each panel prints its largest median "
                "over its smallest, the flatness the claims test. Supports "
                "ensemble.tracking.flat_in_d and ensemble.tracking.flat_in_T.",
        claims=("ensemble.tracking.flat_in_d", "ensemble.tracking.flat_in_T"), width="page")
def tracking_vs_d_T(*, quick: bool, seed: int):
    (exp_d, runs_d), (exp_T, runs_T) = _tracking("d", quick), _tracking("T", quick)
    md = measure(exp_d, runs_d, seed=seed)
    ds, Ts = tuple(exp_d.params["d"]), tuple(exp_T.params["T"])
    fixed_T = {k: v for k, v in exp_T.params.items() if k not in ("vary", "T", "starts")}
    sd = _columns(md.stats)
    sT, seeds_T, ids_T = [], [], []
    for i, T in enumerate(Ts):      # one independent experiment (and seed) per horizon
        e = tracking_experiment("T", (T,), fixed_T, name=f"vs_T.single.T{T}")
        s_i = seed + _T_SEED_STRIDE * (i + 1)
        sT += _columns(measure(e, runs_T, seed=s_i).stats)
        seeds_T.append(s_i)
        ids_T.append(e.id)
    fig, (a1, a2) = new_figure(ncols=2, height=2.2, sharey=True)
    bound = 2 * math.sqrt(1 / 8)
    # a y axis zoomed onto the data and the reference line (not from 0: the message is the flatness
    # of the medians, and their spread is ~0.2 on a level ~0.9), shared so that the panels compare
    lo = min([bound] + [s[1] for s in sd + sT])
    hi = max(s[2] for s in sd + sT)
    pad = 0.08 * (hi - lo)
    for ax, xs, st, xl, what in ((a1, ds, sd, "dimension d (M = 8d)", "d"),
                                 (a2, Ts, sT, f"horizon T (d = {exp_T.params['d']}, M = {exp_T.params['M']})",
                                  "T")):
        med = [s[0] for s in st]
        ax.errorbar(xs, med, yerr=[[v - s[1] for v, s in zip(med, st)],
                                   [s[2] - v for v, s in zip(med, st)]], marker="o", ls="-", color="C0",
                    capsize=3, label="median, bars: interquartile range")
        ax.set_xscale("log")
        grid_ticks(ax, xs, "x", "%d")
        ax.set_xlim(xs[0] / 1.35, xs[-1] * 1.35)
        ax.set_ylim(lo - pad, hi + 3.2 * pad)
        ax.set_xlabel(xl)
        ref_line(ax, y=bound, label=r"$2\sqrt{d/M} = 2\sqrt{1/8} \approx 0.71$")
        # the claim is flatness: the largest median over the smallest, printed on the panel
        ax.text(0.98, 0.97, f"largest / smallest median = {max(med) / min(med):.2f}", transform=ax.transAxes,
                ha="right", va="top", fontsize=7)
    a1.set_ylabel("sup tracking error")
    a1.set_title(f"against d: {md.trials} runs per d, T = {exp_d.params['T']}")
    a2.set_title(f"against T: {runs_T} independent runs per T")
    handles, labels = a1.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=2)
    panel_letters((a1, a2))
    data = {"d": list(ds), "T_for_d": exp_d.params["T"], "by_d": [list(s) for s in sd],
            "T": list(Ts), "by_T": [list(s) for s in sT], "runs": [md.trials, runs_T],
            "seed": seed, "seeds_by_T": seeds_T, "experiments": [exp_d.id] + ids_T,
            "columns": ["median", "q25", "q75"],
            "note": "panel (b): one experiment per T with its own seed (independent columns)"}
    return fig, data


@figure("ensemble_regret_vs_m",
        caption="Final regret of linear Ensemble++ and classic ensemble sampling relative to exact Thompson "
                "sampling, against the ensemble size M: mean final regret divided by TS's on the same "
                "repetitions (paired bootstrap 95% intervals), one row per dimension d of the claims (d = 10 and "
                "50, K = 1000 arms, T = 2000; a quick build reads the claims' d = 10 experiment only, at 5 "
                "repetitions), one column per group of index families. 1 = parity with TS (the grey band is "
                "TS's own 95% interval relative to its mean), dotted = TS + 10%. The continuous indices "
                "(Gaussian, sphere, cube) reach TS as M grows; signed-coordinate and sparse indices get worse "
                "with M. The smallest M within 10% of TS is the quantity of ensemble.regret.finite.* and "
                "ensemble.regret.smallest_m_vs_d.",
        claims=("ensemble.regret.finite.*", "ensemble.regret.smallest_m_vs_d"), width="page")
def regret_vs_m(*, quick: bool, seed: int):
    ds = _sweep_ds(quick)
    groups = (("continuous indices", ("gaussian", "sphere", "cube")),
              ("discrete indices", ("signed_coord", "sparse")),
              ("ensemble sampling", ("ES",)))
    style_of = {family_label(idx, pert): j for j, (idx, pert) in enumerate(SWEEP_FAMILIES)}
    fig, axes = new_figure(ncols=len(groups), nrows=len(ds), height=2.05 * len(ds) + 0.25, sharex="row",
                           sharey="row", squeeze=False)
    data = {"d": list(ds), "seed": seed, "margin": 0.10, "panels": [],
            "note": "ratio = mean final regret of the agent / mean final regret of TS over the same "
                    "repetitions; 95% interval by a paired bootstrap over repetitions"}
    nb = 500 if quick else 2000
    rng = np.random.default_rng(seed)
    for row, d in zip(axes, ds):
        res = _sweep(d, quick, seed)
        ts = res.final[res.index("TS")]                              # final[agent, repetition]
        ts_m, (ts_lo, ts_hi) = res.final_mean_ci("TS")
        boot = rng.integers(0, res.n_reps, size=(nb, res.n_reps))
        panel = {"d": d, "T": res.T, "n_reps": res.n_reps, "TS": [ts_m, ts_lo, ts_hi], "families": {}}
        for lab in ("LinUCB", "Greedy"):
            m, ci = res.final_mean_ci(lab)
            panel[lab] = [m, ci[0], ci[1]]
        ms = list(res.ms)
        for ax, (title, fams) in zip(row, groups):
            ax.axhspan(ts_lo / ts_m, ts_hi / ts_m, color="k", alpha=0.10, lw=0)
            ref_line(ax, y=1.0, color="k", ls="-", lw=1.0)
            ref_line(ax, y=1.1, color="k", lw=0.8, ls=":")
            for fam in fams:
                j = style_of[fam]
                idx, pert = SWEEP_FAMILIES[j]
                cols = [res.index(f"{fam}[M={M}]") for M in ms]
                vals = res.final[cols].T                                   # repetitions × M
                ratio = vals.mean(axis=0) / ts.mean()
                rb = vals[boot].mean(axis=1) / ts[boot].mean(axis=1)[:, None]
                lo, hi = np.quantile(rb, [0.025, 0.975], axis=0)
                dodge = 10 ** (0.025 * (fams.index(fam) - (len(fams) - 1) / 2))
                ax.errorbar(np.asarray(ms) * dodge, ratio, yerr=[ratio - lo, hi - ratio], color=f"C{j}",
                            marker="osD^vP"[j], ls=("-", "--", "-.", ":", "-", "--")[j], lw=1, ms=3,
                            label=plain_agent(fam))
                sm = smallest_m_within(res, idx, pert, margin=0.10, n_boot=nb, seed=seed)
                sm1 = smallest_m_within(res, idx, pert, margin=0.10, n_boot=nb, seed=seed, rule="first")
                m_abs = [res.final_mean_ci(f"{fam}[M={M}]") for M in ms]
                panel["families"][fam] = {"M": ms, "mean": [v[0] for v in m_abs],
                                          "ci": [list(v[1]) for v in m_abs], "ratio_to_TS": ratio.tolist(),
                                          "ratio_ci": [lo.tolist(), hi.tolist()],
                                          "smallest_M": sm.to_dict(), "first_M_within": sm1.to_dict()}
            ax.set_xscale("log")
            ax.set_yscale("log")
            grid_ticks(ax, ms, "x", "%d", every=2)
            ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
            ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
            ax.set_title(f"{title}, d = {d}")
            ax.legend(loc="upper right", fontsize=7, handlelength=1.8)
        row[0].set_ylabel("final regret / TS's")
        data["panels"].append(panel)
    for ax in axes[-1]:
        ax.set_xlabel("ensemble size M")
    n_reps = data["panels"][0]["n_reps"]
    scope = (f"quick build: d = {ds[0]} only, {n_reps} repetitions (full: d = "
             f"{' and '.join(map(str, FINITE_SWEEPS))}, {_SWEEP_REPS} repetitions)" if quick
             else f"{n_reps} repetitions per point")
    fig.suptitle(f"K = 1000 arms, T = 2000 rounds, {scope}\nline: parity with exact TS (band: its 95% CI), "
                 f"dotted: TS + 10%", fontsize=7)
    panel_letters(axes.flat)
    return fig, data


@figure("ensemble_regret_curves",
        caption="Cumulative regret over rounds at M = 8d on the finite-arm problem: (a) every agent, mean "
                "with pointwise 95% t-band over repetitions (logarithmic axis); (b) the comparison that matters, "
                "each ensemble agent's cumulative regret minus exact Thompson sampling's on the same "
                "repetition (paired difference, mean and 95% t-band), with 0 = parity with TS. The curves "
                "that coincide in (a) separate in (b). Data of ensemble.regret.finite.*.",
        claims=("ensemble.regret.finite.*",), width="page")
def regret_curves(*, quick: bool, seed: int):
    from scipy import stats as st

    d = _sweep_ds(quick)[-1]
    res = _sweep(d, quick, seed)
    M = 8 * d
    fig, (a, b) = new_figure(ncols=2, height=2.6)
    t = res.times
    data = {"d": d, "M": M, "T": res.T, "n_reps": res.n_reps, "seed": seed, "curves": {},
            "minus_TS": {}}
    every = max(1, len(t) // 8)
    for i, lab in enumerate(res.curve_labels):
        mean, lo, hi = res.curve_mean_ci(lab)
        line, = a.plot(t, mean, label=plain_agent(lab.split("[")[0]), markevery=(i * every // 7, every),
                       zorder=3 if lab == "TS" else 2)      # the reference agent on top
        a.fill_between(t, np.maximum(lo, 0.5 * mean), hi, color=line.get_color(), alpha=0.12, lw=0)
        data["curves"][lab] = {"t": t.tolist(), "mean": mean.tolist(), "lo": lo.tolist(),
                               "hi": hi.tolist()}
    ts = res.curve[:, res.curve_labels.index("TS"), :]
    q = st.t.ppf(0.975, res.n_reps - 1) if res.n_reps > 1 else np.inf
    for i, lab in enumerate(res.curve_labels):
        if lab in ("TS", "LinUCB", "Greedy"):
            b.plot([], [])          # keep each agent's colour, marker and line style across panels
            continue
        diff = res.curve[:, res.curve_labels.index(lab), :] - ts
        m = diff.mean(axis=0)
        h = q * diff.std(axis=0, ddof=1) / math.sqrt(res.n_reps) if res.n_reps > 1 else np.zeros_like(m)
        line, = b.plot(t, m, label=plain_agent(lab.split("[")[0]), markevery=(i * every // 7, every))
        b.fill_between(t, m - h, m + h, color=line.get_color(), alpha=0.12, lw=0)
        data["minus_TS"][lab] = {"mean": m.tolist(), "lo": (m - h).tolist(), "hi": (m + h).tolist()}
    ref_line(b, y=0.0, color="k", ls="-", lw=0.8, label="parity with TS")
    for ax in (a, b):
        ax.set_xlabel("round t")
    a.set_yscale("log")
    a.set_ylabel("cumulative regret")
    b.set_ylabel("cumulative regret − TS (paired)")
    a.set_title(f"every agent: d = {d}, M = 8d = {M}, {res.n_reps} reps")
    b.set_title("ensemble agents minus exact TS")
    handles, labels = a.get_legend_handles_labels()
    hb, lb = b.get_legend_handles_labels()
    fig.legend(handles + hb[-1:], labels + lb[-1:], loc="outside lower center", ncol=4, columnspacing=0.8)
    panel_letters((a, b))
    return fig, data
