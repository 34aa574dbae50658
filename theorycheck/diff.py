"""``theorycheck diff RUN_A RUN_B``: what changed between two runs (or two versions).

A run is a report folder or a ``verify --out`` folder (``results.jsonl`` and, if
present, ``report.json``), a ``results.jsonl`` file, a ``report.json``, or a file
of ``verify --json`` lines (which carry no provenance: the comparison then says
which fields — :data:`META_FIELDS` — it could not compare).  The comparison reruns nothing; it lists, claim by claim:

* **verdict** — the verdict differs (``holds → refuted`` …);
* **moved** — the estimate moved beyond the intervals: both runs carry an
  interval for the claim's estimate (probability p̂, comparison mean
  difference, scaling exponent) and the two intervals are *disjoint*.  Each is
  a ``1 − α`` interval (``docs/theory/engine.md``), so when both runs estimate
  the same quantity they are disjoint with probability ≤ ``α_A + α_B`` (a union
  bound over the two coverage failures): disjoint intervals say the quantity
  itself changed (code, parameters) — or one of two rare misses happened;
* **fingerprint** — the claim's code fingerprint (or ``version``) recorded in
  ``report.json`` differs: the claim's fields or the code it names changed;
* **new** / **removed** — the claim is in one run only;
* **finding** — a headline finding's sentence changed (``theorycheck/report/findings.py``).

Overlapping intervals with different estimates are *not* listed (they are
what two seeds of the same code give); a finding whose sentence changed only
in its numbers is listed but is not *significant*.  Exit status (the CLI): 1
when a significant change is listed (any claim-level change, or a finding that
reads differently: another case, or settled ↔ not settled), 0 otherwise, 2 on
bad input.
"""
from __future__ import annotations

import json
from pathlib import Path

__all__ = ["load_run", "diff_runs", "diff_rows", "diff_markdown", "CHANGE_KINDS", "META_FIELDS", "MAX_DIFF_BYTES",
           "estimate"]

#: change kind -> what it means (legend of the table and of the Markdown section)
CHANGE_KINDS = {
    "verdict": "the verdict differs",
    "moved": "the estimate moved beyond the intervals (the two runs' intervals are disjoint)",
    "fingerprint": "the claim's code fingerprint or version differs (its fields or code changed)",
    "new": "in run B only",
    "removed": "in run A only",
    "finding": "a headline finding's sentence changed (its reading, or only its numbers)",
}


#: The largest results file ``diff`` reads (bytes).  Each line is checked against the schema
#: (:mod:`theorycheck.report.schema`) at a few ms of CPU per line, so a run of every shipped
#: claim (≈ 250 lines, < 1 MB) reads in well under a second, and this cap (≈ 10 000 typical
#: lines) in under a minute; a larger file is refused at once, naming its size, rather than
#: read for many minutes in silence.
MAX_DIFF_BYTES = 8 * 2 ** 20
#: Above this size, a line on stderr says that a large file is being read (and how large).
NOTICE_BYTES = 2 ** 20

#: What ``diff`` compares from a run's ``report.json`` besides the results: shown as
#: "not compared" when either run lacks it (a results file without its report.json, e.g.
#: ``verify --json`` lines).
META_FIELDS = {"fingerprints": "each claim's code fingerprint and version",
               "commit": "the source commit", "versions": "the package and library versions",
               "budgets": "quick or default budgets", "date": "the date of the run"}


def _check_size(src: Path, stream) -> None:
    """Refuse a results file larger than :data:`MAX_DIFF_BYTES`; announce one above
    :data:`NOTICE_BYTES` on ``stream``."""
    try:
        size = src.stat().st_size
    except OSError:
        return                              # the reader names the file and the reason
    if size > MAX_DIFF_BYTES:
        raise ValueError(f"{src}: {size / 2 ** 20:.0f} MB of results, more than the {MAX_DIFF_BYTES // 2 ** 20} MB "
                         f"`theorycheck diff` reads (a run of every shipped claim writes under 1 MB; checking "
                         f"each line takes a few ms, so this file would take minutes); compare the report "
                         f"folders of the two runs, or a subset of their lines")
    if size > NOTICE_BYTES and stream is not None:
        print(f"theorycheck: diff: reading {size / 2 ** 20:.1f} MB of results from {src} (every line is "
              f"checked; up to a minute) …", file=stream, flush=True)


