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
# # Linear Ensemble++ and HyperAgent: posterior tracking and regret
#
# *Scalable Exploration via Ensemble++* (Li, Xu, Wang, Luo; arXiv 2407.13195) and
# *HyperAgent* (arXiv 2402.10228) replace Thompson sampling's fresh posterior
# sample by a `d × M` factor `A_t` with `A_t A_tᵀ ≈ Σ_t`: a sample is
# `μ_t + A_t ζ`, one matrix–vector product, and each observation updates every
# sample at once.  The claim: `M = Θ(d log T)` suffices for regret comparable to
# exact Thompson sampling, because `A_t` tracks `Σ_t` uniformly in time — the
# sequential Johnson–Lindenstrauss lemma at work (theory page `docs/theory/ensemble.md`).
#
# Set `THEORYCHECK_FAST=1` for tiny sizes (< 30 s).

# %%
import math
import os

import numpy as np

from seqproj.ensemble import (FiniteArmEnv, LinearEnsemblePP, LinearHypermodel, diagnose_factor,
                              ensemble_sampling_members, ridge_posterior, run_bandit,
                              smallest_m_within, sup_tracking_error, sweep_agents)

FAST = os.environ.get("THEORYCHECK_FAST", "0") == "1"
rng = np.random.default_rng(0)

# %% [markdown]
# ## 1. The closed-form incremental update (theory `ensemble.md#update`)
#
# With `g = Σ_{t−1} x_t` and `c = σ² + x_tᵀ g`:
# `Σ_t = Σ_{t−1} − g gᵀ/c`, `μ_t = μ_{t−1} + g (y_t − x_tᵀ μ_{t−1})/c`,
# `A_t = A_{t−1} + (g/c)(σ z_t − A_{t−1}ᵀ x_t)ᵀ` — O(d² + dM), no factorisation.
# The mean is the ridge posterior mean, exactly:

# %%
d, M, n = 6, 12, 80
X = rng.uniform(-1, 1, (n, d))
y = X @ rng.standard_normal(d) + rng.standard_normal(n)
ens = LinearEnsemblePP(d, M, prior_var=10.0, noise_sd=1.0, rng=1)
Z = rng.standard_normal((n, M)) / math.sqrt(M)
for i in range(n):
    ens.update(X[i], y[i], z=Z[i])
m_ridge, C_ridge = ridge_posterior(X, y, prior_var=10.0, noise_sd=1.0)
print("max |μ_t − ridge mean| =", np.abs(ens.mean - m_ridge).max())
print("max |Σ_t − ridge cov|  =", np.abs(ens.cov - C_ridge).max())

# %% [markdown]
# Classic ensemble sampling (Lu & Van Roy) is the same update with a one-hot
# index `√M e_m` and Gaussian perturbations: member `m` is `μ_t + √M A_t e_m`.

# %%
oh = LinearEnsemblePP(d, M, prior_var=10.0, index="one_hot", rng=2)
for i in range(n):
    oh.update(X[i], y[i], z=Z[i])
members = ensemble_sampling_members(X, y, math.sqrt(M) * Z, math.sqrt(M) * np.asarray(oh.prior_factor),
                                    prior_var=10.0)
ours = np.stack([oh.sample(zeta=math.sqrt(M) * np.eye(M)[m]) for m in range(M)], axis=1)
print("max |one-hot Ensemble++ − ensemble sampling| =", np.abs(ours - members).max())

# %% [markdown]
# HyperAgent's linear hypermodel, trained by gradient descent on the
# symmetrised loss, converges to the same `(μ_t, A_t)`:

# %%
hm = LinearHypermodel(d, M, prior_var=10.0, noise_sd=1.0, prior_factor=ens.prior_factor)
for i in range(n):
    hm.add(X[i], y[i], Z[i])
hm.fit(300 if FAST else 3000)
print("after GD: max |b + μ0 − μ_t| =", np.abs(hm.mean - ens.mean).max(),
      " max |W + A0 − A_t| =", np.abs(hm.factor - ens.factor).max())

