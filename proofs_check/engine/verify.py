"""Run a claim under a budget and an executor; return a frozen verdict.

``verify_claim(claim, ...)`` is the single entry point used by the Python API
(:func:`proofs_check.verify`), the CLI and the report.  It knows nothing of
any paper: it only runs chunks (:mod:`.runner`), keeps them (:mod:`.store`)
and applies the decision of the claim's kind (:mod:`.decide`).
"""
from __future__ import annotations

import collections
import dataclasses
import functools
import threading
import time
import traceback
from pathlib import Path
from typing import Callable

import numpy as np

from .decide import decide, decision_method, early_stop, extension_is_valid
from .chunkstats import as_arrays
from .claims import Claim
from .executors import ClaimCodeError, Executor, executor_kind, guarded_call, make_executor
from .measure import experiment_chunks
from .registry import check_portable, portable_task
from .results import Result
from .runner import run_chunks, spot_check
from .store import ChunkStore, export_path
from .validate import check_alpha, check_bool, check_budget, check_seed

__all__ = ["verify_claim", "result_path", "METHODS"]

#: The decision methods a caller may ask for (kinds with a choice read it; the
#: others decide their own way whatever it is).
METHODS = ("anytime", "fixed")

#: Fixed-sample looks made in this process, by ``(claim fingerprint, seed)``: a list of
#: ``(decision, planned chunks, chunk size, α, chunks run, verdict)``.  The in-process
#: counterpart of the store's record (:func:`_refuse_same_seed`), for runs without one
#: (``out=None``); see :func:`_label_same_seed_look`.  Bounded (oldest keys dropped).
_LOOKS: "collections.OrderedDict[tuple[str, int], list[tuple]]" = collections.OrderedDict()
_LOOKS_LOCK = threading.Lock()
_LOOKS_MAX_KEYS = 100_000

def result_path(out, claim_id: str) -> Path:
    """``OUT/<claim id>.chunks.jsonl``: the JSON-lines export of the claim's newest
    run (the store itself is ``OUT/theorycheck.sqlite``, :mod:`.store`)."""
    return export_path(out, claim_id)


def _names_claim_failures(fn):
    """Failures of claim code, named by claim (issue 26, items 3 and 14).

    Inside chunks the executors contain ``sys.exit``/``os._exit`` and annotate
    exceptions (:func:`.executors.guarded_call`); here the claim's id is added: a
    :class:`.executors.ClaimCodeError` is re-raised naming the claim, an annotated
    exception is re-raised unchanged (its type is the API's) carrying the id, and a
    ``SystemExit`` from claim code run outside a chunk (a verdict's own evaluation)
    becomes a ``ClaimCodeError`` — never an exit of the caller."""
    @functools.wraps(fn)
    def wrapper(claim, *args, **kw):
        cid = getattr(claim, "id", None)
        try:
            return fn(claim, *args, **kw)
        except ClaimCodeError as exc:
            raise (exc if exc.claim else exc.for_claim(cid)) from None
        except SystemExit as exc:
            from .executors import _where

            raise ClaimCodeError(f"called sys.exit({exc.code!r})", _where(exc.__traceback__),
                                 "".join(traceback.format_exception(exc)), None, cid) from None
        except Exception as exc:
            if hasattr(exc, "_theorycheck_failure") and getattr(exc, "_theorycheck_claim", None) is None:
                try:
                    exc._theorycheck_claim = cid
                except (AttributeError, TypeError):  # pragma: no cover - no __dict__
                    pass
            raise
    return wrapper


def _guarded_task(task):
    """``task`` run under :func:`.executors.guarded_call` (the resume spot check runs
    a chunk here, outside any executor)."""
    def run(rng, n):
        return guarded_call(task, (rng, n))
    return run


