"""Figures of the training–inference mismatch topic (``docs/theory/mismatch.md``).

* ``mismatch_horizon`` — worst-case remainder ``max_R |Error|`` vs ``T``
  (i.i.d. tilt, exact closed form, and count-state tilts, lower bounds) with the
  bounds of §5, log–log, fitted slopes (± OLS standard error) in the legend
  (exact closed forms).
* ``mismatch_tightness`` — distribution of ``|Error|/B*`` over random pairs
  from each generator (exact enumeration per pair; the pairs are the trials of
  the experiment ``TIGHTNESS``), with the per-generator maximum.
* ``mismatch_estimators`` — exact bias and standard deviation of the §3
  estimators vs mismatch level and vs ``T`` (the length trap: sequence IS's
  variance and MIS's bias grow with ``T``).
* ``mismatch_trm_acceptance`` — TRM-Max acceptance ``(1 − p)^T`` vs ``T``
  (exact enumeration points on the curves) and the rate at which the TRM-Avg,
  k2-max and k3-mean masks accept a violating response, from the trials that
  the ``mismatch.trm.*`` claims read (experiment ``TRM_PATHS``).
* ``mismatch_staleness`` — the update-size toy (§9): stale-policy KL vs ``k``
  (drift ∝ k², exact; noise ∝ k) and vs ``B`` (noise ∝ 1/B), fitted slopes, and
  the sampler–trainer KL along training for three step sizes — the noisy
  panels read the experiments of the staleness claims.

Monte Carlo goes through :func:`proofs_check.engine.measure` with the figure's
seed (the same chunks as the claims that read the same experiments).
"""
from __future__ import annotations

import math

import matplotlib.ticker
import numpy as np
from scipy import stats

from proofs_check.engine import measure
from proofs_check.mismatch import count_state_tilt, estimator_moments, iid_tilt_worst_case, proxy_acceptance, \
    trm_acceptance
from proofs_check.mismatch.pairs import violation_pair
from proofs_check.mismatch.tightness import TIGHTNESS, TIGHTNESS_SHAPES
from proofs_check.mismatch.trm_oracle import TRM_PATHS, acceptance_given_violation
from proofs_check.mismatch.update_size import B_GRID, K_GRID, NOISE_B, NOISE_K, SAMPLER_KL, drift_k_curve
from proofs_check.policies import GENERATORS, LinearSoftmaxPolicy, TabularPolicy

from .style import figure, new_figure


def _fit(x, y):
    """Slope of log y on log x and its OLS standard error."""
    r = stats.linregress(np.log(x), np.log(y))
    return float(r.slope), float(r.stderr)


