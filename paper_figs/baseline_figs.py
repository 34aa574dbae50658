"""Figures for spec ``baselines.md``: baselines, logit dynamics, DAPO, and the toy headline.

* ``baselines_variance_vs_horizon`` — exact population variance per baseline vs T
  (tabular, V = 2), and exact group MSE at N = 4 (N-tuple enumeration).
* ``baselines_group_size_sweep`` (fixed length) and ``baselines_group_size_sweep_eos``
  (variable length) — the toy: final return and gradient variance vs N per baseline at an
  equal token budget; learning curves of OTB N=4 vs mean N=32.
* ``baselines_logit_update_norm`` — ``‖Δz‖/(η|A|)`` vs ``p_a``.
* ``baselines_approx_error`` — approximation errors vs step size, breaking steps marked.
* ``baselines_dapo_accumulation`` — correct vs transcribed truncated-IS accumulation.
"""
from __future__ import annotations

import numpy as np

from proofs_check.baselines import (GROUP_KINDS, POPULATION_KINDS, exact_model, group_estimator_moments,
                                    population_baselines, population_variances)
from proofs_check.baselines.dapo import discounted_reward_to_go, transcribed_accumulation, truncated_is_accumulation
from proofs_check.logits import approximation_errors, breaking_step_size, logit_update_norm
from proofs_check.baselines.toy import (TOY_KINDS, CountTask, diff_interval, gradient_variance, group_size_sweep,
                                  mean_interval)
from proofs_check.policies import TabularPolicy

from .style import figure, new_figure

COLORS = {"none": "0.6", "mean": "C0", "rloo": "C2", "global_bstar": "C1", "otb": "C3", "per_token": "C4"}
LABELS = {"none": "no baseline", "mean": "group mean", "rloo": "leave-one-out", "global_bstar": "global $b^*$",
          "otb": "OTB (cumulative energy)", "per_token": "per-token optimum"}

#: Toy configuration shared by the figure, the claim and the note.
TOY_TASK = CountTask(V=4, T=48, n_prompts=3, threshold=18)
TOY_STEPS, TOY_BATCH, TOY_LR = 40, 32, 0.3


def _random_instance(rng, V, T):
    pol = TabularPolicy.random(V, T, rng, scale=1.5)
    R = (rng.random(V ** T) < 0.3).astype(float)  # sparse terminal reward
    if R.sum() == 0:
        R[rng.integers(V ** T)] = 1.0
    return pol, R


@figure("baselines_variance_vs_horizon")
def variance_vs_horizon(*, quick: bool, seed: int):
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(61,)))
    Ts = list(range(2, 7 if quick else 11))  # T = 1 is degenerate (V = 2: Var can be 0)
    n_inst = 3 if quick else 12
    rel = {k: [] for k in POPULATION_KINDS}
    for T in Ts:
        vals = {k: [] for k in POPULATION_KINDS}
        for _ in range(n_inst):
            m = exact_model(*_random_instance(rng, 2, T))
            v = population_variances(m, population_baselines(m))
            for k in POPULATION_KINDS:
                vals[k].append(v[k])
        for k in POPULATION_KINDS:
            x = np.array(vals[k])
            rel[k].append([float(x.mean()), float(x.std(ddof=1) / np.sqrt(x.size))])
    gTs = [2, 3] if quick else [2, 3, 4]
    n_g = 1 if quick else 3
    gmse = {k: [] for k in GROUP_KINDS}
    for T in gTs:
        vals = {k: [] for k in GROUP_KINDS}
        for _ in range(n_g):
            m = exact_model(*_random_instance(rng, 2, T))
            for k in GROUP_KINDS:
                vals[k].append(group_estimator_moments(m, 4, k).mse)
        for k in GROUP_KINDS:
            x = np.array(vals[k])
            gmse[k].append([float(x.mean()), float(x.std(ddof=1) / np.sqrt(x.size)) if x.size > 1 else 0.0])
    fig, (a, b) = new_figure(ncols=2)
    for k in POPULATION_KINDS:
        y = np.array(rel[k])
        a.errorbar(Ts, y[:, 0], yerr=y[:, 1], color=COLORS[k], label=LABELS[k], marker="o", capsize=2)
    a.set_xlabel("horizon T (tabular, V = 2)")
    a.set_ylabel("population Var = MSE (mean over instances)")
    a.set_yscale("log")
    a.set_title(f"exact, {n_inst} random instances per T")
    a.legend()
    for k in GROUP_KINDS:
        y = np.array(gmse[k])
        b.errorbar(gTs, y[:, 0], yerr=y[:, 1], color=COLORS[k], label=LABELS[k], marker="s", capsize=2)
    b.set_xlabel("horizon T")
    b.set_ylabel("group-estimator MSE, N = 4")
    b.set_yscale("log")
    b.set_title("exact over all N-tuples")
    b.legend()
    return fig, {"T": Ts, "variance_mean_se": rel, "group_T": gTs, "group_mse_mean_se": gmse,
                 "instances_per_T": n_inst, "group_instances_per_T": n_g, "reward": "Bernoulli(0.3) per sequence"}


