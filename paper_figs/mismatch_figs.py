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
* ``mismatch_lr_schedule`` — the LR-schedule toy (§10): mismatch, gradient noise, length,
  reward and step size over training for constant η, the length-triggered decay and the cosine
  of the same total decay (median and quartile band over seeds, trigger firings marked), and the
  final reward against the peak mismatch per seed — the runs of ``mismatch.lr_schedule.*``.
* ``mismatch_batch_rule`` — the sampler–trainer gap against the batch size ``B`` under the
  batch-size-invariant rule (``η ∝ B, k ∝ 1/B``) and the two naive rules (``η ∝ B``; ``η`` fixed),
  median and 10–90 % band over seeds, and the rule past the queue floor ``B* = k₀B₀`` — the runs of
  ``mismatch.batch_rule.*``.

Monte Carlo goes through :func:`proofs_check.engine.measure` with the figure's
seed (the same chunks as the claims that read the same experiments).
"""
from __future__ import annotations

import math

import matplotlib.lines
import matplotlib.ticker
import numpy as np
from scipy import stats

from proofs_check.engine import clopper_pearson, measure
from proofs_check.mismatch import count_state_tilt, estimator_moments, iid_tilt_worst_case, proxy_acceptance, \
    trm_acceptance
from proofs_check.mismatch.pairs import violation_pair
from proofs_check.mismatch.experiments import (B_GRID, K_GRID, LR_SCHEDULE, NOISE_B, NOISE_K, SAMPLER_KL,
                                               TIGHTNESS, TIGHTNESS_SHAPES, TRM_PATHS)
from proofs_check.mismatch.trm_oracle import acceptance_given_violation, violations
from proofs_check.mismatch.update_size import drift_k_curve
from proofs_check.policies import GENERATORS, LinearSoftmaxPolicy, TabularPolicy

from .registry import figure
from .style import grid_ticks, log_tick_labels, new_figure, number_text, panel_letters, ref_line


def _fit(x, y):
    """Slope of log y on log x and its OLS standard error."""
    r = stats.linregress(np.log(x), np.log(y))
    return float(r.slope), float(r.stderr)


@figure("mismatch_horizon",
        caption="Worst-case remainder max_R |J(π) − J(μ) − L'(π)| against the horizon T (log–log, exact "
                "closed forms) with the bounds of the theory page §5; fitted log–log slopes ± OLS standard "
                "error in the legends. (a) Balanced sampler μ = (½, ½) with a ±0.01 tilt: the i.i.d. remainder "
                "grows like T, count-state tilts give lower bounds (the green band spans the majority- and "
                "contrarian-state tilts); classical bound ∝ T², pm-KL ∝ T^1.5. "
                "(b) Near-one-hot sampler: the remainder grows like T² (half the classical bound) while "
                "Tε ≪ 1. One legend for both panels (a line style is one quantity in both); the predicted rates "
                "are the theory page's: 0.48·T·δ in (a), T(T−1)ε² in (b). Supports mismatch.scaling.* and "
                "mismatch.bound.*.iid_tilt.",
        claims=("mismatch.scaling.iid_tilt_remainder", "mismatch.scaling.classical_bound",
                "mismatch.scaling.pm_kl_bound", "mismatch.scaling.near_deterministic_tilt",
                "mismatch.scaling.state_tilt_majority", "mismatch.scaling.state_tilt_contrarian",
                "mismatch.bound.*.iid_tilt"), width="page")
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
    # near-one-hot sampler (b): the remainder grows like T² (half the classical bound) while Tε ≪ 1
    a, e2 = 1e-9, 1e-6
    Tn = np.unique(np.round(np.geomspace(16, 2048, 8 if quick else 20)).astype(int))
    rn = [iid_tilt_worst_case([1 - a, a], [1 - a - e2, a + e2], int(T)) for T in Tn]
    yn = np.array([r.abs_error for r in rn])
    s_n, se_n = _fit(Tn, yn)
    bn = {k: np.array([r.bounds[k] for r in rn]) for k in ("classical", "pm_kl", "unified")}
    fig, (ax, ax2) = new_figure(ncols=2, height=3.4)
    data = {"T": Ts.tolist(), "m": m, "tilt": e, "delta": delta, "curves": {}, "bounds": {}, "seed": seed,
            "note": "deterministic (closed forms); slopes are OLS over all T with standard errors"}
    # ONE legend for both panels (same style = same quantity), each entry with its slope in (a) and (b):
    # the slopes are the message; per-panel legends under the panels took a third of the height
    fit_b = {k: _fit(Tn, y)[0] for k, y in bn.items()}
    shown = {"|Error| (i.i.d. tilt, exact)": f"|Error| exact: (a) {{s}}, (b) {s_n:.3f}±{se_n:.3f}",
             "|Error| ≥ (majority tilt)": "lower bound on |Error|, majority-state tilt: (a) {s}",
             "|Error| ≥ (contrarian tilt)": "lower bound on |Error|, contrarian-state tilt: (a) {s}"}
    for name, y in curves.items():
        s, se = _fit(Ts, y)
        data["curves"][name] = {"y": y.tolist(), "slope": s, "slope_se": se}
    c0 = data["curves"]["|Error| (i.i.d. tilt, exact)"]
    ax.loglog(Ts, err, marker="o", ls="-", ms=3.5, color="C0",
              label=shown["|Error| (i.i.d. tilt, exact)"].format(s=f"{c0['slope']:.3f}±{c0['slope_se']:.3f}"))
    # the two count-state lower bounds lie within a few pixels of each other: one band between them
    # (drawn once, not two curves on top of each other), both slopes in its legend entry
    lo_b, hi_b = (np.minimum(curves["|Error| ≥ (majority tilt)"], curves["|Error| ≥ (contrarian tilt)"]),
                  np.maximum(curves["|Error| ≥ (majority tilt)"], curves["|Error| ≥ (contrarian tilt)"]))
    cm, cc = data["curves"]["|Error| ≥ (majority tilt)"], data["curves"]["|Error| ≥ (contrarian tilt)"]
    ax.fill_between(Ts, lo_b, hi_b, color="C2", alpha=0.55, lw=0.8, edgecolor="C2",
                    label=f"lower bounds (band): majority {cm['slope']:.3f}, contrarian {cc['slope']:.3f}")
    for (name, y), c, ls in zip(bounds.items(), ("C3", "C4", "C5", "k"), ("--", "-.", (0, (5, 1, 1, 1)), "--")):
        s, se = _fit(Ts, y)
        both = f"(a) {s:.3f}" + (f", (b) {fit_b[name]:.3f}" if name in fit_b else "")
        if name == "unified":       # the minimum of the bounds: a wide band under the one it equals
            ax.loglog(Ts, y, ls="-", marker="", color="0.55", lw=4.5, alpha=0.45, zorder=1.2,
                      label=f"unified = min of bounds: {both}")
        else:
            ax.loglog(Ts, y, ls=ls, marker="", color=c, label=f"{_BOUND_NAMES.get(name, name)} bound: {both}")
        data["bounds"][name] = {"y": y.tolist(), "slope": s, "slope_se": se}
    ax.loglog(Ts, 0.48 * Ts * delta, ls="-", marker="", color="C5", lw=3.5, alpha=0.5, zorder=1.1,
              label="predicted rate: (a) 0.48·T·δ, (b) T(T−1)ε²")
    grid_ticks(ax, [4, 16, 64, 256, 1024, 4096], "x", "%d")
    ax.set_xlabel("horizon T")
    ax.set_ylabel("worst-case |J(π) − J(μ) − L'(π)|, bounds")
    ax.set_title(f"μ = (½, ½), tilt ±{e}, δ = {number_text(delta)}")
    ax2.loglog(Tn, yn, "o-", color="C0", ms=3.5)
    for k, c, ls in (("classical", "C3", "--"), ("pm_kl", "C4", "-."), ("unified", "k", "--")):
        if k == "unified":
            ax2.loglog(Tn, bn[k], ls="-", marker="", color="0.55", lw=4.5, alpha=0.45, zorder=1.2)
        else:
            ax2.loglog(Tn, bn[k], ls=ls, marker="", color=c)
        data.setdefault("near_deterministic", {}).setdefault("bounds", {})[k] = bn[k].tolist()
    ax2.loglog(Tn, Tn * (Tn - 1) * e2 ** 2, ls="-", marker="", color="C5", lw=3.5, alpha=0.5, zorder=1.1)
    grid_ticks(ax2, [16, 64, 256, 1024, 2048], "x", "%d")
    ax2.set_xlabel("horizon T")
    ax2.set_title(f"μ = (1−a, a), a = {number_text(a)}, π tilt ε = {number_text(e2)}")
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=2, fontsize=7,
               handlelength=2.0, columnspacing=1.0, title="log–log slope in each panel (± OLS standard error)",
               title_fontsize=7)
    panel_letters((ax, ax2))
    s, se = s_n, se_n
    data["near_deterministic"].update({"a": a, "eps": e2, "T": Tn.tolist(), "abs_error": yn.tolist(),
                                       "slope": s, "slope_se": se,
                                       "ratio_to_T(T-1)eps2": (yn / (Tn * (Tn - 1) * e2 ** 2)).tolist()})
    return fig, data


@figure("mismatch_tightness",
        caption="Tightness of the unified bound B*: |Error| / B* under the worst-case reward for random "
                "sampler–trainer pairs from each generator (exact enumeration per pair; one dot per pair, "
                "jittered sideways; bar = median; open diamond = the largest, with its value). Every ratio is "
                "below 1 (dashed; the content of mismatch.bound.unified.*) and below ½ (dotted): the bound is "
                "never more than half tight on these pairs. Ratios below 10⁻⁵ (exact or near-exact "
                "cancellation, mostly sparse pairs) are drawn as open triangles at 10⁻⁵ and counted under the "
                "generator's name.",
        claims=("mismatch.bound.unified.*",), width="column")
def fig_tightness(*, quick: bool, seed: int):
    n = 40 if quick else 400
    m = measure(TIGHTNESS, n, seed=seed)
    data = {"n_per_generator": n, "shapes": [list(sh) for sh in TIGHTNESS_SHAPES], "seed": seed,
            "experiment": TIGHTNESS.id, "ratios": {}, "max": {}, "argmax": {}}
    fig, ax = new_figure(height=2.9)
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
    rng = np.random.default_rng(12345)          # jitter only (drawing), not data
    ref_line(ax, y=1.0, ls="--", color="k", lw=0.8)
    ref_line(ax, y=0.5, ls=":", color="0.3", lw=1.0)
    ax.text(0.42, 1.0, "ratio 1: the bound B*", ha="left", va="bottom", fontsize=7)
    ax.text(0.42, 0.5, "ratio ½: half tight", ha="left", va="bottom", fontsize=7, color="0.3")
    ticks = []
    imax = int(np.argmax([r.max() for r in all_r]))
    for i, r in enumerate(all_r):
        x = i + 1
        zeros = int(np.sum(r < floor))
        shown = r >= floor
        jit = rng.uniform(-0.22, 0.22, size=r.size)
        ax.plot(x + jit[shown], r[shown], ls="", marker="o", ms=2.6, color=f"C{i}", alpha=0.55, mew=0)
        if zeros:                                # below the axis: open markers on the floor, counted
            ax.plot(x + jit[~shown], np.full(zeros, floor), ls="", marker="v", ms=3, mfc="white",
                    color=f"C{i}", alpha=0.8, mew=0.6)
        med = float(np.median(r))
        if med >= floor:
            ax.plot([x - 0.3, x + 0.3], [med, med], color="k", lw=1.2, ls="-", marker="")
        ax.plot([x], [r.max()], ls="", marker="D", ms=4.5, mfc="none", mec="k", mew=0.9)
        ax.annotate(f"{r.max():.3f}", (x, r.max()), xytext=(5, -1), textcoords="offset points", ha="left",
                    va="top", fontsize=7, bbox={"fc": "white", "ec": "none", "pad": 0.4, "alpha": 0.85},
                    fontweight="bold" if i == imax else "normal")
        data.setdefault("below_floor", {})[GENERATORS[i]] = zeros
        ticks.append(GENERATORS[i].replace("_", " ").replace("iid", "i.i.d.").replace("low prob", "low-prob.")
                     + (f"\n{zeros} < 10⁻⁵" if zeros else ""))
    ax.set_xticks(range(1, len(GENERATORS) + 1), ticks)
    ax.set_xlim(0.4, len(GENERATORS) + 0.75)
    ax.set_yscale("log")
    ax.set_ylim(floor / 2, 3.0)
    ax.set_ylabel("|Error| / B*  (worst-case reward)")
    big = float(all_r[imax].max())
    ax.set_title(f"{n} random pairs per generator; largest {big:.3f} {'<' if big < 0.5 else '≥'} ½")
    fig.legend(handles=[matplotlib.lines.Line2D([], [], ls="", marker="o", ms=3, color="0.4", label="one pair"),
                       matplotlib.lines.Line2D([], [], color="k", lw=1.2, ls="-", label="median"),
                       matplotlib.lines.Line2D([], [], ls="", marker="D", mfc="none", mec="k", label="largest"),
                       matplotlib.lines.Line2D([], [], ls="", marker="v", mfc="white", mec="0.4",
                                               label="< 10⁻⁵ (drawn at 10⁻⁵)")],
              loc="outside lower center", fontsize=7, handlelength=1.2, ncol=4, columnspacing=0.6)
    return fig, data


#: Plain names for the legends (the code's keys are identifiers).
_ESTIMATOR_NAMES = {"naive": "naive (no correction)", "token_tis": "token-level TIS", "seq_is": "sequence IS",
                    "seq_tis": "sequence TIS (truncated)", "seq_mis": "sequence MIS (masked)",
                    "geo_mask": "geometric-mean mask"}
_MASK_NAMES = {"trm_avg": "TRM-Avg", "k2_max": "k2-max", "k3_mean": "k3-mean"}
_BOUND_NAMES = {"classical": "classical", "pm_kl": "pm-KL", "coupling": "coupling", "unified": "unified"}

#: Random instances per length T in mismatch_estimators (b): their mean bias norm is plotted.
_N_INSTANCES = 12

#: In mismatch_estimators (c), an sd within this relative distance of the naive estimator's is drawn
#: as the naive line alone (the caption says so).
_SAME_SD = 0.05

#: |bias| below this fraction of the panel's largest value is rounding of an exact zero.
_ZERO_REL = 1e-12


def _plot_with_zeros(ax, x, y, *, color, marker, ls, label, ref):
    """Plot ``y`` on a log axis; values ≤ ``_ZERO_REL·ref`` (exact zeros up to rounding) are not data:
    they are drawn as open markers on the bottom edge of the panel."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    zero = y <= _ZERO_REL * ref
    yp = np.where(zero, np.nan, y)
    ax.plot(x, yp, color=color, marker=marker, ls=ls, label=label)
    if zero.any():
        ax.plot(x[zero], np.zeros(int(zero.sum())), ls="", marker=marker, mfc="white", color=color, ms=4,
                transform=ax.get_xaxis_transform(), clip_on=False, zorder=3)
    return zero


