"""The five kinds of claim (spec ``verification.md`` §1): what each decides and
which user functions it takes.  The fields every claim shares, and the table of
chunk statistics per kind, are in :mod:`.claims`."""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable, ClassVar, Sequence

import numpy as np

from .chunkstats import _comparison_stats, _identity_stats, _probability_stats, _scaling_stats
from .claims import Claim

__all__ = ["ProbabilityClaim", "IdentityClaim", "InequalityClaim", "ScalingClaim", "ComparisonClaim"]


@dataclass(frozen=True, kw_only=True)
class ProbabilityClaim(Claim):
    """``P(event) ≤ delta`` under a simulator.

    ``fn(rng, n)`` runs ``n`` independent trials and returns the integer number
    of trials in which the bad event happened.
    """

    kind: ClassVar[str] = "probability"
    _callables: ClassVar[tuple[str, ...]] = ("fn",)
    fn: Callable[[np.random.Generator, int], int] | None = None
    delta: float
    chunk_size: int = 10_000
    default_budget: int = 1_000_000
    quick_budget: int = 50_000

    def __post_init__(self) -> None:
        super().__post_init__()
        if not (0.0 < float(self.delta) < 1.0):
            raise ValueError(f"claim {self.id}: delta must lie in (0, 1), got {self.delta!r}")

    def _fingerprint_extra(self) -> dict:
        return {"delta": float(self.delta)}

    def stats_function(self):
        return _probability_stats


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
        if self.tol_mode not in ("absolute", "relative", "mixed", "scale"):
            raise ValueError(f"claim {self.id}: tol_mode must be absolute/relative/mixed/scale, "
                             f"got {self.tol_mode!r}")
        if not self.tol > 0:
            raise ValueError(f"claim {self.id}: tol must be > 0, got {self.tol!r}")

    def _fingerprint_extra(self) -> dict:
        return {"tol": self.tol, "tol_mode": self.tol_mode}

    def stats_function(self):
        return functools.partial(_identity_stats, self.tol_mode)


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
    for floating-point error only; keep them as small as the arithmetic
    justifies.  The tightness reported is ``max lhs/rhs`` where ``rhs > 0``
    and the margin ``lhs − rhs`` always.  A "holds" verdict has guarantee
    ``"search"``: no violation was found in the evaluations made.
    """

    kind: ClassVar[str] = "inequality"
    _callables: ClassVar[tuple[str, ...]] = ("sample", "evaluate", "project", "evaluate_mp")
    sample: Callable[[np.random.Generator], np.ndarray]
    evaluate: Callable[[np.ndarray], tuple]
    project: Callable[[np.ndarray], np.ndarray] | None = None
    evaluate_mp: Callable[[np.ndarray], tuple] | None = None
    describe_point: Callable[[np.ndarray], dict] | None = None
    #: Shrinking (:mod:`.shrink`): the point coordinates move to (a confirmed
    #: counterexample is shrunk only when this is given), their names, and
    #: ``simplify(θ) -> [θ', ...]`` domain-specific simpler points (e.g. of smaller dimension).
    default_point: Sequence[float] | None = None
    coordinates: Sequence[str] | None = None
    #: ``True`` when the two sides are exactly computed quantities that do not depend on the
    #: sampled point (e.g. a dynamic program's value): a verdict "holds" is then
    #: ``deterministic`` (what the computation shows), not ``search``.
    deterministic: bool = False
    simplify: Callable[[np.ndarray], list] | None = None
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
        from .search import search_chunk

        return functools.partial(search_chunk, self.sample, self.evaluate, self.project,
                                 self.evaluate_mp, float(self.step), float(self.random_fraction),
                                 float(self.atol), float(self.rtol))


@dataclass(frozen=True, kw_only=True)
class ScalingClaim(Claim):
    """A quantity grows like ``x**a`` with ``a`` in ``[exponent_lo, exponent_hi]``.

    ``x`` is the grid; ``fn(rng, n)`` returns an ``(n, len(x))`` array of ``n``
    independent replicates of the quantity on the grid.  Choose the grid to
    cover the asymptotic regime.

    * ``deterministic=True`` (an exactly computed quantity): one replicate is
      run whatever the budget; the exponent is the least-squares slope of
      ``log y`` on ``log x``; the verdict says whether it lies in the window,
      with no confidence interval (guarantee ``"deterministic"``).
    * random replicates (at least two are run): the exponent is the mean of
      the per-replicate log–log slopes, i.e. the slope of ``E log y``, with a
      Student-t interval over replicates (exact for Gaussian slopes, otherwise
      asymptotic; guarantee ``"asymptotic"``).  Replicates that come out
      identical are treated as deterministic, with a warning.
    """

    kind: ClassVar[str] = "scaling"
    _callables: ClassVar[tuple[str, ...]] = ("fn",)
    fn: Callable[[np.random.Generator, int], np.ndarray] | None = None
    x: Sequence[float]
    exponent_lo: float = -math.inf
    exponent_hi: float = math.inf
    deterministic: bool = False
    chunk_size: int = 1
    default_budget: int = 10
    quick_budget: int = 3

    def __post_init__(self) -> None:
        super().__post_init__()
        x = np.asarray(self.x, dtype=float)
        if x.ndim != 1 or x.size < 3 or np.any(x <= 0):
            raise ValueError(f"claim {self.id}: x must be ≥ 3 positive grid points, got {self.x!r}")
        if not self.exponent_lo <= self.exponent_hi:
            raise ValueError(f"claim {self.id}: exponent_lo > exponent_hi")

    def _fingerprint_extra(self) -> dict:
        return {"x": [float(v) for v in self.x], "deterministic": bool(self.deterministic),
                "window": [float(self.exponent_lo), float(self.exponent_hi)]}

    def stats_function(self):
        return functools.partial(_scaling_stats, len(self.x))


@dataclass(frozen=True, kw_only=True)
class ComparisonClaim(Claim):
    """``E[d] < threshold`` (``alternative="less"``) or ``> threshold``
    (``"greater"``) for paired differences ``d = metric_A − metric_B`` drawn on
    common random numbers by ``fn(rng, n) -> (n,)``.

    * ``bounds=(lo, hi)`` declares that every difference lies in ``[lo, hi]``
      almost surely (a value outside raises ``ValueError``).  The verdict then
      comes from betting confidence sequences for a bounded mean
      (:mod:`.betting`): valid for every distribution on the bounds, at every
      stopping time (guarantee ``"anytime-valid"``), so the run stops at the
      first chunk that decides.
    * without bounds: Hall's (1992) skewness-corrected t-interval on the mean
      (guarantee ``"asymptotic"``; never decisive on zero-variance data).
    """

    kind: ClassVar[str] = "comparison"
    _callables: ClassVar[tuple[str, ...]] = ("fn",)
    fn: Callable[[np.random.Generator, int], np.ndarray] | None = None
    threshold: float = 0.0
    alternative: str = "less"
    bounds: tuple[float, float] | None = None
    chunk_size: int = 100
    default_budget: int = 2_000
    quick_budget: int = 200

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.alternative not in ("less", "greater"):
            raise ValueError(f"claim {self.id}: alternative must be 'less' or 'greater', got {self.alternative!r}")
        if not math.isfinite(float(self.threshold)):
            raise ValueError(f"claim {self.id}: threshold must be finite, got {self.threshold!r}")
        if self.bounds is not None:
            try:
                lo, hi = (float(v) for v in self.bounds)
            except (TypeError, ValueError):
                raise ValueError(f"claim {self.id}: bounds must be a pair (lo, hi), got {self.bounds!r}") from None
            if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
                raise ValueError(f"claim {self.id}: bounds must be finite with lo < hi, got {self.bounds!r}")
            if not lo < float(self.threshold) < hi:
                raise ValueError(f"claim {self.id}: threshold {self.threshold!r} must lie strictly inside "
                                 f"bounds {self.bounds!r}")
            object.__setattr__(self, "bounds", (lo, hi))

    def _fingerprint_extra(self) -> dict:
        return {"threshold": float(self.threshold), "alternative": self.alternative,
                "bounds": None if self.bounds is None else list(self.bounds)}

    def stats_function(self):
        return functools.partial(_comparison_stats, self.bounds)
