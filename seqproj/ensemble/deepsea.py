r"""DeepSea(N): the chain that needs deep exploration, vectorised over a batch of instances.

The environment of "Behaviour Suite for Reinforcement Learning" (Osband et al.,
ICLR 2020, ``bsuite/environments/deep_sea.py``; first in Osband, Van Roy, Russo,
Wen, "Deep exploration via randomized value functions", JMLR 2019, §2.2):

* an ``N × N`` grid; the agent starts in the top-left cell ``(row, col) = (0, 0)``
  and every step descends one row, so an episode lasts exactly ``N`` steps;
* two actions; in every cell a fixed random bit (the **action mapping**, drawn
  once per instance from its seed) says which of them means "right"; the other
  means "left";
* "right" moves ``col ← min(col + 1, N − 1)`` and costs ``0.01/N``;
  "left" moves ``col ← max(col − 1, 0)`` and is free;
* taking "right" in the last column pays ``+1``: the only reachable such cell is
  the bottom-right corner ``(N − 1, N − 1)``, reached only by playing "right" at
  every step, so the optimal return is ``1 − 0.01`` and every other policy
  returns at most 0 (``optimal_return``).

Stochastic variant (``stochastic=True``, bsuite's ``deep_sea_stochastic``): a
"right" move succeeds with probability ``1 − 1/N`` (else the column stays; the
cost is paid either way), and an independent N(0, 1) reward is added in the
bottom row at the two end columns ``col ∈ {0, N − 1}``.  Its optimal expected
return is ``(1 − 1/N)^{N−1} − 0.01``.

A batch of ``B`` independent instances (own mapping, own noise) is stepped
together: every array has a leading batch axis.  "Found" (the event the
exploration study counts) is bsuite's complement of ``bad_episode``: the agent
never chose "left" while on the diagonal ``row = col``.  In the deterministic
variant this is exactly "collected the +1".
"""
from __future__ import annotations

import numpy as np

from proofs_check.engine import as_generator, check_bool, check_finite_array, check_int, shown

from ._limits import check_cells

__all__ = ["DeepSea", "MOVE_COST", "optimal_return"]

#: The unscaled cost of "right": each right move costs ``MOVE_COST / N`` (bsuite).
MOVE_COST = 0.01
#: Largest grid accepted (N² cells per instance).
MAX_DEEPSEA_N = 1_000


def optimal_return(N: int, *, stochastic: bool = False) -> float:
    r"""Expected return of the optimal policy: ``1 − 0.01`` (deterministic), or
    :math:`(1 − 1/N)^{N−1} − 0.01` (stochastic: the N − 1 right moves before the
    last row must all succeed; the N(0, 1) noise has mean 0)."""
    N = check_int("N", N, lo=2, hi=MAX_DEEPSEA_N)
    stochastic = check_bool("stochastic", stochastic)
    p = (1.0 - 1.0 / N) ** (N - 1) if stochastic else 1.0
    return p - MOVE_COST


def deep_sea_step(row: int, col, action, mapping, *, N: int, stochastic: bool = False,
                  u=None, noise=None):
    r"""One step of ``B`` instances, a pure function (the reference the class calls).

    ``col`` (``(B,)`` ints), ``action`` (``(B,)`` in {0, 1}), ``mapping``
    (``(B, N, N)`` bits: action ``a`` in cell ``(r, c)`` is "right" iff
    ``a == mapping[b, r, c]``).  Stochastic variant: ``u`` (``(B,)`` uniforms;
    the move succeeds iff ``u > 1/N``, as in bsuite) and ``noise`` (``(B,)``
    standard normals, added in the bottom row at ``col ∈ {0, N − 1}``).
    Returns ``(reward, next_col, treasure, right)``: ``treasure`` marks the +1.
    """
    col = np.asarray(col)
    action = np.asarray(action)
    B = col.shape[0]
    right = action == mapping[np.arange(B), row, col]
    treasure = (col == N - 1) & right
    reward = treasure.astype(float)
    if stochastic:
        if row == N - 1:
            reward = reward + np.where((col == 0) | (col == N - 1), noise, 0.0)
        moved = right & (u > 1.0 / N)
    else:
        moved = right
    reward = reward - right * (MOVE_COST / N)
    nxt = np.where(moved, np.minimum(col + 1, N - 1), np.where(right, col, np.maximum(col - 1, 0)))
    return reward, nxt, treasure, right


