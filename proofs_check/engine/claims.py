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
from typing import Any, Callable, ClassVar, Mapping

import numpy as np

from .chunkstats import _reduced_chunk, _user_chunk
from .source import Source

__all__ = [
    "to_jsonable",
    "KINDS",
    "LABELS",
    "ROLES",
    "EXPECTED",
    "Source",
    "Claim",
    "replace",
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


def replace(claim: Claim, **changes) -> Claim:
    """A copy of ``claim`` with some fields changed (e.g. a mutated constant)."""
    if not isinstance(claim, Claim):
        raise TypeError(f"claim must be a Claim, got {type(claim).__name__}")
    names = {f.name for f in dataclasses.fields(claim)}
    unknown = sorted(set(changes) - names)
    if unknown:
        raise TypeError(f"claim {claim.id}: no field(s) {unknown}; fields are {sorted(names)}")
    return dataclasses.replace(claim, **changes)
