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


def _row(r) -> str:
    ev = r.summary().replace("|", "\\|")
    warn = "".join(f"<br>⚠ {w}".replace("|", "\\|") for w in r.warnings)
    return (f"| `{r.claim}` | {r.kind} | {r.label} | {r.role} | **{r.verdict}** | {r.guarantee} | "
            f"{ev}{warn} | {r.elapsed_s:.2f} |")


def render_markdown(results, figure_names, *, seed, alpha, quick, elapsed_s) -> str:
    """The report text from result objects and the names of the built figures.

    Claims with an expected verdict that reach it are listed under "As
    expected"; everything else — claims without an expected verdict, and
    expected verdicts that were missed — under "Findings", first."""
    from .engine.results import GUARANTEES

    counts = {v: sum(r.verdict == v for r in results) for v in ("holds", "refuted", "inconclusive")}
    findings = [r for r in results if r.as_expected is not True]
    missed = [r for r in results if r.as_expected is False]
    expected = [r for r in results if r.as_expected is True]
    lines = [
        "# theorycheck report",
        "",
        f"Root seed {seed}, α = {alpha}, {'quick' if quick else 'default'} budgets; "
        f"{len(results)} claims: {counts['holds']} hold, {counts['refuted']} refuted, "
        f"{counts['inconclusive']} inconclusive; {len(expected)} reached their expected verdict, "
        f"{len(missed)} did not; {elapsed_s:.0f} s (Python {platform.python_version()}).",
        "",
        "What a verdict guarantees depends on how it was reached (column *guarantee*):",
        "",
        *[f"- **{g}** — {GUARANTEES[g].split(': ', 1)[1]}" for g in GUARANTEES
          if any(r.guarantee == g for r in results)],
        "",
        "*inconclusive* means the budget did not settle it. Labels are the spec's",
        "(CONFIRMED / DERIVED / RECONSTRUCTED / OPEN); *role* says whether a claim is a paper's",
        "statement, a control of the simulator or engine, or a measurement.",
        "",
    ]
    header = ["| claim | kind | label | role | verdict | guarantee | evidence | s |",
              "|---|---|---|---|---|---|---|---|"]
    lines += [f"## Findings ({len(findings)})", "",
              "Claims without an expected verdict, and claims that missed the verdict they were "
              "expected to reach" + (f" (**{len(missed)} missed**: " + ", ".join(f"`{r.claim}`" for r in missed)
                                     + ")" if missed else "") + ".", ""]
    lines += header + [_row(r) for r in findings]
    lines += ["", f"## As expected ({len(expected)})", "",
              "Controls and established statements that reached the verdict they must reach.", ""]
    lines += header + [_row(r) for r in expected]
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
