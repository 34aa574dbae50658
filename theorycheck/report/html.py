"""The report as one self-contained HTML page (``report.html``).

Figures are inline (base64 PNG ``data:`` URIs), style and script are inline,
and nothing is fetched from anywhere: the file can be mailed or attached to a
paper as it is.  Every claim has the anchor ``#claim-<id>``, every figure
``#fig-<name>``, every paper section ``#paper-<key>``.  The claims table sorts
on a click on its header and filters by text, verdict and status (plain
JavaScript, no library).
"""
from __future__ import annotations

import base64
import html as _html

from .evidence import STATUS_TEXT
from .markdown import FAILED_INTRO, FINDINGS_INTRO, _n, counts_sentence, expected_text, provenance_rows, source_text

__all__ = ["render_document_html"]


def esc(text) -> str:
    return _html.escape(str(text), quote=True)


def _code_aware(text) -> str:
    parts = str(text).split("`")
    return "".join(f"<code>{esc(p)}</code>" if i % 2 else esc(p) for i, p in enumerate(parts))


_CSS = """
:root{--fg:#1d1d1f;--muted:#5f6368;--line:#d9dce1;--bg:#fff;--hold:#0a6a3a;--ref:#a4262c;--inc:#8a5a00;
--holdbg:#e3f3ea;--refbg:#fbe7e8;--incbg:#fdf1d8}
*{box-sizing:border-box}
body{font:15px/1.5 -apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);
background:var(--bg);margin:0 auto;max-width:1100px;padding:24px 28px 80px}
h1{font-size:1.7em;margin:.2em 0 .1em}h2{font-size:1.3em;margin-top:2em;border-bottom:1px solid var(--line);
padding-bottom:.2em}h3{font-size:1.05em;margin:1.6em 0 .3em}
code{font:13px/1.4 "SFMono-Regular",Menlo,Consolas,monospace;background:#f3f4f6;padding:0 3px;border-radius:3px}
a{color:#1558b0;text-decoration:none}a:hover{text-decoration:underline}
.lead{color:var(--muted);margin-top:0}
table{border-collapse:collapse;width:100%;font-size:13.5px}
th,td{border-bottom:1px solid var(--line);padding:4px 6px;text-align:left;vertical-align:top}
table.prov{width:auto}table.prov th{font-weight:600;color:var(--muted);white-space:nowrap;padding-right:18px}
#claims th{cursor:pointer;user-select:none;background:#f7f8fa;position:sticky;top:0}
#claims th[aria-sort=ascending]::after{content:" ▲"}#claims th[aria-sort=descending]::after{content:" ▼"}
#claims td:first-child{white-space:nowrap}
.v{font-weight:600;padding:0 6px;border-radius:3px;white-space:nowrap}
.v-holds{color:var(--hold);background:var(--holdbg)}.v-refuted{color:var(--ref);background:var(--refbg)}
.v-inconclusive{color:var(--inc);background:var(--incbg)}
.controls{display:flex;gap:10px;flex-wrap:wrap;margin:10px 0;align-items:center}
.controls input{flex:1;min-width:220px;padding:5px 8px;font-size:14px;border:1px solid var(--line);border-radius:4px}
.controls select{padding:4px;font-size:14px}
.tablewrap{max-height:520px;overflow:auto;border:1px solid var(--line)}
.claim{border-left:3px solid var(--line);padding:2px 0 2px 14px;margin:18px 0}
.claim.s-contradicted{border-left-color:var(--ref)}.claim.s-finding{border-left-color:#1558b0}
.claim.s-unsettled{border-left-color:var(--inc)}
.claim blockquote{margin:4px 0 8px;padding:6px 10px;background:#f7f8fa;border-radius:4px}
.claim dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0}
.claim dt{color:var(--muted);font-weight:600}.claim dd{margin:0}
.cite{font-size:12.5px;word-break:break-all}
.warn{color:var(--ref)}
figure{margin:22px 0;padding:10px;border:1px solid var(--line);border-radius:4px}
figure img{max-width:100%;height:auto;display:block;margin:0 auto}figure img.column{max-width:560px}
figcaption{font-size:13.5px;margin-top:6px}
ol.findings li{margin-bottom:4px}
ol.headline li{margin-bottom:12px;padding-left:4px}ol.headline .rests{font-size:12.5px;color:var(--muted)}
.reading{font-size:12px;font-weight:600;padding:0 6px;border-radius:3px;white-space:nowrap;background:#eef1f5}
.reading.r-paper-confirmed,.reading.r-ours-confirmed{color:var(--hold);background:var(--holdbg)}
.reading.r-paper-refuted,.reading.r-ours-refuted,.reading.r-control-failed{color:var(--ref);background:var(--refbg)}
.reading.r-unsettled{color:var(--inc);background:var(--incbg)}
.reading.r-control-as-designed-refuted,.reading.r-control-as-designed-holds{color:#1558b0;background:#e8eefb}
ul.group{font-size:13.5px;margin:4px 0 10px}ul.group li{margin-bottom:2px}
details summary{cursor:pointer;color:var(--muted);font-weight:600;margin:6px 0}
.quick{color:var(--inc);font-weight:600}
.reading.r-confirmed{color:var(--hold);background:var(--holdbg)}
.reading.r-refuted,.reading.r-alarm{color:var(--ref);background:var(--refbg)}
.reading.r-checked{color:#3d4a5c;background:#e9edf2}
.reading.r-indicated,.reading.r-unsettled{color:var(--inc);background:var(--incbg)}
.reading.r-control:not(.r-alarm){color:#1558b0;background:#e8eefb}
.reading{white-space:normal}
.basis{font-size:12px;color:var(--muted)}
h4{font-size:.95em;margin:.9em 0 .2em;color:var(--muted)}
#toc{font-size:13px;line-height:1.45;border:1px solid var(--line);border-radius:4px;padding:8px 12px;
margin:14px 0;background:#fafbfc}
#toc strong{display:block;margin-bottom:4px}
#toc ol,#toc ul{margin:0;padding-left:18px}#toc li{margin:1px 0}
#toc details summary{font-weight:400;color:var(--fg);margin:0}
#toc .n{color:var(--muted)}
@media (min-width:1200px){
body{max-width:1440px}
.layout{display:grid;grid-template-columns:270px minmax(0,1fr);gap:28px;align-items:start}
#toc{position:sticky;top:0;max-height:100vh;overflow-y:auto;margin:0;border-width:0 1px 0 0;border-radius:0;
background:var(--bg);padding:16px 14px 16px 0}
}
@media print{#toc{display:none}.layout{display:block}}
"""

