"""Figures of the exact worst case of the sequential JL lemma (``docs/theory/seqproj.md#worst-case``).

* ``seqproj_worst_case_ratio`` — ``M_theorem / M*_worst`` over the bracket of every cell of
  ``seqproj/worst_case_table.json`` (:mod:`seqproj.worst_case_table`).
* ``seqproj_worst_case_gap`` — at M ∈ {32, 64, 128} (sphere, the setting ε = 0.5, T = 300): the
  hand-written adversaries' failure rates (95 % Clopper–Pearson), the DP optimum
  ``p*`` with its grid-error bar, and its policy replayed in the full simulator.
* ``seqproj_worst_case_policy`` — the optimal policy: the ``x`` played at each
  (step t, ratio u) on the diagonal ``V_{t−1} = x_0² + c_x(t−1)``.

The first two read stored DP runs with their seeds (``seqproj/worst_case_table.json``,
``seqproj/worst_case_results.json``); the policy map runs the DP (quick: a coarser grid, T = 100).  The setting
(ε, δ, T) is the package's (:mod:`seqproj.experiments`).
"""
from __future__ import annotations

import matplotlib
import numpy as np
from matplotlib.colors import LogNorm

from seqproj.claims.worst_case import results
from seqproj.experiments import DELTA, EPS, T as T_SETTING
from seqproj.worst_case import worst_case_value
from seqproj.worst_case_table import stored_table

from .registry import figure
from .style import delta_line, new_figure, number_text, panel_letters, ref_line

#: Colour of the pause x = 0 in the policy heatmaps (light grey, outside viridis).
_PAUSE_COLOUR = "#d0d0d0"

#: The dimension of the policy map (the middle dimension of the replay study).
POLICY_M = 64


@figure("seqproj_worst_case_ratio",
        caption="Slack of the reconstructed theorem against the exact optimum: M_theorem / M*_worst, where "
                f"M*_worst is the smallest M with p* ≤ δ = {DELTA} under the optimal predictable adversary "
                "(sphere columns). Each orange interval spans the ratio over the bracket M*_worst ∈ (M_lo, M_hi] "
                "(M_lo from the replayed DP policy, exact 95 % Clopper–Pearson; M_hi from the DP's upper "
                "estimate), for every cell of ε ∈ {0.5, 0.25, 0.1} × T ∈ {100, 300, 1000, 10⁴} "
                "(python -m seqproj.worst_case_table); the number above it is the range. Blue diamonds: the "
                "constant design x_t = 1 by the same DP (a single M*, hence a point), where computed. In bold "
                "the package's setting ε = 0.5, T = 300. Under each cell: T and the bracket (M_lo, M_hi] of "
                "M*_worst. The dashed line at 1 is where the theorem would be exactly tight: every cell lies "
                "above it (the theorem's M is valid and conservative by the factor printed).",
        claims=("seqproj.worst_case.M_star.*",), width="page")
def ratio(*, quick, seed):
    table = stored_table()
    res = results()
    cells = sorted(table.values(), key=lambda c: (-c["eps"], c["T"]))
    if not cells:
        raise ValueError("no cells in seqproj/worst_case_table.json")
    fig, ax = new_figure(width="page", height=2.9)
    xs, ranges, const, labels, groups = [], {}, {}, [], {}
    x = 0.0
    for k, c in enumerate(cells):
        if k and c["eps"] != cells[k - 1]["eps"]:
            x += 0.6                                   # a gap between the ε groups
        e, T, mt, lo, hi = c["eps"], c["T"], c["M_theorem"], c["M_lo_95"], c["M_hi"]
        r_lo, r_hi = mt / hi, mt / (lo + 1)            # M*_worst ∈ [M_lo + 1, M_hi]
        ranges[f"{e:g}_{T}"] = [r_lo, r_hi]
        groups.setdefault(e, []).append(x)
        # one encoding for both designs: a value is a marker, a range is an interval with caps
        ax.errorbar([x - 0.14], [(r_lo + r_hi) / 2], yerr=[[(r_hi - r_lo) / 2]], fmt="none", ecolor="C3",
                    elinewidth=2.2, capsize=4, capthick=1.4,
                    label="optimal adversary: M_theorem / M* over the bracket" if k == 0 else None)
        cd = res.get(f"const_{e:g}_{T}", {}).get("M_star")
        ax.text(x - 0.14, max(r_hi, mt / cd if cd else 0.0) + 0.3, f"{r_lo:.1f}–\n{r_hi:.1f}×", ha="center", va="bottom", fontsize=7,
                fontweight="bold" if (e, T) == (EPS, T_SETTING) else "normal")
        if cd:
            const[f"{e:g}_{T}"] = mt / cd
            ax.plot([x + 0.3], [mt / cd], ls="", marker="D", ms=4.5, color="C0",
                    label="constant design x_t = 1 (DP)" if len(const) == 1 else None)
            ax.text(x + 0.3, mt / cd - 0.4, f"{mt / cd:.1f}×", ha="center", va="top", fontsize=7, color="C0")
        xs.append(x)
        labels.append(f"{number_text(T)}\n({lo},\n{hi}]")
        x += 1.0
    ax.set_xticks(xs, labels, fontsize=7)
    ax.set_xlim(xs[0] - 0.7, xs[-1] + 0.7)
    ax.set_xlabel("horizon T, and below it the bracket (M_lo, M_hi] that contains M*_worst", fontsize=7)
    ax.set_ylabel("theorem's M / worst-case M*")
    top = max([v[1] for v in ranges.values()] + list(const.values()))
    ax.set_ylim(0, top * 1.38)
    ref_line(ax, y=1.0, label="ratio 1: the theorem exactly tight")
    for e, gx in groups.items():                      # the ε of each group, above it
        ax.text(float(np.mean(gx)), top * 1.30, f"ε = {e:g}", ha="center", va="center", fontsize=8)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=3, fontsize=7, handlelength=1.6,
               frameon=False, columnspacing=0.9)
    return fig, {"cells": [[c["eps"], c["T"], c["M_theorem"], c["M_lo_95"], c["M_hi"]] for c in cells],
                 "ratio_range_from_bracket": ranges, "ratio_constant": const}


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
                "the x played at step t from ratio u = ‖S‖²/V on the diagonal V = x_0² + c_x(t−1), zoomed onto "
                "the two edge bands where the policy changes: (a) near the upper edge 1 + ε, (b) near the lower "
                "edge 1 − ε, each against the distance of u to its edge (1 + ε − u, u − (1 − ε)) on a log axis (u grows upwards in both; "
                "each band stops before the first distance at which ≥ 90 % of the steps play the largest step "
                "x = 1, as the whole band interior does). Viridis, logarithmic colour scale from the smallest x "
                "played to 1; light grey: the pause x = 0, chosen only where every action's value is ≈ 0. "
                "(c) the step played against the distance to the edge for four steps t (solid: lower edge, "
                "dotted: upper edge): proportional to the distance.",
        claims=("seqproj.worst_case.*",), width="page")
