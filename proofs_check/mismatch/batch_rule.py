r"""The batch-size-invariant rule for the step size and the queue (theory ``mismatch.md#batch-rule``).

From the two staleness laws of theory ``mismatch.md#update-size`` (DERIVED there and measured by
``mismatch.scaling.staleness_*``), the gap between a ``k``-step-stale sampler and the trainer is

    ``D(η, k, B) ≈ ½ k² η² gᵀFg  +  k η² tr(FΣ)/(2B)``      (drift + noise).

With ``η = η₀ (B/B₀)^a`` and ``k = k₀ (B/B₀)^b`` the two terms scale as ``B^{2a+2b}`` and
``B^{2a+b−1}``; both are constant only for ``a = 1, b = −1``:

    ``η(B) = η₀ · B/B₀``,   ``k(B) = k₀ · B₀/B``     (so ``η/B`` and ``k·B`` are fixed)

— the step grows with the batch and the queue, counted in samples (``k·B``), stays fixed
(DERIVED, theory ``mismatch.md#batch-rule``).  It breaks where it cannot be followed: ``k`` is an
integer ``≥ 1``, so beyond ``B* = k₀B₀`` the queue floors at one step and the gap grows again
(``∝ B`` in the noise regime, ``∝ B²`` in the drift regime).  With the queue held fixed instead
(no ``b``), no ``η(B)`` holds both terms: ``η ∝ √B`` holds the noise term while the drift term
grows ``∝ B`` — that rule breaks in the drift regime, the sooner the larger ``k``.

:func:`batch_rule` computes ``(η, k)`` for one of the rules of :data:`RULES`;
:func:`batch_gap_trials` measures the gap (the successive-policy KL
``KL(P^{θ_{s−k}} ‖ P^{θ_s})`` of :func:`.staleness.staleness_kl`, the measure of the staleness
claims) on the toy of :mod:`.update_size` along a grid of ``B``, for several rules on common
random numbers (paired over seeds).
"""
from __future__ import annotations

import numpy as np

from proofs_check.engine import check_int, check_real
from .staleness import run_sgd, staleness_kl
from .update_size import update_size_toy

__all__ = ["RULES", "RULE_B_GRID", "BREAK_B_GRID", "RULE_SETTING", "batch_rule", "batch_gap_trials",
           "drift_gap_curve", "gap_of", "log_slope"]

#: The rules compared: the derived one (``η ∝ B``, ``k ∝ 1/B``), the two naive ones with the queue
#: fixed at ``k₀`` (``η ∝ B``: linear scaling; ``η`` fixed), and the fixed-queue noise rule
#: (``η ∝ √B``, ``k`` fixed) that holds only the noise term.
RULES = ("rule", "linear", "fixed", "sqrt")
#: The batch sizes along which the rule is tested (a 32× range) and those beyond ``B* = k₀B₀``.
RULE_B_GRID = (4, 8, 16, 32, 64, 128)
BREAK_B_GRID = (128, 256, 512, 1024)
#: The reference point ``(B₀, η₀, k₀)`` and the run length in queue windows: ``k₀B₀ = 128`` samples
#: in the queue, so ``k`` runs 32, 16, …, 1 along :data:`RULE_B_GRID`.
RULE_SETTING = {"B0": 4, "eta0": 0.05, "k0": 32, "windows": 4}


