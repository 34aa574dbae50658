"""One style for every paper figure, and the byte-stable save helper.

* :func:`drawing` is the context a registered figure is drawn in (the style,
  and the figure's print width for :func:`new_figure`); the registry
  (:mod:`paper_figs.registry`) enters it and marks quick builds with
  :func:`watermark`.
* Figures are drawn at print size — :data:`WIDTHS` (a 3.3 in column, a 6.75 in
  page) — with text ≥ 7 pt; they are saved without rescaling.
* Colours are the Okabe–Ito colour-blind-safe palette (Okabe & Ito 2008,
  "Color Universal Design"), each paired with its own marker and line style in
  the property cycle, so series stay distinct in grey scale.  ``"C0"``…``"C6"``
  name these colours.
* :func:`ref_line`, :func:`delta_line`, :func:`theorem_M_line` draw the
  reference lines where claims live; :func:`grid_ticks` puts the grid values on
  an axis as its ticks; :func:`log_tick_labels` labels a log axis with plain numbers
  (:func:`number_text`: ``0.004``, ``2000``, ``2·10⁻⁵``); :func:`panel_letters` adds (a), (b), ….
* :func:`save_figure` writes ``NAME.pdf``, ``NAME.png`` and ``NAME.json`` (the
  data) with fixed metadata — no dates, no software version — so that
  rebuilding from the same seed gives identical bytes.
"""
from __future__ import annotations

import json
import math
import os
from contextlib import contextmanager
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker as mticker  # noqa: E402
from cycler import cycler  # noqa: E402

from proofs_check.engine import to_jsonable  # noqa: E402

__all__ = ["STYLE", "WIDTHS", "PALETTE", "MARKERS", "LINESTYLES", "MIN_FONT_PT", "style", "drawing",
           "check_width", "watermark", "save_figure", "new_figure", "ref_line", "delta_line", "theorem_M_line",
           "grid_ticks", "panel_letters", "WATERMARK_GID", "REFERENCE_GID"]

#: Print widths in inches: one column of a two-column paper, and the full page.
WIDTHS = {"column": 3.3, "page": 6.75}
#: Default heights (inches) of one row of panels at each width.
ROW_HEIGHT = {"column": 2.45, "page": 2.5}
#: Smallest font size (points, at print size) a figure may use.
MIN_FONT_PT = 7.0

#: Okabe–Ito palette, ordered for contrast between neighbours (yellow last: weak on white).
PALETTE = ("#0072B2",   # blue
           "#D55E00",   # vermillion
           "#009E73",   # bluish green
           "#E69F00",   # orange
           "#CC79A7",   # reddish purple
           "#56B4E9",   # sky blue
           "#000000",   # black
           "#F0E442")   # yellow
#: One marker and one line style per palette entry (redundant coding).
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1.5, 1, 1.5, 1, 1.5)), (0, (3, 1)), (0, (1, 1)), "-")

#: Reference lines and the quick watermark carry these gids (the lint reads them).
REFERENCE_GID = "reference"
WATERMARK_GID = "watermark"

#: rcParams shared by every paper figure (sizes are print sizes).
STYLE = {
    "figure.figsize": (WIDTHS["column"], ROW_HEIGHT["column"]),
    "figure.dpi": 100,
    "savefig.dpi": 220,
    "font.size": 8,
    "axes.titlesize": 8,
    "axes.labelsize": 8,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "legend.fontsize": 7,
    "legend.title_fontsize": 7,
    "legend.frameon": True,
    "legend.framealpha": 0.85,
    "legend.edgecolor": "0.8",
    "legend.fancybox": False,
    "legend.borderpad": 0.3,
    "legend.handlelength": 2.2,
    "legend.handletextpad": 0.4,
    "legend.labelspacing": 0.25,
    "legend.columnspacing": 0.8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.titlepad": 3.0,
    "axes.labelpad": 2.0,
    "axes.prop_cycle": (cycler(color=list(PALETTE[:7])) + cycler(marker=list(MARKERS[:7]))
                        + cycler(linestyle=list(LINESTYLES[:7]))),
    "grid.alpha": 0.3,
    "grid.linewidth": 0.5,
    "lines.linewidth": 1.2,
    "lines.markersize": 3.5,
    "errorbar.capsize": 1.5,
    "xtick.major.size": 2.5,
    "ytick.major.size": 2.5,
    "xtick.major.pad": 2.0,
    "ytick.major.pad": 2.0,
    "figure.constrained_layout.h_pad": 0.02,
    "figure.constrained_layout.w_pad": 0.02,
    "pdf.fonttype": 42,
    "svg.hashsalt": "theorycheck",
    "path.simplify": False,
}

#: The width of the figure being built (set by the registered builder, read by :func:`new_figure`).
_CURRENT: dict = {"width": None}


@contextmanager
def style():
    """Context manager applying :data:`STYLE`."""
    with matplotlib.rc_context(STYLE):
        yield


def check_width(width, name):
    """``ValueError`` unless ``width`` is a key of :data:`WIDTHS` (``name`` says whose width)."""
    if width not in WIDTHS:
        raise ValueError(f"figure {name!r}: width must be one of {sorted(WIDTHS)}, got {width!r}")


@contextmanager
def drawing(width: str):
    """Context for drawing one figure: :func:`style`, and ``width`` as :func:`new_figure`'s default."""
    prev = _CURRENT["width"]
    _CURRENT["width"] = width
    try:
        with style():
            yield
    finally:
        _CURRENT["width"] = prev


