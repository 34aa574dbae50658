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
run resumes without repeating one.  A journal is data with an identity (issue 35): each line names
its cell (:func:`cell_identity`), the code that computed it (:func:`code_fingerprint`, a hash of the
sources of :data:`CODE_MODULES`) and its own SHA-256; on resume a line of another cell, of other
code, with a bad checksum, a probability outside ``[0, 1]`` or a rate other than ``k/n`` is refused
by line number (:class:`JournalError`), never merged.  ``python -m seqproj.worst_case_table`` runs a
table of cells, one process per cell, largest ``T`` first, and prints each evaluation as it
finishes; a refused line or a file-system error is one line on stderr and exit 2, Ctrl-C exit 130
and SIGTERM exit 143, with no worker left behind.
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

__all__ = ["CELLS", "DELTA", "STORED", "JOURNAL_FORMAT", "JournalError", "cell_identity", "code_fingerprint",
           "journal_line", "read_journal", "mstar_cell", "stored_table", "main"]

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
#: the journal format: every line names its cell, the code that computed it, and its own checksum
JOURNAL_FORMAT = "seqproj-worst-case-journal/2"
#: the modules whose source decides what an evaluation computes (U, p_c, the replay): their
#: sources' hash is every journal line's code fingerprint
CODE_MODULES = ("seqproj.worst_case", "seqproj.worst_case_kernel", "seqproj.worst_case_fast",
                "seqproj.worst_case_bracket", "seqproj.worst_case_replay", "seqproj.worst_case_table",
                "seqproj.kernels", "seqproj.bookkeeping", "seqproj.rng")
#: the replay's seed rule and level (as worst_case_lower is called below)
_SEED0, _ALPHA_LINE = 5000, 0.05


class JournalError(ValueError):
    """A journal line refused: the message names the file, the line and the reason."""


