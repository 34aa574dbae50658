"""Figure lint: what a reviewer would flag, computed from matplotlib's own extents.

:func:`lint_figure` draws the figure once with the Agg renderer and reads the
window extents (display pixels) of its artists:

``text-outside``
    a visible text box (title, label, tick label, legend text, annotation)
    reaches outside the canvas;
``text-overlap``
    two visible text boxes intersect (tick labels colliding, a title over a
    legend, …) by more than :data:`OVERLAP_PX` pixels in both directions
    (rotated texts: their own rotated rectangles, separating-axis test), or a
    legend box covers a text that is not its own;
``legend-covers-data``
    a legend box contains a plotted point, or a point of a line segment
    sampled every ~2 px, or a bar (data lines, markers, scatter points, error
    bars and bars — not reference lines, bands or spans);
``log-span``
    a log axis spans more decades than the data need: ``view > 2·data + 1.5``
    decades (data = plotted values and reference lines on that axis);
``float-zero``
    a log axis shows a value ≤ 1e-12 × the largest value of its axes — a
    floating-point zero or a clamping floor drawn as data;
``hidden-series``
    a series named in a legend is (nearly) invisible: fewer than
    :data:`MIN_VISIBLE` of the pixels it paints change when it is removed
    (legend-only proxies — lines with no data — are skipped; a series whose
    data draw no pixel, e.g. all NaN or outside the view, is reported);
``small-font``
    text below :data:`~paper_figs.style.MIN_FONT_PT` points;
``not-print-size``
    the figure width is not a print width (3.3 in or 6.75 in);
``empty-axis-range``
    a linear y axis without bars leaves more than :data:`EMPTY_AXIS_FRAC` of its height empty in
    one band above or below everything it plots (data, error bars, reference lines): the axis
    starts at 0 (or ends) far from the data, squashing the message into a strip
    (``ensemble_tracking_vs_d_T``, review 2: "a linear axis from 0 wastes 60 % of the height");
``duplicate-legend``
    two legends show the same style (colour, line style, marker) under different labels: one
    quantity is keyed twice, and the legends take the room of one (``mismatch_horizon``, review 2:
    "the two legends take ≈ 35 % of the height");
``coinciding-series``
    two series named in a legend are drawn on top of each other (every sampled display point of
    one within :data:`COINCIDE_PX` pixels of the other) over more than :data:`COINCIDE_FRAC` of its
    length: the reader cannot tell them apart; merge them into one entry or separate them
    (``mismatch_estimators`` (c), review 2: "overlapping curves").  A translucent band at least
    2.5× as wide as the line it lies under is the designed sign of "equal" and is exempt, and so is
    a series on a line whose legend label names a bound (it attains the bound), and a pair that
    both draw staggered markers (``markevery``: told apart by their markers);
``image-saturated``
    a colour mesh or image has more than :data:`SATURATED_FRAC` of its finite cells at one end of
    its colour scale (within :data:`SATURATED_TOL` of the colour range): the map shows one flat colour where it should show structure
    (``seqproj_worst_case_policy`` (a), review 2: "mostly saturated yellow");
``image-holes``
    a colour mesh or image has missing (NaN or masked) cells drawn in the colour map's default
    transparent "bad" colour: the holes read as white rendering artefacts; give them a colour of
    their own (``cmap.with_extremes(bad=…)``) and a key (``seqproj_worst_case_policy``, review 2:
    "white artefact pixels");
``mixed-bars``
    one axes has bars on the baseline and floating bars (``bottom`` ≠ 0): two encodings of
    one ratio side by side (``seqproj_worst_case_ratio``, review 2: "floating orange range bars next
    to solid blue bars");
``empty-canvas-band``
    a band of blank canvas rows taller than :data:`EMPTY_BAND_FRAC` of the figure height lies
    between drawn content (``seqproj_worst_case_ratio``, review 2: "large empty space above the
    legend").

The quick-build watermark (gid ``"watermark"``) is exempt from the overlap and
font checks.  :func:`lint_figure` returns a list of :class:`Finding`; an empty
list is a pass.
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass

import matplotlib
import numpy as np
from matplotlib.collections import LineCollection, PathCollection, PolyCollection
from matplotlib.container import Container
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.text import Text

from .style import MIN_FONT_PT, WATERMARK_GID, WIDTHS

__all__ = ["Finding", "lint_figure", "CHECKS", "OVERLAP_PX", "MIN_VISIBLE", "EMPTY_AXIS_FRAC", "COINCIDE_PX",
           "COINCIDE_FRAC", "SATURATED_FRAC", "SATURATED_TOL", "EMPTY_BAND_FRAC"]

#: Every check's code.
CHECKS = ("text-outside", "text-overlap", "legend-covers-data", "log-span", "float-zero", "hidden-series",
          "small-font", "not-print-size", "empty-axis-range", "duplicate-legend", "coinciding-series",
          "image-saturated", "image-holes", "mixed-bars", "empty-canvas-band")
#: Text boxes must intersect by more than this (pixels at 100 dpi) in x and y to count as overlapping.
OVERLAP_PX = 1.0
#: Canvas tolerance (pixels) for text reaching the edge.
EDGE_PX = 1.0
#: A legend series must keep at least this fraction of its own pixels visible.
MIN_VISIBLE = 0.15
#: A log axis may span at most ``SPAN_FACTOR * data_decades + SPAN_SLACK`` decades.
SPAN_FACTOR, SPAN_SLACK = 2.0, 1.5
#: Values at most this fraction of their axes' largest value are floating-point zeros.
FLOAT_ZERO_REL = 1e-12
#: A linear y axis may leave at most this fraction of its height empty in one band (empty-axis-range).
EMPTY_AXIS_FRAC = 0.45
#: Two series coincide where their display points are within this many pixels (coinciding-series) ...
COINCIDE_PX = 2.0
#: ... over more than this fraction of the sampled length of one of them.
COINCIDE_FRAC = 0.6
#: A colour map may have at most this fraction of its finite cells at one end of its scale (within
#: SATURATED_TOL of the colour range from vmin or vmax: a colour the eye cannot tell from the end's).
SATURATED_FRAC, SATURATED_TOL = 0.4, 0.05
#: A blank band between drawn content may take at most this fraction of the canvas height.
EMPTY_BAND_FRAC = 0.08


@dataclass(frozen=True)
class Finding:
    """One lint failure: its check ``code`` and a human-readable ``message``."""
    code: str
    message: str

    def __str__(self):
        return f"[{self.code}] {self.message}"


# ---------------------------------------------------------------------------
# text
# ---------------------------------------------------------------------------

def _axis_tick_texts(axis):
    """Tick labels actually drawn by an axis (ticks inside the view, label on, non-empty)."""
    out = []
    for tick in axis._update_ticks():
        for lab, on in ((tick.label1, tick.label1.get_visible()), (tick.label2, tick.label2.get_visible())):
            if on and lab.get_text().strip():
                out.append(lab)
    return out


def _visible(artist):
    a = artist
    while a is not None:
        if not a.get_visible():
            return False
        a = getattr(a, "axes", None) if a is artist else None
    return True


def _texts(fig):
    """Every visible, non-empty text of the figure with a description."""
    tick_labels = set()
    drawn = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for axis, nm in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            for t in axis.get_ticklabels(minor=False) + axis.get_ticklabels(minor=True):
                tick_labels.add(id(t))
            if axis.get_visible():
                for t in _axis_tick_texts(axis):
                    drawn.append((t, f"{nm}-tick label {t.get_text()!r}"))
                    tick_labels.add(id(t))
    for t in fig.findobj(Text):
        if id(t) in tick_labels or not t.get_visible() or not t.get_text().strip():
            continue
        if t.axes is not None and not t.axes.get_visible():
            continue
        parent_legend = _legend_of(t, fig)
        if parent_legend is not None and not parent_legend.get_visible():
            continue
        drawn.append((t, f"text {t.get_text()!r}"))
    return drawn


def _legend_of(t, fig):
    for leg in _legends(fig):
        if t in leg.get_texts() or t is leg.get_title():
            return leg
    return None


def _legends(fig):
    out = [leg for leg in fig.legends]
    out += [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    return out


def _text_rect(t, bb, renderer):
    """Corners (4×2, display px) of a rotated text's own rectangle, or None when it is not rotated.

    With matplotlib's default rotation mode the text is rotated about its centre and the
    axis-aligned box of the result is what ``get_window_extent`` returns, so the rotated
    rectangle has that box's centre and the unrotated text's size."""
    angle = t.get_rotation() % 180.0
    if min(angle, 180.0 - angle) < 1e-6 or abs(angle - 90.0) < 1e-6:
        return None
    rot = t.get_rotation()
    try:
        t.set_rotation(0)
        un = t.get_window_extent(renderer)
    finally:
        t.set_rotation(rot)
    w, h = un.width, un.height
    c = np.array([(bb.x0 + bb.x1) / 2, (bb.y0 + bb.y1) / 2])
    a = math.radians(rot)
    u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    return np.array([c + sx * w / 2 * u + sy * h / 2 * v for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])


def _corners(bb):
    return np.array([(bb.x0, bb.y0), (bb.x1, bb.y0), (bb.x1, bb.y1), (bb.x0, bb.y1)])


def _rects_overlap(ra, rb, ba, bb):
    """Separating-axis test of two (possibly rotated) rectangles, overlap > OVERLAP_PX on every axis."""
    pa = ra if ra is not None else _corners(ba)
    pb = rb if rb is not None else _corners(bb)
    for poly in (pa, pb):
        for k in range(2):
            edge = poly[k + 1] - poly[k]
            n = np.array([-edge[1], edge[0]]) / (np.hypot(*edge) or 1.0)
            a, b = pa @ n, pb @ n
            if min(a.max(), b.max()) - max(a.min(), b.min()) <= OVERLAP_PX:
                return False
    return True


def _bbox_overlap(a, b):
    dx = min(a.x1, b.x1) - max(a.x0, b.x0)
    dy = min(a.y1, b.y1) - max(a.y0, b.y0)
    return dx, dy


# ---------------------------------------------------------------------------
# data geometry
# ---------------------------------------------------------------------------

def _is_reference(artist):
    return artist.get_gid() in ("reference",) or (isinstance(artist, Line2D) and not _data_xy(artist))


def _data_xy(line):
    """True when both coordinates of ``line`` are data coordinates (not axhline/axvline)."""
    ax = line.axes
    if ax is None:
        return False
    bx, by = line.get_transform().contains_branch_seperately(ax.transData)
    return bool(bx and by)


def _sample_path(xy, step=2.0):
    """Display points of a polyline, with extra points every ``step`` pixels along each segment."""
    xy = np.asarray(xy, float)
    xy = xy[np.all(np.isfinite(xy), axis=1)] if xy.ndim == 2 else xy.reshape(0, 2)
    if len(xy) < 2:
        return xy
    pts = [xy[:1]]
    for a, b in zip(xy[:-1], xy[1:]):
        n = int(min(400, max(1, math.hypot(*(b - a)) / step)))
        t = np.linspace(0, 1, n + 1)[1:, None]
        pts.append(a + t * (b - a))
    return np.concatenate(pts)


def _line_segments_display(line):
    """Display-space polylines of a Line2D (NaNs split it)."""
    xy = line.get_transform().transform(np.column_stack([np.asarray(line.get_xdata(), float),
                                                         np.asarray(line.get_ydata(), float)]))
    ok = np.all(np.isfinite(xy), axis=1)
    runs, cur = [], []
    for p, good in zip(xy, ok):
        if good:
            cur.append(p)
        elif cur:
            runs.append(np.array(cur))
            cur = []
    if cur:
        runs.append(np.array(cur))
    return runs


def _data_points(ax):
    """Display points of the data drawn in ``ax`` (lines sampled along segments, markers, scatter, error
    bars, bar outlines).  Reference lines, bands and spans are not data."""
    pts = []
    for line in ax.get_lines():
        if not line.get_visible() or _is_reference(line):
            continue
        has_line = line.get_linestyle() not in ("None", "none", "", " ") and line.get_linewidth() > 0
        for run in _line_segments_display(line):
            pts.append(_sample_path(run) if has_line else run)
    for coll in ax.collections:
        if not coll.get_visible() or coll.get_gid() == "reference":
            continue
        if isinstance(coll, PathCollection):
            off = coll.get_offsets()
            if len(off):
                pts.append(coll.get_offset_transform().transform(np.asarray(off, float)))
        elif isinstance(coll, LineCollection):
            tr = coll.get_transform()
            for seg in coll.get_segments():
                if len(seg):
                    pts.append(_sample_path(tr.transform(np.asarray(seg, float))))
    for patch in ax.patches:
        if isinstance(patch, Rectangle) and patch.get_visible() and patch.get_gid() != "reference":
            bb = patch.get_window_extent()
            if bb.width > 0 and bb.height > 0:
                xs = np.linspace(bb.x0, bb.x1, 6)
                ys = np.linspace(bb.y0, bb.y1, 6)
                pts.append(np.array([(x, y) for x in xs for y in ys]))
    if not pts:
        return np.zeros((0, 2))
    p = np.concatenate(pts)
    p = p[np.all(np.isfinite(p), axis=1)]
    box = ax.get_window_extent()
    inside = (p[:, 0] >= box.x0 - 0.5) & (p[:, 0] <= box.x1 + 0.5) & (p[:, 1] >= box.y0 - 0.5) & \
             (p[:, 1] <= box.y1 + 0.5)
    return p[inside]


def _axis_values(ax, which):
    """Positive finite data values of ``ax`` along ``which`` ('x' or 'y'), reference lines included."""
    vals = []
    k = 0 if which == "x" else 1
    for line in ax.get_lines():
        if not line.get_visible():
            continue
        bx, by = line.get_transform().contains_branch_seperately(ax.transData)
        if (bx, by)[k]:
            vals.append(np.asarray(line.get_xdata() if k == 0 else line.get_ydata(), float))
    for coll in ax.collections:
        if not coll.get_visible():
            continue
        if isinstance(coll, PathCollection):
            if coll.get_offset_transform().contains_branch(ax.transData):
                vals.append(np.asarray(coll.get_offsets(), float)[:, k])
        elif isinstance(coll, (LineCollection, PolyCollection)):
            if coll.get_transform().contains_branch(ax.transData):
                for path in coll.get_paths():
                    vals.append(np.asarray(path.vertices, float)[:, k])
    for patch in ax.patches:
        if isinstance(patch, Rectangle) and patch.get_visible():
            if patch.get_transform().contains_branch(ax.transData):
                x, y, w, h = patch.get_x(), patch.get_y(), patch.get_width(), patch.get_height()
                vals.append(np.array([x, x + w]) if k == 0 else np.array([y, y + h]))
    if not vals:
        return np.zeros(0)
    v = np.concatenate([np.ravel(x) for x in vals])
    return v[np.isfinite(v) & (v > 0)]


# ---------------------------------------------------------------------------
# hidden series
# ---------------------------------------------------------------------------

def _flatten(h):
    if isinstance(h, Container):
        out = []
        for c in h:
            out += _flatten(c)
        return out
    if isinstance(h, (tuple, list)):
        out = []
        for c in h:
            out += _flatten(c)
        return out
    return [] if h is None else [h]


def _is_proxy(a):
    """A legend-only handle: a line with no data at all (``ax.plot([], [], label=...)``)."""
    return isinstance(a, Line2D) and len(np.atleast_1d(a.get_xdata())) == 0


def _legend_series(fig):
    """``(label, [(axes, [artists]), ...])`` of every data series named in a legend: an axes legend
    names the series of its own axes, a figure legend those of any axes."""
    wanted = {}        # label -> set of axes ids where it may live (None: any)
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is not None and leg.get_visible():
            for t in leg.get_texts():
                wanted.setdefault(t.get_text(), set()).add(id(ax))
    for leg in fig.legends:
        if leg.get_visible():
            for t in leg.get_texts():
                wanted[t.get_text()] = None
    found = {}
    for ax in fig.axes:
        handles, labs = ax.get_legend_handles_labels()
        # a histogram's legend handle is its first bar alone: the series is the whole container
        owner = {id(patch): c for c in ax.containers for patch in c}
        handles = [owner.get(id(h), h) for h in handles]
        for h, lab in zip(handles, labs):
            where = wanted.get(lab, ())
            if where is None or id(ax) in where:
                arts = [a for a in _flatten(h) if a.get_visible() and not _is_proxy(a)]
                if arts:
                    found.setdefault(lab, []).append((ax, arts))
    return list(found.items())


def _render(fig):
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba()).copy()


def _render_axes(fig, ax):
    """The data artists of one axes (lines, collections, patches, images — no axis decorations, no
    text) drawn alone in z-order: what decides whether a series is visible, cheap to repeat."""
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.collections import Collection
    from matplotlib.image import AxesImage
    from matplotlib.patches import Patch
    w, h = fig.canvas.get_width_height()
    r = RendererAgg(w, h, fig.dpi)
    spines = set(map(id, ax.spines.values()))
    arts = [a for a in ax.get_children()
            if isinstance(a, (Line2D, Collection, Patch, AxesImage)) and a is not ax.patch
            and id(a) not in spines and a.get_visible()]
    with _aliased(arts):        # no antialiasing: an edge blended over another line is not "visible"
        for a in sorted(arts, key=lambda a: a.get_zorder()):
            a.draw(r)
    return np.asarray(r.buffer_rgba()).copy()


@contextmanager
def _aliased(arts):
    saved = []
    for a in arts:
        if hasattr(a, "get_antialiased") and hasattr(a, "set_antialiased"):
            saved.append((a, a.get_antialiased()))
            a.set_antialiased(False)
    try:
        yield
    finally:
        for a, v in saved:
            a.set_antialiased(v)


def _footprint(fig, artists):
    """Number of pixels the artists paint on their own (drawn onto a blank renderer)."""
    from matplotlib.backends.backend_agg import RendererAgg
    w, h = fig.canvas.get_width_height()
    r = RendererAgg(w, h, fig.dpi)
    with _aliased(artists):
        for a in artists:
            a.draw(r)
    return int(np.count_nonzero(np.asarray(r.buffer_rgba())[..., 3] > 24))



# ---------------------------------------------------------------------------
# layout and encodings (rules added after review 2, docs/history/figures.md)
# ---------------------------------------------------------------------------

def _linear_y_values(ax):
    """Every finite y value ``ax`` plots in data coordinates: lines (reference lines included),
    scatter offsets, error-bar and band vertices, rectangles."""
    vals = []
    for line in ax.get_lines():
        if line.get_visible():
            _, by = line.get_transform().contains_branch_seperately(ax.transData)
            if by:
                vals.append(np.asarray(line.get_ydata(), float))
    for coll in ax.collections:
        if not coll.get_visible():
            continue
        if isinstance(coll, PathCollection) and coll.get_offset_transform().contains_branch(ax.transData):
            vals.append(np.asarray(coll.get_offsets(), float).reshape(-1, 2)[:, 1])
        elif isinstance(coll, (LineCollection, PolyCollection)) and coll.get_transform().contains_branch(
                ax.transData):
            for path in coll.get_paths():
                vals.append(np.asarray(path.vertices, float)[:, 1])
    for patch in ax.patches:
        if isinstance(patch, Rectangle) and patch.get_visible() and patch.get_transform().contains_branch(
                ax.transData):
            vals.append(np.array([patch.get_y(), patch.get_y() + patch.get_height()]))
    if not vals:
        return np.zeros(0)
    v = np.concatenate([np.ravel(x) for x in vals])
    return v[np.isfinite(v)]


def _style_key(h):
    """(colour, line style, marker) of a legend handle's first drawable artist, or None."""
    arts = _flatten(h)
    for a in arts:
        if isinstance(a, Line2D):
            ls = a.get_linestyle()
            return (matplotlib.colors.to_hex(a.get_color(), keep_alpha=False), str(ls), str(a.get_marker()),
                    round(float(a.get_linewidth()), 1))
    return None


