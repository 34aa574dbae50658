r"""The shared-parameter linear-softmax policy ``π(v|c) = softmax_v φ(c, v)·θ``."""
from __future__ import annotations

import math

import numpy as np

from ..engine import as_generator, check_finite_array, check_int
from .tabular import DEFAULT_MAX_BYTES, TabularPolicy, check_enumerable

__all__ = ["LinearSoftmaxPolicy"]


class LinearSoftmaxPolicy:
    r"""Shared parameters: ``z(c, v) = φ(c, v)·θ``, ``π(v|c) = softmax_v z(c, ·)``.

    Parameters
    ----------
    theta : array ``(d,)``
    features : list of ``T`` arrays, depth ``t`` of shape ``(V**t, V, d)``.

    The score is ``∇_θ log π(v|c) = φ(c, v) − Σ_w π(w|c) φ(c, w)``
    (:meth:`score_tables`).  Unlike a tabular policy, one parameter moves many
    contexts at once, which is what makes gradient estimators' biases visible.
    """

    def __init__(self, theta, features):
        theta = check_finite_array("theta", theta, ndim=1)
        if not isinstance(features, (list, tuple)) or len(features) < 1:
            raise TypeError("features must be a non-empty list of T arrays of shape (V**t, V, d)")
        f0 = check_finite_array("features[0]", features[0], ndim=3)
        V, d = f0.shape[1], f0.shape[2]
        if V < 2:
            raise ValueError(f"vocabulary size V must be ≥ 2, got {V}")
        if d != theta.size:
            raise ValueError(f"features' last axis d={d} must equal theta's length {theta.size}")
        feats = []
        for t, f in enumerate(features):
            f = check_finite_array(f"features[{t}]", f, ndim=3)
            if f.shape != (V ** t, V, d):
                raise ValueError(f"features[{t}] must have shape ({V ** t}, {V}, {d}), got {f.shape}")
            feats.append(f)
        self.theta = theta
        self.features = tuple(feats)
        self.V, self.T, self.d = V, len(feats), d
        self._tab = TabularPolicy([f @ theta for f in feats])

    @classmethod
    def random(cls, V: int, T: int, d: int, rng, *, scale: float = 1.0,
               max_bytes: int = DEFAULT_MAX_BYTES) -> "LinearSoftmaxPolicy":
        """Features ``φ(c, v) = G[last token of c (or BOS), v]`` with ``G ∼ N(0,1)``,
        shared across depths; ``θ ∼ N(0, scale²/d)``."""
        d = check_int("d", d, lo=1)
        check_enumerable(V, T, n_arrays=d, max_bytes=max_bytes)
        g = as_generator(rng)
        G = g.standard_normal((V + 1, V, d))
        feats = [G[V][None].copy()]
        for t in range(1, T):
            last = np.arange(V ** t) % V
            feats.append(G[last])
        theta = scale * g.standard_normal(d) / math.sqrt(d)
        return cls(theta, feats)

    def with_theta(self, theta) -> "LinearSoftmaxPolicy":
        return LinearSoftmaxPolicy(theta, list(self.features))

    def tabular(self) -> TabularPolicy:
        """The induced :class:`TabularPolicy`."""
        return self._tab

    def score_tables(self) -> list:
        """``∇_θ log π(v|c)`` per depth: list of ``(V**t, V, d)`` arrays."""
        out = []
        for t, f in enumerate(self.features):
            p = self._tab.probs(t)
            out.append(f - np.einsum("rv,rvd->rd", p, f)[:, None, :])
        return out

    def __repr__(self) -> str:
        return f"LinearSoftmaxPolicy(V={self.V}, T={self.T}, d={self.d})"
