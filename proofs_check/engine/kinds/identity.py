"""Identity claims: ``lhs(θ) = rhs(θ)`` to a tolerance (``docs/theory/engine.md`` §1–2).

* user function: ``fn(rng, n) -> (lhs, rhs)`` arrays over ``n`` random cases
  (``(lhs, rhs, scale)`` with ``tol_mode="scale"``); optional ``proof()``, a
  symbolic proof;
* chunk statistics: ``[cases, max_abs, max_scaled]``;
* decision: refuted when a scaled error exceeds ``tol``; otherwise holds
  (guarantee ``"exact"`` with a successful proof, else ``"search"``), or
  inconclusive when the proof fails although every case agreed.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable, ClassVar

import numpy as np

from ..claims import Claim
from ..results import Result, fmt, summary_number

__all__ = ["IdentityClaim", "IdentityResult", "identity_stats"]

TOL_MODES = ("absolute", "relative", "mixed", "scale")


def identity_stats(tol_mode, out, n):
    """``[cases, max_abs, max_scaled]`` from what ``fn(rng, n)`` returned."""
    if tol_mode == "scale":
        if not (isinstance(out, tuple) and len(out) == 3):
            raise ValueError("identity evaluator with tol_mode='scale' must return (lhs, rhs, scale)")
        lhs, rhs, scale = out
    else:
        if not (isinstance(out, tuple) and len(out) == 2):
            raise ValueError(f"identity evaluator with tol_mode={tol_mode!r} must return (lhs, rhs)")
        lhs, rhs = out
        scale = None
    lhs = np.asarray(lhs, dtype=float).ravel()
    rhs = np.asarray(rhs, dtype=float).ravel()
    if lhs.shape != rhs.shape:
        raise ValueError(f"identity evaluator returned lhs {lhs.shape} and rhs {rhs.shape}")
    if not (np.all(np.isfinite(lhs)) and np.all(np.isfinite(rhs))):
        return [int(lhs.size), math.inf, math.inf]
    err = np.abs(lhs - rhs)
    if tol_mode == "absolute":
        scaled = err
    elif tol_mode == "relative":
        scaled = err / np.maximum(np.maximum(np.abs(lhs), np.abs(rhs)), np.finfo(float).tiny)
    elif tol_mode == "scale":
        scale = np.broadcast_to(np.asarray(scale, dtype=float).ravel(), lhs.shape)
        if not np.all(np.isfinite(scale) & (scale > 0)):
            raise ValueError("identity evaluator returned a scale that is not finite and > 0")
        scaled = err / scale
    else:  # mixed
        scaled = err / np.maximum(1.0, np.maximum(np.abs(lhs), np.abs(rhs)))
    return [int(lhs.size), float(err.max(initial=0.0)), float(scaled.max(initial=0.0))]


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and not math.isnan(x)


@dataclass(frozen=True, kw_only=True)
class IdentityClaim(Claim):
    """``lhs(θ) = rhs(θ)`` on a domain, to a tolerance.

    ``fn(rng, n)`` evaluates ``n`` random cases and returns ``(lhs, rhs)``
    arrays.  The error of a case is ``|lhs − rhs|`` scaled according to
    ``tol_mode``: ``"absolute"`` (unscaled), ``"relative"`` (divided by
    ``max(|lhs|, |rhs|)``), ``"mixed"`` (divided by ``max(1, |lhs|, |rhs|)``)
    or ``"scale"``: ``fn`` returns ``(lhs, rhs, scale)`` and the error is
    divided by ``scale`` — for identities accumulated over ``m`` terms use
    ``scale = m·max|term|`` (floating-point summation error is at most
    ``(m − 1)·ε·Σ|term|``), so a tolerance of a few ``ε`` holds at every size.
    ``proof`` is an optional zero-argument callable returning ``True`` when a
    symbolic (sympy) proof of the identity succeeds; guarantee ``"exact"``.
    """

    kind: ClassVar[str] = "identity"
    _callables: ClassVar[tuple[str, ...]] = ("fn",)
    fn: Callable[[np.random.Generator, int], tuple] | None = None
    tol: float = 1e-12
    tol_mode: str = "mixed"
    proof: Callable[[], bool] | None = None
    chunk_size: int = 100
    default_budget: int = 1_000
    quick_budget: int = 200

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.tol_mode not in TOL_MODES:
            raise ValueError(f"claim {self.id}: tol_mode must be absolute/relative/mixed/scale, "
                             f"got {self.tol_mode!r}")
        if not self.tol > 0:
            raise ValueError(f"claim {self.id}: tol must be > 0, got {self.tol!r}")

    def _fingerprint_extra(self) -> dict:
        return {"tol": self.tol, "tol_mode": self.tol_mode}

    def stats_function(self):
        return functools.partial(identity_stats, self.tol_mode)

    @staticmethod
    def check_stats(stats, chunk_size):
        if len(stats) != 3 or not isinstance(stats[0], int) or stats[0] < 1 \
                or not all(_number(v) and v >= 0 for v in stats[1:]):
            return "identity statistics are [cases ≥ 1, max_abs ≥ 0, max_scaled ≥ 0]"
        return None

    def decision_method(self, method):
        return "search"

    def decide(self, prefix, alpha, method, n_chunks, common):
        cases = int(sum(s[0] for s in prefix))
        max_abs = max(float(s[1]) for s in prefix)
        max_scaled = max(float(s[2]) for s in prefix)
        proved = None if self.proof is None else bool(self.proof())
        warnings = []
        if not max_scaled <= self.tol:
            verdict = "refuted"
        elif proved is False:
            verdict = "inconclusive"
            warnings.append("the symbolic proof failed although every numerical case agreed")
        else:
            verdict = "holds"
        guarantee = "exact" if proved else "search"
        return IdentityResult(**common, verdict=verdict, elapsed_s=0.0, guarantee=guarantee,
                              warnings=tuple(warnings), cases=cases, max_abs_error=max_abs,
                              max_scaled_error=max_scaled, tol=self.tol, tol_mode=self.tol_mode,
                              proved=proved)


@dataclass(frozen=True, kw_only=True, repr=False)
class IdentityResult(Result, kind="identity"):
    """``lhs = rhs``: worst errors over the cases, and the symbolic proof."""

    unit: ClassVar[str] = "cases"

    cases: int
    max_abs_error: float
    max_scaled_error: float
    tol: float
    tol_mode: str
    proved: bool | None

    def summary(self) -> str:
        n = summary_number
        proof = {True: ", sympy proof ok", False: ", sympy proof FAILED", None: ""}[self.proved]
        err = f"max err {n(self.max_abs_error)} ({self.tol_mode} {n(self.max_scaled_error)} vs tol {self.tol:g})"
        if self.verdict == "holds" and not self.proved:
            return f"no violation found in {self.cases} cases; {err}"
        return f"{err} over {self.cases} cases{proof}"

    def headline(self) -> str:
        return (f"max error = {fmt(self.max_abs_error)} ({self.tol_mode} {fmt(self.max_scaled_error)} vs tol "
                f"{fmt(self.tol)}) over {self.cases} cases")

    def slack(self):
        return [f"max error / tolerance = {fmt(self.max_scaled_error / self.tol, 3)}"
                + {True: "; sympy proof succeeded", False: "; sympy proof FAILED", None: ""}[self.proved]]

    def settle_advice(self):
        if self.verdict != "inconclusive":
            return None
        return ("method, not budget: every numerical case agreed but the symbolic (sympy) proof failed; "
                "inspect the proof — a simplification sympy cannot do, or a discrepancy outside the "
                "sampled domain")