@figure("mismatch_horizon")
def fig_horizon(*, quick: bool, seed: int):
    Ts = np.unique(np.round(np.geomspace(4, 4096, 10 if quick else 28)).astype(int))
    m, e = 0.5, 0.01
    iid = [iid_tilt_worst_case([1 - m, m], [1 - m - e, m + e], int(T)) for T in Ts]
    err = np.array([r.abs_error for r in iid])
    delta = iid[0].delta
    curves = {"|Error| (i.i.d. tilt, exact)": err}
    for rule in ("majority", "contrarian"):
        curves[f"|Error| ≥ ({rule} tilt)"] = np.array([count_state_tilt(m, e, int(T), rule=rule).abs_error
                                                       for T in Ts])
    bounds = {k: np.array([r.bounds[k] for r in iid]) for k in ("classical", "pm_kl", "coupling", "unified")}
    fig, (ax, ax2) = new_figure(ncols=2)
    data = {"T": Ts.tolist(), "m": m, "tilt": e, "delta": delta, "curves": {}, "bounds": {}, "seed": seed,
            "note": "deterministic (closed forms); slopes are OLS over all T with standard errors"}
    for (name, y), c in zip(curves.items(), ("C0", "C1", "C2")):
        s, se = _fit(Ts, y)
        ax.loglog(Ts, y, "o-", color=c, ms=3, label=f"{name}: slope {s:.3f}±{se:.3f}")
        data["curves"][name] = {"y": y.tolist(), "slope": s, "slope_se": se}
    for (name, y), c in zip(bounds.items(), ("C3", "C4", "C5", "k")):
        s, se = _fit(Ts, y)
        ax.loglog(Ts, y, "--", color=c, label=f"{name}: slope {s:.3f}±{se:.3f}")
        data["bounds"][name] = {"y": y.tolist(), "slope": s, "slope_se": se}
    ax.loglog(Ts, 0.48 * Ts * delta, ":", color="0.5", lw=1, label="0.48 T δ (spec reference)")
    ax.set_xlabel("horizon T")
    ax.set_ylabel("worst-case |J(π) − J(μ) − L'(π)|, bounds")
    ax.set_title(f"μ=(½,½), tilt ±{e}, δ={delta:.1e}", fontsize=8)
    ax.legend(fontsize=5)
    # near-one-hot sampler: the remainder grows like T² (half the classical bound) while Tε ≪ 1
    a, e2 = 1e-9, 1e-6
    Tn = np.unique(np.round(np.geomspace(16, 2048, 8 if quick else 20)).astype(int))
    rn = [iid_tilt_worst_case([1 - a, a], [1 - a - e2, a + e2], int(T)) for T in Tn]
    yn = np.array([r.abs_error for r in rn])
    s, se = _fit(Tn, yn)
    ax2.loglog(Tn, yn, "o-", ms=3, label=f"|Error| (exact): slope {s:.3f}±{se:.3f}")
    for k, c in (("classical", "C3"), ("pm_kl", "C4"), ("unified", "k")):
        yb = np.array([r.bounds[k] for r in rn])
        ax2.loglog(Tn, yb, "--", color=c, label=f"{k}: slope {_fit(Tn, yb)[0]:.3f}")
        data.setdefault("near_deterministic", {}).setdefault("bounds", {})[k] = yb.tolist()
    ax2.loglog(Tn, Tn * (Tn - 1) * e2 ** 2, ":", color="0.5", label="T(T−1)ε²")
    ax2.set_xlabel("horizon T")
    ax2.set_title(f"μ=(1−a, a), a={a:g}, π tilt ε={e2:g}", fontsize=8)
    ax2.legend(fontsize=5)
    data["near_deterministic"].update({"a": a, "eps": e2, "T": Tn.tolist(), "abs_error": yn.tolist(),
                                       "slope": s, "slope_se": se,
                                       "ratio_to_T(T-1)eps2": (yn / (Tn * (Tn - 1) * e2 ** 2)).tolist()})
    return fig, data


@figure("mismatch_tightness")
def fig_tightness(*, quick: bool, seed: int):
    n = 40 if quick else 400
    m = measure(TIGHTNESS, n, seed=seed)
    data = {"n_per_generator": n, "shapes": [list(sh) for sh in TIGHTNESS_SHAPES], "seed": seed,
            "experiment": TIGHTNESS.id, "ratios": {}, "max": {}, "argmax": {}}
    fig, ax = new_figure()
    all_r = []
    for g in GENERATORS:
        r = m.stats[f"ratio[{g}]"]
        i = int(np.argmax(r))
        V, T = TIGHTNESS_SHAPES[int(m.stats[f"shape[{g}]"][i])]
        all_r.append(r)
        data["ratios"][g] = r.tolist()
        data["max"][g] = float(r[i])
        data["argmax"][g] = {"V": V, "T": T, "trial": i}
    floor = 1e-5
    ax.boxplot([np.maximum(r, floor) for r in all_r], showfliers=True, whis=(5, 95))
    ax.set_xticks(range(1, len(GENERATORS) + 1), GENERATORS)
    for i, r in enumerate(all_r):
        zeros = int(np.sum(r < floor))
        ax.annotate(f"max {r.max():.3f}" + (f"\n{zeros} below 1e-5" if zeros else ""), (i + 1, r.max()),
                    textcoords="offset points", xytext=(0, 4), ha="center", fontsize=6.5)
        data.setdefault("below_floor", {})[GENERATORS[i]] = zeros
    ax.set_yscale("log")
    ax.set_ylim(floor / 2, 3.0)
    ax.set_ylabel("|Error| / B*  (worst-case reward)")
    ax.set_title(f"Tightness of B*, {n} random pairs per generator")
    return fig, data


