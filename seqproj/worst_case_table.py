r"""The ``M*_worst`` table: the bracket ``(M_lo, M_hi]`` of every ``(ε, T)`` cell with few expensive solves.

The bracket is the one of :func:`seqproj.worst_case_bracket.worst_case_mstar_range` (theory
``docs/theory/seqproj.md#worst-case-bracket``): ``M_hi`` the smallest ``M`` with the upper estimate
``U(M) ≤ δ`` (:func:`seqproj.worst_case.worst_case_upper`), ``M_lo`` the largest ``M`` below it whose
replayed DP policy fails more often than ``δ`` at the lower end of the exact Clopper–Pearson
interval (:func:`seqproj.worst_case_bracket.worst_case_lower`, 20 000 trials, seed ``5000 + M``), at
95 % and at 99 %.  Both are found to adjacency (``U(M_hi − 1) > δ``; ``lo(M_lo + 1) ≤ δ``) under the
same assumption as that search: ``p*``, ``U`` and ``lo`` nonincreasing in ``M``.

What is new is the order of the work (issue 25 §1, "work reused across ``M``"). One ``U`` costs
three or four DP solves on the refined grids, one ``lo`` a refined solve and a replay, but the
coarse solve ``p_c(M)`` (grid ``(25, 3, 16)``, one of ``U``'s own) costs about a tenth of ``U``, and

    U(M) = max_j p_{n_x^{(j)}} + |p_c − p_f| + e_act  ≥  p_f + |p_c − p_f|  ≥  p_c(M)

(``p_f`` the refined grid's value, which is ``p_{n_x^{(0)}}``).  So

1. **coarse crossing**: ``M_c`` = the smallest ``M`` with ``p_c(M) ≤ δ`` (geometric steps from
   ``M_theorem/9``, then bisection) — and ``U(M_c − 1) ≥ p_c(M_c − 1) > δ`` without computing it;
2. **upper end**: candidates ``m`` = the smallest ``M`` with ``p_c(M) + g ≤ δ``, ``g`` the last observed
   ``U − p_c`` (a correction that varies slowly with ``M``), each checked by computing ``U(m)``, until
   an adjacent pair ``U(M_hi − 1) > δ ≥ U(M_hi)`` is known (bisection after three candidates);
3. **lower end** (after checking that the replay at ``M_hi`` does not clear δ — if it did, ``U``
   would underestimate ``p*`` there and the cell is flagged ``consistent: false``): candidates from the replay rate predicted as ``r · p_c(M)``, ``r`` the last observed
   ratio of replay rate to ``p_c``, then the same adjacency rule on ``lo_{95}`` and on ``lo_{99}`` (the
   99 % end reuses the 95 % replays: same seed, same failure count).

``M_lo`` is the largest *evaluated* ``M`` whose replay clears δ; each such statement is exact at level
α/2 for its own ``M``, and the choice among the evaluated ones costs a union bound (theory
``#worst-case-table``).

Every evaluation is written to a journal (one JSON line) as soon as it is done, so an interrupted
run resumes without repeating one; ``python -m seqproj.worst_case_table`` runs a table of cells on
a pool of processes, largest ``T`` first, and prints each evaluation as it finishes.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

from proofs_check.engine import check_int, check_real, clopper_pearson

__all__ = ["CELLS", "DELTA", "STORED", "mstar_cell", "stored_table", "main"]

#: the table of issue 25: ε × T (δ = 0.05, sphere columns)
CELLS = tuple((eps, T) for eps in (0.5, 0.25, 0.1) for T in (100, 300, 1000, 10_000))
DELTA = 0.05
#: the bracket's grids and replay (as worst_case_upper / worst_case_lower by default)
COARSE = {"n_u": 25, "n_v": 3, "n_x": 16}
N_REPLAY = 20_000
#: candidates tried by prediction before falling back to bisection, per side
MAX_PREDICTED = 3


def _z(alpha: float) -> float:
    """Normal quantile of the CP interval's lower end at two-sided level ``1 − α`` (for predicting)."""
    from scipy import stats

    return float(stats.norm.isf(alpha / 2))


#: the numbers each kind of journal line carries
_FIELDS = {"coarse": ("p_c", "seconds"), "upper": ("upper", "seconds"), "lower": ("k", "n", "rate", "seconds")}


