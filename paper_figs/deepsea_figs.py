"""DeepSea figure (theory ``docs/theory/ensemble.md#deep-sea``).

``deepsea`` — episodes to solve DeepSea(N) vs N (log–log) for exact RLSVI,
HyperAgent (closed form, M = ⌈2 log(2N²)⌉; SGD on N ≤ 20), a bootstrapped
ensemble (K = 10) and ε-greedy; every run is a dot, the median over runs a line
(drawn only where more than half of the runs solved, since the median of a
censored sample is known only then), censored runs open triangles at the
censoring point ``E(N) − W``; the dashed line is the budget.  Exponents with
95% intervals over the uncensored prefix of the grid
(:func:`~seqproj.ensemble.fit_exponent`) are in the legend and the data.
``deepsea_compute`` — CPU time per environment step of RLSVI and HyperAgent
(closed form and SGD), measured interleaved (:func:`~seqproj.ensemble.step_times`);
it measures time, so unlike ``deepsea`` it is not byte-stable.
``deepsea_sigma`` — the σ sweep (issue 23 §3, ``ensemble.md#deep-sea-laws``): episodes to solve
vs N for RLSVI and HyperAgent at each agent noise scale σ ∈ {0.03, 0.1, 0.3, 1}
(:data:`~seqproj.ensemble.experiments.DEEPSEA_SIGMA`, 16 instances; quick: N ∈ {4, 6, 8}, 8
instances), median and interquartile band over the runs where identified, censored runs as open
triangles at the censoring point with their count.

The numbers come from :func:`proofs_check.engine.measure` of the experiments
:data:`~seqproj.ensemble.experiments.DEEPSEA_STUDY` and :data:`~seqproj.ensemble.experiments.DEEPSEA_SGD`
(16 instances each); ``quick=True`` measures N ∈ {4, 6, 8} with 8 instances.
"""
from __future__ import annotations

import math

import numpy as np

from proofs_check.engine import measure
from seqproj.ensemble import deep_sea_experiment, fit_exponent, fit_median_exponent, index_dim, step_times
from seqproj.ensemble.experiments import DEEPSEA_SGD, DEEPSEA_SIGMA, DEEPSEA_STUDY, SIGMAS, WINDOW

from .registry import figure
from .style import grid_ticks, log_tick_labels, new_figure

_RUNS = 16
_STYLE = {"rlsvi": ("exact RLSVI (TS)", "k", "o"),
          "hyper": ("HyperAgent, closed form", "C0", "s"),
          "hyper_sgd": ("HyperAgent, SGD", "C4", "D"),
          "bootstrap": ("bootstrap, K = 10", "C2", "^"),
          "eps_greedy": ("ε-greedy, ε = 0.1", "C1", "v")}


def _experiments(quick: bool):
    if quick:
        return (deep_sea_experiment("study.quick", agents=("rlsvi", "hyper", "bootstrap",
                                                           "eps_greedy"), Ns=(4, 6, 8)),
                deep_sea_experiment("sgd.quick", agents=("hyper", "hyper_sgd"), Ns=(4, 6, 8))), 8
    return (DEEPSEA_STUDY, DEEPSEA_SGD), _RUNS


@figure("deepsea", width="page",
        caption="Episodes to solve deterministic DeepSea(N) (first e after which ≥ 18 of the next "
                "20 episodes find the reward) against N, log–log: dots are runs, lines medians "
                "(drawn where more than half of the runs solved), open triangles censored runs at "
                "the censoring point with their count; exponents with 95% intervals over the "
                "uncensored prefix of the grid (or of the medians, where runs are censored) in "
                "the legend. Claims ensemble.deepsea.*.",
        claims=("ensemble.deepsea.*",))
