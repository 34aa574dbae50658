"""Figures for sequential random projection (``docs/theory/seqproj.md``).

* ``seqproj_failure_vs_M`` — time-uniform failure probability vs M, one curve
  per predictable adversary (sphere columns), with δ and the theorem's M marked.
* ``seqproj_fixed_vs_uniform`` — under the stopping adversary, the fixed-time
  failure at t = T equals the time-uniform one and exceeds the fixed-vector
  (Dasgupta–Gupta) bound; a fixed design stays far below it.
* ``seqproj_tails`` — failure vs M by column family; one-hot flagged.
* ``seqproj_required_M`` — required M vs T (log axes): the sequential bound,
  the union bound, scikit-learn's formula and the empirical M*.

Every Monte Carlo point is an engine experiment
(:func:`seqproj.events.path_experiment`) measured with
:func:`proofs_check.engine.experiment.measure` at the figure's root seed, on
threads: chunk ``k`` draws from ``SeedSequence(seed, spawn_key=(k,))`` whatever
the number of threads, and a point that shows the same simulation as a claim
(M = 32 in ``failure_vs_M`` and ``fixed_vs_uniform``, M = 128 in ``tails``)
reads the same chunks as that claim.  Points carry an exact 95 %
Clopper–Pearson interval, except the empirical M* of ``seqproj_required_M``,
whose error bar is the simultaneous 99 % confidence bracket of
:func:`seqproj.empirical_min_dim` (measured the same way).
"""
from __future__ import annotations

import numpy as np

from proofs_check.engine import make_executor
from proofs_check.engine.experiment import measure
from proofs_check.engine.stats import clopper_pearson
from seqproj import (empirical_min_dim, fixed_vector_jl_failure_bound, path_experiment,
                     sequential_jl_min_dim, sklearn_jl_min_dim, union_bound_jl_min_dim)

from .style import figure, new_figure

EPS, DELTA, T = 0.5, 0.05, 300
#: trials per chunk, as in the claims that show the same simulations
CHUNK = {"reduced": 1000, "full": 1000, "fixed_time": 10_000}


def _estimate(k, n):
    lo, hi = clopper_pearson(int(k), int(n), 0.05)
    return {"events": int(k), "trials": int(n), "p_hat": k / n, "ci": [lo, hi]}


def _measure(events, executor, seed, n, *, simulator="reduced", chunk=None, **config):
    """Estimates of ``events`` from ``n`` trials (whole chunks) of one path experiment."""
    exp = path_experiment(simulator=simulator, eps=EPS, chunk_size=chunk or CHUNK[simulator],
                          **config)
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
        ax.plot(np.asarray(xs)[~shown], hi[~shown], "v", color=line.get_color(), ms=3)
    return line


@figure("seqproj_failure_vs_M")
def failure_vs_M(*, quick: bool, seed: int):
    Ms = [16, 32, 64, 128, 256, 512] if not quick else [16, 32, 64, 128]
    n = 1_000 if quick else 50_000
    advs = ("constant", "random", "stopping", "magnitude", "pushing")
    M_th = sequential_jl_min_dim(EPS, DELTA, T)
    fig, ax = new_figure()
    data = {"eps": EPS, "delta": DELTA, "T": T, "columns": "sphere", "M_theorem": M_th, "M": Ms,
            "trials_per_point": n, "curves": {}}
    with make_executor("threads") as ex:
        for adv in advs:
            ests = [_measure(["failed"], ex, seed, n, M=M, T=T, adversary=adv)[0] for M in Ms]
            data["curves"][adv] = ests
            _plot_curve(ax, Ms, ests, adv)
    ax.axhline(DELTA, color="k", ls="--", lw=0.8, label=f"δ = {DELTA}")
    ax.axvline(M_th, color="C7", ls=":", lw=1.0, label=f"theorem's M = {M_th}")
    ax.set(xscale="log", yscale="log", xlabel="sketch dimension M",
           ylabel="P(ratio leaves [1−ε, 1+ε] at some t ≤ T)", ylim=(1e-6 if not quick else 1e-3, 1.0),
           title=f"sphere columns, ε = {EPS}, T = {T} (▼: 0 events, CI top)")
    ax.legend(loc="lower left", ncol=2)
    return fig, data


