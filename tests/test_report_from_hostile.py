"""``theorycheck report --from`` reads untrusted files (issue 26, items 9 and 13).

A results.jsonl or report.json mailed with a paper, edited by hand or damaged on disk is
data: every field is checked against a typed schema (``theorycheck/report/schema.py``) and a
bad one is refused with ONE line naming the file, the line (results.jsonl) and the field —
never a traceback, never a rendering of invalid values; values that are valid but hostile
(``<script>`` in a statement, a Markdown link to ``javascript:``, backticks and pipes in an
id) render as inert text in report.html and report.md; a figure is read from the report's own
``figures/`` folder only (no ``../../x``, no absolute path, no symbolic link out of it).
"""
from __future__ import annotations

import copy
import dataclasses
import html.parser
import json
import os
import re
from pathlib import Path

import pytest

from theorycheck.cli import main
from theorycheck.report import render_html, render_markdown, render_report_from

XSS = "<script>alert(1)</script>"
SECRET = b"\x89PNG\r\n\x1a\nSECRET-BYTES-26D"


# ---------------------------------------------------------------------------
# a small, valid report folder: one result of every kind (user claims, not registered)


@pytest.fixture(scope="module")
def valid(tmp_path_factory):
    import proofs_check as pc
    from proofs_check.declare import Box
    from proofs_check.engine import verify_claim
    from theorycheck.report.document import claim_meta

    claims = [
        pc.probability("hz.prob", _rare, delta=0.05, budget=4000, quick_budget=4000, chunk_size=1000,
                       register=False, expected="holds"),
        pc.inequality("hz.ineq", _sq, _ident, domain=Box(a=(0, 1)), budget=400, quick_budget=400,
                      register=False),
        pc.inequality("hz.ineq_bad", _ident, _sq, domain=Box(a=(0, 1)), budget=400, quick_budget=400,
                      register=False, expected="refuted"),
        pc.identity("hz.ident", _double, _twice, domain=Box(a=(0, 1)), budget=200, quick_budget=200,
                    register=False),
        pc.comparison("hz.comp", _below, threshold=0.0, budget=4000, quick_budget=4000, chunk_size=1000,
                      register=False),
        pc.scaling("hz.scal", _quad, x=[1, 2, 4, 8], exponent=(1.8, 2.2), budget=20, quick_budget=20,
                   register=False),
    ]
    results = [verify_claim(c, quick=True, executor="serial") for c in claims]
    lines = [r.to_dict() for r in results]
    meta = {"seed": 0, "alpha": 0.01, "quick": True, "elapsed_s": 1.0,
            "provenance": {"package": "theorycheck", "version": "0", "commit": "abc", "dirty": False,
                           "seed": 0, "alpha": 0.01, "level": "99 %", "budgets": "quick", "budget": None,
                           "date": "2026-01-01T00:00:00Z"},
            "claims": {c.id: claim_meta(c) for c in claims},
            "figures": {"fig_a": {"caption": "A figure.", "claims": ["hz.*"], "width": "column"}}}
    return {"lines": lines, "meta": meta, "results": results}


def _rare(rng, n):
    return rng.random(n) < 0.01


def _sq(a):
    return a * a


def _ident(a):
    return a


def _double(a):
    return 2 * a


def _twice(a):
    return a + a


def _below(rng, n):
    return rng.normal(-1.0, 1.0, n)


def _quad(rng, x):
    return x ** 2 * (1.0 + 0.01 * rng.normal())


