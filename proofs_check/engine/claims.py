"""Claims: a mathematical statement bound to a computation, a source and a label.

A claim is *what* is checked; the engine (:mod:`proofs_check.engine.verify`)
decides *how well* it holds.  Every claim kind reduces to the same unit of work,
a **chunk**: ``claim.chunk_task()`` is a picklable callable
``task(rng, n) -> list[float]`` that performs ``n`` units of work (trials,
cases, evaluations or replicates) with the generator ``rng`` and returns a
short vector of statistics.  Chunk ``k`` of a run with root seed ``s`` always
draws from ``SeedSequence(s, spawn_key=(k,))`` (``docs/theory/engine.md`` §3),
so its statistics depend only on ``(s, k, chunk_size)`` and the run is
identical on every executor.

This module holds :class:`Claim`, the fields every claim shares, and the hooks
through which the engine asks a claim's kind what to do.  Each kind is one
module of :mod:`.kinds` (``docs/theory/engine.md`` §1): its claim class (a
subclass of :class:`Claim` with a ``kind`` name, registered as it is defined;
:func:`claim_class` finds it), its chunk statistics, its decision and its
result class.

Instead of its own ``fn``, a claim of the kinds that run one may read an
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

from .chunkstats import reduced_chunk, user_chunk
from .experiment import Experiment
from .fingerprint import canonical, describe_callable
from .source import Source

__all__ = [
    "checked_cluster",
    "to_jsonable",
    "LABELS",
    "ROLES",
    "EXPECTED",
    "Source",
    "Claim",
    "claim_class",
    "claim_kinds",
    "replace",
]

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
        One of CONFIRMED / DERIVED / RECONSTRUCTED / OPEN (``docs/theory/engine.md`` §1).
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

    A kind is a subclass that names itself with ``kind = "<name>"`` and fills
    in the hooks below (:meth:`stats_function`, :meth:`check_stats`,
    :meth:`decision_method`, :meth:`decide`, and where they apply
    :meth:`early_stop`, :meth:`planned_chunks`, :meth:`finish`,
    :attr:`fixed_sample_decisions`); defining it registers it
    (:func:`claim_class`).  The kinds are the modules of :mod:`.kinds`.
    """

    kind: ClassVar[str] = ""
    #: The decisions of this kind (:meth:`decision_method`) that are fixed-sample
    #: tests: a run they decided is never continued after its verdict was seen.
    fixed_sample_decisions: ClassVar[tuple[str, ...]] = ()

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

    def __init_subclass__(cls, **kw) -> None:
        super().__init_subclass__(**kw)
        if cls.__dict__.get("kind"):             # a class that names a kind (not a plain subclass of one)
            _register_kind(cls)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id or " " in self.id:
            raise ValueError(f"claim id must be a non-empty string without spaces, got {self.id!r}")
        if not isinstance(self.label, str) or self.label not in LABELS:
            raise ValueError(f"claim {self.id}: label must be one of {LABELS}, got {self.label!r}")
        if not isinstance(self.source, (Source, str)) or not str(self.source):
            raise TypeError(f"claim {self.id}: source must be a Source (or a non-empty str), "
                            f"got {self.source!r}")
        if not isinstance(self.role, str) or self.role not in ROLES:
            raise ValueError(f"claim {self.id}: role must be one of {ROLES}, got {self.role!r}")
        if not (self.expected is None or isinstance(self.expected, str)) or self.expected not in EXPECTED:
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

    # -- the hooks of a kind ---------------------------------------------------

    def stats_function(self) -> Callable[[Any, int], list]:
        """``to_stats(output, n) -> chunk statistics``: checks what ``fn`` (or
        ``reduce``) returned for ``n`` units and turns it into the kind's
        chunk statistics (raises ``ValueError`` naming what is wrong)."""
        raise NotImplementedError(f"{type(self).__name__} has no per-unit function")

    def chunk_task(self) -> Callable[[np.random.Generator, int], list]:
        """The picklable ``task(rng, n) -> list`` that runs one chunk."""
        if self.experiment is not None:
            return functools.partial(reduced_chunk, self.experiment.fn, self.reduce, self.stats_function())
        return functools.partial(user_chunk, self.fn, self.stats_function())

    @staticmethod
    def check_stats(stats: list, chunk_size: int) -> str | None:
        """Why the stored list ``stats`` cannot be one chunk's statistics of this
        kind (``None`` if it can): a damaged or foreign record is refused."""
        raise NotImplementedError("a claim kind must say which chunk statistics it stores")

    def decision_method(self, method: str) -> str:
        """The name of the statistical decision used under ``method``
        (``"anytime"`` or ``"fixed"``, the caller's choice for kinds that have one)."""
        raise NotImplementedError(f"{type(self).__name__} does not name its decision")

    def early_stop(self, alpha: float, method: str) -> Callable[[list], bool] | None:
        """A ``stop(chunk_stats) -> bool`` called on each chunk in index order when
        the verdict is anytime-valid (a run may end at the first chunk that
        decides); ``None`` (the default) runs the whole budget."""
        return None

    def decide(self, prefix: list, alpha: float, method: str, n_chunks: int, common: dict):
        """The verdict on the chunk statistics ``prefix``: a result of this kind
        built from ``common`` (the fields every result carries) and the kind's own."""
        raise NotImplementedError(f"{type(self).__name__} has no decision")

    def planned_chunks(self, n_chunks: int) -> int:
        """The chunks a run of ``n_chunks`` (the budget in whole chunks) plans to use."""
        return n_chunks

    def finish(self, result, prefix: list, seed: int):
        """The result as it is returned, after the decision (e.g. a counterexample
        made readable); the default returns it unchanged."""
        return result

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