def watermark(fig):
    """Mark a quick build: a faint diagonal "QUICK BUILD" across the canvas."""
    w, h = fig.get_size_inches()
    fig.text(0.5, 0.5, "QUICK BUILD (small budget)", transform=fig.transFigure, ha="center", va="center",
             rotation=18 if w > 4 else 25, fontsize=min(26.0, 3.2 * w), color="0.5", alpha=0.16,
             fontweight="bold", zorder=10, gid=WATERMARK_GID)


def new_figure(ncols: int = 1, nrows: int = 1, *, width: str | None = None, height: float | None = None,
               **kw):
    """``plt.subplots`` at print size under the shared style.

    ``width`` defaults to the registered figure's width; ``height`` (inches)
    to ``ROW_HEIGHT[width]`` per row.
    """
    width = width or _CURRENT["width"] or ("column" if ncols == 1 else "page")
    check_width(width, "new_figure")
    if "figsize" in kw:
        raise TypeError("new_figure: pass width='column'|'page' and height=, not figsize")
    h = height if height is not None else ROW_HEIGHT[width] * (1 if nrows == 1 else 0.85 * nrows)
    with style():
        return plt.subplots(nrows, ncols, figsize=(WIDTHS[width], h), squeeze=kw.pop("squeeze", True),
                            layout=kw.pop("layout", "constrained"), **kw)


def ref_line(ax, *, y: float | None = None, x: float | None = None, label: str | None = None,
             ls="--", color="0.25", lw: float = 0.9, **kw):
    """A reference line (a bound, a threshold) across the axes, marked for the lint.

    Exactly one of ``y`` (horizontal) or ``x`` (vertical).  Reference lines are
    grey/black and never use the data colours.
    """
    if (x is None) == (y is None):
        raise TypeError("ref_line: give exactly one of x= or y=")
    f = ax.axhline if y is not None else ax.axvline
    line = f(y if y is not None else x, ls=ls, color=color, lw=lw, label=label, marker="", zorder=1.5, **kw)
    line.set_gid(REFERENCE_GID)
    return line


def delta_line(ax, delta: float, *, label: str | None = None, **kw):
    """The claim's failure probability δ as a horizontal line."""
    return ref_line(ax, y=delta, label=label or f"δ = {delta:g}", ls="--", **kw)


def theorem_M_line(ax, M: float, *, label: str | None = None, **kw):
    """The theorem's required dimension M as a vertical line."""
    return ref_line(ax, x=M, label=label or f"theorem's M = {M:g}", ls=":", lw=1.1, **kw)


def grid_ticks(ax, values, axis: str = "x", fmt: str = "%g", *, every: int = 1):
    """Put the grid values as the axis's major ticks (every ``every``-th labelled), no minor labels."""
    if axis not in ("x", "y"):
        raise ValueError(f"grid_ticks: axis must be 'x' or 'y', got {axis!r}")
    a = ax.xaxis if axis == "x" else ax.yaxis
    vals = [float(v) for v in values]
    a.set_major_locator(mticker.FixedLocator(vals))
    labels = [(fmt % v) if i % every == 0 else "" for i, v in enumerate(vals)]
    a.set_major_formatter(mticker.FixedFormatter(labels))
    a.set_minor_locator(mticker.NullLocator())
    return ax


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def number_text(x: float) -> str:
    """A number as a reader writes it: ``0.004``, ``2000``, and outside [10⁻³, 10⁴) ``2·10⁻⁵`` or
    ``10⁻⁹`` (typeset, never a float literal such as ``2e-05``)."""
    if x == 0 or 1e-3 <= abs(x) < 1e4:
        return f"{x:g}"
    e = int(math.floor(math.log10(abs(x))))
    m = x / 10 ** e
    sup = str(e).translate(_SUPERSCRIPT)
    return f"10{sup}" if abs(m - 1) < 1e-9 else f"{m:.2g}·10{sup}"


def log_tick_labels(ax, axis: str = "y", *, mantissas=None):
    """Label a log axis with :func:`number_text` (no 10^x notation) at the decades and at the ticks
    whose mantissa is in ``mantissas``; ``None`` chooses by the axis's span when drawn: 2, 3, 4, 6
    below 1.2 decades, 3 below 2.2, decades only beyond (fewer labels as the range grows)."""
    if axis not in ("x", "y"):
        raise ValueError(f"log_tick_labels: axis must be 'x' or 'y', got {axis!r}")
    a = ax.xaxis if axis == "x" else ax.yaxis

    def fmt(v, _pos):
        if v <= 0:
            return ""
        keep = mantissas
        if keep is None:
            lo, hi = ax.get_xlim() if axis == "x" else ax.get_ylim()
            span = math.log10(hi / lo) if lo > 0 and hi > lo else 1.0
            keep = (1, 2, 3, 4, 6) if span < 1.2 else (1, 3) if span < 2.2 else (1,)
        lead = round(v / 10 ** math.floor(math.log10(v) + 1e-9), 6)
        return number_text(v) if lead == 1 or lead in keep else ""
    a.set_major_formatter(mticker.FuncFormatter(fmt))
    a.set_minor_formatter(mticker.FuncFormatter(fmt))
    return ax


def panel_letters(axes, *, start: str = "a"):
    """Prefix each panel's title with (a), (b), …, left-aligned (the title moves left)."""
    axes = list(getattr(axes, "flat", axes))
    for i, ax in enumerate(axes):
        letter = f"({chr(ord(start) + i)})"
        title = ax.get_title(loc="center") or ax.get_title(loc="left")
        ax.set_title("", loc="center")
        ax.set_title(f"{letter} {title}".rstrip(), loc="left", fontsize=STYLE["axes.titlesize"])
    return axes


def save_figure(fig, name: str, data: dict, outdir: str | os.PathLike) -> list[Path]:
    """Write ``NAME.pdf``, ``NAME.png`` and ``NAME.json`` into ``outdir`` (print size, no rescaling).

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