_JS = r"""
(function(){
  var table=document.getElementById('claims'); if(!table) return;
  var body=table.tBodies[0], heads=table.tHead.rows[0].cells;
  var text=document.getElementById('f-text'), verdict=document.getElementById('f-verdict'),
      stat=document.getElementById('f-status'), shown=document.getElementById('f-count');
  function key(cell, numeric){ var v=cell.getAttribute('data-sort'); if(v===null) v=cell.textContent;
    return numeric ? parseFloat(v) : v.toLowerCase(); }
  Array.prototype.forEach.call(heads, function(th, col){
    th.addEventListener('click', function(){
      var asc = th.getAttribute('aria-sort') !== 'ascending';
      Array.prototype.forEach.call(heads, function(h){ h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
      var numeric = th.getAttribute('data-type') === 'number';
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function(a, b){ var x=key(a.cells[col], numeric), y=key(b.cells[col], numeric);
        return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1); });
      rows.forEach(function(r){ body.appendChild(r); });
    });
  });
  function filter(){
    var q=text.value.trim().toLowerCase(), v=verdict.value, s=stat.value, n=0;
    Array.prototype.forEach.call(body.rows, function(r){
      var ok=(!q || r.textContent.toLowerCase().indexOf(q) >= 0) &&
             (!v || r.getAttribute('data-verdict') === v) && (!s || r.getAttribute('data-status') === s);
      r.hidden = !ok; if(ok) n++; });
    shown.textContent = n + ' of ' + body.rows.length + ' claims';
  }
  [text, verdict, stat].forEach(function(el){ el.addEventListener('input', filter); });
  filter();
})();
"""


