r"""The worst case over predictable adversaries (theory ``#worst-case``, issue 15 §1, issue 21 §10–11).

Every claim here **computes** at every run (none reads a stored value as its verdict):

* ``theorem_M``: the DP on the coarse grid :data:`COARSE` (an overestimate of ``p*``), ``≤ δ``;
* ``M_star.eps*_T*.upper``: the DP's upper estimate ``U(M_hi)`` (refined grid + grid-error bar +
  action-grid refinement, :func:`seqproj.worst_case.worst_case_upper`) ``≤ δ`` — so
  ``M*_worst ≤ M_hi`` up to the discretisation (an estimate);
* ``M_star.eps*_T*.lower``: the DP's policy at ``M_lo`` replayed as a predictable adversary
  (:func:`seqproj.worst_case_bracket.worst_case_lower`), the lower end of its exact Clopper–Pearson
  interval ``> δ`` — so ``p*(M_lo) > δ`` and ``M*_worst > M_lo`` (exact at level ``α/2``);
* ``gap.M*``: the DP's policy beats every hand-written adversary (both simulated now).

``seqproj/worst_case_results.json`` is a cache for the figures and supplies only the claims'
parameters (``M_lo``, ``M_hi`` of the bracket, the ``M`` of the gap claims, the reference
numbers shown in the statements).  Claims are ``deterministic=True`` inequality claims (one
evaluation, fixed seeds) that say what they rest on (``basis``): the DP claims are *estimates*
(guarantee ``estimate``, not settled for ``--fail-on``), the replays *exact* at their own
Clopper–Pearson level; the quick and the default budget run the same computation (a
deterministic claim does not see its budget).  A broken DP moves them: the mutation table is in
the theory page (``#worst-case``) and ``tests/seqproj/test_mutations.py``.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np

from proofs_check.engine import InequalityClaim, Source, register

from ..experiments import EPS, T

RESULTS = Path(__file__).resolve().parent.parent / "worst_case_results.json"


@functools.lru_cache(maxsize=1)
def results() -> dict:
    """The stored DP results (see the module docstring)."""
    return json.loads(RESULTS.read_text())


def _point(rng):
    return np.zeros(1)


def _src(note):
    return Source(theory="seqproj.md#worst-case", note=note)


#: The coarse grid of the live check (0.7 s): it overestimates p* at every M studied
#: (M = 64: 0.179 vs the refined 0.163 ± 0.004; M = 836: 4.8e-9 vs 1.5e-14).
COARSE = {"n_u": 31, "n_v": 5}


def _theorem_eval(theta, *, M, eps, T, delta):
    """``(p*_coarse, δ)``: the DP recomputed now on the coarse grid (an upper estimate)."""
    from seqproj.worst_case import worst_case_value

    return (float(worst_case_value(M, eps, T, **COARSE).p), float(delta))


_thm = results()["theorem"]
register(InequalityClaim(
    id="seqproj.worst_case.theorem_M",
    statement=(f"p* = max over predictable adversaries of P(∃ t ≤ T: ‖S_t‖²/V_t ∉ [1−ε, 1+ε]) ≤ δ at "
               f"the theorem's M = {_thm['M']} (sphere columns, ε = {_thm['eps']}, δ = "
               f"{_thm['delta']}, T = {_thm['T']}), decided by the DP recomputed on a coarse grid "
               f"(which overestimates p*); refined stored value {_thm['p']:.2g} ± {_thm['err']:.2g}"),
    source=_src("the sequential JL theorem against the exact optimum, not a hand adversary"),
    label="DERIVED", params={k: _thm[k] for k in ("M", "eps", "delta", "T", "p", "err")},
    sample=_point, evaluate=functools.partial(_theorem_eval, M=_thm["M"], eps=_thm["eps"], T=_thm["T"],
                                              delta=_thm["delta"]),
    role="statement", expected="holds", quick_budget=1, default_budget=1, chunk_size=1, deterministic=True,
    basis=("estimate", "p* is the value of a dynamic program on the coarse grid COARSE (31 × 5 nodes, "
                       "linear interpolation); the grid overestimated p* at every M compared, but no "
                       "bound on its error is proved (docs/theory/seqproj.md#worst-case-bracket)"),
    notes="lhs = p* of the DP on the coarse grid COARSE, recomputed at every run (0.7 s); rhs = δ. "
          "The refined value with its grid error is stored (tests/seqproj/test_worst_case.py "
          "recomputes it under -m slow)."))


#: level of the Clopper–Pearson intervals of the live replays and hand adversaries (two-sided)
CP_ALPHA = 0.01


def _upper_eval(theta, *, M, eps, T, delta):
    """``(U(M), δ)``: the DP's upper estimate recomputed now (:func:`seqproj.worst_case.worst_case_upper`)."""
    from seqproj.worst_case import worst_case_upper

    return (float(worst_case_upper(M, eps, T)[0]), float(delta))


