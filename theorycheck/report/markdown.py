"""The report as Markdown (``report.md``), rendered from :func:`.document.build_document`."""
from __future__ import annotations


__all__ = ["render_document_markdown", "toc_markdown", "md", "provenance_rows", "counts_sentence", "expected_text",
           "source_text", "FINDINGS_INTRO"]

_ESCAPE = str.maketrans({"\\": "\\\\", "*": "\\*", "_": "\\_", "`": "\\`", "<": "&lt;", "&": "&amp;",
                         "|": "\\|", "]": "\\]", "\n": " ", "\r": " ", "\t": " ", "\0": ""})
#: Characters kept as they are in a link's ``#fragment`` (the others are percent-encoded).
_FRAGMENT_SAFE = "-._~!$'*+,;=:@/?"


def md(text) -> str:
    """Plain text safe in Markdown: no emphasis, link (``]`` escaped: no ``[text](url)`` or
    ``[ref]: url`` can close), raw HTML, entity or table break, one line
    (every value a report interpolates goes through this, :func:`md_code` or :func:`md_anchor`)."""
    return str(text).translate(_ESCAPE)


def md_name(name) -> str:
    """A figure or paper name as link text: as it is when it is a plain word (letters and digits
    joined by single ``_``, ``.``, ``-``: no emphasis can start), else :func:`md`."""
    import re

    name = str(name)
    return name if re.fullmatch(r"[A-Za-z0-9]+(?:[_.-][A-Za-z0-9]+)*", name) else md(name)


