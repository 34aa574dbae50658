"""MkDocs hooks of the documentation site (``mkdocs.yml``: ``hooks:``), so that nothing the site
shows twice is typed twice:

* the marker ``<!-- guarantees -->`` in a page is replaced by the table of the guarantee kinds,
  generated from :data:`proofs_check.engine.results.GUARANTEES` (the one list the CLI, the
  report and the README read; the definitions are on ``docs/theory/engine.md``);
* the guides that live in ``README.md`` are pages of the site: :data:`GUIDES` maps a site path to
  the README section it shows (from its heading, or from a bold paragraph lead, to the next
  ``## `` heading or the next bold paragraph lead).  Links into ``docs/`` are rewritten to the site's
  pages; links to other files of the repository keep their text only (the site does not hold
  them).  A section that is not found stops the build with the heading it looked for.
"""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Site path → (title, [(start marker, stop rule), ...]) of the README sections it shows.
#: A start marker is a line of README.md (a heading, or a paragraph's bold lead); the section runs
#: to the next ``## `` heading ("h2") or also to the next bold paragraph lead ("lead").
GUIDES = {
    "guides/own-bound.md": ("Check your own bound", [("## Check your own bound", "h2")]),
    "guides/pytest.md": ("Tests and CI: the pytest plugin and Hypothesis", [
        ("**Gate CI on a verdict.**", "h2"),
        ("**Property-test an inequality of your own.**", "h2"),
    ]),
}

MARKER = "<!-- guarantees -->"
_LEAD = re.compile(r"^\*\*[^*]+\.\*\*")
_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\(\s*<?([^)\s>]+)>?\s*\)")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


def guarantees_table() -> str:
    """The one table of guarantees, generated from the code
    (:func:`proofs_check.engine.results.guarantees_markdown`, the README's table too)."""
    from proofs_check.engine.results import guarantees_markdown
    return guarantees_markdown()


def readme_section(text: str, start: str, stop: str) -> str:
    """The lines of ``text`` from the line starting with ``start`` up to (not including) the next
    ``## `` heading outside code fences (and, for ``stop == "lead"``, the next bold paragraph
    lead); ``ValueError`` naming ``start`` when no line starts with it."""
    lines = text.splitlines()
    try:
        i = next(k for k, ln in enumerate(lines) if ln.startswith(start))
    except StopIteration:
        raise ValueError(f"docs hook: README.md has no line starting with {start!r}; update GUIDES in "
                         f"docs/_hooks/site.py") from None
    out, fenced = [lines[i]], False
    for ln in lines[i + 1:]:
        if _FENCE.match(ln):
            fenced = not fenced
        elif not fenced and (ln.startswith("## ") or ln.startswith("# ") or
                             (stop == "lead" and _LEAD.match(ln)) or
                             (stop == "h2" and start.startswith("**") and _LEAD.match(ln))):
            break
        out.append(ln)
    return "\n".join(out).rstrip() + "\n"


def site_links(md: str, depth: int) -> str:
    """README links made to work from a page ``depth`` folders below ``docs/``: ``docs/X`` becomes
    ``../``·depth + ``X``; another relative target (a file outside ``docs/``) keeps its text only."""
    up = "../" * depth

    def fix(m):
        bang, label, target = m.groups()
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^#", target):
            return m.group(0)
        if target.startswith("docs/"):
            return f"{bang}[{label}]({up}{target[len('docs/'):]})"
        return label
    out, fenced = [], False
    for ln in md.splitlines():
        if _FENCE.match(ln):
            fenced = not fenced
        out.append(ln if fenced else _LINK.sub(fix, ln))
    return "\n".join(out) + "\n"


def guide_page(path: str) -> str:
    """The Markdown of the generated guide ``path`` (a key of :data:`GUIDES`)."""
    title, parts = GUIDES[path]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    body = [f"# {title}\n",
            "*This page is generated from the repository's README.md at build time (one text, two "
            "places).*\n"]
    for start, stop in parts:
        sec = readme_section(readme, start, stop)
        if sec.startswith("## "):
            sec = sec.split("\n", 1)[1]
        body.append(sec)
    return site_links("\n".join(body), path.count("/"))


def on_files(files, config):
    from mkdocs.structure.files import File
    for path in GUIDES:
        files.append(File.generated(config, path, content=guide_page(path)))
    return files


def on_page_markdown(markdown, page, config, files):
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, guarantees_table())
    return markdown
