# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # The optimal token baseline, the logit-gradient proxy, logit dynamics and DAPO
#
# A walk through the theory page `docs/theory/baselines.md` with the toolkit
# (`proofs_check.logits`, `proofs_check.baselines`).  Set `THEORYCHECK_FAST=1` for tiny sizes.
#
# Sources: "The Optimal Token Baseline" (Li et al., arXiv 2602.07078) and the
# authors' veRL implementation; "Logit Dynamics in Softmax Policy Gradient"
# (arXiv 2506.12912); "Divergence-Augmented Policy Optimization" (NeurIPS 2019).

# %%
import os

import numpy as np

FAST = os.environ.get("THEORYCHECK_FAST", "0") == "1"
SEED = 0
rng = np.random.default_rng(SEED)
print("fast mode:", FAST, "| seed:", SEED)

# %% [markdown]
# ## 1. The logit-gradient proxy (§2, CONFIRMED)
#
# For `p = softmax(z)` and the sampled token `a`, `‖∇_z log p_a‖² = 1 − 2p_a + Σ_b p_b²`,
# read off the forward pass: `Σ_b p_b² = exp(logsumexp(2z) − 2 logsumexp(z))`.
# It stays exact for huge logits and vocabularies.

# %%
from proofs_check.logits import logit_gradient_energy, softmax, softmax_score, sum_pi_squared

V = 2_000 if FAST else 100_000
z = rng.uniform(-1e4, 1e4, (3, V))
a = rng.integers(0, V, 3)
s = softmax_score(z, a)
print("energy (closed form):", logit_gradient_energy(z, a))
print("max |‖e_a − p‖² − closed form|:", np.abs((s * s).sum(1) - logit_gradient_energy(z, a)).max())
print("Σp² two ways, max diff:", np.abs(sum_pi_squared(z) - (softmax(z) ** 2).sum(1)).max())

# %%
from proofs_check.symbolic import prove_logit_energy_identity, prove_logit_energy_identity_general

print("sympy, V = 2..6:", all(prove_logit_energy_identity(v) for v in range(2, 7)),
      "| general V:", prove_logit_energy_identity_general())

# %% [markdown]
# With shared parameters the proxy is only a proxy.  For random linear-softmax
# policies we measure the probability-weighted correlation between the proxy
# `Σ_{j≤t} w_j` and the true cumulative energy `‖Σ_{j≤t} s_j‖²`:

# %%
from proofs_check.baselines import mean_interval
from proofs_check.baselines.proxy import correlation_samples

corr = correlation_samples(rng, 10 if FAST else 100, V=3, T=4, d=4, scale=2.0)
print("correlation: mean %.3f, 95%% interval [%.3f, %.3f], n = %d" % (*mean_interval(corr), corr.size))

# %% [markdown]
# ## 2. Which baseline? Exact population variances (§1)
#
# Tabular policy, V = 3, T = 4 (81 responses enumerated).  All population
# baselines are unbiased, so variance = MSE.  The per-token optimum minimises
# the variance over per-position constants; OTB uses the cumulative energy.

# %%
from proofs_check.baselines import compare_population_baselines
from proofs_check.policies import TabularPolicy

pol = TabularPolicy.random(3, 4, rng, scale=1.0)
R = rng.random(81)
cmp_ = compare_population_baselines(pol, R)
for k, v in sorted(cmp_.variances.items(), key=lambda kv: -kv[1]):
    print(f"{k:14s} {v:.5f}")

# %% [markdown]
# ## 3. The group estimator as implemented (§3, CONFIRMED from code)
#
# `optimal_token_baseline_advantage` is a fused numba kernel; it agrees with a
# per-token loop written from the theory page (docs/theory/baselines.md#otb-implementation).

# %%
from proofs_check.baselines import optimal_token_baseline_advantage, otb_advantage_loop, ragged_batch

r, m, g, lp, spp, isw = ragged_batch(rng, N=16, L=12)
A1, G1 = optimal_token_baseline_advantage(r, m, g, lp, spp, is_weights=isw, handle_zero_tail=True)
A2, G2 = otb_advantage_loop(r, m, g, lp, spp, is_weights=isw, handle_zero_tail=True)
print("max |kernel − loop|:", np.abs(A1 - A2).max())

# %% [markdown]
# Self-inclusive group estimators are biased.  Exactly, by enumerating all
# N-tuples (V = 2, T = 3): the group mean has `E ĝ = ((N−1)/N) g`, leave-one-out
# is unbiased, OTB's bias is measured.  Compare by MSE.

# %%
from proofs_check.baselines import exact_model, group_estimator_moments

