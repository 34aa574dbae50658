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

import numpy as np

from proofs_check.baselines import (GROUP_KINDS, POPULATION_KINDS, TOY_BATCH, TOY_HEADLINE, TOY_HEADLINE_EOS,
                                    TOY_KINDS, TOY_LR, TOY_LR_EOS, TOY_STEPS, TOY_TASK, TOY_TASK_EOS, CountTask,
                                    accumulation_errors, approximation_trials, checkpoints, diff_interval,
                                    discounted_reward_to_go, gradient_trials, gradient_variance_estimate,
                                    group_mse_experiment, population_variance_trials,
                                    random_context_norms, sweep_summary, sweep_trials, toy_pair_experiment,
                                    transcribed_accumulation, truncated_is_accumulation)
from proofs_check.engine import Experiment, measure
from proofs_check.logits import logit_update_norm

from .style import figure, new_figure

COLORS = {"none": "0.6", "mean": "C0", "rloo": "C2", "global_bstar": "C1", "otb": "C3", "per_token": "C4"}
LABELS = {"none": "no baseline", "mean": "group mean", "rloo": "leave-one-out", "global_bstar": "global $b^*$",
          "otb": "OTB (cumulative energy)", "per_token": "per-token optimum"}


def _experiment(id, fn, chunk_size, **params):
    return Experiment(id=id, fn=functools.partial(fn, **params), chunk_size=chunk_size,
                      params={k: (list(v) if isinstance(v, tuple) else v) for k, v in params.items()})


def _mean_se(x):
    x = np.asarray(x, dtype=float)
    se = x.std(axis=0, ddof=1) / np.sqrt(x.shape[0]) if x.shape[0] > 1 else np.zeros(x.shape[1:])
    return np.stack([x.mean(axis=0), se], axis=-1)


@figure("baselines_variance_vs_horizon")
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
    fig, (a, b) = new_figure(ncols=2)
    for k in POPULATION_KINDS:
        y = np.array(rel[k])
        a.errorbar(Ts, y[:, 0], yerr=y[:, 1], color=COLORS[k], label=LABELS[k], marker="o", capsize=2)
    a.set_xlabel("horizon T (tabular, V = 2)")
    a.set_ylabel("population Var = MSE (mean over instances)")
    a.set_yscale("log")
    a.set_title(f"exact, {pm.trials} random instances per T")
    a.legend()
    for k in GROUP_KINDS:
        y = np.array(gmse[k])
        b.errorbar(gTs, y[:, 0], yerr=y[:, 1], color=COLORS[k], label=LABELS[k], marker="s", capsize=2)
    b.set_xlabel("horizon T")
    b.set_ylabel("group-estimator MSE, N = 4")
    b.set_yscale("log")
    b.set_title("exact over all N-tuples")
    b.legend()
    return fig, {"T": list(Ts), "variance_mean_se": rel, "group_T": gTs, "group_mse_mean_se": gmse,
                 "instances_per_T": pm.trials, "group_instances_per_T": n_g,
                 "reward": "Bernoulli(0.3) per response (panel a); U[0, 1] per response (panel b, the "
                           "instances of the baselines.mse.* claims)",
                 "experiments": [pop.id] + [e.id for e in gexp.values()]}


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
    fig, (a, b, c) = new_figure(ncols=3)
    summ = {}
    for k in kinds:
        s = np.array([sw["final_mean_lo_hi"][f"{k}/{N}"] for N in Ns])
        summ[k] = s.tolist()
        a.errorbar(Ns, s[:, 0], yerr=[s[:, 0] - s[:, 1], s[:, 2] - s[:, 0]], color=COLORS[k],
                   label=LABELS[k], marker="o", capsize=2)
        v = np.array(gvar[k])
        b.errorbar(Ns, v[:, 0], yerr=2 * v[:, 1], color=COLORS[k], marker="o", capsize=2)
    for ax in (a, b):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("group size N (equal tokens per step)")
    a.set_ylabel(f"exact return after {steps} steps")
    a.set_title(f"{'variable length (EOS)' if task.eos else 'fixed length'}: mean, 95% t, {seeds} seeds")
    a.legend(fontsize=6)
    b.set_yscale("log")
    b.set_ylabel("Var of one step's gradient (initial θ)")
    b.set_title(f"±2 SE, {reps} batches")
    tokens = checkpoints(steps, every) * TOY_BATCH * task.T
    curves = {"otb/4": np.mean(hm["returns/otb/4"], axis=0), "mean/32": np.mean(hm["returns/mean/32"], axis=0)}
    if "mean/4" in sw["curves"]:
        curves["mean/4"] = np.asarray(sw["curves"]["mean/4"])
    for key, style in (("otb/4", "-"), ("mean/32", "--"), ("mean/4", ":")):
        if key in curves:
            k, N = key.split("/")
            c.plot(tokens, curves[key], style, color=COLORS[k], label=f"{LABELS[k]}, N={N}")
    c.set_xlabel("sampled token budget (batch × T per step)")
    c.set_ylabel(f"exact return (mean over {pairs} seeds)")
    c.legend(fontsize=6)
    head = list(diff_interval(hm["final/otb/4"], hm["final/mean/32"])) if pairs > 1 else None
    return fig, {"task": task.to_dict(), "kinds": list(kinds), "Ns": list(Ns), "seeds": seeds, "steps": steps,
                 "batch": TOY_BATCH, "lr": sweep.params["lr"], "sweep": sw, "final_summary_mean_lo_hi": summ,
                 "grad_variance_theta0_est_se": gvar, "grad_variance_reps": reps,
                 "headline_pairs": pairs, "headline_curves": {k: v.tolist() for k, v in curves.items()},
                 "otb4_minus_mean32_diff_lo_hi": head,
                 "experiments": [sweep.id, grads.id, headline.id]}


