"""Claims: a mathematical statement bound to a computation, a source and a label.

A claim is *what* is checked; the engine (:mod:`proofs_check.engine.verify`)
decides *how well* it holds.  Every claim kind reduces to the same unit of work,
a **chunk**: ``claim.chunk_task()`` is a picklable callable
``task(rng, n) -> list[float]`` that performs ``n`` units of work (trials,
cases, evaluations or replicates) with the generator ``rng`` and returns a
short vector of statistics.  Chunk ``k`` of a run with root seed ``s`` always
draws from ``SeedSequence(s, spawn_key=(k,))`` (see
``../shared/spec/verification.md`` §4), so its statistics depend only on
``(s, k, chunk_size)`` and the run is identical on every executor.

Kinds (verification.md §1):

=============  =====================================  =========================
kind           user function                          chunk statistics
=============  =====================================  =========================
probability    ``fn(rng, n) -> int`` events            ``[events]``
identity       ``fn(rng, n) -> (lhs, rhs[, scale])``   ``[cases, max_abs, max_scaled]``
inequality     ``sample(rng) -> θ``, ``evaluate(θ)``   ``[evals, nonfinite, artefacts, status,
                                                        score, lhs, rhs, *θ]`` (:mod:`.search`)
scaling        ``fn(rng, n) -> (n, len(x))`` array     ``[y_1(x_1..x_m), ..., y_n(...)]``
comparison     ``fn(rng, n) -> (n,)`` differences      ``[d_1, ..., d_n]``
=============  =====================================  =========================

Instead of its own ``fn``, a claim of the first four kinds may read an
:class:`~proofs_check.engine.experiment.Experiment`: ``experiment=EXP,
reduce=f`` where ``f(stats) -> output`` maps one chunk's named per-trial
statistics (NumPy arrays) to what ``fn`` would have returned.  Claims and
figures that read the same experiment share its chunks (measured once).

User functions must be picklable (module-level functions, or
:func:`functools.partial` of them) so that the ``processes`` and ``dask``
executors can ship them.  The convention for them is
``f(rng, n, *, param=...)``, parameters keyword-only and bound with
:func:`functools.partial`.
"""
from __future__ import annotations

import abc
import dataclasses
import functools
import hashlib
import json
import math
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Mapping, Sequence

import numpy as np

__all__ = [
    "to_jsonable",
    "KINDS",
    "LABELS",
    "ROLES",
    "EXPECTED",
    "Source",
    "Claim",
    "ProbabilityClaim",
    "IdentityClaim",
    "InequalityClaim",
    "ScalingClaim",
    "ComparisonClaim",
]

KINDS = ("identity", "inequality", "probability", "scaling", "comparison")
LABELS = ("CONFIRMED", "DERIVED", "RECONSTRUCTED", "OPEN")
#: What a claim is for: a statement of a paper (or of our derivation), a control
#: that checks the simulator or the engine (e.g. a false variant that must be
#: refuted), or a measurement whose outcome is not known in advance.
ROLES = ("statement", "control", "measurement")
#: The verdict a claim must reach (``None``: not known in advance).
EXPECTED = ("holds", "refuted", None)


def to_jsonable(value: Any) -> Any:
    """Convert numpy scalars/arrays and tuples into plain JSON types."""
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    return value


@dataclass(frozen=True)
class Source:
    """Where a claim comes from, as data.

    ``papers`` are keys of a paper registry (``proofs_check.papers.PAPERS``;
    empty for the team's own derivation), ``where`` the place in the first
    paper ("Thm 2", "eq. (12)", "§3"), ``theory`` the anchor of the section of
    this repository's theory page that restates it, as ``"<page>.md#<id>"``
    (``docs/theory/<page>.md`` holds ``<a id="<id>"></a>``), ``note`` anything
    else a reader needs ("our transcription of the released code").  The
    engine does not resolve keys or anchors; ``tests/test_sources.py`` does.
    """

    papers: tuple[str, ...] = ()
    where: str = ""
    theory: str = ""
    note: str = ""

    def __post_init__(self) -> None:
        papers = (self.papers,) if isinstance(self.papers, str) else tuple(self.papers)
        object.__setattr__(self, "papers", papers)
        if not papers and not self.theory:
            raise ValueError("a Source needs a paper key or a theory page anchor")
        if self.theory and "#" not in self.theory:
            raise ValueError(f"theory must look like 'page.md#anchor', got {self.theory!r}")

    def __str__(self) -> str:
        head = ", ".join(self.papers) if self.papers else "our derivation"
        parts = [head + (f" {self.where}" if self.where else "")]
        if self.note:
            parts.append(self.note)
        if self.theory:
            parts.append(f"theory {self.theory}")
        return "; ".join(parts)

    def to_dict(self) -> dict:
        return {"papers": list(self.papers), "where": self.where, "theory": self.theory,
                "note": self.note}