#: Variable-length variant: token 3 is EOS (initial EOS logit −3); initial success 6.9%.
TOY_TASK_EOS = CountTask(V=4, T=48, n_prompts=3, threshold=20, eos=True, eos_logit=-3.0)
TOY_LR_EOS = 0.6


def toy_sweep(*, quick: bool, seed: int, eos: bool = False):
    """The sweep behind the headline figures (also used by the notebook and the note)."""
    if quick:
        task = CountTask(V=3, T=12, n_prompts=2, threshold=6, eos=eos, eos_logit=-2.0 if eos else 0.0)
        return group_size_sweep(task, kinds=("mean", "otb"), Ns=(2, 4, 32), seeds=2, steps=4, batch=32,
                                lr=TOY_LR, root_seed=seed, eval_every=2)
    return group_size_sweep(TOY_TASK_EOS if eos else TOY_TASK, kinds=TOY_KINDS, Ns=(2, 4, 8, 16, 32), seeds=20,
                            steps=TOY_STEPS, batch=TOY_BATCH, lr=TOY_LR_EOS if eos else TOY_LR,
                            root_seed=seed, eval_every=5)


def _sweep_figure(sw, *, quick: bool, seed: int, salt: int):
    task = CountTask(**sw.task)
    theta0 = task.initial_theta()
    reps = 10 if quick else 200
    gvar = {}
    for ki, k in enumerate(sw.kinds):
        gvar[k] = [list(gradient_variance(theta0, task, k, N, batch=sw.batch, reps=reps,
                                          rng=np.random.SeedSequence(seed, spawn_key=(salt, ki, N))))
                   for N in sw.Ns]
    fig, (a, b, c) = new_figure(ncols=3)
    summ = {}
    for k in sw.kinds:
        s = np.array([mean_interval(sw.final[f"{k}/{N}"]) for N in sw.Ns])
        summ[k] = s.tolist()
        a.errorbar(sw.Ns, s[:, 0], yerr=[s[:, 0] - s[:, 1], s[:, 2] - s[:, 0]], color=COLORS[k],
                   label=LABELS[k], marker="o", capsize=2)
        v = np.array(gvar[k])
        b.errorbar(sw.Ns, v[:, 0], yerr=2 * v[:, 1], color=COLORS[k], marker="o", capsize=2)
    for ax in (a, b):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("group size N (equal tokens per step)")
    a.set_ylabel(f"exact return after {sw.steps} steps")
    a.set_title(f"{'variable length (EOS)' if task.eos else 'fixed length'}: mean, 95% t, {sw.seeds} seeds")
    a.legend(fontsize=6)
    b.set_yscale("log")
    b.set_ylabel("Var of one step's gradient (initial θ)")
    b.set_title(f"±2 SE, {reps} batches")
    tokens = np.array(sw.checkpoints) * sw.batch * task.T
    for key, style in (("otb/4", "-"), (f"mean/{max(sw.Ns)}", "--"), ("mean/4", ":")):
        if key in sw.curves:
            k = key.split("/")[0]
            c.plot(tokens, sw.curves[key], style, color=COLORS[k], label=f"{LABELS[k]}, N={key.split('/')[1]}")
    c.set_xlabel("sampled token budget (batch × T per step)")
    c.set_ylabel("exact return (mean over seeds)")
    c.legend(fontsize=6)
    a4 = sw.final.get("otb/4")
    m32 = sw.final.get(f"mean/{max(sw.Ns)}")
    head = list(diff_interval(a4, m32)) if a4 and m32 and len(a4) > 1 else None
    return fig, {"sweep": sw.to_dict(), "final_summary_mean_lo_hi": summ, "grad_variance_theta0_est_se": gvar,
                 "otb4_minus_mean32_diff_lo_hi": head, "grad_variance_reps": reps}