@figure("mismatch_estimators")
def fig_estimators(*, quick: bool, seed: int):
    d = 3
    sigmas = np.geomspace(0.02, 1.0, 5 if quick else 10)
    Ts = [2, 4, 6, 8, 10] if quick else [2, 4, 6, 8, 10, 12, 14]
    names = ("naive", "token_tis", "seq_is", "seq_tis", "seq_mis", "geo_mask")
    data = {"sigma": sigmas.tolist(), "T": Ts, "seed": seed, "C": 2.0, "by_sigma": {}, "by_T": {},
            "note": "exact moments (enumeration) on instances drawn from one generator seeded by the figure seed"}
    rng = np.random.default_rng(seed)       # the instances only: every moment is exact
    lin = LinearSoftmaxPolicy.random(2, 6, d, rng)
    R = rng.random(2 ** 6)
    # uniform mismatch with common random numbers across σ: one noise draw, scaled by σ
    noise = [rng.standard_normal(z.shape) for z in lin.tabular().logits]
    by_s = {k: ([], []) for k in names}
    for s in sigmas:
        mu = TabularPolicy([z + float(s) * e for z, e in zip(lin.tabular().logits, noise)])
        _, mom = estimator_moments(mu, lin, R, C=2.0, C_lo=0.8, C_hi=1.25)
        for k in names:
            by_s[k][0].append(mom[k].bias_norm)
            by_s[k][1].append(math.sqrt(mom[k].variance))
    by_T = {k: ([], []) for k in names}
    for T in Ts:
        lt = LinearSoftmaxPolicy.random(2, T, d, rng, scale=4.0)
        RT = rng.random(2 ** T)
        # the sampler runs "hotter" than the trainer (logits × 0.6): on typical (likely) tokens
        # ρ_t > 1, so ρ(y) grows like ρ̄^T on typical responses — the length trap
        mu = TabularPolicy([0.6 * z for z in lt.tabular().logits])
        _, mom = estimator_moments(mu, lt, RT, C=2.0, C_lo=0.8, C_hi=1.25)
        for k in names:
            by_T[k][0].append(mom[k].bias_norm)
            by_T[k][1].append(math.sqrt(mom[k].variance))
    fig, axes = new_figure(ncols=2)
    for i, k in enumerate(names):
        c = f"C{i}"
        axes[0].loglog(sigmas, np.maximum(by_s[k][0], 1e-17), "o-", color=c, ms=3, label=f"{k} bias")
        axes[0].loglog(sigmas, by_s[k][1], ":", color=c)
        axes[1].semilogy(Ts, np.maximum(by_T[k][0], 1e-17), "o-", color=c, ms=3, label=k)
        axes[1].semilogy(Ts, by_T[k][1], ":", color=c)
        data["by_sigma"][k] = {"bias": by_s[k][0], "sd": by_s[k][1]}
        data["by_T"][k] = {"bias": by_T[k][0], "sd": by_T[k][1]}
    axes[0].set_xlabel("logit noise σ (uniform mismatch), T = 6")
    axes[0].set_ylabel("‖bias‖ (solid), sd (dotted)")
    axes[1].set_xlabel("T (sampler = trainer at temperature 1/0.6)")
    axes[0].legend(fontsize=5.5)
    axes[0].set_title("exact, by enumeration; C = 2, geo mask [0.8, 1.25]", fontsize=7)
    axes[1].set_title("length trap: seq IS sd and MIS bias grow with T", fontsize=7)
    return fig, data


@figure("mismatch_trm_acceptance")
def fig_trm_acceptance(*, quick: bool, seed: int):
    Ts = np.arange(1, 4097)
    ps = (1e-4, 1e-3, 1e-2)
    fig, axes = new_figure(ncols=2)
    data = {"p": list(ps), "seed": seed, "curves": {}, "exact_points": {}, "proxies": {}}
    for p, c in zip(ps, ("C0", "C1", "C2")):
        y = (1 - p) ** Ts
        axes[0].semilogx(Ts, y, color=c, label=f"(1 − p)^T, p = {p:g}")
        data["curves"][str(p)] = {"T": [1, 16, 256, 1024, 4096], "acc": [trm_acceptance(p, t) for t in (1, 16, 256, 1024, 4096)]}
    # exact enumeration (constructed pair: positions 2..T at risk) on the formula's curve
    pts = {}
    for p, c in ((0.05, "C6"), (0.2, "C7")):
        Tn = np.arange(2, 9 if quick else 13)
        ex = [proxy_acceptance(*violation_pair(p, int(T))).accept["trm_max"] for T in Tn]
        axes[0].semilogx(Tn - 1, (1 - p) ** (Tn - 1), color=c, lw=0.8)
        axes[0].semilogx(Tn - 1, ex, "o", color=c, ms=3, label=f"exact enumeration, p = {p}")
        pts[str(p)] = {"positions_at_risk": (Tn - 1).tolist(), "exact": ex,
                       "formula": ((1 - p) ** (Tn - 1)).tolist()}
    data["exact_points"] = pts
    axes[0].set_xlabel("T")
    axes[0].set_ylabel("TRM-Max acceptance")
    axes[0].legend(fontsize=6)
    deltas = np.unique(np.append(np.geomspace(0.005, 0.2, 6 if quick else 12), 0.02))   # 0.02: the claims' δ
    n_trials = 2_000 if quick else 10_000
    m = measure(TRM_PATHS, n_trials, seed=seed)
    fa = {k: acceptance_given_violation(m.stats, deltas, mask=k) for k in ("trm_avg", "k2_max", "k3_mean")}
    for k, c in zip(fa, ("C3", "C4", "C5")):
        axes[1].semilogx(deltas, fa[k], "o-", color=c, ms=3, label=k)
    data["proxies"] = {"delta": deltas.tolist(), "P(accept | max KL > δ)": {k: v.tolist() for k, v in fa.items()},
                       "trials": m.trials, "experiment": TRM_PATHS.id,
                       "generator": "low_prob (draw_pair), fresh pair and one response per trial, V=2, T=6"}
    axes[1].set_xlabel("δ")
    axes[1].set_ylabel("P(accept | exact max KL > δ)")
    axes[1].set_title(f"proxies admit violating responses ({m.trials} trials)", fontsize=7)
    axes[1].legend(fontsize=6)
    return fig, data