@dataclass(frozen=True, kw_only=True)
class Claim(abc.ABC):
    """Fields shared by every claim.

    Parameters
    ----------
    id : str
        Unique dotted identifier, e.g. ``"seqproj.coverage.sphere.constant"``.
        The first component names the paper/topic (used by ``verify PATTERN``).
    statement : str
        One line of plain mathematics.
    source : Source
        Paper key(s), where in the paper, and the theory-page anchor
        (:class:`Source`); a plain string is accepted for quick experiments.
    label : str
        One of CONFIRMED / DERIVED / RECONSTRUCTED / OPEN (spec README).
    params : mapping
        The claim's parameters, shown to users and part of its fingerprint.
    default_budget, quick_budget : int
        Units of work (trials, cases, evaluations or replicates) for a normal
        and a ``--quick`` run.  Budgets are rounded up to whole chunks.
    chunk_size : int
        Units per chunk; part of the reproducibility contract.
    notes : str
        Anything a user must know.
    role : str
        One of :data:`ROLES`.
    expected : str or None
        The verdict the claim must reach at its default budget (a control's
        expected verdict, or a statement whose truth is established); ``None``
        when the outcome is a finding.  The report separates "as expected"
        from "finding".
    version : int
        Bumped by hand when the code under test changes what a chunk computes
        in a way the fingerprint cannot see; part of the fingerprint.
    """

    kind: ClassVar[str] = ""

    id: str
    statement: str
    source: Source | str
    label: str
    params: Mapping[str, Any] = field(default_factory=dict)
    default_budget: int = 10_000
    quick_budget: int = 1_000
    chunk_size: int = 1_000
    notes: str = ""
    role: str = "statement"
    expected: str | None = None
    version: int = 1
    experiment: Any = None
    reduce: Callable[[Mapping[str, np.ndarray]], Any] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id or " " in self.id:
            raise ValueError(f"claim id must be a non-empty string without spaces, got {self.id!r}")
        if self.label not in LABELS:
            raise ValueError(f"claim {self.id}: label must be one of {LABELS}, got {self.label!r}")
        if not isinstance(self.source, (Source, str)) or not str(self.source):
            raise TypeError(f"claim {self.id}: source must be a Source (or a non-empty str), "
                            f"got {self.source!r}")
        if self.role not in ROLES:
            raise ValueError(f"claim {self.id}: role must be one of {ROLES}, got {self.role!r}")
        if self.expected not in EXPECTED:
            raise ValueError(f"claim {self.id}: expected must be one of {EXPECTED}, got {self.expected!r}")
        if isinstance(self.version, bool) or not isinstance(self.version, int) or self.version < 1:
            raise ValueError(f"claim {self.id}: version must be an integer ≥ 1, got {self.version!r}")
        for name in ("default_budget", "quick_budget", "chunk_size"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1:
                raise ValueError(f"claim {self.id}: {name} must be a positive integer, got {v!r}")
        if any(f.name == "fn" for f in dataclasses.fields(self)):
            self._check_trials_source()

    def _check_trials_source(self) -> None:
        """Exactly one of ``fn`` or (``experiment`` and ``reduce``)."""
        from .experiment import Experiment

        has_fn = getattr(self, "fn", None) is not None
        if self.experiment is None:
            if not has_fn:
                raise ValueError(f"claim {self.id}: give fn(rng, n), or experiment= and reduce=")
            if self.reduce is not None:
                raise ValueError(f"claim {self.id}: reduce= needs experiment=")
            if not callable(self.fn):
                raise TypeError(f"claim {self.id}: fn must be callable, got {self.fn!r}")
            return
        if has_fn:
            raise ValueError(f"claim {self.id}: give either fn or experiment=, not both")
        if not isinstance(self.experiment, Experiment):
            raise TypeError(f"claim {self.id}: experiment must be an Experiment, got {self.experiment!r}")
        if not callable(self.reduce):
            raise TypeError(f"claim {self.id}: experiment= needs reduce(stats) -> the kind's output")
        if int(self.chunk_size) != int(self.experiment.chunk_size):
            raise ValueError(f"claim {self.id}: chunk_size {self.chunk_size} must equal the experiment's "
                             f"chunk_size {self.experiment.chunk_size} (they share chunks)")

    @property
    def topic(self) -> str:
        """The topic prefix of the id (``"seqproj"`` for ``"seqproj.coverage..."``)."""
        return self.id.split(".", 1)[0]

    @property
    def papers(self) -> tuple[str, ...]:
        """The paper keys the claim cites (empty for a plain-string source)."""
        return self.source.papers if isinstance(self.source, Source) else ()

    #: Fields holding user callables whose effective arguments determine the chunks.
    _callables: ClassVar[tuple[str, ...]] = ()

    def fingerprint(self) -> str:
        """Hash of everything that determines chunk statistics (not budgets):
        id, kind, version, chunk size, the kind's decision fields and the
        effective arguments of every user callable (:mod:`.fingerprint`)."""
        from .fingerprint import canonical, describe_callable

        payload = json.dumps(
            {"id": self.id, "kind": self.kind, "version": int(self.version),
             "params": canonical(dict(self.params)), "chunk_size": int(self.chunk_size),
             "callables": {name: describe_callable(getattr(self, name))
                           for name in (*self._callables, "reduce") if getattr(self, name) is not None},
             "experiment": None if self.experiment is None else self.experiment.fingerprint(),
             **canonical(self._fingerprint_extra())},
            sort_keys=True,
        )
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    def _fingerprint_extra(self) -> dict:
        return {}

    def stats_function(self) -> Callable[[Any, int], list]:
        """``to_stats(output, n) -> chunk statistics``: checks what ``fn`` (or
        ``reduce``) returned for ``n`` units and turns it into the kind's
        chunk statistics (raises ``ValueError`` naming what is wrong)."""
        raise NotImplementedError(f"{type(self).__name__} has no per-unit function")

    def chunk_task(self) -> Callable[[np.random.Generator, int], list]:
        """The picklable ``task(rng, n) -> list`` that runs one chunk."""
        if self.experiment is not None:
            return functools.partial(_reduced_chunk, self.experiment.fn, self.reduce, self.stats_function())
        return functools.partial(_user_chunk, self.fn, self.stats_function())

    def describe(self) -> dict:
        """Plain-JSON description used by ``theorycheck list``."""
        return {
            "claim": self.id,
            "kind": self.kind,
            "source": str(self.source),
            "source_ref": self.source.to_dict() if isinstance(self.source, Source) else None,
            "label": self.label,
            "role": self.role,
            "expected": self.expected,
            "statement": self.statement,
            "params": to_jsonable(dict(self.params)),
        }


# --------------------------------------------------------------------------
# chunk workers (module level so that they pickle)
# --------------------------------------------------------------------------

def _user_chunk(fn, to_stats, rng, n):
    """Run the user's ``fn(rng, n)`` and turn its output into chunk statistics."""
    return to_stats(fn(rng, n), n)


def _reduced_chunk(experiment_fn, reduce, to_stats, rng, n):
    """A chunk of an experiment-reading claim computed directly (no memo)."""
    from .experiment import as_arrays, _experiment_chunk

    return to_stats(reduce(as_arrays(_experiment_chunk(experiment_fn, rng, n))), n)


def _probability_stats(events, n):
    events = int(events)
    if events < 0 or events > n:
        raise ValueError(f"probability sampler returned {events} events for {n} trials")
    return [events]


def _identity_stats(tol_mode, out, n):
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


def _scaling_stats(m, out, n):
    y = np.asarray(out, dtype=float)
    if y.shape != (n, m):
        raise ValueError(f"scaling measurement returned shape {y.shape}, expected {(n, m)}")
    return y.ravel().tolist()


def _comparison_stats(bounds, out, n):
    d = np.asarray(out, dtype=float).ravel()
    if d.shape != (n,):
        raise ValueError(f"comparison sampler returned {d.shape}, expected ({n},)")
    if not np.all(np.isfinite(d)):
        raise ValueError("comparison sampler returned non-finite differences")
    if bounds is not None:
        lo, hi = bounds
        bad = (d < lo) | (d > hi)
        if np.any(bad):
            raise ValueError(f"comparison sampler returned d = {float(d[bad][0])!r} outside the "
                             f"declared bounds [{lo}, {hi}]: fix the bounds or the sampler")
    return d.tolist()


# --------------------------------------------------------------------------
# claim kinds
# --------------------------------------------------------------------------

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


def replace(claim: Claim, **changes) -> Claim:
    """A copy of ``claim`` with some fields changed (e.g. a mutated constant)."""
    if not isinstance(claim, Claim):
        raise TypeError(f"claim must be a Claim, got {type(claim).__name__}")
    names = {f.name for f in dataclasses.fields(claim)}
    unknown = sorted(set(changes) - names)
    if unknown:
        raise TypeError(f"claim {claim.id}: no field(s) {unknown}; fields are {sorted(names)}")
    return dataclasses.replace(claim, **changes)
