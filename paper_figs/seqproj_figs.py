"""Figures for sequential random projection (spec ``seqproj.md`` §6).

* ``seqproj_failure_vs_M`` — time-uniform failure probability vs M, one curve
  per predictable adversary (sphere columns), with δ and the theorem's M marked.
* ``seqproj_fixed_vs_uniform`` — under the stopping adversary, the fixed-time
  failure at t = T equals the time-uniform one and exceeds the fixed-vector
  (Dasgupta–Gupta) bound; a fixed design stays far below it (check B).
* ``seqproj_tails`` — failure vs M by column family; one-hot flagged (check E).
* ``seqproj_required_M`` — required M vs T (log axes): the sequential bound,
  the union bound, scikit-learn's formula and the empirical M* (check A).

Every point is a Monte Carlo estimate with an exact 95 % Clopper–Pearson
interval, except the empirical M* of ``seqproj_required_M``, whose error bar is
the simultaneous 99 % confidence bracket of :func:`seqproj.check.empirical_min_dim`
(Bonferroni over the search's evaluations); point k of a figure runs chunks on threads with root seed ``100003·seed + k``
(deterministic whatever the number of threads).
"""
from __future__ import annotations

import functools

import numpy as np

from proofs_check.engine.runner import map_chunks
from proofs_check.engine.stats import clopper_pearson
from seqproj.bounds import (fixed_vector_jl_failure_bound, sequential_jl_min_dim, sklearn_jl_min_dim,
                            union_bound_jl_min_dim)
from seqproj.check import empirical_min_dim
from seqproj.reduced import simulate_reduced
from seqproj.simulate import simulate_full

from .style import figure, new_figure

EPS, DELTA, T = 0.5, 0.05, 300


def _counts_task(attrs, sim, M, T_, kw, rng, n):
    f = simulate_reduced if sim == "reduced" else simulate_full
    ps = f(M, EPS, T_, n, rng, **kw)
    return [int(getattr(ps, a).sum()) for a in attrs]


def _mc(attrs, sim, M, T_, n, seed, k, chunk=10_000, **kw):
    """Event counts for ``attrs`` over ``n`` trials, chunked on threads (deterministic in ``(seed, k)``)."""
    chunk = min(chunk, n)
    res = map_chunks(functools.partial(_counts_task, tuple(attrs), sim, M, T_, kw), n,
                     chunk_size=chunk, seed=seed * 100_003 + k, executor="threads")
    n_run = len(res) * chunk
    return [_estimate(sum(r[i] for r in res), n_run) for i in range(len(attrs))]


def _estimate(k, n):
    lo, hi = clopper_pearson(int(k), int(n), 0.05)
    return {"events": int(k), "trials": int(n), "p_hat": k / n, "ci": [lo, hi]}


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
    k = 0
    for adv in advs:
        ests = []
        for M in Ms:
            ests.append(_mc(["failed"], "reduced", M, T, n, seed, k, adversary=adv)[0])
            k += 1
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
    n = 2_000 if quick else 50_000
    fig, ax = new_figure()
    data = {"eps": EPS, "T": Tb, "M": Ms, "trials_per_point": n, "curves": {}}
    labels = ("stopping, out of band at t = T", "stopping, time-uniform (some t ≤ T)",
              "fixed design, out of band at t = T")
    k = 0
    for fam, ls in (("sphere", "-"), ("gaussian", "--")):
        curves = {lab: [] for lab in labels}
        for M in Ms:
            a, b = _mc(["out_at_T", "failed"], "reduced", M, Tb, n, seed, k, columns=fam,
                       adversary="stopping")
            c, = _mc(["out_at_T"], "reduced", M, Tb, n, seed, k + 1, columns=fam)
            k += 2
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
    n_full = 200 if quick else 10_000
    fams = ("sphere", "gaussian", "rademacher", "onehot", "sparse")
    fig, ax = new_figure()
    data = {"eps": EPS, "T": T, "M": Ms, "adversary": "constant", "curves": {}}
    k = 0
    for fam in fams:
        ests = []
        for M in Ms:
            if fam in ("sphere", "gaussian"):
                ests.append(_mc(["failed"], "reduced", M, T, n_red, seed, k, columns=fam)[0])
            else:
                ests.append(_mc(["failed"], "full", M, T, n_full, seed, k, chunk=1_000,
                                columns=fam)[0])
            k += 1
        label = fam + (" (outside assumptions)" if fam == "onehot" else "")
        if fam == "sparse":
            label = "sparse, s = M/8"
        data["curves"][fam] = ests
        _plot_curve(ax, Ms, ests, label, ls="--" if fam == "onehot" else "-")
    ax.set(xscale="log", yscale="log", xlabel="sketch dimension M",
           ylabel="P(ratio leaves the band at some t ≤ T)",
           ylim=(1e-3 if quick else 1e-4, 1.0),
           title=f"tails by column family, ε = {EPS}, T = {T}")
    ax.legend(loc="lower left")
    return fig, data


@figure("seqproj_required_M")
def required_M(*, quick: bool, seed: int):
    Ts = np.array([10, 30, 100, 300, 1000, 3000, 10_000])
    T_emp = [10, 30, 100, 300] if quick else [10, 30, 100, 300, 1000]
    trials = 2_000 if quick else 20_000
    seq = sequential_jl_min_dim(EPS, DELTA, Ts)
    uni = union_bound_jl_min_dim(EPS, DELTA, Ts)
    skl = sklearn_jl_min_dim(Ts, EPS)
    emp = [empirical_min_dim(EPS, DELTA, int(t), trials=trials, seed=seed + i)
           for i, t in enumerate(T_emp)]
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
