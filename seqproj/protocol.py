r"""The protocol (``docs/theory/seqproj.md#protocol``) as data: a run's validated parameters and its path statistics.

Protocol (CONFIRMED): ``S_0 = x_0 z_0`` with ``z_0 = e_1`` (a fixed unit
vector, so ``‖z_0‖² = 1``), ``V_0 = x_0²``; for ``t = 1..T`` the adversary
picks ``x_t`` from the past, then a fresh column ``z_t`` is drawn and
``S_t = S_{t−1} + x_t z_t``, ``V_t = V_{t−1} + x_t²``.

:class:`SimSetup` holds the validated parameters that every simulator of the
package shares (:func:`make_setup`); :class:`PathStats` the per-trial path
statistics they all return:

* ``exit_time`` — first ``t ∈ [1, T]`` with ``‖S_t‖²/V_t ∉ [1−ε, 1+ε]``
  (checked at **every** t, not only at T), ``T + 1`` if the path never leaves;
* ``final_ratio`` — ``‖S_T‖²/V_T``; ``ratio_grid`` — the ratio at ``grid`` times;
* ``max_dev`` — ``max_{t≤T} |‖S_t‖²/V_t − 1|``;
* ``mix_cross`` — whether the martingale ``2D_t = 2Σ x_s⟨S_{s−1}, z_s⟩`` ever
  crosses the two-sided normal-mixture boundary with intrinsic time
  ``v_t = Σ 4x_s²‖S_{s−1}‖²/M`` at level ``mix_alpha`` (theory ``#mixture``);
* ``anytime_exit`` — whether ``|ratio_t − 1|`` ever exceeds the any-time
  half-width ``ε_t(V_t)`` of :func:`seqproj.bounds.anytime_jl_eps` at this M
  (theory ``#anytime``).

How they are updated step by step: :mod:`seqproj.bookkeeping`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from proofs_check.engine import check_bool, check_int, check_real, shown

from .adversaries import Adversary, adversary as make_adversary, require_predictable
from .columns import ColumnFamily, check_memory, column_family

__all__ = ["PathStats", "SimSetup", "make_setup", "default_mix_rho", "check_trials",
           "M_MAX", "T_MAX", "N_MAX", "CHUNK_MAX", "MEM_MAX"]

# --------------------------------------------------------------------------
# size limits: what the machine can do, checked before anything is allocated
# --------------------------------------------------------------------------

from .limits import CHUNK_MAX, M_MAX, MEM_MAX, N_MAX, T_MAX  # noqa: E402  (re-exported)


def check_trials(n, setup: "SimSetup") -> int:
    """``n`` as a number of trials in ``[0, N_MAX]`` whose output arrays fit in :data:`MEM_MAX`."""
    n = check_int("n", n, lo=0, hi=N_MAX)
    check_memory(f"the per-trial outputs of n={n} trials on a grid of {setup.grid.size} times",
                 n * (setup.grid.size + 6), "n (or grid)")
    return n


def _log_inv(a: float) -> float:
    """``log(1/a)``: as before for ordinary ``a`` (bit for bit), ``−log a`` when ``1/a``
    would overflow (subnormal ``a``)."""
    return math.log(1.0 / a) if a >= 1e-300 else -math.log(a)


def default_mix_rho(eps: float, M: int, x0: float = 1.0, c0: float = 1.0) -> float:
    """``ρ = 4 · c_0 (1+ε) V_0² / (2M)``: the proof's ρ (theory ``#coverage`` step 5) for ``2D_t``."""
    return 4.0 * c0 * (1.0 + eps) * x0 ** 4 / (2.0 * M)


@dataclass(frozen=True)
class PathStats:
    """Per-trial path statistics of a simulation (arrays of length ``n``).

    ``exit_time`` (int, ``T + 1`` = never left the band), ``final_ratio``,
    ``max_dev``, ``mix_cross`` (bool), ``anytime_exit`` (bool),
    ``ratio_grid`` ``(n, len(grid))``, and the run's ``M``, ``T``, ``eps``.
    """

    exit_time: np.ndarray
    final_ratio: np.ndarray
    max_dev: np.ndarray
    mix_cross: np.ndarray
    anytime_exit: np.ndarray
    ratio_grid: np.ndarray
    grid: np.ndarray
    M: int
    T: int
    eps: float

    @classmethod
    def from_outputs(cls, outputs, setup: "SimSetup") -> "PathStats":
        """From the kernels' output arrays ``(exit_t, final, rgrid, mix, anyx, maxdev)``."""
        et, fin, rg, mx, ax, md = outputs
        return cls(et, fin, md, mx, ax, rg, setup.grid, setup.M, setup.T, setup.eps)

    @property
    def n(self) -> int:
        return int(self.exit_time.shape[0])

    @property
    def failed(self) -> np.ndarray:
        """Time-uniform failure: the ratio left ``[1−ε, 1+ε]`` at some ``t ≤ T``."""
        return self.exit_time <= self.T

    @property
    def out_at_T(self) -> np.ndarray:
        """Fixed-time failure: the ratio is outside the band at ``t = T``."""
        return np.abs(self.final_ratio - 1.0) > self.eps

    def to_dict(self) -> dict:
        return {"M": self.M, "T": self.T, "eps": self.eps, "n": self.n,
                "failures": int(self.failed.sum()), "out_at_T": int(self.out_at_T.sum()),
                "mix_crossings": int(self.mix_cross.sum()),
                "anytime_exits": int(self.anytime_exit.sum()),
                "grid": self.grid.tolist()}

    @staticmethod
    def concat(parts: list["PathStats"]) -> "PathStats":
        p0 = parts[0]
        return PathStats(np.concatenate([p.exit_time for p in parts]),
                         np.concatenate([p.final_ratio for p in parts]),
                         np.concatenate([p.max_dev for p in parts]),
                         np.concatenate([p.mix_cross for p in parts]),
                         np.concatenate([p.anytime_exit for p in parts]),
                         np.concatenate([p.ratio_grid for p in parts]),
                         p0.grid, p0.M, p0.T, p0.eps)


