"""Figures of the baselines topic (theory page ``docs/theory/baselines.md``).

* ``baselines_variance_vs_horizon`` — exact population variance per baseline vs T
  (tabular, V = 2), and exact group MSE at N = 4 (N-tuple enumeration).
* ``baselines_group_size_sweep`` (fixed length) and ``baselines_group_size_sweep_eos``
  (variable length) — the toy: final return and gradient variance vs N per baseline at an
  equal token budget; learning curves of OTB N=4 vs mean N=32.
* ``baselines_logit_update_norm`` — ``‖Δz‖/(η|A|)`` vs ``p_a``.
* ``baselines_approx_error`` — approximation errors vs step size, breaking steps marked.
* ``baselines_dapo_accumulation`` — correct vs transcribed truncated-IS accumulation.

Every Monte Carlo number comes from :func:`proofs_check.engine.measure` of an
:class:`~proofs_check.engine.Experiment` (the engine's seeding, chunk ``k`` from
``SeedSequence(seed, spawn_key=(k,))``); deterministic curves need no seed.  The
group-MSE panel reads the experiment of the ``baselines.mse.*`` claims and the toy
figures the experiment of the ``baselines.toy.headline(_eos)`` claims.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from proofs_check.baselines import (GROUP_KINDS, POPULATION_KINDS, TOY_KINDS, CountTask, checkpoints,
                                    diff_interval, discounted_reward_to_go, gradient_variance_estimate,
                                    group_mse_experiment, sweep_summary, toy_pair_experiment,
                                    transcribed_accumulation, truncated_is_accumulation)
from proofs_check.baselines.dapo import accumulation_errors
from proofs_check.baselines.experiments import (TOY_BATCH, TOY_HEADLINE, TOY_HEADLINE_EOS, TOY_LR,
                                                TOY_LR_EOS, TOY_STEPS, TOY_TASK, TOY_TASK_EOS)
from proofs_check.baselines.logit_dynamics import approximation_trials, random_context_norms
from proofs_check.baselines.population import population_variance_trials
from proofs_check.baselines.toy_sweeps import gradient_trials, sweep_trials
from proofs_check.engine import Experiment, measure
from proofs_check.logits import logit_update_norm

from .registry import figure
from .style import grid_ticks, log_tick_labels, new_figure, panel_letters, ref_line

COLORS = {"none": "0.5", "mean": "C0", "rloo": "C2", "global_bstar": "C3", "otb": "C1", "per_token": "C4"}
MARKERS = {"none": "x", "mean": "o", "rloo": "^", "global_bstar": "D", "otb": "s", "per_token": "v"}
LINESTYLES = {"none": ":", "mean": "-", "rloo": "-.", "global_bstar": (0, (5, 1, 1, 1)), "otb": "--",
              "per_token": (0, (3, 1))}


def _sty(k):
    return {"color": COLORS[k], "marker": MARKERS[k], "ls": LINESTYLES[k]}


def _dodge(x, i, n, *, log=True, width=0.05):
    """Shift series ``i`` of ``n`` sideways (multiplicatively on log axes) so equal values stay visible."""
    x = np.asarray(x, float)
    off = width * (i - (n - 1) / 2)
    return x * 2 ** off if log else x + off
LABELS = {"none": "no baseline", "mean": "group mean", "rloo": "leave-one-out", "global_bstar": "global $b^*$",
          "otb": "OTB (cumulative energy)", "per_token": "per-token optimum"}


def _experiment(id, fn, chunk_size, **params):
    return Experiment(id=id, fn=functools.partial(fn, **params), chunk_size=chunk_size,
                      params={k: (list(v) if isinstance(v, tuple) else v) for k, v in params.items()})


def _mean_se(x):
    x = np.asarray(x, dtype=float)
    se = x.std(axis=0, ddof=1) / np.sqrt(x.shape[0]) if x.shape[0] > 1 else np.zeros(x.shape[1:])
    return np.stack([x.mean(axis=0), se], axis=-1)


@figure("baselines_variance_vs_horizon",
        caption="(a) Exact population variance (= MSE) of the policy-gradient estimator with each baseline "
                "against the horizon T (tabular policy, V = 2), mean ± s.e. over random instances: the "
                "ordering per-token optimum ≤ OTB ≤ global b* ≤ group mean ≤ no baseline of "
                "baselines.variance.*. (b) Exact MSE of the group estimators at N = 4 (enumeration over all "
                "N-tuples): OTB below group mean and leave-one-out (baselines.mse.*). Points are dodged "
                "sideways so equal values stay visible. (c) Var[OTB] / Var[b*] on random instances (V = 2, T = 3; "
                "a dot per instance): never above 1 with a tabular policy (baselines.variance.otb_le_global_bstar), "
                "far above 1 with shared parameters (linear-softmax, d = 2); the star is the worst instance found "
                "by the claim's own search (baselines.variance.shared.otb_le_global_bstar, same seed).",
        claims=("baselines.variance.*", "baselines.mse.*"), width="page")
def variance_vs_horizon(*, quick: bool, seed: int):
    Ts = tuple(range(2, 7 if quick else 11))  # T = 1 is degenerate (V = 2: Var can be 0)
    n_inst = 3 if quick else 12
    pop = _experiment(f"baselines.fig.population_variance.T2-{Ts[-1]}", population_variance_trials, 3,
                      V=2, Ts=Ts, reward_prob=0.3, scale=1.5)
    pm = measure(pop, n_inst, seed=seed)
    rel = {k: _mean_se(pm.stats[k]).tolist() for k in POPULATION_KINDS}   # [T][mean, se]
    gTs = [2, 3] if quick else [2, 3, 4]
    gexp = {T: group_mse_experiment(T) for T in gTs}   # T = 3: the experiment of the baselines.mse.* claims
    gm = {T: measure(e, e.chunk_size, seed=seed) for T, e in gexp.items()}
    n_g = gexp[gTs[0]].chunk_size
    gmse = {k: [_mean_se(gm[T].stats[k][:, None])[0].tolist() for T in gTs] for k in GROUP_KINDS}
    ratios, worst = _otb_bstar_ratios(quick=quick, seed=seed)
    fig, (a, b, c) = new_figure(ncols=3, height=2.6, gridspec_kw={"width_ratios": (1.2, 1, 0.9)})
    for i, k in enumerate(POPULATION_KINDS):
        y = np.array(rel[k])
        a.errorbar(_dodge(Ts, i, len(POPULATION_KINDS), log=False, width=0.08), y[:, 0], yerr=y[:, 1],
                   label=LABELS[k], **_sty(k))
    a.set_xlabel("horizon T (tabular, V = 2)")
    a.set_ylabel("population variance (= MSE)")
    a.set_yscale("log")
    a.set_title(f"exact, {pm.trials} random instances per T")
    grid_ticks(a, Ts, "x", "%d")
    for i, k in enumerate(GROUP_KINDS):
        y = np.array(gmse[k])
        b.errorbar(_dodge(gTs, i, len(GROUP_KINDS), log=False, width=0.06), y[:, 0], yerr=y[:, 1],
                   label=LABELS[k], **_sty(k))
    b.set_xlabel("horizon T")
    b.set_ylabel("group-estimator MSE, N = 4")
    b.set_yscale("log")
    b.set_title("exact over all N-tuples")
    log_tick_labels(b, mantissas=(2, 3, 4, 6))
    grid_ticks(b, gTs, "x", "%d")
    handles, labels = a.get_legend_handles_labels()
    for h, lab in zip(*b.get_legend_handles_labels()):
        if lab not in labels:
            handles.append(h)
            labels.append(lab)
    _ratio_panel(c, ratios, worst)
    fig.legend(handles, labels, loc="outside lower center", ncol=4)
    panel_letters((a, b, c))
    return fig, {"T": list(Ts), "variance_mean_se": rel, "group_T": gTs, "group_mse_mean_se": gmse,
                 "instances_per_T": pm.trials, "group_instances_per_T": n_g,
                 "otb_over_bstar_random": {k: v.tolist() for k, v in ratios.items()},
                 "otb_over_bstar_search_worst": worst,
                 "reward": "Bernoulli(0.3) per response (panel a); U[0, 1] per response (panel b, the "
                           "instances of the baselines.mse.* claims)",
                 "experiments": [pop.id] + [e.id for e in gexp.values()]}


def _otb_bstar_ratios(*, quick: bool, seed: int):
    """``Var[OTB] / Var[b*]`` on random instances of the two claims (tabular and shared parameters,
    their own samplers and settings) and the worst ratio of the shared claim's own search
    (``verify_claim`` at the claim's quick/default budget, the same seed)."""
    from proofs_check.baselines.instances import (instance_sample, shared_instance_sample,
                                                  shared_variance_pair, variance_pair)
    from proofs_check.engine import get_claim, verify_claim

    n = 150 if quick else 1_000
    rng = np.random.default_rng([seed, 24])
    tab = [variance_pair(instance_sample(rng, V=2, T=3, scale=2.0), small="otb", large="global_bstar",
                         V=2, T=3) for _ in range(n)]
    sh = [shared_variance_pair(shared_instance_sample(rng, V=2, T=3, d=2, scale=2.0), small="otb",
                               large="global_bstar", V=2, T=3, d=2, weights="proxy") for _ in range(n)]
    ratios = {"tabular": np.array([x / y for x, y in tab]), "shared": np.array([x / y for x, y in sh])}
    claim = get_claim("baselines.variance.shared.otb_le_global_bstar")
    res = verify_claim(claim, budget=claim.quick_budget if quick else claim.default_budget, seed=seed)
    return ratios, {"ratio": float(res.worst_ratio), "verdict": res.verdict, "evaluations": res.evaluations}


def _ratio_panel(ax, ratios, worst):
    """Panel (c) of ``baselines_variance_vs_horizon``: the ratio per random instance as jittered dots
    (log scale), the line at 1 and the search's worst instance as a labelled star."""
    jit = np.random.default_rng(0)
    # greys: the two policy classes are not estimators of the legend
    for i, (k, name, col) in enumerate((("tabular", "tabular", "0.55"), ("shared", "shared θ\n(linear-softmax)", "0.2"))):
        r = ratios[k]
        ax.plot(i + jit.uniform(-0.18, 0.18, r.size), r, ls="", marker="o", ms=2.2, alpha=0.45, color=col)
        ax.text(i, r.max() * 1.6, f"max {r.max():.2f}×" if r.max() < 10 else f"max {r.max():.0f}×",
                ha="center", va="bottom", fontsize=7, color=col)
    ax.plot([1], [worst["ratio"]], marker="*", ms=11, color="white", mec="k", mew=0.9, ls="")
    ax.text(0.78, worst["ratio"], f"search: {worst['ratio']:.0f}×", fontsize=7.5, va="center", ha="right",
            color="0.1", fontweight="bold")
    ref_line(ax, y=1.0, ls="--")
    ax.set_yscale("log")
    ax.set_xlim(-0.6, 1.6)
    top = max(worst["ratio"], max(r.max() for r in ratios.values()))
    ax.set_ylim(min(r.min() for r in ratios.values()) / 2, top * 6)
    ax.set_xticks([0, 1], ["tabular", "shared θ"])
    ax.set_ylabel("Var[OTB] / Var[b*]")
    ax.set_title(f"{ratios['shared'].size} random instances")


def _toy_setup(*, quick: bool, eos: bool):
    """The experiments behind a toy figure: the sweep, the one-step gradients, the headline pair."""
    if quick:
        task = CountTask(V=3, T=12, n_prompts=2, threshold=6, eos=eos, eos_logit=-2.0 if eos else 0.0)
        kinds, Ns, steps, lr, every, seeds, reps, pairs = ("mean", "otb"), (2, 4, 32), 4, TOY_LR, 2, 2, 10, 2
        tag = ".quick"
        headline = toy_pair_experiment(f"baselines.fig.toy_headline{'_eos' if eos else ''}{tag}", task, lr=lr,
                                       steps=steps, eval_every=every)
    else:
        task = TOY_TASK_EOS if eos else TOY_TASK
        kinds, Ns, steps, lr, every = TOY_KINDS, (2, 4, 8, 16, 32), TOY_STEPS, TOY_LR_EOS if eos else TOY_LR, 5
        seeds, reps, pairs, tag = 20, 200, 20, ""
        headline = TOY_HEADLINE_EOS if eos else TOY_HEADLINE
    name = f"baselines.fig.toy{'_eos' if eos else ''}{tag}"
    sweep = _experiment(f"{name}.sweep", sweep_trials, 2, task=task, kinds=kinds, Ns=Ns, steps=steps,
                        batch=TOY_BATCH, lr=lr, eval_every=every)
    grads = _experiment(f"{name}.gradients", gradient_trials, 10, task=task, kinds=kinds, Ns=Ns, batch=TOY_BATCH)
    return task, kinds, Ns, steps, every, (sweep, seeds), (grads, reps), (headline, pairs)


def _sweep_figure(*, quick: bool, seed: int, eos: bool):
    task, kinds, Ns, steps, every, (sweep, seeds), (grads, reps), (headline, pairs) = _toy_setup(quick=quick,
                                                                                                 eos=eos)
    sw = sweep_summary(measure(sweep, seeds, seed=seed).stats, kinds=kinds, Ns=Ns)
    gm = measure(grads, reps, seed=seed).stats
    gvar = {k: [list(gradient_variance_estimate(gm[f"{k}/{N}"])) for N in Ns] for k in kinds}
    hm = measure(headline, pairs, seed=seed).stats
    fig, (a, b, c) = new_figure(ncols=3, height=2.9)
    summ = {}
    for i, k in enumerate(kinds):
        s = np.array([sw["final_mean_lo_hi"][f"{k}/{N}"] for N in Ns])
        summ[k] = s.tolist()
        xd = _dodge(Ns, i, len(kinds), width=0.12)
        a.errorbar(xd, s[:, 0], yerr=[s[:, 0] - s[:, 1], s[:, 2] - s[:, 0]], label=LABELS[k], **_sty(k))
        v = np.array(gvar[k])
        b.errorbar(xd, v[:, 0], yerr=2 * v[:, 1], **_sty(k))
    for ax in (a, b):
        ax.set_xscale("log", base=2)
        grid_ticks(ax, Ns, "x", "%d")
        ax.set_xlabel("group size N (equal tokens)")
    a.set_ylabel(f"exact return after {steps} steps")
    a.set_title(f"final return, 95% t, {seeds} seeds")
    b.set_yscale("log")
    b.set_ylabel("Var of one step's gradient at θ₀")
    b.set_title("gradient variance, ±2 s.e.")
    tokens = checkpoints(steps, every) * TOY_BATCH * task.T
    curves = {"otb/4": np.mean(hm["returns/otb/4"], axis=0), "mean/32": np.mean(hm["returns/mean/32"], axis=0)}
    if "mean/4" in sw["curves"]:
        curves["mean/4"] = np.asarray(sw["curves"]["mean/4"])
    for key, style in (("otb/4", "-"), ("mean/32", "--"), ("mean/4", ":")):
        if key in curves:
            k, N = key.split("/")
            c.plot(tokens, curves[key], ls=style, color=COLORS[k], marker=MARKERS[k],
                   markevery=max(1, len(tokens) // 6), label=f"{'OTB' if k == 'otb' else 'mean'}, N = {N}")
    c.set_xlabel("sampled tokens")
    c.set_ylabel(f"exact return (mean of {pairs} seeds)")
    c.set_title("learning curves")
    head = list(diff_interval(hm["final/otb/4"], hm["final/mean/32"])) if pairs > 1 else None
    # the headline's number, as the legend's title (the legend finds the free corner); not in a quick
    # build, whose two seeds make the interval meaningless and whose three points leave no free corner
    if quick or head is None:
        c.legend(loc="upper left")
    else:
        c.legend(loc="best", fontsize=7, handlelength=1.8, title_fontsize=7,
                 title=f"end: OTB 4 − mean 32\n= {head[0]:+.3f}\n[{head[1]:+.3f}, {head[2]:+.3f}]\n(95% Welch)")
    fig.legend(*a.get_legend_handles_labels(), loc="outside lower center", ncol=len(kinds))
    panel_letters((a, b, c))
    log_tick_labels(b, mantissas=(2, 3, 4, 6))
    return fig, {"task": task.to_dict(), "kinds": list(kinds), "Ns": list(Ns), "seeds": seeds, "steps": steps,
                 "batch": TOY_BATCH, "lr": sweep.params["lr"], "sweep": sw, "final_summary_mean_lo_hi": summ,
                 "grad_variance_theta0_est_se": gvar, "grad_variance_reps": reps,
                 "headline_pairs": pairs, "headline_curves": {k: v.tolist() for k, v in curves.items()},
                 "otb4_minus_mean32_diff_lo_hi": head,
                 "experiments": [sweep.id, grads.id, headline.id]}


@figure("baselines_group_size_sweep",
        caption="Toy RL task with fixed-length responses at an equal token budget per step: (a) exact return "
                "after training against the group size N per baseline (mean, 95% t-interval over seeds); "
                "(b) variance of one step's gradient at the initial parameters (±2 s.e.); (c) learning "
                "curves of OTB with N = 4 against the group mean with N = 32 and N = 4 (baselines.toy.headline). "
                "With equal lengths OTB equals the group mean (baselines.otb.equal_weights_group_mean), so "
                "their points coincide; they are dodged sideways.",
        claims=("baselines.toy.headline", "baselines.otb.equal_weights_group_mean"), width="page")
def group_size_sweep_figure(*, quick: bool, seed: int):
    return _sweep_figure(quick=quick, seed=seed, eos=False)


@figure("baselines_group_size_sweep_eos",
        caption="As the fixed-length toy but with variable-length responses (an end-of-sequence token): "
                "(a) final return against N per baseline, (b) gradient variance at θ₀, (c) learning curves "
                "of OTB N = 4 against group mean N = 32 and N = 4 at equal sampled tokens "
                "(baselines.toy.headline_eos).",
        claims=("baselines.toy.headline_eos",), width="page")
def group_size_sweep_eos_figure(*, quick: bool, seed: int):
    return _sweep_figure(quick=quick, seed=seed, eos=True)


@figure("baselines_logit_update_norm",
        caption="Norm of the logit update per unit step and advantage, ‖Δz‖/(η|A|) = √(1 − 2p_a + Σp²), "
                "against the probability p_a of the sampled token: closed form for V = 2, 10, 1000 with the "
                "other tokens uniform, random contexts with V = 50 (grey points), and the upper bound "
                "√2 (1 − p_a) (baselines.logit.update_norm).",
        claims=("baselines.logit.update_norm",), width="column")
def logit_update_norm_figure(*, quick: bool, seed: int):
    pa = np.linspace(0.001, 0.999, 60 if quick else 400)
    fig, ax = new_figure(height=2.7)
    data = {"p_a": pa.tolist()}
    for V, c, ls in ((2, "C0", "-"), (10, "C1", "--"), (1000, "C2", "-.")):
        # the other V−1 tokens share 1 − p_a uniformly
        rest = np.log((1 - pa) / (V - 1))
        z = np.concatenate([np.log(pa)[:, None], np.repeat(rest[:, None], V - 1, axis=1)], axis=1)
        n = logit_update_norm(z, np.zeros(pa.size, dtype=int), 1.0, eta=1.0)
        data[f"V={V}"] = n.tolist()
        ax.plot(pa, n, color=c, ls=ls, marker="", label=f"V = {V}, others uniform", zorder=3)
    ctx = _experiment("baselines.fig.random_contexts", random_context_norms, 100, V=50, scale=3.0)
    m = measure(ctx, 300 if quick else 3000, seed=seed)
    ax.scatter(m.stats["p_a"], m.stats["norm"], s=2, color="0.55", alpha=0.5, marker="o", lw=0,
               label="random contexts, V = 50", zorder=2)
    ax.plot(pa, np.sqrt(2) * (1 - pa), "k:", lw=1.0, label=r"$\sqrt{2}(1-p_a)$ (upper bound)", zorder=4)
    ax.set_xlabel(r"probability of the chosen token $p_a$")
    ax.set_ylabel(r"$\|\Delta z\| / (\eta |A|)$")
    ax.set_ylim(0, 1.75)
    ax.annotate("V = 2 attains the bound", xy=(0.5, math.sqrt(2) * 0.5), xytext=(0.55, 0.95),
                fontsize=7.5, arrowprops=dict(arrowstyle="->", color="0.3", lw=0.8))
    ax.legend(loc="upper right")
    data.update({"random_contexts": m.trials, "experiments": [ctx.id]})
    return fig, data


@figure("baselines_approx_error",
        caption="Error of the Taylor approximations of a softmax policy update against the step size η "
                "(advantage A = 1) for V = 4, 32, 1000: (a) largest error of the first-order change of "
                "log-probabilities, (b) relative error of the second-order KL. Horizontal lines: the "
                "tolerances 10⁻³ and 10⁻²; vertical lines, with their values: the step at which each context first "
                "breaks them (baselines.logit.first_order_*, baselines.logit.second_order_*). The sharp dips in (b) "
                "are sign changes of the second-order error (the relative error passes through 0).",
        claims=("baselines.logit.first_order_error", "baselines.logit.first_order_breaking_step",
                "baselines.logit.second_order_error", "baselines.logit.second_order_breaking_step"),
        width="page")
def approx_error_figure(*, quick: bool, seed: int):
    etas = np.geomspace(1e-3, 30, 40 if quick else 200)     # below 1e-3 only the η² line continues
    Vs, tol1, tol2 = (4, 32, 1000), 1e-3, 1e-2
    exp = _experiment(f"baselines.fig.approximation_contexts.{etas.size}.from_1e-3", approximation_trials, 1, Vs=Vs,
                      etas=tuple(float(e) for e in etas), tol_first=tol1, tol_second=tol2, eta_hi=1e3)
    st = measure(exp, 1, seed=seed).stats
    fig, (a, b) = new_figure(ncols=2, height=2.5)
    data = {"eta": etas.tolist(), "contexts": [], "experiments": [exp.id]}
    for i, (V, ls) in enumerate(zip(Vs, ("-", "--", "-."))):
        e1, e2 = st[f"V{V}/first_order"][0], st[f"V{V}/second_order_rel"][0]
        b1, b2 = float(st[f"V{V}/break_first"][0]), float(st[f"V{V}/break_second"][0])
        a.loglog(etas, e1, color=f"C{i}", ls=ls, marker="", label=f"V = {V}")
        a.axvline(b1, color=f"C{i}", ls=":", lw=0.9, gid="reference")
        b.loglog(etas, e2, color=f"C{i}", ls=ls, marker="", label=f"V = {V}")
        b.axvline(b2, color=f"C{i}", ls=":", lw=0.9, gid="reference")
        data["contexts"].append({"V": V, "action": int(st[f"V{V}/action"][0]), "first_order": e1.tolist(),
                                 "second_order_rel": e2.tolist(), "break_first": b1, "break_second": b2})
    ref_line(a, y=tol1, ls="--", label=f"tolerance {tol1:g}")
    ref_line(b, y=tol2, ls="--", label=f"tolerance {tol2:g}")
    # the breaking steps, labelled at the foot of their lines (the headline numbers of the claims)
    for ax, key in ((a, "break_first"), (b, "break_second")):
        for i, c in enumerate(data["contexts"]):
            ax.text(c[key] * 1.08, 0.03 + 0.07 * i, f"{c[key]:.2g}", transform=ax.get_xaxis_transform(),
                    color=f"C{i}", fontsize=7, ha="left", va="bottom")
    a.set_xlabel(r"step size $\eta$ ($A = 1$)")
    a.set_ylabel(r"max$_i$ |Δlog $p_i$ − first order|")
    b.set_xlabel(r"step size $\eta$ ($A = 1$)")
    b.set_ylabel("relative error, second-order KL")
    a.set_title("first-order log-probabilities")
    b.set_title("second-order KL")
    a.legend(loc="upper left")
    b.legend(loc="upper left")
    panel_letters((a, b))
    data.update({"tol_first": tol1, "tol_second": tol2})
    return fig, data


@figure("baselines_dapo_accumulation",
        caption="Truncated-IS accumulation of per-token divergences: (a) on reg = (1, 10, 100, 1000), γ = 0.5 "
                "and unit ratios, the correct recursion reproduces the discounted reward-to-go while the "
                "transcribed recursion does not (baselines.dapo.transcribed_recursion, "
                "baselines.dapo.accumulation_onpolicy); (b) on random |reg| (L positions, γ = 0.9) the "
                "transcribed recursion's error against the reward-to-go, with exact zeros (errors ≤ 10⁻¹² × "
                "the largest, i.e. rounding) drawn as open markers on the bottom edge; the correct "
                "recursion's error is zero at every position up to that rounding.",
        claims=("baselines.dapo.transcribed_recursion", "baselines.dapo.accumulation_onpolicy"), width="page")
def dapo_figure(*, quick: bool, seed: int):
    reg = np.array([1.0, 10.0, 100.0, 1000.0])
    gamma = 0.5
    correct = truncated_is_accumulation(reg, gamma=gamma)[0]
    wrong = transcribed_accumulation(reg, gamma=gamma)
    rtg = discounted_reward_to_go(reg, gamma=gamma)
    L = 30 if quick else 200
    exp = _experiment(f"baselines.fig.dapo_random_accumulation.L{L}", accumulation_errors, 1, L=L, gamma=0.9)
    st = measure(exp, 1, seed=seed).stats
    err_c, err_w = st["correct"][0], st["transcribed"][0]
    fig, (a, b) = new_figure(ncols=2, height=2.5)
    x = np.arange(4)
    a.bar(x - 0.27, rtg, 0.27, label="reward-to-go", color="0.6", edgecolor="k", lw=0.4)
    a.bar(x, correct, 0.27, label="correct recursion", color="C0", hatch="///", edgecolor="w", lw=0.0)
    a.bar(x + 0.27, wrong, 0.27, label="transcribed recursion", color="C1", hatch="..", edgecolor="w", lw=0.0)
    for xi, v in zip(x, wrong):
        a.text(xi + 0.27, v + 15, f"{v:.0f}", ha="center", va="bottom", fontsize=7)
    a.set_xticks(x, [f"k = {k}" for k in x])
    a.set_ylim(0, 1.3 * max(wrong.max(), rtg.max()))
    a.set_xlabel("position k (reg = 1, 10, 100, 1000; γ = 0.5)")
    a.set_ylabel("accumulated divergence $D_k$")
    a.set_title("four-token example")
    a.legend(loc="upper left")
    pos = np.arange(L)
    ref = max(float(err_w.max()), float(err_c.max()), 1e-300)
    zero_w = err_w <= 1e-12 * ref
    zero_c = err_c <= 1e-12 * ref
    b.semilogy(pos[~zero_w], err_w[~zero_w], color="C1", ls="--", marker="s", markevery=max(1, L // 10),
               label="transcribed recursion")
    if zero_w.any():
        b.plot(pos[zero_w], np.zeros(int(zero_w.sum())), ls="", marker="s", mfc="white", color="C1",
               transform=b.get_xaxis_transform(), clip_on=False, zorder=3, label="transcribed: exactly 0")
    b.plot(pos[zero_c], np.zeros(int(zero_c.sum())), ls="", marker="o", mfc="white", color="C0", ms=3,
           transform=b.get_xaxis_transform(), clip_on=False, zorder=3,
           label="correct recursion: exactly 0" if float(err_c.max()) == 0 else
           f"correct recursion: ≤ rounding (max {float(err_c.max()):.1g})")
    pos_w = err_w[~zero_w]
    if pos_w.size:
        lo_, hi_ = float(pos_w.min()) / 1.5, float(pos_w.max()) * 1.5
        b.set_ylim(lo_, hi_ * (hi_ / lo_) ** 0.6)       # headroom: the legend sits above the curve
    b.set_xlabel(f"position k (random |reg|, L = {L}, γ = 0.9)")
    b.set_ylabel("|$D_k$ − reward-to-go|")
    b.set_title("random example")
    b.legend(loc="upper center", ncol=1, fontsize=7)
    panel_letters((a, b))
    return fig, {"reg": reg.tolist(), "gamma": gamma, "correct": correct.tolist(), "transcribed": wrong.tolist(),
                 "reward_to_go": rtg.tolist(), "random_L": L, "max_err_correct": float(err_c.max()),
                 "max_err_transcribed": float(err_w.max()), "experiments": [exp.id]}
