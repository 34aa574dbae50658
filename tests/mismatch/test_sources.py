"""Every ``mismatch.*`` claim has a structured source that resolves, and the theory page names it."""
import re
from pathlib import Path

import pytest

from proofs_check.engine import Source, claims
from proofs_check.papers import PAPERS

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "theory" / "mismatch.md"


def _mine():
    return claims("mismatch")


def test_sources_are_structured_and_resolve():
    text = PAGE.read_text(encoding="utf-8")
    for c in _mine():
        s = c.source
        assert isinstance(s, Source), c.id
        assert all(k in PAPERS for k in s.papers), (c.id, s.papers)
        page, anchor = s.theory.split("#")
        assert page == "mismatch.md", c.id
        assert f'<a id="{anchor}"></a>' in text, (c.id, anchor)


def test_own_derivations_cite_no_paper():
    """DERIVED and OPEN statements are ours: no paper key (the misattribution of issue 10);
    CONFIRMED ones name the work they were read in."""
    for c in _mine():
        if c.label in ("DERIVED", "OPEN"):
            assert c.source.papers == () and c.source.note.startswith("our"), (c.id, c.source)
        else:
            assert c.source.papers, c.id


def test_theory_page_names_every_claim():
    text = PAGE.read_text(encoding="utf-8")
    for c in _mine():
        if c.id.startswith("mismatch.bound."):
            assert "mismatch.bound.<key>.<generator>" in text
        else:
            assert f"`{c.id}`" in text, c.id


def test_every_section_has_a_label():
    text = PAGE.read_text(encoding="utf-8")
    sections = re.split(r'<a id="[^"]+"></a>', text)[1:]
    assert len(sections) >= 8
    for sec in sections:
        assert re.search(r"\*\*(CONFIRMED|DERIVED|OPEN)\.?\*\*", sec), sec[:60]


@pytest.mark.parametrize("ascii_", ["<=", ">=", "sqrt", "eps", "delta", "->"])
def test_statements_are_unicode(ascii_):
    # a word is matched as a word ("eps" for ε, not inside "steps" or "keeps")
    pattern = re.compile(rf"\b{ascii_}\b" if ascii_.isalpha() else re.escape(ascii_))
    for c in _mine():
        assert not pattern.search(c.statement), (c.id, c.statement)