def _lower_eval(theta, *, M, eps, T, delta, seed):
    """``(δ, lo(M))``: the lower end of the exact CP interval of the DP policy replayed now."""
    from seqproj.worst_case_bracket import worst_case_lower

    return (float(delta), float(worst_case_lower(M, eps, T, n=20_000, seed=seed, alpha=CP_ALPHA)[0]))


#: cells with live claims: T = 100, and the package's setting ε = 0.5, T = 300 (15–40 s per side on
#: the shared machine); the other cells cost minutes per side and are reported in the theory page
_LIVE = {(0.5, 100), (0.25, 100), (0.5, 300)}
for _key, _b in sorted(results().get("bracket", {}).items()):
    if (_b["eps"], _b["T"]) not in _LIVE or _b.get("M_lo_claim") is None or _b.get("M_hi") is None:
        continue
    # M_lo_claim: the bracket's M_lo_99 or the nearest evaluated M below it whose replay clears δ
    # by ≥ 0.001 (20 of 20 000 trials), so that a policy tie broken differently cannot flip it
    _eps, _T, _d, _lo, _hi = _b["eps"], _b["T"], _b["delta"], _b["M_lo_claim"], _b["M_hi"]
    _cid = f"seqproj.worst_case.M_star.eps{_eps}_T{_T}"
    register(InequalityClaim(
        id=f"{_cid}.upper",
        statement=(f"M*_worst(ε = {_eps}, δ = {_d}, T = {_T}) ≤ {_hi}: the DP's upper estimate of p* "
                   f"at M = {_hi} (refined grid + grid error + action-grid error, recomputed now) is ≤ δ"),
        source=_src("upper end of the worst-case bracket (an estimate: grid interpolation)"),
        label="DERIVED", params={"eps": _eps, "delta": _d, "T": _T, "M": _hi, "side": "upper",
                                 "stored_U": _b["evals"][str(_hi)]["upper"]},
        sample=_point, evaluate=functools.partial(_upper_eval, M=_hi, eps=_eps, T=_T, delta=_d),
        role="statement", expected="holds", quick_budget=1, default_budget=1, chunk_size=1,
        deterministic=True,
        basis=("estimate", "U(M) is the DP value on a refined grid plus the observed grid and "
                           "action-grid moves; an upper interpolation that is a true bound ratchets to "
                           "0.97–1.0, so the discretisation error is estimated, not bounded "
                           "(docs/theory/seqproj.md#worst-case-bracket)"),
        notes="lhs = U(M) = max over action grids of p + |p(grid) − p(refined grid)| + last action-grid "
              "move (seqproj.worst_case.worst_case_upper), recomputed at every run; rhs = δ. An estimate, "
              "not a bound: 'holds' means the DP with its observed discretisation errors puts p* ≤ δ."))
    register(InequalityClaim(
        id=f"{_cid}.lower",
        statement=(f"M*_worst(ε = {_eps}, δ = {_d}, T = {_T}) > {_lo}: the DP's policy at M = {_lo}, "
                   f"played as a predictable adversary, fails with probability > δ (lower end of the "
                   f"exact {1 - CP_ALPHA:.0%} Clopper–Pearson interval, 20 000 trials, recomputed now)"),
        source=_src("lower end of the worst-case bracket (any predictable adversary fails at most "
                    "as often as the optimum)"),
        label="DERIVED", params={"eps": _eps, "delta": _d, "T": _T, "M": _lo, "side": "lower",
                                 "seed": 5000 + _lo, "cp_alpha": CP_ALPHA},
        sample=_point, evaluate=functools.partial(_lower_eval, M=_lo, eps=_eps, T=_T, delta=_d,
                                                  seed=5000 + _lo),
        role="statement", expected="holds", quick_budget=1, default_budget=1, chunk_size=1,
        deterministic=True,
        basis=("exact", f"the lower end of an exact Clopper–Pearson interval of 20 000 replays (seed "
                        f"{5000 + _lo}): wrong with probability ≤ {CP_ALPHA / 2} (the claim's own level, "
                        "not the run's α)"),
        notes="lhs = δ, rhs = CP lower end of the replay (reduced chain, exact in law for a policy of "
              "(‖S‖², V); seed 5000 + M, the bracket run's). Exact Clopper–Pearson: P(rhs > p*) ≤ α/2 = "
              f"{CP_ALPHA / 2}, so 'holds' means p*(M) > δ at that level (p* of the true problem, "
              "no grid involved)."))