def deepsea_scaling(*, quick: bool, seed: int):
    (study, sgd), runs = _experiments(quick)
    m_study = measure(study, runs, seed=seed)
    m_sgd = measure(sgd, runs, seed=seed)
    fig, ax = new_figure(height=4.3)
    data = {"seed": seed, "runs": runs, "window": WINDOW, "threshold": 0.9,
            "budget": "E(N) = N^2 + 200", "experiments": [study.id, sgd.id], "agents": {},
            "fit_rule": "exponent over the longest prefix of the N grid with no censored run; "
                        "mean of per-run log-log slopes, 95% t-interval"}
    series = [(a, m_study, study) for a in study.params["agents"]] + [("hyper_sgd", m_sgd, sgd)]
    Nmax = max(study.params["Ns"])
    grid = np.array(sorted(set(study.params["Ns"]) | {2 * Nmax}), float)
    for k, (agent, meas, exp) in enumerate(series):
        label, color, marker = _STYLE[agent]
        Ns = np.asarray(exp.params["Ns"], float)
        y = np.asarray(meas.stats[f"episodes_{agent}"], float)
        jitter = 1.0 + 0.035 * (k - 2)
        med = []
        # an agent whose every median is censored is labelled on its censored markers
        all_cens = not np.any(np.isfinite(y).sum(axis=0) * 2 > y.shape[0])
        cens_label = "__pending__" if all_cens else None
        for j, N in enumerate(Ns):
            col = y[:, j]
            ok = np.isfinite(col)
            ax.scatter(np.full(ok.sum(), N * jitter), np.maximum(col[ok], 1), s=6, color=color,
                       alpha=0.35, marker=marker, lw=0)
            cens_at = N * N + 200 - WINDOW
            if (~ok).any():
                ax.scatter([N * jitter], [cens_at], s=28, marker="^", facecolors="none",
                           edgecolors=color, lw=1.0, label=cens_label)
                cens_label = None
                ax.annotate(f"{(~ok).sum()}", (N * jitter, cens_at), textcoords="offset points",
                            xytext=(0, 5) if agent == "eps_greedy" else (0, -13), ha="center",
                            fontsize=7, color=color)
            # median known when more than half solved (censored runs count as +∞)
            med.append(float(np.median(np.where(ok, col, np.inf))) if ok.sum() * 2 > len(col)
                       else np.nan)
        fit = fit_exponent(exp.params["Ns"], y, agent=agent)
        mfit = fit_median_exponent(exp.params["Ns"], y, n_boot=500 if quick else 2000, seed=seed)
        if fit.exponent is not None and fit.ci is not None:
            lab = f"{label}: a = {fit.exponent:.2f} [{fit.ci[0]:.2f}, {fit.ci[1]:.2f}]"
            if len(fit.Ns_fitted) < len(Ns):
                lab += f" (N ≤ {fit.Ns_fitted[-1]})"
        elif mfit["exponent"] is not None:
            lo, hi = mfit["ci"]
            lab = (f"{label}: median fit a = {mfit['exponent']:.2f} "
                   f"[{'?' if lo is None else f'{lo:.2f}'}, {'∞' if hi is None else f'{hi:.2f}'}]")
        else:
            lab = f"{label}: censored (no exponent)"
        if np.any(np.isfinite(med)):
            ax.plot(Ns * jitter, med, color=color, marker=marker, ms=3.5, lw=1.1, label=lab)
        else:                                    # every median censored: label the open markers
            for coll in ax.collections:
                if coll.get_label() == "__pending__":
                    coll.set_label(lab)
        data["agents"][agent] = {"label": label, "Ns": list(exp.params["Ns"]), "median": med,
                                 "episodes": y.tolist(), "fit": fit.to_dict(),
                                 "median_fit": mfit,
                                 "experiment": exp.id,
                                 "M": [index_dim(int(N)) for N in Ns] if "hyper" in agent else None}
    ax.plot(grid[grid <= Nmax], grid[grid <= Nmax] ** 2 + 200, color="0.5", ls="--", lw=0.8,
            marker="", label="budget N² + 200 (open △ = censored runs, with their count)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    grid_ticks(ax, study.params["Ns"])
    log_tick_labels(ax, mantissas=(1, 2, 5))
    ax.set_xlabel("DeepSea size N")
    ax.set_ylabel(f"episodes to solve (≥ 90% of {WINDOW})")
    ax.set_title(f"deterministic DeepSea, {runs} instances per N (seed {seed})")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)
    return fig, data