def _stationary_weight(Ts, *, z: float, temp: float, C: float) -> dict:
    r"""The sequence weight :math:`\rho(y) = \pi(y)/\mu(y)` on a stationary two-token instance: the
    trainer's logits ``(0, z)`` at every position, the sampler at temperature ``1/temp`` (logits
    ``(0, temp·z)``).  With ``k`` ones in ``y``, :math:`\log\rho = k\log r_1 + (T-k)\log r_0`
    (:math:`r_v = \pi_v/\mu_v`), so exactly :math:`E_\mu[\rho^2] = (\sum_v \pi_v^2/\mu_v)^T` and
    :math:`P_\mu(\rho > C) = \sum_k \binom{T}{k}\mu_1^k\mu_0^{T-k}\,1\{\log\rho > \log C\}`; the most
    likely response (all ones) has :math:`\rho = \bar\rho^T` with :math:`\bar\rho = r_1 > 1`, which passes
    ``C`` at :math:`T^* = \log C/\log\bar\rho` (mismatch.identity.length_trap)."""
    pi1 = 1.0 / (1.0 + math.exp(-z))
    mu1 = 1.0 / (1.0 + math.exp(-temp * z))
    pi, mu = np.array([1 - pi1, pi1]), np.array([1 - mu1, mu1])
    lr = np.log(pi / mu)
    out = {"T": [], "second_moment": [], "masked": [], "typical_rho": [], "z": z, "temp": temp, "C": C,
           "per_token_ratio": (pi / mu).tolist()}
    for T in Ts:
        k = np.arange(T + 1)
        logp = stats.binom.logpmf(k, T, mu1)
        masked = k * lr[1] + (T - k) * lr[0] > math.log(C)
        out["T"].append(int(T))
        out["second_moment"].append(float(np.sum(pi ** 2 / mu) ** T))
        out["masked"].append(float(np.exp(logp[masked]).sum()))
        out["typical_rho"].append(float(np.exp(T * lr[1])))
    out["T_star"] = math.log(C) / lr[1]
    return out


