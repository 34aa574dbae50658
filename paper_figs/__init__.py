"""Paper figures: one module per topic, each registering its figures.

``python -m paper_figs [--quick] [--out DIR] [PATTERN]`` builds them all; so does
``theorycheck figs``.  :func:`figure_info` gives each figure's caption, the claims it
supports and its print width (the registry: :mod:`paper_figs.registry`; the style and the
save helper: :mod:`paper_figs.style`); :mod:`paper_figs.lint` checks a built figure.
"""
from __future__ import annotations

from pathlib import Path

from .registry import ENTRY_POINT_GROUP, figure, figure_info, figure_modules, figures
from .style import new_figure, save_figure, style

__all__ = ["ENTRY_POINT_GROUP", "figure_modules", "figures", "build", "figure", "figure_info", "save_figure",
           "style", "new_figure"]


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
