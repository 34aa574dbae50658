"""The greedy arm of a sampled parameter: the step every Thompson-type agent takes per round.

:math:`a^\\star = \\arg\\max_a \\langle x_a, \\theta\\rangle` over the rows of the arm matrix
``X`` (the first maximiser on ties), computed by sequential dot products — one read of ``X``.
Shared by the fused Ensemble++ round (:mod:`seqproj.ensemble.fused_round`) and rank-one exact
Thompson sampling (:mod:`seqproj.ensemble.cholesky_update`), so both score arms identically.
"""
from __future__ import annotations

import numpy as np
from numba import njit

#: Nothing public: :func:`greedy_arm` is a raw numba kernel (no checks; an ``X``/``theta``
#: shape mismatch reads out of bounds) called by kernels that validated their inputs.
__all__: list[str] = []


@njit(cache=True, nogil=True)
def greedy_arm(X, theta):
    """Index of the first row ``a`` of ``X`` maximising ``Σ_i X[a, i] θ_i`` (sequential sums)."""
    K, d = X.shape
    a_best = 0
    v_best = -np.inf
    for a in range(K):
        acc = 0.0
        for i in range(d):
            acc += X[a, i] * theta[i]
        if acc > v_best:
            v_best = acc
            a_best = a
    return a_best


def greedy_arm_ref(X, theta) -> int:
    """NumPy reference of :func:`greedy_arm`: the first index of the maximum of ``X @ theta``
    (the BLAS sums may round differently from the kernel's sequential sums on near-ties)."""
    return int(np.argmax(np.asarray(X, dtype=float) @ np.asarray(theta, dtype=float)))
