# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Sequential random projection: checking the sequential JL lemma
#
# Y. Li, *Probability Tools for Sequential Random Projection* (arXiv 2402.14026)
# proves a Johnson–Lindenstrauss lemma for sketches built **one coordinate at a
# time, adaptively**.  The paper has no experiments; this notebook walks
# through the protocol, the adversaries, a coverage check with the toolkit's
# engine, and the figures (theory: `docs/theory/seqproj.md`).
#
# Set `THEORYCHECK_FAST=1` for tiny sizes (used by the test suite).

# %%
import os

import numpy as np

import seqproj
from proofs_check.engine import clopper_pearson


def show(label, events, n, seed):
    lo, hi = clopper_pearson(int(events), int(n), 0.05)
    print(f"{label}: {int(events)}/{n} = {events / n:.4g}, 95% CI [{lo:.4g}, {hi:.4g}], seed={seed}")


FAST = os.environ.get("THEORYCHECK_FAST", "0") == "1"
N = 2_000 if FAST else 100_000
print("fast mode" if FAST else "full mode", "- trials per estimate:", N)

# %% [markdown]
# ## 1. The protocol
#
# Start from `S_0 = x_0 z_0`, `V_0 = x_0²`.  At each step `t` the learner (or an
# adversary) picks `x_t` **from the past only**, then a fresh column `z_t`
# arrives and `S_t = S_{t−1} + x_t z_t`, `V_t = V_{t−1} + x_t²`.  The columns
# are normalised so that `E‖z‖² = 1`.  The sequential JL lemma says that, with
# probability `1 − δ`, `(1−ε)V_t ≤ ‖S_t‖² ≤ (1+ε)V_t` **for every t ≤ T at
# once**, provided
#
# `M ≥ 16 c_0 (1+ε)/ε² (log(1/δ) + log(1 + c_x T/x_0²))`
#
# (constant 16 RECONSTRUCTED — a keyword argument of the toolkit).

# %%
for fam in seqproj.FAMILIES:
    info = seqproj.column_family(fam, 128)
    print(f"{fam:>10}: unit norm={info.unit_norm!s:5}  c0={info.c0:6.2f}  "
          f"inside the assumptions: {info.assumptions}")

M_th = seqproj.sequential_jl_min_dim(0.5, 0.05, 300)
print("theorem's M at eps=0.5, delta=0.05, T=300:", M_th)
print("union bound over 300 fixed vectors:", seqproj.union_bound_jl_min_dim(0.5, 0.05, 300))

# %% [markdown]
# ## 2. Simulating paths
#
# Two simulators return the same path statistics: the full protocol (a numba
# kernel with a bit-identical NumPy reference, O(M) per step) and the exact
# reduced simulation (O(1) per step, sphere/Gaussian columns and
# adversaries that only look at `(‖S‖², V)`).  Both kernels share one per-step
# bookkeeping and one counter-based random number generator.

# %%
full = seqproj.simulate_full(64, 0.5, 300, 200 if FAST else 2_000, 0)
red = seqproj.simulate_reduced(64, 0.5, 300, N, 1)
show("full simulator,    P(fail) at M=64", full.failed.sum(), full.n, 0)
show("reduced simulator, P(fail) at M=64", red.failed.sum(), red.n, 1)

try:
    seqproj.simulate_reduced(64, 0.5, 300, 10, 0, columns="onehot")
except ValueError as err:
    print("refused:", err)

# %% [markdown]
# ## 3. Adversaries
#
# All are predictable except the look-ahead negative control, which sees every
# column and puts `x` in their null space: then `S_T = x_0 z_0` and the ratio
# collapses.  It is refused wherever a predictable adversary is required.

# %%
for name in seqproj.ADVERSARIES:
    a = seqproj.adversary(name)
    print(f"{name:>10}: predictable={a.predictable!s:5}  reduced={a.reduced_ok!s:5}  {a.description}")

la = seqproj.simulate_lookahead(16, 0.5, 40, 5, 0)
show("look-ahead failure rate", la.failed.sum(), la.n, 0)
print("final ratios:", np.round(la.final_ratio, 3))

# %% [markdown]
# ## 4. A coverage check through the engine
#
# `check_coverage` builds a probability claim and decides `p ≤ δ` with exact and
# anytime-valid statistics.  At the theorem's M it holds; at M = 32 it is refuted.

# %%
for M in (M_th, 32):
    r = seqproj.check_coverage(M, 0.5, 0.05, 300, budget=2_000 if FAST else 20_000, seed=0)
    print(f"M={M}: {r.verdict}; {r.events} events in {r.trials} trials, p_hat={r.p_hat:.4g}, "
          f"99% CI [{r.ci[0]:.4g}, {r.ci[1]:.4g}], seed={r.seed}")

# %% [markdown]
# ## 5. How conservative is the theorem?
#
# `empirical_min_dim` brackets the M* at which the failure probability equals δ: a
# simultaneous 99% confidence bracket (every evaluated dimension's Clopper–Pearson interval at
# level α / max_looks, Bonferroni over the dimensions the search may evaluate).

# %%
T_small = 50 if FAST else 300
res = seqproj.empirical_min_dim(0.5, 0.05, T_small, trials=2_000 if FAST else 20_000, seed=0)
print(f"T={T_small}: M* ≈ {res.M_star:.1f}  99% bracket ({res.M_lo}, {res.M_hi}]  "
      f"theorem {res.M_theorem}  efficiency {res.efficiency:.1f} "
      f"[{res.efficiency_interval[0]:.1f}, {res.efficiency_interval[1]:.1f}]")

# %% [markdown]
# ## 6. Fixed-time JL under adaptivity (check B)
#
# The stopping adversary plays `x_t = 1` until the ratio first leaves the band,
# then `0`.  The final sketch is then out of band with the time-uniform failure
# probability — far above a fixed design, and above the fixed-vector bound.

# %%
stop = seqproj.simulate_reduced(32, 0.5, 500, N, 2, adversary="stopping")
fixed = seqproj.simulate_reduced(32, 0.5, 500, N, 3)
show("stopping adversary, out of band at T", stop.out_at_T.sum(), stop.n, 2)
show("fixed design, out of band at T", fixed.out_at_T.sum(), fixed.n, 3)
print("Dasgupta-Gupta fixed-vector bound:", round(seqproj.fixed_vector_jl_failure_bound(32, 0.5), 4))

# %% [markdown]
# ## 7. One simulation, stored once
#
# The claims and the figures do not run their own Monte Carlo: each reads an engine
# *experiment* — one simulator in one configuration, returning the four per-trial events
# (time-uniform failure, out of band at T, mixture boundary crossed, any-time band left) —
# measured in chunks under the engine's seeding.  The claim
# `seqproj.coverage.sphere.constant.M32` and the M = 32 point of the first figure below
# read the same chunks.

# %%
from proofs_check.engine import measure  # noqa: E402

exp = seqproj.path_experiment(simulator="reduced", M=32, eps=0.5, T=300, chunk_size=1000)
m = measure(exp, 2_000 if FAST else 20_000, seed=0)
print(exp.id)
for event in seqproj.EVENTS:
    show(f"  {event}", m.stats[event].sum(), m.trials, 0)

# %% [markdown]
# ## 8. Figures
#
# The paper figures are built by `python -m paper_figs seqproj` (quick versions here).

# %%
from paper_figs.seqproj_figs import failure_vs_M, fixed_vs_uniform  # noqa: E402

fig, data = failure_vs_M(quick=True, seed=0)
fig

# %%
fig, data = fixed_vs_uniform(quick=True, seed=0)
fig
