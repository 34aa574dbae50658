"""``theorycheck report``: every verdict and its figures as a paper's appendix,
in Markdown (``report.md``) and as one self-contained HTML page (``report.html``).

The report reads result objects and the figures' saved files; rendering reruns
nothing.  Layout of ``OUT/``:

* ``report.md``, ``report.html`` — the report (HTML: figures inline, sortable
  and filterable claims table, anchors ``#claim-<id>``, ``#fig-<name>``);
* ``results.jsonl`` — one result per line, in the order decided;
* ``report.json`` — what a re-render needs besides the results: seed, α,
  budgets, run time, provenance (package/library versions, git commit, date),
  per-claim version, fingerprint and structured source, and the built figures
  with their captions and the claims they support;
* ``figures/`` — PDF, PNG and JSON (the plotted numbers) per figure;
* ``chunks/`` — per-chunk result files (resumable; ``chunks/experiments/`` the
  shared experiments).

:func:`render_report_from` (and :func:`rerender_report`) re-render both files
from ``results.jsonl`` and ``report.json`` alone; rendering the same inputs
twice gives the same bytes.  Modules: :mod:`.document` (the content as data),
:mod:`.evidence` (numbers, slack, advice per result), :mod:`.provenance`,
:mod:`.figures` (which figures support which claims), :mod:`.markdown`,
:mod:`.html`.
"""
from __future__ import annotations

import functools
import json
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from .document import build_document, claim_meta
from .figures import figure_info, figures_for
from .html import render_document_html
from .markdown import render_document_markdown
from .provenance import collect_provenance
from .schema import load_meta, load_results, plain_figure_name

__all__ = ["write_report", "render_markdown", "render_html", "read_results", "rerender_report",
           "render_report_from", "figures_for", "figure_info", "build_figures"]


def render_markdown(results, figure_names=(), *, seed=None, alpha=None, quick=False, elapsed_s=0.0,
                    meta: dict | None = None, figure_dir=None, figures_href: str = "figures") -> str:
    """``report.md`` text from result objects and the run's ``meta`` (the
    contents of ``report.json``); without ``meta``, one is made from the other
    keywords (no provenance: the report says it was not recorded)."""
    meta = _meta_or(meta, results, figure_names, seed, alpha, quick, elapsed_s)
    return render_document_markdown(build_document(results, meta, figure_dir), figures_href)


def render_html(results, figure_names=(), *, seed=None, alpha=None, quick=False, elapsed_s=0.0,
                meta: dict | None = None, figure_dir=None) -> str:
    """``report.html`` text (self-contained; figures read from ``figure_dir``)."""
    meta = _meta_or(meta, results, figure_names, seed, alpha, quick, elapsed_s)
    return render_document_html(build_document(results, meta, figure_dir))


def _meta_or(meta, results, figure_names, seed, alpha, quick, elapsed_s) -> dict:
    if meta is not None:
        return meta
    first = results[0] if results else None
    return {"seed": seed if seed is not None else (first.seed if first else 0),
            "alpha": alpha if alpha is not None else (first.alpha if first else 0.01),
            "quick": bool(quick), "elapsed_s": float(elapsed_s),
            "figures": {n: {"caption": "", "claims": [], "width": None} for n in figure_names}}


# ---------------------------------------------------------------------------
# One writer per report folder, and no half-written file (issue 26, item 4).

#: The lock file in a report folder: it holds the pid, host and start time of the
#: ``theorycheck report`` writing the folder.
LOCK_NAME = ".theorycheck-report.lock"

_HELD: dict = {}          # folders this process holds the lock of -> depth (re-entrant)


class ReportFolderBusy(ValueError):
    """Another live process is writing this report folder."""


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _holder(text: str) -> str:
    parts = text.split()
    if not parts or not parts[0].isdigit():
        return "a process that left no pid"
    alive = "running" if _pid_alive(int(parts[0])) else "no longer running; a process it started holds the lock"
    host = f" on {parts[1]}" if len(parts) > 1 else ""
    return f"pid {parts[0]}{host}, {alive}"


