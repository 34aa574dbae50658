"""``theorycheck report``: every verdict and every figure in one markdown file.

The report reads result objects and the figures' saved data; it reruns
nothing.  Layout of ``OUT/``: ``report.md``, ``results.jsonl`` (one result per
line), ``figures/`` (PDF, PNG and JSON per figure), ``chunks/`` (per-chunk
result files, resumable).
"""
from __future__ import annotations

import json
import platform
import sys
import time
from pathlib import Path

__all__ = ["write_report", "render_markdown"]


def render_markdown(results, figure_names, *, seed, alpha, quick, elapsed_s) -> str:
    """The report text from result objects and the names of the built figures."""
    counts = {v: sum(r.verdict == v for r in results) for v in ("holds", "refuted", "inconclusive")}
    lines = [
        "# theorycheck report",
        "",
        f"Root seed {seed}, α = {alpha}, {'quick' if quick else 'default'} budgets; "
        f"{len(results)} claims: {counts['holds']} hold, {counts['refuted']} refuted, "
        f"{counts['inconclusive']} inconclusive; {elapsed_s:.0f} s "
        f"(Python {platform.python_version()}).",
        "",
        "A verdict is at level α: *holds* and *refuted* are each wrong with probability at most α;",
        "*inconclusive* means the budget did not settle it. Labels are the spec's",
        "(CONFIRMED / DERIVED / RECONSTRUCTED / OPEN). Claims marked as negative controls are",
        "expected to be refuted.",
        "",
        "| claim | kind | label | verdict | evidence | s |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        ev = r.summary().replace("|", "\\|")
        note = " *(negative control)*" if "negative control" in (r.notes or "").lower() else ""
        lines.append(f"| `{r.claim}`{note} | {r.kind} | {r.label} | **{r.verdict}** | {ev} | {r.elapsed_s:.2f} |")
    lines += ["", "## Figures", ""]
    for name in figure_names:
        lines += [f"### {name}", "", f"![{name}](figures/{name}.png)", "",
                  f"[PDF](figures/{name}.pdf) · [data](figures/{name}.json)", ""]
    lines += ["## Sources of the claims", ""]
    for r in results:
        lines.append(f"- `{r.claim}`: {r.statement} — {r.source} ({r.label})")
    return "\n".join(lines) + "\n"


def write_report(args, *, verify_many) -> Path:
    """Run the selected claims and all figures, then write ``OUT/report.md``."""
    import paper_figs

    from .engine import claims, select

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    selected = select(args.pattern) if args.pattern else claims()
    results = []
    with open(out / "results.jsonl", "w", encoding="utf-8") as fh:
        for r in verify_many(selected, args, out=out / "chunks", resume=False, method="anytime",
                             quick=args.quick, show_progress=sys.stderr.isatty()):
            fh.write(json.dumps(r.to_dict(), ensure_ascii=False) + "\n")
            fh.flush()
            print(f"{r.verdict:>12}  {r.claim}  ({r.elapsed_s:.1f} s)", file=sys.stderr, flush=True)
            results.append(r)
    names = list(paper_figs.figures())
    paper_figs.build(out / "figures", quick=args.quick, seed=args.seed,
                     progress=lambda n: print(f"    figure  {n}", file=sys.stderr, flush=True))
    text = render_markdown(results, names, seed=args.seed, alpha=args.alpha, quick=args.quick,
                           elapsed_s=time.perf_counter() - t0)
    path = out / "report.md"
    path.write_text(text, encoding="utf-8")
    return path
