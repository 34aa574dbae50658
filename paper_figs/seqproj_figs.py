"""Figures for sequential random projection (``docs/theory/seqproj.md``).

* ``seqproj_failure_vs_M`` — time-uniform failure probability vs M, one curve
  per predictable adversary (sphere columns), with δ and the theorem's M marked.
* ``seqproj_fixed_vs_uniform`` — under the stopping adversary, the fixed-time
  failure at t = T equals the time-uniform one and exceeds the fixed-vector
  (Dasgupta–Gupta) bound; a fixed design stays far below it.
* ``seqproj_tails`` — failure vs M by column family; one-hot flagged.
* ``seqproj_required_M`` — required M vs T (log axes): the sequential bound,
  the union bound, scikit-learn's formula and the empirical M*.

Every Monte Carlo point is an engine experiment named in :mod:`seqproj.experiments`
(the setting ε, δ, T and the chunk sizes too), measured with
:func:`proofs_check.engine.measure` at the figure's root seed, on
threads: chunk ``k`` draws from ``SeedSequence(seed, spawn_key=(k,))`` whatever
the number of threads, and a point that shows the same simulation as a claim
(M = 32 in ``failure_vs_M`` and ``fixed_vs_uniform``, M = 128 in ``tails``)
is that claim's experiment, so it reads the same chunks (``chunks_of=``; checked by
``tests/test_figure_experiments.py``).  Points carry an exact 95 %
Clopper–Pearson interval, except the empirical M* of ``seqproj_required_M``,
whose error bar is the simultaneous 99 % confidence bracket of
:func:`seqproj.empirical_min_dim` (measured the same way).
"""
from __future__ import annotations

import numpy as np

from proofs_check.engine import clopper_pearson, make_executor, measure
from seqproj import (FAMILIES, empirical_min_dim, fixed_vector_jl_failure_bound, sequential_jl_min_dim,
                     sklearn_jl_min_dim, union_bound_jl_min_dim)
from seqproj.experiments import (DELTA, EPS, FIXED_TIME_T, TAILS_M, T, band_experiment,
                                 fixed_time_experiment, tails_experiment)

from .registry import figure
from .style import delta_line, grid_ticks, new_figure, panel_letters, theorem_M_line


def _estimate(k, n):
    lo, hi = clopper_pearson(int(k), int(n), 0.05)
    return {"events": int(k), "trials": int(n), "p_hat": k / n, "ci": [lo, hi]}


def _measure(events, executor, seed, n, exp):
    """Estimates of ``events`` from ``n`` trials (whole chunks) of the path experiment ``exp``."""
    stats = measure(exp, n, seed=seed, executor=executor).stats
    return [_estimate(stats[e].sum(), stats[e].size) for e in events]


def _plot_curve(ax, xs, ests, label, marker="o", **kw):
    p = np.array([e["p_hat"] for e in ests])
    lo = np.array([e["ci"][0] for e in ests])
    hi = np.array([e["ci"][1] for e in ests])
    shown = p > 0
    line, = ax.plot(np.asarray(xs)[shown], p[shown], marker=marker, label=label, **kw)
    xs_arr = np.asarray(xs)
    ax.fill_between(xs_arr[shown], lo[shown], hi[shown], color=line.get_color(), alpha=0.15, lw=0)
    # zero counts: the upper end of the interval, as a downward triangle
    if (~shown).any():
        ax.plot(np.asarray(xs)[~shown], hi[~shown], ls="", marker="v", mfc="white", color=line.get_color())
    return line


@figure("seqproj_failure_vs_M",
        caption="Time-uniform failure probability P(the norm ratio leaves [1−ε, 1+ε] at some t ≤ T) of a "
                "sequential random projection with sphere columns against the sketch dimension M, one curve "
                "per predictable adversary (ε = 0.5, T = 300), with exact 95% Clopper–Pearson bands; open "
                "triangles are the interval tops of points with 0 events; points are dodged sideways because several "
                "adversaries give the same failure law. Every curve is below δ = 0.05 at "
                "the theorem's M (dotted): seqproj.coverage.sphere.* and seqproj.anytime.sphere.*.",
        claims=("seqproj.coverage.sphere.*", "seqproj.anytime.sphere.*"), width="column",
        chunks_of=("seqproj.coverage.sphere.constant.M32",))