def code_fingerprint() -> str:
    """SHA-256 (first 16 hex digits) of the sources of :data:`CODE_MODULES`, read from their files
    without importing them.  A journal line carries it; a line of another fingerprint was computed
    by other code and is refused, never merged (issue 35, "journals are data with an identity")."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        import hashlib
        import importlib.util

        h = hashlib.sha256()
        for name in CODE_MODULES:
            spec = importlib.util.find_spec(name)
            if spec is None or not spec.origin:              # pragma: no cover - a broken install
                raise ImportError(f"cannot find the source of {name} for the journal fingerprint")
            h.update(name.encode() + b"\0" + Path(spec.origin).read_bytes() + b"\0")
        _FINGERPRINT = h.hexdigest()[:16]
    return _FINGERPRINT


_FINGERPRINT = None


def cell_identity(eps, T) -> dict:
    """What defines a cell's evaluations: ``ε``, ``T``, the columns and the coarse grid (the refined
    grids, the replay's grid and its seed rule ``5000 + M`` are in the code, hence in the code
    fingerprint; the replay size ``n`` is on each replay line).  ``δ`` is not part of it: no
    evaluation depends on ``δ`` (``p_c(M)``, ``U(M)`` and the replay are functions of ``M``, ``ε``,
    ``T`` and the grids); ``δ`` only chooses which ``M`` the search evaluates."""
    return {"eps": float(eps), "T": int(T), "columns": "sphere", "coarse": dict(COARSE)}


def _canonical(d: dict) -> bytes:
    return json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def _checksum(d: dict) -> str:
    import hashlib

    return hashlib.sha256(_canonical({k: v for k, v in d.items() if k != "sha256"})).hexdigest()


def journal_line(identity: dict, entry: dict) -> str:
    """One journal line: ``entry`` (``kind``, ``M`` and its numbers) with the format, the cell
    ``identity`` (:func:`cell_identity`), the :func:`code_fingerprint` and a SHA-256 of the line's
    canonical JSON (sorted keys, no spaces) without the checksum itself."""
    d = {**entry, "journal": JOURNAL_FORMAT, "cell": identity, "code": code_fingerprint()}
    d["sha256"] = _checksum(d)
    return json.dumps(d)


def _show_cell(c) -> str:
    if isinstance(c, dict):
        return f"ε = {c.get('eps')!r}, T = {c.get('T')!r}" + (
            f", coarse grid {c.get('coarse')}" if c.get("coarse") != COARSE else "")
    return repr(c)[:80]


def _move_hint(path) -> str:
    import shlex

    if path is None:
        return "; move the journal aside to recompute the cell"
    return f"; move the journal aside (mv {shlex.quote(str(path))} {shlex.quote(str(path) + '.refused')}) to recompute the cell"


def _is_prob(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and 0.0 <= v <= 1.0


def _journal_entry(e, where: str, identity: dict | None = None, path=None) -> dict:
    """One journal line's evaluation, checked: refused (:class:`JournalError`, naming ``where``, the
    file and line) unless it is a line of this format, its checksum matches, it belongs to the cell
    ``identity`` and to this code (:func:`code_fingerprint`), and its numbers are in range —
    ``p_c`` and ``upper`` probabilities in ``[0, 1]``, a replay's ``0 ≤ k ≤ n``, ``rate = k/n``,
    ``lo95`` the Clopper–Pearson lower end of ``(k, n)`` at 95 % and ``seed = 5000 + M``."""
    move = _move_hint(path)
    if not isinstance(e, dict):
        raise JournalError(f"{where}: not an evaluation of this table (a JSON object is needed){move}")
    if "journal" not in e:
        raise JournalError(f"{where}: written by an older version of seqproj.worst_case_table (its lines carry "
                           f"no cell, code fingerprint or checksum), so it cannot be checked{move}")
    if e["journal"] != JOURNAL_FORMAT:
        raise JournalError(f"{where}: format {str(e['journal'])[:60]!r} is not {JOURNAL_FORMAT!r} "
                           f"(a journal of another version){move}")
    if not isinstance(e.get("sha256"), str) or e["sha256"] != _checksum(e):
        raise JournalError(f"{where}: checksum mismatch (the line was edited or damaged){move}")
    if identity is not None and e.get("cell") != identity:
        raise JournalError(f"{where}: an evaluation of another cell ({_show_cell(e.get('cell'))}), not of this "
                           f"one ({_show_cell(identity)}){move}")
    if e.get("code") != code_fingerprint():
        raise JournalError(f"{where}: computed by another version of the code (fingerprint "
                           f"{str(e.get('code'))[:20]!r}, this code {code_fingerprint()!r}){move}")
    if e.get("kind") not in _FIELDS:
        raise JournalError(f"{where}: not an evaluation of this table (kind must be one of {', '.join(_FIELDS)})")
    M = e.get("M")
    if not isinstance(M, int) or isinstance(M, bool) or M < 3:
        raise JournalError(f"{where}: M must be an integer ≥ 3, got {M!r}")
    for key in _FIELDS[e["kind"]]:
        v = e.get(key)
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
            raise JournalError(f"{where}: {key} must be a finite number, got {v!r}")
    if not e["seconds"] >= 0:
        raise JournalError(f"{where}: seconds must be ≥ 0, got {e['seconds']!r}")
    if e["kind"] == "coarse" and not _is_prob(e["p_c"]):
        raise JournalError(f"{where}: p_c must be a probability in [0, 1], got {e['p_c']!r}")
    if e["kind"] == "upper" and not _is_prob(e["upper"]):
        raise JournalError(f"{where}: upper must be a probability in [0, 1], got {e['upper']!r}")
    if e["kind"] == "lower":
        k, n = e["k"], e["n"]
        if not (isinstance(k, int) and isinstance(n, int) and 0 <= k <= n and n >= 1):
            raise JournalError(f"{where}: k and n must be integers with 0 ≤ k ≤ n, n ≥ 1, got {k!r}, {n!r}")
        if not math.isclose(e["rate"], k / n, rel_tol=1e-12, abs_tol=1e-15):
            raise JournalError(f"{where}: rate {e['rate']!r} is not k/n = {k}/{n} = {k / n!r}")
        if e.get("seed") != _SEED0 + M:
            raise JournalError(f"{where}: seed must be {_SEED0} + M = {_SEED0 + M}, got {e.get('seed')!r}")
        if "p_dp" in e and not _is_prob(e["p_dp"]):
            raise JournalError(f"{where}: p_dp must be a probability in [0, 1], got {e['p_dp']!r}")
        lo = clopper_pearson(k, n, _ALPHA_LINE)[0]
        if not (isinstance(e.get("lo95"), (int, float)) and math.isclose(e["lo95"], lo, rel_tol=1e-9,
                                                                         abs_tol=1e-12)):
            raise JournalError(f"{where}: lo95 {e.get('lo95')!r} is not the 95 % Clopper–Pearson lower end "
                               f"of k = {k}, n = {n} ({lo!r})")
    return e


def read_journal(path: Path, identity: dict, log=None) -> list[tuple[int, dict]]:
    """The checked evaluations of a cell's journal, as ``(line number, entry)``.  A line that is not
    JSON was cut by an interrupt (its evaluation is recomputed, and ``log`` says so); every other
    defect is refused by line (:func:`_journal_entry`), as is a line that contradicts an earlier
    line of the same evaluation (same kind, ``M`` and replay size: its numbers differ by more than
    a relative 10⁻⁹, more than a parallel solve's rounding) or an upper estimate below the
    coarse value of its ``M`` (``U(M) ≥ p_c(M)``, module docstring).  ``[]`` if ``path`` does not
    exist; a ``path`` that is not a regular file is an :class:`OSError` naming it."""
    if not path.exists():
        return []
    if not path.is_file():
        raise IsADirectoryError(21 if path.is_dir() else 22, "journal is not a regular file", str(path))
    with open(path, "rb") as fh:
        raw = fh.read()
    out, seen = [], {}
    for i, bline in enumerate(raw.split(b"\n"), start=1):
        if not bline.strip():
            continue
        where = f"journal {path}, line {i}"
        try:
            e = json.loads(bline.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            if log is not None:
                log(f"{where}: not a JSON line (cut by an interrupt?): its evaluation is recomputed")
            continue
        e = _journal_entry(e, where, identity, path)
        key = (e["kind"], e["M"], e.get("n"))
        if key in seen:
            j, prev = seen[key]
            same = all(math.isclose(prev[k], e[k], rel_tol=1e-9, abs_tol=1e-12)
                       for k in _FIELDS[e["kind"]] if k != "seconds")
            if not same:
                raise JournalError(f"{where}: contradicts line {j} (the same {e['kind']} evaluation at M = "
                                   f"{e['M']} with other values){_move_hint(path)}")
            continue
        seen[key] = (i, e)
        out.append((i, e))
    coarse = {e["M"]: e["p_c"] for _, e in out if e["kind"] == "coarse"}
    for i, e in out:
        if e["kind"] == "upper" and e["M"] in coarse and e["upper"] < coarse[e["M"]] - 1e-9:
            raise JournalError(f"journal {path}, line {i}: upper {e['upper']!r} is below the coarse value "
                               f"p_c = {coarse[e['M']]!r} of M = {e['M']} (U ≥ p_c always){_move_hint(path)}")
    return out


class _Cell:
    """The evaluations of one cell, cached and journalled (``path``: JSON lines, or ``None``).  A
    journalled replay of another size than ``n`` is not reused (it is run again at ``n``)."""

    def __init__(self, eps, T, delta, n, path, log):
        self.eps, self.T, self.delta, self.n, self.path, self.log = eps, T, delta, n, path, log
        self.identity = cell_identity(eps, T)
        self.coarse, self.upper, self.lower = {}, {}, {}
        self._newline = False
        if path is not None:
            entries = read_journal(path, self.identity, log)
            for _, e in entries:
                if e["kind"] != "lower" or e["n"] == n:
                    getattr(self, e["kind"])[e["M"]] = e
            if path.exists() and path.stat().st_size:
                with open(path, "rb") as fh:
                    fh.seek(-1, os.SEEK_END)
                    self._newline = fh.read(1) != b"\n"       # a cut last line: start the next on its own
            if entries:
                log(f"[ε={eps:g} T={T}] resuming: {len(entries)} journalled evaluation(s) from {path}")

    def _record(self, kind, e):
        getattr(self, kind)[e["M"]] = e
        if self.path is not None:
            line = ("\n" if self._newline else "") + journal_line(self.identity, e) + "\n"
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                try:
                    os.write(fd, line.encode())            # one write: lines of two runs never interleave
                finally:
                    os.close(fd)
            except OSError as exc:
                raise OSError(exc.errno, f"cannot append to the journal: {exc.strerror}", str(self.path)) from None
            self._newline = False
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
            lo, info = worst_case_lower(M, self.eps, self.T, n=self.n, seed=_SEED0 + M, alpha=_ALPHA_LINE)
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


PROG = "python -m seqproj.worst_case_table"
#: seconds between "still computing" lines while no cell finishes
HEARTBEAT = 30.0


def _journal_path(folder, eps, T) -> Path:
    return Path(folder) / f"eps{eps:g}_T{T}.jsonl"


def _run_cell(args):
    eps, T, delta, folder = args
    journal = _journal_path(folder, eps, T)
    t0 = time.perf_counter()
    res = mstar_cell(eps, T, delta=delta, journal=journal,
                     log=lambda s: print(s, file=sys.stderr, flush=True))
    res["wall_s"] = round(time.perf_counter() - t0, 1)
    return res


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main process's main thread so that its workers are ended."""


def _on_sigterm(signum, frame):
    raise _Terminated()


class _Failed(Exception):
    """A cell's worker refused its input or met a file-system error: one line for the user."""


def _worker(job, conn, owner):
    """A cell's process: SIGINT ignored (Ctrl-C reaches the whole group; the main process ends the
    workers), SIGTERM at its default (the main process's ``terminate`` ends it at once, even inside a
    numba solve), ended with its owner (``PR_SET_PDEATHSIG`` on Linux, and a thread watching the
    parent elsewhere) so that a ``kill -9`` of the main process leaves no worker.  Sends
    ``("ok", result)`` or ``("error", one line)`` on ``conn``."""
    import signal
    import threading
    import traceback

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))      # PR_SET_PDEATHSIG
    except (OSError, AttributeError, TypeError):                            # pragma: no cover - not Linux
        pass

    def watch():
        while True:
            time.sleep(0.5)
            if os.getppid() != owner:
                os._exit(1)

    if os.getppid() != owner:
        os._exit(1)
    threading.Thread(target=watch, daemon=True).start()
    try:
        msg = ("ok", _run_cell(job))
    except (ValueError, TypeError, OSError, MemoryError) as exc:
        msg = ("error", _one_line(exc))
    except BaseException:                                                   # a bug: its traceback
        msg = ("crash", traceback.format_exc())
    try:
        conn.send(msg)
    finally:
        conn.close()