#: kind name -> claim class, filled as the kinds are defined
_KINDS: dict[str, type] = {}


def _register_kind(cls: type) -> None:
    old = _KINDS.get(cls.kind)
    if old is not None and (old.__module__, old.__qualname__) != (cls.__module__, cls.__qualname__):
        raise TypeError(f"claim kind {cls.kind!r} is defined twice: by {old.__module__}.{old.__qualname__} "
                        f"and {cls.__module__}.{cls.__qualname__}")
    _KINDS[cls.kind] = cls


def claim_class(kind: str) -> type | None:
    """The claim class of ``kind`` (``None`` if no such kind is defined)."""
    return _KINDS.get(kind)


def claim_kinds() -> tuple[str, ...]:
    """The kinds defined so far, in the order they were defined (all of them
    once :mod:`.kinds` is imported)."""
    return tuple(_KINDS)


def replace(claim: Claim, **changes) -> Claim:
    """A copy of ``claim`` with some fields changed (e.g. a mutated constant)."""
    if not isinstance(claim, Claim):
        raise TypeError(f"claim must be a Claim, got {type(claim).__name__}")
    names = {f.name for f in dataclasses.fields(claim)}
    unknown = sorted(set(changes) - names)
    if unknown:
        raise TypeError(f"claim {claim.id}: no field(s) {unknown}; fields are {sorted(names)}")
    return dataclasses.replace(claim, **changes)


def checked_cluster(claim_id: str, cluster, chunk_size) -> int:
    """A declared ``cluster=m`` (runs of ``m`` consecutive trials that share randomness) as an
    int, checked: a whole number ≥ 1 dividing ``chunk_size``, so that no run straddles two
    chunks; ``ValueError`` naming the claim, the value and the rule otherwise."""
    import numpy as np

    m = cluster
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1 or int(chunk_size) % int(m):
        raise ValueError(f"claim {claim_id}: cluster must be a whole divisor of chunk_size {chunk_size} "
                         f"(the number of consecutive trials that share randomness), got {m!r}")
    return int(m)
