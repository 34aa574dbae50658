"""The report as data: one structure that the Markdown and the HTML renderers
both read, so the two always say the same thing.

:func:`claim_meta` records, when the claims are run, what a result does not
carry (version, code fingerprint, structured source, budgets);
:func:`build_document` assembles the headline findings (the topics' sentence
templates filled from these results: :mod:`.findings`), provenance, the summary
of findings, one section per paper and the figures from results and that
metadata alone.
"""
from __future__ import annotations

from pathlib import Path

from . import evidence as ev
from .figures import figures_by_claim, supported_claims
from .provenance import cite_line, interval_level
from .schema import figure_png

__all__ = ["claim_meta", "claims_meta", "build_document", "multiplicity", "OURS"]

#: The section of claims that cite no paper (the team's derivations and controls).
OURS = "ours"


def claim_meta(claim) -> dict:
    """What the report needs of a claim beyond its result (plain JSON)."""
    from proofs_check.engine import Source

    src = claim.source.to_dict() if isinstance(claim.source, Source) else {"text": str(claim.source)}
    from proofs_check.engine.reading import claim_origin_kind

    names = getattr(claim, "coordinate_names", None) or (claim.params or {}).get("coordinates")
    # a claim object that is not registered here was made by the user's own code
    origin = claim_origin_kind(claim.id) if _registered(claim) else "user"
    return {"version": int(claim.version), "fingerprint": claim.fingerprint(), "source": src,
            "origin": origin or "user",
            "quick_budget": int(claim.quick_budget), "default_budget": int(claim.default_budget),
            "chunk_size": int(claim.chunk_size),
            "coordinates": [str(n) for n in names] if isinstance(names, (list, tuple)) else None}


def _registered(claim) -> bool:
    """Whether ``claim`` is the very object registered under its id."""
    from proofs_check.engine import registry

    return claim.id in registry.registered_ids() and registry.get_claim(claim.id) is claim


def claims_meta(ids) -> dict:
    """:func:`claim_meta` of the registered claims among ``ids``; a claim not in
    the registry (results from another installation) is left out."""
    from proofs_check.engine import get_claim

    out = {}
    for i in ids:
        try:
            out[i] = claim_meta(get_claim(i))
        except ValueError:
            continue
    return out


def _paper_groups():
    from proofs_check.papers import PAPERS

    return PAPERS


def _origin(r, meta) -> str:
    """``project`` or ``user`` (:mod:`proofs_check.engine.reading`): as recorded with the run, else
    as the current registry says, else ``project`` (a claim not registered here)."""
    from proofs_check.engine.reading import claim_origin_kind

    return meta.get("origin") or claim_origin_kind(r.claim) or "project"


def _evidence_words(r) -> str:
    """The evidence line of a result in the statement's own terms: the certificate of a proved
    claim (the statement proved, its allowance, boxes, smallest width), else the kind's headline."""
    if r.guarantee == "proved" and getattr(r, "certificate", None):
        return r.certificate_sentence()
    return ev.headline(r)


def _entry(r, meta, prov, level, figs) -> dict:
    from proofs_check.engine.reading import budget_count, reading, source_state

    source = dict(meta.get("source") or {"text": r.source})
    papers = list(source.get("papers") or [])
    origin = _origin(r, meta)
    rd = reading(r.role, r.label, source_state(source), r.verdict, r.guarantee or "", origin=origin,
                 expected=r.expected, n=budget_count(r.budget), unit=getattr(r, "unit", "units"), level=level)
    summary = r.summary()
    if r.guarantee == "proved" and getattr(r, "certificate", None):
        summary = r.certificate_sentence()
    return {
        "reading": rd.words, "reading_key": rd.key, "subject": rd.subject, "family": rd.family,
        "group": rd.group, "settled": rd.settled, "alarm": rd.alarm, "origin": origin,
        "id": r.claim, "anchor": f"claim-{r.claim}", "kind": r.kind, "statement": r.statement,
        "verdict": r.verdict, "expected": r.expected, "status": ev.status(r), "guarantee": r.guarantee,
        "label": r.label, "role": r.role, "seed": r.seed, "budget": r.budget, "elapsed_s": r.elapsed_s,
        "headline": _evidence_words(r), "interval": ev.interval(r, level), "summary": summary,
        "slack": ev.slack(r), "worst": ev.worst_point(r, meta.get("coordinates")),
        "advice": ev.settle_advice(r), "warnings": list(r.warnings), "notes": r.notes,
        "certificate": r.certificate_sentence() if getattr(r, "certificate", None) else "",
        "figures": figs, "source": source, "paper": papers[0] if papers else OURS,
        "cite": cite_line(r, meta, prov), "meta_from_current_code": bool(meta.get("from_current_code")),
    }


def _ours_title(entries) -> str:
    """The title of the section of claims citing no paper, by who declared them (their origin)."""
    origins = {e["origin"] for e in entries}
    who = ("your claims" if origins == {"user"} else
           "our derivations, controls and measurements" if origins == {"project"} else
           "our derivations, controls and measurements, and your claims")
    return f"Claims citing no paper: {who}"


_FINDING_ORDER = {"contradicted": 0, "finding": 1, "unsettled": 2}