def _one_line(exc) -> str:
    if isinstance(exc, OSError) and exc.filename is not None:
        text = f"{exc.filename}: {exc.strerror or exc}"
    else:
        text = str(exc) or type(exc).__name__
    return " ".join(text.split())


def _run_pool(jobs, workers, folder):
    """Run ``jobs`` (one per cell) on at most ``workers`` processes, one process per cell; return
    their results in the order of ``jobs``.  Prints a line when a cell finishes and, while none
    does, every :data:`HEARTBEAT` s.  On any exit — a refused journal, a dead worker, Ctrl-C, SIGTERM
    — every worker still running is terminated (SIGTERM, then SIGKILL after 2 s) before returning."""
    import multiprocessing as mp
    from multiprocessing.connection import wait

    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    pending = list(enumerate(jobs))
    running = {}                                     # conn → (index, process, job)
    results = [None] * len(jobs)
    t0 = last = time.monotonic()
    try:
        while pending or running:
            while pending and len(running) < workers:
                i, job = pending.pop(0)
                recv, send = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_worker, args=(job, send, os.getpid()), daemon=True,
                                   name=f"wct-eps{job[0]:g}-T{job[1]}")
                proc.start()
                send.close()
                running[recv] = (i, proc, job)
            ready = wait(list(running), timeout=HEARTBEAT)
            now = time.monotonic()
            if not ready and now - last >= HEARTBEAT:
                busy = ", ".join(f"ε={j[0]:g} T={j[1]}" for _, _, j in running.values())
                print(f"{PROG}: still computing {busy} ({now - t0:.0f} s; {sum(r is not None for r in results)}"
                      f"/{len(jobs)} cells done)", file=sys.stderr, flush=True)
                last = now
            for conn in ready:
                i, proc, job = running.pop(conn)
                try:
                    msg = conn.recv()
                except (EOFError, OSError):
                    proc.join(5)
                    raise _Failed(f"the worker of cell ε={job[0]:g} T={job[1]} died (exit code {proc.exitcode}: "
                                  "a crash, a signal or running out of memory); every finished evaluation is "
                                  f"kept in {folder}/ — run the same command again to resume") from None
                finally:
                    conn.close()
                proc.join()
                if msg[0] == "error":
                    raise _Failed(msg[1])
                if msg[0] == "crash":
                    raise RuntimeError(f"the worker of cell ε={job[0]:g} T={job[1]} failed:\n{msg[1]}")
                results[i] = msg[1]
                last = now
                print(f"{PROG}: cell ε={job[0]:g} T={job[1]} done ({sum(r is not None for r in results)}/"
                      f"{len(jobs)})", file=sys.stderr, flush=True)
    finally:
        procs = [p for _, p, _ in running.values()]
        for p in procs:
            if p.is_alive():
                p.terminate()
        for p in procs:
            p.join(2.0)
            if p.is_alive():
                p.kill()
                p.join(2.0)
        for conn in running:
            conn.close()
    return results