class DeepSea:
    r"""``B`` independent DeepSea(N) instances stepped together (see the module docstring).

    Parameters: ``N`` (grid size and horizon, ``2 ≤ N ≤ 1000``), ``batch`` (B),
    ``rng`` (draws the action mappings — one fixed random mapping per
    instance — and, in the stochastic variant, the move failures and reward
    noise), ``stochastic``, ``randomize_actions`` (``False``: action 1 is
    "right" everywhere, for tests).
    """

    def __init__(self, N: int, *, batch: int = 1, rng, stochastic: bool = False,
                 randomize_actions: bool = True):
        self.N = check_int("N", N, lo=2, hi=MAX_DEEPSEA_N)
        self.batch = check_int("batch", batch, lo=1, hi=1_000_000)
        check_cells("the batch × N × N action mappings", self.batch, self.N, self.N)
        self.stochastic = check_bool("stochastic", stochastic)
        randomize_actions = check_bool("randomize_actions", randomize_actions)
        self._rng = as_generator(rng)
        if randomize_actions:
            self.mapping = self._rng.integers(0, 2, size=(self.batch, self.N, self.N)).astype(np.int8)
        else:
            self.mapping = np.ones((self.batch, self.N, self.N), dtype=np.int8)
        self.reset()

    def reset(self) -> np.ndarray:
        """Start every instance in the top-left cell; returns the columns (all 0)."""
        self.row = 0
        self.col = np.zeros(self.batch, dtype=np.int64)
        self.ret = np.zeros(self.batch)
        self.found = np.ones(self.batch, dtype=bool)       # not (yet) a bad episode
        self.treasure = np.zeros(self.batch, dtype=bool)
        return self.col.copy()

    @property
    def done(self) -> bool:
        return self.row >= self.N

    def step(self, action):
        """Play ``action`` (``(B,)`` in {0, 1}) in every instance; returns
        ``(reward, next_col)``.  Raises ``RuntimeError`` after the last step."""
        if self.done:
            raise RuntimeError("the episode is over (N steps played): call reset()")
        a = check_finite_array("action", action, ndim=1)
        if a.shape != (self.batch,) or not np.all((a == 0) | (a == 1)):
            raise ValueError(f"action must be {self.batch} values in {{0, 1}}, got {a!r}")
        u = noise = None
        if self.stochastic:
            u = self._rng.random(self.batch)
            noise = self._rng.standard_normal(self.batch)
        r, nxt, tre, right = deep_sea_step(self.row, self.col, a.astype(np.int64), self.mapping,
                                           N=self.N, stochastic=self.stochastic, u=u, noise=noise)
        self.found &= right | (self.col != self.row)
        self.treasure |= tre
        self.ret += r
        self.col = nxt
        self.row += 1
        return r, nxt.copy()

    def right_action(self, row: int, col) -> np.ndarray:
        """The action meaning "right" in cell ``(row, col[b])`` of each instance."""
        row = check_int("row", row, lo=0, hi=self.N - 1)
        c = np.asarray(col)
        if c.shape != (self.batch,) or c.dtype.kind not in "iu":
            raise TypeError(f"col must be an integer array of shape (batch,) = ({self.batch},), got {shown(col)}")
        if int(c.min()) < 0 or int(c.max()) >= self.N:
            raise ValueError(f"col must lie in [0, {self.N - 1}], got {shown(col)}")
        col = c.astype(np.int64)
        return self.mapping[np.arange(self.batch), row, col].astype(np.int64)
