"""Several claims at once: one claim per core, for the command line and the report.

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
from typing import Iterator

from .claims import Claim
from .registry import claim_modules, is_shipped

__all__ = ["verify_across_claims", "groups_by_experiment"]


def groups_by_experiment(claims: list[Claim]) -> list[list[int]]:
    """Indices of ``claims`` grouped by the experiment they read (a claim without
    one is its own group); groups ordered by their first member."""
    groups: dict[object, list[int]] = {}
    for i, c in enumerate(claims):
        exp = getattr(c, "experiment", None)
        key = ("experiment", exp.id) if exp is not None else ("claim", i)
        groups.setdefault(key, []).append(i)
    return sorted(groups.values(), key=lambda g: g[0])


def _worker_init() -> None:
    from .blas import limit_blas_threads

    limit_blas_threads()


def _run_group(ids: list[str], kw: dict) -> list[dict]:
    """In a worker: verify the claims ``ids`` serially; their results as plain dicts."""
    from .registry import get_claim
    from .verify import verify_claim

    return [verify_claim(get_claim(i), executor="serial", **kw).to_dict() for i in ids]


def verify_across_claims(claims, *, workers: int, **kw) -> Iterator:
    """Yield :func:`.verify.verify_claim` results of ``claims`` (in order), running
    whole claims on ``workers`` processes; ``kw`` are ``verify_claim``'s keywords
    (budget, seed, alpha, quick, out, resume, method)."""
    from .results import Result
    from .verify import verify_claim

    claims = list(claims)
    shipped = set(claim_modules())
    remote = [i for i, c in enumerate(claims) if is_shipped(c, shipped)]
    local = [i for i in range(len(claims)) if i not in set(remote)]
    done: dict[int, object] = {}
    nxt = 0
    ctx = mp.get_context("forkserver")
    pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init)
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