def failure_vs_M(*, quick: bool, seed: int):
    Ms = [16, 32, 64, 128, 256, 512] if not quick else [16, 32, 64, 128]
    n = 1_000 if quick else 50_000
    advs = ("constant", "random", "stopping", "magnitude", "pushing")
    M_th = sequential_jl_min_dim(EPS, DELTA, T)
    fig, ax = new_figure(height=3.0)
    data = {"eps": EPS, "delta": DELTA, "T": T, "columns": "sphere", "M_theorem": M_th, "M": Ms,
            "trials_per_point": n, "curves": {}}
    with make_executor("threads") as ex:
        for adv in advs:
            ests = [_measure(["failed"], ex, seed, n, band_experiment(M, "sphere", adv))[0] for M in Ms]
            data["curves"][adv] = ests
            i = advs.index(adv)
            # dodged sideways: several adversaries give the same failure law and would hide each other
            _plot_curve(ax, np.asarray(Ms) * 10 ** (0.02 * (i - 2)), ests, adv, marker="osD^P"[i],
                        ls=("-", "--", "-.", ":", (0, (5, 1, 1, 1)))[i], color=f"C{i}")
    delta_line(ax, DELTA)
    theorem_M_line(ax, M_th)
    lo = min(e["ci"][1] if e["events"] == 0 else e["ci"][0] for c in data["curves"].values() for e in c)
    ax.set(xscale="log", yscale="log", xlabel="sketch dimension M",
           ylabel="P(leaves [1−ε, 1+ε] at some t ≤ T)", ylim=(lo / 2, 1.3),
           title=f"sphere columns, ε = {EPS}, T = {T}, {n:,} runs")
    grid_ticks(ax, Ms + [M_th], "x", "%d")
    fig.legend(loc="outside lower center", ncol=3, columnspacing=0.7, handlelength=1.8)
    return fig, data


@figure("seqproj_fixed_vs_uniform",
        caption="Under the stopping adversary the failure at the fixed time t = T (markers) equals the "
                "time-uniform failure at some t ≤ T (wide pale line) — the same events — and exceeds the "
                "fixed-vector Dasgupta–Gupta bound (dotted), which a fixed design (triangles) obeys: (a) "
                "sphere, (b) Gaussian columns, ε = 0.5, T = 500, exact 95% Clopper–Pearson bands. "
                "Supports seqproj.fixed_time.stopping.sphere, seqproj.fixed_time.stopping.gaussian and "
                "seqproj.fixed_time.constant.gaussian.",
        claims=("seqproj.fixed_time.*",), width="page", chunks_of=("seqproj.fixed_time.*",))
def fixed_vs_uniform(*, quick: bool, seed: int):
    Ms = [16, 24, 32, 48, 64, 96, 128] if not quick else [16, 32, 64]
    Tb = FIXED_TIME_T
    n = 10_000 if quick else 50_000            # whole chunks of 10 000
    fig, axes = new_figure(ncols=2, height=2.7, sharey=True)
    data = {"eps": EPS, "T": Tb, "M": Ms, "trials_per_point": n, "curves": {}}
    labels = ("stopping, out of band at t = T", "stopping, time-uniform (some t ≤ T)",
              "fixed design, out of band at t = T")
    dg = [float(fixed_vector_jl_failure_bound(M, EPS)) for M in Ms]
    with make_executor("threads") as ex:
        for ax, fam in zip(axes, ("sphere", "gaussian")):
            curves = {lab: [] for lab in labels}
            for M in Ms:
                a, b = _measure(["out_at_T", "failed"], ex, seed, n, fixed_time_experiment(M, fam, "stopping"))
                c, = _measure(["out_at_T"], ex, seed, n, fixed_time_experiment(M, fam, "constant"))
                curves[labels[0]].append(a)
                curves[labels[1]].append(b)
                curves[labels[2]].append(c)
            # time-uniform first, wide and pale, so the identical fixed-time points sit visibly on it
            _plot_curve(ax, Ms, curves[labels[1]], labels[1], marker="", ls="-", lw=5, alpha=0.45,
                        color="C5", zorder=1.5)
            _plot_curve(ax, Ms, curves[labels[0]], labels[0], marker="o", ls="--", color="C0", zorder=2.5)
            _plot_curve(ax, Ms, curves[labels[2]], labels[2], marker="^", ls="-.", color="C2")
            for lab in labels:
                data["curves"][f"{fam}: {lab}"] = curves[lab]
            ax.plot(Ms, dg, "k:", lw=1.2, label="fixed-vector JL bound (Dasgupta–Gupta)")
            ax.set(xscale="log", yscale="log", xlabel="sketch dimension M", title=f"{fam} columns")
            grid_ticks(ax, Ms, "x", "%d")
    data["dasgupta_gupta_bound"] = dg
    lo = min(e["ci"][0] if e["events"] else e["ci"][1] for c in data["curves"].values() for e in c)
    axes[0].set_ylim(min(lo, min(dg)) / 2, 1.5)
    axes[0].set_ylabel(f"failure probability (T = {Tb}, ε = {EPS})")
    panel_letters(axes)
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside right center")
    return fig, data