@contextmanager
def exclusive_folder(out):
    """Hold ``OUT/.theorycheck-report.lock`` while writing the report folder ``out``.

    The lock is an ``flock`` on the file (released by the kernel when its holder
    ends in any way, ``kill -9`` included, so a stale lock from a dead process is
    simply taken over), and the file names the holder (pid, host, start time).  A
    second writer is refused at once with :class:`ReportFolderBusy` naming the folder
    and the holder.  Without ``fcntl`` (Windows) the file is created exclusively and
    a file whose pid is not running is taken over.  Re-entrant within a process."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    key = str(out.resolve())
    if key in _HELD:
        _HELD[key] += 1
        try:
            yield
        finally:
            _HELD[key] -= 1
        return
    lock = out / LOCK_NAME
    stamp = f"{os.getpid()} {os.uname().nodename if hasattr(os, 'uname') else '-'} {time.time():.0f}\n"
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        fcntl = None
    if fcntl is not None:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            try:
                text = os.pread(fd, 200, 0).decode("utf-8", "replace")
            finally:
                os.close(fd)
            raise ReportFolderBusy(f"report folder {out} is being written by another `theorycheck report` "
                                   f"({_holder(text)}); wait for it to finish or use another --out") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, stamp.encode(), 0)
    else:  # pragma: no cover - Windows
        while True:
            try:
                fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
                os.write(fd, stamp.encode())
                break
            except FileExistsError:
                text = Path(lock).read_text(errors="replace")
                parts = text.split()
                if parts and parts[0].isdigit() and not _pid_alive(int(parts[0])):
                    Path(lock).unlink(missing_ok=True)      # stale: its holder is gone
                    continue
                raise ReportFolderBusy(f"report folder {out} is being written by another `theorycheck "
                                       f"report` ({_holder(text)}); wait for it to finish or use another "
                                       f"--out") from None
    _HELD[key] = 1
    try:
        yield
    finally:
        del _HELD[key]
        if fcntl is None:  # pragma: no cover - Windows
            os.close(fd)
            Path(lock).unlink(missing_ok=True)
        else:
            os.close(fd)          # releases the flock; the file stays (unlinking would race)


def _holding_folder(fn):
    """Decorator: ``fn(selected, out, ...)`` runs holding :func:`exclusive_folder` of ``out``."""
    @functools.wraps(fn)
    def wrapper(selected, out, *args, **kw):
        with exclusive_folder(out):
            return fn(selected, out, *args, **kw)
    return wrapper


def _tmp_sibling(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def _atomic_write_text(path, text: str) -> None:
    """Write ``path`` whole or not at all: into a temporary sibling, then rename."""
    path = Path(path)
    tmp = _tmp_sibling(path)
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _verify_into(selected, out, *, executor, workers, scheduler, seed, alpha, quick, progress,
                 failures=None) -> list:
    """Verify ``selected`` (whole claims on every core by default), appending each result
    to a temporary sibling of ``out/results.jsonl`` as it is decided; renamed over
    ``results.jsonl`` once every claim has its result (an interrupted run leaves the
    previous ``results.jsonl`` as it was).

    A claim whose own code fails (:func:`proofs_check.engine.executors.claim_failure`: an
    exception, ``sys.exit``/``os._exit`` in a chunk, a dead worker) does not stop the run: it
    is written as a failed-claim line ``{"claim", "error", "where"}``
    (:data:`.schema.FAILURE_KEYS`), appended to ``failures`` and reported in one line on
    stderr; the claims not yet decided are run on (issue 26)."""
    from proofs_check import engine
    from proofs_check.engine.executors import claim_failure

    from .schema import ClaimFailureRecord

    results = []
    final = out / "results.jsonl"
    tmp = _tmp_sibling(final)
    todo = list(selected)
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            while todo:
                gen = engine.verify_claims(todo, executor=executor, workers=workers, scheduler=scheduler,
                                           seed=seed, alpha=alpha, quick=quick, out=out / "chunks",
                                           method="anytime", across_claims=True)
                try:
                    for r in gen:
                        todo = [c for c in todo if c.id != r.claim]
                        fh.write(json.dumps(r.to_dict(), ensure_ascii=False) + "\n")
                        fh.flush()
                        if progress:
                            print(f"{r.verdict:>12}  {r.claim}  ({r.elapsed_s:.1f} s)", file=sys.stderr,
                                  flush=True)
                        results.append(r)
                    todo = []
                except Exception as exc:
                    failure = claim_failure(exc)
                    if failure is None or failure.claim not in {c.id for c in todo}:
                        raise
                    todo = [c for c in todo if c.id != failure.claim]
                    what = failure.what + (f" (in chunk {failure.chunk})" if failure.chunk is not None else "")
                    rec = ClaimFailureRecord(failure.claim, " ".join(what.split()) or "failed",
                                             failure.where or None)
                    fh.write(json.dumps(rec.to_dict(), ensure_ascii=False) + "\n")
                    fh.flush()
                    if os.environ.get("THEORYCHECK_DEBUG") and failure.trace:
                        print(failure.trace.rstrip(), file=sys.stderr)
                    print(f"theorycheck: {failure}; no verdict (the report lists it as failed; "
                          f"the other claims run on)", file=sys.stderr, flush=True)
                    if failures is not None:
                        failures.append(rec)
                finally:
                    gen.close()
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return results


def _figure_pool(executor, scheduler, workers, selected, names, store, since):
    """A process pool for drawing figures once the claims are decided, or ``None`` (one core,
    an executor/scheduler chosen explicitly, or claims or figures a fresh process would not
    know — a user's own file, a test's — then everything runs here, in order).  Its workers
    measure through the report's chunk store ``store`` (:func:`_figure_worker_init`)."""
    import concurrent.futures as cf
    import multiprocessing as mp

    import paper_figs

    from proofs_check.engine.executors import default_workers
    from proofs_check.engine.registry import claim_modules, is_shipped

    n = default_workers() if workers is None else int(workers)
    entry = claim_modules()
    shipped_figures = set(paper_figs.figure_modules())
    builders = paper_figs.figures()
    if (executor not in (None, "auto") or scheduler is not None or n < 2
            or not all(is_shipped(c, entry) for c in selected)
            or not all(getattr(builders.get(nm), "__module__", None) in shipped_figures for nm in names)):
        return None
    return cf.ProcessPoolExecutor(max_workers=n, mp_context=mp.get_context("forkserver"),
                                  initializer=_figure_worker_init, initargs=(str(store), since))