@figure("mismatch_estimators",
        caption="Exact bias norm (a, b) and standard deviation (c, relative to the naive estimator's) of the "
                "§3 policy-gradient estimators, by enumeration: against the mismatch level σ at T = 6 (left; "
                "log σ axes) and against the length T with a hotter sampler (right; linear T axes; every y axis "
                f"logarithmic). (b) plots the mean over {_N_INSTANCES} random instances per T (one instance per T gave a "
                "zigzag that was the draw, not the length). In (c) a curve is drawn only where its sd differs "
                f"by more than {_SAME_SD:.0%} from the naive estimator's and from every estimator before it in "
                "the legend; elsewhere it equals one of them (the weights have not reached a clip) and is not "
                "drawn twice. Open markers on the bottom edge are exact zeros "
                "(|bias| ≤ 10⁻¹² × the panel's largest value, i.e. rounding): sequence IS is unbiased, and "
                "sequence truncation and masking are unbiased until the ratio reaches the "
                "clip C = 2 (geometric mask [0.8, 1.25]); points are dodged sideways so coinciding values (sequence IS = "
                "sequence TIS = sequence MIS before truncation) stay visible. The length trap (d), exactly, on a stationary "
                "two-token instance (trainer logits (0, 3) at every position, sampler at temperature 1/0.6): the sequence "
                "weight's second moment E_μ[ρ²], the factor by which sequence IS inflates the variance, grows geometrically "
                "with T, and the most likely response's weight ρ̄^T passes C = 2 at T* = log C / log ρ̄, after which MIS masks it "
                "(the T* of mismatch.identity.length_trap), hence MIS's bias in (b) "
                "(mismatch.identity.length_trap, mismatch.identity.mis_bias, mismatch.estimator.*).",
        claims=("mismatch.identity.length_trap", "mismatch.identity.mis_bias", "mismatch.identity.seq_is_unbiased",
                "mismatch.estimator.*"), width="page")
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
    spread_T = {k: [] for k in names}
    for T in Ts:
        # one random instance per T made panel (b) zigzag (a T = 12 spike was one instance's draw):
        # the mean over _N_INSTANCES instances per T (exact zeros stay zeros), min–max in the data
        vals = {k: [] for k in names}
        for _ in range(_N_INSTANCES):
            lt = LinearSoftmaxPolicy.random(2, T, d, rng, scale=4.0)
            RT = rng.random(2 ** T)
            # the sampler runs "hotter" than the trainer (logits × 0.6): on typical (likely) tokens
            # ρ_t > 1, so ρ(y) grows like ρ̄^T on typical responses — the length trap
            mu = TabularPolicy([0.6 * z for z in lt.tabular().logits])
            _, mom = estimator_moments(mu, lt, RT, C=2.0, C_lo=0.8, C_hi=1.25)
            for k in names:
                vals[k].append((mom[k].bias_norm, math.sqrt(mom[k].variance)))
        for k in names:
            b = np.array([v[0] for v in vals[k]])
            by_T[k][0].append(float(np.mean(b)))
            by_T[k][1].append(float(np.mean([v[1] for v in vals[k]])))
            spread_T[k].append([float(b.min()), float(b.max())])
    fig, axes = new_figure(ncols=2, nrows=2, height=4.4)
    styles = [dict(color=f"C{i}", marker=m, ls=ls) for i, (m, ls) in
              enumerate(zip("os^DvP", ("-", "--", "-.", ":", (0, (5, 1, 1, 1)), (0, (3, 1)))))]
    zeros = {"by_sigma": {}, "by_T": {}}
    ref_s = max(max(by_s[k][0]) for k in names)
    ref_T = max(max(by_T[k][0]) for k in names)
    drawn_c = []
    for i, (k, sty) in enumerate(zip(names, styles)):
        # dodge: coinciding values (e.g. seq_is = seq_tis = seq_mis before truncation) stay visible
        xs = sigmas * 10 ** (0.012 * (i - 2.5))
        xt = np.asarray(Ts, float) + 0.09 * (i - 2.5)
        # labelled in (a) too: the figure legend's entries name the same series in every panel
        zs = _plot_with_zeros(axes[0, 0], xs, by_s[k][0], label=_ESTIMATOR_NAMES.get(k, k), ref=ref_s, **sty)
        zt = _plot_with_zeros(axes[0, 1], xt, by_T[k][0], label=None, ref=ref_T, **sty)
        # (c) relative to the naive estimator's sd: the curves that coincide at ≈ 1 in absolute terms
        # (the estimators agree until the weights reach the clip) separate where they differ
        # where an estimator's sd is within _SAME_SD of the naive one's it IS the naive sd (the weights
        # have not reached a clip): not drawn, so the curves that differ are not hidden under one line
        # (and likewise within _SAME_SD of an estimator drawn before it: one curve for equal values)
        rel = np.asarray(by_s[k][1]) / np.asarray(by_s["naive"][1])
        same = np.zeros(rel.shape, bool)
        for prev in drawn_c:
            same |= np.abs(rel / prev - 1) <= _SAME_SD
        drawn_c.append(rel)
        axes[1, 0].plot(xs, np.where(same, np.nan, rel), label=_ESTIMATOR_NAMES.get(k, k), **sty)
        zeros["by_sigma"][k] = zs.tolist()
        zeros["by_T"][k] = zt.tolist()
        data["by_sigma"][k] = {"bias": by_s[k][0], "sd": by_s[k][1]}
        data["by_T"][k] = {"bias": by_T[k][0], "sd": by_T[k][1], "bias_min_max": spread_T[k]}
    weight = _stationary_weight(range(1, 21), z=3.0, temp=0.6, C=2.0)
    data["sequence_weight_by_T"] = weight
    # black and grey: these are properties of the weight, not estimators of the legend
    axes[1, 1].plot(weight["T"], weight["second_moment"], color="0.1", marker="o", ms=3, ls="-",
                    label="E_μ[ρ²] (IS variance factor)")
    axes[1, 1].plot(weight["T"], weight["typical_rho"], color="0.55", marker="s", ms=3, ls="--",
                    label="ρ̄^T (most likely response)")
    ref_line(axes[1, 1], y=weight["C"], ls="--")
    ref_line(axes[1, 1], x=weight["T_star"], ls=":")
    axes[1, 1].text(weight["T_star"] + 0.3, weight["C"] * 0.75, f"C = {weight['C']:g}: MIS masks it\nfrom T* = "
                    f"log C / log ρ̄ = {weight['T_star']:.1f}", fontsize=7, va="top")
    axes[1, 1].legend(loc="upper left", fontsize=7)
    data["exact_zero_bias"] = zeros
    data["zero_rule"] = f"|bias| <= {_ZERO_REL:g} x panel max is drawn as an exact zero (open marker at bottom)"
    for ax in (axes[0, 0], axes[0, 1], axes[1, 0], axes[1, 1]):
        ax.set_yscale("log")
    for ax in axes[:, 0]:
        ax.set_xscale("log")
    for ax in axes[:, 0]:
        grid_ticks(ax, [0.02, 0.05, 0.1, 0.2, 0.5, 1.0], "x")
    grid_ticks(axes[0, 1], Ts, "x", "%d")
    grid_ticks(axes[1, 1], [1, 5, 10, 15, 20], "x", "%d")
    grid_ticks(axes[1, 1], [1, 2, 4, 8], "y", "%g")
    axes[0, 0].set_ylabel("‖bias‖")
    axes[1, 0].set_ylabel("sd / sd of the naive estimator")
    ref_line(axes[1, 0], y=1.0, ls=":")
    grid_ticks(axes[1, 0], [0.5, 1, 2, 5], "y", "%g")
    axes[1, 1].set_ylabel("exact value")
    axes[1, 0].set_xlabel("logit noise σ (uniform mismatch), T = 6")
    axes[1, 1].set_xlabel("length T (stationary instance)")
    axes[0, 1].set_xlabel("length T (hotter sampler)")
    axes[0, 0].set_xlabel("logit noise σ (uniform mismatch), T = 6")
    axes[0, 0].set_title("vs mismatch level")
    axes[0, 1].set_title(f"vs length: mean over {_N_INSTANCES} instances per T")
    axes[1, 0].set_title("sd ÷ naive sd (equal values drawn once)")
    axes[1, 1].set_title("the sequence weight ρ = π/μ")
    handles, labels = axes[1, 0].get_legend_handles_labels()
    handles.append(matplotlib.lines.Line2D([], [], ls="", marker="o", mfc="white", color="0.3", ms=4))
    labels.append("exact 0 (on the axis)")
    fig.legend(handles, labels, loc="outside right center", title="estimator")
    panel_letters(axes)
    return fig, data


