# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # The verification engine
#
# How theorycheck turns a simulation into a verdict (`docs/theory/engine.md`).
# A **claim** binds a statement to a computation, a source and a label; the
# **engine** runs it in fixed-size chunks whose random streams depend only on
# `(seed, chunk index)`, and decides with error control.
#
# Set `THEORYCHECK_FAST=1` for a quick run (the tests do).

# %%
import functools
import os

import numpy as np

import theorycheck as tc
from proofs_check.selftest.samplers import bernoulli_events

FAST = os.environ.get("THEORYCHECK_FAST") == "1"
REPS = 40 if FAST else 400

# %% [markdown]
# ## The registry
# Every claim has an id, a kind, a source and a spec label.

# %%
for c in tc.claims():
    print(f"{c.id:40s} {c.kind:12s} {c.label:13s} {str(c.source)[:50]}")

# %% [markdown]
# ## A probability bound that holds, and its mutation that does not
# Dasgupta–Gupta: for Gaussian `Π` (entries `N(0, 1/M)`) and a fixed `u`,
# `P(|‖Πu‖² − ‖u‖²| > ε‖u‖²) ≤ 2 exp(−(M/2)(ε²/2 − ε³/3))`. Doubling the
# exponent gives a false bound; the engine must refute it.

# %%
for cid in ("selftest.dg_tail", "selftest.dg_tail_doubled"):
    r = tc.verify(cid, seed=0)
    print(r.claim, r.verdict, r.summary(), f"seed={r.seed}", f"stopped early: {r.stopped_early}")

# %% [markdown]
# ## Anytime-valid stopping is calibrated
# Checking a fixed-n interval after every chunk inflates the error rate. The
# engine stops when a test supermartingale (a truncated-beta mixture of
# likelihood ratios against `p = δ`) crosses `2/α`; by Ville's inequality the
# wrong-verdict rate stays ≤ α. At `p = δ` every decisive verdict is wrong:

# %%
delta, alpha = 0.05, 0.05
claim = tc.ProbabilityClaim(id="demo.bernoulli", statement="P(X=1) ≤ δ", source="demo", label="DERIVED",
                         fn=functools.partial(bernoulli_events, p=delta), delta=delta, chunk_size=200)
verdicts = [tc.verify_claim(claim, budget=20_000, seed=s, alpha=alpha).verdict for s in range(REPS)]
wrong = sum(v != "inconclusive" for v in verdicts)
from proofs_check.engine import clopper_pearson
print(f"wrong verdicts at p = δ: {wrong}/{REPS}, 95% CI {clopper_pearson(wrong, REPS, 0.05)} (α = {alpha})")

# %% [markdown]
# ## Identical counts on every executor
# Chunk `k` draws from `SeedSequence(seed, spawn_key=(k,))`; results are
# combined in index order, so the executor never changes the answer.

# %%
for ex in ("serial", "threads"):
    r = tc.verify("selftest.dg_tail", seed=5, executor=ex, workers=2, method="fixed", budget=50_000)
    print(ex, r.events, r.trials)

# %% [markdown]
# ## An identity, numerically and symbolically
# `‖e_a − softmax(z)‖² = 1 − 2p_a + Σp²`, checked against a 40-digit evaluation
# of the definition on random and extreme logits, and proved by sympy for V = 2..6.

# %%
r = tc.verify("selftest.logit_energy_identity", quick=True)
print(r.verdict, r.summary())