#: the hand adversaries the reduced simulator serves (``coordinate`` reads coordinates of S: full only)
HAND = ("constant", "random", "stopping", "magnitude", "pushing")


def _gap_eval(theta, *, M, n):
    """``(max over hand adversaries of CP_hi, CP_lo of the DP policy)``, both simulated now."""
    from proofs_check.engine import clopper_pearson
    from seqproj.reduced import simulate_reduced
    from seqproj.worst_case_bracket import worst_case_lower

    lo = worst_case_lower(M, EPS, T, n=n, seed=1000 + M, alpha=CP_ALPHA)[0]
    best_hi = 0.0
    for i, adv in enumerate(HAND):
        k = int(np.count_nonzero(simulate_reduced(M, EPS, T, n, np.random.default_rng(2000 + M + 100_000 * i),
                                                  adversary=adv).failed))
        best_hi = max(best_hi, clopper_pearson(k, n, CP_ALPHA)[1])
    return (float(best_hi), float(lo))


#: M of the live gap claims.  M = 128 is not registered: there the best hand adversary and the
#: optimum differ by 0.003 (stored reference 0.0064 vs 0.0093), which 20 000 trials cannot
#: separate at the 99 % level and 10⁵ trials cost 3 min per run; its stored numbers stay a
#: figure cache only.
_GAP_M = ("32", "64")
_GAP_N = 20_000
for _M in [m for m in sorted(results().get("replay", {}), key=int) if m in _GAP_M]:
    _r = results()["replay"][_M]
    _best = max(_r["hand"], key=lambda a: _r["hand"][a][0])
    register(InequalityClaim(
        id=f"seqproj.worst_case.gap.M{_M}",
        statement=(f"every hand-written predictable adversary of (‖S‖², V) ({', '.join(HAND)}) fails less often than the DP's policy at "
                   f"M = {_M} (sphere, ε = {EPS}, T = {T}); both simulated now (stored reference: "
                   f"best hand {_best} {_r['hand'][_best][0]:.4f}, p* = {_r['p']:.4f} ± {_r['err']:.4f})"),
        source=_src("gap between the best hand adversary and the optimum"),
        label="DERIVED", params={"M": int(_M), "n": _GAP_N, "cp_alpha": CP_ALPHA},
        sample=_point, evaluate=functools.partial(_gap_eval, M=int(_M), n=_GAP_N),
        role="statement", expected="holds", quick_budget=1, default_budget=1, chunk_size=1,
        deterministic=True,
        basis=("exact", f"{len(HAND) + 1} exact Clopper–Pearson intervals of {_GAP_N} trials each "
                        f"(fixed seeds): wrong with probability ≤ {len(HAND) + 1} × {CP_ALPHA / 2} = "
                        f"{(len(HAND) + 1) * CP_ALPHA / 2:g} by a union bound (the claim's own level, "
                        "not the run's α)"),
        notes="lhs = the largest upper CP end over the hand adversaries (reduced simulator, seeds "
              "2000 + M + 1e5·i), rhs = the lower CP end of the DP policy replayed (seed 1000 + M); "
              f"CP level {1 - CP_ALPHA:.0%} two-sided, n trials each, all recomputed at every run"))
