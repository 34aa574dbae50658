"""Rewrite the README's gallery table from the figure registry.

``python -m paper_figs.gallery [--check] [--root DIR]``: the table between
``<!-- gallery:start -->`` and ``<!-- gallery:end -->`` in ``README.md`` becomes
:func:`paper_figs.registry.gallery_markdown` (one row per registered figure: its
committed PNG and the first sentence of its caption); ``--check`` only says whether
it is up to date (exit 1 if stale), as ``tests/test_gallery.py`` does.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .registry import GALLERY_END, GALLERY_START, gallery_markdown

__all__ = ["README", "with_gallery", "main"]

#: Where the gallery lives, relative to the repository root.
README = Path("README.md")


def with_gallery(text: str, table: str | None = None) -> str:
    """``text`` (the README) with the table between the gallery markers replaced by ``table``
    (default :func:`~paper_figs.registry.gallery_markdown`)."""
    start, end = text.find(GALLERY_START), text.find(GALLERY_END)
    if start < 0 or end < start:
        raise ValueError(f"the README has no gallery: put {GALLERY_START} and {GALLERY_END} "
                         "(in this order) around the gallery table")
    table = gallery_markdown() if table is None else table
    return text[:start + len(GALLERY_START)] + "\n" + table + text[end:]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m paper_figs.gallery", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the README's gallery is stale")
    ap.add_argument("--root", default=".", help="repository root (default: the current folder)")
    args = ap.parse_args(argv)
    path = Path(args.root) / README
    text = path.read_text(encoding="utf-8")
    new = with_gallery(text)
    if args.check:
        ok = new == text
        print(f"{path}: gallery {'up to date' if ok else 'STALE — run python -m paper_figs.gallery'}")
        return 0 if ok else 1
    path.write_text(new, encoding="utf-8")
    print(f"wrote the gallery of {path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
