"""Multiplicity across a run: e-BH over the e-values of the run's verdicts (those of ``docs/theory/engine.md`` §2).

One report holds many statistical verdicts, each wrong with probability ≤ α on
its own.  Across the run this module says which of them survive a false
discovery rate (FDR) of α, and which a family-wise (Bonferroni) reading.

**e-BH** (R. Wang and A. Ramdas, "False discovery rate control with
e-values", JRSS-B 84 (2022) 822–852, §2 and Theorem 2).  With e-values
``e_1, …, e_K`` for the nulls ``H_1, …, H_K`` (``E[e_i] ≤ 1`` under ``H_i``)
and ``e_(1) ≥ … ≥ e_(K)`` sorted,

.. math::
    k^* = \\max\\{k : e_{(k)} \\ge K / (α k)\\},

and the hypotheses with the ``k*`` largest e-values are rejected (none if no
``k`` qualifies).  Then ``FDR = E[V / max(R, 1)] ≤ α K_0/K ≤ α`` under
*arbitrary* dependence between the e-values (``K_0`` true nulls) — the
claims of one run share code, experiments and seeds, so no independence is
assumed.  **Bonferroni on e-values**: reject ``H_i`` when ``e_i ≥ K/α``; by
Markov's inequality ``P(e_i ≥ K/α) ≤ α/K`` under ``H_i``, so the
family-wise error ``P(V ≥ 1) ≤ α`` (union bound).

Where each kind's e-value lives (the *family* is the statistical verdicts that
have one; its membership depends only on how each claim is declared, never on
its data):

* probability (``method="anytime"`` and ``"fixed"``): the truncated-beta
  mixture likelihood ratio of :func:`.stats.log_e_above` (evidence against
  ``p ≤ δ``, i.e. for a refutation) and :func:`.stats.log_e_below` (for
  "holds"), stored on the result.  It is a test supermartingale under its
  null, so its value at the run's stopping time is an e-value (optional
  stopping) — also at a fixed budget, and also when a ``--fixed`` run was
  re-run at a larger budget (it does not need the budget fixed in advance).
  The fixed-sample verdict itself rests on Clopper–Pearson; its e-value is
  this mixture, not a calibrated p-value.
* comparison with declared ``bounds`` (betting, :mod:`.betting`): the capital
  ``K^+`` / ``K^-`` *at the stopping time* ``τ`` = the first difference at
  which either side's capital reaches ``2/α`` (else the last one) —
  :func:`.betting.stopped_log_capital`, stored on the result as
  ``log_e_refute`` / ``log_e_holds``.  Each capital is a non-negative
  supermartingale under its null, so its stopped value is an e-value.  (The
  running supremum that decides the verdict is not an e-value; ``1/sup`` is a
  p-value by Ville's inequality.)
* comparison with a declared variance bound (Catoni-style, :mod:`.catoni`):
  its supermartingales at the stopping time, stored in the same two fields.
* excluded, with the reason printed: asymptotic verdicts (comparisons without
  bounds — Hall's interval —, random scaling's t-interval): no finite-sample
  p-value exists to calibrate (Bahadur & Savage 1956 for an unbounded mean),
  and a calibrated asymptotic p-value would carry no guarantee into e-BH;
  deterministic, search and exact-proof verdicts (inequality, identity,
  deterministic scaling): not sampling statements, so no e-value — they are
  not part of the statistical family.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["e_bh", "bonferroni", "RunEvalue", "run_evalue", "Multiplicity", "run_multiplicity",
           "fdr_statement"]


def _check_alpha(alpha) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0.0 < float(alpha) < 1.0:
        raise ValueError(f"alpha must be a number in (0, 1), got {alpha!r}")
    return float(alpha)


def _log_values(e_values, name: str, log: bool) -> np.ndarray:
    try:
        e = np.asarray(e_values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a 1-D sequence of numbers, got {type(e_values).__name__}") from None
    if e.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {e.shape}")
    if np.any(np.isnan(e)):
        raise ValueError(f"{name} must not contain nan (at index {int(np.flatnonzero(np.isnan(e))[0])})")
    if log:
        return e
    if np.any(e < 0):
        i = int(np.flatnonzero(e < 0)[0])
        raise ValueError(f"{name} must be ≥ 0 (e-values), got {e[i]!r} at index {i}")
    with np.errstate(divide="ignore"):
        return np.log(e)


def e_bh(e_values, alpha: float, *, log: bool = False) -> list[int]:
    """Indices (ascending) of the hypotheses e-BH rejects at FDR level ``alpha``.

    ``e_values``: one e-value per hypothesis (``≥ 0``, ``inf`` allowed), or
    their natural logarithms with ``log=True`` (``−inf`` allowed).  With
    ``K = len(e_values)`` and ``e_(1) ≥ … ≥ e_(K)``,
    ``k* = max{k : e_(k) ≥ K/(α k)}`` and the ``k*`` largest are rejected —
    exactly ``{i : e_i ≥ K/(α k*)}``.  FDR ≤ α·K₀/K under arbitrary
    dependence (Wang & Ramdas 2022, JRSS-B 84, Theorem 2).  Comparisons are
    made on logarithms (no overflow for e-values of 10³⁰⁰ and beyond)."""
    a = _check_alpha(alpha)
    le = _log_values(e_values, "e_values", log)
    K = le.size
    if K == 0:
        return []
    order = np.argsort(-le, kind="stable")
    ks = np.arange(1, K + 1, dtype=float)
    ok = le[order] >= math.log(K) - math.log(a) - np.log(ks)
    if not ok.any():
        return []
    kstar = int(np.flatnonzero(ok)[-1]) + 1
    return sorted(int(i) for i in order[:kstar])


def bonferroni(e_values, alpha: float, *, log: bool = False) -> list[int]:
    """Indices (ascending) with ``e_i ≥ K/α``: family-wise error ≤ α under
    arbitrary dependence (Markov's inequality and the union bound)."""
    a = _check_alpha(alpha)
    le = _log_values(e_values, "e_values", log)
    K = le.size
    if K == 0:
        return []
    return [int(i) for i in np.flatnonzero(le >= math.log(K) - math.log(a))]


# -- a run's results ---------------------------------------------------------

@dataclass(frozen=True)
class RunEvalue:
    """The e-values of one result: ``log_e_refute`` (evidence against the claim,
    null "the claim holds") and ``log_e_holds`` (evidence for it, null "the
    claim is false"), or ``None`` with the ``reason`` it is not in the family."""

    claim: str
    verdict: str
    log_e_refute: float | None
    log_e_holds: float | None
    how: str


def run_evalue(result) -> RunEvalue:
    """Where the e-value of ``result`` lives (see the module docstring; each result class says,
    :meth:`~.results.Result.e_values`), or why it has none."""
    g = result.guarantee
    if g not in ("anytime-valid", "exact"):
        why = {"asymptotic": "asymptotic verdict: no finite-sample e-value",
               "search": "search verdict: not a sampling statement",
               "deterministic": "deterministic computation: not a sampling statement",
               "estimate": "numerical estimate: not a sampling statement"}.get(
            g, f"guarantee {g!r}: no e-value")
        return RunEvalue(result.claim, result.verdict, None, None, why)
    lr, lh, how = result.e_values()
    if lr is None or lh is None:
        return RunEvalue(result.claim, result.verdict, None, None, how)
    return RunEvalue(result.claim, result.verdict, float(lr), float(lh), how)


@dataclass(frozen=True)
class Multiplicity:
    """e-BH and Bonferroni over a run (both directions) and who is outside the family."""

    alpha: float
    family: tuple                      # RunEvalue of the K results with e-values
    excluded: tuple                    # RunEvalue of the rest (reason in .how)
    refuted: tuple                     # claims refuted by the engine that are in the family
    refuted_fdr: tuple                 # of those, the ones e-BH rejects (FDR ≤ α)
    refuted_fwer: tuple                # of those, Bonferroni e ≥ K/α (FWER ≤ α)
    holds: tuple
    holds_fdr: tuple
    holds_fwer: tuple
    refuted_outside: tuple = field(default=())     # refutations not in the family (no e-value)

    @property
    def K(self) -> int:
        return len(self.family)

    def to_dict(self) -> dict:
        return {"alpha": self.alpha, "K": self.K, "method": "e-BH (Wang & Ramdas 2022)",
                "refuted": list(self.refuted), "refuted_fdr": list(self.refuted_fdr),
                "refuted_fwer": list(self.refuted_fwer), "holds": list(self.holds),
                "holds_fdr": list(self.holds_fdr), "holds_fwer": list(self.holds_fwer),
                "refuted_outside": list(self.refuted_outside),
                "excluded": {e.claim: e.how for e in self.excluded},
                "log_e": {e.claim: {"refute": e.log_e_refute, "holds": e.log_e_holds} for e in self.family}}


def run_multiplicity(results, alpha: float) -> Multiplicity:
    """e-BH at ``alpha`` over the e-values of ``results`` (one family for
    refutations — null "the claim holds" — and one for "holds" verdicts), and
    Bonferroni (``e ≥ K/α``) as the family-wise reading.  A claim counts as a
    surviving refutation only if the engine refuted it *and* e-BH rejects its
    null: e-BH may reject a null whose claim the engine left inconclusive (its
    e-value is below the engine's ``2/α`` only when ``K/(α k*) < 2/α``); those
    are not reported as refutations."""
    a = _check_alpha(alpha)
    evs = [run_evalue(r) for r in results]
    fam = tuple(e for e in evs if e.log_e_refute is not None)
    out = tuple(e for e in evs if e.log_e_refute is None)
    rej_r = set(e_bh([e.log_e_refute for e in fam], a, log=True)) if fam else set()
    rej_h = set(e_bh([e.log_e_holds for e in fam], a, log=True)) if fam else set()
    bon_r = set(bonferroni([e.log_e_refute for e in fam], a, log=True)) if fam else set()
    bon_h = set(bonferroni([e.log_e_holds for e in fam], a, log=True)) if fam else set()

    def pick(verdict, chosen):
        return tuple(e.claim for i, e in enumerate(fam) if e.verdict == verdict and (chosen is None or i in chosen))

    return Multiplicity(alpha=a, family=fam, excluded=out,
                        refuted=pick("refuted", None), refuted_fdr=pick("refuted", rej_r),
                        refuted_fwer=pick("refuted", bon_r),
                        holds=pick("holds", None), holds_fdr=pick("holds", rej_h),
                        holds_fwer=pick("holds", bon_h),
                        refuted_outside=tuple(e.claim for e in out if e.verdict == "refuted"))


def _names(ids, limit: int = 12) -> str:
    ids = list(ids)
    if not ids:
        return "none"
    head = ", ".join(ids[:limit])
    return head + (f", … ({len(ids) - limit} more)" if len(ids) > limit else "")


def fdr_statement(m: Multiplicity) -> list[str]:
    """The report's and the CLI's sentences on multiplicity (plain text, one per line)."""
    K, a = m.K, m.alpha
    reasons: dict[str, int] = {}
    for e in m.excluded:
        reasons[e.how] = reasons.get(e.how, 0) + 1
    lines = [
        f"Multiplicity: each verdict is wrong with probability ≤ α = {a:g} on its own; across this run "
        f"{K} statistical verdict(s) carry an e-value (probability: mixture likelihood ratio; comparison "
        f"with declared bounds: betting capital at the stopping time; with a declared variance bound: "
        f"Catoni-style supermartingale).",
        f"FDR ≤ {a:g} across the run (e-BH, Wang & Ramdas 2022, JRSS-B 84, valid under any dependence): "
        f"{len(m.refuted_fdr)} of {len(m.refuted)} refutation(s) survive: {_names(m.refuted_fdr)}"
        + (f"; not surviving: {_names([c for c in m.refuted if c not in m.refuted_fdr])}"
           if len(m.refuted_fdr) < len(m.refuted) else "") + ".",
        f"Family-wise reading (Bonferroni over the K = {K}: e ≥ K/α = {K / a:.3g}, P(any false "
        f"refutation) ≤ {a:g}): {len(m.refuted_fwer)} of {len(m.refuted)} refutation(s) survive: "
        f"{_names(m.refuted_fwer)}.",
        f"'holds' verdicts under the same rules: {len(m.holds_fdr)} of {len(m.holds)} survive FDR ≤ {a:g}, "
        f"{len(m.holds_fwer)} survive the family-wise reading.",
    ]
    if m.excluded:
        why = "; ".join(f"{n} {how}" for how, n in sorted(reasons.items(), key=lambda kv: -kv[1]))
        lines.append(f"Outside the family ({len(m.excluded)}): {why}. "
                     + (f"Refutations among them, not covered by the FDR statement: "
                        f"{_names(m.refuted_outside)}." if m.refuted_outside else
                        "No refutation is among them."))
    return lines
