"""Provenance of a report: what produced the verdicts, and how to cite one.

Recorded once when the claims are run (``report.json`` keeps it), so that a
re-rendered report shows the run's provenance, not the re-render's.  The source
commit (:func:`source_commit`) comes from, in this order:

1. the git checkout the package is imported from (an editable install or a source
   tree: ``git rev-parse`` and ``git status``, read-only, only if ``git`` exists);
2. the record written when the package was built (``setup.py`` writes
   ``theorycheck/_build_info.py`` into the wheel and the sdist: ``pip install .``
   from a clone keeps the clone's commit and whether it had uncommitted changes);
3. otherwise it is unknown, and the reason is recorded (e.g. built from an archive
   without git) instead of a bare "none".
"""
from __future__ import annotations

import datetime as _dt
import platform
import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

__all__ = ["DISTRIBUTION", "LIBRARIES", "collect_provenance", "git_commit", "build_info", "source_commit",
           "interval_level", "commit_text",
           "cite_line"]

#: The distribution whose version a verdict is cited by.
DISTRIBUTION = "theorycheck"
#: Libraries whose versions can change a number in the report.
LIBRARIES = ("numpy", "scipy", "numba", "mpmath", "sympy", "matplotlib")


def _version_of(dist: str) -> str:
    try:
        return version(dist)
    except PackageNotFoundError:
        return "not installed"


def git_commit(package_dir=None) -> dict | None:
    """``{"commit": <40 hex>, "dirty": bool}`` of the checkout holding ``package_dir``
    (default: this package), or ``None`` when it is not a git checkout of the
    project, ``git`` is missing, or it fails.  Read-only (``rev-parse``, ``status``)."""
    here = Path(package_dir) if package_dir is not None else Path(__file__).resolve().parents[1]
    root = here.parent

    def git(*args):
        out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10)
        if out.returncode != 0:
            raise OSError(out.stderr.strip())
        return out.stdout.strip()

    try:
        top = Path(git("rev-parse", "--show-toplevel")).resolve()
        if top != root.resolve():           # e.g. site-packages inside some other repository
            return None
        sha = git("rev-parse", "HEAD")
        dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return {"commit": sha, "dirty": dirty}


def build_info() -> dict | None:
    """The record ``setup.py`` wrote into this package when it was built
    (``{"commit", "dirty", "built"}`` or ``{"commit": None, "reason"}``), or ``None``
    when there is none (a source tree, an editable install, an older build)."""
    try:
        from theorycheck._build_info import BUILD
    except ImportError:
        return None
    return dict(BUILD) if isinstance(BUILD, dict) else None


def source_commit() -> dict:
    """Where this code came from: ``{"commit": <40 hex>, "dirty": bool, "commit_from": how}``
    or ``{"commit": None, "dirty": None, "commit_reason": why}`` (see the module docstring
    for the order of the sources)."""
    live = git_commit()
    if live:
        return {**live, "commit_from": "the git checkout the package runs from"}
    rec = build_info()
    if rec and rec.get("commit"):
        return {"commit": rec["commit"], "dirty": bool(rec.get("dirty")),
                "commit_from": f"recorded when the package was built on {rec.get('built') or 'an unrecorded date'}"}
    if rec:
        return {"commit": None, "dirty": None, "commit_reason": str(rec.get("reason") or "not recorded at build")}
    return {"commit": None, "dirty": None,
            "commit_reason": "installed without a build record of its commit and not run from a git "
                             "checkout (install from a git clone with `pip install .` or `pip install -e .`)"}


def interval_level(alpha: float) -> str:
    """The confidence level ``1 − α`` as a percentage: ``0.01 -> "99 %"``."""
    return f"{100.0 * (1.0 - float(alpha)):.10g} %"


def collect_provenance(*, seed: int, alpha: float, quick: bool, budget=None) -> dict:
    """Everything a reader needs to reproduce or cite the run (plain JSON)."""
    src = source_commit()
    return {
        "package": DISTRIBUTION,
        "version": _version_of(DISTRIBUTION),
        **src,
        "python": platform.python_version(),
        **{lib: _version_of(lib) for lib in LIBRARIES},
        "platform": f"{platform.system()} {platform.machine()}",
        "date": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z"),
        "seed": int(seed),
        "alpha": float(alpha),
        "level": interval_level(alpha),
        "budgets": "quick" if quick else "default",
        "budget": budget,
    }


def commit_text(prov: dict, short: bool = True) -> str:
    """``abc1234`` (``+ uncommitted changes`` when the tree was dirty), or ``unknown``
    with the recorded reason, or ``not recorded`` (a re-rendered run without provenance)."""
    sha = prov.get("commit")
    if not sha:
        if prov.get("commit_reason"):
            return f"unknown ({prov['commit_reason']})"
        return "not recorded" if prov.get("version") is None else "unknown (not a git checkout)"
    text = (sha[:10] if short else sha) + (" + uncommitted changes" if prov.get("dirty") else "")
    return text if short or not prov.get("commit_from") else f"{text} ({prov['commit_from']})"


def cite_line(result, claim_meta: dict, prov: dict) -> str:
    """One line that identifies a verdict exactly: claim id and version, the
    code fingerprint, seed, α, budget actually spent, package version, commit."""
    fp = claim_meta.get("fingerprint") or "unknown"
    ver = claim_meta.get("version")
    return (f"{result.claim} v{ver if ver is not None else '?'} (fingerprint {fp}): {result.verdict} "
            f"at seed {result.seed}, α = {result.alpha:g}, budget {result.budget} "
            f"({result.chunks} chunk{'s' * (result.chunks != 1)}); {prov.get('package') or DISTRIBUTION} "
            f"{prov.get('version') or '(version not recorded)'}, commit {commit_text(prov)}")
