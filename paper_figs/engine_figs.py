"""Figures of the verification engine itself (``docs/theory/engine.md#statistics``).

* ``engine_operating_characteristic`` — for Bernoulli claims ``P(event) ≤ δ``
  with true ``p = r·δ``, the frequency of each verdict of the anytime-valid
  test against ``r``: at ``r = 1`` any verdict is wrong and must stay ≤ α.
* ``engine_evalue_paths`` — the two log e-values of the Dasgupta–Gupta claim
  and of its doubled-exponent mutation along a run, with the threshold
  ``log(2/α)`` at which the engine stops.
"""
from __future__ import annotations

import functools
import math

import matplotlib.ticker
import numpy as np

from proofs_check.engine import ProbabilityClaim, measure, verify_claim
from proofs_check.engine import as_arrays
from proofs_check.engine import clopper_pearson, log_e_above, log_e_below
from proofs_check.selftest.samplers import (DG_DEVIATION, DG_EPS, DG_M, bernoulli_events, count_deviations,
                                            dg_tail_bound)

from .registry import figure
from .style import grid_ticks, new_figure, ref_line


def operating_characteristic(ratios, *, delta=0.05, alpha=0.05, reps=200, budget=20_000,
                             chunk_size=200, seed=0):
    """Verdict frequencies of the anytime test at ``p = r·δ``; seeds ``seed + i``."""
    rows = []
    for r in ratios:
        claim = ProbabilityClaim(id="engine.bernoulli", statement="P(X=1) ≤ δ", source="calibration",
                                 label="DERIVED", fn=functools.partial(bernoulli_events, p=float(r * delta)),
                                 delta=delta, chunk_size=chunk_size)
        verdicts = [verify_claim(claim, budget=budget, seed=seed + i, alpha=alpha).verdict
                    for i in range(reps)]
        row = {"ratio": float(r)}
        for v in ("holds", "refuted", "inconclusive"):
            k = verdicts.count(v)
            lo, hi = clopper_pearson(k, reps, 0.05)
            row[v] = {"rate": k / reps, "ci95": [lo, hi], "count": k}
        rows.append(row)
    return rows


@figure("engine_operating_characteristic",
        caption="Operating characteristic of the anytime-valid test for a claim P(event) ≤ δ (δ = 0.05, "
                "α = 0.05) when the true probability is p = r·δ: frequency of each verdict against r, with "
                "95% Clopper–Pearson intervals over independent runs (seeds seed..seed+reps−1). At r = 1 "
                "(vertical line) any verdict is an error and must stay below α (horizontal line); this is "
                "the calibration behind every ProbabilityClaim verdict (selftest.* claims).",
        claims=("selftest.dg_tail", "selftest.dg_tail_doubled"), width="column")
def fig_operating_characteristic(*, quick: bool, seed: int):
    ratios = [0.25, 0.5, 0.75, 0.9, 1.0, 1.1, 1.5, 2.0, 4.0]
    delta, alpha = 0.05, 0.05
    reps = 60 if quick else 1000
    rows = operating_characteristic(ratios, delta=delta, alpha=alpha, reps=reps, seed=seed)
    fig, ax = new_figure(height=2.6)
    for v, c, mk, ls in (("holds", "C0", "o", "-"), ("refuted", "C1", "s", "--"),
                         ("inconclusive", "0.45", "^", "-.")):
        y = np.array([r[v]["rate"] for r in rows])
        lo = np.array([r[v]["ci95"][0] for r in rows])
        hi = np.array([r[v]["ci95"][1] for r in rows])
        ax.errorbar(ratios, y, yerr=[y - lo, hi - y], marker=mk, ls=ls, color=c, label=v)
    ref_line(ax, y=alpha, ls=":", label=f"α = {alpha}")
    ref_line(ax, x=1.0, ls="-", lw=0.6, label="p = δ")
    ax.set_xscale("log")
    grid_ticks(ax, [0.25, 0.5, 1.0, 2.0, 4.0], "x")
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("true p / δ")
    ax.set_ylabel("frequency of verdict")
    ax.set_title(f"δ = {delta}, α = {alpha}, {reps} runs per point")
    fig.legend(loc="outside right center", handlelength=1.8)
    return fig, {"delta": delta, "alpha": alpha, "reps": reps, "budget": 20_000, "rows": rows,
                 "seeds": f"{seed}..{seed + reps - 1}"}