def _journal_entry(e, where: str) -> dict:
    """One journal line's evaluation, checked: an edited journal is refused with its line named,
    not met later as a traceback or a NaN inside the search."""
    if not isinstance(e, dict) or e.get("kind") not in _FIELDS:
        raise ValueError(f"{where}: not an evaluation of this table (kind must be one of {', '.join(_FIELDS)})")
    M = e.get("M")
    if not isinstance(M, int) or isinstance(M, bool) or M < 3:
        raise ValueError(f"{where}: M must be an integer ≥ 3, got {M!r}")
    for key in _FIELDS[e["kind"]]:
        v = e.get(key)
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
            raise ValueError(f"{where}: {key} must be a finite number, got {v!r}")
    if e["kind"] == "lower" and not (isinstance(e["k"], int) and isinstance(e["n"], int) and 0 <= e["k"] <= e["n"]):
        raise ValueError(f"{where}: k and n must be integers with 0 ≤ k ≤ n, got {e['k']!r}, {e['n']!r}")
    return e


class _Cell:
    """The evaluations of one cell, cached and journalled (``path``: JSON lines, or ``None``).  A
    journalled replay of another size than ``n`` is not reused (it is run again at ``n``)."""

    def __init__(self, eps, T, delta, n, path, log):
        self.eps, self.T, self.delta, self.n, self.path, self.log = eps, T, delta, n, path, log
        self.coarse, self.upper, self.lower = {}, {}, {}
        if path is not None and path.exists():
            for i, line in enumerate(path.read_text().splitlines(), start=1):
                if not line.strip():
                    continue
                try:
                    e = json.loads(line)
                except json.JSONDecodeError:            # a line cut by an interrupt: recomputed
                    continue
                e = _journal_entry(e, f"journal {path}, line {i}")
                if e["kind"] != "lower" or e["n"] == n:
                    getattr(self, e["kind"])[e["M"]] = e

    def _record(self, kind, e):
        getattr(self, kind)[e["M"]] = e
        if self.path is not None:
            with open(self.path, "a") as fh:
                fh.write(json.dumps(e) + "\n")
        self.log(f"[ε={self.eps:g} T={self.T}] {kind} M={e['M']}: "
                 + ", ".join(f"{k}={v:.5g}" if isinstance(v, float) else f"{k}={v}"
                             for k, v in e.items() if k in ("p_c", "upper", "rate", "lo95", "seconds")))

    def p_c(self, M):
        if M not in self.coarse:
            from .worst_case import worst_case_value

            t0 = time.perf_counter()
            p = worst_case_value(M, self.eps, self.T, **COARSE).p
            self._record("coarse", {"kind": "coarse", "M": M, "p_c": p,
                                    "seconds": round(time.perf_counter() - t0, 2)})
        return self.coarse[M]["p_c"]

    def U(self, M):
        if M not in self.upper:
            from .worst_case import worst_case_upper

            t0 = time.perf_counter()
            U, info = worst_case_upper(M, self.eps, self.T)
            self._record("upper", {"kind": "upper", "M": M, "upper": U, **info,
                                   "seconds": round(time.perf_counter() - t0, 2)})
        return self.upper[M]["upper"]

    def replay(self, M):
        """``(k, n)`` of the (49, 5, 16) policy replayed, seed ``5000 + M`` (as worst_case_lower)."""
        if M not in self.lower:
            from .worst_case_bracket import worst_case_lower

            t0 = time.perf_counter()
            lo, info = worst_case_lower(M, self.eps, self.T, n=self.n, seed=5000 + M, alpha=0.05)
            self._record("lower", {"kind": "lower", "M": M, "k": info["k"], "n": info["n"],
                                   "rate": info["rate"], "lo95": lo, "p_dp": info["p_dp"],
                                   "seed": info["seed"], "seconds": round(time.perf_counter() - t0, 2)})
        e = self.lower[M]
        return e["k"], e["n"]

    def lo(self, M, alpha):
        k, n = self.replay(M)
        return clopper_pearson(k, n, alpha)[0]


