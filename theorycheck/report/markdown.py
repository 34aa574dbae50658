"""The report as Markdown (``report.md``), rendered from :func:`.document.build_document`."""
from __future__ import annotations


__all__ = ["render_document_markdown", "md", "provenance_rows", "counts_sentence", "expected_text",
           "source_text", "FINDINGS_INTRO"]

_ESCAPE = str.maketrans({"\\": "\\\\", "*": "\\*", "_": "\\_", "`": "\\`", "<": "&lt;", "|": "\\|"})


def md(text) -> str:
    """Plain text safe in Markdown (no emphasis, HTML or table breaks)."""
    return str(text).translate(_ESCAPE)


def _md_code_aware(text) -> str:
    """Text whose `backtick` spans stay code, the rest escaped."""
    parts = str(text).split("`")
    return "".join(f"`{p}`" if i % 2 else md(p) for i, p in enumerate(parts))


#: The sentence above the summary of findings.
FINDINGS_INTRO = ("In this order: claims that contradict the verdict they were expected to reach; findings "
                  "(claims with no verdict expected in advance); expected verdicts not settled at this "
                  "budget. Every claim that reached its expected verdict is in its paper's section only.")


def _n(k: int, word: str) -> str:
    return f"{k} {word}{'s' * (k != 1)}"


def provenance_rows(doc) -> list[tuple[str, str]]:
    """(field, value) rows of the provenance header, shared with the HTML."""
    from .provenance import commit_text

    p = doc["provenance"]
    libs = ", ".join(f"{name} {p[key]}" for key, name in (("numpy", "NumPy"), ("scipy", "SciPy"),
                                                          ("numba", "numba"), ("mpmath", "mpmath"),
                                                          ("sympy", "SymPy"), ("matplotlib", "Matplotlib"))
                     if p.get(key))
    rows = [("package", f"{p.get('package', 'theorycheck')} {p.get('version') or '(not recorded)'}"),
            ("git commit", commit_text(p, short=False))]
    if p.get("python"):
        rows.append(("Python", f"{p['python']} ({p.get('platform', '')})"))
    if libs:
        rows.append(("libraries", libs))
    rows += [("run date (UTC)", p.get("date") or "not recorded"),
             ("root seed", str(doc["seed"])),
             ("α and interval level", f"α = {doc['alpha']:g}: every interval in this report is a "
                                      f"{doc['level']} interval (two-sided; verdicts are wrong with "
                                      f"probability ≤ α where the guarantee says so)"),
             ("budgets", "quick (each claim's quick budget; default budgets settle more)"
              if doc["quick"] else "default (each claim's default budget)"),
             ("run time", f"{doc['elapsed_s']:.0f} s for {_n(doc['n'], 'claim')} and "
                          f"{_n(len(doc['figures']), 'figure')}")]
    if p.get("note"):
        rows.append(("note", p["note"]))
    return rows


def counts_sentence(doc) -> str:
    c, s = doc["counts"], doc["by_status"]
    return (f"{doc['n']} claims: {c['holds']} hold, {c['refuted']} refuted, {c['inconclusive']} inconclusive; "
            f"{s['as expected']} reached their expected verdict, {s['contradicted']} contradicted it, "
            f"{s['unsettled']} were not settled at this budget, {s['finding']} had no expected verdict "
            f"(findings).")


def expected_text(e, text=str) -> str:
    """The expected verdict of entry ``e`` and whether it was reached (``text`` escapes)."""
    if e["expected"] is None:
        return "none (finding)"
    mark = {"as expected": "✓", "contradicted": "✗ contradicted", "unsettled": "… not settled"}[e["status"]]
    return f"{text(e['expected'])} {mark}"


def _fig_links(names) -> str:
    return ", ".join(f"[{n}](#fig-{n})" for n in names) if names else "—"


def source_text(src, *, text, link, code) -> str:
    """A claim's structured source as one line: its papers (``link(citation, url)``; an unknown
    key as text), where in them, the theory page (``code(path)``) and the note; ``text`` escapes
    plain text for the output format."""
    from proofs_check.papers import PAPERS

    if "text" in src:
        return text(src["text"])
    parts = []
    for key in src.get("papers") or ():
        p = PAPERS.get(key)
        parts.append(link(p.cite(), p.url) if p else text(key))
    head = "; ".join(parts) if parts else "our derivation (no paper)"
    if src.get("where"):
        head += f", {text(src['where'])}"
    if src.get("theory"):
        head += f"; theory {code('docs/theory/' + src['theory'])}"
    if src.get("note"):
        head += f" ({text(src['note'])})"
    return head


def _source_md(src) -> str:
    return source_text(src, text=md, link=lambda t, u: f"[{md(t)}]({u})", code=lambda c: f"`{c}`")


def _finding_line(i, e) -> str:
    what = {"contradicted": f"contradicts expected *{e['expected']}*",
            "unsettled": f"expected *{e['expected']}*, not settled at this budget",
            "finding": "a finding: no verdict expected"}[e["status"]]
    interval = f"; {md(e['interval'])}" if e["interval"] else ""
    return (f"{i}. [`{e['id']}`](#{e['anchor']}) — **{e['verdict']}** ({what}): {md(e['headline'])}"
            f"{interval}; seed {e['seed']}, budget {e['budget']}; figure {_fig_links(e['figures'])}")