def load_run(path, *, stream=None) -> dict:
    """``{"path", "results": {id: Result}, "meta": dict}`` of a run (module docstring);
    ``ValueError`` naming the path when it holds no results.

    Every input is checked as ``report --from`` checks it: the results by
    :func:`theorycheck.report.read_results` and ``report.json`` by
    :func:`theorycheck.report.schema.load_meta` (a bad one is a ``ValueError`` naming the
    file, the line and the field); a results file above :data:`MAX_DIFF_BYTES` is refused.
    ``stream`` (e.g. ``sys.stderr``) gets a line before a large file is read."""
    from .report import read_results, results_source
    from .report.schema import load_meta

    if not isinstance(path, (str, Path)):
        raise TypeError(f"a run must be a path (report folder, results.jsonl, report.json), "
                        f"got {type(path).__name__}")
    src = results_source(path)
    if not src.exists():
        raise ValueError(f"{path}: no results found (looked for {src}); give a report folder, a `verify --out` "
                         f"folder, a results.jsonl or a file of `theorycheck verify --json` lines")
    _check_size(src, stream)
    results = read_results(src)
    if not results:
        raise ValueError(f"{src} holds no results")
    meta = {}
    mp = src.parent / "report.json"
    # the run's report.json only when it belongs to this results file (a folder, or its results.jsonl)
    if mp.exists() and (src.name == "results.jsonl"):
        meta = load_meta(mp)
    by_id = {}
    for r in results:
        by_id[r.claim] = r                   # a resumed file may repeat a claim: the last line counts
    return {"path": str(path), "results": by_id, "meta": meta}


def estimate(r):
    """``(name, value, (lo, hi) or None)`` of a result's point estimate, or ``None``."""
    if hasattr(r, "p_hat"):
        return "p̂", float(r.p_hat), tuple(map(float, r.ci)) if r.ci else None
    if hasattr(r, "mean_diff"):
        return "mean difference", float(r.mean_diff), tuple(map(float, r.ci)) if r.ci else None
    if hasattr(r, "exponent"):
        ci = getattr(r, "exponent_ci", None)
        return "exponent", float(r.exponent), tuple(map(float, ci)) if ci else None
    if hasattr(r, "worst_ratio"):
        return "max lhs/rhs", float(r.worst_ratio), None
    if hasattr(r, "max_scaled_error"):
        return "max scaled error", float(r.max_scaled_error), None
    return None


def _num(x) -> str:
    from proofs_check.engine.results import fmt

    return fmt(x, 4)


def _est_text(r) -> str:
    e = estimate(r)
    if e is None:
        return ""
    name, v, ci = e
    return f"{name} = {_num(v)}" + (f" [{_num(ci[0])}, {_num(ci[1])}]" if ci else "")


def _fingerprints(meta) -> dict:
    return {cid: (m.get("fingerprint"), m.get("version")) for cid, m in (meta.get("claims") or {}).items()
            if isinstance(m, dict)}


def _run_line(run) -> str:
    m, p = run["meta"], run["meta"].get("provenance") or {}
    first = next(iter(run["results"].values()))
    seed = m.get("seed", first.seed)
    budgets = "quick" if m.get("quick") else ("default" if m else "as recorded per claim")
    commit = p.get("commit") or "not recorded"
    return (f"{run['path']}: {len(run['results'])} claims, seed {seed}, α = {m.get('alpha', first.alpha):g}, "
            f"{budgets} budgets, commit {commit}, date {p.get('date') or 'not recorded'}")


def _findings(run) -> dict:
    """finding id -> sentence of the run (empty when the report cannot be built from it)."""
    from .report.document import build_document

    meta = dict(run["meta"]) or {"seed": next(iter(run["results"].values())).seed}
    meta.setdefault("figures", {})
    doc = build_document(list(run["results"].values()), meta)
    return {f["id"]: (f["case"] if f["settled"] else "not settled", f["text"]) for f in doc["headline_findings"]}


def diff_runs(a, b, *, findings: bool = True) -> dict:
    """The changes from run ``a`` to run ``b`` (each from :func:`load_run`):
    ``{"a", "b", "changes": [{"claim", "change", "a", "b", "why"}], "counts", "same"}``."""
    ra, rb = a["results"], b["results"]
    fa, fb = _fingerprints(a["meta"]), _fingerprints(b["meta"])
    changes = []
    for cid in sorted(set(ra) | set(rb)):
        x, y = ra.get(cid), rb.get(cid)
        if x is None:
            changes.append({"claim": cid, "change": "new", "a": "—", "b": f"{y.verdict}; {_est_text(y)}",
                            "why": CHANGE_KINDS["new"]})
            continue
        if y is None:
            changes.append({"claim": cid, "change": "removed", "a": f"{x.verdict}; {_est_text(x)}", "b": "—",
                            "why": CHANGE_KINDS["removed"]})
            continue
        if x.verdict != y.verdict:
            changes.append({"claim": cid, "change": "verdict", "a": f"{x.verdict}; {_est_text(x)}",
                            "b": f"{y.verdict}; {_est_text(y)}",
                            "why": f"{x.verdict} → {y.verdict} (budgets {x.budget} → {y.budget}, seeds "
                                   f"{x.seed} → {y.seed})"})
        ex, ey = estimate(x), estimate(y)
        if ex and ey and ex[0] == ey[0] and ex[2] and ey[2] and (ex[2][1] < ey[2][0] or ey[2][1] < ex[2][0]):
            changes.append({"claim": cid, "change": "moved", "a": _est_text(x), "b": _est_text(y),
                            "why": f"{ex[0]} {_num(ex[1])} → {_num(ey[1])}: the intervals are disjoint "
                                   f"(same quantity: probability ≤ {x.alpha + y.alpha:g})"})
        if cid in fa and cid in fb and fa[cid] != fb[cid]:
            (fpa, va), (fpb, vb) = fa[cid], fb[cid]
            what = f"version {va} → {vb}" if va != vb else f"fingerprint {str(fpa)[:12]} → {str(fpb)[:12]}"
            changes.append({"claim": cid, "change": "fingerprint", "a": str(fpa)[:12], "b": str(fpb)[:12],
                            "why": f"{what}: the claim's fields or code changed"})
    if findings:
        sa, sb = _findings(a), _findings(b)
        for fid in sorted(set(sa) | set(sb)):
            (ca, ta), (cb, tb) = sa.get(fid, ("not shown", "—")), sb.get(fid, ("not shown", "—"))
            if ta != tb:
                changes.append({"claim": fid, "change": "finding", "a": ta, "b": tb, "reads_differently": ca != cb,
                                "why": (f"it reads differently: {ca} → {cb}" if ca != cb
                                        else "only its numbers changed (same reading)")})
    order = list(CHANGE_KINDS)
    changes.sort(key=lambda c: (order.index(c["change"]), c["claim"]))
    counts = {k: sum(c["change"] == k for c in changes) for k in CHANGE_KINDS}
    notes = _meta_notes(a, b, fa, fb)
    changed = {c["claim"] for c in changes if c["change"] != "finding"}
    return {"a": _run_line(a), "b": _run_line(b), "changes": changes, "counts": counts,
            "same": sum(1 for cid in set(ra) & set(rb) if cid not in changed), "notes": notes,
            "significant": any(c["change"] != "finding" or c.get("reads_differently") for c in changes)}


