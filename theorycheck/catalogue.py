"""The claims catalogue, ``docs/claims.md``, generated from the registry.

``python -m theorycheck.catalogue`` rewrites it; ``--check`` exits 1 when the
file is stale (``tests/test_sources.py`` does the same check).  One section
per topic, one row per claim: id, kind, label, role and expected verdict, the
statement, and the source with links to the paper and to the theory page.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["render_catalogue", "CATALOGUE", "main"]

#: Where the catalogue lives, relative to the repository root.
CATALOGUE = Path("docs") / "claims.md"


def _source_cell(claim) -> str:
    from proofs_check.engine import Source
    from proofs_check.papers import PAPERS

    src = claim.source
    if not isinstance(src, Source):
        return str(src).replace("|", "\\|")
    parts = []
    for i, key in enumerate(src.papers):
        p = PAPERS.get(key)
        label = key if p is None else f"[{key}]({p.url})"
        parts.append(label + (f" {src.where}" if src.where and i == 0 else ""))
    if not src.papers:
        parts.append("our derivation" + (f" ({src.where})" if src.where else ""))
    if src.theory:
        page, anchor = src.theory.split("#", 1)
        parts.append(f"[theory]({'theory/' + page}#{anchor})")
    if src.note:
        parts.append(src.note)
    return "; ".join(parts).replace("|", "\\|")


def render_catalogue(claims) -> str:
    """The markdown text of the catalogue for ``claims`` (sorted by id)."""
    from proofs_check.papers import PAPERS

    topics: dict[str, list] = {}
    for c in sorted(claims, key=lambda c: c.id):
        topics.setdefault(c.topic, []).append(c)
    lines = ["# Claims catalogue", "",
             "Generated from the registry by `python -m theorycheck.catalogue`; do not edit by hand.",
             f"{sum(len(v) for v in topics.values())} claims in {len(topics)} topics. *expected* is the "
             "verdict a claim must reach at its default budget (— when the outcome is a finding).", ""]
    for topic, cs in topics.items():
        lines += [f"## {topic} ({len(cs)})", "",
                  "| claim | kind | label | role | expected | statement | source |",
                  "|---|---|---|---|---|---|---|"]
        for c in cs:
            stmt = c.statement.replace("|", "\\|")
            lines.append(f"| `{c.id}` | {c.kind} | {c.label} | {c.role} | {c.expected or '—'} | "
                         f"{stmt} | {_source_cell(c)} |")
        lines.append("")
    lines += ["## Papers", ""]
    for p in PAPERS.values():
        lines.append(f"- **{p.key}** — {p.cite()}. <{p.url}>")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m theorycheck.catalogue", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/claims.md is stale")
    ap.add_argument("--root", default=".", help="repository root (default: the current folder)")
    args = ap.parse_args(argv)
    from proofs_check.engine import claims

    path = Path(args.root) / CATALOGUE
    text = render_catalogue(claims())
    if args.check:
        ok = path.exists() and path.read_text(encoding="utf-8") == text
        print(f"{path}: {'up to date' if ok else 'STALE — run python -m theorycheck.catalogue'}")
        return 0 if ok else 1
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