@figure("deepsea_compute", width="column",
        caption="CPU time per environment step (fit, act and update; one instance) of exact RLSVI and "
                "HyperAgent (closed form and SGD) on DeepSea(N). The agents are interleaved within each timing "
                "round; a small dot is one round, a large marker the median over rounds, the bar the min–max "
                "range. Points are dodged sideways by agent; lines join the medians only in the full build (five "
                "sizes N), so that a quick build's few noisy sizes are not read as a trend. The figure measures time, so "
                "it is not byte-stable. Supports the compute part of claims ensemble.deepsea.*.",
        claims=("ensemble.deepsea.hyper.*",))
def deepsea_compute(*, quick: bool, seed: int):
    fig, ax2 = new_figure(height=3.0)
    data = {"seed": seed}
    Ns_t = (5, 10, 20) if quick else (10, 20, 30, 40, 50)
    agents_t = ("rlsvi", "hyper", "hyper_sgd")
    t = step_times(Ns_t, agents=agents_t, episodes=3 if quick else 10, reps=3, seed=seed)
    sps = np.asarray(t["seconds_per_step"])                 # (reps, agents, Ns)
    medt = np.median(sps, axis=0) * 1e6
    trend = not quick                   # five sizes: the medians may be joined; a quick build's few are not
    for i, agent in enumerate(agents_t):
        label, color, marker = _STYLE[agent]
        x = np.asarray(Ns_t, float) * 10 ** (0.015 * (i - 1))   # dodged sideways (log axis)
        lo, hi = sps[:, i].min(axis=0) * 1e6, sps[:, i].max(axis=0) * 1e6
        ax2.errorbar(x, medt[i], yerr=[medt[i] - lo, hi - medt[i]], color=color, marker=marker, ms=4,
                     ls="-" if trend else "", lw=0.8, capsize=2, label=label)
        for r in range(sps.shape[0]):
            ax2.plot(x, sps[r, i] * 1e6, ls="", marker=marker, ms=1.8, color=color, alpha=0.5)
    ax2.set_xscale("log")
    ax2.set_xlabel("DeepSea size N")
    grid_ticks(ax2, Ns_t)
    ax2.set_xlim(Ns_t[0] / 1.2, Ns_t[-1] * 1.2)
    ax2.set_ylim(bottom=0)              # linear: the times span less than a decade
    ax2.set_ylabel("CPU time per step (µs)")
    ax2.set_title(f"time per step, median and range of {sps.shape[0]} rounds")
    r = medt[1] / medt[0]               # the figure's number: closed-form HyperAgent against exact RLSVI
    ax2.text(0.03, 0.05, f"HyperAgent (closed form) / RLSVI: {r.min():.2f}–{r.max():.2f}× over N",
             transform=ax2.transAxes, fontsize=7, ha="left", va="bottom")
    fig.legend(*ax2.get_legend_handles_labels(), loc="outside lower center", ncol=2, columnspacing=0.8)
    data["step_times"] = {"Ns": list(Ns_t), "agents": list(agents_t),
                          "median_us": medt.tolist(), "all_s": sps.tolist(),
                          "ratio_hyper_to_rlsvi": (medt[1] / medt[0]).tolist()}
    return fig, data


def _quantile_censored(col, q):
    """The q-quantile of runs with censored ones as +∞: NaN when it falls among the censored."""
    v = float(np.quantile(np.where(np.isfinite(col), col, np.inf), q, method="inverted_cdf"))
    return v if math.isfinite(v) else np.nan