@figure("mismatch_trm_acceptance",
        caption="(a) TRM-Max acceptance (1 − p)^T of a response against its length T when each position "
                "independently violates with probability p; points are exact enumerations on a constructed "
                "pair (positions 2..T at risk) lying on the formula (mismatch.identity.trm_acceptance). (b) "
                "Probability that the TRM-Avg, k2-max and k3-mean proxies accept a response whose exact "
                "maximum per-token KL exceeds δ, from the trials of mismatch.trm.*, with exact 95% Clopper–Pearson bands (the exact mask never "
                "does: mismatch.trm.exact_never_false_accepts). The vertical line is the claims' δ = 0.02.",
        claims=("mismatch.identity.trm_acceptance", "mismatch.trm.*"), width="page")
def fig_trm_acceptance(*, quick: bool, seed: int):
    Ts = np.arange(1, 4097)
    ps = (1e-4, 1e-3, 1e-2)
    fig, axes = new_figure(ncols=2, height=3.1)
    data = {"p": list(ps), "seed": seed, "curves": {}, "exact_points": {}, "proxies": {}}
    for p, c, ls in zip(ps, ("C0", "C1", "C2"), ("-", "--", "-.")):
        y = (1 - p) ** Ts
        axes[0].semilogx(Ts, y, color=c, ls=ls, marker="", label=f"(1 − p)ᵀ, p = {p:g}")
        data["curves"][str(p)] = {"T": [1, 16, 256, 1024, 4096], "acc": [trm_acceptance(p, t) for t in (1, 16, 256, 1024, 4096)]}
    # exact enumeration (constructed pair: positions 2..T at risk) on the formula's curve
    pts = {}
    for p, c, mk in ((0.05, "C3", "D"), (0.2, "C4", "v")):
        Tn = np.arange(2, 9 if quick else 13)
        ex = [proxy_acceptance(*violation_pair(p, int(T))).accept["trm_max"] for T in Tn]
        Tl = Ts[:40]                    # the formula over the points and beyond: they sit on it
        axes[0].semilogx(Tl, (1 - p) ** Tl, color=c, lw=1.0, ls=":", marker="")
        axes[0].semilogx(Tn - 1, ex, ls="", marker=mk, color=c, label=f"exact enumeration, p = {p}\n(dotted: (1 − p)ᵀ)")
        pts[str(p)] = {"positions_at_risk": (Tn - 1).tolist(), "exact": ex,
                       "formula": ((1 - p) ** (Tn - 1)).tolist()}
    data["exact_points"] = pts
    axes[0].set_xlabel("response length T (positions at risk)")
    axes[0].set_ylabel("TRM-Max acceptance")
    axes[0].set_title("acceptance decays geometrically in T")
    axes[0].legend(loc="upper center", bbox_to_anchor=(0.5, -0.24), ncol=2, columnspacing=0.8)
    deltas = np.geomspace(0.005, 0.2, 6 if quick else 12)
    deltas[np.argmin(np.abs(np.log(deltas / 0.02)))] = 0.02      # the claims' δ on the grid, no near-duplicate
    n_trials = 2_000 if quick else 10_000
    m = measure(TRM_PATHS, n_trials, seed=seed)
    fa = {k: acceptance_given_violation(m.stats, deltas, mask=k) for k in ("trm_avg", "k2_max", "k3_mean")}
    n_viol = np.array([violations(m.stats, float(d)).sum() for d in deltas])
    bands = {}
    for k, c, mk, ls in zip(fa, ("C0", "C1", "C2"), ("o", "s", "^"), ("-", "--", "-.")):
        axes[1].semilogx(deltas, fa[k], marker=mk, ls=ls, color=c, label=_MASK_NAMES.get(k, k))
        # exact 95 % Clopper–Pearson band over the violating trials at each δ
        ci = np.array([clopper_pearson(int(round(f * n)), int(n), 0.05) for f, n in zip(fa[k], n_viol)])
        axes[1].fill_between(deltas, ci[:, 0], ci[:, 1], color=c, alpha=0.2, lw=0)
        bands[k] = ci.tolist()
    ref_line(axes[1], x=0.02, ls=":", label="claims' δ = 0.02")
    grid_ticks(axes[1], [0.005, 0.01, 0.02, 0.05, 0.1, 0.2], "x")
    data["proxies"] = {"delta": deltas.tolist(), "P(accept | max KL > δ)": {k: v.tolist() for k, v in fa.items()},
                       "trials": m.trials, "experiment": TRM_PATHS.id, "violating_trials": n_viol.tolist(),
                       "clopper_pearson_95": bands,
                       "generator": "low_prob (draw_pair), fresh pair and one response per trial, V=2, T=6"}
    axes[1].set_xlabel("δ")
    axes[1].set_ylabel("P(accept | exact max KL > δ)")
    axes[1].set_title(f"proxies admit violating responses ({m.trials} trials)")
    axes[1].legend(loc="upper center", bbox_to_anchor=(0.5, -0.24), ncol=2, columnspacing=0.8)
    panel_letters(axes)
    return fig, data