def batch_rule(B, *, B0=4, eta0=0.05, k0=32, rule="rule", exponent=1.0):
    """``(η, k)`` at batch ``B`` for ``rule`` (theory ``mismatch.md#batch-rule``).

    * ``"rule"`` (DERIVED): ``η = η₀ (B/B₀)^a``, ``k = max(1, round(k₀ (B₀/B)^a))`` with ``a =
      exponent`` (1 for the derived rule; other values are for mutation tests);
    * ``"linear"``: ``η = η₀ (B/B₀)^a``, ``k = k₀``;  ``"fixed"``: ``η = η₀``, ``k = k₀``;
    * ``"sqrt"``: ``η = η₀ (B/B₀)^{a/2}``, ``k = k₀`` (holds the noise term only).

    ``k`` floors at 1: beyond ``B* = k₀B₀`` the derived rule cannot be followed.
    """
    B = check_int("B", B, lo=1)
    B0 = check_int("B0", B0, lo=1)
    eta0 = check_real("eta0", eta0, lo=0.0, lo_open=True)
    k0 = check_int("k0", k0, lo=1)
    a = check_real("exponent", exponent, lo=0.0)
    if not isinstance(rule, str) or rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
    r = B / B0
    if rule == "rule":
        return eta0 * r ** a, max(1, int(round(k0 * r ** (-a))))
    if rule == "linear":
        return eta0 * r ** a, k0
    if rule == "fixed":
        return eta0, k0
    return eta0 * r ** (a / 2), k0


def _flat_reward():
    return np.full(9, 0.5)


def gap_of(theta0, reward, *, eta, k, B, windows, rng, mode="sampled"):
    """The gap of one run: the mean over steps ``s ∈ [k, windows·k]`` of ``KL(P^{θ_{s−k}} ‖ P^{θ_s})``
    (:func:`.staleness.staleness_kl`) for SGD with step ``eta`` and batch ``B`` from ``theta0``."""
    k = check_int("k", k, lo=1)
    windows = check_int("windows", windows, lo=2)
    tr = run_sgd(theta0, reward, 3, 2, eta=eta, steps=windows * k, B=B, mode=mode, rng=rng)
    return staleness_kl(tr, k)


def batch_gap_trials(rng, n, *, rules=("rule", "linear", "fixed"), B_grid=RULE_B_GRID, B0=4, eta0=0.05, k0=32,
                     windows=4, exponent=1.0, reward="flat"):
    """The gap along ``B_grid`` for each rule, paired: each trial draws one seed shared by every
    (rule, ``B``) run (common random numbers).  ``reward="flat"``: the noise regime (``E ĝ = 0``
    on-policy); ``"toy"``: the toy's ``R ∼ U[0, 1]`` (drift and noise).
    ``{"gap[<rule>]": (n, len(B_grid))}``."""
    n = check_int("n", n, lo=1)
    if reward not in ("flat", "toy"):
        raise ValueError(f"reward must be 'flat' or 'toy', got {reward!r}")
    for r in rules:
        if r not in RULES:
            raise ValueError(f"rules must be drawn from {RULES}, got {r!r}")
    th, R = update_size_toy()
    if reward == "flat":
        R = _flat_reward()
    out = {f"gap[{r}]": np.empty((n, len(B_grid))) for r in rules}
    for i in range(n):
        s = int(rng.integers(2 ** 31))
        for r in rules:
            for j, B in enumerate(B_grid):
                eta, k = batch_rule(B, B0=B0, eta0=eta0, k0=k0, rule=r, exponent=exponent)
                out[f"gap[{r}]"][i, j] = gap_of(th, R, eta=eta, k=k, B=B, windows=windows,
                                               rng=np.random.default_rng([s, j]))
    return out


def drift_gap_curve(rng, n, *, rule="rule", B_grid=RULE_B_GRID, B0=4, eta0=0.05, k0=32, windows=4, exponent=1.0):
    """Drift regime (exact gradient, the toy's reward ``R ∼ U[0, 1]``): the gap along ``B_grid``
    under ``rule`` (deterministic; the row repeated ``n`` times).  ``B`` enters only through the
    rule's ``(η, k)``."""
    n = check_int("n", n, lo=1)
    th, R = update_size_toy()
    row = []
    for B in B_grid:
        eta, k = batch_rule(B, B0=B0, eta0=eta0, k0=k0, rule=rule, exponent=exponent)
        row.append(gap_of(th, R, eta=eta, k=k, B=B, windows=windows, rng=0, mode="exact"))
    return np.tile(row, (n, 1))


def log_slope(x, y) -> float:
    """Least-squares slope of ``log y`` on ``log x`` (a helper of the tests and the band table)."""
    lx, ly = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    lx = lx - lx.mean()
    return float(lx @ (ly - ly.mean()) / (lx @ lx))

