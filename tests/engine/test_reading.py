"""The vocabulary of readings: one function, checked against the tables of docs/theory/engine.md.

The three tables of ``docs/theory/engine.md`` §5 ("Readings") are parsed from the page and
applied by a small matcher written here, independently of ``proofs_check/engine/reading.py``;
every combination origin × role × label × source read × expected × verdict × guarantee must
give the same words, family and group in both.  So the page and the code cannot drift.
"""
from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import re
from pathlib import Path

import pytest

from proofs_check.engine.claims import LABELS, ROLES
from proofs_check.engine.reading import (GROUPS, ORIGINS, SOURCE_STATES, claim_origin_kind, reading, reading_of,
                                         source_state, weakest)
from proofs_check.engine.results import GUARANTEES, VERDICTS, counted, fmt_against
from proofs_check.engine.source import Source

DOC = Path(__file__).resolve().parents[2] / "docs" / "theory" / "engine.md"


def _section() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index('<a id="readings"></a>')
    return text[start:text.index("<a id=", start + 10)]


@functools.lru_cache(maxsize=None)
def _table(header: str) -> list[list[str]]:
    """The rows of the table of the readings section whose header line starts with ``header``."""
    lines = _section().splitlines()
    (i,) = [k for k, line in enumerate(lines) if line.startswith(header)]
    rows = []
    for line in lines[i + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows.append([("" if c == "(none)" else c[1:-1] if c.startswith("`") and c.endswith("`") else c)
                     for c in cells])
    assert rows, f"no rows under {header!r} in {DOC}"
    return rows


def _first(rows, values):
    """The first row whose leading cells match ``values`` (``*`` any; a comma list: any of them)."""
    for row in rows:
        if all(c == "*" or v in c.split(",") for c, v in zip(row, values)):
            return row
    raise AssertionError(f"no row of the page matches {values}")


def _words_from_page(origin, role, label, source, expected, verdict, guarantee, *, n, unit, level):
    subjects = _table("| origin | role | label | source read | expected | subject |")
    statuses = _table("| verdict | guarantee | family |")
    suffixes = _table("| role | expected | family | suffix |")
    subject = _first(subjects, (origin, role, label, source, expected or "none"))[5]
    st = _first(statuses, (verdict, guarantee))
    family, status = st[2], (st[3] if role == "statement" else st[4])
    if n == 1 and unit.endswith("s"):
        unit = unit[:-1]
    status = status.format(n=n, unit=unit, level=level)
    state = "none" if expected is None else ("same" if expected == verdict else "other")
    suffix = _first(suffixes, (role, state, family))[3].format(expected=expected)
    group = role if role in ("measurement", "control") else family
    return f"{subject}: {status}{suffix}", family, group


def test_every_combination_reads_as_the_page_says():
    combos = list(itertools.product(ORIGINS, ROLES, LABELS, SOURCE_STATES, (None, "holds", "refuted"),
                                    VERDICTS, tuple(GUARANTEES)))
    assert len(combos) == 2 * 3 * 4 * 3 * 3 * 3 * 7 == 4536
    for origin, role, label, source, expected, verdict, guarantee in combos:
        r = reading(role, label, source, verdict, guarantee, origin=origin, expected=expected, n=400,
                    unit="evaluations", level="99 %")
        words, family, group = _words_from_page(origin, role, label, source, expected, verdict, guarantee,
                                                n=400, unit="evaluations", level="99 %")
        where = (origin, role, label, source, expected, verdict, guarantee)
        assert r.words == words, where
        assert (r.family, r.group) == (family, group), where
        assert r.settled == (family in ("confirmed", "refuted")), where


def test_group_titles_are_the_pages():
    assert {k: v for k, v in _table("| group | title |")} == GROUPS
    assert [k for k, _ in _table("| group | title |")] == list(GROUPS)


def test_words_no_stronger_than_the_evidence():
    """The rules the issue states, read off the function's output."""
    for role, label, source, verdict, guarantee, origin in itertools.product(
            ROLES, LABELS, SOURCE_STATES, VERDICTS, tuple(GUARANTEES), ORIGINS):
        r = reading(role, label, source, verdict, guarantee, origin=origin, n=7)
        if "paper statement" in r.words:
            assert (origin, role, label, source) == ("project", "statement", "CONFIRMED", "read")
        if r.status.startswith("confirmed"):
            assert verdict == "holds" and guarantee in ("exact", "anytime-valid")
        if guarantee in ("asymptotic", "estimate") and verdict != "inconclusive":
            assert "indicated, not settled" in r.status and not r.settled
        if guarantee == "search" and verdict == "holds":
            assert r.status == "no counterexample in 7 evaluations (not a proof)" and not r.settled
        if origin == "user" and role == "statement":
            assert r.subject == "your claim"
    assert reading("statement", "DERIVED", "none", "holds", "exact").subject == "our derivation"
    assert reading("statement", "CONFIRMED", "cited", "holds", "exact").subject == "reconstructed from the paper"
    assert reading("statement", "OPEN", "read", "refuted", "exact").words == \
        "our open question: refuted (exact at 99 %)"
    assert reading("statement", "CONFIRMED", "read", "holds", "search", n=1).status == \
        "no counterexample in 1 evaluation (not a proof)"


def test_source_read_is_where_not_the_note():
    assert source_state(Source(papers=("otb",), where="Thm 2")) == "read"
    assert source_state(Source(papers=("otb",), note="the statement was read")) == "cited"
    assert source_state(Source(theory="engine.md#readings")) == "none"
    assert source_state({"papers": ["otb"], "where": " "}) == "cited"
    assert source_state({"text": "otb Thm 2; a note"}) == "cited"          # unknown structure: never "read"
    assert source_state({"text": "our derivation; theory x.md#y"}) == "none"


@pytest.mark.slow
def test_the_reviewers_claims_read_as_what_they_are():
    """The two OTB claims whose note says the theorem statement was not read are not paper
    statements; a search verdict is not 'confirmed'; the registry tells project from user claims."""
    from proofs_check.engine import get_claim

    for cid in ("baselines.variance.shared.otb_le_global_bstar", "baselines.variance.shared.otb_le_mean"):
        c = get_claim(cid)
        r = reading(c.role, c.label, source_state(c.source), "refuted", "anytime-valid",
                    origin=claim_origin_kind(cid), expected=c.expected)
        assert "paper statement" not in r.words and r.subject == "our open question", r.words
        assert claim_origin_kind(cid) == "project"
    assert claim_origin_kind("no.such.claim") is None


@pytest.mark.slow
def test_a_users_claim_reads_as_yours(tmp_path, monkeypatch):
    from proofs_check.engine.registry import load_user_claims

    f = tmp_path / "claims_h4_reading.py"
    f.write_text("import theorycheck as tc\n"
                 "def lhs(x):\n    return 0.0\n"
                 "def rhs(x):\n    return x * x\n"
                 "tc.inequality('h4reading.square', lhs, rhs, domain=tc.Box(x=(-1, 1)),\n"
                 "              source=tc.Source(papers=('otb',), where='Thm 1'))\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    (c,) = load_user_claims(str(f))
    assert claim_origin_kind(c.id) == "user"
    r = reading(c.role, c.label, source_state(c.source), "holds", "proved", origin="user")
    assert r.words == "your claim: proved"


def test_weakest_reads_by_the_lowest_guarantee_then_budget():
    @dataclasses.dataclass
    class R:
        claim: str
        guarantee: str
        budget: int

    rs = [R("a", "exact", 10), R("b", "search", 400), R("c", "search", 100), R("d", "proved", 1)]
    assert weakest(rs).claim == "c"
    assert weakest([R("a", "exact", 10), R("e", "estimate", 5000)]).claim == "e"
    assert weakest([]) is None


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="role"):
        reading("theorem", "CONFIRMED", "read", "holds", "exact")
    with pytest.raises(ValueError, match="source_read"):
        reading("statement", "CONFIRMED", "yes", "holds", "exact")
    with pytest.raises(ValueError, match="guarantee"):
        reading("statement", "CONFIRMED", "read", "holds", "")
    with pytest.raises(ValueError, match="n must be"):
        reading("statement", "CONFIRMED", "read", "holds", "search")
    with pytest.raises(TypeError, match="label"):
        reading("statement", 3, "read", "holds", "exact")
    assert reading("statement", "CONFIRMED", "read", "inconclusive", "").family == "unsettled"


def test_a_ratio_is_never_rounded_onto_its_bound():
    assert fmt_against(0.49999555, 0.5) == "0.499996"
    assert float(fmt_against(0.49999555, 0.5)) < 0.5
    assert fmt_against(0.5000001, 0.5) == "0.5000001"
    assert fmt_against(0.3, 0.5) == "0.3" and fmt_against(0.5, 0.5) == "0.5"
    # a computed bound prints with the same digits, so the pair keeps its order
    v, b = 0.52723, 0.52724
    assert float(fmt_against(v, b)) < float(fmt_against(b, v))
    for v in (1 - 1e-12, 1 + 1e-12, 0.999999, 12.34567891):
        assert (float(fmt_against(v, 1.0)) - 1.0) * (v - 1.0) > 0
    assert fmt_against(math.inf, 1) == "∞"
    with pytest.raises(ValueError, match="digits"):
        fmt_against(0.1, 0.2, digits=0)


def test_counts_agree_with_their_noun():
    assert counted(1, "box", "boxes") == "1 box" and counted(3, "box", "boxes") == "3 boxes"
    assert counted(0, "evaluation") == "0 evaluations"
    with pytest.raises(TypeError, match="n must be an int"):
        counted(1.0, "box")


def test_reading_of_a_result_uses_its_budget_and_unit():
    import proofs_check as pc

    r = pc.verify("selftest.dg_tail", quick=True)
    rd = reading_of(r)
    assert rd.words.startswith(rd.subject + ": ") and rd.family in ("confirmed", "refuted", "unsettled")


def test_the_command_line_prints_the_same_words():
    """cli_format's cells: the reading of reading_of(), the certificate of a proved claim instead
    of its search line, a positive margin beside "holds" explained, counts per family."""
    from proofs_check.engine.kinds.inequality import InequalityResult
    from theorycheck.cli_format import evidence_cell, reading_cell, reading_summary

    base = dict(claim="t.cli", kind="inequality", verdict="holds", statement="lhs ≤ rhs", source="t",
                label="CONFIRMED", seed=0, alpha=0.01, budget=400, chunks=1, elapsed_s=0.1, params={},
                guarantee="search", evaluations=400, worst_ratio=math.nan, worst_lhs=1e-37, worst_rhs=1e-37,
                worst_point={"x": 0.5}, nonfinite=0, confirmed_by="float64", worst_margin=7.961e-52)
    searched = InequalityResult(**base)
    assert reading_cell(searched) == ("reconstructed from the paper: no counterexample in 400 evaluations "
                                      "(not a proof)")
    assert "(margin at rounding level)" in evidence_cell(searched)
    cert = {"status": "proved", "method": "ball arithmetic", "boxes": 1, "seconds": 0.06, "min_width": 5.0,
            "proved_statement": "log(x + 1) ≤ x", "allowance": "0"}
    proved = InequalityResult(**{**base, "guarantee": "proved", "certificate": cert, "worst_margin": 0.0})
    text = evidence_cell(proved)
    assert text.startswith("proved: log(x + 1) ≤ x at every point") and "1 box," in text
    assert "no violation found" not in text
    assert reading_cell(proved) == "reconstructed from the paper: proved"
    assert reading_summary([searched, proved]) == "readings: 1 confirmed, 1 searched or on a grid (not proofs)"
    assert reading_summary([]) == ""
