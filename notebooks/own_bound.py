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
# # Check your own bound: from first draft to verdict, figure and CI test
#
# theorycheck is not only for the bounds it ships. This notebook declares three
# claims of a user's own with the declaration API (`proofs_check.declare`,
# re-exported as `tc.inequality`, `tc.scaling`, …), has the engine decide them,
# draws a figure and turns them into a CI test:
#
# 1. **Pinsker's inequality** `TV(p, q) ≤ √(KL(p‖q)/2)` — holds;
# 2. **a Bernstein tail with a wrong constant** — refuted, with a counterexample
#    shrunk to round numbers and confirmed in 50-digit mpmath;
# 3. **a scaling law of our own simulation** — the variance of the sample
#    median of `n` Gaussians decays like `n^(−1)` (it is `π/(2n)` asymptotically).
#
# Set `THEORYCHECK_FAST=1` for a quick run (the tests do).

# %%
import math
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import mpmath as mp
import numpy as np
from scipy.stats import binom

import theorycheck as tc
from paper_figs.style import new_figure

FAST = os.environ.get("THEORYCHECK_FAST") == "1"

# %% [markdown]
# ## 1. Pinsker's inequality (holds)
# The sides are plain functions of named coordinates; the domain says where
# they range: `Simplex(3, names=("p", "q"))` is a pair of probability vectors on
# three outcomes (entries ≥ 1e-9 so that `log(p/q)` is finite). The mpmath
# versions re-check any violation the float search finds at 50 digits.

# %%
def tv(p, q):
    return 0.5 * float(np.abs(p - q).sum())


def pinsker(p, q):
    return float(np.sqrt(0.5 * np.sum(p * np.log(p / q))))


def tv_mp(p, q):
    return sum(abs(a - b) for a, b in zip(p, q)) / 2


def pinsker_mp(p, q):
    return mp.sqrt(sum(a * mp.log(a / b) for a, b in zip(p, q)) / 2)


pairs = tc.Simplex(3, names=("p", "q"), min_prob=1e-9)
tc.inequality("mine.pinsker", tv, pinsker, domain=pairs, lhs_mp=tv_mp, rhs_mp=pinsker_mp,
              statement="TV(p, q) ≤ √(KL(p‖q)/2) on pairs of distributions on 3 outcomes",
              source="Pinsker (1964); Tsybakov (2009) Lemma 2.5", label="CONFIRMED", expected="holds")
r = tc.verify("mine.pinsker", seed=0)
print(r.verdict, r.guarantee, "—", r.summary())

# %% [markdown]
# *holds* with guarantee *search*: no violation in the evaluations made, and the
# tightest point found has `TV/√(KL/2)` close to 1 — Pinsker is tight for nearby
# distributions.

# %% [markdown]
# ## 2. A Bernstein tail with a wrong constant (refuted)
# For `S ~ Binomial(n, p)` Bernstein's inequality gives
# `P(S ≥ n(p + t)) ≤ exp(−n t² / (2p(1−p) + 2t/3))`. A first draft that drops
# the factor 2 in the denominator claims `exp(−n t² / (p(1−p) + t/3))`, which
# is smaller — too good to be true for large `n`, where the central limit theorem
# makes the tail `≈ exp(−n t²/(2p(1−p)))`. The left side is the exact binomial
# tail (scipy in float64, a 50-digit sum in mpmath); the threshold
# `k₀ = ⌈n(p + t)⌉` is computed in float64 in both, so both evaluate the same event.
# The domain declares `n` an integer and the point shrinking moves towards.

# %%
def binomial_tail(n, p, t):
    k0 = math.ceil(n * (p + t))
    return float(binom.sf(k0 - 1, int(n), p))


def binomial_tail_mp(n, p, t):
    k0 = math.ceil(float(n) * (float(p) + float(t)))
    n = int(n)
    return mp.fsum(mp.binomial(n, k) * p ** k * (1 - p) ** (n - k) for k in range(max(k0, 0), n + 1))


def bernstein(n, p, t):
    return math.exp(-n * t * t / (2 * p * (1 - p) + 2 * t / 3))