def _verdict(v) -> str:
    return f'<span class="v v-{esc(v)}">{esc(v)}</span>'


def _expected(e) -> str:
    return expected_text(e, esc)


def _fig_links(names) -> str:
    return ", ".join(f'<a href="#fig-{esc(n)}">{esc(n)}</a>' for n in names) if names else "—"


def _source(src) -> str:
    return source_text(src, text=esc, link=lambda t, u: f'<a href="{esc(u)}">{esc(t)}</a>',
                       code=lambda c: f"<code>{esc(c)}</code>")


def _claims_table(doc) -> list[str]:
    rows = []
    for sec in doc["sections"]:
        for e in sec["entries"]:
            rows.append(
                f'<tr data-verdict="{esc(e["verdict"])}" data-status="{esc(e["status"])}">'
                f'<td><a href="#{esc(e["anchor"])}"><code>{esc(e["id"])}</code></a></td>'
                f'<td>{esc(sec["key"])}</td><td>{esc(e["kind"])}</td><td>{_verdict(e["verdict"])}</td>'
                f'<td>{_expected(e)}</td><td>{esc(e["guarantee"])}</td><td>{esc(e["summary"])}</td>'
                f'<td data-sort="{esc(format(e["elapsed_s"], ".6f"))}">{esc(format(e["elapsed_s"], ".2f"))}</td></tr>')
    opts = "".join(f'<option value="{s}">{esc(s)}</option>' for s in STATUS_TEXT)
    return [
        '<div class="controls"><input id="f-text" type="search" placeholder="filter: claim id, paper, '
        'kind, number…" aria-label="filter claims">',
        '<select id="f-verdict" aria-label="verdict"><option value="">every verdict</option>'
        '<option>holds</option><option>refuted</option><option>inconclusive</option></select>',
        f'<select id="f-status" aria-label="status"><option value="">every status</option>{opts}</select>',
        '<span id="f-count"></span></div>',
        '<div class="tablewrap"><table id="claims"><thead><tr><th>claim</th><th>paper</th><th>kind</th>'
        '<th>verdict</th><th>expected</th><th>guarantee</th><th>evidence</th>'
        '<th data-type="number">s</th></tr></thead><tbody>', *rows, '</tbody></table></div>']


def _classes(e) -> str:
    from .findings import _classes as classes

    return classes(e)


def _claim(e) -> list[str]:
    dl = [("reading", f'<span class="reading {_classes(e)}">{esc(e["reading"])}</span>'),
          ("verdict", f"{_verdict(e['verdict'])} — guarantee <em>{esc(e['guarantee'])}</em>; expected "
                      f"{_expected(e)}; {esc(e['label'])}, {esc(e['role'])}, {esc(e['kind'])} claim"),
          ("proved" if e["guarantee"] == "proved" and e.get("certificate") else "got",
           esc(e["headline"]) + (f"; {esc(e['interval'])}" if e["interval"] else ""))]
    dl += [("slack", esc(s)) for s in e["slack"]]
    if e.get("certificate") and e["certificate"] != e["headline"]:
        dl.append(("certificate", esc(e["certificate"])))
    if e["worst"]:
        dl.append(("worst point", esc(e["worst"])))
    if e["advice"]:
        dl.append(("to settle it", _code_aware(e["advice"])))
    if e.get("fdr"):
        dl.append(("multiplicity", esc(e["fdr"])))
    dl += [("warning", f'<span class="warn">⚠ {esc(w)}</span>') for w in e["warnings"]]
    dl += [("figures", _fig_links(e["figures"])), ("source", _source(e["source"]))]
    fp_note = (" (fingerprint of the current code, not recorded at the run)"
               if e["meta_from_current_code"] else "")
    dl.append(("cite this verdict", f'<code class="cite">{esc(e["cite"])}</code>{esc(fp_note)}'))
    return [f'<section class="claim s-{esc(e["status"].replace(" ", "-"))}" id="{esc(e["anchor"])}">',
            f'<h3><code>{esc(e["id"])}</code></h3>', f'<blockquote>{esc(e["statement"])}</blockquote>',
            "<dl>", *[f"<dt>{esc(k)}</dt><dd>{v}</dd>" for k, v in dl], "</dl></section>"]


