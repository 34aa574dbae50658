"""One style for every paper figure, and the byte-stable save helper.

* :func:`figure` registers a figure-building function under a name;
  ``fn(*, quick: bool, seed: int) -> (matplotlib.figure.Figure, dict)``
  returns the figure and the numbers drawn in it (plain JSON types).
* :func:`save_figure` writes ``NAME.pdf``, ``NAME.png`` and ``NAME.json``
  (the data) with fixed metadata — no dates, no software version — so that
  rebuilding from the same seed gives identical bytes.
"""
from __future__ import annotations

import json
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from proofs_check.engine.claims import to_jsonable  # noqa: E402

__all__ = ["STYLE", "style", "figure", "FIGURES", "save_figure", "new_figure"]

#: rcParams shared by every paper figure.
STYLE = {
    "figure.figsize": (5.0, 3.4),
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 7.5,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "lines.linewidth": 1.4,
    "lines.markersize": 4,
    "pdf.fonttype": 42,
    "svg.hashsalt": "theorycheck",
    "path.simplify": False,
}

#: Registered figures: name -> builder.
FIGURES: dict[str, Callable] = {}


@contextmanager
def style():
    """Context manager applying :data:`STYLE`."""
    with matplotlib.rc_context(STYLE):
        yield


def figure(name: str):
    """Decorator registering a figure builder under ``name`` (unique)."""
    def deco(fn):
        if name in FIGURES and FIGURES[name] is not fn:
            raise ValueError(f"duplicate figure name {name!r}")
        FIGURES[name] = fn
        fn.figure_name = name
        return fn
    return deco


def new_figure(ncols: int = 1, nrows: int = 1, **kw):
    """``plt.subplots`` under the shared style."""
    with style():
        width = STYLE["figure.figsize"][0] * (1 if ncols == 1 else 0.75 * ncols)
        height = STYLE["figure.figsize"][1] * (1 if nrows == 1 else 0.8 * nrows)
        return plt.subplots(nrows, ncols, figsize=kw.pop("figsize", (width, height)),
                            squeeze=kw.pop("squeeze", True), layout=kw.pop("layout", "constrained"),
                            **kw)


def save_figure(fig, name: str, data: dict, outdir: str | os.PathLike) -> list[Path]:
    """Write ``NAME.pdf``, ``NAME.png`` and ``NAME.json`` into ``outdir``.

    Metadata that would change between builds (creation date, software
    version) is removed, so identical inputs give identical bytes.
    """
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{name}.pdf", out / f"{name}.png", out / f"{name}.json"]
    with style():
        fig.savefig(paths[0], metadata={"CreationDate": None, "ModDate": None,
                                        "Producer": "theorycheck", "Creator": "theorycheck"})
        fig.savefig(paths[1], metadata={"Software": None})
    paths[2].write_text(json.dumps(to_jsonable(data), indent=1, sort_keys=True) + "\n")
    plt.close(fig)
    return paths