def build_document(results, meta: dict, figure_dir=None, failures=()) -> dict:
    """The report's content from ``results`` and the run's ``meta`` (the
    contents of ``report.json``: ``seed``, ``alpha``, ``quick``, ``elapsed_s``,
    ``provenance``, ``claims``, ``figures``).  ``figure_dir`` is where the
    figures' PNG/PDF/JSON files are; a figure without a PNG there is listed
    as not built.  ``failures``: the claims whose own code failed (objects with
    ``claim``, ``error``, ``where``: :class:`.schema.ClaimFailureRecord`), listed
    as such with no verdict (``doc["failed"]``)."""
    results = list(results)
    failed = [{"id": f.claim, "anchor": f"claim-{f.claim}", "error": f.error, "where": f.where or ""}
              for f in failures]
    alpha = float(meta.get("alpha", results[0].alpha if results else 0.01))
    prov = meta.get("provenance") or {
        "package": "theorycheck", "version": None, "commit": None, "seed": meta.get("seed"),
        "alpha": alpha, "level": interval_level(alpha),
        "budgets": "quick" if meta.get("quick") else "default",
        "note": "not recorded with these results (no report.json provenance): versions, commit and "
                "date of the run are unknown"}
    level = interval_level(alpha)
    ids = [r.claim for r in results]
    cmeta = dict(meta.get("claims") or {})
    missing = [i for i in ids if i not in cmeta]
    if missing:
        for i, m in claims_meta(missing).items():
            cmeta[i] = {**m, "from_current_code": True}
    finfo = dict(meta.get("figures") or {})
    by_claim = figures_by_claim(finfo, ids)
    entries = {r.claim: _entry(r, cmeta.get(r.claim, {}), prov, level, by_claim[r.claim]) for r in results}

    papers = _paper_groups()
    groups: dict[str, list] = {}
    for e in entries.values():
        groups.setdefault(e["paper"], []).append(e)
    order = [k for k in papers if k in groups] + sorted(k for k in groups if k not in papers and k != OURS) \
        + ([OURS] if OURS in groups else [])
    sections = []
    for key in order:
        p = papers.get(key)
        sections.append({
            "key": key, "anchor": f"paper-{key}",
            "title": (p.title if p else (_ours_title(groups[key]) if key == OURS else key)),
            "cite": p.cite() if p else "", "url": p.url if p else "",
            "entries": sorted(groups[key], key=lambda e: e["id"]),
        })

    fdir = Path(figure_dir) if figure_dir is not None else None
    figures = []
    for name in sorted(set(finfo) | set(meta.get("built_figures") or ())):
        d = finfo.get(name, {})
        # a PNG inside the figures folder only (report.json is input: no '../x' or absolute names)
        png = figure_png(fdir, name) if fdir is not None else None
        figures.append({"name": name, "anchor": f"fig-{name}", "caption": d.get("caption", ""),
                        "claims": supported_claims(d.get("claims") or (), ids),
                        "png": png,
                        "quick": bool(meta.get("quick")), "width": d.get("width")})
    built = {f["name"] for f in figures if f["png"] is not None}
    for e in entries.values():
        e["figures"] = [n for n in e["figures"] if n in built]

    findings = sorted((e for e in entries.values() if e["status"] != "as expected"),
                      key=lambda e: (_FINDING_ORDER[e["status"]], e["id"]))
    counts = {v: sum(r.verdict == v for r in results) for v in ("holds", "refuted", "inconclusive")}
    by_status = {s: sum(e["status"] == s for e in entries.values()) for s in ev.STATUS_TEXT}
    from proofs_check.engine.results import GUARANTEES

    mult = multiplicity(results, alpha)
    for e in entries.values():
        e["fdr"] = mult["by_claim"].get(e["id"])
    from .findings import headline_findings

    headline_list = headline_findings(results, entries, level, alpha, built=built)
    return {
        "provenance": prov, "level": level, "alpha": alpha, "seed": meta.get("seed", prov.get("seed")),
        "quick": bool(meta.get("quick")), "elapsed_s": float(meta.get("elapsed_s", 0.0)),
        "n": len(results), "counts": counts, "by_status": by_status,
        "guarantees": [(g, GUARANTEES[g].split(": ", 1)[1]) for g in GUARANTEES
                       if any(r.guarantee == g for r in results)],
        "headline_findings": headline_list, "findings": findings, "sections": sections, "figures": figures,
        "entries": entries,
        "multiplicity": mult,
        "failed": failed,
    }


def multiplicity(results, alpha: float) -> dict:
    """Multiplicity across the run (:mod:`proofs_check.engine.multiplicity`): e-BH
    at ``alpha`` over the results' e-values (FDR ≤ α under any dependence; Wang &
    Ramdas 2022) and the Bonferroni reading ``e ≥ K/α`` (FWER ≤ α).  ``lines``:
    the statement; ``by_claim``: for each refuted claim, what survives."""
    from proofs_check.engine.multiplicity import fdr_statement, run_multiplicity

    m = run_multiplicity(results, alpha)
    by_claim = {}
    for c in m.refuted:
        by_claim[c] = (f"across the run: survives FDR ≤ {alpha:g} (e-BH)" if c in m.refuted_fdr else
                       f"across the run: does not survive FDR ≤ {alpha:g} (e-BH over {m.K} e-values)")
        by_claim[c] += ("; survives the family-wise (Bonferroni) reading" if c in m.refuted_fwer
                        else "; not family-wise (Bonferroni)")
    for c in m.refuted_outside:
        by_claim[c] = "across the run: outside the FDR family (no finite-sample e-value)"
    return {"lines": fdr_statement(m), "K": m.K, "refuted_fdr": list(m.refuted_fdr),
            "refuted_fwer": list(m.refuted_fwer), "by_claim": by_claim}
