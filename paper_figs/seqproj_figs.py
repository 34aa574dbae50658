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

import math

import numpy as np

from matplotlib.patches import Rectangle

from proofs_check.engine import clopper_pearson, get_claim, make_executor, measure
from seqproj import (FAMILIES, empirical_min_dim, fixed_vector_jl_failure_bound, sequential_jl_min_dim,
                     sklearn_jl_min_dim, union_bound_jl_min_dim)
from seqproj.experiments import (DELTA, EPS, FIXED_TIME_T, TAILS_M, T, band_experiment,
                                 fixed_time_experiment, tails_experiment)

from .registry import figure
from .style import delta_line, grid_ticks, new_figure, panel_letters, ref_line, theorem_M_line


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


def _crossing(xs, ps, level):
    """The ``x`` at which the decreasing curve ``ps`` first falls to ``level``, by linear
    interpolation of ``log p`` in ``log x`` between the two bracketing grid points (``None`` when
    the curve never crosses inside the grid or a bracketing estimate is 0)."""
    for i in range(len(xs) - 1):
        a, b = ps[i], ps[i + 1]
        if a > level >= b and b > 0:
            w = (math.log(a) - math.log(level)) / (math.log(a) - math.log(b))
            return math.exp(math.log(xs[i]) + w * (math.log(xs[i + 1]) - math.log(xs[i])))
    return None