@figure("mismatch_staleness",
        caption="Update-size toy (V = 3, T = 2 tabular policy, η = 0.05): (a) KL between the policy k steps "
                "ago and now, drift with the exact gradient (∝ k²) and noise with flat reward (∝ k), fitted "
                "slopes ± OLS s.e.; (b) one-step KL from gradient noise against the batch size B (∝ 1/B); "
                "(c) sampler–trainer KL along training with a 4-step-stale sampler and a fixed logit error, "
                "for three step sizes (mean over runs, band ± 2 s.e.; the bands overlap, but the claim compares "
                "the step sizes paired on the same seeds). Error bars: ± 1 s.e. over replicates; a slope "
                "printed without ± is exact (a deterministic curve). Supports "
                "mismatch.scaling.staleness_* and mismatch.staleness.smaller_step_less_mismatch.",
        claims=("mismatch.scaling.staleness_drift_k", "mismatch.scaling.staleness_noise_k",
                "mismatch.scaling.staleness_noise_B", "mismatch.staleness.smaller_step_less_mismatch"),
        width="page")
def fig_staleness(*, quick: bool, seed: int):
    reps = 2 if quick else 8
    drift = drift_k_curve(None, 1)[0]              # exact gradient: deterministic (the generator is unused)
    noise = measure(NOISE_K, reps, seed=seed).stats["stale_kl"]
    nb = measure(NOISE_B, reps, seed=seed).stats["one_step_kl"]
    fig, axes = new_figure(ncols=3, height=3.2)
    sd, sde = _fit(K_GRID, drift)
    nm = noise.mean(0)
    sn, sne = _fit(K_GRID, nm)
    axes[0].loglog(K_GRID, drift, "o-", color="C0", label=f"drift (exact ∇J)\nslope {_slope(sd, sde)}")
    axes[0].errorbar(K_GRID, nm, yerr=noise.std(0, ddof=1) / math.sqrt(reps), fmt="s--", color="C1",
                     label=f"noise (flat R, B = 16)\nslope {_slope(sn, sne)}")
    grid_ticks(axes[0], list(K_GRID), "x", "%d")
    axes[0].set_xlabel("staleness k")
    axes[0].set_ylabel("KL(π at step t−k ‖ π at step t)")
    axes[0].legend(loc="upper center", bbox_to_anchor=(0.5, -0.2))
    bm = nb.mean(0)
    sb, sbe = _fit(B_GRID, bm)
    axes[1].errorbar(B_GRID, bm, yerr=nb.std(0, ddof=1) / math.sqrt(reps), fmt="s--", color="C1",
                     label=f"noise: slope {_slope(sb, sbe)}")
    axes[1].set_xscale("log")
    axes[1].set_yscale("log")
    axes[1].set_xticks(list(B_GRID))
    axes[1].xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%d"))
    axes[1].xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    axes[1].set_xlabel("batch size B")
    axes[1].set_ylabel("one-step KL")
    for ax in axes[:2]:
        log_tick_labels(ax)
    axes[1].legend(loc="upper center", bbox_to_anchor=(0.5, -0.2))
    axes[0].set_title("staleness, η = 0.05")
    axes[1].set_title(f"batch size, {reps} replicates")
    # sampler–trainer KL along training: 4-step-stale sampler + fixed logit error (antithetic pair),
    # the trials of mismatch.staleness.smaller_step_less_mismatch
    n_runs = 4 if quick else 40
    sk = measure(SAMPLER_KL, n_runs, seed=seed).stats
    sampler = {}
    for eta, c, ls in ((0.025, "C0", "-"), (0.05, "C1", "--"), (0.1, "C2", "-.")):
        runs = sk[f"sampler_kl[{eta}]"]
        ys = runs.mean(axis=0)
        se = runs.std(axis=0, ddof=1) / math.sqrt(runs.shape[0])
        axes[2].plot(np.arange(ys.size), ys, color=c, ls=ls, marker="", label=f"η = {eta}")
        axes[2].fill_between(np.arange(ys.size), ys - 2 * se, ys + 2 * se, color=c, alpha=0.2, lw=0)
        sampler[str(eta)] = ys.tolist()
        sampler[f"{eta}_se"] = se.tolist()
    axes[2].set_yscale("log")
    log_tick_labels(axes[2])
    axes[2].set_xlabel("SGD step")
    axes[2].set_ylabel("KL(sampler ‖ trainer)")
    axes[2].set_title(f"stale sampler, {n_runs} runs")
    axes[2].legend(loc="upper center", bbox_to_anchor=(0.5, -0.2))
    panel_letters(axes)
    return fig, {"sampler_kl": sampler, "sampler_setup": {**SAMPLER_KL.params, "runs": n_runs},
                 "k": list(K_GRID), "drift": drift.tolist(), "noise_mean": nm.tolist(),
                 "noise_se": (noise.std(0, ddof=1) / math.sqrt(reps)).tolist(), "B": list(B_GRID),
                 "noiseB_mean": bm.tolist(), "slopes": {"drift_k": [sd, sde], "noise_k": [sn, sne],
                                                        "noise_B": [sb, sbe]},
                 "replicates": reps, "seed": seed, "toy": "V=3, T=2, toy_seed 0",
                 "experiments": [NOISE_K.id, NOISE_B.id, SAMPLER_KL.id]}