@figure("deepsea_sigma", width="page",
        caption="Episodes to solve deterministic DeepSea(N) against N (log–log) for exact RLSVI (left) "
                "and HyperAgent, closed form, M = ⌈2 log(2N²)⌉ (right), at four values of the agents' "
                "noise scale σ (the study uses σ = 0.1): median line and interquartile band over the "
                "instances (each quantile drawn only where it is identified, i.e. not among the "
                "censored runs), open triangles censored runs at the censoring point with their "
                "count. All σ play the same instances. Supports ensemble.md#deep-sea-laws.",
        claims=("ensemble.deepsea.*",))
def deepsea_sigma(*, quick: bool, seed: int):
    if quick:
        exps = {s: deep_sea_experiment(f"sigma{round(100 * s):03d}.quick", agents=("rlsvi", "hyper"),
                                       Ns=(4, 6, 8), noise_sd=s) for s in SIGMAS}
        runs = 8
    else:
        exps, runs = DEEPSEA_SIGMA, _RUNS
    fig, axes = new_figure(2, height=3.4, sharey=True)
    data = {"seed": seed, "runs": runs, "sigmas": list(SIGMAS), "window": WINDOW, "threshold": 0.9,
            "budget": "E(N) = N^2 + 200", "experiments": {str(s): e.id for s, e in exps.items()},
            "agents": {}}
    colors = dict(zip(SIGMAS, ("C2", "k", "C0", "C3")))
    for ax, agent in zip(axes, ("rlsvi", "hyper")):
        data["agents"][agent] = {}
        for k, (sig, exp) in enumerate(exps.items()):
            y = np.asarray(measure(exp, runs, seed=seed).stats[f"episodes_{agent}"], float)
            Ns = np.asarray(exp.params["Ns"], float)
            x = Ns * (1.0 + 0.03 * (k - 1.5))
            q = np.array([[_quantile_censored(y[:, j], p) for j in range(len(Ns))]
                          for p in (0.25, 0.5, 0.75)])
            c = colors[sig]
            ax.plot(x, q[1], color=c, marker="o", ms=3, lw=1.1, label=f"σ = {sig:g}")
            ax.fill_between(x, q[0], q[2], color=c, alpha=0.15, lw=0)
            for j, N in enumerate(Ns):
                n_cens = int(np.isnan(y[:, j]).sum())
                if n_cens:
                    cens_at = N * N + 200 - WINDOW
                    ax.scatter([x[j]], [cens_at], s=26, marker="^", facecolors="none", edgecolors=c,
                               lw=1.0)
                    ax.annotate(str(n_cens), (x[j], cens_at), textcoords="offset points",
                                xytext=(0, 5) if k % 2 else (0, -13), ha="center", fontsize=7, color=c)
            fit = fit_exponent(exp.params["Ns"], y, agent=agent)
            data["agents"][agent][str(sig)] = {"Ns": list(exp.params["Ns"]), "quartiles": q.tolist(),
                                               "censored": np.isnan(y).sum(axis=0).tolist(),
                                               "episodes": y.tolist(), "fit": fit.to_dict()}
        Ns_all = np.asarray(next(iter(exps.values())).params["Ns"], float)
        ax.plot(Ns_all, Ns_all ** 2 + 200 - WINDOW, color="0.5", ls="--", lw=0.8, marker="",
                label="censoring point (△ censored, count)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        grid_ticks(ax, list(Ns_all.astype(int)))
        log_tick_labels(ax, mantissas=(1, 2, 5))
        ax.set_xlabel("DeepSea size N")
        ax.set_title("exact RLSVI" if agent == "rlsvi" else "HyperAgent (closed form)")
    axes[0].set_ylabel(f"episodes to solve (≥ 90% of {WINDOW})")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncol=5,
               columnspacing=0.8)
    fig.suptitle(f"noise scale σ of the agents, {runs} instances per N (seed {seed})", fontsize=9)
    return fig, data
