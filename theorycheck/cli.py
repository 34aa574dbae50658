"""The ``theorycheck`` command line (also ``python -m theorycheck``; ``python -m proofs_check`` is an alias).

Commands: ``list``, ``verify``, ``figs``, ``report``, ``diff``, ``reproduce``, ``calibrate``.  Exit status:

* 0 — every claim ran to a verdict (a refutation is a result, not an error) and no
  ``--fail-on`` condition is met;
* 1 — a ``--fail-on`` condition is met (each claim named on stderr);
* 2 — bad input, one line naming the problem (also: a claims file that fails or
  exits while it is imported, an output folder in use, a Dask scheduler that has
  no worker past its deadline or is lost);
* 3 — a claim's own code failed (raised, called ``sys.exit``/``os._exit``, or
  its worker process died): one line per claim naming it and the ``file:line``,
  no verdict for it; the other claims still run.  3 wins over 1 and 0, so a
  ``--fail-on`` gate never passes on a claim that was not checked;
* 130 — Ctrl-C, 143 — SIGTERM: every finished chunk is kept (``--resume``).

``THEORYCHECK_DEBUG=1`` shows the full traceback behind a one-line error.
Output printed by claim code goes to stderr, never into ``--json`` stdout.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
import traceback
from contextlib import contextmanager

from .env import debug_enabled

__all__ = ["main"]

EXIT_USAGE = 2
EXIT_CLAIM_FAILED = 3
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143

#: A run still going after this many seconds prints progress lines on stderr (terminal or not).
PROGRESS_AFTER_S = 2.0
#: With no claim or figure finished for this long, a "still running" line is printed.
HEARTBEAT_S = 15.0


def _duration(s: float) -> str:
    """``42 s``, ``3 min 05 s``, ``1 h 02 min`` (rounded to the second)."""
    s = max(0, int(round(s)))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {(s % 3600) // 60:02d} min"


class _ProgressLines:
    """Progress of a run as plain lines on stderr — for a terminal and for a log file alike.

    Nothing is printed by a run that ends within :data:`PROGRESS_AFTER_S` seconds.  After
    that: one first line (what is running, how much is done), then one line per finished
    claim or figure with its count and an ETA, and a "still running" line whenever
    :data:`HEARTBEAT_S` seconds pass without one (a slow claim is not mistaken for a hang).

    The ETA is ``elapsed · (1 − f) / f`` where ``f`` is the fraction of the work done:
    finished claims count 1 each and a running claim ``done / total`` of its chunks (from
    the engine's progress callback); it assumes the rest runs at the average pace so far, so
    it is a rough forecast, not a bound.  Figures after the claims have their own count."""

    def __init__(self, n_claims=None, n_figures: int = 0, *, stream=None, what: str = "verify",
                 poll=None, after_s=None, heartbeat_s=None):
        import threading

        # n_claims None: still loading the claims (the clock runs from the start of the command)
        self.n, self.nf, self.what = (None if n_claims is None else int(n_claims)), int(n_figures), what
        self.stream = stream if stream is not None else sys.stderr
        self.poll = poll
        self.after_s = float(PROGRESS_AFTER_S if after_s is None else after_s)
        self.heartbeat_s = float(HEARTBEAT_S if heartbeat_s is None else heartbeat_s)
        self.done, self.fig_done, self.partial = 0, 0, {}
        self.lock = threading.RLock()
        self.t0 = time.monotonic()
        self.shown = False
        self.last_line = self.t0
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._run, name="theorycheck-progress", daemon=True)

    # -- events -----------------------------------------------------------------------
    def set_work(self, n_claims: int, n_figures: int = 0, poll=None) -> None:
        """The claims (and figures) selected, once loaded; a line if the start was announced."""
        with self.lock:
            self.n, self.nf = int(n_claims), int(n_figures)
            if poll is not None:
                self.poll = poll
            if self.shown:
                figs = f" and build {self.nf} figures" if self.nf else ""
                self._line(f"{self.what}: claims loaded; {self.n} claims to verify{figs}", force=True)

    def tracker(self, claim_id):
        """The engine's per-claim progress callback ``update(done, total)`` (chunks)."""
        def update(done, total):
            with self.lock:
                if total:
                    self.partial[claim_id] = min(1.0, float(done) / float(total))
        return update

    def claim_done(self, claim_id: str, verdict: str, elapsed_s=None) -> None:
        with self.lock:
            self.partial.pop(claim_id, None)
            self.done += 1
            took = f" ({elapsed_s:.1f} s)" if isinstance(elapsed_s, (int, float)) else ""
            self._line(f"[{self.done}/{self.n} claims] {verdict:<12} {claim_id}{took}", force=False)

    def figure_done(self, name: str) -> None:
        with self.lock:
            self.fig_done += 1
            self._line(f"[{self.fig_done}/{self.nf} figures] {name}", force=False)

    # -- output -------------------------------------------------------------------------
    def _eta(self, now: float) -> str:
        elapsed = now - self.t0
        if self.n is None:
            return ""                                     # no estimate before the claims are counted
        if self.n and self.done < self.n:
            f = (self.done + sum(self.partial.values())) / self.n
            tail = f", then {self.nf} figures" if self.nf else ""
            return (f"ETA {_duration(elapsed * (1 - f) / f)} for the claims{tail}" if f > 0
                    else f"ETA unknown until a claim finishes{tail}")
        if self.nf and self.fig_done < self.nf:
            if self.fig_done == 0:
                return "ETA unknown until a figure is built"
            # the figures' pace: time since the claims finished (or the start) per figure
            start = getattr(self, "figures_from", self.t0)
            per = (now - start) / self.fig_done
            return f"ETA {_duration(per * (self.nf - self.fig_done))}"
        return "finishing"

    def _line(self, text: str, *, force: bool) -> None:
        now = time.monotonic()
        if not self.shown:
            if not force and now - self.t0 < self.after_s:
                return
            self.shown = True
        if self.n is not None and self.done == self.n and not hasattr(self, "figures_from"):
            self.figures_from = now
        try:
            eta = self._eta(now)
            print(f"theorycheck: {text} · {_duration(now - self.t0)} elapsed" + (f" · {eta}" if eta else ""),
                  file=self.stream, flush=True)
        except (OSError, ValueError):
            pass
        self.last_line = now

    def _run(self) -> None:
        while not self.stop_event.wait(0.25):
            if self.poll is not None:
                try:
                    self.poll(self)
                except Exception:               # progress must never break the run
                    pass
            with self.lock:
                now = time.monotonic()
                if not self.shown and now - self.t0 >= self.after_s:
                    figs = f" and build {self.nf} figures" if self.nf else ""
                    what = (f"loading claims" if self.n is None
                            else f"{self.n} claims to verify{figs}, {self.done} done")
                    self._line(f"{self.what}: {what}", force=True)            # --help names --quiet
                elif self.shown and self.n is None and now - self.last_line >= self.heartbeat_s:
                    self._line(f"{self.what}: still loading the claims", force=True)
                elif self.shown and now - self.last_line >= self.heartbeat_s:
                    running = sorted(self.partial)
                    who = f" ({', '.join(running[:3])}{' …' if len(running) > 3 else ''})" if running else ""
                    if self.n and self.done < self.n:
                        self._line(f"[{self.done}/{self.n} claims] still running{who}", force=True)
                    else:
                        self._line(f"[{self.fig_done}/{self.nf} figures] still running", force=True)

    def start(self) -> "_ProgressLines":
        if not self.thread.is_alive() and not self.stop_event.is_set():
            self.thread.start()
        return self

    def stop(self) -> None:
        """Stop the clock thread (no more lines)."""
        self.stop_event.set()
        if self.thread.is_alive():
            self.thread.join(timeout=5)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        if self.poll is not None and exc[0] is None:
            try:
                self.poll(self)
            except Exception:
                pass
        return False


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that every ``finally`` shuts its pool down."""


def _on_sigterm(signum, frame):
    raise _Terminated()


@contextmanager
def _claim_output_to_stderr():
    """While claim code runs in this process: its ``print`` goes to stderr (stdout is data)."""
    from contextlib import redirect_stdout

    try:
        sys.stdout.flush()
    except (OSError, ValueError, AttributeError):
        pass
    with redirect_stdout(sys.stderr):
        yield


def _report_claim_failure(failure) -> None:
    """One line for a claim whose own code failed (the traceback with THEORYCHECK_DEBUG)."""
    if debug_enabled() and failure.trace:
        print(failure.trace.rstrip(), file=sys.stderr)
    hint = "" if debug_enabled() else " (THEORYCHECK_DEBUG=1 shows the traceback)"
    print(f"theorycheck: {failure}; no verdict{hint}", file=sys.stderr, flush=True)


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (argparse's default prints usage too)
        self.exit(EXIT_USAGE, f"theorycheck: error: {message}\n")


def _int_arg(name, lo, hi=None):
    """argparse type: an integer in ``[lo, hi]`` named ``name`` in its error message."""
    what = "a positive integer" if lo == 1 else "a non-negative integer"
    if hi is not None:
        what += f" ≤ {hi:g}" if hi >= 10 ** 6 else f" ≤ {hi}"

    def conv(text):
        from proofs_check.engine.validate import shown

        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be {what}, got {shown(text)}") from None
        if v < lo or (hi is not None and v > hi):
            raise argparse.ArgumentTypeError(f"{name} must be {what}, got {shown(v)}")
        return v
    return conv


def _alpha(text):
    """argparse type: α by the engine's rule (:func:`proofs_check.engine.check_alpha`)."""
    from proofs_check.engine.validate import check_alpha

    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--alpha must be a number in (0, 1), got {text!r}") from None
    try:
        return check_alpha(v)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"--{exc}") from None