def _claim_block(e) -> list[str]:
    lines = [f"### <a id=\"{e['anchor']}\"></a>`{e['id']}`", "", f"> {md(e['statement'])}", ""]
    lines.append(f"- **Verdict:** **{e['verdict']}** — guarantee *{e['guarantee']}*; expected "
                 f"{expected_text(e)}; {e['label']}, {e['role']}, {e['kind']} claim")
    got = md(e["headline"]) + (f"; {md(e['interval'])}" if e["interval"] else "")
    lines.append(f"- **Got:** {got}")
    for s in e["slack"]:
        lines.append(f"- **Slack:** {md(s)}")
    if e.get("certificate"):
        lines.append(f"- **Certificate:** {md(e['certificate'])}")
    if e["worst"]:
        lines.append(f"- **Worst point:** {md(e['worst'])}")
    if e["advice"]:
        lines.append(f"- **To settle it:** {_md_code_aware(e['advice'])}")
    if e.get("fdr"):
        lines.append(f"- **Multiplicity:** {md(e['fdr'])}")
    for w in e["warnings"]:
        lines.append(f"- ⚠ {md(w)}")
    lines.append(f"- **Figures:** {_fig_links(e['figures'])}")
    lines.append(f"- **Source:** {_source_md(e['source'])}")
    fp_note = " (fingerprint of the current code, not recorded at the run)" if e["meta_from_current_code"] else ""
    lines.append(f"- **Cite this verdict:** `{e['cite']}`{fp_note}")
    return lines + [""]


def render_document_markdown(doc, figures_href: str = "figures") -> str:
    """``report.md`` text; figure files are linked under ``figures_href``."""
    lines = ["# theorycheck report", "",
             "Verdicts of the claims checked by theorycheck, written as a paper's appendix: a summary of "
             "the findings first, then one section per paper (each claim with its statement, verdict, "
             "slack, figure, source and a line to cite it), then the figures with their captions.", "",
             "## Provenance", "", "| | |", "|---|---|"]
    lines += [f"| {k} | {md(v)} |" for k, v in provenance_rows(doc)]
    lines += ["", md(counts_sentence(doc)), "", "What a verdict guarantees depends on how it was reached:", ""]
    lines += [f"- **{g}** — {md(text)}" for g, text in doc["guarantees"]]
    lines += ["", "*inconclusive* means the budget did not settle it; each such claim says what would.", ""]
    lines += ["## Multiplicity across the run", ""] + [f"- {md(t)}" for t in doc["multiplicity"]["lines"]] + [""]

    lines += [f"## Summary of findings ({len(doc['findings'])})", ""]
    if doc["findings"]:
        lines += [md(FINDINGS_INTRO), ""]
        lines += [_finding_line(i, e) for i, e in enumerate(doc["findings"], start=1)]
    else:
        lines.append("Every claim reached the verdict it was expected to reach.")
    lines += ["", "## Papers", ""]
    for sec in doc["sections"]:
        n = len(sec["entries"])
        lines.append(f"- [{md(sec['title'])}](#{sec['anchor']}) — {_n(n, 'claim')}")
    lines.append("")
    for sec in doc["sections"]:
        lines += [f"## <a id=\"{sec['anchor']}\"></a>{md(sec['title'])}", ""]
        if sec["cite"]:
            lines += [f"{md(sec['cite'])}. <{sec['url']}>", ""]
        lines += ["| claim | verdict | expected | number | figure |", "|---|---|---|---|---|"]
        lines += [f"| [`{e['id']}`](#{e['anchor']}) | **{e['verdict']}** | {md(expected_text(e))} | "
                  f"{md(e['headline'])} | {_fig_links(e['figures'])} |" for e in sec["entries"]]
        lines.append("")
        for e in sec["entries"]:
            lines += _claim_block(e)
    lines += [f"## Figures ({len(doc['figures'])})", ""]
    if not doc["figures"]:
        lines += ["No figure was built for this report.", ""]
    for f in doc["figures"]:
        lines += [f"### <a id=\"{f['anchor']}\"></a>{f['name']}", ""]
        if f["png"] is None:
            lines += [f"*Not built (no `{f['name']}.png` in the figures folder).*", ""]
            continue
        quick = " Built at quick size (fewer trials than the paper figure)." if f["quick"] else ""
        lines += [f"![{f['name']}]({figures_href}/{f['name']}.png)", "",
                  f"**Figure {f['name']}.** {md(f['caption']) or '(no caption registered)'}{quick} "
                  f"Supports: {', '.join(f'[`{c}`](#claim-{c})' for c in f['claims']) or 'no claim in this report'}. "
                  f"[PDF]({figures_href}/{f['name']}.pdf) · [data]({figures_href}/{f['name']}.json)", ""]
    return "\n".join(lines) + "\n"
