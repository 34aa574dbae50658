r"""The worst case as a bracket, not a point (theory ``seqproj.md#worst-case-bracket``).

The DP value :func:`~seqproj.worst_case.worst_case_value` is an estimate of the true worst-case
failure probability ``p*`` (its grid and action set move it).  This module brackets ``p*``:

* from below, exactly: the DP's policy replayed as a predictable adversary
  (:func:`worst_case_lower`; any predictable adversary fails at most as often as the optimum,
  and its failure count is exactly Binomial, so its Clopper–Pearson lower end is a valid
  lower confidence bound on ``p*``);
* from above, as an estimate: :func:`~seqproj.worst_case.worst_case_upper` (the DP value plus
  its grid and action-set moves);

and reads ``M*_worst`` off the bracket as a range (:func:`worst_case_mstar_range`).
"""
from __future__ import annotations

import numpy as np

from proofs_check.engine import check_choice, check_int, check_real, clopper_pearson, shown

from . import worst_case as _dp      # looked up at call time: a mutation of the DP reaches the bracket
from .worst_case import BRACKET_ACTIONS, BRACKET_GRID, check_problem
from .worst_case_replay import replay_policy, replay_policy_reduced

__all__ = ["worst_case_lower", "worst_case_mstar_range"]


def worst_case_lower(M, eps, T, *, n=20_000, seed=0, columns="sphere", alpha=0.01,
                     n_u=2 * BRACKET_GRID["n_u"] - 1, n_v=2 * BRACKET_GRID["n_v"] - 1, n_x=BRACKET_ACTIONS[0],
                     simulator="reduced"):
    r"""Lower bound on ``p*``: the DP's optimal Markov policy (grid ``(n_u, n_v, n_x)``) played as
    a predictable adversary in ``n`` trials, failure count ``k ~ Binomial(n, q)`` with ``q ≤ p*``
    (any predictable adversary fails at most as often as the optimum).  Returns ``(lo, info)``:
    ``lo`` is the lower end of the exact two-sided ``1 − alpha`` Clopper–Pearson interval, so
    ``P(lo > p*) ≤ alpha/2``.  ``simulator``: ``"reduced"`` (the exact-in-law reduced chain,
    :func:`seqproj.worst_case_replay.replay_policy_reduced`) or ``"full"`` (columns in ``R^M``)."""
    M, eps, T, columns, _, _ = check_problem(M, eps, T, columns, 1.0, 1.0)
    n = check_int("n", n, lo=1, hi=10 ** 7)
    alpha = check_real("alpha", alpha, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    check_choice("simulator", simulator, ("reduced", "full"))
    wc = _dp.worst_case_value(M, eps, T, columns=columns, n_u=n_u, n_v=n_v, n_x=n_x, policy=True)
    play = replay_policy_reduced if simulator == "reduced" else replay_policy
    k, n, _ = play(wc, n, np.random.default_rng(seed))
    lo, hi = clopper_pearson(k, n, alpha)
    return lo, {"k": k, "n": n, "rate": k / n, "ci": [lo, hi], "alpha": alpha, "seed": seed,
                "p_dp": wc.p, "simulator": simulator}


def worst_case_mstar_range(eps, delta, T, *, upper_window, lower_window, n=20_000, alpha=0.05,
                           columns="sphere"):
    r"""``M*_worst ∈ (M_lo, M_hi]`` from the bracket (theory ``#worst-case-bracket``).

    ``M_hi``: smallest ``M`` in ``upper_window = (a, b)`` with ``U(M) ≤ δ``
    (:func:`worst_case_upper`), by bisection (``None`` if ``U(b) > δ``; ``a`` if ``U(a) ≤ δ``);
    ``M_lo``: largest ``M`` in ``lower_window = (a, b)`` (``b`` capped at ``M_hi``) whose replay
    lower end (:func:`worst_case_lower`, seed ``5000 + M``, level ``1 − alpha``) is ``> δ``.
    Both bisections assume ``p*`` nonincreasing in ``M``.  Returns ``(M_lo, M_hi, evals)``
    with ``evals[M] = {"upper": U, "lower": lo, ...}``."""
    delta = check_real("delta", delta, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    for name, w in (("upper_window", upper_window), ("lower_window", lower_window)):
        if not (isinstance(w, tuple) and len(w) == 2 and 3 <= w[0] < w[1]):
            raise ValueError(f"{name} must be a tuple (a, b) with 3 ≤ a < b, got {shown(w)}")
    ev = {}

    def get(M):
        if M not in ev:
            U, ui = _dp.worst_case_upper(M, eps, T, columns=columns)
            lo, li = worst_case_lower(M, eps, T, n=n, seed=5000 + M, alpha=alpha, columns=columns)
            ev[M] = {"upper": U, "lower": lo, **ui, **li}
        return ev[M]

    a, b = upper_window
    if get(b)["upper"] > delta:
        M_hi = None
    elif get(a)["upper"] <= delta:
        M_hi = a
    else:
        while b - a > 1:
            m = (a + b) // 2
            a, b = (a, m) if get(m)["upper"] <= delta else (m, b)
        M_hi = b
    a, b = lower_window[0], min(lower_window[1], M_hi or lower_window[1])
    if get(a)["lower"] <= delta:
        M_lo = None
    elif get(b)["lower"] > delta:
        M_lo = b
    else:
        while b - a > 1:
            m = (a + b) // 2
            a, b = (m, b) if get(m)["lower"] > delta else (a, m)
        M_lo = a
    return M_lo, M_hi, ev


# --------------------------------------------------------------------------
# brute force over all deterministic Markov policies (validation, tiny grids)
# --------------------------------------------------------------------------