@figure("seqproj_tails",
        caption="Time-uniform failure probability against M by column family (constant adversary, ε = 0.5, "
                "T = 300), exact 95% Clopper–Pearson bands; open triangles mark 0 events (interval top). "
                "Sphere, Gaussian, Rademacher and sparse columns share the sub-Gaussian tail; one-hot "
                "columns (outside the theorem's assumptions) fail far more often: seqproj.tails.*.",
        claims=("seqproj.tails.*",), width="column",
        chunks_of=tuple(f"seqproj.tails.{fam}" for fam in FAMILIES))
def tails(*, quick: bool, seed: int):
    Ms = [32, 64, TAILS_M] if quick else [32, 48, 64, 96, TAILS_M, 192]
    n_red = 2_000 if quick else 200_000
    n_full = 1_000 if quick else 10_000        # whole chunks of 1 000
    fams = ("sphere", "gaussian", "rademacher", "onehot", "sparse")
    fig, ax = new_figure(height=2.9)
    data = {"eps": EPS, "T": T, "M": Ms, "adversary": "constant", "curves": {}}
    with make_executor("threads") as ex:
        for fam in fams:
            exps = [tails_experiment(fam, M) for M in Ms]
            ests = [_measure(["failed"], ex, seed, n_red if e.params["simulator"] == "reduced" else n_full, e)[0]
                    for e in exps]
            _tails_curve(ax, data, fam, Ms, ests)
    lo = min(e["ci"][0] if e["events"] else e["ci"][1] for c in data["curves"].values() for e in c)
    ax.set(xscale="log", yscale="log", xlabel="sketch dimension M",
           ylabel="P(leaves the band at some t ≤ T)", ylim=(lo / 2, 1.3),
           title=f"column families, ε = {EPS}, T = {T}")
    grid_ticks(ax, Ms, "x", "%d")
    fig.legend(loc="outside lower center", ncol=2, columnspacing=0.8)
    return fig, data


def _tails_curve(ax, data, fam, Ms, ests):
    label = fam + (" (outside assumptions)" if fam == "onehot" else "")
    if fam == "sparse":
        label = "sparse, s = M/8"
    data["curves"][fam] = ests
    i = ("sphere", "gaussian", "rademacher", "onehot", "sparse").index(fam)
    _plot_curve(ax, Ms, ests, label, color=f"C{i}", marker="osDP^"[i], ls=("-", "--", "-.", ":", "-")[i])


@figure("seqproj_required_M",
        caption="Sketch dimension M required for ε = 0.5, δ = 0.05 against the horizon T (log axes): the "
                "sequential JL theorem (constant 16), a union bound over T fixed vectors, scikit-learn's "
                "Johnson–Lindenstrauss formula with n = T, and the empirical M* (sphere columns, constant "
                "design) with its simultaneous 99% bracket. The theorem is conservative by a constant "
                "factor: seqproj.efficiency.*.",
        claims=("seqproj.efficiency.*",), width="column")
def required_M(*, quick: bool, seed: int):
    Ts = np.array([10, 30, 100, 300, 1000, 3000, 10_000])
    T_emp = [10, 30, 100, 300] if quick else [10, 30, 100, 300, 1000]
    trials = 2_000 if quick else 20_000
    seq = sequential_jl_min_dim(EPS, DELTA, Ts)
    uni = union_bound_jl_min_dim(EPS, DELTA, Ts)
    skl = sklearn_jl_min_dim(Ts, EPS)
    with make_executor("threads") as ex:
        emp = [empirical_min_dim(EPS, DELTA, int(t), trials=trials, seed=seed, executor=ex)
               for t in T_emp]
    fig, ax = new_figure(height=3.0)
    ax.plot(Ts, seq, "o-", color="C0", label="sequential JL theorem (const. 16)")
    ax.plot(Ts, uni, "s--", color="C1", label="union bound, T fixed vectors")
    ax.plot(Ts, skl, "^-.", color="C2", label="scikit-learn formula, n = T")
    est = np.array([e.M_star for e in emp])
    lo = np.array([e.M_lo for e in emp])
    hi = np.array([e.M_hi for e in emp])
    ax.errorbar(T_emp, est, yerr=[est - lo, hi - est], fmt="D:", color="C3",
                label="empirical M* (99% simultaneous bracket)")
    ax.set(xscale="log", yscale="log", xlabel="horizon T", ylabel="required M",
           title=f"required dimension, ε = {EPS}, δ = {DELTA}")
    grid_ticks(ax, Ts, "x", "%d")
    fig.legend(loc="outside lower center", ncol=1)
    data = {"eps": EPS, "delta": DELTA, "T": Ts, "sequential": seq, "union_bound": uni,
            "sklearn_rounded_up": skl, "empirical": [e.to_dict() for e in emp]}
    return fig, data