class _Parser(argparse.ArgumentParser):
    def error(self, message):          # one line, exit 2 (argparse's default prints the usage too)
        self.exit(2, f"{PROG}: error: {message}\n")


def _check_out(out_arg: str) -> tuple[Path, Path]:
    """``(out, folder)`` for ``--out``: a file name in a folder that exists or can be made, beside a
    journal folder ``OUT.d/`` that can be written — checked by writing a byte there now, so that a
    read-only or full disk is refused before any work, not after it.  Raises ``ValueError``/``OSError``."""
    import tempfile

    out = Path(out_arg)
    if not out_arg.strip() or out.name in ("", ".", "..") or out_arg.endswith(os.sep):
        raise ValueError(f"--out must name a file (such as table.json), got {out_arg!r}")
    if out.is_dir():
        raise ValueError(f"--out {out_arg!r} is a folder; give a file name, such as {str(out / 'table.json')!r}")
    if out.exists() and not out.is_file():
        raise ValueError(f"--out {out_arg!r} exists and is not a regular file")
    if out.parent.exists() and not out.parent.is_dir():
        raise ValueError(f"--out {out_arg!r}: {out.parent} is not a folder")
    folder = out.with_name(out.name + ".d")
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"the journal folder {folder} exists and is not a folder")
    for d in (out.parent, folder):
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OSError(exc.errno, f"cannot create this folder: {exc.strerror}", str(d)) from None
        try:
            fd, probe = tempfile.mkstemp(dir=d, prefix=".wct-probe-")
            try:
                os.write(fd, b"x")
                os.fsync(fd)
            finally:
                os.close(fd)
                os.unlink(probe)
        except OSError as exc:
            raise OSError(exc.errno, f"cannot write in this folder: {exc.strerror}", str(d)) from None
    return out, folder


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise OSError(exc.errno, f"cannot write the table: {exc.strerror}", str(path)) from None