@figure("baselines_group_size_sweep")
def group_size_sweep_figure(*, quick: bool, seed: int):
    return _sweep_figure(quick=quick, seed=seed, eos=False)


@figure("baselines_group_size_sweep_eos")
def group_size_sweep_eos_figure(*, quick: bool, seed: int):
    return _sweep_figure(quick=quick, seed=seed, eos=True)


@figure("baselines_logit_update_norm")
def logit_update_norm_figure(*, quick: bool, seed: int):
    pa = np.linspace(0.001, 0.999, 60 if quick else 400)
    fig, ax = new_figure()
    data = {"p_a": pa.tolist()}
    for V in (2, 10, 1000):
        # the other V−1 tokens share 1 − p_a uniformly
        rest = np.log((1 - pa) / (V - 1))
        z = np.concatenate([np.log(pa)[:, None], np.repeat(rest[:, None], V - 1, axis=1)], axis=1)
        n = logit_update_norm(z, np.zeros(pa.size, dtype=int), 1.0, eta=1.0)
        data[f"V={V}"] = n.tolist()
        ax.plot(pa, n, label=f"V = {V}, others uniform")
    ctx = _experiment("baselines.fig.random_contexts", random_context_norms, 100, V=50, scale=3.0)
    m = measure(ctx, 300 if quick else 3000, seed=seed)
    ax.scatter(m.stats["p_a"], m.stats["norm"], s=2, color="0.5", alpha=0.4, label="random contexts, V = 50")
    ax.plot(pa, np.sqrt(2) * (1 - pa), "k:", lw=0.8, label=r"$\sqrt{2}(1-p_a)$ (upper bound)")
    ax.set_xlabel(r"probability of the chosen token $p_a$")
    ax.set_ylabel(r"$\|\Delta z\| / (\eta |A|) = \sqrt{1 - 2p_a + \sum p^2}$")
    ax.legend()
    data.update({"random_contexts": m.trials, "experiments": [ctx.id]})
    return fig, data


@figure("baselines_approx_error")
def approx_error_figure(*, quick: bool, seed: int):
    etas = np.geomspace(1e-4, 30, 40 if quick else 200)
    Vs, tol1, tol2 = (4, 32, 1000), 1e-3, 1e-2
    exp = _experiment(f"baselines.fig.approximation_contexts.{etas.size}", approximation_trials, 1, Vs=Vs,
                      etas=tuple(float(e) for e in etas), tol_first=tol1, tol_second=tol2, eta_hi=1e3)
    st = measure(exp, 1, seed=seed).stats
    fig, (a, b) = new_figure(ncols=2)
    data = {"eta": etas.tolist(), "contexts": [], "experiments": [exp.id]}
    for i, V in enumerate(Vs):
        e1, e2 = st[f"V{V}/first_order"][0], st[f"V{V}/second_order_rel"][0]
        b1, b2 = float(st[f"V{V}/break_first"][0]), float(st[f"V{V}/break_second"][0])
        a.loglog(etas, e1, color=f"C{i}", label=f"V = {V}")
        a.axvline(b1, color=f"C{i}", ls=":", lw=0.8)
        b.loglog(etas, e2, color=f"C{i}", label=f"V = {V}")
        b.axvline(b2, color=f"C{i}", ls=":", lw=0.8)
        data["contexts"].append({"V": V, "action": int(st[f"V{V}/action"][0]), "first_order": e1.tolist(),
                                 "second_order_rel": e2.tolist(), "break_first": b1, "break_second": b2})
    a.axhline(tol1, color="k", lw=0.6)
    b.axhline(tol2, color="k", lw=0.6)
    a.set_xlabel(r"step size $\eta$ ($A = 1$)")
    a.set_ylabel(r"max$_i$ |Δlog $p_i$ − first order|")
    b.set_xlabel(r"step size $\eta$")
    b.set_ylabel("relative error of second-order KL")
    a.legend()
    data.update({"tol_first": tol1, "tol_second": tol2})
    return fig, data


@figure("baselines_dapo_accumulation")
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
    fig, (a, b) = new_figure(ncols=2)
    x = np.arange(4)
    a.bar(x - 0.25, rtg, 0.25, label="reward-to-go", color="0.6")
    a.bar(x, correct, 0.25, label="correct recursion", color="C0")
    a.bar(x + 0.25, wrong, 0.25, label="transcribed recursion", color="C3")
    for xi, v in zip(x, wrong):
        a.text(xi + 0.25, v, f"{v:.0f}", ha="center", va="bottom", fontsize=6)
    a.set_xticks(x)
    a.set_xlabel("position k (reg = 1, 10, 100, 1000; γ = 0.5; ratios 1)")
    a.set_ylabel("accumulated divergence $D_k$")
    a.legend()
    b.semilogy(np.arange(L), err_w + 1e-300, color="C3", label="transcribed")
    b.semilogy(np.arange(L), np.maximum(err_c, 1e-17), color="C0", label="correct (rounding)")
    b.set_xlabel(f"position (random |reg|, L = {L}, γ = 0.9)")
    b.set_ylabel("|D_k − reward-to-go|")
    b.legend()
    return fig, {"reg": reg.tolist(), "gamma": gamma, "correct": correct.tolist(), "transcribed": wrong.tolist(),
                 "reward_to_go": rtg.tolist(), "random_L": L, "max_err_correct": float(err_c.max()),
                 "max_err_transcribed": float(err_w.max()), "experiments": [exp.id]}