@_names_claim_failures
def verify_claim(claim: Claim, *, budget: int | None = None, seed: int = 0, alpha: float = 0.01,
                 executor: str | Executor | None = None, workers: int | None = None,
                 scheduler: str | None = None, quick: bool = False, out=None, resume: bool = False,
                 method: str = "anytime",
                 progress: Callable[[int, int], None] | None = None) -> Result:
    """Decide ``claim``.

    Parameters
    ----------
    budget : units of work (trials, cases, evaluations, replicates); default
        ``claim.quick_budget`` if ``quick`` else ``claim.default_budget``.
        Rounded up to whole chunks.  A deterministic scaling claim runs two
        chunks whatever the budget (checked to agree bitwise); a random one at
        least two replicates.
    seed : root seed of the run (chunk k uses ``SeedSequence(seed, spawn_key=(k,))``).
    alpha : error level of the verdict, in (0, 1).
    executor, workers, scheduler : where chunks run (:func:`.executors.make_executor`);
        default (``None``) ``"auto"``: threads on all cores, serial on one.  The result
        is bitwise the same on every executor and worker count.
    out : folder for the per-chunk result file; ``None`` keeps it in memory.
    resume : reuse the chunks already in ``out``'s file (validated against the
        claim's code fingerprint, seed and α).  A fixed-sample decision whose
        verdict was already seen is not re-run on a different budget
        (optional stopping): that raises ``ValueError``.  The same holds for a
        fresh run (no ``resume``) with the same seed — same seed = same data —
        whenever ``out``'s store holds an evaluated run of the claim's
        fingerprint and seed (:func:`_refuse_same_seed`).  Without ``out``
        there is no store: the process keeps its own record of the
        fixed-sample looks it made (claim fingerprint, seed → decision and
        budget), and a later look at the same claim and seed with another
        fixed budget (or α, or decision) is *labelled*, not refused: its
        ``warnings`` say that the exact (or asymptotic) error bound holds for
        the first look at that seed's data only, name the earlier budget and
        verdict and the next unused seed, and ``premises`` (kinds that have
        it) carries "this is the first test of seed s's data (it is not: …)"
        (:func:`_label_same_seed_look`).
    method : for probability claims, ``"anytime"`` (stop as soon as an e-value
        crosses ``2/α``; error ≤ α at any stopping time; the interval is an
        anytime-valid confidence sequence) or ``"fixed"`` (run the whole
        budget, decide by the exact Clopper–Pearson interval).

    The result's ``guarantee`` says what the verdict promises
    (:data:`.results.GUARANTEES`) and ``warnings`` what may undermine it.
    """
    if not isinstance(claim, Claim):
        raise TypeError(f"claim must be a Claim, got {type(claim).__name__}")
    alpha = check_alpha(alpha)
    seed = check_seed(seed)
    quick, resume = check_bool("quick", quick), check_bool("resume", resume)     # 'no' is not False
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    budget = check_budget(budget if budget is not None else
                          (claim.quick_budget if quick else claim.default_budget))
    n_chunks = claim.planned_chunks(-(-budget // claim.chunk_size))    # exact integer ceiling
    decision = decision_method(claim, method)
    header = {"claim": claim.id, "kind": claim.kind, "fingerprint": claim.fingerprint(),
              "seed": seed, "chunk_size": int(claim.chunk_size), "alpha": alpha, "method": decision}
    if resume and out is None:
        raise ValueError("resume needs an output folder (--out DIR) holding the earlier result file")
    check_portable([claim], executor_kind(executor, scheduler))      # before anything is written
    store = ChunkStore.open(out, claim.id, header, resume=resume,
                            before_new_run=lambda st: _refuse_same_seed(st, claim, decision, n_chunks,
                                                                        seed, alpha))
    try:
        _check_extension(store, claim, decision, n_chunks)
        if resume and claim.experiment is None:
            spot_check(store, _guarded_task(claim.chunk_task()), seed)
    except BaseException:
        store.close()
        raise
    stop = early_stop(claim, alpha, method)

    t0 = time.perf_counter()
    owned = not isinstance(executor, Executor)
    ex = make_executor(executor, workers, scheduler)
    try:
        with store:
            if claim.experiment is not None:
                prefix = _chunks_from_experiment(claim, n_chunks, seed=seed, executor=ex, out=out,
                                                 store=store, stop=stop, progress=progress)
            else:
                task = claim.chunk_task()
                prefix = run_chunks(portable_task(task) if ex.name in ("processes", "dask") else task,
                                    n_chunks, chunk_size=claim.chunk_size, seed=seed,
                                    executor=ex, store=store, stop=stop, progress=progress)
            common = dict(claim=claim.id, kind=claim.kind, statement=claim.statement,
                          source=str(claim.source), label=claim.label, seed=seed, alpha=alpha,
                          budget=len(prefix) * claim.chunk_size, chunks=len(prefix),
                          params=dict(claim.params), notes=claim.notes, role=claim.role,
                          expected=claim.expected)
            result = claim.finish(decide(claim, prefix, alpha, method, n_chunks, common),
                                  prefix, seed)
            store.record_evaluation({"method": decision, "alpha": alpha, "chunks": len(prefix),
                                     "planned_chunks": n_chunks, "verdict": result.verdict})
    finally:
        if owned:
            ex.close()
    result = _label_same_seed_look(claim, header["fingerprint"], decision, n_chunks, seed, alpha, result)
    # elapsed covers the chunk runs and the verdict (e.g. a sympy proof)
    return dataclasses.replace(result, elapsed_s=round(time.perf_counter() - t0, 6))


def _label_same_seed_look(claim: Claim, fingerprint: str, decision: str, n_chunks: int, seed: int,
                          alpha: float, result: Result) -> Result:
    """Record this look and label it if it re-tests data an earlier look of this process saw.

    Chunk ``k`` draws from ``SeedSequence(seed, spawn_key=(k,))``, so two runs of one claim
    (same fingerprint) with one seed share their first chunks.  For a fixed-sample decision
    the bound ``P(wrong) ≤ α`` holds for one test decided before the data were seen; a
    second test at another budget on nested data is optional stopping (measured through the
    API before this label: 15.4 % wrong at α = 0.05 for budget doubling; ``docs/theory/engine.md``
    §3).  The store refuses such a run (:func:`_refuse_same_seed`); a run without a store is
    labelled instead — labelled rather than refused because re-running a claim at several
    budgets on one seed is also how tests and calibration read an operating characteristic,
    where each look is scored on its own.  An exact repeat (same decision, chunks, chunk
    size and α) re-computes the same verdict and is not labelled; anytime-valid decisions
    are never labelled (Ville's inequality holds at every stopping time)."""
    if extension_is_valid(claim, decision):
        return result
    key = (fingerprint, int(seed))
    look = (decision, int(n_chunks), int(claim.chunk_size), float(alpha), result.chunks, result.verdict)
    with _LOOKS_LOCK:
        seen = _LOOKS.setdefault(key, [])
        _LOOKS.move_to_end(key)
        earlier = [e for e in seen if e[:4] != look[:4]]
        if look[:4] not in {e[:4] for e in seen}:
            seen.append(look)
        while len(_LOOKS) > _LOOKS_MAX_KEYS:
            _LOOKS.popitem(last=False)
        if not earlier:
            return result
        used = {s for (fp, s) in _LOOKS if fp == key[0]}
    e = earlier[0]
    new = next(s for s in range(int(seed) + 1, int(seed) + len(used) + 2) if s not in used)
    first = (f"this is the first test of seed {seed}'s data (it is not: an earlier {e[0]} test in this "
             f"process used {e[4]} chunks of {e[2]})")
    warning = (f"same seed = same data: this process already looked at seed {seed} of {claim.id} with a {e[0]} "
               f"test on {e[4]} chunks of {e[2]} (verdict {e[5]}, α = {e[3]:g}); this {decision} test on "
               f"{result.chunks} chunks re-tests those data (optional stopping), so the "
               f"{result.guarantee} error bound holds for the first look only and this verdict has no "
               f"stated error rate. For an independent test use a new seed, e.g. seed={new}")
    changes = {"warnings": tuple(result.warnings) + (warning,)}
    if any(f.name == "premises" for f in dataclasses.fields(result)):
        changes["premises"] = tuple(result.premises) + (first,)
    return dataclasses.replace(result, **changes)


def _forget_looks() -> None:
    """Empty the in-process record of fixed-sample looks (for tests)."""
    with _LOOKS_LOCK:
        _LOOKS.clear()


def _chunks_from_experiment(claim: Claim, n_chunks: int, *, seed, executor, out, store, stop, progress):
    """The claim's chunk statistics derived from its experiment's chunks
    (:func:`.measure.experiment_chunks`: measured once per process and,
    with ``out``, stored in ``OUT/experiments/``), stopping where ``stop`` says."""
    to_stats = claim.stats_function()

    def derive(exp_stats):
        return to_stats(claim.reduce(as_arrays(exp_stats)), claim.chunk_size)

    exp_stop = None if stop is None else (lambda exp_stats: stop(derive(exp_stats)))
    exp_prefix = experiment_chunks(claim.experiment, n_chunks, seed=seed, executor=executor, out=out,
                                   stop=exp_stop, progress=progress)
    prefix = [derive(s) for s in exp_prefix]
    for k, st in enumerate(prefix):
        if k not in store.chunks:
            store.append(k, [v.item() if isinstance(v, np.generic) else v for v in st])
    return prefix


def _check_extension(store: ChunkStore, claim: Claim, decision: str, n_chunks: int) -> None:
    """Refuse to re-test a fixed-sample decision on more (or other) data after
    its verdict was seen, and a fixed-sample test after anytime looks."""
    if not store.evaluations:
        return
    seen = store.evaluations
    if not extension_is_valid(claim, decision):
        earlier = [e for e in seen if e.get("planned_chunks") != n_chunks or e.get("method") != decision]
        if earlier:
            e = earlier[-1]
            raise ValueError(
                f"{claim.id}: this run was already evaluated ({e.get('method')}, "
                f"{e.get('chunks')} chunks of {claim.chunk_size}: {e.get('verdict')}); testing it again "
                f"with a {decision} test on {n_chunks} chunks is optional stopping and voids the "
                f"error guarantee. Start a fresh run (new --seed, no --resume)"
                + (", or continue with the anytime method (valid at any stopping time)"
                   if decision == "fixed" else ""))



def _refuse_same_seed(store: ChunkStore, claim: Claim, decision: str, n_chunks: int, seed: int,
                      alpha: float) -> None:
    """Refuse a fresh fixed-sample run whose data an earlier, evaluated run already saw.

    Chunk ``k`` draws from ``SeedSequence(seed, spawn_key=(k,))``, so a fresh run
    with the seed of an earlier run of the same claim (same fingerprint) re-draws
    that run's chunks: running it again on a larger budget after its verdict was
    seen is optional stopping, exactly as ``--resume`` would be.  For a
    fixed-sample decision (the kind's ``fixed_sample_decisions``: an exact or
    asymptotic interval at a fixed n) the error bound ``P(wrong) ≤ α`` holds for
    one test decided before the data were seen; with looks at n₁ < n₂ < … on
    nested data and a stop at the first decisive one, the error is
    ``P(∪ᵢ {test i decisive}) > α`` in general (measured: 4.45 % at α = 0.01 for
    budget doubling, issue 21 item 3; ``docs/theory/engine.md`` §3, the optional-stopping rule).  Allowed:
    an exact repeat (same decision, number of chunks, chunk size and α) — it
    re-computes the same verdict from the same data — and anytime-valid
    decisions (Ville's inequality holds at every stopping time).  The message
    names ``--seed`` and the smallest seed no run of the claim in the store used.
    """
    if extension_is_valid(claim, decision):
        return
    fp = claim.fingerprint()
    for run in reversed(store.evaluated_runs()):
        if run["fingerprint"] != fp or run["seed"] != seed:
            continue
        for e in reversed(run["evals"]):
            if (e.get("method") == decision and e.get("planned_chunks") == n_chunks
                    and run["chunk_size"] == int(claim.chunk_size) and run["alpha"] == alpha):
                continue                    # an exact repeat: the same test on the same data
            new = store.unused_seed()
            raise ValueError(
                f"{claim.id}: --out {store.out.name or store.out} already holds an evaluated run with --seed {seed} "
                f"({e.get('method')}, {e.get('chunks')} chunks of {run['chunk_size']}: {e.get('verdict')}); "
                f"same seed = same data, so this {decision} test on {n_chunks} chunks re-tests it (optional "
                f"stopping). Use a new seed, e.g. --seed {new}, and keep its verdict: stopping at the first "
                f"decisive of k fresh runs is still wrong with probability up to k·α")