def _figure_worker_init(store: str, since: float) -> None:
    """A figure worker: the claim workers' set-up, and the report's chunk store as the default of
    :func:`proofs_check.engine.measure` (the figures read the chunks the claims measured; runs
    this report created are not spot-checked again, older ones are)."""
    from proofs_check.engine.across_claims import worker_init
    from proofs_check.engine.measure import set_default_store

    worker_init()
    set_default_store(store, trusted_since=since)


def build_figures(names, outdir, *, quick: bool, seed: int, progress=None) -> list[str]:
    """Build the named figures into ``outdir`` (PDF, PNG, JSON each); returns the names built."""
    import paper_figs

    registered = paper_figs.figures()
    unknown = [n for n in names if n not in registered]
    if unknown:
        raise ValueError(f"unknown figure name(s) {unknown}; known: {', '.join(registered)}")
    for name in names:
        if progress is not None:
            progress(name)
        fig, data = registered[name](quick=quick, seed=seed)
        paper_figs.save_figure(fig, name, {"figure": name, "seed": seed, "quick": quick, **data},
                               Path(outdir))
    return list(names)


@_holding_folder
def write_report(selected, out, *, seed: int = 0, alpha: float = 0.01, quick: bool = False,
                 executor=None, workers=None, scheduler=None, progress: bool = False,
                 figures=None) -> Path:
    """Verify ``selected`` claims, build the figures and write ``out/report.md``
    and ``out/report.html`` (returns the path of ``report.md``).

    ``figures``: the names of the figures to build — ``None`` builds every
    registered figure; :func:`figures_for(selected) <figures_for>` builds only
    those supporting the selected claims; ``[]`` none."""
    if figures is not None and (isinstance(figures, str) or not all(isinstance(n, str) for n in figures)):
        raise TypeError(f"figures must be a list of figure names or None, got {figures!r}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    started = time.time()
    prov = collect_provenance(seed=seed, alpha=alpha, quick=quick)
    info = figure_info()
    names = sorted(info) if figures is None else list(figures)
    unknown = [n for n in names if n not in info]
    if unknown:
        raise ValueError(f"unknown figure name(s) {unknown}; known: {', '.join(sorted(info))}")
    # The figures are drawn after the claims, through the report's chunk store: an experiment
    # that a claim measured is read, not measured again (issue 25; each figure is seeded, so the
    # files are the same either way).  With the default executor on several cores they are drawn
    # in worker processes.
    failures: list = []
    results = _verify_into(selected, out, executor=executor, workers=workers, scheduler=scheduler,
                           seed=seed, alpha=alpha, quick=quick, progress=progress, failures=failures)
    store = out / "chunks"
    pool = _figure_pool(executor, scheduler, workers, selected, names, store, started)
    try:
        if pool is None:
            from proofs_check.engine.measure import set_default_store

            set_default_store(store, trusted_since=started)
            try:
                build_figures(names, out / "figures", quick=quick, seed=seed,
                              progress=(lambda n: print(f"    figure  {n}", file=sys.stderr, flush=True))
                              if progress else None)
            finally:
                set_default_store(None)
        else:
            pending = [(n, pool.submit(build_figures, [n], out / "figures", quick=quick, seed=seed))
                       for n in names]
            for n, fut in pending:
                fut.result()
                if progress:
                    print(f"    figure  {n}", file=sys.stderr, flush=True)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    meta = {"seed": seed, "alpha": alpha, "quick": quick,
            "elapsed_s": round(time.perf_counter() - t0, 3), "provenance": prov,
            "claims": {c.id: claim_meta(c) for c in selected},
            "figures": {n: info.get(n, {"caption": "", "claims": [], "width": None}) for n in names}}
    _atomic_write_text(out / "report.json", json.dumps(meta, ensure_ascii=False, indent=1) + "\n")
    return _write_rendered(results, meta, out / "figures", out, failures)


def _write_rendered(results, meta, figure_dir, out, failures=()) -> Path:
    out = Path(out)
    with exclusive_folder(out):
        href = Path(os.path.relpath(Path(figure_dir).resolve(), out.resolve())).as_posix()
        doc = build_document(results, meta, figure_dir, failures)
        md_path = out / "report.md"
        md_text, html_text = render_document_markdown(doc, href), render_document_html(doc)
        _atomic_write_text(md_path, md_text)
        _atomic_write_text(out / "report.html", html_text)
    return md_path


def read_results(path, failures: list | None = None) -> list:
    """The results of a ``results.jsonl`` file, every field checked against its kind's
    schema (:mod:`.schema`; ``ValueError`` naming the file, the line and the field if one
    is bad).  Failed-claim lines are appended to ``failures`` when a list is given."""
    return load_results(path, failures)


def results_source(results_path) -> Path:
    """The ``results.jsonl`` meant by a results file, a ``report.json`` or a report folder."""
    src = Path(results_path)
    if src.is_dir() or (not src.exists() and src.suffix not in (".jsonl", ".json")):
        return src / "results.jsonl"
    if src.name == "report.json":
        return src.parent / "results.jsonl"
    return src


def render_report_from(results_path, out=None) -> Path:
    """Re-render ``report.md`` and ``report.html`` from a results file without
    running anything; returns the path of ``report.md`` (``report.html`` beside it).

    ``results_path`` is a ``results.jsonl`` file, a ``report.json`` or the
    report folder holding them.  The run's ``report.json`` (seed, α, budgets,
    provenance, claim fingerprints, figures) is read from the same folder when
    present; otherwise the report says the provenance was not recorded, takes
    fingerprints from the current code, and lists the PNGs found in
    ``figures/``.  ``out`` (default: that folder) receives the two files; the
    Markdown links the figures where they are."""
    if not isinstance(results_path, (str, os.PathLike)):
        raise TypeError(f"results_path must be a path (results.jsonl, report.json or the report folder), "
                        f"got {type(results_path).__name__}")
    if out is not None and not isinstance(out, (str, os.PathLike)):
        raise TypeError(f"out must be a folder path or None, got {type(out).__name__}")
    src = results_source(results_path)
    folder = src.parent
    if not src.exists():
        raise ValueError(f"{src} does not exist: run `theorycheck report --out {folder}` first")
    failures: list = []
    results = read_results(src, failures)
    if not results and not failures:
        raise ValueError(f"{src} holds no results")
    fig_dir = folder / "figures"
    if fig_dir.exists() and not fig_dir.resolve().is_relative_to(folder.resolve()):
        raise ValueError(f"{fig_dir} leads outside the report folder {folder} (to {fig_dir.resolve()}); "
                         f"a report embeds figures from its own folder only")
    meta_path = folder / "report.json"
    if meta_path.exists():
        meta = load_meta(meta_path)
    elif not results:
        raise ValueError(f"{src} holds only failed-claim lines and there is no {meta_path} to say how the "
                         f"run was made")
    else:
        meta = {"seed": results[0].seed, "alpha": results[0].alpha, "quick": False,
                "elapsed_s": round(sum(r.elapsed_s for r in results), 3)}
    if "figures" not in meta:
        names = sorted(p.stem for p in fig_dir.glob("*.png") if plain_figure_name(p.stem)) \
            if fig_dir.exists() else []
        info = figure_info()
        meta["figures"] = {n: info.get(n, {"caption": "", "claims": [], "width": None}) for n in names}
    return _write_rendered(results, meta, fig_dir, folder if out is None else out, failures)


def rerender_report(out) -> Path:
    """Re-render ``out/report.md`` and ``out/report.html`` from ``out/results.jsonl``
    (and ``out/report.json``); runs nothing.  Same as ``render_report_from(out)``."""
    return render_report_from(Path(out) / "results.jsonl")
