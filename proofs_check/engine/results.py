"""Frozen result objects, one per claim kind, each with ``to_dict()``."""
from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from typing import Any, Mapping

from .claims import to_jsonable

__all__ = ["VERDICTS", "Result", "ProbabilityResult", "IdentityResult", "InequalityResult",
           "ScalingResult", "ComparisonResult"]

VERDICTS = ("holds", "refuted", "inconclusive")


@dataclass(frozen=True, kw_only=True, repr=False)
class Result:
    """Fields every verdict carries."""

    claim: str
    kind: str
    verdict: str
    statement: str
    source: str
    label: str
    seed: int
    alpha: float
    budget: int
    chunks: int
    elapsed_s: float
    params: Mapping[str, Any]
    notes: str = ""

    def to_dict(self) -> dict:
        """Plain-JSON dict (``claim``, ``kind``, ``verdict``, ... first)."""
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return to_jsonable(d)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=False)

    def summary(self) -> str:
        """The headline number with its uncertainty, for tables."""
        return ""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.claim}: {self.verdict}; {self.summary()}; seed={self.seed})"


def _fmt(x: float) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "nan"
    return f"{x:.4g}"


@dataclass(frozen=True, kw_only=True, repr=False)
class ProbabilityResult(Result):
    """``P(event) ≤ delta``: counts, estimate, exact interval, e-values."""

    trials: int
    events: int
    p_hat: float
    ci: tuple[float, float]
    delta: float
    method: str
    stopped_early: bool
    log_e_below: float
    log_e_above: float
    further_trials: int | None

    def proportion_ci(self) -> tuple[float, float]:
        return self.ci

    def summary(self) -> str:
        more = f"; ~{self.further_trials} more trials would likely settle it" if self.further_trials else ""
        return (f"p̂={_fmt(self.p_hat)} CI[{_fmt(self.ci[0])}, {_fmt(self.ci[1])}] vs δ={_fmt(self.delta)}"
                f" ({self.events}/{self.trials}){more}")


@dataclass(frozen=True, kw_only=True, repr=False)
class IdentityResult(Result):
    """``lhs = rhs``: worst errors over the cases, and the symbolic proof."""

    cases: int
    max_abs_error: float
    max_scaled_error: float
    tol: float
    tol_mode: str
    proved: bool | None

    def summary(self) -> str:
        proof = {True: ", sympy proof ok", False: ", sympy proof FAILED", None: ""}[self.proved]
        return f"max err {_fmt(self.max_abs_error)} ({self.tol_mode} {_fmt(self.max_scaled_error)} ≤ {self.tol:g}?) over {self.cases} cases{proof}"


@dataclass(frozen=True, kw_only=True, repr=False)
class InequalityResult(Result):
    """``lhs ≤ rhs``: the tightest point found and how it was confirmed."""

    evaluations: int
    worst_ratio: float
    worst_lhs: float
    worst_rhs: float
    worst_point: Any
    nonfinite: int
    confirmed_by: str

    def summary(self) -> str:
        return f"max lhs/rhs={_fmt(self.worst_ratio)} over {self.evaluations} evaluations"


@dataclass(frozen=True, kw_only=True, repr=False)
class ScalingResult(Result):
    """``y ∝ x^a``: the fitted exponent, its interval and the data."""

    x: tuple
    y_mean: tuple
    y_se: tuple
    replicates: int
    exponent: float
    exponent_ci: tuple[float, float]
    exponent_lo: float
    exponent_hi: float

    def summary(self) -> str:
        return (f"exponent {_fmt(self.exponent)} CI[{_fmt(self.exponent_ci[0])}, {_fmt(self.exponent_ci[1])}]"
                f" vs [{_fmt(self.exponent_lo)}, {_fmt(self.exponent_hi)}] ({self.replicates} replicates)")


@dataclass(frozen=True, kw_only=True, repr=False)
class ComparisonResult(Result):
    """Paired comparison: mean difference and its t-interval."""

    n: int
    mean_diff: float
    ci: tuple[float, float]
    threshold: float
    alternative: str

    def summary(self) -> str:
        op = "<" if self.alternative == "less" else ">"
        return f"mean diff {_fmt(self.mean_diff)} CI[{_fmt(self.ci[0])}, {_fmt(self.ci[1])}] {op} {self.threshold:g}? (n={self.n})"