@figure("seqproj_fixed_vs_uniform")
def fixed_vs_uniform(*, quick: bool, seed: int):
    Ms = [16, 24, 32, 48, 64, 96, 128] if not quick else [16, 32, 64]
    Tb = 500
    n = 10_000 if quick else 50_000            # whole chunks of 10 000
    fig, ax = new_figure()
    data = {"eps": EPS, "T": Tb, "M": Ms, "trials_per_point": n, "curves": {}}
    labels = ("stopping, out of band at t = T", "stopping, time-uniform (some t ≤ T)",
              "fixed design, out of band at t = T")
    chunk = CHUNK["fixed_time"]
    with make_executor("threads") as ex:
        for fam, ls in (("sphere", "-"), ("gaussian", "--")):
            curves = {lab: [] for lab in labels}
            for M in Ms:
                a, b = _measure(["out_at_T", "failed"], ex, seed, n, chunk=chunk, M=M, T=Tb,
                                columns=fam, adversary="stopping")
                c, = _measure(["out_at_T"], ex, seed, n, chunk=chunk, M=M, T=Tb, columns=fam)
                curves[labels[0]].append(a)
                curves[labels[1]].append(b)
                curves[labels[2]].append(c)
            for lab, marker in zip(labels, ("o", "s", "^")):
                data["curves"][f"{fam}: {lab}"] = curves[lab]
                _plot_curve(ax, Ms, curves[lab], f"{fam}: {lab}", marker=marker, ls=ls,
                            ms=5 if marker == "o" else 3)
    dg = [float(fixed_vector_jl_failure_bound(M, EPS)) for M in Ms]
    data["dasgupta_gupta_bound"] = dg
    ax.plot(Ms, dg, "k:", lw=1.2, label="fixed-vector JL bound (Dasgupta–Gupta)")
    ax.set(xscale="log", yscale="log", xlabel="sketch dimension M", ylabel="failure probability",
           title=f"stopping adversary vs fixed design, ε = {EPS}, T = {Tb}", ylim=(1e-3, 1.5))
    ax.legend(loc="lower left", fontsize=6)
    return fig, data


@figure("seqproj_tails")
def tails(*, quick: bool, seed: int):
    Ms = [32, 64, 128] if quick else [32, 48, 64, 96, 128, 192]
    n_red = 2_000 if quick else 200_000
    n_full = 1_000 if quick else 10_000        # whole chunks of 1 000
    fams = ("sphere", "gaussian", "rademacher", "onehot", "sparse")
    fig, ax = new_figure()
    data = {"eps": EPS, "T": T, "M": Ms, "adversary": "constant", "curves": {}}
    with make_executor("threads") as ex:
        for fam in fams:
            reduced = fam in ("sphere", "gaussian")
            ests = [_measure(["failed"], ex, seed, n_red if reduced else n_full,
                             simulator="reduced" if reduced else "full", M=M, T=T, columns=fam)[0]
                    for M in Ms]
            _tails_curve(ax, data, fam, Ms, ests)
    ax.set(xscale="log", yscale="log", xlabel="sketch dimension M",
           ylabel="P(ratio leaves the band at some t ≤ T)",
           ylim=(1e-3 if quick else 1e-4, 1.0),
           title=f"tails by column family, ε = {EPS}, T = {T}")
    ax.legend(loc="lower left")
    return fig, data


def _tails_curve(ax, data, fam, Ms, ests):
    label = fam + (" (outside assumptions)" if fam == "onehot" else "")
    if fam == "sparse":
        label = "sparse, s = M/8"
    data["curves"][fam] = ests
    _plot_curve(ax, Ms, ests, label, ls="--" if fam == "onehot" else "-")


@figure("seqproj_required_M")
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
    fig, ax = new_figure()
    ax.plot(Ts, seq, "o-", label="sequential JL (theorem, const = 16)")
    ax.plot(Ts, uni, "s-", label="union bound over T fixed vectors")
    ax.plot(Ts, skl, "^-", label="scikit-learn formula, n = T (rounded up)")
    est = np.array([e.M_star for e in emp])
    lo = np.array([e.M_lo for e in emp])
    hi = np.array([e.M_hi for e in emp])
    ax.errorbar(T_emp, est, yerr=[est - lo, hi - est], fmt="D-", color="C3", capsize=2,
                label="empirical M* (sphere, constant design; 99% simultaneous bracket)")
    ax.set(xscale="log", yscale="log", xlabel="horizon T", ylabel="required M", ylim=(20, 1.5e4),
           title=f"required dimension, ε = {EPS}, δ = {DELTA}")
    ax.legend(loc="upper left")
    data = {"eps": EPS, "delta": DELTA, "T": Ts, "sequential": seq, "union_bound": uni,
            "sklearn_rounded_up": skl, "empirical": [e.to_dict() for e in emp]}
    return fig, data
