"""Headline findings: the topics' sentence templates filled from one run's results.

A topic declares a :class:`~proofs_check.engine.Finding` (``<topic>/findings.py``):
sentences with ``{field}`` slots per *case*, bound to claims, and a ``values``
function computing the fields from those claims' results.  This module fills
them for a report, every time it is rendered, so each number in a headline is
the run's own (its interval, seed and budget are shown beside it):

* a finding is **shown** when at least one claim it is bound to is in the run
  (a report of a user's own claims does not list the project's findings);
* it is **settled** when every bound claim is in the run and decided (holds or
  refuted) and ``values`` does not raise
  :class:`~proofs_check.engine.NotSettled`; otherwise it reads
  ``"not settled in this run (<why>)"`` and carries no number;
* the sentence is ``sentences[case]``, the case being ``values(...)["case"]`` if
  given, else the primary claim's verdict — so a flipped verdict changes the words;
* its **reading** (:func:`reading`) comes from the primary claim's role, expected
  verdict and source: a paper statement refuted, our derivation confirmed, a
  negative control refuted *as designed*, a control that failed, a measurement.
  A refuted paper statement and a control refuted as designed never read alike.

Fields available to every template besides ``values``'s: ``level`` (the
run's interval level, e.g. ``"99 %"``) and ``alpha``.
"""
from __future__ import annotations

__all__ = ["reading", "fill", "headline_findings", "headline_markdown", "headline_html", "READINGS",
           "NOT_SETTLED", "HEADLINE_INTRO", "GROUPS", "claim_groups", "groups_markdown", "groups_html"]

#: The section key of claims citing no paper (``document.OURS``; not imported: document imports this module).
OURS = "ours"

#: The words that open an unsettled finding.
NOT_SETTLED = "not settled in this run"

#: reading key -> (label shown before the sentence, group).  The groups are the
#: ones the issue asks the report to separate: paper statements confirmed, paper
#: statements refuted, our measurements and controls.
READINGS = {
    "paper-confirmed": ("paper statement confirmed", "confirmed"),
    "paper-refuted": ("paper statement refuted", "refuted"),
    "ours-confirmed": ("our derivation confirmed", "confirmed"),
    "ours-refuted": ("our derivation refuted", "refuted"),
    "control-as-designed-refuted": ("negative control, refuted as designed (the check can fail)", "ours"),
    "control-as-designed-holds": ("positive control, holds as designed", "ours"),
    "control-failed": ("control FAILED — the simulator or the engine is suspect", "ours"),
    "measurement": ("our measurement (no verdict expected in advance)", "ours"),
    "unsettled": ("open at this budget", "ours"),
}


def reading(entry: dict) -> str:
    """The reading key (:data:`READINGS`) of a decided primary claim's report entry
    (``role``, ``verdict``, ``expected``, ``paper``)."""
    role, verdict, expected = entry["role"], entry["verdict"], entry["expected"]
    if verdict not in ("holds", "refuted"):
        return "unsettled"
    if role == "control":
        if expected is not None and verdict != expected:
            return "control-failed"
        return f"control-as-designed-{verdict}"
    if role == "measurement":
        return "measurement"
    who = "ours" if entry.get("paper", OURS) == OURS else "paper"
    return f"{who}-{'confirmed' if verdict == 'holds' else 'refuted'}"


def _why_unsettled(finding, by_id) -> str | None:
    """Why ``finding`` cannot be filled from ``by_id`` (missing or inconclusive claims), or None."""
    missing = [c for c in finding.claims if c not in by_id]
    if missing:
        return f"{', '.join(missing)} not in this run"
    open_ = [by_id[c] for c in finding.claims if by_id[c].verdict not in ("holds", "refuted")]
    if open_:
        parts = []
        for r in open_:
            unit = getattr(r, "unit", "units")
            need = r.budget_to_settle() if hasattr(r, "budget_to_settle") else None
            parts.append(f"{r.claim} {r.verdict} at {r.budget} {unit}"
                         + (f", ≈ {need} {unit} would settle it" if need else ""))
        return "; ".join(parts)
    return None


