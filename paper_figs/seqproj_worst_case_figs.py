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
                "lower bound), per (ε, T) computed, beside the constant design by the same DP.",
        claims=("seqproj.worst_case.M_star.*",), width="page")
def ratio(*, quick, seed):
    res = results()
    rows = sorted((r["eps"], r["T"], r["M_star"], r["M_theorem"])
                  for k, r in res.items() if k.startswith("mstar_"))
    fig, ax = new_figure(width="page")
    if not rows:
        raise ValueError("no M*_worst entries in seqproj/worst_case_results.json")
    labels = [f"ε={e:g}\nT={T}" for e, T, _, _ in rows]
    ratio_ = [mt / ms for _, _, ms, mt in rows]
    const = [res.get(f"const_{e}_{T}", {}).get("M_star") for e, T, _, _ in rows]
    xs = np.arange(len(rows))
    ax.bar(xs - 0.2, ratio_, width=0.4, color="C3", label="optimal adversary (DP)")
    rc = [mt / c if c else np.nan for (_, _, _, mt), c in zip(rows, const)]
    ax.bar(xs + 0.2, rc, width=0.4, color="C0", label="constant design (DP, x_t = 1)")
    for i, (e, T, ms, mt) in enumerate(rows):
        ax.text(i - 0.2, ratio_[i] + 0.2, f"{mt}/{ms}", ha="center", va="bottom", fontsize=7,
                rotation=90)
        if const[i]:
            ax.text(i + 0.2, rc[i] + 0.2, f"{mt}/{const[i]}", ha="center", va="bottom", fontsize=7,
                    rotation=90)
    ax.set_xticks(xs, labels)
    ax.set_xlim(-0.7, len(rows) - 0.3)
    ax.set_ylabel("M_theorem / M*")
    ax.set_ylim(0, np.nanmax(ratio_ + rc) * 1.75)
    ax.legend(fontsize=7, loc="upper left", ncol=2)
    return fig, {"rows": rows, "ratio_worst": ratio_, "ratio_constant": rc}


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
            ax.errorbar(i, p, yerr=[[p - lo], [hi - p]], fmt="o", color="C0")
        i = len(names)
        ax.errorbar(i, r["p"], yerr=r["err"], fmt="s", color="C3", label="DP optimum p*")
        p, lo, hi = r["replay"]
        ax.errorbar(i + 1, p, yerr=[[p - lo], [hi - p]], fmt="D", color="C2",
                    label="policy replayed (full)")
        ax.set_xticks(range(len(names) + 2), names + ["p*", "replay"], rotation=45, ha="right")
        ax.set_title(f"M = {M}")
        top = max([r["p"] + r["err"], r["replay"][2]] + [v[2] for v in r["hand"].values()])
        ax.set_ylim(0, 1.25 * top)
        delta_line(ax, DELTA)
        data[M] = r
    panel_letters(np.atleast_1d(axes))
    np.atleast_1d(axes)[0].set_ylabel("P(band left by T)")
    np.atleast_1d(axes)[0].legend(fontsize=7, loc="upper left")
    return fig, data


@figure("seqproj_worst_case_policy",
        caption=f"The optimal predictable adversary (DP policy, sphere columns, M = {POLICY_M}, ε = {EPS}): "
                "x played at step t from ratio u on the diagonal V = x_0² + c_x(t−1); near the "
                "band edges it plays steps proportional to the distance to the edge (b); white in (a): "
                "the pause x = 0, chosen only where every action's value is ≈ 0.",
        claims=("seqproj.worst_case.*",), width="page")
def policy(*, quick, seed):
    T = 100 if quick else T_SETTING
    r = worst_case_value(POLICY_M, EPS, T, n_u=31 if quick else 51, n_v=5, policy=True)
    xs = r.xgrid[r.policy[:, :, -1]]            # (T, n_u) on the diagonal ρ = 1
    xs = np.where(xs > 0, xs, np.nan)
    fig, axes = new_figure(2, width="page")
    ax = axes[0]
    t = np.arange(1, T + 1)
    m = ax.pcolormesh(t, r.ugrid, xs.T, norm=LogNorm(1e-5, 1), shading="nearest", cmap="viridis")
    ax.set_xlabel("step t")
    ax.set_ylabel("ratio u = ‖S‖²/V")
    fig.colorbar(m, ax=ax, label="x played (units √c_x)")
    ax = axes[1]
    d_lo = r.ugrid - (1 - r.eps)
    d_hi = (1 + r.eps) - r.ugrid
    for j, tt in enumerate((1, T // 10, T // 2, T - 5)):
        xp = r.xgrid[r.policy[tt - 1, :, -1]]
        low = r.ugrid < 1
        ax.plot(d_lo[low], xp[low], marker=".", color=f"C{j}", label=f"t = {tt}, lower edge")
        ax.plot(d_hi[~low], xp[~low], ls=":", color=f"C{j}", label=f"t = {tt}, upper edge")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("distance of u to the band edge")
    ax.set_ylabel("x played")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    panel_letters(axes)
    return fig, {"ugrid": r.ugrid, "policy_diag": r.policy[:, :, -1], "xgrid": r.xgrid, "p": r.p,
                 "T": T}