def policy(*, quick, seed):
    T = 100 if quick else T_SETTING
    r = worst_case_value(POLICY_M, EPS, T, n_u=31 if quick else 51, n_v=5, policy=True)
    xs = r.xgrid[r.policy[:, :, -1]]            # (T, n_u) on the diagonal ρ = 1
    xs = np.where(xs > 0, xs, np.nan)
    fig, grid = new_figure(ncols=2, nrows=2, width="page", height=3.0,
                           gridspec_kw={"width_ratios": [1.0, 1.25]})
    gs = grid[0, 0].get_gridspec()
    for g in grid[:, 1]:
        g.remove()
    a_up, a_lo = grid[0, 0], grid[1, 0]
    axes = [a_up, a_lo, fig.add_subplot(gs[:, 1])]
    # The heatmap is zoomed onto the two edge bands, where the policy changes; inside the band the
    # adversary plays the largest step (x = 1) everywhere, which panel (c) shows.  Each band is drawn
    # against the distance d of u to its edge on a log axis (true geometry, no warped row index).
    d_all = np.minimum(r.ugrid - (1 - r.eps), (1 + r.eps) - r.ugrid)
    lower = r.ugrid < 1
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad=_PAUSE_COLOUR)
    xmin = float(np.nanmin(xs))
    norm = LogNorm(xmin, 1.0)
    t_edges = np.arange(T + 1) + 0.5
    bands = {}
    for ax, side in ((a_up, "upper"), (a_lo, "lower")):
        rows = np.flatnonzero(~lower if side == "upper" else lower)
        d = d_all[rows]
        order = np.argsort(d)
        rows, d = rows[order], d[order]
        # keep the rows up to the first distance where ≥ 90 % of the steps play x = 1 (the interior)
        sat = np.mean(np.nan_to_num(xs[:, rows], nan=0.0) >= 1.0 - 1e-12, axis=0) >= 0.9
        keep = max(2, int(np.argmax(sat))) if sat.any() else len(rows)     # the interior row excluded
        rows, d = rows[:keep], d[:keep]
        edges = np.concatenate([[d[0] / np.sqrt(d[1] / d[0])], np.sqrt(d[:-1] * d[1:]),
                                [d[-1] * np.sqrt(d[-1] / d[-2])]])
        m = ax.pcolormesh(t_edges, edges, np.ma.masked_invalid(xs[:, rows].T), norm=norm, cmap=cmap,
                          shading="flat")
        ax.set_yscale("log")
        ax.set_ylim(edges[0], edges[-1])
        if side == "upper":
            ax.invert_yaxis()                          # u grows upwards in both bands
        ax.grid(False)
        bands[side] = d.tolist()
    a_up.set_title("near the upper edge 1 + ε")
    a_lo.set_title("near the lower edge 1 − ε")
    a_up.tick_params(labelbottom=False)
    a_lo.set_xlabel("step t")
    a_up.set_ylabel("1 + ε − u")
    a_lo.set_ylabel("u − (1 − ε)")
    fig.colorbar(m, ax=[a_up, a_lo], label="x played (units of √c_x)")
    ax = axes[2]
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
    from matplotlib.patches import Patch
    handles = [Line2D([], [], color=f"C{j}", ls="-", marker="", lw=2, label=f"step t = {tt}")
               for j, tt in enumerate(times)]
    handles += [Line2D([], [], color="0.3", ls="-", marker="o", ms=3, label="near lower edge 1 − ε"),
                Line2D([], [], color="0.3", ls=":", marker="s", ms=3, mfc="white", label="near upper edge 1 + ε"),
                Patch(facecolor=_PAUSE_COLOUR, edgecolor="0.5", label="(a, b): pause x = 0")]
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    panel_letters(axes)
    return fig, {"ugrid": r.ugrid, "policy_diag": r.policy[:, :, -1], "xgrid": r.xgrid, "p": r.p,
                 "T": T, "edge_band_distances": bands}
