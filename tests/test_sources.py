"""Every claim's source resolves: paper keys to the paper registry (with a URL),
theory pointers to an anchor in ``docs/theory/``; each topic passes the
conformance kit's static checks (:mod:`theorycheck.testing`: ids under the
entry-point name, structured sources that resolve, controls with an expected
verdict, picklable functions, figure patterns that match); theory pages name
only registered claims; and the generated claims catalogue ``docs/claims.md``
is up to date.  The topics are read from the ``theorycheck.claims`` entry points."""
import re
from pathlib import Path

import pytest

import proofs_check as pc
from proofs_check.engine import Source, registry, replace
from proofs_check.papers import PAPERS
from tests.test_layering import topic_entry_points
from theorycheck.catalogue import CATALOGUE, render_catalogue
from theorycheck.testing import check_claims_module, source_problems

ROOT = Path(__file__).resolve().parents[1]
THEORY = ROOT / "docs" / "theory"
#: entry-point name (the id prefix) -> claims module, for this distribution's topics
TOPIC_MODULES = topic_entry_points()


@pytest.mark.parametrize("topic", sorted(TOPIC_MODULES))
def test_topic_passes_the_conformance_kit(topic):
    """Everything but running the claims (tests/test_expected_verdicts.py runs them)."""
    check_claims_module(TOPIC_MODULES[topic], verdicts=False, theory_dir=THEORY, structured_sources=True)


def test_each_entry_point_name_is_the_id_prefix_of_its_claims():
    pc.claims()
    wrong = {name: [c.id for c in registry.claims_registered_by(module) if c.topic != name]
             for name, module in TOPIC_MODULES.items()}
    assert not any(wrong.values()), f"ids not under their entry-point name: {wrong}"
    empty = [name for name, module in TOPIC_MODULES.items() if not registry.claims_registered_by(module)]
    assert not empty, f"entry points whose module registers no claim: {empty}"


def test_every_claim_comes_from_a_topic_module():
    """So the per-topic checks above see every claim."""
    ours = {c.id for m in TOPIC_MODULES.values() for c in registry.claims_registered_by(m)}
    stray = [c.id for c in pc.claims() if c.id not in ours]
    assert not stray, f"claims registered outside the topics' claims modules: {stray}"


def test_every_source_pointer_resolves():
    bad = source_problems(pc.claims(), theory_dir=THEORY, structured=True)
    assert not bad, "\n".join(bad)


def test_a_planted_bad_source_is_caught():
    c = registry.get_claim("selftest.dg_tail")
    src = c.source
    assert source_problems([c], theory_dir=THEORY, structured=True) == []
    page = src.theory.split("#")[0]
    for bad, words in [(Source(papers=("no_such_paper",), theory=src.theory), "unknown paper"),
                       (Source(papers=src.papers, theory=f"{page}#no-such-anchor"), "no anchor"),
                       (Source(papers=src.papers, theory="no_such_page.md#x"), "does not exist"),
                       (Source(papers=src.papers, theory=src.theory, note="see spec verification.md"), "spec"),
                       ("a free-text source", "free-text")]:
        found = source_problems([replace(c, source=bad)], theory_dir=THEORY, structured=True)
        assert len(found) == 1 and words in found[0], (bad, found)


def test_every_paper_has_a_url():
    assert all(p.url.startswith("https://") for p in PAPERS.values())


def claim_ids_named(text: str, prefixes) -> list[str]:
    """The back-quoted claim ids under ``prefixes`` (the topics' entry-point names) in ``text``."""
    alternatives = "|".join(re.escape(p) for p in sorted(prefixes))
    return re.findall(rf"`((?:{alternatives})\.[\w.]+)`", text)


def test_theory_pages_name_only_registered_claims():
    ids = {c.id for c in pc.claims()}
    unknown = []
    for page in THEORY.glob("*.md"):
        for cid in claim_ids_named(page.read_text(encoding="utf-8"), TOPIC_MODULES):
            if cid not in ids and not any(i.startswith(cid + ".") for i in ids):
                unknown.append(f"{page.name}: {cid}")
    assert not unknown, unknown


def test_a_new_topic_s_ids_on_theory_pages_are_checked():
    """The id pattern follows the entry points: every topic's ids are read, and a
    planted unknown id of any topic would be reported."""
    for name in TOPIC_MODULES:
        assert claim_ids_named(f"see `{name}.no_such.claim` here", TOPIC_MODULES) == [f"{name}.no_such.claim"]
    assert claim_ids_named("`numpy.linalg.norm`", TOPIC_MODULES) == []


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
