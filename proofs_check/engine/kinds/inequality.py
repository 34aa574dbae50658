"""Inequality claims: ``lhs(θ) ≤ rhs(θ)`` for all θ, by worst-case search
(``docs/theory/engine.md`` §1, §4).

* user functions: ``sample(rng) -> θ``, ``evaluate(θ) -> (lhs, rhs)``, and
  optionally ``project``, ``evaluate_mp`` (50-digit confirmation),
  ``describe_point``, ``default_point``/``coordinates``/``simplify`` (shrinking);
* chunk statistics: ``[evals, nonfinite, artefacts, status, score, lhs, rhs,
  *θ]`` of the chunk's search (:func:`..search.search_chunk`);
* decision: refuted by a violation (guarantee ``"exact"`` when confirmed in
  mpmath, ``"search"`` in float64 only), else holds (guarantee ``"search"``,
  or ``"deterministic"`` when the search was exhaustive: ``deterministic=True``
  and the domain is one point, checked in :meth:`InequalityClaim.finish`);
  NaN/inf evaluations (float64 or mpmath) make a "holds" inconclusive.  A
  confirmed counterexample is shrunk to a readable one (:mod:`..shrink`) when
  the claim gives ``default_point``.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Sequence

import numpy as np

from ..claims import Claim
from ..results import Result, fmt, summary_number
from ..search import STATUS, search_chunk
from ..shrink import shrink_result

__all__ = ["InequalityClaim", "InequalityResult", "DETERMINISTIC_DRAWS"]

#: Fresh draws of ``sample`` that must all equal the evaluated point for a ``deterministic`` verdict.
DETERMINISTIC_DRAWS = 16


@dataclass(frozen=True, kw_only=True)
class InequalityClaim(Claim):
    """``lhs(θ) ≤ rhs(θ)`` for all θ in a domain; decided by worst-case search.

    ``sample(rng) -> θ`` draws a point of the domain as a flat float array;
    ``evaluate(θ) -> (lhs, rhs)`` returns the two sides *as they are* (no
    allowance subtracted); optional ``project(θ) -> θ`` maps a perturbed point
    back into the domain; optional ``evaluate_mp(θ)`` returns ``(lhs, rhs)`` as
    ``mpmath`` numbers: every float64 violation met during the search is
    re-evaluated with it at 50 digits, and one it rejects is a rounding
    artefact that the search moves past.  ``describe_point(θ) -> dict`` may
    render the worst point for humans.

    A point violates the claim when ``lhs − rhs > atol + rtol·|rhs|`` (a signed
    margin: ``rhs ≤ 0`` is allowed).  ``atol`` and ``rtol`` are the allowance
    for floating-point error of the search only (a proof is about the
    certifier's statement, see ``certifier``); keep them as small as the
    arithmetic justifies.  The search climbs a signed margin (:func:`..search.score`:
    relative to ``|rhs|``, or in the units of the sides where ``rhs ≡ 0``);
    the worst point's ``lhs/rhs`` is reported where ``rhs > 0`` and its margin
    ``lhs − rhs`` always.  A "holds" verdict has guarantee ``"search"``: no
    violation was found in the evaluations made.
    """

    kind: ClassVar[str] = "inequality"
    _callables: ClassVar[tuple[str, ...]] = ("sample", "evaluate", "project", "evaluate_mp")
    sample: Callable[[np.random.Generator], np.ndarray]
    evaluate: Callable[[np.ndarray], tuple]
    project: Callable[[np.ndarray], np.ndarray] | None = None
    evaluate_mp: Callable[[np.ndarray], tuple] | None = None
    describe_point: Callable[[np.ndarray], dict] | None = None
    #: Shrinking (:mod:`..shrink`): the point coordinates move to (a confirmed
    #: counterexample is shrunk only when this is given), their names, and
    #: ``simplify(θ) -> [θ', ...]`` domain-specific simpler points (e.g. of smaller dimension).
    default_point: Sequence[float] | None = None
    coordinates: Sequence[str] | None = None
    #: ``True`` when the two sides are exactly computed quantities and the domain is one point
    #: (``sample`` always returns the same θ, e.g. a dynamic program's value): one evaluation
    #: is then exhaustive and a verdict "holds" is ``deterministic`` (what the computation
    #: shows).  :meth:`finish` checks the one-point domain (:data:`DETERMINISTIC_DRAWS` draws of
    #: ``sample``); a sampler that moves makes the verdict ``search``, with a warning.
    deterministic: bool = False
    #: What a one-point (``deterministic=True``) evaluation rests on when its sides are not
    #: computed exactly: ``("estimate", why)`` — a numerical approximation whose error is
    #: estimated, not bounded (a dynamic program on a grid): guarantee ``"estimate"``, warned on
    #: every result and not settled for ``--fail-on``; ``("exact", why)`` — a seeded simulation
    #: read through an exact interval at the level ``why`` states: guarantee ``"exact"``, warned.
    #: ``None``: the sides are computed exactly (guarantee ``"deterministic"``).
    basis: tuple[str, str] | None = None
    simplify: Callable[[np.ndarray], list] | None = None
    #: ``certifier() -> Certificate`` (:class:`..certify.Certifier`): after a "holds" search,
    #: ball arithmetic on the claim's box upgrades it to ``proved``, refutes it, or names the
    #: uncertified region (:func:`..certify.upgrade`).  It carries its own allowance — the one
    #: the claim *declares* (``proofs_check.declare.inequality``: 0 unless ``atol``/``rtol`` is
    #: passed), never the search's rounding allowance ``atol``/``rtol`` below — and its own
    #: premises (``premise_failure``, e.g. an ``arb=`` twin checked against the callables).
    certifier: Callable[[], Any] | None = None
    step: float = 0.3
    random_fraction: float = 0.5
    atol: float = 0.0
    rtol: float = 1e-9
    chunk_size: int = 200
    default_budget: int = 4_000
    quick_budget: int = 400

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("atol", "rtol"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not (0.0 <= v < math.inf):
                raise ValueError(f"claim {self.id}: {name} must be a finite number ≥ 0, got {v!r}")
        if not (0.0 < self.random_fraction <= 1.0):
            raise ValueError(f"claim {self.id}: random_fraction must lie in (0, 1], got {self.random_fraction!r}")
        if self.basis is not None:
            b = self.basis
            if (not isinstance(b, tuple) or len(b) != 2 or b[0] not in ("estimate", "exact")
                    or not isinstance(b[1], str) or not b[1].strip()):
                raise ValueError(f"claim {self.id}: basis must be ('estimate', why) or ('exact', why) "
                                 f"with a non-empty reason, got {b!r}")
            if not self.deterministic:
                raise ValueError(f"claim {self.id}: basis describes a one-point evaluation; it needs "
                                 "deterministic=True")
        if not (self.step > 0):
            raise ValueError(f"claim {self.id}: step must be > 0, got {self.step!r}")
        if self.coordinates is not None and self.default_point is not None \
                and len(self.coordinates) != len(self.default_point):
            raise ValueError(f"claim {self.id}: coordinates names {len(self.coordinates)} coordinates, "
                             f"default_point has {len(self.default_point)}")

    def _fingerprint_extra(self) -> dict:
        return {"step": self.step, "random_fraction": self.random_fraction,
                "atol": float(self.atol), "rtol": float(self.rtol)}

    def chunk_task(self):
        return functools.partial(search_chunk, self.sample, self.evaluate, self.project,
                                 self.evaluate_mp, float(self.step), float(self.random_fraction),
                                 float(self.atol), float(self.rtol))

    @staticmethod
    def check_stats(stats, chunk_size):
        if len(stats) < 7 or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                     for v in stats[:3]) or stats[3] not in (0, 1, 2) \
                or stats[0] < 1 or stats[1] > stats[0] or stats[2] > stats[0]:
            return "inequality statistics are [evals ≥ 1, nonfinite, artefacts, status 0/1/2, score, lhs, rhs, θ…]"
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in stats[4:]):
            return "inequality score, sides and point must be numbers"
        return None

    def decision_method(self, method):
        return "search"

    def decide(self, prefix, alpha, method, n_chunks, common):
        evals = int(sum(s[0] for s in prefix))
        nonfinite = int(sum(s[1] for s in prefix))
        artefacts = int(sum(s[2] for s in prefix))
        # a confirmed counterexample beats any score; then the highest score
        best = max(prefix, key=lambda s: (int(s[3]) > 0, s[4] if not math.isnan(s[4]) else -math.inf))
        status, lhs, rhs = int(best[3]), float(best[5]), float(best[6])
        theta = np.asarray(best[7:], dtype=float)
        warnings = []
        if status == 2:
            verdict, guarantee = "refuted", "exact"
        elif status == 1:
            verdict, guarantee = "refuted", "search"
            rel = (lhs - rhs) / abs(rhs) if rhs != 0 else math.inf
            size = (f"at the worst point found lhs = {lhs:.3g} > rhs = 0" if rhs == 0 else
                    f"at the worst point found lhs exceeds rhs by {rel:.2g} of |rhs|, far above float64 "
                    "rounding (~1e-16) unless the sides cancel badly" if rel >= 1e-9 else
                    f"at the worst point found lhs exceeds rhs by only {rel:.2g} of |rhs|: it may well be a "
                    "rounding artefact")
            warnings.append(f"the counterexample is checked in float64 only: {size}. To confirm it at 50 "
                            "digits (guarantee exact), give the sides in mpmath — lhs_mp= and rhs_mp= in "
                            "tc.inequality (evaluate_mp for an InequalityClaim) — or as SymPy expressions")
        else:
            verdict, guarantee = "holds", "deterministic" if self.deterministic else "search"
        if self.basis is not None and status != 2:
            # the sides are an approximation or a seeded interval, not an exact computation: the
            # float64-artefact caveat is dwarfed by that, and the basis is said every time
            guarantee = self.basis[0]
            warnings = [("an estimate, not a bound: " if guarantee == "estimate" else
                         "a seeded simulation read through an exact interval: ") + self.basis[1]]
        if artefacts:
            warnings.append(f"{artefacts} float64 violation(s) were rejected by mpmath as rounding artefacts")
        if nonfinite:
            warnings.append(f"{nonfinite} evaluation(s) gave NaN/inf")
            if verdict == "holds":
                verdict = "inconclusive"
        ratio = lhs / rhs if rhs > 0 else math.nan
        point = self.describe_point(theta) if self.describe_point is not None and theta.size else theta.tolist()
        return InequalityResult(**common, verdict=verdict, elapsed_s=0.0, guarantee=guarantee,
                                warnings=tuple(warnings), evaluations=evals, worst_ratio=ratio,
                                worst_lhs=lhs, worst_rhs=rhs, worst_point=point, nonfinite=nonfinite,
                                confirmed_by=STATUS[status], worst_margin=lhs - rhs, artefacts=artefacts)

    def finish(self, result, prefix, seed):
        """A refuted verdict's counterexample shrunk to a readable one (with ``default_point``);
        a ``deterministic`` verdict kept only when the search was exhaustive (:meth:`exhaustive`)."""
        if result.verdict == "refuted" and self.default_point is not None:
            return shrink_result(self, result, prefix, seed)
        if self.certifier is not None and result.guarantee == "search":   # ball arithmetic (..certify)
            from ..certify import upgrade

            return upgrade(result, self.certifier)
        if result.guarantee == "deterministic" or (self.basis is not None and result.confirmed_by != STATUS[2]):
            why = self.exhaustive(prefix, seed)
            if why is not None:
                import dataclasses

                return dataclasses.replace(result, guarantee="search", warnings=result.warnings + (
                    f"deterministic=True, but {why}: the evaluations are a search, not an exhaustive "
                    "check (make the domain one point, or drop deterministic=True)",))
        return result

    def exhaustive(self, prefix, seed) -> str | None:
        """``None`` when the evaluations covered the whole domain: the domain is one point —
        :data:`DETERMINISTIC_DRAWS` fresh draws of ``sample`` are the same θ (the search's
        random phase evaluates at least one draw).  Else why not."""
        pts: set = set()
        rng = np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(2 ** 31 - 21,)))
        for _ in range(DETERMINISTIC_DRAWS):
            pts.add(tuple(np.asarray(self.sample(rng), dtype=float).ravel().tolist()))
            if len(pts) > 1:
                return "the sampler returns more than one point"
        return None


@dataclass(frozen=True, kw_only=True, repr=False)
class InequalityResult(Result, kind="inequality"):
    """``lhs ≤ rhs``: the tightest point found and how it was confirmed."""

    unit: ClassVar[str] = "evaluations"

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
        n = summary_number
        tight = (f"worst lhs/rhs={n(self.worst_ratio)}" if math.isfinite(self.worst_ratio)
                 else f"worst lhs−rhs={n(self.worst_margin)}")
        if self.verdict == "holds":
            return f"no violation found in {self.evaluations} evaluations; {tight}"
        return f"{tight} over {self.evaluations} evaluations ({self.confirmed_by})"

    def headline(self) -> str:
        if math.isfinite(self.worst_ratio):
            return f"worst point lhs/rhs = {fmt(self.worst_ratio)} over {self.evaluations} evaluations"
        return f"worst point lhs − rhs = {fmt(self.worst_margin)} over {self.evaluations} evaluations"

    def slack(self):
        if math.isfinite(self.worst_ratio):
            return [f"worst lhs/rhs = {fmt(self.worst_ratio)} (lhs = {fmt(self.worst_lhs)}, rhs = "
                    f"{fmt(self.worst_rhs)}); a ratio above 1 is a violation"]
        return [f"worst lhs − rhs = {fmt(self.worst_margin)} (lhs = {fmt(self.worst_lhs)}, rhs = "
                f"{fmt(self.worst_rhs)}); a positive margin is a violation"]

    def settle_advice(self):
        if self.verdict != "inconclusive":
            return None
        return (f"method, not budget: {self.nonfinite} evaluation(s) gave NaN/inf; restrict the sampler "
                f"to the claim's domain or give the claim an mpmath evaluator (evaluate_mp) for "
                f"those points — more evaluations would not settle it")