def _first_below(f, level, a, b):
    """Smallest integer ``M`` in ``(a, b]`` with ``f(M) ≤ level``, given ``f(a) > level ≥ f(b)``
    and ``f`` nonincreasing (bisection)."""
    while b - a > 1:
        m = (a + b) // 2
        a, b = (a, m) if f(m) <= level else (m, b)
    return b


def _coarse_level(c, level, a):
    """Smallest ``M > a`` with ``p_c(M) ≤ level`` (doubling steps, then bisection on the coarse DP)."""
    from .limits import M_MAX

    if level <= 0.0:
        return M_MAX
    # start from the coarse values already known: the largest M above the level, the smallest below
    known = c.coarse
    a = max([a] + [M for M, e in known.items() if M > a and e["p_c"] > level])
    below = [M for M, e in known.items() if M > a and e["p_c"] <= level]
    if below:
        return _first_below(c.p_c, level, a, min(below))
    step, b = 1, a + 1
    while c.p_c(b) > level:
        if b >= M_MAX:
            return M_MAX
        a, step = b, 2 * step
        b = min(M_MAX, b + step)
    return _first_below(c.p_c, level, a, b)


def _boundary(P, predict, a=None, b=None):
    """Adjacent ``(a, b)`` with ``P(a)`` true and ``P(b)`` false, ``P`` true below a point and false
    above it.  Up to :data:`MAX_PREDICTED` candidates come from ``predict(a, b)``; then (and whenever
    it returns ``None``) bisection, or geometric steps while an end is unknown.  ``a`` is ``2`` if
    ``P(3)`` is false."""
    from .limits import M_MAX

    tries = 0
    while a is None or b is None or b - a > 1:
        m = predict(a, b) if tries < MAX_PREDICTED else None
        if m is None:
            if a is not None and b is not None:
                m = (a + b) // 2
            elif b is not None:
                m = int(b / 1.25)
            else:
                m = 3 if a is None else math.ceil(a * 1.25)
        tries += 1
        lo_m = 3 if a is None else a + 1
        hi_m = M_MAX if b is None else b - 1
        m = min(max(int(m), lo_m), hi_m)
        if P(m):
            a = m
        else:
            b = m
            if m == 3:
                return 2, 3
    return a, b


def _nearest(done, a, b):
    """The evaluated ``M`` nearest to the middle of ``(a, b)`` (an unknown end counts as that ``M``
    itself), or ``None`` if nothing is evaluated: the reference for a prediction."""
    if not done:
        return None
    return min(sorted(done), key=lambda M: abs(M - ((M if a is None else a) + (M if b is None else b)) / 2))


def _known_ends(known, a=None, b=None):
    """Tighten ``(a, b)`` — ``P(a)`` true, ``P(b)`` false — with evaluations already made,
    ``known = {M: P(M)}``: the largest true ``M`` above ``a`` and the smallest false ``M`` above
    it (below ``b``).  A resumed search thus starts where the journal left it."""
    trues = [M for M, v in known.items() if v and (a is None or M > a) and (b is None or M < b)]
    if trues:
        a = max(trues)
    falses = [M for M, v in known.items() if not v and (a is None or M > a) and (b is None or M < b)]
    if falses:
        b = min(falses)
    return a, b