def _folder(name):
    """argparse type: a folder name (not empty)."""
    def conv(text):
        if not text.strip():
            raise argparse.ArgumentTypeError(f"{name} must name a folder, got {text!r}")
        if "\0" in text:
            raise argparse.ArgumentTypeError(f"{name} must not contain a NUL character")
        return text
    return conv


def _fail_on(text):
    from .cli_format import parse_fail_on

    try:
        return parse_fail_on(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def fmt_opt(q):
    from .cli_format import FORMATS

    q.add_argument("--format", choices=FORMATS, default=None,
                   help="table (terminal default), plain (pipes: one tab-separated line per row, never "
                        "wrapped), markdown or json")


def fail_on_opt(q):
    from .cli_format import FAIL_ON

    q.add_argument("--fail-on", type=_fail_on, default=(), metavar="LIST",
                   help="exit with status 1 if any verdict meets one of these comma-separated "
                        "conditions (for CI): " + "; ".join(f"{k} = {v}" for k, v in FAIL_ON.items()))


def fdr_opt(q):
    q.add_argument("--fdr", action="store_true",
                   help="multiplicity across the run: mark which refutations survive FDR ≤ α (e-BH over the "
                        "run's e-values, Wang & Ramdas 2022) and the family-wise (Bonferroni) reading, and "
                        "print the statement")


def _print_fdr(results, alpha, stream) -> dict:
    """The multiplicity statement of ``results`` at ``alpha`` (``--fdr``); returns, per
    refuted claim, its mark."""
    from proofs_check.engine.multiplicity import fdr_statement, run_multiplicity

    m = run_multiplicity(results, alpha)
    for line in fdr_statement(m):
        print(line, file=stream)
    marks = {c: ("survives FDR (e-BH)" if c in m.refuted_fdr else "not FDR-surviving (e-BH)") for c in m.refuted}
    marks.update({c: "no e-value: outside the FDR family" for c in m.refuted_outside})
    return marks


def build_parser() -> argparse.ArgumentParser:
    from proofs_check.engine.executors import EXECUTORS
    from proofs_check.engine.executors import MAX_WORKERS
    from proofs_check.engine.limits import MAX_BUDGET

    from proofs_check._version import __version__

    p = _Parser(prog="theorycheck", description="Check the mathematics of exploration and LLM-RL theory numerically.")
    p.add_argument("--version", action="version", version=f"theorycheck {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    q = sub.add_parser("list", help="list claims with kind, source and label")
    q.add_argument("pattern", nargs="*", metavar="[FILE.py ...] PATTERN",
                   help="claims files of your own (optional), then claim ids, dotted prefixes (e.g. seqproj) or "
                        "globs: the claims any of them selects")
    _user_opt(q)
    q.add_argument("--paper", metavar="KEY", help="only claims citing this paper (see --papers)")
    q.add_argument("--papers", action="store_true", help="list the paper keys with title and URL")
    q.add_argument("--json", action="store_true", help="one JSON object per line per claim (= --format json)")
    fmt_opt(q)

    def run_opts(q, quick_help):
        q.add_argument("--seed", type=_int_arg("--seed", 0), default=0, help="root seed (default 0)")
        q.add_argument("--alpha", type=_alpha, default=0.01, help="error level of verdicts, in (0,1) (default 0.01)")
        q.add_argument("--executor", choices=EXECUTORS, default=None,
                       help="where chunks run (default auto: threads on all cores, serial on one; dask if "
                            "--scheduler); verdicts are identical on every executor")
        q.add_argument("--workers", type=_int_arg("--workers", 1, MAX_WORKERS), default=None,
                       help="parallel workers (default: all cores)")
        q.add_argument("--scheduler", default=None, help="Dask scheduler address, e.g. tcp://host:8786")
        q.add_argument("--quick", action="store_true", help=quick_help)
        q.add_argument("-q", "--quiet", action="store_true",
                       help="no progress lines on stderr (by default a run that lasts more than "
                            f"{PROGRESS_AFTER_S:g} s prints one line per finished claim with a count and an "
                            "ETA, terminal or not)")

    q = sub.add_parser("verify", help="verify claims and print verdicts")
    q.add_argument("target", nargs="*", metavar="[FILE.py ...] TARGET",
                   help="claim ids, dotted prefixes (e.g. seqproj) or globs — the claims any of them selects, "
                        "each once; a pattern selecting nothing is an error; claims files of your own "
                        "(FILE.py) may come anywhere (then TARGET is optional: all their claims)")
    _user_opt(q)
    q.add_argument("--budget", type=_int_arg("--budget", 1, MAX_BUDGET), default=None,
                   help="units of work per claim (trials, cases, evaluations, replicates)")
    run_opts(q, "use each claim's small quick budget")
    q.add_argument("--out", type=_folder("--out"), default="theorycheck-results",
                   help="folder for per-chunk result files, and for this run's results.jsonl and "
                        "report.json (provenance: versions, commit, seed, α, budgets, claim fingerprints), "
                        "which `theorycheck diff` and `report --from` read (default theorycheck-results)")
    q.add_argument("--resume", action="store_true", help="continue from the result files in --out")
    q.add_argument("--fixed", action="store_true",
                   help="probability claims: run the whole budget and decide by Clopper–Pearson "
                        "(default: anytime-valid early stopping)")
    q.add_argument("--json", action="store_true", help="one JSON object per line per claim (= --format json)")
    fmt_opt(q)
    fail_on_opt(q)
    fdr_opt(q)

    q = sub.add_parser("figs", help="build the paper figures (PDF, PNG and data)")
    q.add_argument("pattern", nargs="*", metavar="[FILE.py ...] [PATTERN]",
                   help="figure name or glob; before it, files of your own that register figures "
                        "(then only their figures are built)")
    _user_opt(q)
    q.add_argument("--list", action="store_true", help="list the figures with their captions and claims; build nothing")
    q.add_argument("--out", type=_folder("--out"), default="figures", help="output folder (default figures)")
    q.add_argument("--quick", action="store_true", help="small, fast versions")
    q.add_argument("--seed", type=_int_arg("--seed", 0), default=0)

    q = sub.add_parser("calibrate", help="measure the wrong-verdict rate of every claim kind on this machine",
                       add_help=False)
    q.add_argument("rest", nargs=argparse.REMAINDER, help="options of `theorycheck calibrate --help`")

    q = sub.add_parser("report", help="verify every claim and build every figure into a markdown report")
    run_opts(q, "quick budgets and quick figures (a few minutes)")
    q.add_argument("--out", type=_folder("--out"), default=None, help="report folder (default theorycheck-report)")
    q.add_argument("--rerender", action="store_true",
                   help="re-render OUT/report.md and report.html from OUT/results.jsonl without running anything")
    q.add_argument("--from", dest="from_path", metavar="RESULTS", default=None,
                   help="re-render from a results.jsonl, report.json or report folder without running "
                        "anything (into --out if given, else beside RESULTS)")
    q.add_argument("pattern", nargs="*", metavar="[FILE.py ...] PATTERN",
                   help="restrict to claims matching any of these ids, prefixes or globs (and to the figures "
                        "that support them); claims files of your own (then only their claims)")
    _user_opt(q)
    fail_on_opt(q)
    fdr_opt(q)

    q = sub.add_parser("diff", help="what changed between two runs: verdicts, estimates moved beyond their "
                                    "intervals, fingerprints, new and removed claims, headline findings")
    q.add_argument("run_a", metavar="RUN_A", help="report folder, results.jsonl, report.json or a file of "
                                                  "`verify --json` lines")
    q.add_argument("run_b", metavar="RUN_B", help="the same for the run to compare with RUN_A")
    q.add_argument("--no-findings", action="store_true",
                   help="do not compare the headline findings' sentences (faster: loads no claims)")
    q.add_argument("--json", action="store_true", help="one JSON object (= --format json)")
    fmt_opt(q)

    q = sub.add_parser("reproduce", help="re-evaluate an inequality claim at a point (a counterexample's "
                                         "reproduce line)")
    q.add_argument("claim", nargs="+", metavar="[FILE.py] CLAIM", help="the claim id (after its claims file, if any)")
    q.add_argument("--point", required=True,
                   help="JSON: a list of every coordinate, or {\"name\": value, ...} (others at their default)")
    q.add_argument("--json", action="store_true", help="print the evaluation as one JSON object")
    _user_opt(q)
    return p


def _user_opt(q):
    q.add_argument("-m", "--module", dest="modules", action="append", default=[], metavar="MODULE",
                   help="a module of your own that declares claims (and figures); repeatable")


# ---------------------------------------------------------------------------

@contextmanager
def _progress(enabled: bool):
    """A rich progress bar on stderr (transient), or a no-op."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True) as prog:
        yield prog


def _tracker(prog, name, tasks):
    if prog is None:
        return None
    task = prog.add_task(name, total=None)
    tasks[name] = task

    def update(done, total):
        prog.update(task, completed=done, total=total)
    return update


def _finish(prog, tasks, r):
    """Close a claim's bar: a run that stopped before its budget says so instead of freezing."""
    task = tasks.pop(r.claim, None)
    if prog is None or task is None:
        return
    t = next((t for t in prog.tasks if t.id == task), None)
    if t is not None and t.total and t.completed < t.total:
        n = getattr(r, "n", None)
        at = f" at n = {n:,}" if isinstance(n, int) else ""
        prog.update(task, total=t.completed, description=f"{r.claim}: {r.verdict}, stopped early{at}")
    else:
        prog.update(task, description=f"{r.claim}: {r.verdict}")


def _format(args) -> str:
    from .cli_format import default_format

    if getattr(args, "json", False):
        return "json"
    return args.format or default_format()


def _is_claims_file(text: str) -> bool:
    return text.endswith(".py") or (os.sep in text and os.path.isfile(text))


def _load_user(args) -> None:
    """Claims files among the positional words and ``-m`` modules: load them.

    Sets ``args.user_claims`` (their claims, or ``None`` when none was given),
    ``args.user_figures`` (figures they registered) and leaves one pattern (or
    ``None``) in the positional attribute (``target`` or ``pattern``)."""
    attr = "target" if hasattr(args, "target") else "pattern" if hasattr(args, "pattern") else None
    words = list(getattr(args, attr) or []) if attr else []
    files = [w for w in words if _is_claims_file(w)]
    rest = list(dict.fromkeys(w for w in words if not _is_claims_file(w)))     # each pattern once
    if attr == "pattern" and args.command == "figs" and len(rest) > 1:
        raise ValueError(f"give one figure name or glob, got {len(rest)}: {' '.join(rest)} "
                         f"(files of your own end in .py)")
    if attr:                 # list/verify/report: the patterns (their union), or None for "all"
        setattr(args, attr, (rest[0] if rest else None) if args.command == "figs" else (rest or None))
    specs = files + list(getattr(args, "modules", []) or [])
    args.user_claims, args.user_figures = None, None
    if not specs:
        return
    from proofs_check.engine.registry import load_user_claims

    want_figures = args.command in ("figs", "report")
    found: dict = {}
    for spec in specs:
        if args.command == "figs":
            try:
                load_user_claims(spec)
            except ValueError as exc:
                if "registers no claim" not in str(exc):
                    raise
        else:
            for c in load_user_claims(spec):
                found[c.id] = c
    args.user_claims = [found[k] for k in sorted(found)]
    if want_figures:
        import paper_figs
        from proofs_check.engine.registry import _PATH_MODULES

        mods = {m for m, p in _PATH_MODULES.items() if p in {os.path.realpath(f) for f in files}}
        mods |= set(getattr(args, "modules", []) or [])
        args.user_figures = sorted(n for n, fn in paper_figs.figures().items()
                                   if any(getattr(fn, "__module__", "") == m
                                          or getattr(fn, "__module__", "").startswith(m + ".") for m in mods))


def _chosen(args, patterns, *, every: bool = False):
    """The claims a command runs: the user's own (filtered by ``patterns``) when
    claims files or modules were given, else the registry's.

    ``patterns`` (a list, or ``None`` for all): the union of the claims each selects
    (:func:`proofs_check.engine.registry.matches`: an id, a dotted prefix or a glob), each
    claim once, in id order; a pattern that selects nothing is an error naming it — a typo
    in one of several patterns is not silently dropped."""
    if isinstance(patterns, str):
        patterns = [patterns]
    if getattr(args, "user_claims", None) is None:
        if not patterns:
            if every:
                from proofs_check.engine import claims

                return claims()
            raise ValueError("give a claim id, dotted prefix or glob (e.g. selftest), or a claims file "
                             "(my_claims.py) or module (-m mypkg.claims)")
        return _union([_select(p) for p in patterns])
    if not patterns:
        return args.user_claims
    from proofs_check.engine.registry import matches

    picked = []
    for p in patterns:
        found = [c for c in args.user_claims if matches(c.id, p)]
        if not found:
            raise ValueError(f"pattern {p!r} matches none of the claims loaded "
                             f"({', '.join(c.id for c in args.user_claims[:6])})")
        picked.append(found)
    return _union(picked)


def _union(groups):
    """The claims of ``groups`` (lists of claims), each id once, sorted by id."""
    by_id = {}
    for g in groups:
        for c in g:
            by_id.setdefault(c.id, c)
    return [by_id[k] for k in sorted(by_id)]


def _select(pattern):
    """Claims matching ``pattern``; a pattern matching nothing gets a "did you mean"."""
    from .cli_format import suggest
    from proofs_check.engine import claims

    found = claims(pattern)
    if not found:
        raise ValueError(f"pattern {pattern!r} matches no claim{suggest(pattern, [c.id for c in claims()])}")
    return found


def _listed():
    """Claim metadata for ``list``: from the catalogue cache unless claims were registered
    in this process (a user module given with ``-m`` or a path), which the cache cannot know."""
    from .catalogue_cache import listed_claims
    from proofs_check.engine.registry import registered_ids

    return listed_claims(fresh=bool(registered_ids()))


def _cmd_list(args) -> int:
    from .cli_format import print_json, print_rows
    from proofs_check.papers import PAPERS, paper

    fmt = _format(args)
    listed = _listed() if args.user_claims is None else args.user_claims
    if args.papers:
        cited = {}
        for c in listed:
            for key in c.papers:
                cited[key] = cited.get(key, 0) + 1
        rows = [(p.key, cited.get(p.key, 0), p.cite(), p.url) for p in PAPERS.values()]
        if fmt == "json":
            for key, n, cite, url in rows:
                print_json({"paper": key, "claims": n, "cite": cite, "url": url})
        else:
            print_rows(fmt, f"{len(rows)} papers", ["paper", "claims", "cite", "url"], rows, no_wrap=2)
        return 0
    found = listed
    if args.pattern:
        from .cli_format import suggest
        from proofs_check.engine.registry import matches

        for p in args.pattern:             # a pattern that lists nothing is named (not dropped)
            if not any(matches(c.id, p) for c in listed):
                raise ValueError(f"pattern {p!r} matches no claim{suggest(p, [c.id for c in listed])}")
        found = [c for c in listed if any(matches(c.id, p) for p in args.pattern)]
    if args.paper is not None:
        paper(args.paper)                  # ValueError listing the keys if unknown
        found = [c for c in found if args.paper in c.papers]
    if fmt == "json":
        for c in found:
            print_json(c.describe())
        return 0
    print_rows(fmt, f"{len(found)} claims", ["claim", "kind", "label", "role", "source", "statement"],
               [(c.id, c.kind, c.label, c.role + (f" (expect {c.expected})" if c.expected else ""),
                 c.source, c.statement) for c in found])
    return 0


def _verify_many(selected, args, *, out, resume, method, quick, show_progress, failures=None, lines=None):
    """Results of ``selected`` as they are decided.  A claim whose own code fails
    (:func:`proofs_check.engine.executors.claim_failure`) is reported in one line
    and appended to ``failures``; the run goes on with the claims not yet decided.
    Claim code's prints go to stderr while it runs.  Progress: a bar on a terminal
    (``show_progress``), else the plain lines of ``lines`` (:class:`_ProgressLines`)."""
    from proofs_check.engine import verify_claims
    from proofs_check.engine.executors import claim_failure

    tasks: dict = {}
    todo = list(selected)
    with _progress(show_progress) as prog:
        while todo:
            gen = verify_claims(todo, executor=args.executor, workers=args.workers,
                                scheduler=args.scheduler, budget=getattr(args, "budget", None),
                                seed=args.seed, alpha=args.alpha, quick=quick, out=out, resume=resume,
                                method=method,
                                progress_for=lambda c: (_tracker(prog, c.id, tasks) if prog is not None
                                                        else lines.tracker(c.id) if lines is not None
                                                        else None),
                                across_claims=True)
            try:
                while True:
                    with _claim_output_to_stderr():
                        try:
                            r = next(gen)
                        except StopIteration:
                            todo = []
                            break
                    todo = [c for c in todo if c.id != r.claim]
                    _finish(prog, tasks, r)
                    if lines is not None:
                        lines.claim_done(r.claim, r.verdict, r.elapsed_s)
                    yield r
            except Exception as exc:
                failure = claim_failure(exc)
                if failure is None or failure.claim not in {c.id for c in todo}:
                    raise
                todo = [c for c in todo if c.id != failure.claim]
                task = tasks.pop(failure.claim, None)
                if prog is not None and task is not None:
                    prog.remove_task(task)
                _report_claim_failure(failure)
                if lines is not None:
                    lines.claim_done(failure.claim, "FAILED")
                if failures is not None:
                    failures.append(failure)
            finally:
                gen.close()


def _exit_status(results, conditions) -> int:
    """0, or 1 (printing why) if a ``--fail-on`` condition is met."""
    from .cli_format import EXIT_FAILED, failing

    bad = failing(results, conditions)
    for claim, why in bad:
        print(f"theorycheck: --fail-on {','.join(conditions)}: {claim}: {why}", file=sys.stderr)
    return EXIT_FAILED if bad else 0


def _cmd_verify(args) -> int:
    selected = _chosen(args, args.target)
    fmt = _format(args)
    rows, results, failures = [], [], []
    show = fmt != "json" and sys.stderr.isatty() and not args.quiet
    lines = getattr(args, "progress_lines", None)
    if show and lines is not None:         # a terminal table run: the bar takes over
        lines.stop()
        lines = None
    elif lines is not None:
        lines.set_work(len(selected))
    stored = _stored_looks(args.out, selected) if args.resume else {}
    t0 = time.perf_counter()
    prov = None
    if args.out:                      # recorded at the start, like `report` (the run's, not the write's)
        from .report.provenance import collect_provenance

        prov = collect_provenance(seed=args.seed, alpha=args.alpha, quick=args.quick, budget=args.budget)
    with (lines if lines is not None else _nothing()):
        for r in _verify_many(selected, args, out=args.out, resume=args.resume,
                              method="fixed" if args.fixed else "anytime", quick=args.quick,
                              show_progress=show, failures=failures, lines=lines):
            results.append(r)
            _verify_row(r, fmt, rows)
    elapsed = time.perf_counter() - t0
    _write_run_files(args, selected, results, failures, prov, elapsed)
    return _verify_output(args, fmt, selected, rows, results, failures, stored, elapsed)


@contextmanager
def _nothing():
    yield None


def _write_run_files(args, selected, results, failures, prov, elapsed) -> None:
    """``OUT/results.jsonl`` (this run's results and failed-claim lines, the format of
    ``theorycheck report``) and ``OUT/report.json`` (seed, α, budgets, provenance — versions,
    commit, date — and each claim's fingerprint: :func:`theorycheck.report.document.claim_meta`),
    each written whole or not at all, so that ``theorycheck diff OUT_A OUT_B`` compares two
    verify runs by fingerprint and commit, and ``report --from OUT`` renders one.  They hold the
    claims of this run only (an earlier run into the same folder is replaced)."""
    from .report.document import claim_meta

    out = args.out
    os.makedirs(out, exist_ok=True)
    done = {r.claim for r in results} | {f.claim for f in failures}
    meta = {"seed": int(args.seed), "alpha": float(args.alpha), "quick": bool(args.quick),
            "elapsed_s": round(float(elapsed), 3), "provenance": prov,
            "claims": {c.id: claim_meta(c) for c in selected if c.id in done}, "figures": {}}
    lines = [json.dumps(r.to_dict(), ensure_ascii=False) for r in results]
    for f in failures:
        what = f.what + (f" (in chunk {f.chunk})" if f.chunk is not None else "")
        lines.append(json.dumps({"claim": f.claim, "error": " ".join(what.split()) or "failed",
                                 "where": f.where or None}, ensure_ascii=False))
    _atomic_write(os.path.join(out, "results.jsonl"), "".join(x + "\n" for x in lines))
    _atomic_write(os.path.join(out, "report.json"), json.dumps(meta, ensure_ascii=False, indent=1) + "\n")


def _atomic_write(path: str, text: str) -> None:
    """Write ``path`` whole or not at all (a temporary sibling named by process and thread, renamed)."""
    import threading

    tmp = os.path.join(os.path.dirname(path) or ".",
                       f".{os.path.basename(path)}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _verify_row(r, fmt, rows) -> None:
    """Print ``r`` as a JSON line (``--json``), or add its table row to ``rows``."""
    from .cli_format import print_json

    if fmt == "json":
        print_json(r.to_dict())
        return
    verdict = r.verdict if r.expected is None else (
        f"{r.verdict} (as expected)" if r.as_expected else f"{r.verdict} (expected {r.expected})")
    evidence = r.summary() + ("; " + r.certificate_sentence() if r.guarantee == "proved" else "") \
        + "".join(f"\n⚠ {w}" for w in r.warnings)
    rows.append((r.claim, r.kind, verdict, r.guarantee, evidence, r.seed, f"{r.elapsed_s:.2f}"))


def _verify_output(args, fmt, selected, rows, results, failures, stored, elapsed) -> int:
    """Everything ``verify`` prints after the last verdict, and its exit status."""
    from .cli_format import print_rows, summary_line

    if getattr(args, "fdr", False):
        # the statement goes where the summary goes; in a table each refutation is marked
        marks = _print_fdr(results, args.alpha, sys.stderr if fmt in ("json", "plain") else sys.stdout)
        rows = [(row[0], row[1], f"{row[2]} [{marks[r.claim]}]" if r.verdict == "refuted" and r.claim in marks
                 else row[2], *row[3:]) for row, r in zip(rows, results)]
    if fmt != "json":
        from proofs_check.engine.results import GUARANTEES

        print_rows(fmt, f"verdicts (alpha={args.alpha}, results in {args.out}/)",
                   ["claim", "kind", "verdict", "guarantee", "evidence", "seed", "s"], rows)
        if fmt == "table":
            from .cli_format import print_note

            for g in sorted({row[3] for row in rows}):
                print_note(GUARANTEES[g])
    if fmt != "json":
        _print_counterexamples(results, sys.stderr if fmt == "plain" else sys.stdout)
    if args.resume:               # what --resume did with each claim (stderr where stdout is data)
        by_id = {c.id: c for c in selected}
        for r in results:
            note = _resume_note(r, by_id[r.claim], stored.get(r.claim), args)
            if fmt == "table":
                from .cli_format import print_note

                print_note(note, indent=0)
            else:
                print(note, file=sys.stderr if fmt in ("json", "plain") else sys.stdout)
    # the summary goes to stderr where stdout is data (json, plain) so pipes see rows only
    print(summary_line(results, elapsed), file=sys.stderr if fmt in ("json", "plain") else sys.stdout)
    status = _exit_status(results, args.fail_on)
    if failures and fmt == "json":       # one line per failed claim: {"claim", "error", "where"}
        for f in failures:
            what = f.what + (f" (in chunk {f.chunk})" if f.chunk is not None else "")
            print(json.dumps({"claim": f.claim, "error": " ".join(what.split()) or "failed",
                              "where": f.where or None}, ensure_ascii=False), flush=True)
    if failures:
        print(f"theorycheck: {len(failures)} claim(s) failed in their own code and have no verdict: "
              f"{', '.join(f.claim for f in failures)} (exit {EXIT_CLAIM_FAILED})", file=sys.stderr)
        return EXIT_CLAIM_FAILED
    return status


def _stored_looks(out, claims) -> dict:
    """Per claim id, the last look (``{"method", "chunks", "planned_chunks", "verdict"}``)
    recorded in ``out`` before this run, read from the store's JSON-lines export
    (:func:`proofs_check.engine.store.export_path`); claims without one are left out."""
    from proofs_check.engine.store import export_path

    found = {}
    for c in claims:
        try:
            path = export_path(out, c.id)
            with open(path, encoding="utf-8") as fh:
                looks = [json.loads(line)["eval"] for line in fh if line.startswith('{"eval"')]
        except (OSError, ValueError, KeyError):
            continue
        if looks and isinstance(looks[-1], dict):
            found[c.id] = looks[-1]
    return found


def _resume_note(r, claim, before, args) -> str:
    """One line saying what ``--resume`` did with ``claim``: extended from n to m,
    nothing to do and why (already decided; the budget is not larger), or a fresh start."""
    size = int(claim.chunk_size)
    budget = args.budget if args.budget is not None else (claim.quick_budget if args.quick
                                                           else claim.default_budget)
    want = claim.planned_chunks(-(-int(budget) // size)) * size
    now = r.chunks * size
    unit = getattr(r, "unit", "units")
    head = f"--resume {r.claim}:"
    if not before:
        return f"{head} nothing stored in {args.out}/ to resume; ran from the start (n = {now:,} {unit})"
    was = int(before.get("chunks", 0)) * size
    decided = r.verdict in ("holds", "refuted")
    if now > was:
        tail = (f"; the anytime-valid test decided ({r.verdict}) there, before the requested n = {want:,}"
                if decided and now < want else "")
        return f"{head} extended from n = {was:,} to n = {now:,} {unit}{tail}"
    if now < was:
        return (f"{head} used the first n = {now:,} of the {was:,} {unit} stored (the requested --budget "
                f"is smaller); verdict {r.verdict}")
    if want <= was:
        return (f"{head} nothing to do: the stored run already has n = {was:,} {unit}, the requested budget "
                f"is n = {want:,}; give a larger --budget to extend it")
    if decided:
        how = ("its anytime-valid test stops at the first decisive look" if r.guarantee == "anytime-valid"
               else "the claim's kind stops once decided")
        return (f"{head} nothing to extend: already decided ({r.verdict}) on the n = {now:,} {unit} stored "
                f"({how}); a larger --budget (n = {want:,}) adds no data to a decided run. For an "
                f"independent check, run afresh with a new --seed")
    return (f"{head} not extended: n = {now:,} of the requested {want:,} {unit} (the claim's kind "
            f"runs no more chunks); verdict {r.verdict}")


def _print_counterexamples(results, stream) -> None:
    """The shrunk counterexample of each refuted inequality, with its reproduce line."""
    for r in results:
        wp = getattr(r, "worst_point", None)
        if not (isinstance(wp, dict) and "counterexample" in wp):
            continue
        point = ", ".join(f"{k} = {v!r}" for k, v in wp["counterexample"].items()) or "the default point"
        print(f"counterexample to {r.claim} (shrunk; {wp['non_default']} coordinate(s) off their default, "
              f"the rest at default): {point}; lhs = {wp['lhs']:.6g}, rhs = {wp['rhs']:.6g} "
              f"({wp['confirmed_by']}; seed {wp['seed']})\n  reproduce: {wp['reproduce']}", file=stream)


def _cmd_figs(args) -> int:
    import paper_figs

    if args.pattern and not paper_figs.figures(args.pattern):
        from .cli_format import suggest

        hint = suggest(args.pattern, paper_figs.figures()).replace("theorycheck list", "theorycheck figs --list")
        raise ValueError(f"no figure matches {args.pattern!r}{hint}")
    if args.list:
        info = paper_figs.figure_info() if hasattr(paper_figs, "figure_info") else {}
        for name in paper_figs.figures(args.pattern):
            meta = info.get(name, {})
            supports = ", ".join(meta.get("claims", ())) or "-"
            print(f"{name}\t{' '.join(str(meta.get('caption', '')).split())}\tclaims: {supports}")
        return 0
    t0 = time.perf_counter()
    if args.user_figures is not None and not args.pattern:     # files/modules of your own: their figures
        if not args.user_figures:
            raise ValueError("the files/modules given register no figure (use paper_figs.figure)")
        paths = [p for name in args.user_figures
                 for p in paper_figs.build(args.out, quick=args.quick, seed=args.seed, pattern=name,
                                           progress=lambda n: print(f"building {n} ...", file=sys.stderr,
                                                                    flush=True))]
    else:
        paths = paper_figs.build(args.out, quick=args.quick, seed=args.seed, pattern=args.pattern,
                                 progress=lambda name: print(f"building {name} ...", file=sys.stderr, flush=True))
    print(f"wrote {len(paths)} files to {args.out}/ in {time.perf_counter() - t0:.1f} s (seed {args.seed})")
    return 0


def _cmd_report(args) -> int:
    from .cli_format import summary_line
    from .report import read_results, rerender_report, write_report

    t0 = time.perf_counter()
    rerun = not (args.rerender or args.from_path)
    if args.from_path:
        from .report import render_report_from, results_source

        path = render_report_from(args.from_path, args.out)
        source = results_source(args.from_path)
    elif args.rerender:
        args.out = args.out or "theorycheck-report"
        path = rerender_report(args.out)
        source = os.path.join(args.out, "results.jsonl")
    else:
        args.out = args.out or "theorycheck-report"
        selected = _chosen(args, args.pattern, every=True)
        extra = {}
        if args.pattern and args.user_claims is None:      # only the figures that support these claims
            from .report.figures import figures_for

            extra["figures"] = figures_for(selected)
        if args.user_claims is not None:       # your own claims: their figures only; refuse before writing
            from proofs_check.engine.registry import check_portable
            from proofs_check.engine.executors import executor_kind
            from .report.figures import figures_for

            check_portable(selected, executor_kind(args.executor, args.scheduler))
            extra["figures"] = sorted(set(figures_for(selected)) | set(args.user_figures or ()))
        if "figures" in extra:
            n_fig = len(extra["figures"])
        else:
            from .report.figures import figure_info

            n_fig = len(figure_info())
        lines = getattr(args, "progress_lines", None)
        if lines is not None:
            lines.set_work(len(selected), n_fig, poll=_report_poller(args.out))
        with (lines if lines is not None else _nothing()):
            path = write_report(selected, args.out, seed=args.seed, alpha=args.alpha, quick=args.quick,
                                executor=args.executor, workers=args.workers, scheduler=args.scheduler,
                                progress=False, **extra)
        source = os.path.join(args.out, "results.jsonl")
    failed: list = []
    results = read_results(source, failed)
    html = path.with_suffix(".html")
    print(f"report written to {path}" + (f" and {html}" if html.exists() else ""))
    if getattr(args, "fdr", False):      # the report states it in any case; --fdr prints it here too
        alpha = args.alpha                 # a re-render: the α of the run it reads
        meta_path = os.path.join(os.path.dirname(os.fspath(source)), "report.json")
        if not rerun and os.path.exists(meta_path):
            with open(meta_path, encoding="utf-8") as fh:
                alpha = float(json.load(fh).get("alpha", alpha))
        elif not rerun and results:
            alpha = results[0].alpha
        _print_fdr(results, alpha, sys.stdout)
    print(summary_line(results, time.perf_counter() - t0 if rerun else None))
    status = _exit_status(results, args.fail_on)
    if failed:             # listed in the report as failed; a claim left unchecked is never a pass
        print(f"theorycheck: {len(failed)} claim(s) failed in their own code and have no verdict (listed as "
              f"FAILED in the report): {', '.join(f.claim for f in failed)} (exit {EXIT_CLAIM_FAILED})",
              file=sys.stderr)
        return EXIT_CLAIM_FAILED
    return status


def _report_poller(out):
    """A :class:`_ProgressLines` poll for ``theorycheck report``: the claims decided so far are
    the lines of the results file the report appends to as each claim is decided (its temporary
    sibling of ``OUT/results.jsonl``, renamed over it at the end), the figures built so far the
    ``OUT/figures/NAME.json`` files written since the start (a figure's data file is written
    after its PDF and PNG: :func:`paper_figs.style.save_figure`).  Only what the run itself
    writes is read; a line not yet complete is read on the next poll."""
    from pathlib import Path

    folder = Path(out)
    tmp = folder / f".results.jsonl.{os.getpid()}.tmp"       # theorycheck.report._tmp_sibling
    final = folder / "results.jsonl"
    started = time.time()
    state = {"offset": 0, "figures": set()}

    def poll(lines: _ProgressLines) -> None:
        src = tmp if tmp.exists() else final
        try:
            if src is final and (not final.exists() or final.stat().st_mtime < started):
                src = None
            if src is not None:
                with open(src, "rb") as fh:
                    fh.seek(state["offset"])
                    chunk = fh.read()
                end = chunk.rfind(b"\n") + 1
                state["offset"] += end
                for raw in chunk[:end].splitlines():
                    try:
                        d = json.loads(raw)
                    except ValueError:
                        continue
                    if isinstance(d, dict) and isinstance(d.get("claim"), str):
                        el = d.get("elapsed_s")
                        lines.claim_done(d["claim"], str(d.get("verdict") or "FAILED"),
                                         el if isinstance(el, (int, float)) else None)
            figs = folder / "figures"
            if figs.is_dir():
                for f in sorted(figs.glob("*.json")):
                    if f.stem not in state["figures"] and f.stat().st_mtime >= started:
                        state["figures"].add(f.stem)
                        lines.figure_done(f.stem)
        except OSError:
            return
    return poll


def _cmd_reproduce(args) -> int:
    """``theorycheck reproduce [FILE.py] ID --point JSON``: both sides of an inequality
    claim at the point, in float64 and (if the claim has one) in 50-digit mpmath."""
    from proofs_check.declare import reproduce
    from proofs_check.engine.registry import get_claim

    ids = [w for w in args.claim if not _is_claims_file(w)]
    if len(ids) != 1:
        raise ValueError(f"give exactly one claim id, got {ids or 'none'}")
    for spec in [w for w in args.claim if _is_claims_file(w)]:
        from proofs_check.engine.registry import load_user_claims

        load_user_claims(spec)
    out = reproduce(get_claim(ids[0]), args.point)
    if args.json:
        print(json.dumps(out))
    else:
        mp = {None: "no mpmath evaluator", True: "confirmed in mpmath (50 digits)",
              False: "NOT confirmed in mpmath (a rounding artefact)"}[out["confirmed_mp"]]
        print(f"{out['claim']}: lhs = {out['lhs']!r}, rhs = {out['rhs']!r}, lhs − rhs = {out['margin']!r}: "
              + (f"violated; {mp}" if out["violates"] else "holds at this point"))
    return 0


def _cmd_diff(args) -> int:
    """``theorycheck diff RUN_A RUN_B``: the changes (:mod:`theorycheck.diff`); exit 1 when a
    significant change is listed (a claim's verdict, estimate, fingerprint, presence, or a
    finding that reads differently), 0 otherwise."""
    from .cli_format import EXIT_FAILED, print_rows
    from .diff import CHANGE_KINDS, diff_markdown, diff_rows, diff_runs, load_run, summary_line

    d = diff_runs(load_run(args.run_a, stream=sys.stderr), load_run(args.run_b, stream=sys.stderr),
                  findings=not args.no_findings)
    fmt = _format(args)
    if fmt == "json":
        print(json.dumps(d, ensure_ascii=False))
    elif fmt == "markdown":
        print(diff_markdown(d), end="")
    else:
        stream = sys.stderr if fmt == "plain" else sys.stdout
        print(f"A: {d['a']}\nB: {d['b']}", file=stream)
        for n in d["notes"]:
            print(f"note: {n}", file=stream)
        if d["changes"]:
            print_rows(fmt, "changes from A to B", ["change", "claim", "run A", "run B", "why"], diff_rows(d),
                       no_wrap=2)
            if fmt == "table":
                for k, v in CHANGE_KINDS.items():
                    if d["counts"][k]:
                        print(f"  {k}: {v}")
        print(summary_line(d), file=stream)
    return EXIT_FAILED if d["significant"] else 0


def _cmd_calibrate(rest) -> int:
    """``theorycheck calibrate ...``: :func:`theorycheck.calibrate.main` with its own options."""
    from .calibrate import main as calibrate_main

    try:
        return calibrate_main(rest)
    except SystemExit as exc:              # argparse errors (exit 2) and --help (exit 0)
        return int(exc.code or 0)
    except KeyboardInterrupt:
        print("theorycheck: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _safe_streams(real_process: bool) -> None:
    """Output that cannot fail after the work is done.

    * ``2>&-`` (stderr closed): in a real process, file descriptors 0–2 are reopened on
      ``/dev/null`` if closed (so no store or result file is ever opened as fd 2 and
      written into by a stray write to "stderr"), and messages go to stdout — a closed
      stderr must not turn an error into a silent exit.
    * an output encoding that cannot encode every character (``PYTHONIOENCODING=ascii``,
      ``LANG=C`` on old Pythons): the streams write ``\\u0302``-style escapes instead of
      failing after the run (``errors="backslashreplace"``)."""
    if real_process:
        for fd in (0, 1, 2):
            try:
                os.fstat(fd)
            except OSError:
                try:
                    os.open(os.devnull, os.O_RDWR)          # the lowest free descriptor: fd
                except OSError:
                    pass
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")
    if sys.stderr is None:
        sys.stderr = sys.stdout
    for stream in (sys.stdout, sys.stderr):
        enc = (getattr(stream, "encoding", None) or "").lower().replace("-", "").replace("_", "")
        if enc not in ("utf8", "utf16", "utf32", "utf8sig") and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="backslashreplace")
            except (ValueError, OSError, AttributeError, TypeError):
                pass


def main(argv=None) -> int:
    _safe_streams(real_process=argv is None)
    if argv is None and hasattr(signal, "SIGPIPE"):
        # `theorycheck list | head`: end quietly on a closed pipe, as other Unix tools do
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "calibrate":    # its options are its own (see theorycheck.calibrate)
        return _cmd_calibrate(argv[1:])
    parser = build_parser()
    try:
        args = _parse(parser, argv)
    except SystemExit as exc:        # usage errors (exit 2) and --help (exit 0)
        return int(exc.code or 0)
    import threading
    from concurrent.futures.process import BrokenProcessPool

    from proofs_check.engine.executors import ClaimCodeError, ExecutorLostError, claim_failure, guarded_call
    from proofs_check.engine.store import ResultFileError

    in_main = threading.current_thread() is threading.main_thread()
    old_term = signal.signal(signal.SIGTERM, _on_sigterm) if in_main else None
    # progress lines from the start of a run (loading every claim module can itself take a while)
    args.progress_lines = None
    if args.command in ("verify", "report") and not args.quiet and not (
            getattr(args, "rerender", False) or getattr(args, "from_path", None)):
        args.progress_lines = _ProgressLines(what=args.command).start()
    try:
        _cap_workers(args)
        try:
            with _claim_output_to_stderr():           # a claims file's prints at import
                guarded_call(_load_user, (args,), exits_only=True)
        except ClaimCodeError as exc:
            raise ValueError(f"claims file code {exc.what} at {exc.where or 'an unknown line'} while it was "
                             f"imported; no claim was checked") from None
        return {"list": _cmd_list, "verify": _cmd_verify, "figs": _cmd_figs,
                "report": _cmd_report, "reproduce": _cmd_reproduce, "diff": _cmd_diff}[args.command](args)
    except KeyboardInterrupt as exc:
        out = getattr(args, "out", None)
        kept = f"; finished chunks are kept in {out}/ — rerun with --resume" if args.command == "verify" else ""
        if isinstance(exc, _Terminated):
            print(f"theorycheck: terminated (SIGTERM){kept}", file=sys.stderr)
            return EXIT_TERMINATED
        print(f"theorycheck: interrupted{kept}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return 0
    except ExecutorLostError as exc:
        if debug_enabled():
            traceback.print_exc()
        print(f"theorycheck: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenProcessPool as exc:           # a worker verifying whole claims died
        if debug_enabled():
            traceback.print_exc()
        print(f"theorycheck: a worker process died abruptly while verifying claims (a crash, a signal or "
              f"running out of memory): {_one_line(exc)}", file=sys.stderr)
        return EXIT_CLAIM_FAILED
    except Exception as exc:
        failure = claim_failure(exc)
        if failure is not None:                # claim code failed where no run goes on (e.g. `report`)
            _report_claim_failure(failure)
            return EXIT_CLAIM_FAILED
        if not isinstance(exc, (ValueError, TypeError, ResultFileError, OSError, MemoryError, RecursionError)):
            raise
        if debug_enabled():
            traceback.print_exc()
        print(f"theorycheck: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        if args.progress_lines is not None:
            args.progress_lines.stop()
        if in_main and old_term is not None:
            signal.signal(signal.SIGTERM, old_term)


#: Commands whose positional words are a list (claims files and patterns), in any order among options.
_LIST_POSITIONALS = {"list": "pattern", "verify": "target", "report": "pattern", "figs": "pattern",
                     "reproduce": "claim"}


def _parse(parser, argv):
    """``parser.parse_args(argv)``, except that positional words after an option
    (``verify good.py -m good mine.rare``) join the command's list of claims files and
    patterns, as pytest and most runners allow; any other leftover is the usual
    "unrecognized arguments" error (exit 2)."""
    args, extra = parser.parse_known_args(argv)
    if not extra:
        return args
    attr = _LIST_POSITIONALS.get(getattr(args, "command", None))
    words = [w for w in extra if not w.startswith("-") or w == "-"]
    bad = [w for w in extra if w not in words]
    if attr is None or bad:
        parser.error(f"unrecognized arguments: {' '.join(bad or extra)}")
    if words:
        setattr(args, attr, list(getattr(args, attr) or []) + words)
    return args


def _cap_workers(args) -> None:
    """``--workers`` above what this machine runs usefully (:func:`proofs_check.engine.executors.worker_cap`)
    is lowered to the cap, with one line naming both (verdicts do not depend on it)."""
    workers = getattr(args, "workers", None)
    if workers is None or getattr(args, "scheduler", None):
        return
    from proofs_check.engine.executors import default_workers, worker_cap

    kind = args.executor or "auto"
    if kind == "serial":
        return
    cap = worker_cap("processes" if kind == "auto" else kind)
    if workers > cap:
        print(f"theorycheck: --workers {workers} is more than this machine runs usefully for executor "
              f"{kind} ({default_workers()} cores: at most {cap}); using {cap}", file=sys.stderr)
        args.workers = cap


def _one_line(exc: BaseException) -> str:
    """One line for an error: OS errors name the file and the reason."""
    if isinstance(exc, OSError) and exc.strerror:
        where = f" {exc.filename!r}" if exc.filename else ""
        return f"cannot use{where}: {exc.strerror}"
    if isinstance(exc, MemoryError):
        return "out of memory (try a smaller --budget or fewer --workers)"
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text if len(text) <= 400 else text[:400] + "…"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
