"""Every claim's source resolves: paper keys to the paper registry (with a URL),
theory pointers to an anchor in ``docs/theory/``; and the generated claims
catalogue ``docs/claims.md`` is up to date."""
import re
from pathlib import Path


import proofs_check as pc
from theorycheck.catalogue import CATALOGUE, render_catalogue
from proofs_check.engine import Source
from proofs_check.papers import PAPERS

ROOT = Path(__file__).resolve().parents[1]
THEORY = ROOT / "docs" / "theory"


def _anchors(page: str) -> set[str]:
    path = THEORY / page
    if not path.exists():
        return set()
    return set(re.findall(r'<a id="([^"]+)"></a>', path.read_text(encoding="utf-8")))


def test_every_claim_has_a_structured_source():
    plain = [c.id for c in pc.claims() if not isinstance(c.source, Source)]
    assert not plain, f"{len(plain)} claims with a free-text source: {plain[:10]}"


def test_every_source_pointer_resolves():
    bad = []
    for c in pc.claims():
        src = c.source
        if not isinstance(src, Source):
            continue
        bad += [f"{c.id}: unknown paper {k!r}" for k in src.papers if k not in PAPERS]
        if src.theory:
            page, anchor = src.theory.split("#", 1)
            if anchor not in _anchors(page):
                bad.append(f"{c.id}: no anchor {anchor!r} in docs/theory/{page}")
        if "spec " in src.note or "spec " in src.where:
            bad.append(f"{c.id}: points to a spec page outside the repository ({src.note or src.where})")
    assert not bad, "\n".join(bad)


def test_every_paper_has_a_url():
    assert all(p.url.startswith("https://") for p in PAPERS.values())


def test_theory_pages_name_only_registered_claims():
    ids = {c.id for c in pc.claims()}
    unknown = []
    for page in THEORY.glob("*.md"):
        for cid in re.findall(r"`((?:selftest|seqproj|ensemble|mismatch|baselines)\.[\w.]+)`", page.read_text()):
            if cid not in ids and not any(i.startswith(cid + ".") for i in ids):
                unknown.append(f"{page.name}: {cid}")
    assert not unknown, unknown


def test_the_claims_catalogue_is_up_to_date():
    text = render_catalogue(pc.claims())
    on_disk = (ROOT / CATALOGUE).read_text(encoding="utf-8") if (ROOT / CATALOGUE).exists() else ""
    assert on_disk == text, "docs/claims.md is stale: run `python -m theorycheck.catalogue`"


def test_list_paper_selects_the_claims_that_cite_it(capsys):
    from theorycheck.cli import main
    import json
    assert main(["list", "--paper", "trm", "--json"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert rows and all("trm" in r["source_ref"]["papers"] for r in rows)
    assert len(rows) == sum("trm" in c.papers for c in pc.claims())