def empty_outputs(n: int, G: int) -> tuple:
    """Output arrays of the kernels for ``n`` trials and a grid of ``G`` times
    (the order of :meth:`PathStats.from_outputs`)."""
    return (np.empty(n, dtype=np.int64), np.empty(n), np.empty((n, G)), np.empty(n, dtype=np.bool_),
            np.empty(n, dtype=np.bool_), np.empty(n))


@dataclass(frozen=True)
class SimSetup:
    """Validated parameters shared by the full and the reduced simulators."""

    M: int
    eps: float
    T: int
    family: ColumnFamily
    adversary: Adversary
    x0: float
    cx: float
    grid: np.ndarray
    mix_rho: float
    mix_alpha: float
    anytime_delta: float
    anytime_const: float

    def kernel_args(self):
        """Scalars passed to both kernels (same order):
        ``(x0, ε, √c_x, adversary code, adversary params, grid, ρ, 2 log(1/α_mix),
        K = const·c_0, log(1/δ_any), x0²)``."""
        return (self.x0, self.eps, math.sqrt(self.cx), self.adversary.code,
                self.adversary.params_array(), self.grid, self.mix_rho,
                2.0 * _log_inv(self.mix_alpha), self.anytime_const * self.family.c0,
                _log_inv(self.anytime_delta), self.x0 * self.x0)


def make_setup(M, eps, T, *, columns="sphere", adversary="constant", x0=1.0, cx=1.0, s=None,
               grid=None, mix_alpha=0.05, mix_rho=None, anytime_delta=0.05, anytime_const=16.0,
               allow_lookahead=False) -> SimSetup:
    """Validate the simulation parameters (see :func:`seqproj.simulate.simulate_full`)."""
    M = check_int("M", M, lo=1, hi=M_MAX)
    eps = check_real("eps", eps, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    T = check_int("T", T, lo=1, hi=T_MAX)
    allow_lookahead = check_bool("allow_lookahead", allow_lookahead)
    if not isinstance(columns, (str, ColumnFamily)):
        raise TypeError(f"columns must be a column family name or a ColumnFamily, got {shown(columns)}")
    fam = columns if isinstance(columns, ColumnFamily) else column_family(columns, M, s=s)
    if fam.M != M:
        raise ValueError(f"columns has M={fam.M}, expected M={M}")
    adv = make_adversary(adversary) if isinstance(adversary, str) else adversary
    if not isinstance(adv, Adversary):
        raise TypeError(f"adversary must be a name or Adversary, got {shown(adversary)}")
    if not allow_lookahead:
        adv = require_predictable(adv)
    x0 = check_real("x0", x0, lo=-1e50, hi=1e50)
    if abs(x0) < 1e-50:
        raise ValueError(f"x0 must be nonzero with 1e-50 <= |x0| <= 1e50 (x0 = 0 makes the "
                         f"mixture's rho degenerate; rho ∝ x0**4 must stay in the float range), "
                         f"got {shown(x0)}")
    cx = check_real("cx", cx, lo=1e-100, hi=1e100)
    if grid is None:
        grid = np.unique(np.linspace(0, T, min(T, 30) + 1).round().astype(np.int64))
    if isinstance(grid, (str, bytes)):
        raise TypeError(f"grid must be a non-empty 1-d integer array, got {shown(grid)}")
    grid = np.asarray(grid)
    if grid.ndim != 1 or grid.size == 0 or grid.dtype.kind not in "iu":
        raise ValueError(f"grid must be a non-empty 1-d integer array, got {shown(grid)}")
    if grid.size > 10 ** 6:
        raise ValueError(f"grid must have at most 1000000 recording times, got {grid.size}")
    grid = np.unique(grid.astype(np.int64))
    if grid[0] < 0 or grid[-1] > T:
        raise ValueError(f"grid times must lie in [0, T={T}], got {grid.min()}..{grid.max()}")
    mix_alpha = check_real("mix_alpha", mix_alpha, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    mix_rho = default_mix_rho(eps, M, x0) if mix_rho is None else check_real(
        "mix_rho", mix_rho, lo=1e-300, hi=1e250)
    anytime_delta = check_real("anytime_delta", anytime_delta, lo=0.0, hi=1.0, lo_open=True,
                               hi_open=True)
    anytime_const = check_real("anytime_const", anytime_const, lo=0.0, hi=1e100, lo_open=True)
    return SimSetup(M, eps, T, fam, adv, x0, cx, grid, float(mix_rho), mix_alpha, anytime_delta,
                    anytime_const)
