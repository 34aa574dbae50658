"""Headline findings of the training–inference mismatch topic (``docs/theory/mismatch.md``).

Sentence templates bound to claims (:class:`proofs_check.engine.Finding`); the
numbers come from the run's results through the ``values`` functions below.

* ``mismatch.bounds_tightness`` — every trust-region bound of the TRM paper
  against the worst-case reward, searched over policy pairs of four generators
  (theory ``#bounds``): the largest ratio ``|Error| / bound`` found, i.e. how
  tight the tightest bound gets.
* ``mismatch.t_squared_remainder`` — the horizon (theory ``#horizon``): a
  near-one-hot pair makes the worst-case remainder grow like ``T²`` (exactly
  ``T(T−1)ε²``), a balanced i.i.d. tilt like ``T``; the classical bound's own
  exponent beside them.
"""
from __future__ import annotations

from statistics import median

from proofs_check.engine import Finding, fmt_against, register_finding

from ..policies import GENERATORS
from .bounds import BOUND_KEYS

__all__ = ["BOUNDS_TIGHTNESS", "T_SQUARED_REMAINDER"]

_BOUND_CLAIMS = tuple(f"mismatch.bound.{k}.{g}" for k in BOUND_KEYS for g in GENERATORS)


def _tightness(r):
    rows = [(x.worst_ratio, x.params["key"], x.params["generator"], x.verdict) for x in r.values()]
    worst = max(rows)
    refuted = [row for row in rows if row[3] == "refuted"]
    v = {"n": len(rows), "n_keys": len({row[1] for row in rows}), "n_gens": len({row[2] for row in rows}),
         "ratio": worst[0], "key": worst[1], "gen": worst[2], "median": median(row[0] for row in rows),
         "evals": sum(x.evaluations for x in r.values())}
    if refuted:
        w = max(refuted)
        return {**v, "case": "refuted", "n_refuted": len(refuted), "ratio": w[0], "key": w[1], "gen": w[2],
                "ratio_text": _ratio_text(w[0])}
    return {**v, "case": "holds", "ratio_text": _ratio_text(worst[0])}


def _ratio_text(ratio: float) -> str:
    """The ratio with digits enough to keep it on its side of ½, the "never more than half tight"
    line of the figure: 0.49999555 prints 0.499996, never 0.500 (``fmt_against``)."""
    return fmt_against(ratio, 0.5)


BOUNDS_TIGHTNESS = register_finding(Finding(
    id="mismatch.bounds_tightness",
    title="TRM trust-region bounds: valid, and never tight",
    claims=_BOUND_CLAIMS,
    sentences={
        "holds": ("All {n_keys} trust-region bounds hold on the {n_gens} policy-pair generators ({n} claims, "
                  "{evals} pairs searched for the worst reward), and none is tight: the largest "
                  "|Error| / bound found is {ratio_text} ({key} bound, {gen} pairs), the median over the "
                  "{n} cases {median:.2g}."),
        "refuted": ("{n_refuted} of {n} bound × generator cases are violated: the worst |Error| / bound found "
                    "is {ratio_text} ({key} bound, {gen} pairs)."),
    },
    values=_tightness,
    figures=("mismatch_tightness",),
    order=20,
))


def _how(s, digits=3) -> str:
    """How the exponent was obtained: an exact fit to a deterministic curve, or its interval."""
    if s.deterministic or not s.exponent_ci:
        return "a fit to an exact, deterministic curve"
    lo, hi = s.exponent_ci
    return f"interval [{lo:.{digits}f}, {hi:.{digits}f}]"


def _remainder(r):
    nd, iid, cl = (r["mismatch.scaling.near_deterministic_tilt"], r["mismatch.scaling.iid_tilt_remainder"],
                   r["mismatch.scaling.classical_bound"])
    return {"a": nd.exponent, "a_how": _how(nd), "T_lo": min(nd.x), "T_hi": max(nd.x),
            "b": iid.exponent, "b_how": _how(iid), "c": cl.exponent}


T_SQUARED_REMAINDER = register_finding(Finding(
    id="mismatch.t_squared_remainder",
    title="Mismatch remainder: T² for a near-one-hot pair",
    claims=("mismatch.scaling.near_deterministic_tilt", "mismatch.scaling.iid_tilt_remainder",
            "mismatch.scaling.classical_bound"),
    sentences={
        "holds": ("A near-one-hot policy pair makes the worst-case remainder |J(π) − J(μ) − L'(π)| grow like "
                  "T^{a:.3f} over T = {T_lo:g}…{T_hi:g} ({a_how}) — the T² of the classical "
                  "bound (its own exponent {c:.3f}), so the T² cannot be improved in general — while a "
                  "balanced i.i.d. tilt grows only like T^{b:.3f} ({b_how})."),
        "refuted": ("The near-one-hot pair's worst-case remainder grows like T^{a:.3f} over T = "
                    "{T_lo:g}…{T_hi:g} ({a_how}), outside the T² window; the balanced i.i.d. tilt like "
                    "T^{b:.3f}; the classical bound like T^{c:.3f}."),
    },
    values=_remainder,
    figures=("mismatch_horizon",),
    order=21,
))
