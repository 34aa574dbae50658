"""The figure registry: which figures exist, what each one shows, and the README gallery.

* :func:`figure` registers a figure-building function under a name, with its
  caption, the claims it supports and its print width::

      @figure("seqproj_failure_vs_M", caption="...", claims=("seqproj.coverage.sphere.*",),
              width="column", chunks_of=("seqproj.coverage.sphere.constant.M32",))
      def failure_vs_M(*, quick: bool, seed: int) -> tuple[Figure, dict]: ...

  The registered builder runs the function *inside* the style context
  (:func:`paper_figs.style.drawing`: legends, titles and texts created after
  ``new_figure`` get the style too), marks quick builds with a watermark, and
  adds ``caption``, ``claims`` and ``width`` to the returned data.
* ``chunks_of`` names the claims (ids or globs, among ``claims``) whose engine
  experiment the figure measures: it plots the very chunks that decided them.
  ``tests/test_figure_experiments.py`` checks that the figure measures an
  experiment with the same fingerprint as each of these claims.
* :func:`figure_modules` lists the modules declared in the ``theorycheck.figures``
  entry points, :func:`figures` imports them and returns the builders,
  :func:`figure_info` their metadata.
* :func:`gallery_markdown` renders the README's gallery table from
  :func:`figure_info`; ``python -m paper_figs.gallery`` rewrites it in ``README.md``.
"""
from __future__ import annotations

import fnmatch
import functools
import importlib
import re
from importlib.metadata import entry_points
from typing import Callable

from .style import check_width, drawing, watermark

__all__ = ["ENTRY_POINT_GROUP", "DISTRIBUTION", "FIGURES", "figure", "figure_modules", "figures", "figure_info",
           "GALLERY_START", "GALLERY_END", "gallery_markdown"]

#: The entry-point group whose values are modules that register figures.
ENTRY_POINT_GROUP = "theorycheck.figures"
#: The distribution that ships these figures (others may add theirs through the entry points).
DISTRIBUTION = "theorycheck"

#: Registered figures: name -> builder ``fn(*, quick, seed) -> (fig, data)``.
FIGURES: dict[str, Callable] = {}
#: name -> {"caption", "claims", "width", "chunks_of"}.
_INFO: dict[str, dict] = {}


def _check_patterns(name, what, patterns):
    if isinstance(patterns, str) or not all(isinstance(c, str) for c in patterns):
        raise TypeError(f"figure {name!r}: {what} must be a tuple of claim ids, got {patterns!r}")


def figure(name: str, *, caption: str | None = None, claims: tuple[str, ...] = (), width: str = "column",
           chunks_of: tuple[str, ...] = ()):
    """Decorator registering a figure builder under ``name`` (unique).

    ``caption`` is the figure's caption (it should name the claims it supports);
    ``claims`` the claim ids or glob patterns the figure supports; ``width`` is
    ``"column"`` (3.3 in) or ``"page"`` (6.75 in); ``chunks_of`` the claims
    (ids or globs) whose experiment the figure measures, so that it shows their
    chunks.  The builder runs inside :func:`paper_figs.style.drawing`; quick
    builds get a watermark; the data returned gain ``caption``, ``claims`` and
    ``width``.
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"figure name must be a non-empty string, got {name!r}")
    if caption is not None and not isinstance(caption, str):
        raise TypeError(f"figure {name!r}: caption must be a string, got {type(caption).__name__}")
    _check_patterns(name, "claims", claims)
    _check_patterns(name, "chunks_of", chunks_of)
    check_width(width, name)

    def deco(fn):
        old = FIGURES.get(name)
        if old is not None and getattr(old, "__wrapped__", None) is not fn and \
                (getattr(old, "__module__", None), getattr(old, "__qualname__", None)) != \
                (fn.__module__, fn.__qualname__):
            raise ValueError(f"duplicate figure name {name!r}")

        @functools.wraps(fn)
        def builder(*, quick: bool, seed: int):
            with drawing(width):
                fig, data = fn(quick=quick, seed=seed)
                if quick:
                    watermark(fig)
            data = dict(data)
            clash = {"caption", "claims", "width"} & set(data)
            if clash:           # the registry writes these keys: a figure's own would be lost silently
                raise ValueError(f"figure {name!r}: its data must not use the reserved keys {sorted(clash)}")
            data.update({"caption": caption or "", "claims": list(claims), "width": width})
            return fig, data

        builder.figure_name = name
        fn.figure_name = name
        FIGURES[name] = builder
        _INFO[name] = {"caption": caption or "", "claims": tuple(claims), "width": width,
                       "chunks_of": tuple(chunks_of)}
        return fn
    return deco


def figure_modules(distribution: str | None = None) -> list[str]:
    """The figure modules declared in the ``theorycheck.figures`` entry points (of the installed
    ``distribution`` only, if given)."""
    return sorted({ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)
                   if distribution is None or (ep.dist is not None and ep.dist.name == distribution)})


def figures(pattern: str | None = None) -> dict:
    """Registered figure builders (name -> function), optionally glob-filtered."""
    for mod in figure_modules():
        importlib.import_module(mod)
    names = sorted(FIGURES)
    if pattern:
        names = [n for n in names if fnmatch.fnmatchcase(n, pattern) or n.startswith(pattern)]
    return {n: FIGURES[n] for n in names}


def figure_info(pattern: str | None = None) -> dict[str, dict]:
    """``name -> {"caption", "claims", "width", "chunks_of"}`` of every registered figure (loads the
    modules)."""
    return {n: dict(_INFO[n]) for n in figures(pattern)}


# -- the README gallery ------------------------------------------------------------

#: The markers around the generated gallery table in ``README.md``.
GALLERY_START, GALLERY_END = "<!-- gallery:start -->", "<!-- gallery:end -->"
#: Where the committed builds live, relative to the repository root.
BUILT = "paper_figs/built"
#: The end of a caption's first sentence: a full stop before a capital or a bracket (kept) …
_FULL_STOP = re.compile(r"(?<=\S)\.(?=\s+[A-Z(])")
#: … or the colon that opens the list of panels (dropped).
_PANELS = re.compile(r":\s+\(a\)")


def _first_sentence(caption: str) -> str:
    """The caption's first sentence, up to the list of panels ``: (a) …`` if that comes first
    (the whole caption when it has one sentence)."""
    text = " ".join(caption.split())
    stop, panels = _FULL_STOP.search(text), _PANELS.search(text)
    ends = ([stop.end()] if stop else []) + ([panels.start()] if panels else [])
    return text[:min(ends)] if ends else text


def gallery_markdown(info: dict[str, dict] | None = None) -> str:
    """The README gallery table (between :data:`GALLERY_START` and :data:`GALLERY_END`): one row per
    figure, its committed PNG and the first sentence of its caption.  ``info`` defaults to the
    :func:`figure_info` of the figures this distribution ships (not those a third-party package
    registers through the entry points)."""
    if info is None:
        shipped = set(figure_modules(DISTRIBUTION))
        info = {n: meta for n, meta in figure_info().items() if FIGURES[n].__module__ in shipped}
    rows = ["| figure | caption |", "|---|---|"]
    for name in sorted(info):
        png = f"{BUILT}/{name}.png"
        first = _first_sentence(info[name]["caption"]).replace("|", "\\|")
        rows.append(f'| <a href="{png}"><img src="{png}" width="260" alt="{name}"></a> '
                    f"| **`{name}`** — {first} |")
    return "\n".join(rows) + "\n"