def bernstein_mp(n, p, t):
    return mp.exp(-n * t * t / (2 * p * (1 - p) + 2 * t / 3))


def bernstein_wrong(n, p, t):
    return math.exp(-n * t * t / (p * (1 - p) + t / 3))


def bernstein_wrong_mp(n, p, t):
    return mp.exp(-n * t * t / (p * (1 - p) + t / 3))


tails = tc.Box(n=(1, 400), p=(0.05, 0.95), t=(0.01, 0.5), integer=("n",), default={"n": 1, "p": 0.5, "t": 0.1})
tc.inequality("mine.bernstein", binomial_tail, bernstein, domain=tails,
              lhs_mp=binomial_tail_mp, rhs_mp=bernstein_mp,
              statement="P(Bin(n, p) ≥ n(p + t)) ≤ exp(−n t² / (2p(1−p) + 2t/3))",
              source="Bernstein's inequality (Boucheron, Lugosi, Massart 2013, §2.8)", label="CONFIRMED",
              expected="holds")
tc.inequality("mine.bernstein_wrong", binomial_tail, bernstein_wrong, domain=tails,
              lhs_mp=binomial_tail_mp, rhs_mp=bernstein_wrong_mp,
              statement="P(Bin(n, p) ≥ n(p + t)) ≤ exp(−n t² / (p(1−p) + t/3))  (factor 2 dropped)",
              source="a first draft with a wrong constant", label="OPEN", expected="refuted", role="control")
for cid in ("mine.bernstein", "mine.bernstein_wrong"):
    r = tc.verify(cid, seed=0, quick=FAST)
    print(cid, r.verdict, r.guarantee, "—", r.summary())
bad = r

# %% [markdown]
# The search found a violation and mpmath confirmed it (guarantee *exact*). The
# point it climbed to has every coordinate at some unreadable value; the engine
# then **shrinks** it — resets coordinates to the domain's default, rounds the
# others, moves them halfway to the default — keeping only changes after which the
# violation is still confirmed in mpmath:

# %%
ce = bad.worst_point
print("search's worst point:", {k: round(v, 6) for k, v in ce["search_worst"].items()})
print("shrunk counterexample:", ce["counterexample"], f"(others at default; {ce['confirmed_by']})")
print(f"lhs = {ce['lhs']:.6g} > rhs = {ce['rhs']:.6g}")
print(ce["reproduce"])
print(tc.reproduce("mine.bernstein_wrong", ce["counterexample"]))

# %% [markdown]
# ## 3. A scaling law of our own simulation
# `measure(rng, n)` is one replicate of the quantity at one grid value: here the
# mean squared sample median of `n` standard Gaussians over `reps` samples (its
# expectation is `≈ π/(2n)`). The engine runs replicates of the whole grid, fits
# the log–log slope of each and decides whether the exponent lies in the window
# with a Student-t interval.

# %%
REPS = 100 if FAST else 400
GRID = (64, 256, 1024, 4096)


def median_sq(rng, n, *, reps=REPS):
    return float(np.mean(np.median(rng.standard_normal((reps, int(n))), axis=1) ** 2))


tc.scaling("mine.median_variance", median_sq, x=GRID, exponent=(-1.1, -0.9),
           statement="E[median(X_1..X_n)²] ∝ n^a with a ∈ [−1.1, −0.9] for X_i ~ N(0, 1)",
           source="asymptotic normality of the sample median (variance π/(2n))", label="CONFIRMED",
           expected="holds", budget=8, quick_budget=5)
rs = tc.verify("mine.median_variance", seed=0, quick=FAST)
print(rs.verdict, "—", rs.summary())

# %% [markdown]
# ## A figure
# Left: the exact binomial tail at `p = 1/2, t = 0.1` against Bernstein's bound
# and the wrong draft, which falls below the tail past `n ≈ 100`. Right: the
# simulated median variance with its fitted power law.