mdl = exact_model(TabularPolicy.random(2, 3, rng, scale=1.5), rng.random(8))
for N in (2, 3, 4) if FAST else (2, 3, 4, 5):
    row = {k: group_estimator_moments(mdl, N, k) for k in ("mean", "rloo", "otb")}
    print(f"N={N}: " + " | ".join(f"{k}: bias {v.bias_ratio:.3f} mse {v.mse:.5f}" for k, v in row.items()))

# %% [markdown]
# ## 4. Logit dynamics (§4)
#
# One step `Δz = ηA(e_a − p)`: `Σ_j Δz_j = 0`, `‖Δz‖ = η|A| sqrt(1 − 2p_a + Σp²)`.
# The first-order log-prob change and the second-order KL break at step sizes
# that scale like `tol^{1/2}` and `tol`.

# %%
from proofs_check.logits import breaking_step_size, logit_update

zc = rng.standard_normal(8) * 2
dz = logit_update(zc, 3, 1.0, eta=0.5)
print("Σ Δz =", dz.sum())
for tol in (1e-6, 1e-4, 1e-2):
    print(f"tol {tol:g}: first-order breaks at η = {breaking_step_size(zc, 3, 1.0, order=1, tol=tol):.3g}, "
          f"second-order KL at η = {breaking_step_size(zc, 3, 1.0, order=2, tol=tol):.3g}")

# %% [markdown]
# ## 5. Divergence augmentation (§5)
#
# The trajectory KL decomposes over positions and its gradient is REINFORCE
# with the per-step log-ratio accumulated forward.  The correct truncated-IS
# accumulation reduces to the reward-to-go on-policy; our transcription of the
# released recursion does not.

# %%
from proofs_check.baselines import (kl_gradient_complex_step, kl_gradient_reward_to_go, trajectory_kl,
                                    trajectory_kl_chain, transcribed_accumulation, truncated_is_accumulation)

pi, mu = TabularPolicy.random(2, 3, rng), TabularPolicy.random(2, 3, rng)
print("KL direct %.15f, chain %.15f" % (trajectory_kl(pi, mu), trajectory_kl_chain(pi, mu)))
print("gradient form max err:", max(np.abs(x - y).max() for x, y in
                                    zip(kl_gradient_reward_to_go(pi, mu), kl_gradient_complex_step(pi, mu))))
print("correct    :", truncated_is_accumulation([1, 10, 100, 1000], gamma=0.5)[0])
print("transcribed:", transcribed_accumulation([1, 10, 100, 1000], gamma=0.5))

# %% [markdown]
# ## 6. The headline in a toy
#
# REINFORCE on a sparse-reward counting task (`proofs_check.baselines.toy`), equal
# tokens per step for every group size.  Does OTB at N = 4 match the group mean
# at N = 32?  The claim `baselines.toy.headline` and the figure
# `baselines_group_size_sweep` read the same experiment, `TOY_HEADLINE`: each trial
# trains both configurations from fresh seeds, under the engine's seeding.

# %%
from proofs_check.baselines import CountTask, diff_interval, toy_pair_experiment
from proofs_check.baselines.experiments import TOY_HEADLINE, TOY_HEADLINE_EOS
from proofs_check.engine import measure

if FAST:
    headline = toy_pair_experiment("notebook.toy_headline.fast", CountTask(V=3, T=12, n_prompts=2, threshold=6),
                                   lr=0.3, steps=5)
else:
    headline = TOY_HEADLINE
st = measure(headline, 4 if FAST else 20, seed=SEED).stats
for key in ("otb/4", "mean/32"):
    print(key, "final return %.3f [%.3f, %.3f]" % mean_interval(st[f"final/{key}"]))
print("OTB N=4 − mean N=32: %.3f [%.3f, %.3f] (Welch 95%%)" % diff_interval(st["final/otb/4"], st["final/mean/32"]))

# %% [markdown]
# With variable lengths (token 3 ends the response), OTB's per-position baseline
# sees responses drop out; its gradient variance is lower at small N, yet in this
# toy it learns more slowly than the group mean at the same N (more shrinkage
# bias).  Full run: figure `baselines_group_size_sweep_eos`.

# %%
if FAST:
    headline_eos = toy_pair_experiment("notebook.toy_headline_eos.fast",
                                       CountTask(V=3, T=12, n_prompts=2, threshold=5, eos=True, eos_logit=-2.0),
                                       lr=0.6, steps=5)
else:
    headline_eos = TOY_HEADLINE_EOS
st_eos = measure(headline_eos, 4 if FAST else 20, seed=SEED).stats
for key in ("otb/4", "mean/32"):
    print("EOS", key, "final return %.3f [%.3f, %.3f]" % mean_interval(st_eos[f"final/{key}"]))
print("EOS: OTB N=4 − mean N=32: %.3f [%.3f, %.3f]" % diff_interval(st_eos["final/otb/4"],
                                                                     st_eos["final/mean/32"]))