@figure("seqproj_failure_vs_M",
        caption="Time-uniform failure probability P(the norm ratio leaves [1−ε, 1+ε] at some t ≤ T) of a "
                "sequential random projection with sphere columns against the sketch dimension M, one curve "
                "per predictable adversary (ε = 0.5, T = 300), with exact 95% Clopper–Pearson bands; open "
                "triangles are the interval tops of points with 0 events; points are dodged sideways because several "
                "adversaries give the same failure law. Every curve is below δ = 0.05 at "
                "the theorem's M (dotted); the arrow marks the factor between the theorem's M and the M at which "
                "the worst adversary's estimate crosses δ (log–log interpolation between grid points): "
                "seqproj.coverage.sphere.* and seqproj.anytime.sphere.*.",
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
    # the headline: where the worst adversary's curve crosses δ (log–log interpolation of the largest
    # estimate over adversaries) against the theorem's M
    worst = np.max([[e["p_hat"] for e in c] for c in data["curves"].values()], axis=0)
    M_cross = _crossing(Ms, worst, DELTA)
    data["M_crossing_worst"] = M_cross
    if M_cross is not None:
        ratio = M_th / M_cross
        data["theorem_over_crossing"] = ratio
        ax.annotate("", xy=(M_th, DELTA), xytext=(M_cross, DELTA),
                    arrowprops=dict(arrowstyle="<->", color="0.2", lw=1.0, shrinkA=0, shrinkB=0))
        ax.text(math.sqrt(M_th * M_cross), DELTA * 1.25, f"theorem's M ≈ {ratio:.0f}× the\nworst crossing (M ≈ {M_cross:.0f})",
                ha="center", va="bottom", fontsize=7, color="0.15")
    lo = min(e["ci"][1] if e["events"] == 0 else e["ci"][0] for c in data["curves"].values() for e in c)
    ax.set(xscale="log", yscale="log", xlabel="sketch dimension M",
           ylabel="P(leaves [1−ε, 1+ε] at some t ≤ T)", ylim=(lo / 2, 1.3),
           title=f"sphere columns, ε = {EPS}, T = {T}, {n:,} runs")
    grid_ticks(ax, Ms + [M_th], "x", "%d")
    fig.legend(loc="outside lower center", ncol=3, columnspacing=0.7, handlelength=1.8)
    return fig, data


@figure("seqproj_fixed_vs_uniform",
        caption="Fixed-time JL fails under a predictable stopping adversary. (a) Failure probability at the "
                "fixed time t = T against M (ε = 0.5, T = 500): stopping adversary (filled markers; identical to "
                "the time-uniform failure at some t ≤ T, the same events, pale band) and a fixed design (open "
                "markers), sphere and Gaussian columns, with the fixed-vector Dasgupta–Gupta bound (dotted); "
                "exact 95% Clopper–Pearson bands. (b) Zoom at the claims' M = 32, measured at the claims' own "
                "budget (95% Clopper–Pearson intervals): the stopping adversary's failure and its interval lie "
                "above the bound 0.527; the fixed design, in (a), stays far below it. Supports seqproj.fixed_time.stopping.sphere, "
                "seqproj.fixed_time.stopping.gaussian and seqproj.fixed_time.constant.gaussian.",
        claims=("seqproj.fixed_time.*",), width="page", chunks_of=("seqproj.fixed_time.*",))
def fixed_vs_uniform(*, quick: bool, seed: int):
    Ms = [16, 24, 32, 48, 64, 96, 128] if not quick else [16, 32, 64]
    Tb = FIXED_TIME_T
    n = 10_000 if quick else 50_000            # whole chunks of 10 000
    fig, (ax, az) = new_figure(ncols=2, height=2.75, gridspec_kw={"width_ratios": (1.45, 1)})
    data = {"eps": EPS, "T": Tb, "M": Ms, "trials_per_point": n, "curves": {}}
    dg = [float(fixed_vector_jl_failure_bound(M, EPS)) for M in Ms]
    fams = (("sphere", "sphere", "C0", "o"), ("gaussian", "Gaussian", "C1", "s"))
    zoom = {}
    with make_executor("threads") as ex:
        for fam, name, col, mk in fams:
            stop, unif, fixed = [], [], []
            for M in Ms:
                a, b = _measure(["out_at_T", "failed"], ex, seed, n, fixed_time_experiment(M, fam, "stopping"))
                c, = _measure(["out_at_T"], ex, seed, n, fixed_time_experiment(M, fam, "constant"))
                stop.append(a)
                unif.append(b)
                fixed.append(c)
            data["curves"][f"{fam}: stopping, out of band at t = T"] = stop
            data["curves"][f"{fam}: stopping, time-uniform (some t ≤ T)"] = unif
            data["curves"][f"{fam}: fixed design, out of band at t = T"] = fixed
            # time-uniform first, wide and pale, so the identical fixed-time points sit visibly on it
            _plot_curve(ax, Ms, unif, None, marker="", ls="-", lw=5, alpha=0.3, color=col, zorder=1.5)
            _plot_curve(ax, Ms, stop, f"stopping adversary, {name}", marker=mk, ls="-", color=col, zorder=2.5)
            _plot_curve(ax, Ms, fixed, f"fixed design, {name}", marker=mk, mfc="white", ls="-.", color=col)
            # the zoom: the claims' M and the claims' own budget (the claims' chunks)
            claim = get_claim(f"seqproj.fixed_time.stopping.{fam}")
            nz = claim.quick_budget if quick else claim.default_budget
            zoom[fam], = _measure(["out_at_T"], ex, seed, nz, claim.experiment)
    # on top: the stopping curves lie on the bound at this scale, which (b) resolves
    ax.plot(Ms, dg, "k:", lw=1.4, label="fixed-vector JL bound (Dasgupta–Gupta)", zorder=4)
    data["dasgupta_gupta_bound"] = dg
    lo = min(e["ci"][0] if e["events"] else e["ci"][1] for c in data["curves"].values() for e in c)
    ax.set(xscale="log", yscale="log", xlabel="sketch dimension M", ylim=(min(lo, min(dg)) / 2, 1.5),
           ylabel=f"P(out of band at t = T)", title=f"T = {Tb}, ε = {EPS}, {n:,} runs per point")
    grid_ticks(ax, Ms, "x", "%d")
    M_B = int(get_claim("seqproj.fixed_time.stopping.sphere").params["M"])
    bound = float(fixed_vector_jl_failure_bound(M_B, EPS))
    i32 = Ms.index(M_B) if M_B in Ms else None
    if i32 is not None:                        # where (b) zooms in
        ax.add_patch(Rectangle((M_B * 0.93, 0.44), M_B * 0.14, 0.26, fill=False, lw=0.8, ec="0.3",
                               ls="-", zorder=3))
        ax.annotate("(b)", (M_B * 1.07, 0.7), (M_B * 1.25, 0.8), fontsize=7, color="0.3",
                    arrowprops={"arrowstyle": "-", "color": "0.3", "lw": 0.6})
    # (b): the claims' point, with its 95% interval, against the bound
    ref_line(az, y=bound, label=None, ls=":", color="k", lw=1.2)
    for j, (fam, name, col, mk) in enumerate(fams):
        e = zoom[fam]
        az.errorbar([j], [e["p_hat"]], yerr=[[e["p_hat"] - e["ci"][0]], [e["ci"][1] - e["p_hat"]]],
                    marker=mk, color=col, ls="", capsize=3, ms=4.5, lw=1.2)
        az.annotate(f"{e['p_hat']:.3f}\n[{e['ci'][0]:.3f}, {e['ci'][1]:.3f}]", (j, e["ci"][1]),
                    xytext=(0, 4), textcoords="offset points", ha="center", va="bottom", fontsize=7, color=col)
    az.text(0.5, bound, f"Dasgupta–Gupta\nbound {bound:.3f}", ha="center", va="top", fontsize=7)
    ps = [zoom[f][k] for f in zoom for k in ("ci",)]
    top = max(c[1] for c in ps)
    az.set(xlim=(-0.6, 1.6), ylim=(bound - 0.6 * (top - bound) - 0.005, top + 1.1 * (top - bound) + 0.01),
           ylabel=f"P(out of band at t = T), M = {M_B}",
           title=f"stopping adversary at M = {M_B}")
    az.set_xticks([0, 1], [f"{name}\n({zoom[fam]['trials']:,} runs)" for fam, name, _, _ in fams])
    data["zoom"] = {"M": M_B, "bound": bound, **{fam: zoom[fam] for fam in zoom}}
    panel_letters([ax, az])
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=3, columnspacing=0.9,
               handlelength=2.2)
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
                "factor: the arrow marks the theorem's M over the empirical M* at the largest T measured, "
                "with the range the bracket allows in brackets. seqproj.efficiency.*.",
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
    # the headline: the theorem's M over the empirical M* at the largest T measured, as a range from the bracket
    Th = T_emp[-1]
    M_th = float(sequential_jl_min_dim(EPS, DELTA, Th))
    i = len(T_emp) - 1
    headline = {"T": Th, "M_theorem": M_th, "M_star": float(est[i]), "ratio": M_th / est[i],
                "ratio_range": [M_th / hi[i], M_th / lo[i]] if lo[i] > 0 else [M_th / hi[i], None]}
    ax.annotate("", (Th, est[i] * 1.08), (Th, M_th / 1.08),
                arrowprops={"arrowstyle": "<->", "color": "0.25", "lw": 0.8, "shrinkA": 0, "shrinkB": 0})
    rng_txt = (f"{headline['ratio_range'][0]:.1f}–{headline['ratio_range'][1]:.1f}×"
               if headline["ratio_range"][1] else f"≥ {headline['ratio_range'][0]:.1f}×")
    ax.text(Th * 1.6, est[i], f"at T = {Th}: theorem's M\n= {headline['ratio']:.1f}× the empirical M*\n"
            f"(bracket: {rng_txt})", ha="left", va="center", fontsize=7,
            bbox={"fc": "white", "ec": "none", "pad": 0.5, "alpha": 0.85})
    fig.legend(loc="outside lower center", ncol=1)
    data = {"eps": EPS, "delta": DELTA, "T": Ts, "sequential": seq, "union_bound": uni,
            "sklearn_rounded_up": skl, "empirical": [e.to_dict() for e in emp], "headline": headline}
    return fig, data