def _slope(s: float, se: float) -> str:
    """A fitted slope with its standard error (three decimals when it is below 0.01), or alone when
    the fit is exact (se < 5·10⁻⁴)."""
    if se < 5e-4:
        return f"{s:.2f}"
    return f"{s:.3f} ± {se:.3f}" if se < 0.01 else f"{s:.2f} ± {se:.2f}"


def _smooth(x, k=10):
    """Trailing moving average over ``k`` steps of each row (the first ``k − 1`` use what exists)."""
    c = np.cumsum(np.pad(x, ((0, 0), (1, 0))), axis=1)
    idx = np.arange(x.shape[1])
    lo = np.maximum(idx + 1 - k, 0)
    return (c[:, idx + 1] - c[:, lo]) / (idx + 1 - lo)


@figure("mismatch_lr_schedule",
        caption="LR-schedule toy (V = 4 tokens + EOS, cap H = 256, B = 32, η = 0.15; sampler = trainer's "
                "logits with the EOS logit lowered by 2t/H, rounded to bf16): (a) sequence-level mismatch "
                "KL(π ‖ μ), with the threshold τ = 12 D₀ fixed in advance; (b) gradient noise tr Cov(ĝ); "
                "(c) mean sampled length, the signal of the trigger; (d) mean reward of the batch; (e) step "
                "size; (f) final reward (last 30 steps) against the peak mismatch, one point per seed. "
                "Lines: median over seeds, bands: quartiles; (b)–(d) are 10-step moving averages. Ticks "
                "at the top of (c): the triggered run's decays (orange) and the first alarm of the same "
                "trigger run as a monitor on the constant run (blue). Supports mismatch.lr_schedule.*.",
        claims=("mismatch.lr_schedule.*",), chunks_of=("mismatch.lr_schedule.*",), width="page")
