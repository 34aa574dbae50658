"""The example's claims, declared with theorycheck's declaration API.

* ``example.hoeffding`` — Hoeffding's inequality for the mean of 50 uniforms (holds);
* ``example.am_gm`` — √(ab) ≤ (a + b)/2 on [0, 10]² (holds);
* ``example.random_walk_sqrt`` — E|S_n| of a ±1 random walk grows like n^{1/2} (holds);
* ``example.product_bound`` — x·y ≤ x + y on [0, 4]² (with an idle coordinate z):
  **planted false** (x = y = 3 gives 9 > 6).  It is declared as a statement
  expected to hold, so `theorycheck verify` reports it contradicted and the
  pytest plugin fails on it, with a shrunk counterexample.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np

import proofs_check as pc

N, T = 50, 0.15


def mean_deviates(rng, n):
    """n trials: does the mean of N uniforms exceed 1/2 by T?"""
    return rng.random((n, N)).mean(axis=1) - 0.5 >= T


pc.probability("example.hoeffding", mean_deviates, delta=math.exp(-2 * N * T * T),
               statement=f"P(mean of {N} U(0,1) − 1/2 ≥ {T}) ≤ exp(−2·{N}·{T}²) (Hoeffding)",
               source="Hoeffding (1963), Theorem 1", expected="holds", label="CONFIRMED",
               budget=200_000, quick_budget=20_000)


def geometric_mean(a, b):
    return math.sqrt(a * b)


def arithmetic_mean(a, b):
    return (a + b) / 2


def geometric_mean_mp(a, b):
    return mpmath.sqrt(a * b)


def arithmetic_mean_mp(a, b):
    return (a + b) / 2


pc.inequality("example.am_gm", geometric_mean, arithmetic_mean, domain=pc.Box(a=(0.0, 10.0), b=(0.0, 10.0)),
              lhs_mp=geometric_mean_mp, rhs_mp=arithmetic_mean_mp, statement="√(ab) ≤ (a + b)/2 for a, b ∈ [0, 10]",
              source="AM–GM inequality", expected="holds", label="CONFIRMED", quick_budget=400)


def product(x, y, z):
    return x * y + 0.0 * z


def total(x, y, z):
    return x + y


def product_mp(x, y, z):
    return x * y


def total_mp(x, y, z):
    return x + y


pc.inequality("example.product_bound", product, total,
              domain=pc.Box(x=(0.0, 4.0), y=(0.0, 4.0), z=(-1.0, 1.0)), lhs_mp=product_mp, rhs_mp=total_mp,
              statement="x·y ≤ x + y for x, y ∈ [0, 4] (planted false)", source="a planted error",
              expected="holds", label="OPEN", quick_budget=400)


def mean_abs_walk(rng, n, *, walks=1000):
    """One replicate of E|S_n|: the mean of |S_n| over ``walks`` ±1 random walks."""
    steps = rng.integers(0, 2, size=(walks, int(n)), dtype=np.int8) * 2 - 1
    return float(np.abs(steps.sum(axis=1, dtype=np.int64)).mean())


GRID = (64, 256, 1024, 4096)

pc.scaling("example.random_walk_sqrt", mean_abs_walk, x=GRID, exponent=(0.45, 0.55),
           statement="E|S_n| ∝ n^a with a ∈ [0.45, 0.55] for a ±1 random walk (a = 1/2)",
           source="E|S_n| ~ √(2n/π)", expected="holds", label="CONFIRMED", budget=10, quick_budget=5)
