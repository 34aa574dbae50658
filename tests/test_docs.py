"""The documentation holds together: every relative link in ``README.md``,
``CHANGELOG.md`` and ``docs/**/*.md`` points at a file of the repository (and,
for a Markdown page, at an anchor it has), nothing names the old ``docs/notes/``
folder, and the documentation site builds with warnings as errors
(``mkdocs build --strict``; skipped when MkDocs is not installed,
``pip install ".[docs]"``).

The link check is what keeps a moved page (the closing notes moved from
``docs/notes/`` to ``docs/history/``) from leaving a dangling link on GitHub,
where the pages are read as files.
"""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The site's hook (a fixed path: tests that plant a tree under another ROOT still read it).
_HOOK = ROOT / "docs" / "_hooks" / "site.py"


def site_hook():
    """The site's MkDocs hook module (docs/_hooks/site.py), loaded by path (it needs no MkDocs to load)."""
    spec = importlib.util.spec_from_file_location("docs_site_hook", _HOOK)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def generated_pages() -> set[str]:
    """Pages (paths under docs/) the hook generates at build time: the README's guides."""
    return set(site_hook().GUIDES)


def doc_files() -> list[Path]:
    """The Markdown files whose links are checked."""
    files = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [f for f in files if f.is_file()]


_FENCE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$", re.S | re.M)
_CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
_MD_LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HTML_LINK = re.compile(r"""\b(?:href|src)\s*=\s*["']([^"']+)["']""")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def prose(text: str) -> str:
    """``text`` without fenced code blocks and inline code spans (links shown as
    code are examples, not links); a code span inside a link's text leaves the link."""
    text = _FENCE.sub("", text)
    return _CODE_SPAN.sub("", text)


def links_in(text: str) -> list[str]:
    """Every link target of Markdown links, images and HTML ``href``/``src`` in the prose."""
    body = prose(text)
    return [m.group(1) for m in _MD_LINK.finditer(body)] + [m.group(1) for m in _HTML_LINK.finditer(body)]