def _figure(f) -> list[str]:
    head = f'<figure id="{esc(f["anchor"])}">'
    if f["png"] is None:
        return [head, f"<figcaption><strong>{esc(f['name'])}</strong>: not built (no PNG in the figures "
                      f"folder).</figcaption></figure>"]
    data = base64.b64encode(f["png"].read_bytes()).decode("ascii")
    quick = ' <span class="quick">Quick build (fewer trials than the paper figure).</span>' if f["quick"] else ""
    claims = ", ".join(f'<a href="#claim-{esc(c)}"><code>{esc(c)}</code></a>' for c in f["claims"])
    size = ' class="column"' if f.get("width") == "column" else ""
    return [head, f'<img{size} alt="figure {esc(f["name"])}" src="data:image/png;base64,{data}">',
            f"<figcaption><strong>Figure {esc(f['name'])}.</strong> "
            f"{esc(f['caption']) or '(no caption registered)'}{quick} Supports: "
            f"{claims or 'no claim in this report'}.</figcaption></figure>"]


def _failed(failed) -> list[str]:
    """The section listing the claims whose own code failed (none: nothing)."""
    if not failed:
        return []
    out = [f'<h2 id="failed">FAILED: claims whose code failed ({len(failed)})</h2>',
           f"<p>{esc(FAILED_INTRO)}</p>", '<ul class="failed">']
    for f in failed:
        at = f" at <code>{esc(f['where'])}</code>" if f["where"] else ""
        out.append(f'<li id="{esc(f["anchor"])}"><code>{esc(f["id"])}</code> — <strong>failed, no verdict</strong>: '
                   f"{esc(f['error'])}{at}</li>")
    return out + ["</ul>"]


def _toc(doc) -> list[str]:
    """The table of contents: every section of the page, the headline findings, the reading
    groups and, per paper, its claims (collapsed); links only to ids the page defines.  On wide
    screens a sticky sidebar (CSS only: ``.layout`` grid, ``position: sticky``)."""
    from .findings import claim_groups

    def a(anchor, text, n=None):
        count = f' <span class="n">({esc(n)})</span>' if n is not None else ""
        return f'<a href="#{esc(anchor)}">{esc(text)}</a>{count}'

    heads = doc.get("headline_findings") or []
    out = ['<nav id="toc" aria-label="table of contents"><strong>Contents</strong><ol>',
           f"<li>{a('headline', 'Headline results', len(heads))}"]
    if heads:
        out += ["<ol>", *[f"<li>{a(f['anchor'], f['title'])}</li>" for f in heads], "</ol>"]
    out += ["</li>", f"<li>{a('provenance', 'Provenance')}</li>"]
    if doc.get("failed"):
        out.append(f"<li>{a('failed', 'FAILED claims', len(doc['failed']))}</li>")
    out += [f"<li>{a('multiplicity', 'Multiplicity')}</li>",
            f"<li>{a('findings', 'Summary of findings', len(doc['findings']))}</li>",
            f"<li>{a('by-reading', 'Claims by reading')}<ul>",
            *[f"<li>{a('group-' + g['key'], g['title'].split(' (')[0], g['n'])}</li>" for g in claim_groups(doc)],
            "</ul></li>", f"<li>{a('all-claims', 'All claims', doc['n'])}</li>",
            f"<li>{a('papers', 'Papers')}<ul>"]
    for sec in doc["sections"]:
        claims = "".join(f"<li>{a(e['anchor'], e['id'])}</li>" for e in sec["entries"])
        out.append(f"<li><details><summary>{a(sec['anchor'], sec['title'], len(sec['entries']))}</summary>"
                   f"<ul>{claims}</ul></details></li>")
    out += ["</ul></li>", f"<li>{a('figures', 'Figures', len(doc['figures']))}</li>", "</ol></nav>"]
    return out