def mstar_cell(eps, T, *, delta=DELTA, n=N_REPLAY, journal=None, log=None) -> dict:
    """The bracket of one cell: ``{"M_hi", "M_lo_95", "M_lo_99", "M_c", …, "evals", "seconds"}``.

    ``n``: replay trials per lower evaluation.  ``journal``: a JSON-lines file of the cell's evaluations, read first (resume) and appended to.
    ``seconds`` sums the evaluations' wall times (those of earlier runs included).  The module
    docstring gives the search and the inequality ``U ≥ p_c`` that makes the coarse DP a free test."""
    from .bounds import sequential_jl_min_dim
    from .worst_case import check_problem

    _, eps, T, _, _, _ = check_problem(3, eps, T, "sphere", 1.0, 1.0)
    delta = check_real("delta", delta, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    n = check_int("n", n, lo=100, hi=10 ** 7)
    if journal is not None and not isinstance(journal, (str, os.PathLike)):
        raise TypeError(f"journal must be a file path or None, got {type(journal).__name__}")
    c = _Cell(eps, T, delta, n, None if journal is None else Path(journal), log or (lambda s: None))
    M_theorem = int(math.ceil(float(sequential_jl_min_dim(eps, delta, T))))

    # 1. the coarse crossing (resumed: from the largest M above δ and the smallest below it seen)
    a0, b0 = _known_ends({M: e["p_c"] > delta for M, e in c.coarse.items()})
    a_c, M_c = _boundary(lambda M: c.p_c(M) > delta,                # the first guess M_theorem / 9
                         lambda a, b: M_theorem / 9 if a is None and b is None else None, a=a0, b=b0)

    # 2. the upper end: P(M) = "U(M) > δ", free (and true) wherever p_c(M) > δ
    def above_U(M):
        return c.p_c(M) > delta or c.U(M) > delta

    def predict_U(a, b):
        ref = _nearest(c.upper, a, b)
        if ref is None:
            return M_c
        gap = c.upper[ref]["upper"] - c.p_c(ref)
        return _coarse_level(c, delta - gap, a if a is not None else M_c - 1)

    known_U = {M: e["upper"] > delta for M, e in c.upper.items()}
    _, M_hi = _boundary(above_U, predict_U, *_known_ends(known_U, a=a_c))

    # 3. the lower end at 95 % and 99 %: P(M) = "lo_α(M) > δ"
    def lower_end(alpha, a=None, b=None):
        z = _z(alpha)
        sd = math.sqrt(delta * (1 - delta) / n)

        def predict(a, b):
            ref = _nearest(c.lower, a, b)
            r = c.lower[ref]["rate"] / max(c.p_c(ref), 1e-300) if ref is not None else 0.85
            level = (delta + z * sd) / max(r, 1e-12)
            start = max(2, (a if a is not None else int(M_c / 1.5)) - 1)
            if c.p_c(start + 1) <= level:
                return start + 1
            return _coarse_level(c, level, start) - 1

        known = {M: c.lo(M, alpha) > delta for M in c.lower}
        return _boundary(lambda M: c.lo(M, alpha) > delta, predict, *_known_ends(known, a=a, b=b))

    # the bracket is consistent only if the replay at M_hi does not clear δ (else U underestimates p*)
    consistent = c.lo(M_hi, 0.05) <= delta
    lo95, _ = lower_end(0.05, b=M_hi)
    lo99, _ = lower_end(0.01, b=lo95 + 1 if lo95 >= 3 else 3)

    ev = {}
    for kind in ("coarse", "upper", "lower"):
        for M, e in getattr(c, kind).items():
            ev.setdefault(str(M), {"M": M}).update({k: v for k, v in e.items() if k not in ("kind", "M")}
                                                   if kind != "coarse" else {"p_c": e["p_c"]})
    for M, e in c.lower.items():
        ev[str(M)]["lo99"] = clopper_pearson(e["k"], e["n"], 0.01)[0]
    secs = sum(e["seconds"] for kind in ("coarse", "upper", "lower") for e in getattr(c, kind).values())
    return {"eps": eps, "T": T, "delta": delta, "n": n, "M_hi": M_hi, "M_lo_95": lo95 if lo95 >= 3 else None,
            "M_lo_99": lo99 if lo99 >= 3 else None, "M_c": M_c, "M_theorem": M_theorem,
            "consistent": consistent,
            "n_evals": {k: len(getattr(c, k)) for k in ("coarse", "upper", "lower")},
            "seconds": round(secs, 1), "evals": dict(sorted(ev.items(), key=lambda kv: int(kv[0])))}


#: the table computed for the theory page (``python -m seqproj.worst_case_table``, 2026-12-02)
STORED = Path(__file__).with_name("worst_case_table.json")


def stored_table() -> dict:
    """The cells of :data:`STORED`, keyed ``"<ε>_<T>"`` (the figure ``seqproj_worst_case_ratio``
    reads it; nothing is recomputed)."""
    return json.loads(STORED.read_text(encoding="utf-8"))["cells"]


def _run_cell(args):
    eps, T, delta, folder = args
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    journal = Path(folder) / f"eps{eps:g}_T{T}.jsonl"
    t0 = time.perf_counter()
    res = mstar_cell(eps, T, delta=delta, journal=journal,
                     log=lambda s: print(s, file=sys.stderr, flush=True))
    res["wall_s"] = round(time.perf_counter() - t0, 1)
    return res


def main(argv=None) -> int:
    """``python -m seqproj.worst_case_table [--cells 0.5:100 …] [--workers N] [--out FILE]``."""
    ap = argparse.ArgumentParser(prog="python -m seqproj.worst_case_table",
                                 description="The M*_worst bracket table (δ = 0.05, sphere columns), "
                                             "resumable: evaluations are journalled next to --out.")
    ap.add_argument("--cells", nargs="*", default=None, metavar="EPS:T",
                    help="cells to compute (default: ε ∈ {0.5, 0.25, 0.1} × T ∈ {100, 300, 1000, 10000})")
    ap.add_argument("--delta", type=float, default=DELTA)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="cells computed at once, one process each (default: all cores)")
    ap.add_argument("--out", default="worst_case_table.json",
                    help="the table (JSON); its journals go to OUT.d/")
    ns = ap.parse_args(argv)
    cells = CELLS
    if ns.cells:
        try:
            cells = tuple((float(e), int(t)) for e, t in (x.split(":") for x in ns.cells))
        except ValueError:
            ap.error(f"--cells takes EPS:T pairs such as 0.5:100, got {ns.cells}")
    from .worst_case import check_problem

    for e, t in cells:
        try:
            check_problem(3, e, t, "sphere", 1.0, 1.0)
        except (TypeError, ValueError) as exc:
            ap.error(f"--cells {e:g}:{t}: {exc}")
    if not 0.0 < ns.delta < 1.0:
        ap.error(f"--delta must lie in (0, 1), got {ns.delta}")
    if ns.workers < 1:
        ap.error(f"--workers must be ≥ 1, got {ns.workers}")
    out = Path(ns.out)
    folder = out.with_name(out.name + ".d")
    folder.mkdir(parents=True, exist_ok=True)
    order = sorted(cells, key=lambda c: (-c[1], c[0]))          # the longest cells first
    t0 = time.perf_counter()
    table = []
    jobs = [(e, t, ns.delta, str(folder)) for e, t in order]
    try:
        if ns.workers == 1:
            table = [_run_cell(j) for j in jobs]
        else:
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(max_workers=min(ns.workers, len(jobs))) as ex:
                table = list(ex.map(_run_cell, jobs))
    except KeyboardInterrupt:
        print(f"interrupted: every finished evaluation is in {folder}/; run the same command again to "
              "resume", file=sys.stderr)
        return 130
    wall = time.perf_counter() - t0
    doc = {"about": "M*_worst ∈ (M_lo, M_hi] per cell (seqproj.worst_case_table; theory "
                    "docs/theory/seqproj.md#worst-case-table); replays of n trials each, seed 5000 + M, "
                    "exact Clopper–Pearson lower ends; seconds = summed evaluation wall times, "
                    "wall_s = this run's wall time per cell",
           "delta": ns.delta, "workers": ns.workers, "wall_s": round(wall, 1),
           "cells": {f"{c['eps']:g}_{c['T']}": c for c in table}}
    out.write_text(json.dumps(doc, indent=1))
    print(f"{'ε':>5} {'T':>6} {'M_c':>5} {'(M_lo95, M_hi]':>16} {'M_lo99':>7} {'U/lower/coarse':>15} {'s':>7}")
    for c in sorted(table, key=lambda c: (-c["eps"], c["T"])):
        n = c["n_evals"]
        print(f"{c['eps']:>5g} {c['T']:>6} {c['M_c']:>5} {'(' + str(c['M_lo_95']) + ', ' + str(c['M_hi']) + ']':>16} "
              f"{str(c['M_lo_99']):>7} {str(n['upper']) + '/' + str(n['lower']) + '/' + str(n['coarse']):>15} "
              f"{c['seconds']:>7.0f}")
    print(f"M_lo: replays of the DP policy, {N_REPLAY} trials each (seed 5000 + M), exact Clopper–Pearson "
          "lower end at 95 % / 99 %; M_hi: the DP's upper estimate U(M) ≤ δ (an estimate, not a bound)")
    print(f"{len(table)} cells in {wall:.0f} s wall on {ns.workers} worker(s); table in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