def _legend_entries(leg):
    """(label, handle) pairs of a legend."""
    handles = getattr(leg, "legend_handles", None) or getattr(leg, "legendHandles", [])
    return [(t.get_text(), h) for t, h in zip(leg.get_texts(), handles)]


def _coincide(p, q, px):
    """Fraction of the points ``p`` within ``px`` pixels of some point of ``q``."""
    if not len(p) or not len(q):
        return 0.0
    near = np.zeros(len(p), bool)
    for k in range(0, len(q), 512):
        d = np.hypot(p[:, None, 0] - q[None, k:k + 512, 0], p[:, None, 1] - q[None, k:k + 512, 1])
        near |= (d <= px).any(axis=1)
    return float(near.mean())


def _is_band(a, b):
    """True when line ``a`` is a highlight band for ``b``: translucent and at least 2.5× as wide."""
    alpha = a.get_alpha()
    return alpha is not None and alpha < 1 and a.get_linewidth() >= 2.5 * max(b.get_linewidth(), 0.1)


def _staggered(line):
    """True when ``line`` draws markers on a subset of its points (``markevery`` set): curves with
    staggered markers stay distinguishable where they run together."""
    return line.get_marker() not in (None, "", " ", "None", "none") and line.get_markevery() is not None


def _line_points(line):
    pts = [_sample_path(run) for run in _line_segments_display(line)]
    return np.concatenate(pts) if pts else np.zeros((0, 2))