def md_code(text, *, table: bool = False) -> str:
    """``text`` as one code span: fenced by one backtick more than its longest run of
    backticks (CommonMark), on one line; ``table`` escapes ``|`` (a GFM table cell)."""
    import re

    text = " ".join(str(text).replace("\0", "").splitlines()) or " "
    fence = "`" * (max((len(m) for m in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    if table:
        text = text.replace("|", "\\|")
    return f"{fence}{pad}{text}{pad}{fence}"


def md_href(anchor) -> str:
    """``#anchor`` as a link target (percent-encoded: no ``)``, space or ``<`` can end it early)."""
    from urllib.parse import quote

    return "#" + quote(str(anchor), safe=_FRAGMENT_SAFE)


def md_anchor(anchor) -> str:
    """The ``<a id="…"></a>`` a heading carries (HTML-escaped)."""
    import html

    return f'<a id="{html.escape(str(anchor), quote=True)}"></a>'


def md_url(url) -> str:
    """A link destination: percent-encoded where a character could end it or start markup."""
    from urllib.parse import quote

    return quote(str(url), safe="-._~:/?#@!$&'*+,;=%")


def _md_code_aware(text) -> str:
    """Text whose `backtick` spans stay code, the rest escaped."""
    parts = str(text).split("`")
    return "".join(md_code(p) if i % 2 else md(p) for i, p in enumerate(parts))


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
    return ", ".join(f"[{md_name(n)}]({md_href('fig-' + n)})" for n in names) if names else "—"


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
    return source_text(src, text=md, link=lambda t, u: f"[{md(t)}]({md_url(u)})", code=md_code)


def _finding_line(i, e) -> str:
    what = {"contradicted": f"contradicts expected *{md(e['expected'])}*",
            "unsettled": f"expected *{md(e['expected'])}*, not settled at this budget",
            "finding": "a finding: no verdict expected"}[e["status"]]
    interval = f"; {md(e['interval'])}" if e["interval"] else ""
    return (f"{i}. [{md_code(e['id'])}]({md_href(e['anchor'])}) — **{md(e['verdict'])}** ({what}): "
            f"{md(e['headline'])}{interval}; seed {md(e['seed'])}, budget {md(e['budget'])}; "
            f"figure {_fig_links(e['figures'])}")


def _claim_block(e) -> list[str]:
    lines = [f"### {md_anchor(e['anchor'])}{md_code(e['id'])}", "", f"> {md(e['statement'])}", ""]
    lines.append(f"- **Reading:** *{md(e['reading'])}*")
    lines.append(f"- **Verdict:** **{md(e['verdict'])}** — guarantee *{md(e['guarantee'])}*; expected "
                 f"{expected_text(e, md)}; {md(e['label'])}, {md(e['role'])}, {md(e['kind'])} claim")
    got = md(e["headline"]) + (f"; {md(e['interval'])}" if e["interval"] else "")
    proved = e["guarantee"] == "proved" and bool(e.get("certificate"))
    lines.append(f"- **{'Proved' if proved else 'Got'}:** {got}")
    for s in e["slack"]:
        lines.append(f"- **Slack:** {md(s)}")
    if e.get("certificate") and e["certificate"] != e["headline"]:
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
    lines.append(f"- **Cite this verdict:** {md_code(e['cite'])}{fp_note}")
    return lines + [""]


#: The sentence above the list of claims whose own code failed.
FAILED_INTRO = ("These claims have NO verdict: their own code failed when it was run (an exception, "
                "sys.exit or os._exit inside the claim, or its worker died). They are not counted above; "
                "fix the code and run them again.")


def failed_markdown(failed) -> list[str]:
    """The section listing the claims whose own code failed (``doc["failed"]``)."""
    lines = [md_anchor("failed"), "", f"## FAILED: claims whose code failed ({len(failed)})", "", md(FAILED_INTRO),
             ""]
    for f in failed:
        at = f" at {md_code(f['where'])}" if f["where"] else ""
        lines.append(f"- {md_anchor(f['anchor'])}{md_code(f['id'])} — **failed, no verdict**: "
                     f"{md(f['error'])}{at}")
    return lines + [""]


def toc_markdown(doc) -> list[str]:
    """The table of contents: the page's sections (each ``## `` heading carries the ``<a id>`` linked
    here), the headline findings, the reading groups and the papers, with counts."""
    from .findings import claim_groups

    def a(anchor, text, n=None):
        return f"[{md(text)}]({md_href(anchor)})" + (f" ({n})" if n is not None else "")

    heads = doc.get("headline_findings") or []
    lines = ["## Contents", "", f"1. {a('headline', 'Headline results', len(heads))}"]
    lines += [f"   {i}. {a(f['anchor'], f['title'])}" for i, f in enumerate(heads, start=1)]
    lines.append(f"2. {a('provenance', 'Provenance')}")
    k = 3
    if doc.get("failed"):
        lines.append(f"{k}. {a('failed', 'FAILED claims', len(doc['failed']))}")
        k += 1
    lines += [f"{k}. {a('multiplicity', 'Multiplicity across the run')}",
              f"{k + 1}. {a('findings', 'Summary of findings', len(doc['findings']))}",
              f"{k + 2}. {a('by-reading', 'Claims by reading')}"]
    lines += [f"   - {a('group-' + g['key'], g['title'].split(' (')[0], g['n'])}" for g in claim_groups(doc)]
    lines.append(f"{k + 3}. {a('papers', 'Papers')}")
    lines += [f"   - {a(sec['anchor'], sec['title'], len(sec['entries']))}" for sec in doc["sections"]]
    lines += [f"{k + 4}. {a('figures', 'Figures', len(doc['figures']))}", ""]
    return lines


def render_document_markdown(doc, figures_href: str = "figures") -> str:
    """``report.md`` text; figure files are linked under ``figures_href``."""
    from .findings import groups_markdown, headline_markdown

    lines = ["# theorycheck report", "",
             "Verdicts of the claims checked by theorycheck, written as a paper's appendix: the headline "
             "results first, then a summary of the findings, one section per paper (each claim with its "
             "statement, verdict, slack, figure, source and a line to cite it), then the figures with their "
             "captions.", ""]
    lines += toc_markdown(doc)
    lines += headline_markdown(doc, md=md, code=md_code, href=md_href, anchor=md_anchor, name=md_name)
    lines += [md_anchor('provenance'), "", "## Provenance", "", "| | |", "|---|---|"]
    lines += [f"| {k} | {md(v)} |" for k, v in provenance_rows(doc)]
    lines += ["", md(counts_sentence(doc)), "", "What a verdict guarantees depends on how it was reached:", ""]
    lines += [f"- **{g}** — {md(text)}" for g, text in doc["guarantees"]]
    lines += ["", "*inconclusive* means the budget did not settle it; each such claim says what would.", ""]
    if doc.get("failed"):
        lines += failed_markdown(doc["failed"])
    lines += [md_anchor('multiplicity'), "", "## Multiplicity across the run", ""]
    lines += [f"- {md(t)}" for t in doc["multiplicity"]["lines"]] + [""]

    lines += [md_anchor('findings'), "", f"## Summary of findings ({len(doc['findings'])})", ""]
    if doc["findings"]:
        lines += [md(FINDINGS_INTRO), ""]
        lines += [_finding_line(i, e) for i, e in enumerate(doc["findings"], start=1)]
    else:
        lines.append("Every claim reached the verdict it was expected to reach.")
    lines += [""] + groups_markdown(doc, md=md, code=md_code, href=md_href, anchor=md_anchor)
    lines += [md_anchor('papers'), "", "## Papers", ""]
    for sec in doc["sections"]:
        n = len(sec["entries"])
        lines.append(f"- [{md(sec['title'])}]({md_href(sec['anchor'])}) — {_n(n, 'claim')}")
    lines.append("")
    for sec in doc["sections"]:
        lines += [f"## {md_anchor(sec['anchor'])}{md(sec['title'])}", ""]
        if sec["cite"]:
            lines += [f"{md(sec['cite'])}. <{md_url(sec['url'])}>", ""]
        lines += ["| claim | verdict | expected | number | figure |", "|---|---|---|---|---|"]
        lines += [f"| [{md_code(e['id'], table=True)}]({md_href(e['anchor'])}) | **{md(e['verdict'])}** | "
                  f"{md(expected_text(e))} | {md(e['headline'])} | {_fig_links(e['figures'])} |"
                  for e in sec["entries"]]
        lines.append("")
        for e in sec["entries"]:
            lines += _claim_block(e)
    lines += [md_anchor('figures'), "", f"## Figures ({len(doc['figures'])})", ""]
    if not doc["figures"]:
        lines += ["No figure was built for this report.", ""]
    for f in doc["figures"]:
        name = md_name(f["name"])
        lines += [f"### {md_anchor(f['anchor'])}{name}", ""]
        if f["png"] is None:
            lines += [f"*Not built (no {md_code(f['name'] + '.png')} in the figures folder).*", ""]
            continue
        quick = " Built at quick size (fewer trials than the paper figure)." if f["quick"] else ""
        base = md_url(f"{figures_href}/{f['name']}")
        supports = ", ".join(f"[{md_code(c)}]({md_href('claim-' + c)})" for c in f["claims"])
        lines += [f"![{name}]({base}.png)", "",
                  f"**Figure {name}.** {md(f['caption']) or '(no caption registered)'}{quick} "
                  f"Supports: {supports or 'no claim in this report'}. "
                  f"[PDF]({base}.pdf) · [data]({base}.json)", ""]
    return "\n".join(lines) + "\n"
