"""``theorycheck report``: every verdict and every figure in one markdown file.

The report reads result objects and the figures' saved data; it reruns
nothing.  Layout of ``OUT/``: ``report.md``, ``results.jsonl`` (one result per
line; :func:`rerender_report` re-renders the report from it), ``report.json``
(seed, α, budgets), ``figures/`` (PDF, PNG and JSON per figure), ``chunks/``
(per-chunk result files, resumable; ``chunks/experiments/`` the shared
experiments).
"""
from __future__ import annotations

import json
import platform
import sys
import time
from pathlib import Path

__all__ = ["write_report", "render_markdown", "read_results", "rerender_report"]


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
    missed = [r for r in results if r.as_expected is False and r.verdict != "inconclusive"]
    unsettled = [r for r in results if r.as_expected is False and r.verdict == "inconclusive"]
    expected = [r for r in results if r.as_expected is True]
    lines = [
        "# theorycheck report",
        "",
        f"Root seed {seed}, α = {alpha}, {'quick' if quick else 'default'} budgets; "
        f"{len(results)} claims: {counts['holds']} hold, {counts['refuted']} refuted, "
        f"{counts['inconclusive']} inconclusive; {len(expected)} reached their expected verdict, "
        f"{len(missed)} contradicted it, {len(unsettled)} were not settled at this budget; "
        f"{elapsed_s:.0f} s (Python {platform.python_version()}).",
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
              "Claims without an expected verdict, and claims that did not reach the verdict they "
              "were expected to reach"
              + (f" (**{len(missed)} contradicted**: " + ", ".join(f"`{r.claim}`" for r in missed) + ")"
                 if missed else "")
              + (f" ({len(unsettled)} inconclusive at this budget — their expected verdict is "
                 f"reached at the default budget: " + ", ".join(f"`{r.claim}`" for r in unsettled) + ")"
                 if unsettled else "") + ".", ""]
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


def write_report(selected, out, *, seed: int = 0, alpha: float = 0.01, quick: bool = False,
                 executor=None, workers=None, scheduler=None, progress: bool = False) -> Path:
    """Verify ``selected`` claims and build every figure into ``out``; write
    ``out/results.jsonl`` (one result per line, as decided) and ``out/report.md``."""
    import paper_figs

    from .engine import verify_claims

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    results = []
    with open(out / "results.jsonl", "w", encoding="utf-8") as fh:
        for r in verify_claims(selected, executor=executor, workers=workers, scheduler=scheduler,
                               seed=seed, alpha=alpha, quick=quick, out=out / "chunks", method="anytime"):
            fh.write(json.dumps(r.to_dict(), ensure_ascii=False) + "\n")
            fh.flush()
            if progress:
                print(f"{r.verdict:>12}  {r.claim}  ({r.elapsed_s:.1f} s)", file=sys.stderr, flush=True)
            results.append(r)
    names = list(paper_figs.figures())
    paper_figs.build(out / "figures", quick=quick, seed=seed,
                     progress=(lambda n: print(f"    figure  {n}", file=sys.stderr, flush=True))
                     if progress else None)
    elapsed = time.perf_counter() - t0
    (out / "report.json").write_text(json.dumps({"seed": seed, "alpha": alpha, "quick": quick,
                                                 "elapsed_s": round(elapsed, 3)}) + "\n", encoding="utf-8")
    text = render_markdown(results, names, seed=seed, alpha=alpha, quick=quick, elapsed_s=elapsed)
    path = out / "report.md"
    path.write_text(text, encoding="utf-8")
    return path


def read_results(path) -> list:
    """The results of a ``results.jsonl`` file (``ValueError`` naming the line if one is bad)."""
    from .engine import Result

    results = []
    for i, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            results.append(Result.from_dict(json.loads(line)))
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{path}: line {i} is not a theorycheck result ({exc})") from None
    return results


def rerender_report(out) -> Path:
    """Re-render ``out/report.md`` from ``out/results.jsonl`` and the figures
    already in ``out/figures/``; runs nothing."""
    out = Path(out)
    src = out / "results.jsonl"
    if not src.exists():
        raise ValueError(f"{src} does not exist: run `theorycheck report --out {out}` first")
    results = read_results(src)
    if not results:
        raise ValueError(f"{src} holds no results")
    names = sorted(p.stem for p in (out / "figures").glob("*.png")) if (out / "figures").exists() else []
    meta = {"seed": results[0].seed, "alpha": results[0].alpha, "quick": False,
            "elapsed_s": sum(r.elapsed_s for r in results)}
    if (out / "report.json").exists():
        meta.update(json.loads((out / "report.json").read_text(encoding="utf-8")))
    text = render_markdown(results, names, seed=meta["seed"], alpha=meta["alpha"], quick=meta["quick"],
                           elapsed_s=meta["elapsed_s"])
    path = out / "report.md"
    path.write_text(text, encoding="utf-8")
    return path