def _mesh_cells(artist):
    """(values, mask of missing cells) of a QuadMesh / AxesImage, or None."""
    from matplotlib.collections import QuadMesh
    from matplotlib.image import AxesImage
    if not isinstance(artist, (QuadMesh, AxesImage)):
        return None
    a = artist.get_array()
    if a is None:
        return None
    a = np.ma.asarray(a)
    if a.ndim == 3:                   # an RGB(A) image: no colour scale
        return None
    missing = np.ma.getmaskarray(a) | ~np.isfinite(np.ma.getdata(a))
    return np.ma.getdata(a).astype(float), missing

# ---------------------------------------------------------------------------
# the lint
# ---------------------------------------------------------------------------

def lint_figure(fig, *, name: str = "figure", checks=CHECKS) -> list[Finding]:
    """Lint ``fig`` (a matplotlib Figure drawn with the Agg canvas); returns the findings."""
    if not isinstance(fig, matplotlib.figure.Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    unknown = set(checks) - set(CHECKS)
    if unknown:
        raise ValueError(f"checks: unknown check(s) {sorted(unknown)}; allowed {list(CHECKS)}")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    out: list[Finding] = []
    _render(fig)                       # one Agg draw: extents below are of this draw
    renderer = fig.canvas.get_renderer()
    W, H = fig.canvas.get_width_height()

    if "not-print-size" in checks:
        w_in = fig.get_size_inches()[0]
        if not any(abs(w_in - w) < 0.01 for w in WIDTHS.values()):
            out.append(Finding("not-print-size", f"{name}: width {w_in:.2f} in is not a print width "
                                                 f"{sorted(WIDTHS.values())}"))

    texts = [(t, d, t.get_window_extent(renderer)) for t, d in _texts(fig)]
    for t, d, bb in texts:
        wm = t.get_gid() == WATERMARK_GID
        if "text-outside" in checks and (bb.x0 < -EDGE_PX or bb.y0 < -EDGE_PX or bb.x1 > W + EDGE_PX
                                         or bb.y1 > H + EDGE_PX):
            out.append(Finding("text-outside", f"{name}: {d} reaches outside the canvas "
                                               f"({bb.x0:.0f}..{bb.x1:.0f} × {bb.y0:.0f}..{bb.y1:.0f} px, "
                                               f"canvas {W}×{H})"))
        if "small-font" in checks and not wm and t.get_fontsize() < MIN_FONT_PT - 1e-9:
            out.append(Finding("small-font", f"{name}: {d} is {t.get_fontsize():g} pt < {MIN_FONT_PT:g} pt"))
    if "text-overlap" in checks:
        boxes = [(t, d, bb) for t, d, bb in texts if t.get_gid() != WATERMARK_GID]
        rects = [_text_rect(t, bb, renderer) for t, d, bb in boxes]
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                dx, dy = _bbox_overlap(boxes[i][2], boxes[j][2])
                if dx > OVERLAP_PX and dy > OVERLAP_PX and (
                        rects[i] is None and rects[j] is None or _rects_overlap(rects[i], rects[j], boxes[i][2],
                                                                                 boxes[j][2])):
                    out.append(Finding("text-overlap", f"{name}: {boxes[i][1]} overlaps {boxes[j][1]} "
                                                       f"by {dx:.0f}×{dy:.0f} px"))

    if "text-overlap" in checks:        # a legend box over a text that is not its own
        for leg in _legends(fig):
            if not leg.get_visible():
                continue
            lb = leg.get_window_extent(renderer)
            own = {id(t) for t in leg.get_texts()} | {id(leg.get_title())}
            for t, d, bb in texts:
                if id(t) in own or t.get_gid() == WATERMARK_GID:
                    continue
                dx, dy = _bbox_overlap(lb, bb)
                if dx > OVERLAP_PX and dy > OVERLAP_PX:
                    out.append(Finding("text-overlap", f"{name}: a legend box covers {d} by {dx:.0f}×{dy:.0f} px"))

    if "legend-covers-data" in checks:
        pts = [(ax, _data_points(ax)) for ax in fig.axes if ax.get_visible()]
        for leg in _legends(fig):
            if not leg.get_visible():
                continue
            bb = leg.get_window_extent(renderer)
            for ax, p in pts:
                if not len(p):
                    continue
                inside = (p[:, 0] > bb.x0 + 1) & (p[:, 0] < bb.x1 - 1) & (p[:, 1] > bb.y0 + 1) & \
                         (p[:, 1] < bb.y1 - 1)
                if inside.any():
                    title = ax.get_title(loc="left") or ax.get_title() or "axes"
                    out.append(Finding("legend-covers-data",
                                       f"{name}: the legend covers {int(inside.sum())} plotted point(s) of "
                                       f"{title!r}"))

    for ax in fig.axes:
        if not ax.get_visible():
            continue
        title = ax.get_title(loc="left") or ax.get_title() or "axes"
        for which in ("x", "y"):
            if (ax.get_xscale() if which == "x" else ax.get_yscale()) != "log":
                continue
            lo, hi = sorted(ax.get_xlim() if which == "x" else ax.get_ylim())
            vals = _axis_values(ax, which)
            vis = vals[(vals >= lo * (1 - 1e-9)) & (vals <= hi * (1 + 1e-9))]
            if not len(vis):
                continue
            if "float-zero" in checks:
                tiny = vis[vis <= FLOAT_ZERO_REL * vis.max()]
                if len(tiny):
                    out.append(Finding("float-zero", f"{name}: {title!r} {which} axis plots {len(tiny)} value(s) "
                                                     f"≤ {FLOAT_ZERO_REL:g} × its largest ({tiny.min():.3g} vs "
                                                     f"{vis.max():.3g}): a floating-point zero or floor "
                                                     "drawn as data"))
            if "log-span" in checks and lo > 0:
                view = math.log10(hi / lo)
                need = math.log10(vis.max() / vis.min())
                if view > SPAN_FACTOR * need + SPAN_SLACK:
                    out.append(Finding("log-span", f"{name}: {title!r} {which} axis spans {view:.1f} decades, "
                                                   f"the data need {need:.1f}"))

    if "hidden-series" in checks:
        ax_base = {}
        for lab, places in _legend_series(fig):
            best = None                       # the most visible instance of the label
            for ax, arts in places:
                own = _footprint(fig, arts)
                if own == 0:
                    frac, changed = 0.0, 0
                else:
                    if id(ax) not in ax_base:
                        ax_base[id(ax)] = _render_axes(fig, ax)
                    states = [a.get_visible() for a in arts]
                    for a in arts:
                        a.set_visible(False)
                    try:
                        without = _render_axes(fig, ax)
                    finally:
                        for a, st in zip(arts, states):
                            a.set_visible(st)
                    diff = np.abs(ax_base[id(ax)].astype(np.int16) - without.astype(np.int16)).max(axis=-1)
                    changed = int(np.count_nonzero(diff > 24))
                    frac = changed / own
                if best is None or frac > best[0]:
                    best = (frac, changed, own)
            frac, changed, own = best
            if own == 0:
                out.append(Finding("hidden-series", f"{name}: legend series {lab!r} draws no pixel"))
            elif frac < MIN_VISIBLE:
                out.append(Finding("hidden-series", f"{name}: legend series {lab!r} is hidden: "
                                                    f"{changed} of its {own} pixels visible "
                                                    f"(< {MIN_VISIBLE:.0%})"))
    for ax in fig.axes:
        if not ax.get_visible() or "empty-axis-range" not in checks or ax.get_yscale() != "linear":
            continue
        if any(isinstance(p, Rectangle) and p.get_visible() for p in ax.patches) or ax.images or \
                any(_mesh_cells(c) is not None for c in ax.collections):
            continue                              # bars start at their baseline; maps fill the axes
        v = _linear_y_values(ax)
        lo, hi = sorted(ax.get_ylim())
        v = v[(v >= lo) & (v <= hi)]
        leg = ax.get_legend()              # room kept for a legend inside the axes is not wasted
        if leg is not None and leg.get_visible() and len(v):
            lb = leg.get_window_extent(renderer)
            ab = ax.get_window_extent(renderer)
            if lb.x1 > ab.x0 and lb.x0 < ab.x1 and lb.y1 > ab.y0 and lb.y0 < ab.y1:
                ys = ax.transData.inverted().transform([[0.5 * (lb.x0 + lb.x1), lb.y0],
                                                        [0.5 * (lb.x0 + lb.x1), lb.y1]])[:, 1]
                v = np.concatenate([v, np.clip(ys, lo, hi)])
        if len(v) < 2 or hi <= lo:
            continue
        below, above = (v.min() - lo) / (hi - lo), (hi - v.max()) / (hi - lo)
        if max(below, above) > EMPTY_AXIS_FRAC:
            title = ax.get_title(loc="left") or ax.get_title() or "axes"
            where = "below" if below >= above else "above"
            out.append(Finding("empty-axis-range", f"{name}: {title!r} y axis leaves {max(below, above):.0%} "
                                                   f"of its height empty {where} everything it plots "
                                                   f"(view {lo:.3g}..{hi:.3g}, plotted {v.min():.3g}..{v.max():.3g})"))

    if "duplicate-legend" in checks:
        legs = [leg for leg in _legends(fig) if leg.get_visible()]
        seen = {}
        for i, leg in enumerate(legs):
            for lab, h in _legend_entries(leg):
                key = _style_key(h)
                if key is None:
                    continue
                for j, lab2 in seen.get(key, []):
                    if j != i and lab2 != lab:
                        out.append(Finding("duplicate-legend", f"{name}: the style of {lab!r} is keyed again "
                                                               f"in another legend as {lab2!r}: one legend "
                                                               "for the figure"))
                seen.setdefault(key, []).append((i, lab))

    if "coinciding-series" in checks:
        hidden = {f.message for f in out if f.code == "hidden-series"}
        for ax in fig.axes:
            if not ax.get_visible():
                continue
            named = [(l.get_label(), l) for l in ax.get_lines()
                     if l.get_visible() and not l.get_label().startswith("_") and not _is_reference(l)]
            pts = [(lab, _line_points(l)) for lab, l in named]
            for i in range(len(pts)):
                for j in range(i + 1, len(pts)):
                    if _is_band(named[i][1], named[j][1]) or _is_band(named[j][1], named[i][1]):
                        continue     # a translucent band under a line: the designed sign of "equal"
                    if any("bound" in pts[k][0].lower() for k in (i, j)):
                        continue     # a series lying on a bound attains it: the message, not a defect
                    la, lb = named[i][1], named[j][1]
                    if _staggered(la) and _staggered(lb):
                        continue     # markers placed apart (markevery): the curves are told apart
                    f = max(_coincide(pts[i][1], pts[j][1], COINCIDE_PX),
                            _coincide(pts[j][1], pts[i][1], COINCIDE_PX))
                    if f > COINCIDE_FRAC and not any(repr(pts[k][0]) in m for k in (i, j) for m in hidden):
                        title = ax.get_title(loc="left") or ax.get_title() or "axes"
                        out.append(Finding("coinciding-series", f"{name}: {title!r}: {pts[i][0]!r} and "
                                                                f"{pts[j][0]!r} are drawn on top of each other "
                                                                f"over {f:.0%} of their length"))

    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for art in list(ax.collections) + list(ax.images):
            cells = _mesh_cells(art)
            if cells is None or not art.get_visible():
                continue
            vals, missing = cells
            title = ax.get_title(loc="left") or ax.get_title() or "axes"
            ok = vals[~missing]
            if "image-saturated" in checks and ok.size:
                vmin, vmax = art.norm.vmin, art.norm.vmax
                if vmin is not None and vmax is not None and vmax > vmin:
                    if isinstance(art.norm, matplotlib.colors.LogNorm) and vmin > 0:
                        tol = (math.log10(vmax) - math.log10(vmin)) * SATURATED_TOL
                        lv = np.log10(np.maximum(ok, 1e-300))
                        top = lv >= math.log10(vmax) - tol
                        bot = lv <= math.log10(vmin) + tol
                    else:
                        tol = (vmax - vmin) * SATURATED_TOL
                        top, bot = ok >= vmax - tol, ok <= vmin + tol
                    frac = max(top.mean(), bot.mean())
                    if frac > SATURATED_FRAC:
                        out.append(Finding("image-saturated", f"{name}: {title!r}: {frac:.0%} of the map's "
                                                              "cells sit at one end of its colour scale"))
            if "image-holes" in checks and missing.any():
                bad = art.get_cmap()(np.ma.masked_invalid([np.nan]))[0]
                if bad[3] < 0.05:
                    out.append(Finding("image-holes", f"{name}: {title!r}: {int(missing.sum())} missing cell(s) "
                                                          "drawn transparent (read as white artefacts); give "
                                                          "them a colour and a key"))

    if "mixed-bars" in checks:
        for ax in fig.axes:
            bottoms = [p.get_y() if p.get_height() >= 0 else p.get_y() + p.get_height()
                       for c in ax.containers for p in c if isinstance(p, Rectangle) and p.get_visible()]
            if bottoms:
                on = [abs(b) < 1e-12 for b in bottoms]
                if any(on) and not all(on):
                    title = ax.get_title(loc="left") or ax.get_title() or "axes"
                    out.append(Finding("mixed-bars", f"{name}: {title!r} mixes bars on the baseline "
                                                     f"({sum(on)}) with floating bars ({len(on) - sum(on)}): "
                                                     "one encoding per quantity"))

    if "empty-canvas-band" in checks:
        img = _render(fig)
        ink = (np.abs(img[..., :3].astype(int) - img[0:1, 0:1, :3].astype(int)).max(axis=-1) > 12).any(axis=1)
        rows = np.flatnonzero(ink)
        if len(rows):
            blank = ~ink[rows[0]:rows[-1] + 1]
            run = best = 0
            for b in blank:
                run = run + 1 if b else 0
                best = max(best, run)
            if best > EMPTY_BAND_FRAC * H:
                out.append(Finding("empty-canvas-band", f"{name}: a blank band {best} px tall "
                                                        f"({best / H:.0%} of the height) between drawn content"))
    return out