def fig_lr_schedule(*, quick: bool, seed: int):
    n = 8 if quick else 40
    m = measure(LR_SCHEDULE, n, seed=seed).stats
    steps = m["mismatch[constant]"].shape[1]
    x = np.arange(steps)
    sched = (("constant", "constant η", "C0", "-"), ("triggered", "length-triggered decay", "C1", "-"),
             ("cosine", "cosine, same total decay", "C2", "--"))
    fig, axes = new_figure(ncols=3, nrows=2, height=5.4)
    axes = axes.ravel()
    tau = float(np.median(m["tau"]))
    data = {"seed": seed, "seeds": n, "tau": tau, "experiment": LR_SCHEDULE.id, "params": dict(LR_SCHEDULE.params),
            "median": {}, "fires": {}, "alarm": m["alarm"].tolist(), "cross": m["cross"].tolist()}
    panels = (("mismatch", "KL(π ‖ μ), whole sequence", False), ("noise", "gradient noise tr Cov(ĝ)", True),
              ("length", "mean sampled length", True), ("reward", "mean reward", True), ("lr", "step size η", False))
    for ax, (q, ylab, smooth) in zip(axes, panels):
        for key, lab, c, ls in sched:
            y = m[f"{q}[{key}]"]
            y = _smooth(y) if smooth else y
            med = np.median(y, axis=0)
            ax.plot(x, med, color=c, ls=ls, marker="", lw=1.3, label=lab)
            ax.fill_between(x, *np.percentile(y, [25, 75], axis=0), color=c, alpha=0.18, lw=0)
            data["median"].setdefault(q, {})[key] = med.tolist()
        ax.set_xlabel("training step")
        ax.set_ylabel(ylab)
    axes[0].axhline(tau, color="k", ls=":", lw=1)
    axes[0].annotate(f"τ = 12 D₀ = {tau:.3f}", (0.98, tau * 0.94), xycoords=("axes fraction", "data"),
                     fontsize=7, va="top", ha="right")
    axes[4].set_yscale("log")
    log_tick_labels(axes[4])
    # trigger firings: where the triggered run's step drops; the monitor's first alarm on the constant run
    lrs = m["lr[triggered]"]
    fires = [np.flatnonzero(np.diff(row) < 0).tolist() for row in lrs]
    data["fires"] = fires
    top = axes[2].get_ylim()[1]
    for row in fires:
        axes[2].plot(row, [top * 0.97] * len(row), "|", color="C1", ms=7, alpha=0.5)
    al = m["alarm"][m["alarm"] >= 0]
    axes[2].plot(al, [top * 0.91] * al.size, "|", color="C0", ms=7, alpha=0.5)
    axes[2].set_ylim(top=top)
    axes[2].text(0.03, 0.86, "ticks: orange = decays,\nblue = first alarm\n(monitor on constant η)",
                 transform=axes[2].transAxes, fontsize=7, va="top")
    cr = m["cross"][m["cross"] >= 0]
    if cr.size:
        axes[0].axvline(float(np.median(cr)), color="C0", ls=":", lw=1)
        axes[0].annotate("constant η\ncrosses τ\n(median step)", (float(np.median(cr)), 0.97),
                         xycoords=("data", "axes fraction"), xytext=(4, 0), textcoords="offset points",
                         fontsize=7, color="C0", va="top")
    for key, lab, c, _ in sched:
        axes[5].scatter(m[f"max_mismatch[{key}]"], m[f"final_reward[{key}]"], s=12, color=c, alpha=0.7,
                        label=lab)
    axes[5].axvline(tau, color="k", ls=":", lw=1)
    axes[5].set_xlabel("peak mismatch over the run")
    axes[5].set_ylabel("final reward (last 30 steps)")
    axes[5].text(tau, axes[5].get_ylim()[1], " τ", fontsize=7, va="top")
    h, lab = axes[0].get_legend_handles_labels()
    fig.legend(h, lab, loc="outside lower center", ncol=3, fontsize=8)
    for ax, t in zip(axes, ("mismatch", "gradient noise", "length (trigger signal)", "reward", "step size",
                            f"per seed ({n} seeds)")):
        ax.set_title(t)
    panel_letters(axes)
    data["final_reward"] = {k: m[f"final_reward[{k}]"].tolist() for k, *_ in sched}
    data["max_mismatch"] = {k: m[f"max_mismatch[{k}]"].tolist() for k, *_ in sched}
    return fig, data