def render_document_html(doc) -> str:
    """``report.html`` text (self-contained) from :func:`.document.build_document`."""
    from .findings import groups_html, headline_html

    prov = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in provenance_rows(doc))
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>theorycheck report — {esc(doc['n'])} claims</title>", f"<style>{_CSS}</style></head><body>",
           '<div class="layout">', *_toc(doc), "<main>", "<h1>theorycheck report</h1>",
           '<p class="lead">Verdicts of the claims checked by theorycheck, written as a paper\'s appendix: '
           "the headline results first, then a summary of the findings, one section per paper, then the "
           "figures.</p>",
           *headline_html(doc, esc=esc),
           '<h2 id="provenance">Provenance</h2>', f'<table class="prov">{prov}</table>',
           f"<p>{esc(counts_sentence(doc))}</p>", "<ul>",
           *[f"<li><strong>{esc(g)}</strong> — {esc(t)}</li>" for g, t in doc["guarantees"]], "</ul>",
           *_failed(doc.get("failed") or ()),
           '<h2 id="multiplicity">Multiplicity across the run</h2>', "<ul>",
           *[f"<li>{esc(t)}</li>" for t in doc["multiplicity"]["lines"]], "</ul>",
           f'<h2 id="findings">Summary of findings ({len(doc["findings"])})</h2>']
    if doc["findings"]:
        out += [f"<p>{esc(FINDINGS_INTRO)}</p>", '<ol class="findings">']
        for e in doc["findings"]:
            what = {"contradicted": f"contradicts expected <em>{esc(e['expected'])}</em>",
                    "unsettled": f"expected <em>{esc(e['expected'])}</em>, not settled at this budget",
                    "finding": "a finding: no verdict expected"}[e["status"]]
            iv = f"; {esc(e['interval'])}" if e["interval"] else ""
            out.append(f'<li><a href="#{esc(e["anchor"])}"><code>{esc(e["id"])}</code></a> — '
                       f"{_verdict(e['verdict'])} ({what}): {esc(e['headline'])}{iv}; seed {esc(e['seed'])}, "
                       f"budget {esc(e['budget'])}; figure {_fig_links(e['figures'])}</li>")
        out.append("</ol>")
    else:
        out.append("<p>Every claim reached the verdict it was expected to reach.</p>")
    out += groups_html(doc, esc=esc)
    out += ['<h2 id="all-claims">All claims</h2>', *_claims_table(doc), '<h2 id="papers">Papers</h2>', "<ul>"]
    out += [f'<li><a href="#{esc(s["anchor"])}">{esc(s["title"])}</a> — {_n(len(s["entries"]), "claim")}</li>'
            for s in doc["sections"]]
    out.append("</ul>")
    for sec in doc["sections"]:
        out.append(f'<h2 id="{esc(sec["anchor"])}">{esc(sec["title"])}</h2>')
        if sec["cite"]:
            out.append(f'<p>{esc(sec["cite"])}. <a href="{esc(sec["url"])}">{esc(sec["url"])}</a></p>')
        for e in sec["entries"]:
            out += _claim(e)
    out.append(f'<h2 id="figures">Figures ({len(doc["figures"])})</h2>')
    if not doc["figures"]:
        out.append("<p>No figure was built for this report.</p>")
    for f in doc["figures"]:
        out += _figure(f)
    out += ["</main></div>", f"<script>{_JS}</script>", "</body></html>"]
    return "\n".join(out) + "\n"
