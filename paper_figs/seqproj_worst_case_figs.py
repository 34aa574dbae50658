"""Figures of the exact worst case of the sequential JL lemma (``docs/theory/seqproj.md#worst-case``).

* ``seqproj_worst_case_ratio`` — ``M_theorem / M*_worst`` for the stored (ε, T) entries.
* ``seqproj_worst_case_gap`` — at M ∈ {32, 64, 128} (sphere, the setting ε = 0.5, T = 300): the
  hand-written adversaries' failure rates (95 % Clopper–Pearson), the DP optimum
  ``p*`` with its grid-error bar, and its policy replayed in the full simulator.
* ``seqproj_worst_case_policy`` — the optimal policy: the ``x`` played at each
  (step t, ratio u) on the diagonal ``V_{t−1} = x_0² + c_x(t−1)``.

The first two read ``seqproj/worst_case_results.json`` (stored DP runs with
their seeds); the policy map runs the DP (quick: a coarser grid, T = 100).  The setting
(ε, δ, T) is the package's (:mod:`seqproj.experiments`).
"""
from __future__ import annotations

import numpy as np
from matplotlib.colors import LogNorm

from seqproj.claims.worst_case import results
from seqproj.experiments import DELTA, EPS, T as T_SETTING
from seqproj.worst_case import worst_case_value

from .registry import figure
from .style import delta_line, new_figure, panel_letters

#: The dimension of the policy map (the middle dimension of the replay study).
POLICY_M = 64


@figure("seqproj_worst_case_ratio",
        caption="Slack of the reconstructed theorem against the exact optimum: M_theorem / M*_worst "
                f"(smallest M with p* ≤ δ = {DELTA} under the optimal predictable adversary, sphere "
                "columns; coarse-grid bisection, so M*_worst is an upper estimate and the ratio a "
                "lower bound), per (ε, T) computed, beside the constant design by the same DP. Black bars: the "
                "range of the ratio given by the certified worst-case bracket M*_worst ∈ (M_lo, M_hi] where it "
                "was computed; in bold the package's setting ε = 0.5, T = 300 (the headline: the theorem's M "
                "is 8–10× the exact worst case). Under each pair: M_theorem / M*.",
        claims=("seqproj.worst_case.M_star.*",), width="page")
def ratio(*, quick, seed):
    res = results()
    rows = sorted((r["eps"], r["T"], r["M_star"], r["M_theorem"])
                  for k, r in res.items() if k.startswith("mstar_"))
    fig, ax = new_figure(width="page")
    if not rows:
        raise ValueError("no M*_worst entries in seqproj/worst_case_results.json")
    labels = [f"ε = {e:g}\nT = {T}\n{mt} / {ms}" for e, T, ms, mt in rows]
    ratio_ = [mt / ms for _, _, ms, mt in rows]
    const = [res.get(f"const_{e}_{T}", {}).get("M_star") for e, T, _, _ in rows]
    brackets = {(b["eps"], b["T"]): (b.get("M_lo_claim"), b.get("M_hi"))
                for b in res.get("bracket", {}).values()}
    xs = np.arange(len(rows))
    ax.bar(xs - 0.2, ratio_, width=0.4, color="C3", label="optimal adversary (DP)")
    rc = [mt / c if c else np.nan for (_, _, _, mt), c in zip(rows, const)]
    ax.bar(xs + 0.2, rc, width=0.4, color="C0", label="constant design (DP, x_t = 1)")
    ranges = {}
    for i, (e, T, ms, mt) in enumerate(rows):
        lo_hi = brackets.get((e, T))
        top = ratio_[i]
        if lo_hi and None not in lo_hi:          # the M*_worst bracket (M_lo, M_hi] as a range of ratios
            M_lo, M_hi = lo_hi
            r_lo, r_hi = mt / M_hi, mt / M_lo
            ranges[f"{e:g}_{T}"] = [r_lo, r_hi]
            ax.plot([i - 0.2, i - 0.2], [r_lo, r_hi], color="k", lw=1.4, marker="_", ms=6, ls="-",
                    zorder=3)
            top = max(top, r_hi)
            txt = f"{r_lo:.1f}–{r_hi:.1f}×"
        else:
            txt = f"{ratio_[i]:.1f}×"
        headline = (e, T) == (EPS, T_SETTING)
        ax.text(i - 0.03, top + 0.2, txt, ha="right", va="bottom", fontsize=7,
                fontweight="bold" if headline else "normal")
        if const[i]:                              # at the bar's foot: a label on top would meet its neighbour's
            ax.text(i + 0.2, 0.3, f"{rc[i]:.1f}×", ha="center", va="bottom", fontsize=7, color="white")
    ax.set_xticks(xs, labels)
    ax.set_xlim(-0.7, len(rows) - 0.3)
    ax.set_ylabel("theorem's M / worst-case M*")
    ax.set_ylim(0, np.nanmax(ratio_ + rc + [v[1] for v in ranges.values()]) * 1.3)
    ax.plot([], [], color="k", lw=1.4, marker="_", ms=6, ls="-",
            label="range from the M* bracket (M_lo, M_hi]")
    ax.legend(fontsize=7, loc="upper left", ncol=3)
    return fig, {"rows": rows, "ratio_worst": ratio_, "ratio_constant": rc, "ratio_range_from_bracket": ranges}