def slug(heading: str) -> str:
    """The anchor GitHub (and MkDocs' ``toc``) gives a heading, for plain headings."""
    text = re.sub(r"<[^>]+>", "", heading)
    text = re.sub(r"[`*_\[\]()]", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors_of(path: Path) -> set[str]:
    """Anchors of a Markdown page: explicit ``id="…"`` attributes and heading slugs."""
    text = path.read_text(encoding="utf-8")
    ids = set(re.findall(r"""\bid\s*=\s*["']([^"']+)["']""", text))
    ids |= {slug(h) for h in re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", _FENCE.sub("", text), re.M)}
    return ids


def broken_links(path: Path) -> list[str]:
    """Relative links of ``path`` that do not resolve, as ``file: link (why)``."""
    bad = []
    rel = path.relative_to(ROOT)
    for target in links_in(path.read_text(encoding="utf-8")):
        if _SCHEME.match(target) or target.startswith("//"):
            continue                                   # http(s), mailto, data: …
        where, _, anchor = unquote(target).partition("#")
        where = where.split("?", 1)[0]
        dest = (path.parent / where).resolve() if where else path
        if where.startswith("/"):
            bad.append(f"{rel}: {target} (absolute path; use a relative link)")
            continue
        try:
            dest.relative_to(ROOT)
        except ValueError:
            bad.append(f"{rel}: {target} (points outside the repository)")
            continue
        generated = dest.is_relative_to(ROOT / "docs") and \
            str(dest.relative_to(ROOT / "docs")) in generated_pages()
        if not dest.exists() and not generated:
            bad.append(f"{rel}: {target} (no such file)")
        elif anchor and dest.suffix == ".md" and anchor not in anchors_of(dest):
            bad.append(f"{rel}: {target} (no anchor #{anchor} in {dest.relative_to(ROOT)})")
    return bad


def test_the_link_checker_sees_links_and_skips_code():
    text = ("See [the map](docs/architecture.md), ![fig](a.png) and <a href=\"b.md#x\">b</a>.\n"
            "Not `[code](c.md)`; [`shown`](d.md#y).\n```\n[fenced](e.md)\n```\n")
    assert links_in(text) == ["docs/architecture.md", "a.png", "d.md#y", "b.md#x"]
    assert slug("5. Results, guarantees, warnings and fingerprints") == \
        "5-results-guarantees-warnings-and-fingerprints"


def test_a_planted_broken_link_is_caught(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text('<a id="here"></a>\n# Title\n', encoding="utf-8")
    page = tmp_path / "docs" / "b.md"
    page.write_text("[ok](a.md#here) [ok](a.md#title) [gone](notes/x.md) [bad](a.md#nowhere)\n",
                    encoding="utf-8")
    assert broken_links(page) == ["docs/b.md: notes/x.md (no such file)",
                                  "docs/b.md: a.md#nowhere (no anchor #nowhere in docs/a.md)"]


def test_every_relative_link_resolves():
    bad = [b for f in doc_files() for b in broken_links(f)]
    assert not bad, "broken links in the documentation:\n" + "\n".join(bad)


def test_no_page_names_the_old_notes_folder():
    """The closing notes live in docs/history/ (docs/notes/ is gone)."""
    old = [f"{f.relative_to(ROOT)}:{i}" for f in doc_files()
           for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1) if "docs/notes" in line]
    assert not old, "pages that still name docs/notes/ (now docs/history/):\n" + "\n".join(old)


def test_every_docs_page_is_in_the_site_navigation():
    """A page missing from mkdocs.yml's nav would be built but unreachable."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\s*-\s+(?:[^:\n]+:\s+)?([\w./-]+\.md)\s*$", config, re.M))
    pages = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")} | generated_pages()
    assert pages - listed == set(), f"pages not in mkdocs.yml nav: {sorted(pages - listed)}"
    assert listed - pages == set(), f"nav entries without a page: {sorted(listed - pages)}"


@pytest.mark.skipif(any(importlib.util.find_spec(m) is None
                        for m in ("mkdocs", "material", "mkdocstrings_handlers", "griffe_sphinx")),
                    reason='the documentation tools are not installed (pip install ".[docs]")')
@pytest.mark.slow        # 13 s; .ci/run also builds the site with --strict after the default run
def test_the_site_builds_with_warnings_as_errors(tmp_path):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"mkdocs build --strict failed:\n{run.stdout}\n{run.stderr}"
    site = tmp_path / "site"
    for page in ("index.html", "theory/engine.html", "architecture.html", "claims.html", "api/engine.html",
                 "guides/own-bound.html", "guides/pytest.html"):
        assert (site / page).is_file(), f"{page} was not built"
    # mathematics: arithmatex's markup, and KaTeX served by the site itself (no CDN)
    index = (site / "index.html").read_text(encoding="utf-8")
    assert 'class="arithmatex"' in index
    for asset in ("javascripts/katex/katex.min.js", "javascripts/katex/auto-render.min.js",
                  "javascripts/katex/katex.min.css", "javascripts/katex/fonts/KaTeX_Main-Regular.woff2",
                  "javascripts/katex-init.js"):
        assert (site / asset).is_file(), f"{asset} is not in the site"
    remote = re.findall(r"""<(?:script|link)[^>]+(?:src|href)=["'](?:https?:)?//[^"']+""", index)
    assert remote == [], f"the page loads assets from elsewhere: {remote}"
    # the guarantee table generated from the code, every kind once
    from proofs_check.engine.results import GUARANTEES
    for kind in GUARANTEES:
        assert index.count(f"<code>{kind}</code></td>") == 1, kind


def test_the_guarantee_table_is_generated_from_the_code():
    """docs/index.md holds the marker, not a hand-typed table; the hook's table has one row per
    kind of GUARANTEES with its words (a kind added to the code appears on the site)."""
    from proofs_check.engine.results import GUARANTEES
    hook = site_hook()
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert hook.MARKER in index
    assert not re.search(r"^\|\s*`(?:%s)`" % "|".join(map(re.escape, GUARANTEES)), index, re.M), \
        "docs/index.md types a guarantee row by hand"
    table = hook.guarantees_table()
    rows = [ln for ln in table.splitlines() if ln.startswith("| `")]
    assert [r.split("`")[1] for r in rows] == list(GUARANTEES)
    for kind, text in GUARANTEES.items():
        assert text.split(":", 1)[1].strip().replace("|", "∣") in table, kind


def test_the_readme_guides_become_site_pages():
    hook = site_hook()
    for path, (title, parts) in hook.GUIDES.items():
        md = hook.guide_page(path)
        assert md.startswith(f"# {title}\n")
        assert "](docs/" not in md, f"{path}: a README link into docs/ was not rewritten"
    own = hook.guide_page("guides/own-bound.md")
    assert "tc.inequality(" in own and "](../theory/engine.md)" in own
    assert "**Gate CI on a verdict.**" in hook.guide_page("guides/pytest.md")
    # links: docs/ → the site's page; another file of the repository → its text only
    assert hook.site_links("[a](docs/x.md) [b](examples/y.py) [c](https://e.org)", 1) == \
        "[a](../x.md) b [c](https://e.org)\n"


def test_a_guide_whose_readme_section_is_gone_stops_the_build():
    hook = site_hook()
    with pytest.raises(ValueError, match="no line starting with '## Nowhere'"):
        hook.readme_section("# t\n## Here\ntext\n", "## Nowhere", "h2")
    assert hook.readme_section("## A\none\n```\n## not a heading\n```\n## B\n", "## A", "h2") == \
        "## A\none\n```\n## not a heading\n```\n"


def test_the_readme_guarantee_table_is_the_code_s():
    """README's table of guarantees is generated (``guarantees_markdown``) — the same rows as the
    docs site's and the same promise texts as the report's legend; a hand edit of either side
    fails here.  Regenerate: replace the block between the markers with ``guarantees_markdown()``."""
    from pathlib import Path

    from proofs_check.engine.results import GUARANTEES, guarantees_markdown

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    start, end = "<!-- guarantees:start -->\n", "<!-- guarantees:end -->"
    assert start in text and end in text, "README.md lost its guarantee-table markers"
    block = text[text.index(start) + len(start):text.index(end)]
    assert block == guarantees_markdown()
    assert all(f"| `{g}` |" in block for g in GUARANTEES)
