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
* its **reading** is derived by :func:`proofs_check.engine.reading.reading` (the tables of
  ``docs/theory/engine.md`` §5, "Readings"): the subject from the primary claim (a paper
  statement, reconstructed from the paper, our derivation, your claim, a control, a
  measurement), the status from the finding's case and the *weakest* guarantee among the
  claims it rests on — so a finding that rests on a search verdict says "no counterexample in
  N evaluations (not a proof)", one that rests on an estimate says "indicated, not settled",
  and a refuted paper statement and a control refuted as designed never read alike.

Fields available to every template besides ``values``'s: ``level`` (the
run's interval level, e.g. ``"99 %"``) and ``alpha``.
"""
from __future__ import annotations

__all__ = ["finding_reading", "fill", "headline_findings", "headline_markdown", "headline_html",
           "NOT_SETTLED", "HEADLINE_INTRO", "GROUPS", "claim_groups", "groups_markdown", "groups_html",
           "reading_counts"]

from proofs_check.engine.reading import GROUPS, reading, source_state, weakest

#: The section key of claims citing no paper (``document.OURS``; not imported: document imports this module).
OURS = "ours"

#: The words that open an unsettled finding.
NOT_SETTLED = "not settled in this run"

def finding_reading(finding, filled, by_id, entries, level: str):
    """The :class:`~proofs_check.engine.reading.Reading` of a finding, and the claim it reads by.

    Subject: the primary claim's (the first bound claim in the run when the primary is missing).
    Settled fill: verdict = the finding's case (the primary's verdict when the case is neither
    holds nor refuted), guarantee and budget = the weakest bound claim's
    (:func:`~proofs_check.engine.reading.weakest`).  Otherwise: inconclusive."""
    present = [c for c in finding.claims if c in entries]
    prim = entries.get(finding.primary) or entries[present[0]]
    src = source_state(prim["source"])
    if filled["settled"]:
        weak = weakest([by_id[c] for c in finding.claims])
        case = filled["case"] if filled["case"] in ("holds", "refuted") else by_id[finding.primary].verdict
        rd = reading(prim["role"], prim["label"], src, case, weak.guarantee, origin=prim["origin"],
                     expected=prim["expected"], n=int(weak.budget), unit=getattr(weak, "unit", "units"),
                     level=level)
        return rd, weak
    return reading(prim["role"], prim["label"], src, "inconclusive", "", origin=prim["origin"],
                   expected=prim["expected"], level=level), None


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
        rd, weak = finding_reading(f, filled, by_id, entries, level)
        kinds_of_guarantee = {by_id[c].guarantee for c in f.claims if c in by_id}
        basis = (f"reads by the weakest of its {len(f.claims)} claims, {weak.claim} ({weak.guarantee})"
                 if weak is not None and len(kinds_of_guarantee) > 1 else "")
        evidence = []
        for c in f.claims:
            e = entries.get(c)
            if e is None:
                evidence.append({"id": c, "anchor": None, "verdict": "not in this run", "interval": None,
                                 "seed": None, "budget": None, "guarantee": ""})
                continue
            evidence.append({"id": c, "anchor": e["anchor"], "verdict": e["verdict"], "interval": e["interval"],
                             "seed": e["seed"], "budget": e["budget"], "guarantee": e["guarantee"]})
        figs = [n for n in f.figures if built is None or n in built] or sorted(
            {n for c in f.claims for n in (entries.get(c) or {}).get("figures", ())})
        out.append({"id": f.id, "anchor": f"finding-{f.id}", "title": f.title, "settled": filled["settled"],
                    "case": filled["case"], "text": filled["text"], "reading": rd.key, "label": rd.words,
                    "family": rd.family, "group": rd.group, "alarm": rd.alarm, "basis": basis,
                    "claims": evidence, "figures": figs})
    return out


#: The sentence under the "Headline results" heading (both formats).
HEADLINE_INTRO = ("What this run found, as sentences whose every number is computed from this run's results "
                  "(the topics declare the sentences, the run fills them in). Each opens with its reading, "
                  "derived from the claims it rests on: what the claim is (a paper statement, a statement "
                  "reconstructed from the paper, our derivation, your claim, a control, a measurement) and what "
                  "the weakest of its verdicts establishes (proved, confirmed exact or anytime-valid at the "
                  "run's level, no counterexample in so many evaluations — not a proof, indicated but not "
                  "settled). Then the claims it rests on, with their verdicts, intervals, seeds and budgets. A "
                  "finding whose claim is missing from the run or inconclusive at this budget says so instead "
                  "of giving a number.")


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
        guarantees: dict = {}
        for c in items:
            if c.get("guarantee"):
                guarantees[c["guarantee"]] = guarantees.get(c["guarantee"], 0) + 1
        if guarantees:
            words += "; guarantee " + ", ".join(f"{text(g)} ×{n}" for g, n in guarantees.items())
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
        g = f" ({text(c['guarantee'])})" if c.get("guarantee") else ""
        parts.append(f"{claim_link(c['id'], c['anchor'])} {text(c['verdict'])}{g}{iv}; seed {text(c['seed'])}, "
                     f"budget {text(c['budget'])}")
    return " · ".join(parts)


def headline_markdown(doc, *, md, code, href, anchor, name) -> list[str]:
    """The "Headline results" section as Markdown lines; the escaping helpers of
    :mod:`.markdown` are passed in (``md`` plain text, ``code`` a code span, ``href`` a
    ``#anchor`` target, ``anchor`` an ``<a id>``, ``name`` a figure name as link text)."""
    items = doc.get("headline_findings") or []
    lines = [anchor('headline'), "", "## Headline results", ""]
    if not items:
        return lines + [f"No headline finding is declared for the claims of this run (a topic declares them "
                        f"in its {code('findings.py')}).", ""]
    lines += [md(HEADLINE_INTRO), ""]

    def link(cid, anc):
        return f"[{code(cid)}]({href(anc)})" if anc else code(cid)

    for i, f in enumerate(items, start=1):
        figs = ", ".join(f"[{name(n)}]({href('fig-' + n)})" for n in f["figures"])
        basis = f" ({md(f['basis'])})" if f.get("basis") else ""
        lines.append(f"{i}. {anchor(f['anchor'])}**{md(f['title'])}** — *{md(f['label'])}.*{basis} "
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
        basis = f' <span class="basis">({esc(f["basis"])})</span>' if f.get("basis") else ""
        out.append(f'<li id="{esc(f["anchor"])}" class="finding {_classes(f)}">'
                   f'<strong>{esc(f["title"])}</strong> <span class="reading {_classes(f)}">'
                   f'{esc(f["label"])}</span>{basis}<br>{esc(f["text"])}'
                   f'<div class="rests">Rests on: {_evidence(f["claims"], text=esc, claim_link=link)}'
                   + (f"; figure {figs}" if figs else "") + ".</div></li>")
    return out + ["</ol>"]


def _classes(x) -> str:
    """CSS classes of a reading: its family, ``r-control`` for a control, ``r-alarm`` for an alarm."""
    out = [f"r-{x['family']}"]
    if x.get("group") == "control":
        out.append("r-control")
    if x.get("alarm"):
        out.append("r-alarm")
    return " ".join(out)


def claim_groups(doc) -> list[dict]:
    """Every claim of the run in one of :data:`~proofs_check.engine.reading.GROUPS` by its reading
    (entry ``"group"``), in that order: ``[{"key", "title", "subjects": [(subject, entries)],
    "alarms", "n"}]``; within a group the claims are sub-grouped by subject (paper statement, our
    derivation, …) and sorted by id; ``alarms`` are the controls that failed (shown uncollapsed)."""
    groups = {k: {"key": k, "title": t, "by_subject": {}, "alarms": [], "n": 0} for k, t in GROUPS.items()}
    for e in sorted(doc["entries"].values(), key=lambda e: e["id"]):
        g = groups[e["group"]]
        g["n"] += 1
        if g["key"] == "control" and e["alarm"]:
            g["alarms"].append(e)
        else:
            g["by_subject"].setdefault(e["subject"], []).append(e)
    out = []
    for g in groups.values():
        if g["n"]:
            g["subjects"] = sorted(g.pop("by_subject").items(), key=lambda kv: (-len(kv[1]), kv[0]))
            out.append(g)
    return out


def reading_counts(doc) -> dict:
    """``{reading key: count}`` over the run's claims (sorted by count, then key)."""
    counts: dict = {}
    for e in doc["entries"].values():
        counts[e["reading_key"]] = counts.get(e["reading_key"], 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


#: The sentence under "Claims by reading" (both formats).
GROUPS_INTRO = ("Every claim once, filed by what its verdict establishes: confirmed only when the verdict is "
                "exact, anytime-valid or proved; searched or computed on a grid (not proofs); indicated but not "
                "settled (asymptotic intervals, numerical estimates); not settled at this budget; then the "
                "measurements and the controls (checks that the simulator and the engine can fail — a control "
                "refuted as designed is not a statement refuted). Within a group, claims are listed by what "
                "they are: a paper statement (read from the paper, with the place it is stated), a statement "
                "reconstructed from the paper, our derivation or open question, your claim.")


def _entry_words(e, *, text) -> tuple[str, str]:
    """(reading words, number) of one claim for the group lists."""
    return text(e["reading"]), text(e["headline"])


def groups_markdown(doc, *, md, code, href, anchor) -> list[str]:
    """The claim groups as Markdown lines (helpers as for :func:`headline_markdown`)."""
    md_anchor = anchor
    lines = [md_anchor('by-reading'), "", "## Claims by reading", "", md(GROUPS_INTRO), ""]

    def item(e):
        label, number = _entry_words(e, text=md)
        return f"- [{code(e['id'])}]({href(e['anchor'])}) — **{md(e['verdict'])}**, {label}: {number}"

    for g in claim_groups(doc):
        lines += [md_anchor("group-" + g["key"]), "", f"### {md(g['title'])} ({g['n']})", ""]
        if g["alarms"]:
            lines += [item(e) for e in g["alarms"]] + [""]
        collapse = g["key"] == "control"
        if collapse:
            # collapsed where Markdown renders HTML (GitHub, mkdocs); a plain-text reader sees the list
            lines += ["<details>", f"<summary>Controls ({g['n'] - len(g['alarms'])}) that behaved as designed or "
                      "are not settled</summary>", ""]
        for subject, entries in g["subjects"]:
            lines += [f"*{md(subject)} ({len(entries)})*", ""] + [item(e) for e in entries] + [""]
        if collapse:
            lines += ["</details>", ""]
    return lines


def groups_html(doc, *, esc) -> list[str]:
    """The claim groups as HTML lines (controls collapsed in a ``<details>``)."""
    out = ['<h2 id="by-reading">Claims by reading</h2>', f"<p>{esc(GROUPS_INTRO)}</p>"]

    def item(e):
        label, number = _entry_words(e, text=esc)
        return (f'<li><a href="#{esc(e["anchor"])}"><code>{esc(e["id"])}</code></a> — '
                f'<span class="v v-{esc(e["verdict"])}">{esc(e["verdict"])}</span>, '
                f'<span class="reading {_classes(e)}">{label}</span>: {number}</li>')

    for g in claim_groups(doc):
        out.append(f'<h3 id="group-{esc(g["key"])}">{esc(g["title"])} ({g["n"]})</h3>')
        if g["alarms"]:
            out += ['<ul class="group">', *[item(e) for e in g["alarms"]], "</ul>"]
        body = []
        for subject, entries in g["subjects"]:
            body += [f'<h4>{esc(subject)} ({len(entries)})</h4>', '<ul class="group">',
                     *[item(e) for e in entries], "</ul>"]
        if g["key"] == "control":
            out += [f"<details><summary>Controls ({g['n'] - len(g['alarms'])}) that behaved as designed or are "
                    f"not settled, shown collapsed</summary>", *body, "</details>"]
        else:
            out += body
    return out