def main(argv=None) -> int:
    """``python -m seqproj.worst_case_table [--cells 0.5:100 …] [--workers N] [--out FILE]``.

    Exit codes: 0 the table is written; 2 a bad argument, a refused journal line or a file-system
    error (one line on stderr); 130 Ctrl-C, 143 SIGTERM (every finished evaluation is kept in the
    journals, and no worker process is left)."""
    import signal
    import threading

    ap = _Parser(prog=PROG, description="The M*_worst bracket table (δ = 0.05, sphere columns), "
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
    if ns.cells is not None:
        if not ns.cells:
            ap.error("--cells was given no cell (an empty variable?); name cells such as --cells 0.5:100, "
                     "or leave the option out for the full table")
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
    unique = tuple(dict.fromkeys(cells))
    if len(unique) < len(cells):
        dup = sorted({f"{e:g}:{t}" for e, t in cells if cells.count((e, t)) > 1})
        print(f"{PROG}: --cells names {', '.join(dup)} more than once; each cell is computed once",
              file=sys.stderr)
    cells = unique
    if not 0.0 < ns.delta < 1.0:
        ap.error(f"--delta must lie in (0, 1), got {ns.delta}")
    if ns.workers < 1:
        ap.error(f"--workers must be ≥ 1, got {ns.workers}")
    in_main = threading.current_thread() is threading.main_thread()
    old_term = signal.signal(signal.SIGTERM, _on_sigterm) if in_main else None
    folder = None
    try:
        out, folder = _check_out(ns.out)
        order = sorted(cells, key=lambda c: (-c[1], c[0]))          # the longest cells first
        done = 0
        for e, t in order:                # every journal checked now: a bad line stops the run before work
            done += len(read_journal(_journal_path(folder, e, t), cell_identity(e, t)))
        workers = min(ns.workers, len(order))
        print(f"{PROG}: {len(order)} cell(s) on {workers} worker process(es); evaluations journalled in "
              f"{folder}/" + (f" ({done} already there, reused)" if done else ""), file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        table = _run_pool([(e, t, ns.delta, str(folder)) for e, t in order], workers, folder)
        wall = time.perf_counter() - t0
        doc = {"about": "M*_worst ∈ (M_lo, M_hi] per cell (seqproj.worst_case_table; theory "
                        "docs/theory/seqproj.md#worst-case-table); replays of n trials each, seed 5000 + M, "
                        "exact Clopper–Pearson lower ends; seconds = summed evaluation wall times, "
                        "wall_s = this run's wall time per cell",
               "delta": ns.delta, "workers": ns.workers, "wall_s": round(wall, 1),
               "cells": {f"{c['eps']:g}_{c['T']}": c for c in table}}
        _write_atomic(out, json.dumps(doc, indent=1))
    except KeyboardInterrupt as exc:
        what = "terminated (SIGTERM)" if isinstance(exc, _Terminated) else "interrupted"
        kept = (f"; every finished evaluation is kept in {folder}/ — run the same command again to resume"
                if folder is not None else "")
        print(f"{PROG}: {what}{kept}", file=sys.stderr, flush=True)
        return 143 if isinstance(exc, _Terminated) else 130
    except (_Failed, JournalError, ValueError, OSError) as exc:
        print(f"{PROG}: error: {_one_line(exc)}", file=sys.stderr, flush=True)
        return 2
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
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