def _folder(tmp_path, lines, meta, *, png=True) -> Path:
    d = tmp_path / "R"
    (d / "figures").mkdir(parents=True)
    if png:
        (d / "figures" / "fig_a.png").write_bytes(b"\x89PNG\r\n\x1a\nFAKE")
    (d / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    if meta is not None:
        (d / "report.json").write_text(json.dumps(meta), encoding="utf-8")
    return d


def test_the_valid_folder_renders(valid, tmp_path):
    d = _folder(tmp_path, valid["lines"], valid["meta"])
    path = render_report_from(d)
    assert path == d / "report.md" and (d / "report.html").exists()


# ---------------------------------------------------------------------------
# results.jsonl: each mutation of line 2 (or of the line of a given kind) is refused naming
# the file, the line and the field


def _set(field, value, kind=None):
    return ("set", field, value, kind)


def _drop(field, kind=None):
    return ("drop", field, None, kind)


RESULT_CASES = {
    # old: rendered "seed <script>…" unescaped into report.html (XSS)
    "string seed with <script>": (_set("seed", XSS), "seed"),
    "string budget with <script>": (_set("budget", XSS), "budget"),
    "missing verdict": (_drop("verdict"), "verdict"),
    "unknown verdict": (_set("verdict", "maybe"), "verdict"),
    "negative seed": (_set("seed", -1), "seed"),
    "float seed": (_set("seed", 1.5), "seed"),
    "boolean budget": (_set("budget", True), "budget"),
    "alpha 2": (_set("alpha", 2), "alpha"),
    "alpha 0": (_set("alpha", 0), "alpha"),
    "alpha as text": (_set("alpha", "0.01"), "alpha"),
    "alpha nan": (_set("alpha", "nan"), "alpha"),
    "huge integer seed": (_set("seed", 10 ** 70), "seed"),
    "budget 1e400 (inf)": (_set("budget", float("inf")), "budget"),
    "negative elapsed": (_set("elapsed_s", -1.0), "elapsed_s"),
    "infinite elapsed": (_set("elapsed_s", "inf"), "elapsed_s"),
    "unknown role": (_set("role", "boss"), "role"),
    "unknown guarantee": (_set("guarantee", "trust me"), "guarantee"),
    "unknown expected": (_set("expected", "maybe"), "expected"),
    "unknown label": (_set("label", "BELIEVED"), "label"),
    "warnings a string": (_set("warnings", "x"), "warnings"),
    "warnings of numbers": (_set("warnings", [1]), "warnings[0]"),
    "params a string": (_set("params", "x"), "params"),
    "certificate a list": (_set("certificate", [1]), "certificate"),
    "claim id a number": (_set("claim", 5), "claim"),
    "claim id a dict (unhashable)": (_set("claim", {"x": 1}), "claim"),
    "claim id with a space": (_set("claim", "a b"), "claim"),
    "claim id with a newline": (_set("claim", "a\nb"), "claim"),
    "statement a list": (_set("statement", ["x"]), "statement"),
    "unknown kind": (_set("kind", "zzz"), "kind"),
    "missing kind": (_drop("kind"), "kind"),
    "unknown field": (_set("bogus", 1), "bogus"),
    "as_expected inconsistent": (_set("as_expected", False, "probability"), "as_expected"),
    # old: IndexError / KeyError tracebacks
    "ci of one number": (_set("ci", [1], "probability"), "ci"),
    "ci a dict": (_set("ci", {"a": 1}, "probability"), "ci"),
    "ci a string": (_set("ci", "x", "probability"), "ci"),
    "ci reversed": (_set("ci", [0.5, 0.1], "probability"), "ci"),
    "ci of text": (_set("ci", ["a", "b"], "probability"), "ci[0]"),
    "events above trials": (_set("events", 10 ** 9, "probability"), "events"),
    "p_hat above 1": (_set("p_hat", 1.5, "probability"), "p_hat"),
    "missing trials": (_drop("trials", "probability"), "trials"),
    "proved a string": (_set("proved", "yes", "identity"), "proved"),
    "proved a number": (_set("proved", 3, "identity"), "proved"),
    "cases negative": (_set("cases", -3, "identity"), "cases"),
    "worst_ratio text": (_set("worst_ratio", "big", "inequality"), "worst_ratio"),
    "exponent_ci of three": (_set("exponent_ci", [1, 2, 3], "scaling"), "exponent_ci"),
    "x shorter than y_mean": (_set("x", [1.0], "scaling"), "y_mean"),
    "mean_diff a dict": (_set("mean_diff", {"v": 1}, "comparison"), "mean_diff"),
}


def _mutated(lines, op, field, value, kind):
    lines = copy.deepcopy(lines)
    i = 1 if kind is None else next(j for j, d in enumerate(lines) if d["kind"] == kind)
    if op == "set":
        lines[i][field] = value
    else:
        lines[i].pop(field, None)
    return lines, i + 1


def _assert_one_line(msg, *parts):
    assert "\n" not in msg.strip(), msg
    assert "Traceback" not in msg, msg
    for p in parts:
        assert p in msg, f"{p!r} not in {msg!r}"


@pytest.mark.parametrize("case", list(RESULT_CASES))
def test_a_malformed_result_is_refused_naming_file_line_and_field(valid, tmp_path, case):
    (op, field, value, kind), named = RESULT_CASES[case]
    lines, lineno = _mutated(valid["lines"], op, field, value, kind)
    d = _folder(tmp_path, lines, valid["meta"])
    with pytest.raises(ValueError) as exc:
        render_report_from(d)
    _assert_one_line(str(exc.value), str(d / "results.jsonl"), f"line {lineno}", f"field '{named}")
    assert not (d / "report.html").exists() and not (d / "report.md").exists()


@pytest.mark.parametrize("case", ["string seed with <script>", "ci of one number", "proved a string",
                                  "claim id a dict (unhashable)", "alpha as text"])
def test_the_cli_prints_one_line_and_exits_2(valid, tmp_path, capsys, case):
    (op, field, value, kind), named = RESULT_CASES[case]
    lines, lineno = _mutated(valid["lines"], op, field, value, kind)
    d = _folder(tmp_path, lines, valid["meta"])
    assert main(["report", "--from", str(d), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("theorycheck: error: ")
    _assert_one_line(err, "results.jsonl", f"line {lineno}", f"field '{named}")


RAW_LINES = {
    "truncated JSON": (lambda good: good[: len(good) // 2], "not valid JSON"),
    "a number": (lambda good: "5", "must be a JSON object"),
    "null": (lambda good: "null", "must be a JSON object"),
    "a list": (lambda good: "[]", "must be a JSON object"),
    "a 5000-digit integer": (lambda good: good.replace('"seed": 0', '"seed": ' + "9" * 5000), "not valid JSON"),
    "nested 100000 deep": (lambda good: "[" * 100_000 + "]" * 100_000, "line 2"),
    "NUL bytes": (lambda good: "\0" * 10, "not valid JSON"),
}


@pytest.mark.parametrize("case", list(RAW_LINES))
def test_a_line_that_is_not_a_result_object_is_refused_naming_the_line(valid, tmp_path, case):
    make, says = RAW_LINES[case]
    d = _folder(tmp_path, valid["lines"], valid["meta"])
    text = (d / "results.jsonl").read_text(encoding="utf-8").splitlines()
    text[1] = make(text[1])
    (d / "results.jsonl").write_text("\n".join(text) + "\n", encoding="utf-8")
    with pytest.raises(ValueError) as exc:
        render_report_from(d)
    _assert_one_line(str(exc.value), "results.jsonl", "line 2", says)


def test_wrong_encodings_are_refused_naming_line_and_byte(valid, tmp_path):
    d = _folder(tmp_path, valid["lines"], valid["meta"])
    good = (d / "results.jsonl").read_text(encoding="utf-8")
    # Latin-1 bytes on line 3 (old: "'utf-8' codec can't decode byte 0xe9 in position …", no file)
    lines = good.splitlines()
    lines[2] = lines[2].replace('"statement": "', '"statement": "caf\u00e9 ', 1)
    (d / "results.jsonl").write_bytes("\n".join(lines).encode("latin-1", errors="replace") + b"\n")
    with pytest.raises(ValueError) as exc:
        render_report_from(d)
    _assert_one_line(str(exc.value), "results.jsonl", "line 3 is not UTF-8", "0xe9")
    # UTF-16 (a Windows editor's "Unicode")
    (d / "results.jsonl").write_bytes(good.encode("utf-16"))
    with pytest.raises(ValueError) as exc:
        render_report_from(d)
    _assert_one_line(str(exc.value), "results.jsonl", "line 1 is not UTF-8")
    # a UTF-8 BOM is fine
    (d / "results.jsonl").write_bytes(b"\xef\xbb\xbf" + good.encode("utf-8"))
    assert render_report_from(d).exists()


def test_one_claim_twice_is_refused(valid, tmp_path):
    lines = valid["lines"] + [valid["lines"][0]]
    d = _folder(tmp_path, lines, valid["meta"])
    with pytest.raises(ValueError) as exc:
        render_report_from(d)
    _assert_one_line(str(exc.value), f"line {len(lines)}", "field 'claim'", "already given on line 1")


def test_devices_and_huge_files_are_refused_before_reading(valid, tmp_path, capsys, monkeypatch):
    # old: `report --from /dev/zero` read until memory ran out, then "out of memory (try --budget…)"
    assert main(["report", "--from", "/dev/zero", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    _assert_one_line(err, "/dev/zero", "regular file")
    from theorycheck.report import schema

    d = _folder(tmp_path, valid["lines"], valid["meta"])
    monkeypatch.setattr(schema, "MAX_FILE_BYTES", 1000)
    with pytest.raises(ValueError) as exc:
        render_report_from(d)
    _assert_one_line(str(exc.value), "results.jsonl", "MB")


# ---------------------------------------------------------------------------
# report.json


META_CASES = {
    # old: AttributeError: 'str' object has no attribute 'get'
    "provenance a string": (lambda m: m.update(provenance="x"), "provenance"),
    "a figure entry a string": (lambda m: m["figures"].update(fig_a="x"), "figures['fig_a']"),
    "a claims entry a string": (lambda m: m["claims"].update({"hz.prob": "x"}), "claims['hz.prob']"),
    # old: "Unknown format code 'g' for object of type 'str'"
    "alpha as text": (lambda m: m.update(alpha="0.01"), "alpha"),
    "alpha 2": (lambda m: m.update(alpha=2), "alpha"),
    "seed <script>": (lambda m: m.update(seed=XSS), "seed"),
    "quick 'no'": (lambda m: m.update(quick="no"), "quick"),
    "elapsed text": (lambda m: m.update(elapsed_s="x"), "elapsed_s"),
    "commit a number": (lambda m: m["provenance"].update(commit=5), "provenance['commit']"),
    "a source of the wrong shape": (lambda m: m["claims"]["hz.prob"].update(source=["x"]),
                                    "claims['hz.prob']['source']"),
    "paper keys a dict": (lambda m: m["claims"]["hz.prob"].update(source={"papers": {"a": 1}}),
                          "claims['hz.prob']['source']['papers']"),
    "coordinates of numbers": (lambda m: m["claims"]["hz.ineq"].update(coordinates=[1]),
                               "claims['hz.ineq']['coordinates'][0]"),
    "caption a number": (lambda m: m["figures"]["fig_a"].update(caption=5), "figures['fig_a']['caption']"),
    "unknown top-level key": (lambda m: m.update(alhpa=0.01), "alhpa"),
    # old: embedded that local PNG into report.html
    "figure name ../../secret": (lambda m: m["figures"].update({"../../secret": {}}),
                                 "figures['../../secret']"),
    "figure name an absolute path": (lambda m: m["figures"].update({"/tmp/abs_secret": {}}),
                                     "figures['/tmp/abs_secret']"),
    "built figure ..": (lambda m: m.update(built_figures=[".."]), "built_figures[0]"),
}


@pytest.mark.parametrize("case", list(META_CASES))
def test_a_malformed_report_json_is_refused_naming_file_and_field(valid, tmp_path, case):
    edit, named = META_CASES[case]
    meta = copy.deepcopy(valid["meta"])
    edit(meta)
    d = _folder(tmp_path, valid["lines"], meta)
    with pytest.raises(ValueError) as exc:
        render_report_from(d)
    _assert_one_line(str(exc.value), str(d / "report.json"), f"field {named!r}")


@pytest.mark.parametrize("text, says", [("[1, 2]", "must hold a JSON object"),
                                        ('{"seed": 0, "alpha": ', "not valid JSON"),
                                        ("\ufeff{}", None)])
def test_report_json_that_is_not_an_object(valid, tmp_path, text, says):
    d = _folder(tmp_path, valid["lines"], None)
    (d / "report.json").write_text(text, encoding="utf-8")
    if says is None:                          # a BOM: read as UTF-8
        assert render_report_from(d).exists()
        return
    with pytest.raises(ValueError) as exc:
        render_report_from(d)
    _assert_one_line(str(exc.value), "report.json", says)


def _secret(tmp_path) -> Path:
    p = tmp_path / "secret.png"
    p.write_bytes(SECRET)
    return p


def _embeds_secret(folder: Path) -> bool:
    import base64

    page = (folder / "report.html").read_text(encoding="utf-8") if (folder / "report.html").exists() else ""
    return base64.b64encode(SECRET).decode()[:20] in page


def test_a_figure_name_that_climbs_out_is_refused_not_embedded(valid, tmp_path, capsys):
    secret = _secret(tmp_path)
    for name in ("../../secret", str(secret.with_suffix(""))):
        meta = copy.deepcopy(valid["meta"])
        meta["figures"][name] = {"caption": "", "claims": [], "width": None}
        sub = tmp_path / f"case{len(name)}"
        sub.mkdir()
        d = _folder(sub, valid["lines"], meta)
        code = main(["report", "--from", str(d)])
        err = capsys.readouterr().err
        assert code == 2 and not _embeds_secret(d), err
        _assert_one_line(err, "report.json", "plain file name")


def test_a_symbolic_link_out_of_the_figures_folder_is_refused(valid, tmp_path):
    secret = _secret(tmp_path)
    d = _folder(tmp_path, valid["lines"], valid["meta"], png=False)
    (d / "figures" / "fig_a.png").symlink_to(secret)
    with pytest.raises(ValueError) as exc:
        render_report_from(d)
    _assert_one_line(str(exc.value), "fig_a", "outside the figures folder")
    assert not _embeds_secret(d)
    # the figures folder itself a link elsewhere
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "fig_a.png").write_bytes(SECRET)
    (d / "figures" / "fig_a.png").unlink()
    (d / "figures").rmdir()
    (d / "figures").symlink_to(other)
    with pytest.raises(ValueError) as exc:
        render_report_from(d)
    _assert_one_line(str(exc.value), "outside the report folder")


def test_the_document_builder_confines_figures_too(valid, tmp_path):
    """The library path (render_html with a figure_dir) refuses a climbing name as well."""
    secret = _secret(tmp_path)
    figs = tmp_path / "a" / "figures"
    figs.mkdir(parents=True)
    with pytest.raises(ValueError, match="plain file name"):
        render_html(valid["results"], ["../../secret"], figure_dir=figs)
    with pytest.raises(ValueError, match="plain file name"):
        render_html(valid["results"], [str(secret.with_suffix(""))], figure_dir=figs)


# ---------------------------------------------------------------------------
# hostile but valid values render as inert text


class _Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def _tags(page: str):
    p = _Tags()
    p.feed(page)
    return p.tags


def _md_html(text: str) -> str:
    markdown_it = pytest.importorskip("markdown_it")
    return markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table").render(text)


HOSTILE = [XSS, '"><img src=x onerror=alert(1)>', "[click](javascript:alert(1))", "``a`b``|c|",
           "<a href='javascript:alert(1)'>x</a>", "*bold* _it_ \n# heading\n| a | b |", "&lt;script&gt;"]
BAD_ID = 'x"><script>alert(1)</script>'


def _assert_inert(page_tags, allowed_scripts, img_prefix="data:image/png;base64,"):
    scripts = [t for t, _ in page_tags if t == "script"]
    assert len(scripts) == allowed_scripts, scripts
    for tag, attrs in page_tags:
        assert not any(k.lower().startswith("on") for k in attrs), (tag, attrs)
        for k in ("href", "src"):
            assert not str(attrs.get(k, "")).lower().startswith("javascript:"), (tag, attrs)
        src = str(attrs.get("src", ""))
        assert tag != "img" or (src.startswith(img_prefix) and ".." not in src), attrs


def test_hostile_strings_in_valid_fields_render_inert(valid, tmp_path):
    lines = copy.deepcopy(valid["lines"])
    for i, d in enumerate(lines):
        h = HOSTILE[i % len(HOSTILE)]
        d.update(statement=h, source=h, notes=h, warnings=HOSTILE, params={"p": h, h[:3]: 1},
                 label="OPEN")
    lines[0]["claim"] = BAD_ID
    lines[1]["claim"] = "pipe|and`tick`"
    lines[0]["as_expected"] = lines[0]["verdict"] == lines[0]["expected"] if lines[0]["expected"] else None
    meta = copy.deepcopy(valid["meta"])
    meta["claims"] = {}
    meta["provenance"].update(package=XSS, version=HOSTILE[1], note=HOSTILE[2], commit=HOSTILE[4])
    meta["figures"]["fig_a"]["caption"] = HOSTILE[1] + HOSTILE[2]
    d = _folder(tmp_path, lines, meta)
    render_report_from(d)
    page = (d / "report.html").read_text(encoding="utf-8")
    _assert_inert(_tags(page), allowed_scripts=1)          # the page's own table script only
    md_page = _md_html((d / "report.md").read_text(encoding="utf-8"))
    _assert_inert(_tags(md_page), allowed_scripts=0, img_prefix="figures/")
    # the claim's anchor and every link to it agree (escaping did not break navigation)
    assert f'id="claim-{BAD_ID}"' in page.replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")


def test_report_html_escapes_seed_and_budget(valid):
    """The summary of findings interpolated ``seed`` and ``budget`` raw (old: a string seed put
    a live ``<script>`` into report.html)."""
    # a contradicted claim: listed in the summary of findings, with its seed and budget
    r = dataclasses.replace(valid["results"][2], seed=XSS, budget='<img src=x onerror="alert(2)">',
                            expected="holds")
    page = render_html([r], [], seed=0, alpha=0.01)
    _assert_inert(_tags(page), allowed_scripts=1)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_report_md_escapes_every_interpolated_value(valid):
    """report.md wrote claim ids into raw ``<a id="…">`` tags and verdict, label, role, kind,
    seed and budget unescaped (old: an id ``x"><script>…`` or a string seed gave live HTML)."""
    base = valid["results"][2]
    rs = [dataclasses.replace(base, claim=BAD_ID, seed=XSS, budget=XSS, verdict="refuted", expected="holds"),
          dataclasses.replace(valid["results"][0], claim="pipe|id`x`")]
    text = render_markdown(rs, [], seed=0, alpha=0.01)
    _assert_inert(_tags(_md_html(text)), allowed_scripts=0, img_prefix="figures/")
    # every table keeps its columns (a '|' in an id does not split a cell)
    rendered = _md_html(text)
    tables = re.findall(r"<table>(.*?)</table>", rendered, re.S)
    assert len(tables) >= 2
    for table in tables:
        width = len(re.findall(r"<th[ >]", table))
        for row in re.findall(r"<tr>(.*?)</tr>", table, re.S):
            if "<td" in row:
                assert len(re.findall(r"<td[ >]", row)) == width, row
