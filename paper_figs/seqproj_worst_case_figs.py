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

import numpy as np
from matplotlib.colors import LogNorm

from seqproj.claims.worst_case import results
from seqproj.experiments import DELTA, EPS, T as T_SETTING
from seqproj.worst_case import worst_case_value
from seqproj.worst_case_table import stored_table

from .registry import figure
from .style import delta_line, new_figure, number_text, panel_letters

#: The dimension of the policy map (the middle dimension of the replay study).
POLICY_M = 64


@figure("seqproj_worst_case_ratio",
        caption="Slack of the reconstructed theorem against the exact optimum: M_theorem / M*_worst, where "
                f"M*_worst is the smallest M with p* ≤ δ = {DELTA} under the optimal predictable adversary "
                "(sphere columns). Each orange bar spans the ratio over the bracket M*_worst ∈ (M_lo, M_hi] "
                "(M_lo from the replayed DP policy, exact 95 % Clopper–Pearson; M_hi from the DP's upper "
                "estimate), for every cell of ε ∈ {0.5, 0.25, 0.1} × T ∈ {100, 300, 1000, 10⁴} "
                "(python -m seqproj.worst_case_table); the number above it is the range. Blue: the constant "
                "design x_t = 1 by the same DP, where computed. In bold the package's setting ε = 0.5, "
                "T = 300. Under each cell: T and the bracket (M_lo, M_hi] of M*_worst.",
        claims=("seqproj.worst_case.M_star.*",), width="page")
def ratio(*, quick, seed):
    table = stored_table()
    res = results()
    cells = sorted(table.values(), key=lambda c: (-c["eps"], c["T"]))
    if not cells:
        raise ValueError("no cells in seqproj/worst_case_table.json")
    fig, ax = new_figure(width="page", height=3.1)
    xs, ranges, const, labels, groups = [], {}, {}, [], {}
    x = 0.0
    for k, c in enumerate(cells):
        if k and c["eps"] != cells[k - 1]["eps"]:
            x += 0.6                                   # a gap between the ε groups
        e, T, mt, lo, hi = c["eps"], c["T"], c["M_theorem"], c["M_lo_95"], c["M_hi"]
        r_lo, r_hi = mt / hi, mt / (lo + 1)            # M*_worst ∈ [M_lo + 1, M_hi]
        ranges[f"{e:g}_{T}"] = [r_lo, r_hi]
        groups.setdefault(e, []).append(x)
        ax.bar(x - 0.18, r_hi - r_lo, bottom=r_lo, width=0.36, color="C3",
               label="optimal adversary: M_theorem / M* over the bracket" if k == 0 else None)
        cd = res.get(f"const_{e:g}_{T}", {}).get("M_star")
        ax.text(x, max(r_hi, mt / cd if cd else 0.0) + 0.2, f"{r_lo:.1f}–\n{r_hi:.1f}×", ha="center",
                va="bottom", fontsize=7, fontweight="bold" if (e, T) == (EPS, T_SETTING) else "normal")
        if cd:
            const[f"{e:g}_{T}"] = mt / cd
            ax.bar(x + 0.18, mt / cd, width=0.36, color="C0",
                   label="constant design x_t = 1 (DP)" if len(const) == 1 else None)
            ax.text(x + 0.18, 0.3, f"{mt / cd:.1f}×", ha="center", va="bottom", fontsize=7,
                    color="white", rotation=90)
        xs.append(x)
        labels.append(f"T = {number_text(T)}\n({lo},\n{hi}]")
        x += 1.0
    ax.set_xticks(xs, labels, fontsize=7)
    ax.set_xlim(xs[0] - 0.7, xs[-1] + 0.7)
    ax.set_ylabel("theorem's M / worst-case M*")
    top = max([v[1] for v in ranges.values()] + list(const.values()))
    ax.set_ylim(0, top * 1.42)
    for e, gx in groups.items():                      # the ε of each group, above it
        ax.text(float(np.mean(gx)), top * 1.33, f"ε = {e:g}", ha="center", va="center", fontsize=8)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=2, frameon=False)
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