@figure("mismatch_batch_rule",
        caption="Batch-size-invariant rule on the update-size toy (V = 3, T = 2, noise regime: flat reward; "
                "η₀ = 0.05, k₀ = 32 at B₀ = 4): the sampler–trainer gap KL(π at step s−k ‖ π at step s) against "
                "the batch size B under the derived rule η ∝ B, k ∝ 1/B (queue fixed at k·B = 128 samples) and the "
                "naive rules with the queue fixed at k = 32 (η ∝ B; η fixed); median and 10–90 % band over seeds, "
                "paired. Past B* = k₀B₀ = 128 the queue floors at k = 1 and the rule's gap grows again (dashed). "
                "Supports mismatch.batch_rule.*.",
        claims=("mismatch.batch_rule.rule_holds_gap", "mismatch.batch_rule.linear_moves_gap",
                "mismatch.batch_rule.fixed_moves_gap", "mismatch.batch_rule.breaks_at_queue_floor"),
        chunks_of=("mismatch.batch_rule.rule_holds_gap", "mismatch.batch_rule.breaks_at_queue_floor"),
        width="column")
def fig_batch_rule(*, quick: bool, seed: int):
    from proofs_check.mismatch.experiments import BATCH_BREAK, BATCH_GAP, BREAK_B_GRID, RULE_B_GRID

    reps = 2 if quick else 32
    gap = measure(BATCH_GAP, reps, seed=seed).stats
    brk = measure(BATCH_BREAK, reps, seed=seed).stats["gap[rule]"]
    fig, ax = new_figure(ncols=1, height=3.6)
    data = {"B": list(RULE_B_GRID), "B_break": list(BREAK_B_GRID), "replicates": reps, "seed": seed,
            "experiments": [BATCH_GAP.id, BATCH_BREAK.id]}
    for key, lab, c, mk in (("rule", "rule: η ∝ B, k ∝ 1/B", "C0", "o"), ("linear", "naive: η ∝ B, k = 32", "C3", "^"),
                            ("fixed", "naive: η fixed, k = 32", "C2", "s")):
        y = gap[f"gap[{key}]"]
        q = np.quantile(y, [0.1, 0.5, 0.9], axis=0)
        ax.plot(RULE_B_GRID, q[1], marker=mk, color=c, label=lab)
        ax.fill_between(RULE_B_GRID, q[0], q[2], color=c, alpha=0.2, lw=0)
        data[key] = {"median": q[1].tolist(), "q10": q[0].tolist(), "q90": q[2].tolist()}
    q = np.quantile(brk, [0.1, 0.5, 0.9], axis=0)
    ax.plot(BREAK_B_GRID, q[1], marker="o", mfc="none", ls="--", color="C0", label="rule past B* (k = 1)")
    ax.fill_between(BREAK_B_GRID, q[0], q[2], color="C0", alpha=0.1, lw=0)
    data["rule_break"] = {"median": q[1].tolist(), "q10": q[0].tolist(), "q90": q[2].tolist()}
    ref_line(ax, x=128, ls=":", label="B* = k₀B₀")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%d"))
    ax.set_xlabel("batch size B")
    ax.set_ylabel("gap KL(π at step s−k ‖ π at step s)")
    ax.set_title(f"gap vs batch size ({reps} seeds)")
    # below the axes: inside, it covered the naive rules' points at small B (figure lint)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=2, fontsize=7)
    return fig, data