@figure("engine_evalue_paths",
        caption="The two one-sided log e-values (test supermartingales) of selftest.dg_tail (true bound: "
                "δ = Dasgupta–Gupta tail bound) and selftest.dg_tail_doubled (false bound: doubled exponent) "
                "along one run of the shared experiment; the engine stops when a path crosses log(2/α). The "
                "true claim's 'p < δ' path climbs past the threshold (holds), the false claim's 'p > δ' path "
                "crosses it (refuted); a star marks where the engine stops, the paths go on to show what later "
                "trials would add. A path ends where its e-value reaches 0 (log = −∞: the data rule that side "
                "out). Symmetric-log y axis (linear within ±10); seed in the title.",
        claims=("selftest.dg_tail", "selftest.dg_tail_doubled"), width="column")
def fig_evalue_paths(*, quick: bool, seed: int):
    """The two one-sided log e-values of ``selftest.dg_tail`` (δ = Dasgupta–Gupta
    bound, true) and ``selftest.dg_tail_doubled`` (δ halved exponent, false)
    along one run: both claims read the experiment ``DG_DEVIATION``, and so
    does this figure (the same chunks, measured once)."""
    alpha = 0.01
    n_chunks = 20 if quick else 60
    m = measure(DG_DEVIATION, n_chunks * DG_DEVIATION.chunk_size, seed=seed)
    counts = np.array([count_deviations(as_arrays(c)) for c in m.chunks])
    k_cum = np.cumsum(counts)
    ns = (np.arange(1, n_chunks + 1) * DG_DEVIATION.chunk_size).tolist()
    fig, ax = new_figure(height=2.9)
    data = {"alpha": alpha, "threshold": math.log(2 / alpha), "experiment": DG_DEVIATION.id,
            "paths": {}}   # not "claims": the figure registry writes that key
    for cid, factor, color, mk in (("selftest.dg_tail", 1.0, "C0", "o"),
                                   ("selftest.dg_tail_doubled", 2.0, "C1", "s")):
        delta = dg_tail_bound(DG_M, DG_EPS, exponent_factor=factor)
        below = [log_e_below(int(k), n, delta) for k, n in zip(k_cum, ns)]
        above = [log_e_above(int(k), n, delta) for k, n in zip(k_cum, ns)]
        short = cid.split(".")[1]
        every = max(1, n_chunks // 6)
        # where the engine stops: the first look at which a path reaches log(2/α)
        stop = next(((n, v, side) for n, b, a in zip(ns, below, above)
                     for v, side in ((b, "holds"), (a, "refuted")) if v >= math.log(2 / alpha)), None)
        tag = {"holds": "", "refuted": ""}
        if stop is not None:
            ax.plot([stop[0]], [stop[1]], marker="*", ms=11, color=color, mec="k", mew=0.6, ls="", zorder=5)
            tag[stop[2]] = f" — ★ stops: {stop[2]} at n = {stop[0]:,}"
        ax.plot(ns, below, color=color, ls="-", marker=mk, markevery=every, label=f"{short}: p < δ{tag['holds']}")
        ax.plot(ns, above, color=color, ls="--", marker=mk, mfc="white", markevery=every,
                label=f"{short}: p > δ{tag['refuted']}")
        data["paths"][cid] = {"delta": delta, "trials": ns, "log_e_below": below, "log_e_above": above,
                               "events": int(k_cum[-1]), "stops_at": None if stop is None else
                               {"trials": stop[0], "log_e": float(stop[1]), "verdict": stop[2]}}
    ref_line(ax, y=math.log(2 / alpha), ls=":", color="k", label=f"stop: log(2/α), α = {alpha}")
    ax.set_yscale("symlog", linthresh=10)      # the "holds" path climbs to the thousands
    allv = np.array([x for v in data["paths"].values() for x in v["log_e_below"] + v["log_e_above"]], float)
    allv = allv[np.isfinite(allv)]
    lo, hi = float(allv.min()), float(allv.max())
    ax.set_ylim(min(-10.0, 1.5 * lo), 2.0 * hi)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v / 1000:g}k" if v else "0"))
    ax.set_xlabel("trials")
    ax.set_ylabel("log e-value")
    ax.set_title(f"one run, seed {seed}")
    fig.legend(loc="outside lower center", ncol=1, handlelength=2.6)
    return fig, data