@figure("seqproj_worst_case_gap",
        caption="Failure rate of every hand-written adversary (95 % CP) against the DP optimum p* "
                "(grid-error bar) and its policy replayed in the full simulator (20 000 trials), "
                f"sphere columns, ε = {EPS}, T = {T_SETTING}.",
        claims=("seqproj.worst_case.gap.*",), width="page")
def gap(*, quick, seed):
    rep = results()["replay"]
    Ms = sorted(rep, key=int)
    fig, axes = new_figure(len(Ms), width="page")
    data = {}
    for ax, M in zip(np.atleast_1d(axes), Ms):
        r = rep[M]
        names = list(r["hand"])
        for i, a in enumerate(names):
            p, lo, hi = r["hand"][a]
            ax.errorbar(i, p, yerr=[[p - lo], [hi - p]], fmt="o", color="C0",
                        label="hand-written adversaries" if i == 0 else None)
        i = len(names)
        ax.errorbar(i, r["p"], yerr=r["err"], fmt="s", color="C3", label="DP optimum p*")
        p, lo, hi = r["replay"]
        ax.errorbar(i + 1, p, yerr=[[p - lo], [hi - p]], fmt="D", color="C2",
                    label="policy replayed (full)")
        # staggered on two rows (odd positions as minor ticks, pushed down): horizontal and readable
        labels = names + ["p*", "replay"]
        ax.set_xticks(range(0, len(labels), 2), labels[0::2], fontsize=7)
        ax.set_xticks(range(1, len(labels), 2), labels[1::2], minor=True, fontsize=7)
        ax.tick_params(axis="x", which="minor", pad=11, length=3.5)
        ax.set_title(f"M = {M}")
        top = max([r["p"] + r["err"], r["replay"][2]] + [v[2] for v in r["hand"].values()])
        ax.set_ylim(0, 1.25 * top)
        if DELTA <= 1.25 * top:
            delta_line(ax, DELTA)
        else:                           # δ is off the scale: say so where it would be
            ax.text(0.98, 0.97, f"δ = {DELTA:g} is above this axis", transform=ax.transAxes, ha="right",
                    va="top", fontsize=7)
        data[M] = r
    panel_letters(np.atleast_1d(axes))
    np.atleast_1d(axes)[0].set_ylabel("P(band left by T)")
    fig.legend(*np.atleast_1d(axes)[0].get_legend_handles_labels(), loc="outside lower center", ncol=4)
    return fig, data