@figure("baselines_group_size_sweep")
def group_size_sweep_figure(*, quick: bool, seed: int):
    return _sweep_figure(toy_sweep(quick=quick, seed=seed), quick=quick, seed=seed, salt=62)


@figure("baselines_group_size_sweep_eos")
def group_size_sweep_eos_figure(*, quick: bool, seed: int):
    return _sweep_figure(toy_sweep(quick=quick, seed=seed, eos=True), quick=quick, seed=seed, salt=66)


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
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(63,)))
    V = 50
    z = rng.standard_normal((300 if quick else 3000, V)) * 3
    a = rng.integers(0, V, z.shape[0])
    n = logit_update_norm(z, a, 1.0, eta=1.0)
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    ax.scatter(p[np.arange(a.size), a], n, s=2, color="0.5", alpha=0.4, label="random contexts, V = 50")
    ax.plot(pa, np.sqrt(2) * (1 - pa), "k:", lw=0.8, label=r"$\sqrt{2}(1-p_a)$ (upper bound)")
    ax.set_xlabel(r"probability of the chosen token $p_a$")
    ax.set_ylabel(r"$\|\Delta z\| / (\eta |A|) = \sqrt{1 - 2p_a + \sum p^2}$")
    ax.legend()
    return fig, data


@figure("baselines_approx_error")
def approx_error_figure(*, quick: bool, seed: int):
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(64,)))
    etas = np.geomspace(1e-4, 30, 40 if quick else 200)
    fig, (a, b) = new_figure(ncols=2)
    data = {"eta": etas.tolist(), "contexts": []}
    tol1, tol2 = 1e-3, 1e-2
    for i in range(3):
        V = (4, 32, 1000)[i]
        z = rng.standard_normal(V) * 2
        act = int(rng.integers(V))
        e = approximation_errors(z, act, 1.0, etas)
        b1 = breaking_step_size(z, act, 1.0, order=1, tol=tol1, eta_hi=1e3)
        b2 = breaking_step_size(z, act, 1.0, order=2, tol=tol2, eta_hi=1e3)
        a.loglog(etas, e["first_order"], color=f"C{i}", label=f"V = {V}")
        a.axvline(b1, color=f"C{i}", ls=":", lw=0.8)
        b.loglog(etas, e["second_order_rel"], color=f"C{i}", label=f"V = {V}")
        b.axvline(b2, color=f"C{i}", ls=":", lw=0.8)
        data["contexts"].append({"V": V, "action": act, "first_order": e["first_order"].tolist(),
                                 "second_order_rel": e["second_order_rel"].tolist(),
                                 "break_first": b1, "break_second": b2})
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
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(65,)))
    L = 30 if quick else 200
    r2 = np.abs(rng.normal(size=L))
    err_c = np.abs(truncated_is_accumulation(r2, gamma=0.9)[0] - discounted_reward_to_go(r2, gamma=0.9))
    err_w = np.abs(transcribed_accumulation(r2, gamma=0.9) - discounted_reward_to_go(r2, gamma=0.9))
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
                 "max_err_transcribed": float(err_w.max())}
