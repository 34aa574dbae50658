"""Figures of the verification engine itself (spec verification.md §2).

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
from proofs_check.engine.experiment import as_arrays
from proofs_check.engine.stats import clopper_pearson, log_e_above, log_e_below
from proofs_check.selftest.samplers import (DG_DEVIATION, DG_EPS, DG_M, bernoulli_events, count_deviations,
                                            dg_tail_bound)

from .style import figure, new_figure


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


@figure("engine_operating_characteristic")
def fig_operating_characteristic(*, quick: bool, seed: int):
    ratios = [0.25, 0.5, 0.75, 0.9, 1.0, 1.1, 1.5, 2.0, 4.0]
    delta, alpha = 0.05, 0.05
    reps = 60 if quick else 1000
    rows = operating_characteristic(ratios, delta=delta, alpha=alpha, reps=reps, seed=seed)
    fig, ax = new_figure()
    for v, c in (("holds", "C2"), ("refuted", "C3"), ("inconclusive", "C7")):
        y = np.array([r[v]["rate"] for r in rows])
        lo = np.array([r[v]["ci95"][0] for r in rows])
        hi = np.array([r[v]["ci95"][1] for r in rows])
        ax.errorbar(ratios, y, yerr=[y - lo, hi - y], marker="o", color=c, label=v, capsize=2)
    ax.axhline(alpha, color="k", ls=":", lw=1, label=f"α = {alpha}")
    ax.axvline(1.0, color="k", lw=0.6)
    ax.set_xscale("log")
    ax.set_xticks(ratios[::2] if len(ratios) > 5 else ratios)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("true p / δ")
    ax.set_ylabel("frequency of verdict")
    ax.set_title(f"Anytime-valid verdicts, δ = {delta}, {reps} runs/point")
    ax.legend(loc="center right")
    return fig, {"delta": delta, "alpha": alpha, "reps": reps, "budget": 20_000, "rows": rows,
                 "seeds": f"{seed}..{seed + reps - 1}"}


@figure("engine_evalue_paths")
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
    fig, ax = new_figure()
    data = {"alpha": alpha, "threshold": math.log(2 / alpha), "experiment": DG_DEVIATION.id,
            "claims": {}}
    for cid, factor, color in (("selftest.dg_tail", 1.0, "C0"), ("selftest.dg_tail_doubled", 2.0, "C3")):
        delta = dg_tail_bound(DG_M, DG_EPS, exponent_factor=factor)
        below = [log_e_below(int(k), n, delta) for k, n in zip(k_cum, ns)]
        above = [log_e_above(int(k), n, delta) for k, n in zip(k_cum, ns)]
        ax.plot(ns, below, color=color, label=f"{cid}: log E (p < δ)")
        ax.plot(ns, above, color=color, ls="--", label=f"{cid}: log E (p > δ)")
        data["claims"][cid] = {"delta": delta, "trials": ns, "log_e_below": below, "log_e_above": above,
                               "events": int(k_cum[-1])}
    ax.axhline(math.log(2 / alpha), color="k", ls=":", lw=1, label="stop: log(2/α)")
    ax.set_yscale("symlog", linthresh=10)      # the "holds" path climbs to the thousands
    ax.set_ylim(bottom=-300)                   # room for the legend below the paths
    ax.set_xlabel("trials")
    ax.set_ylabel("log e-value (symlog)")
    ax.set_title(f"Test supermartingales along one run (seed {seed})")
    ax.legend(fontsize=6.5, loc="lower right", ncol=2)
    return fig, data
