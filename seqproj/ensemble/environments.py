r"""Linear-bandit environments (theory ``ensemble.md#setting``, CONFIRMED from the authors' scripts).

Round t: action set :math:`X_t\subset\mathbb R^d`, play :math:`x_t`, observe
:math:`y_t = x_t^\top\theta^* + \eta_t`, :math:`\eta_t\sim N(0,\sigma^2)`; regret
:math:`\sum_t \max_{x\in X_t}x^\top\theta^* - x_t^\top\theta^*`.

* :class:`FiniteArmEnv` ("Russo"): K fixed arms i.i.d. Unif[−1/√5, 1/√5]^d;
* :class:`SphereEnv`: the unit sphere (the agent plays θ̃/‖θ̃‖);
* :class:`ChangingContextEnv`: K fresh arms N(0, I)/‖·‖ every round.

θ* ~ N(0, 10 I) and σ = 1 by default.  An environment is a frozen
specification: ``draw(rng)`` returns the instance ``(θ*, fixed arms or None)``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from proofs_check.engine import as_generator, check_int, check_real

from ._limits import MAX_D, MAX_K, check_cells

__all__ = ["FiniteArmEnv", "SphereEnv", "ChangingContextEnv", "ENVIRONMENTS"]


def _check_fields(env) -> None:
    """Validate the fields an environment has: d, K ≥ 1; θ* variance, σ, half-width > 0."""
    for name, hi in (("d", MAX_D), ("K", MAX_K)):
        if hasattr(env, name):
            check_int(name, getattr(env, name), lo=1, hi=hi)
    if hasattr(env, "K"):
        check_cells("the K × d arms", env.K, env.d)
    for name in ("theta_var", "noise_sd", "half_width"):
        if hasattr(env, name):
            check_real(name, getattr(env, name), lo=0.0, lo_open=True, hi=1e150)


def _draw_theta(env, rng) -> np.ndarray:
    """θ* ~ N(0, theta_var·I_d) (``rng``: a Generator, SeedSequence or seed; anything else is refused)."""
    return math.sqrt(env.theta_var) * as_generator(rng).standard_normal(env.d)


@dataclass(frozen=True)
class FiniteArmEnv:
    """K fixed arms, features i.i.d. Unif[−h, h]^d with h = 1/√5; θ* ~ N(0, theta_var·I)."""

    d: int
    K: int
    theta_var: float = 10.0
    noise_sd: float = 1.0
    half_width: float = 1.0 / math.sqrt(5.0)
    kind = "finite"

    def __post_init__(self):
        _check_fields(self)

    def draw(self, rng):
        rng = as_generator(rng)
        theta = _draw_theta(self, rng)
        X = rng.uniform(-self.half_width, self.half_width, size=(self.K, self.d))
        return theta, X


@dataclass(frozen=True)
class SphereEnv:
    """The unit sphere as action set (compact); the best action is θ*/‖θ*‖."""

    d: int
    theta_var: float = 10.0
    noise_sd: float = 1.0
    kind = "sphere"

    def __post_init__(self):
        _check_fields(self)

    def draw(self, rng):
        return _draw_theta(self, rng), None


@dataclass(frozen=True)
class ChangingContextEnv:
    """K fresh arms N(0, I_d)/‖·‖ every round."""

    d: int
    K: int
    theta_var: float = 10.0
    noise_sd: float = 1.0
    kind = "contexts"

    def __post_init__(self):
        _check_fields(self)

    def draw(self, rng):
        return _draw_theta(self, rng), None

    def contexts(self, rng):
        X = as_generator(rng).standard_normal((self.K, self.d))
        return X / np.linalg.norm(X, axis=1, keepdims=True)


#: The environment classes :func:`~seqproj.ensemble.run_bandit` accepts.
ENVIRONMENTS = (FiniteArmEnv, SphereEnv, ChangingContextEnv)