@figure("mismatch_staleness")
def fig_staleness(*, quick: bool, seed: int):
    reps = 2 if quick else 8
    drift = drift_k_curve(None, 1)[0]              # exact gradient: deterministic (the generator is unused)
    noise = measure(NOISE_K, reps, seed=seed).stats["stale_kl"]
    nb = measure(NOISE_B, reps, seed=seed).stats["one_step_kl"]
    fig, axes = new_figure(ncols=3)
    sd, sde = _fit(K_GRID, drift)
    nm = noise.mean(0)
    sn, sne = _fit(K_GRID, nm)
    axes[0].loglog(K_GRID, drift, "o-", label=f"drift (exact ∇J): slope {sd:.2f}±{sde:.2f}")
    axes[0].errorbar(K_GRID, nm, yerr=noise.std(0, ddof=1) / math.sqrt(reps), fmt="s-",
                     label=f"noise (flat R, B=16): slope {sn:.2f}±{sne:.2f}")
    axes[0].set_xlabel("staleness k")
    axes[0].set_ylabel("KL(π at step t−k ‖ π at step t)")
    axes[0].legend(fontsize=6)
    bm = nb.mean(0)
    sb, sbe = _fit(B_GRID, bm)
    axes[1].errorbar(B_GRID, bm, yerr=nb.std(0, ddof=1) / math.sqrt(reps), fmt="o-",
                     label=f"noise: slope {sb:.2f}±{sbe:.2f}")
    axes[1].set_xscale("log")
    axes[1].set_yscale("log")
    axes[1].set_xticks(list(B_GRID))
    axes[1].xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%d"))
    axes[1].xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    axes[1].set_xlabel("batch size B")
    axes[1].set_ylabel("one-step KL")
    axes[1].legend(fontsize=6)
    axes[0].set_title("V=3, T=2 tabular toy, η = 0.05", fontsize=7)
    # sampler–trainer KL along training: 4-step-stale sampler + fixed logit error (antithetic pair),
    # the trials of mismatch.staleness.smaller_step_less_mismatch
    n_runs = 4 if quick else 40
    sk = measure(SAMPLER_KL, n_runs, seed=seed).stats
    sampler = {}
    for eta, c in ((0.025, "C0"), (0.05, "C1"), (0.1, "C3")):
        ys = sk[f"sampler_kl[{eta}]"].mean(axis=0)
        axes[2].plot(np.arange(ys.size), ys, color=c, label=f"η = {eta}")
        sampler[str(eta)] = ys.tolist()
    axes[2].set_yscale("log")
    axes[2].set_xlabel("SGD step")
    axes[2].set_ylabel("KL(sampler ‖ trainer)")
    axes[2].set_title(f"stale (k=4) sampler + logit error, mean of {n_runs} runs", fontsize=7)
    axes[2].legend(fontsize=6)
    return fig, {"sampler_kl": sampler, "sampler_setup": {**SAMPLER_KL.params, "runs": n_runs},
                 "k": list(K_GRID), "drift": drift.tolist(), "noise_mean": nm.tolist(),
                 "noise_se": (noise.std(0, ddof=1) / math.sqrt(reps)).tolist(), "B": list(B_GRID),
                 "noiseB_mean": bm.tolist(), "slopes": {"drift_k": [sd, sde], "noise_k": [sn, sne],
                                                        "noise_B": [sb, sbe]},
                 "replicates": reps, "seed": seed, "toy": "V=3, T=2, toy_seed 0",
                 "experiments": [NOISE_K.id, NOISE_B.id, SAMPLER_KL.id]}