def fill(finding, by_id, *, level: str = "99 %", alpha: float = 0.01) -> dict:
    """``{"settled", "case", "text", "why"}`` of ``finding`` from ``by_id`` (claim id -> Result).

    ``ValueError`` names the finding and the field when a declaration is broken
    (a template field that ``values`` did not return, a format that does not fit)."""
    from proofs_check.engine import NotSettled

    why = _why_unsettled(finding, by_id)
    if why is None:
        try:
            vals = dict(finding.values({c: by_id[c] for c in finding.claims}))
        except NotSettled as exc:
            why = str(exc) or "the decided results support no sentence"
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, ZeroDivisionError) as exc:
            # results written by another version (other params/fields): say so, do not crash the report
            why = (f"the results lack what this finding reads ({type(exc).__name__}: {exc}); "
                   f"recorded by another version?")
    if why is not None:
        return {"settled": False, "case": None, "text": f"{NOT_SETTLED} ({why}).", "why": why}
    case = vals.pop("case", None) or by_id[finding.primary].verdict
    template = finding.sentences.get(case)
    if template is None:
        raise ValueError(f"finding {finding.id}: no sentence for case {case!r} "
                         f"(declared: {', '.join(finding.sentences)})")
    vals.setdefault("level", level)
    vals.setdefault("alpha", alpha)
    try:
        text = template.format(**vals)
    except KeyError as exc:
        raise ValueError(f"finding {finding.id}: the {case!r} sentence uses field {exc.args[0]!r}, which "
                         f"its values function did not return (returned: {', '.join(sorted(vals))})") from None
    except (ValueError, TypeError, IndexError) as exc:
        raise ValueError(f"finding {finding.id}: the {case!r} sentence cannot be filled ({exc})") from None
    return {"settled": True, "case": case, "text": text, "why": None}


def headline_findings(results, entries: dict, level: str, alpha: float, registry=None,
                      built=None) -> list[dict]:
    """The headline findings of a run, in the declared order: one dict per registered
    finding with at least one bound claim among ``results`` (``entries``: the report
    entries by claim id, for anchors, roles and figures).  ``registry``: the findings
    (default: :func:`proofs_check.engine.registered_findings`); ``built``: the names of
    the figures built for the report (a declared figure not built is not linked; ``None``: all)."""
    if registry is None:
        from proofs_check.engine import registered_findings

        registry = registered_findings()
    by_id = {r.claim: r for r in results}
    out = []
    for f in registry:
        if not any(c in by_id for c in f.claims):
            continue
        filled = fill(f, by_id, level=level, alpha=alpha)
        prim = entries.get(f.primary)
        if prim is not None and filled["case"] in ("holds", "refuted"):
            prim = {**prim, "verdict": filled["case"]}      # a finding over many claims reads by its case
        key = reading(prim) if filled["settled"] and prim is not None else "unsettled"
        label, group = READINGS[key]
        if key.startswith(("paper-", "ours-")) and prim["expected"] is not None:
            label += (" (as expected)" if prim["verdict"] == prim["expected"]
                      else f" (contradicts the expected {prim['expected']})")
        evidence = []
        for c in f.claims:
            e = entries.get(c)
            if e is None:
                evidence.append({"id": c, "anchor": None, "verdict": "not in this run", "interval": None,
                                 "seed": None, "budget": None})
                continue
            evidence.append({"id": c, "anchor": e["anchor"], "verdict": e["verdict"], "interval": e["interval"],
                             "seed": e["seed"], "budget": e["budget"]})
        figs = [n for n in f.figures if built is None or n in built] or sorted(
            {n for c in f.claims for n in (entries.get(c) or {}).get("figures", ())})
        out.append({"id": f.id, "anchor": f"finding-{f.id}", "title": f.title, "settled": filled["settled"],
                    "case": filled["case"], "text": filled["text"], "reading": key, "label": label,
                    "group": group, "claims": evidence, "figures": figs})
    return out


#: The sentence under the "Headline results" heading (both formats).
HEADLINE_INTRO = ("What this run found, as sentences whose every number is computed from this run's results "
                  "(the topics declare the sentences, the run fills them in). Each names its reading — a paper "
                  "statement confirmed or refuted, our derivation, a control behaving as designed, a "
                  "measurement — and the claims it rests on with their verdicts, intervals, seeds and budgets. "
                  "A finding whose claim is missing from the run or inconclusive at this budget says so "
                  "instead of giving a number.")