# %%
fig, (ax1, ax2) = new_figure(ncols=2)
ns = np.arange(10, 401, 10)
ax1.semilogy(ns, [binomial_tail(n, 0.5, 0.1) for n in ns], marker="", label="exact tail")
ax1.semilogy(ns, [bernstein(n, 0.5, 0.1) for n in ns], ls="--", marker="", label="Bernstein")
ax1.semilogy(ns, [bernstein_wrong(n, 0.5, 0.1) for n in ns], ls=":", marker="", label="wrong draft")
ce_n = ce["counterexample"].get("n")
if ce_n is not None and set(ce["counterexample"]) == {"n"}:       # the shrunk counterexample, if on this slice
    ax1.plot([ce_n], [ce["lhs"]], marker="x", ls="", color="k", label=f"counterex. n={ce_n:g}")
ax1.set_xlabel("n  (p = 1/2, t = 0.1)")
ax1.set_ylabel("P(S ≥ n(p + t))")
ax1.legend(loc="lower left", fontsize=6.5)
x = np.array(rs.x)
ax2.errorbar(x, rs.y_mean, yerr=rs.y_se, marker="o", ls="", label=f"simulated ({rs.replicates} replicates)")
ax2.plot(x, math.pi / (2 * x), ls="--", marker="", color="0.25", label="π/(2n)")
ax2.set_xscale("log")
ax2.set_yscale("log")
ax2.set_xlabel("n")
ax2.set_ylabel("E[median²]")
ax2.legend(loc="lower left")
if "ipykernel" not in sys.modules:        # run as a script: save the figure and say where
    OUT = Path(tempfile.mkdtemp(prefix="own_bound_"))
    fig.savefig(OUT / "own_bound.png", dpi=150)
    print(f"figure saved to {OUT / 'own_bound.png'}")
fig                                       # in a notebook: shown below the cell

# %% [markdown]
# ## A CI test
# The same declarations in a file become a test suite with the pytest plugin
# that ships with theorycheck: `theorycheck_files` in the pytest ini collects
# every claim of matching files; a claim passes when its verdict is the
# expected one. Fixed seeds make the run reproducible; a spurious failure has
# probability ≤ α per claim (`--theorycheck-alpha α/k` for a suite of k claims).
#
# The plugin needs pytest, which `pip install .` does not bring: install it with
# `pip install ".[pytest]"` in the clone (or `pip install pytest`) and run
# `python -m pytest` (a bare `pytest` may be another interpreter's copy, which
# cannot import theorycheck). Without pytest this cell runs the same gate with
# the command line instead: `theorycheck verify claims_mine.py --quick --fail-on
# unexpected` exits with status 1 when a verdict is not the expected one.

# %%
work = Path(tempfile.mkdtemp(prefix="own_bound_ci_"))      # a scratch folder, not your working tree
(work / "pytest.ini").write_text("[pytest]\ntheorycheck_files = claims_*.py\naddopts = -p no:cacheprovider\n")
(work / "claims_mine.py").write_text(textwrap.dedent('''
    import math
    import numpy as np
    import theorycheck as tc


    def median_sq(rng, n):
        return float(np.mean(np.median(rng.standard_normal((100, int(n))), axis=1) ** 2))


    tc.scaling("ci.median_variance", median_sq, x=(64, 256, 1024, 4096), exponent=(-1.1, -0.9),
               expected="holds", quick_budget=5)
'''))
try:
    import pytest  # noqa: F401  (only: is it installed in this Python?)
    gate = [sys.executable, "-m", "pytest", "-q", "--theorycheck-budget", "quick"]
except ImportError:
    print("pytest is not installed in this Python (to use the plugin: pip install \".[pytest]\" in the clone, "
          "or pip install pytest); gating with the command line instead")
    gate = [sys.executable, "-m", "theorycheck", "verify", "claims_mine.py", "--quick", "--fail-on", "unexpected",
            "--format", "plain", "--out", str(work / "results")]
run = subprocess.run(gate, cwd=work, capture_output=True, text=True)
print(" ".join(gate[1:]), "in", work)
print((run.stdout + run.stderr)[-600:])
if run.returncode != 0:
    raise RuntimeError(f"the CI gate failed with exit status {run.returncode}:\n{run.stdout[-2000:]}\n"
                       f"{run.stderr[-2000:]}")