@figure("seqproj_worst_case_policy",
        caption=f"The optimal predictable adversary (DP policy, sphere columns, M = {POLICY_M}, ε = {EPS}): "
                "(a) the x played at step t from ratio u on the diagonal V = x_0² + c_x(t−1), one row per "
                "grid point of u (the grid is refined geometrically towards the band edges 1 ± ε, so the edge "
                "rows are drawn as tall as the others; viridis, logarithmic colour scale from the smallest "
                "x played to 1): inside the band the adversary plays the largest step, and near either edge "
                "it plays steps proportional to the distance to the edge, as (b) shows for four steps t "
                "(solid: lower edge, dotted: upper edge). White in (a): the pause x = 0, chosen only where "
                "every action's value is ≈ 0.",
        claims=("seqproj.worst_case.*",), width="page")
def policy(*, quick, seed):
    T = 100 if quick else T_SETTING
    r = worst_case_value(POLICY_M, EPS, T, n_u=31 if quick else 51, n_v=5, policy=True)
    xs = r.xgrid[r.policy[:, :, -1]]            # (T, n_u) on the diagonal ρ = 1
    xs = np.where(xs > 0, xs, np.nan)
    fig, axes = new_figure(2, width="page", height=2.7)
    ax = axes[0]
    t = np.arange(1, T + 1)
    # rows by grid index: the u grid is refined geometrically towards the band edges, where the
    # policy changes; on a linear u axis those rows are invisible slivers
    rows = np.arange(r.ugrid.size)
    xmin = float(np.nanmin(xs))
    m = ax.pcolormesh(t, rows, xs.T, norm=LogNorm(xmin, 1.0), shading="nearest", cmap="viridis")
    ax.set_xlabel("step t")

    def _u_label(u):
        lo, hi = 1 - r.eps, 1 + r.eps
        if u - lo < 0.02:
            return f"{lo:g} + {u - lo:.0e}".replace("e-0", "e-")
        if hi - u < 0.02:
            return f"{hi:g} − {hi - u:.0e}".replace("e-0", "e-")
        return f"{u:.2f}"
    n_u = r.ugrid.size
    ticks = sorted({0, 2, 4, 6, n_u // 4 + 2, n_u // 2, 3 * n_u // 4 - 2, n_u - 7, n_u - 5, n_u - 3, n_u - 1})
    ax.set_yticks(ticks, [_u_label(r.ugrid[i]) for i in ticks])
    ax.set_ylabel("ratio u = ‖S‖²/V (edges refined)")
    ax.set_title("the x played at (t, u)")
    ax.grid(False)
    fig.colorbar(m, ax=ax, label="x played (units of √c_x, log scale)")
    ax = axes[1]
    d_lo = r.ugrid - (1 - r.eps)
    d_hi = (1 + r.eps) - r.ugrid
    times = (1, T // 10, T // 2, T - 5)
    for j, tt in enumerate(times):
        xp = r.xgrid[r.policy[tt - 1, :, -1]]
        low = r.ugrid < 1
        ax.plot(d_lo[low], xp[low], marker="o", ms=2.5, ls="-", color=f"C{j}")
        ax.plot(d_hi[~low], xp[~low], marker="s", ms=2.5, mfc="white", ls=":", color=f"C{j}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("distance of u to the band edge")
    ax.set_ylabel("x played (units of √c_x)")
    ax.set_title("step size shrinks with the distance to the edge")
    from matplotlib.lines import Line2D
    handles = [Line2D([], [], color=f"C{j}", ls="-", marker="", lw=2, label=f"step t = {tt}")
               for j, tt in enumerate(times)]
    handles += [Line2D([], [], color="0.3", ls="-", marker="o", ms=3, label="near lower edge 1 − ε"),
                Line2D([], [], color="0.3", ls=":", marker="s", ms=3, mfc="white", label="near upper edge 1 + ε")]
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    panel_letters(axes)
    return fig, {"ugrid": r.ugrid, "policy_diag": r.policy[:, :, -1], "xgrid": r.xgrid, "p": r.p,
                 "T": T}
