"""Build hook: record the source commit in the package when it is built.

Everything else about the build is declared in ``pyproject.toml``.  ``pip install .``
from a clone builds a wheel and installs it into site-packages, where the package is
no longer inside a git checkout; without this hook the report and every "cite this
verdict" line could only say that the commit is unknown.  So at build time
``build_py`` writes ``theorycheck/_build_info.py`` into the build folder (never into
the source tree) with the commit of the checkout being built, whether tracked files
had uncommitted changes, and the UTC build date; ``sdist`` writes the same file into
the source archive, so a wheel built from that archive (``python -m build``) keeps
it.  Without git or outside a checkout the file says why the commit is unknown.
``theorycheck.report.provenance.source_commit`` reads it.
"""
from __future__ import annotations

import datetime as _dt
import os
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

ROOT = os.path.dirname(os.path.abspath(__file__))
TARGET = os.path.join("theorycheck", "_build_info.py")


def read_git(root: str = ROOT) -> dict:
    """``{"commit", "dirty", "built"}`` of the checkout at ``root``, or ``{"commit": None,
    "reason": ...}`` when ``root`` is not the top of a git checkout or git is missing."""
    built = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")

    def git(*args):
        out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=30)
        if out.returncode != 0:
            raise OSError(out.stderr.strip() or f"git {args[0]} failed")
        return out.stdout.strip()

    try:
        top = git("rev-parse", "--show-toplevel")
        if os.path.realpath(top) != os.path.realpath(root):
            return {"commit": None, "built": built,
                    "reason": f"built from a folder that is not the top of a git checkout (inside {top})"}
        return {"commit": git("rev-parse", "HEAD"), "built": built,
                "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}
    except FileNotFoundError:
        return {"commit": None, "built": built, "reason": "git was not installed where the package was built"}
    except (OSError, subprocess.SubprocessError) as exc:
        return {"commit": None, "built": built,
                "reason": f"built from a folder that is not a git checkout ({str(exc).splitlines()[0][:120]})"}


def write_build_info(package_root: str, info: dict) -> str:
    """Write ``theorycheck/_build_info.py`` under ``package_root``; returns its path."""
    path = os.path.join(package_root, TARGET)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write('"""Written by setup.py when this package was built (see setup.py); do not edit."""\n')
        fh.write(f"BUILD = {info!r}\n")
    return path


class BuildPyWithCommit(build_py):
    """``build_py`` that also writes ``theorycheck/_build_info.py`` into the build folder."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):     # editable: the live checkout is read instead
            return
        info = read_git(ROOT)
        if info["commit"] is None and os.path.exists(os.path.join(ROOT, TARGET)):
            return                                     # an sdist's record (copied by build_py) wins
        write_build_info(self.build_lib, info)


class SdistWithCommit(sdist):
    """``sdist`` that puts ``theorycheck/_build_info.py`` into the source archive."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        info = read_git(ROOT)
        if info["commit"] is not None or not os.path.exists(os.path.join(base_dir, TARGET)):
            target = os.path.join(base_dir, TARGET)
            if os.path.lexists(target):               # a hard link to the source file: replace, never edit
                os.unlink(target)
            write_build_info(base_dir, info)


if __name__ == "__main__":
    setup(cmdclass={"build_py": BuildPyWithCommit, "sdist": SdistWithCommit})