def _meta_notes(a, b, fa, fb) -> list[str]:
    """Notes on the runs' provenance: which :data:`META_FIELDS` could not be compared (and
    why), and which differ (commit, versions, budgets) — differences that may explain a
    change but are not claim-level changes themselves."""
    notes = []
    missing = [n for n, run in (("run A", a), ("run B", b)) if not run["meta"]]
    if missing:
        notes.append(f"not compared: {', '.join(META_FIELDS.values())} — {' and '.join(missing)} "
                     f"recorded none (no report.json beside its results; `theorycheck verify --out DIR` "
                     f"and `theorycheck report` write one)")
        return notes
    if not fa or not fb:
        notes.append("fingerprints not compared: " + " and ".join(n for n, f in (("run A", fa), ("run B", fb))
                                                                 if not f) + " recorded none")
    pa, pb = a["meta"].get("provenance") or {}, b["meta"].get("provenance") or {}
    if not pa or not pb:
        notes.append(f"not compared: {META_FIELDS['commit']}, {META_FIELDS['versions']} — "
                     + " and ".join(n for n, p in (("run A", pa), ("run B", pb)) if not p)
                     + " recorded no provenance")
        return notes
    from .report.provenance import LIBRARIES, commit_text

    if (pa.get("commit"), pa.get("dirty")) != (pb.get("commit"), pb.get("dirty")):
        notes.append(f"commit {commit_text(pa)} → {commit_text(pb)}")
    for lib in ("version", "python", *LIBRARIES):
        if pa.get(lib) != pb.get(lib):
            name = "theorycheck" if lib == "version" else lib
            notes.append(f"{name} {pa.get(lib) or 'not recorded'} → {pb.get(lib) or 'not recorded'}")
    qa, qb = a["meta"].get("quick"), b["meta"].get("quick")
    if qa != qb:
        word = {True: "quick", False: "default", None: "not recorded"}
        notes.append(f"budgets {word.get(qa, qa)} → {word.get(qb, qb)}")
    return notes


def diff_rows(d) -> list[tuple]:
    """Table rows ``(change, claim, run A, run B, why)`` of :func:`diff_runs`'s result."""
    return [(c["change"], c["claim"], c["a"], c["b"], c["why"]) for c in d["changes"]]


def summary_line(d) -> str:
    listed = ", ".join(f"{n} {k}" for k, n in d["counts"].items() if n) or "no change"
    return f"{listed}; {d['same']} claims in both runs unchanged"


def diff_markdown(d) -> str:
    """The comparison as a Markdown report section (``## Changes between two runs``)."""
    from .report.markdown import md

    lines = ["## Changes between two runs", "", f"- **A:** {md(d['a'])}", f"- **B:** {md(d['b'])}", "",
             md(summary_line(d)) + ".", ""]
    lines += [f"- {md(n)}" for n in d["notes"]]
    if d["changes"]:
        lines += ["", "| change | claim | run A | run B | why |", "|---|---|---|---|---|"]
        lines += [f"| {md(c['change'])} | {md(c['claim'])} | {md(c['a'])} | {md(c['b'])} | {md(c['why'])} |"
                  for c in d["changes"]]
        lines += ["", *[f"- **{k}** — {md(v)}" for k, v in CHANGE_KINDS.items() if d["counts"][k]]]
    return "\n".join(lines) + "\n"
