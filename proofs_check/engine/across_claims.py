"""Several claims at once: :func:`verify_claims`, for the command line and the report.

It verifies claims one after another on one executor (parallel inside each
claim), or — ``across_claims=True`` — one claim per core (:func:`verify_across_claims`).

A claim at a quick budget is often one or two chunks, so parallelism *inside*
a claim (the executors) leaves the second core idle.  Here whole claims run in
worker processes instead, each claim on the ``serial`` executor — the same
computation as anywhere else, so every verdict is bitwise what the serial run
gives (chunk ``k`` always draws from ``SeedSequence(seed, spawn_key=(k,))``).

* Claims that read the same :class:`~.experiment.Experiment` go to the same
  worker, in registry order, so the experiment is measured once (as in one
  process).  Experiment chunks are also kept in ``out`` when it is given.
* Only claims a fresh process can find by id take this path (those of the
  ``theorycheck.claims`` entry points, unchanged since registration); anything
  else — a claim from a user's file, a modified copy in a test — runs in this
  process.
* Results are yielded in the order of ``claims`` as soon as they and all
  earlier ones are decided; Ctrl-C cancels what has not started and keeps every
  finished chunk in ``out``.
"""
from __future__ import annotations

import concurrent.futures as cf
import multiprocessing as mp
from typing import Callable, Iterator

from .claims import Claim
from .executors import MAX_WORKERS, Executor, default_workers, executor_kind, make_executor, process_worker_init
from .registry import check_portable, claim_modules, get_claim, is_shipped
from .results import Result
from .validate import check_bool, check_int
from .verify import verify_claim

__all__ = ["verify_claims", "verify_across_claims", "groups_by_experiment", "worker_init"]


def verify_claims(claims, *, executor: str | Executor | None = None, workers: int | None = None,
                  scheduler: str | None = None, progress_for: Callable | None = None,
                  across_claims: bool = False, **kw):
    """Verify several claims on one executor; yields each result as it is decided.

    ``kw`` are :func:`.verify.verify_claim`'s keywords (budget, seed, alpha, quick,
    out, resume, method); ``progress_for(claim)`` may return a progress
    callback for that claim.  Claims that read the same experiment share its
    chunks (measured once in this process).

    ``across_claims=True`` with the default executor (``None``/``"auto"``, no
    scheduler) and more than one core runs whole claims in parallel worker
    processes instead (:func:`verify_across_claims`): the same verdicts, bitwise, in
    the same order, without per-chunk progress."""
    claims = list(claims)
    for flag in ("quick", "resume"):             # 'no' is not False: refused before any claim runs
        if flag in kw:
            kw[flag] = check_bool(flag, kw[flag])
    check_portable(claims, executor_kind(executor, scheduler))   # every claim, before any runs
    if across_claims and executor in (None, "auto") and scheduler is None and len(claims) > 1:
        n = default_workers() if workers is None else check_int("workers", workers, lo=1, hi=MAX_WORKERS)
        if n > 1:
            yield from verify_across_claims(claims, workers=n, **kw)
            return
    owned = not isinstance(executor, Executor)
    ex = make_executor(executor, workers, scheduler)
    try:
        for c in claims:
            yield verify_claim(c, executor=ex,
                               progress=None if progress_for is None else progress_for(c), **kw)
    finally:
        if owned:
            ex.close()


def groups_by_experiment(claims: list[Claim]) -> list[list[int]]:
    """Indices of ``claims`` grouped by the experiment they read (a claim without
    one is its own group); groups ordered by their first member."""
    groups: dict[object, list[int]] = {}
    for i, c in enumerate(claims):
        exp = getattr(c, "experiment", None)
        key = ("experiment", exp.id) if exp is not None else ("claim", i)
        groups.setdefault(key, []).append(i)
    return sorted(groups.values(), key=lambda g: g[0])


def worker_init() -> None:
    """What a worker process that verifies whole claims does first: one BLAS thread,
    prints to stderr, and an end of its own once its owner is gone
    (:func:`.executors.process_worker_init`)."""
    process_worker_init()


def _run_group(ids: list[str], kw: dict) -> list[dict]:
    """In a worker: verify the claims ``ids`` serially; their results as plain dicts."""
    return [verify_claim(get_claim(i), executor="serial", **kw).to_dict() for i in ids]


def verify_across_claims(claims, *, workers: int, **kw) -> Iterator:
    """Yield :func:`.verify.verify_claim` results of ``claims`` (in order), running
    whole claims on ``workers`` processes; ``kw`` are ``verify_claim``'s keywords
    (budget, seed, alpha, quick, out, resume, method)."""
    claims = list(claims)
    shipped = set(claim_modules())
    remote = [i for i, c in enumerate(claims) if is_shipped(c, shipped)]
    local = [i for i in range(len(claims)) if i not in set(remote)]
    done: dict[int, object] = {}
    nxt = 0
    ctx = mp.get_context("forkserver")
    pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=worker_init)
    try:
        futures = {}
        for group in groups_by_experiment([claims[i] for i in remote]):
            members = [remote[j] for j in group]
            futures[pool.submit(_run_group, [claims[i].id for i in members], kw)] = members
        pending = set(futures)
        for i in local:                                      # meanwhile, here
            done[i] = verify_claim(claims[i], executor="serial", **kw)
            while nxt in done:
                yield done.pop(nxt)
                nxt += 1
        while pending:
            finished, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for f in finished:
                for i, d in zip(futures[f], f.result()):
                    done[i] = Result.from_dict(d)
            while nxt in done:
                yield done.pop(nxt)
                nxt += 1
        while nxt in done:
            yield done.pop(nxt)
            nxt += 1
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