# %% [markdown]
# ## 2. Covariance tracking (theory `ensemble.md#tracking`)
#
# `sup_{t≤T} ‖Σ_t^{−1/2} A_t A_tᵀ Σ_t^{−1/2} − I‖` under adaptive play
# (the agent picks its own actions), d = 10, K = 100 unit arms.  It decays like
# `2√(d/M)`; at a random start it is set at t = 0 by `B`.

# %%
T_track = 200 if FAST else 2000
for M_ in (10, 40, 160) if FAST else (10, 20, 40, 80, 160, 320):
    e_r = np.median([sup_tracking_error(10, M_, T_track, s) for s in range(2 if FAST else 5)])
    e_h = np.median([sup_tracking_error(10, M_, T_track, s, init="haar") for s in range(2 if FAST else 5)])
    print(f"M = {M_:4d}: random start {e_r:.3f}, Haar start {e_h:.3f}, 2√(d/M) = {2 * math.sqrt(10 / M_):.3f}")

# %% [markdown]
# ## 3. What goes wrong, and how the toolkit says so (theory `ensemble.md#failure-modes`)

# %%
bad = LinearEnsemblePP(6, 48, rng=3, perturbation_scale=math.sqrt(48))   # z ~ N(0, I)
small = LinearEnsemblePP(6, 3, rng=3)                                     # M < d
for e in (bad, small):
    for i in range(40):
        e.update(X[i], y[i])
    print(diagnose_factor(e.cov, e.factor).problems)
print("look-ahead z (drawn before x):", sup_tracking_error(5, 40, 200, 0, play="lookahead"),
      " predictable:", sup_tracking_error(5, 40, 200, 0))

# %% [markdown]
# ## 4. Regret against exact Thompson sampling (theory `ensemble.md#regret`)
#
# All agents run in lock-step on common random numbers (same θ*, arms and
# noise).  The full sweep of the note (d ∈ {10, 50}, K = 1000, T = 2000,
# 50 repetitions) is one stored experiment per d (`FINITE_SWEEPS`), read by the
# claim family `ensemble.regret.finite.*` and the figures `ensemble_regret_vs_m`,
# `ensemble_regret_curves` through `proofs_check.engine.measure`; here a small
# version through `run_bandit` (the same simulator and seeding).

# %%
d_b = 5 if FAST else 10
env = FiniteArmEnv(d_b, 100 if FAST else 1000)
agents = sweep_agents(d_b, families=(("gaussian", "gaussian"), ("one_hot", "gaussian")),
                      ms=(1, 2, 4, 8 * d_b) if FAST else None)
res = run_bandit(env, agents, 200 if FAST else 2000, 4 if FAST else 20, seed=0)
for lab in ("TS", "LinUCB", "Greedy", f"gaussian[M={8 * d_b}]", f"ES[M={8 * d_b}]"):
    m_, ci = res.final_mean_ci(lab)
    print(f"{lab:>16}: final regret {m_:8.1f}  95% CI [{ci[0]:.1f}, {ci[1]:.1f}]")
for fam in (("gaussian", "gaussian"), ("one_hot", "gaussian")):
    sm = smallest_m_within(res, *fam, margin=0.10, n_boot=300)
    print(f"{sm.family}: smallest M within 10% of TS = {sm.m}, 90% bootstrap CI {sm.ci}")

# %% [markdown]
# ## 5. Verdicts
#
# `theorycheck verify ensemble.equivalence` and `theorycheck verify ensemble.failure`
# run the identity claims; `theorycheck verify ensemble.regret.finite` the sweep.

# %%
import theorycheck as tc

for cid in ("ensemble.equivalence.mean_is_ridge", "ensemble.equivalence.one_hot_is_ensemble_sampling",
            "ensemble.failure.float32_sqrt"):
    r = tc.verify(cid, quick=True)
    print(cid, r.verdict, f"max scaled error {r.max_scaled_error:.2e}")
