"""Paper figures: one module per topic, each registering its figures.

``python -m paper_figs [--quick] [--out DIR] [PATTERN]`` builds them all; so does
``theorycheck figs``.  :func:`figure_info` gives each figure's caption, the claims it
supports and its print width; :mod:`paper_figs.lint` checks a built figure.
"""
from __future__ import annotations

import fnmatch
import importlib
from importlib.metadata import entry_points
from pathlib import Path

from .style import FIGURES, figure, figure_info, new_figure, save_figure, style

__all__ = ["ENTRY_POINT_GROUP", "figure_modules", "figures", "build", "figure", "figure_info", "save_figure",
           "style", "new_figure"]

#: The entry-point group whose values are modules that register figures.
ENTRY_POINT_GROUP = "theorycheck.figures"


def figure_modules() -> list[str]:
    """The figure modules declared in the ``theorycheck.figures`` entry points."""
    return sorted({ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)})


def figures(pattern: str | None = None) -> dict:
    """Registered figure builders (name -> function), optionally glob-filtered."""
    for mod in figure_modules():
        importlib.import_module(mod)
    names = sorted(FIGURES)
    if pattern:
        names = [n for n in names if fnmatch.fnmatchcase(n, pattern) or n.startswith(pattern)]
    return {n: FIGURES[n] for n in names}


def build(outdir="figures", *, quick: bool = False, seed: int = 0, pattern: str | None = None,
          progress=None) -> list[Path]:
    """Build the selected figures into ``outdir``; returns the written paths."""
    written: list[Path] = []
    for name, fn in figures(pattern).items():
        if progress is not None:
            progress(name)
        fig, data = fn(quick=quick, seed=seed)
        data = {"figure": name, "seed": seed, "quick": quick, **data}
        written += save_figure(fig, name, data, Path(outdir))
    return written
