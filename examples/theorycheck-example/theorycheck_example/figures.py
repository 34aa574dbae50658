"""The example's figure: E|S_n| of a ±1 random walk against √(2n/π)."""
from __future__ import annotations

import numpy as np

from paper_figs import figure
from paper_figs.style import grid_ticks, new_figure
from theorycheck_example.claims import GRID, mean_abs_walk


@figure("example_random_walk", caption="E|S_n| of a ±1 random walk (mean of 1000 walks per replicate, "
        "± 1 s.e. over replicates) against √(2n/π); supports example.random_walk_sqrt",
        claims=("example.random_walk_sqrt",))
def random_walk(*, quick: bool, seed: int):
    rng = np.random.default_rng(seed)
    reps = 4 if quick else 16
    y = np.array([[mean_abs_walk(rng, n) for n in GRID] for _ in range(reps)])
    mean, se = y.mean(axis=0), y.std(axis=0, ddof=1) / np.sqrt(reps)
    fig, ax = new_figure()
    n = np.array(GRID, dtype=float)
    ax.errorbar(n, mean, yerr=se, marker="o", ls="", label=f"simulated ({reps} replicates)")
    ax.plot(n, np.sqrt(2 * n / np.pi), ls="--", marker="", color="0.25", lw=0.9,
            label=r"$\sqrt{2n/\pi}$ (slope 1/2)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    grid_ticks(ax, GRID)
    grid_ticks(ax, (5, 10, 20, 50), axis="y")
    ax.set_xlabel("steps n")
    ax.set_ylabel(r"E$|S_n|$")
    ax.legend()
    return fig, {"n": list(GRID), "mean": mean.tolist(), "se": se.tolist(), "replicates": reps, "seed": seed}