#: Above this many bound claims, "Rests on" names the first and counts the verdicts of all.
MAX_LISTED = 4


def _evidence(items, *, text, claim_link) -> str:
    if len(items) > MAX_LISTED:
        verdicts: dict = {}
        for c in items:
            verdicts[c["verdict"]] = verdicts.get(c["verdict"], 0) + 1
        seeds = sorted({c["seed"] for c in items if c["seed"] is not None})
        budgets = sorted({c["budget"] for c in items if c["budget"] is not None})
        words = ", ".join(f"{n} {text('hold' if v == 'holds' and n > 1 else v)}" for v, n in verdicts.items())
        return (f"{len(items)} claims ({words}; seed "
                f"{', '.join(text(x) for x in seeds) or '—'}, budget {', '.join(text(x) for x in budgets) or '—'}"
                f"), from {claim_link(items[0]['id'], items[0]['anchor'])} to "
                f"{claim_link(items[-1]['id'], items[-1]['anchor'])}")
    parts = []
    for c in items:
        if c["anchor"] is None:
            parts.append(f"{claim_link(c['id'], None)} not in this run")
            continue
        iv = f", {text(c['interval'])}" if c["interval"] else ""
        parts.append(f"{claim_link(c['id'], c['anchor'])} {text(c['verdict'])}{iv}; seed {text(c['seed'])}, "
                     f"budget {text(c['budget'])}")
    return " · ".join(parts)


def headline_markdown(doc, *, md, code, href, anchor, name) -> list[str]:
    """The "Headline results" section as Markdown lines; the escaping helpers of
    :mod:`.markdown` are passed in (``md`` plain text, ``code`` a code span, ``href`` a
    ``#anchor`` target, ``anchor`` an ``<a id>``, ``name`` a figure name as link text)."""
    items = doc.get("headline_findings") or []
    lines = ["## Headline results", ""]
    if not items:
        return lines + [f"No headline finding is declared for the claims of this run (a topic declares them "
                        f"in its {code('findings.py')}).", ""]
    lines += [md(HEADLINE_INTRO), ""]

    def link(cid, anc):
        return f"[{code(cid)}]({href(anc)})" if anc else code(cid)

    for i, f in enumerate(items, start=1):
        figs = ", ".join(f"[{name(n)}]({href('fig-' + n)})" for n in f["figures"])
        lines.append(f"{i}. {anchor(f['anchor'])}**{md(f['title'])}** — *{md(f['label'])}.* "
                     f"{md(f['text'])}")
        lines.append(f"   Rests on: {_evidence(f['claims'], text=md, claim_link=link)}"
                     + (f"; figure {figs}" if figs else "") + ".")
    return lines + [""]


def headline_html(doc, *, esc) -> list[str]:
    """The "Headline results" section as HTML lines (``esc`` escapes plain text)."""
    items = doc.get("headline_findings") or []
    out = ['<h2 id="headline">Headline results</h2>']
    if not items:
        return out + ["<p>No headline finding is declared for the claims of this run (a topic declares "
                      "them in its <code>findings.py</code>).</p>"]
    out += [f'<p class="lead">{esc(HEADLINE_INTRO)}</p>', '<ol class="headline">']

    def link(cid, anchor):
        return (f'<a href="#{esc(anchor)}"><code>{esc(cid)}</code></a>' if anchor
                else f"<code>{esc(cid)}</code>")

    for f in items:
        figs = ", ".join(f'<a href="#fig-{esc(n)}">{esc(n)}</a>' for n in f["figures"])
        out.append(f'<li id="{esc(f["anchor"])}" class="finding r-{esc(f["reading"])}">'
                   f'<strong>{esc(f["title"])}</strong> <span class="reading r-{esc(f["reading"])}">'
                   f'{esc(f["label"])}</span><br>{esc(f["text"])}'
                   f'<div class="rests">Rests on: {_evidence(f["claims"], text=esc, claim_link=link)}'
                   + (f"; figure {figs}" if figs else "") + ".</div></li>")
    return out + ["</ol>"]


