"""Frozen result objects, one per claim kind, each with ``to_dict()``."""
from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from typing import Any, Mapping

from .claims import to_jsonable

__all__ = ["VERDICTS", "GUARANTEES", "Result", "ProbabilityResult", "IdentityResult", "InequalityResult",
           "ScalingResult", "ComparisonResult"]

VERDICTS = ("holds", "refuted", "inconclusive")

#: What a verdict guarantees (printed with every result):
GUARANTEES = {
    "exact": "exact: an exact interval at a fixed budget (wrong with probability ≤ α), "
             "a symbolic proof, or a counterexample confirmed in high precision",
    "anytime-valid": "anytime-valid: wrong with probability ≤ α at any stopping time, "
                     "for any distribution the claim's assumptions allow",
    "asymptotic": "asymptotic: error ≈ α for large samples only; no finite-sample guarantee",
    "search": "search: no violation found in the evaluations made — not a proof",
    "deterministic": "deterministic: an exact computation on a finite grid; no sampling error, "
                     "the verdict says what the grid shows",
}


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
    guarantee: str = ""
    warnings: tuple = ()
    role: str = "statement"
    expected: str | None = None

    @property
    def as_expected(self) -> bool | None:
        """``True``/``False`` when the claim has an expected verdict, else ``None``."""
        return None if self.expected is None else self.verdict == self.expected

    def to_dict(self) -> dict:
        """Plain-JSON dict (``claim``, ``kind``, ``verdict``, ... first)."""
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["as_expected"] = self.as_expected
        return to_jsonable(d)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=False)

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> "Result":
        """The result a :meth:`to_dict` produced (e.g. a line of ``results.jsonl``),
        of the class its ``kind`` names; unknown keys are refused."""
        if not isinstance(d, Mapping) or "kind" not in d:
            raise ValueError("a result dict needs a 'kind'")
        cls = _RESULT_CLASSES.get(d["kind"])
        if cls is None:
            raise ValueError(f"unknown result kind {d['kind']!r}")
        names = {f.name: f for f in dataclasses.fields(cls)}
        extra = set(d) - set(names) - {"as_expected"}
        if extra:
            raise ValueError(f"unknown fields for a {d['kind']} result: {sorted(extra)}")
        kw = {}
        for name, value in d.items():
            if name == "as_expected":
                continue
            if isinstance(value, str) and value in ("nan", "inf", "-inf"):
                value = float(value)
            if isinstance(value, list) and name not in ("worst_point",):
                value = tuple(float(v) if isinstance(v, str) and v in ("nan", "inf", "-inf") else v
                              for v in value)
            kw[name] = value
        return cls(**kw)

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
    """``P(event) ≤ delta``: counts, estimate, interval, e-values.

    ``ci`` is the anytime-valid confidence sequence at the stopping time
    (``method="anytime"``) or the exact Clopper–Pearson interval
    (``method="fixed"``), both at level ``1 − α``."""

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
        more = ""
        if self.further_trials:
            more = (f"; ~{self.further_trials} more trials (--resume --budget) would likely settle it"
                    if self.method == "anytime" else
                    f"; a fresh --fixed run (new seed) of ~{self.trials + self.further_trials} trials "
                    f"would likely settle it")
        what = "CS" if self.method == "anytime" else "CI"
        return (f"p̂={_fmt(self.p_hat)} {what}[{_fmt(self.ci[0])}, {_fmt(self.ci[1])}] vs δ={_fmt(self.delta)}"
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
        err = f"max err {_fmt(self.max_abs_error)} ({self.tol_mode} {_fmt(self.max_scaled_error)} vs tol {self.tol:g})"
        if self.verdict == "holds" and not self.proved:
            return f"no violation found in {self.cases} cases; {err}"
        return f"{err} over {self.cases} cases{proof}"


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

    worst_margin: float = math.nan
    artefacts: int = 0

    def summary(self) -> str:
        tight = (f"max lhs/rhs={_fmt(self.worst_ratio)}" if math.isfinite(self.worst_ratio)
                 else f"max lhs−rhs={_fmt(self.worst_margin)}")
        if self.verdict == "holds":
            return f"no violation found in {self.evaluations} evaluations; {tight}"
        return f"{tight} over {self.evaluations} evaluations ({self.confirmed_by})"


@dataclass(frozen=True, kw_only=True, repr=False)
class ScalingResult(Result):
    """``y ∝ x^a``: the fitted exponent, its interval and the data."""

    x: tuple
    y_mean: tuple
    y_se: tuple
    replicates: int
    exponent: float
    exponent_ci: tuple[float, float] | None
    exponent_lo: float
    exponent_hi: float
    deterministic: bool = False
    local_exponents: tuple = ()

    def summary(self) -> str:
        window = f"[{_fmt(self.exponent_lo)}, {_fmt(self.exponent_hi)}]"
        if self.deterministic:
            local = (f"; local slopes {_fmt(min(self.local_exponents))}…{_fmt(max(self.local_exponents))}"
                     if self.local_exponents else "")
            return f"exponent {_fmt(self.exponent)} (exact fit over the grid{local}) vs {window}"
        ci = self.exponent_ci
        return (f"exponent {_fmt(self.exponent)} CI[{_fmt(ci[0])}, {_fmt(ci[1])}]"
                f" vs {window} ({self.replicates} replicates)")


@dataclass(frozen=True, kw_only=True, repr=False)
class ComparisonResult(Result):
    """Paired comparison: mean difference and its interval (a betting
    confidence sequence with declared bounds, else Hall's interval)."""

    n: int
    mean_diff: float
    ci: tuple[float, float]
    threshold: float
    alternative: str
    sd: float = math.nan
    skewness: float = math.nan
    bounds: tuple | None = None
    method: str = ""

    def summary(self) -> str:
        op = "<" if self.alternative == "less" else ">"
        what = "CS" if self.method == "betting" else "CI"
        return (f"mean diff {_fmt(self.mean_diff)} {what}[{_fmt(self.ci[0])}, {_fmt(self.ci[1])}] "
                f"{op} {self.threshold:g}? (n={self.n})")


_RESULT_CLASSES = {"probability": ProbabilityResult, "identity": IdentityResult,
                   "inequality": InequalityResult, "scaling": ScalingResult,
                   "comparison": ComparisonResult}