#: The claim groups after the headline results: key -> title (``reading`` keys map to them by
#: :data:`READINGS`'s group; controls are a sub-group of "ours", collapsed in the HTML).
GROUPS = {
    "confirmed": "Paper statements confirmed",
    "refuted": "Paper statements refuted",
    "ours": "Our derivations, measurements and controls",
    "unsettled": "Not settled at this budget",
}


def claim_groups(doc) -> list[dict]:
    """Every claim of the run in one of :data:`GROUPS` by its reading (a paper statement
    confirmed or refuted; our derivations, measurements and — separately — controls; not
    settled), each group sorted by id: ``[{"key", "title", "entries", "controls"}]``."""
    groups = {k: {"key": k, "title": t, "entries": [], "controls": []} for k, t in GROUPS.items()}
    for e in sorted(doc["entries"].values(), key=lambda e: e["id"]):
        key = reading(e)
        if key == "unsettled":
            groups["unsettled"]["entries"].append(e)
        elif key.startswith("paper-"):
            groups[READINGS[key][1]]["entries"].append(e)
        elif key.startswith("control-"):
            groups["ours"]["controls"].append(e)
        else:
            groups["ours"]["entries"].append(e)
    return [g for g in groups.values() if g["entries"] or g["controls"]]


def _entry_words(e, *, text) -> tuple[str, str]:
    """(reading label, number) of one claim for the group lists."""
    key = reading(e)
    label = READINGS[key][0] if key != "unsettled" else f"{e['verdict']} at this budget"
    if e["expected"] is not None and key != "unsettled":
        label += " (as expected)" if e["verdict"] == e["expected"] else f" (expected {e['expected']})"
    return text(label), text(e["headline"])


def groups_markdown(doc, *, md, code, href) -> list[str]:
    """The claim groups as Markdown lines (helpers as for :func:`headline_markdown`)."""
    lines = ["## Claims by reading", "",
             md("Every claim once, by what its verdict means: a paper's statement confirmed or refuted; our "
                "own derivations and measurements; the controls (checks that the simulator and the engine "
                "can fail — a control refuted as designed is not a paper statement refuted); claims not "
                "settled at this budget."), ""]

    def item(e):
        label, number = _entry_words(e, text=md)
        return f"- [{code(e['id'])}]({href(e['anchor'])}) — **{md(e['verdict'])}**, {label}: {number}"

    for g in claim_groups(doc):
        n = len(g["entries"]) + len(g["controls"])
        lines += [f"### {md(g['title'])} ({n})", ""]
        lines += [item(e) for e in g["entries"]]
        if g["controls"]:
            # collapsed where Markdown renders HTML (GitHub, mkdocs); a plain-text reader sees the list
            lines += ["", "<details>", f"<summary>Controls ({len(g['controls'])}): checks that the simulator "
                      "and the engine can fail</summary>", ""] + [item(e) for e in g["controls"]] + ["", "</details>"]
        lines.append("")
    return lines


def groups_html(doc, *, esc) -> list[str]:
    """The claim groups as HTML lines (controls collapsed in a ``<details>``)."""
    out = ['<h2 id="by-reading">Claims by reading</h2>',
           "<p>Every claim once, by what its verdict means: a paper's statement confirmed or refuted; our own "
           "derivations and measurements; the controls (checks that the simulator and the engine can fail — a "
           "control refuted as designed is not a paper statement refuted); claims not settled at this "
           "budget.</p>"]

    def item(e):
        label, number = _entry_words(e, text=esc)
        return (f'<li><a href="#{esc(e["anchor"])}"><code>{esc(e["id"])}</code></a> — '
                f'<span class="v v-{esc(e["verdict"])}">{esc(e["verdict"])}</span>, {label}: {number}</li>')

    for g in claim_groups(doc):
        n = len(g["entries"]) + len(g["controls"])
        out.append(f'<h3 id="group-{esc(g["key"])}">{esc(g["title"])} ({n})</h3>')
        if g["entries"]:
            out += ['<ul class="group">', *[item(e) for e in g["entries"]], "</ul>"]
        if g["controls"]:
            out += [f"<details><summary>Controls ({len(g['controls'])}): checks that can fail, shown "
                    f"collapsed</summary>", '<ul class="group">', *[item(e) for e in g["controls"]], "</ul>",
                    "</details>"]
    return out
