"""Headline findings: sentence templates bound to claims, filled from the run's results.

Every number of a finding must come from the run (perturb a result: the sentence
changes with it); a finding whose claim is missing or inconclusive says "not
settled in this run" and carries no number; a negative control refuted as designed
never reads like a paper statement refuted; the findings come first in both
report formats; every registered finding is well formed."""
import dataclasses
import re

import pytest

import proofs_check as pc
from proofs_check.engine import Finding, NotSettled, get_claim, registered_findings
from theorycheck.report import render_html, render_markdown
from theorycheck.report.document import OURS, build_document
from theorycheck.report.findings import NOT_SETTLED, OURS as F_OURS, fill, headline_findings

META = {"seed": 0, "alpha": 0.01, "quick": True, "elapsed_s": 1.0, "figures": {}}


@pytest.fixture(scope="module")
def results():
    return {r.claim: r for r in (pc.verify(i, quick=True) for i in ("selftest.dg_tail", "selftest.dg_tail_doubled",
                                                                   "selftest.logit_energy_identity"))}


def _headline(results_list, registry=None):
    doc = build_document(results_list, META)
    if registry is None:
        return doc["headline_findings"]
    return headline_findings(results_list, doc["entries"], doc["level"], doc["alpha"], registry=registry)


def _one(items, fid):
    (f,) = [f for f in items if f["id"] == fid]
    return f


def test_the_numbers_are_the_runs(results):
    rs = list(results.values())
    f = _one(_headline(rs), "selftest.dg_tail")
    r = results["selftest.dg_tail"]
    assert f["settled"] and f"{r.p_hat:.4f}" in f["text"] and f"[{r.ci[0]:.4f}, {r.ci[1]:.4f}]" in f["text"]
    assert f"{r.trials} trials" in f["text"] and "99 % CS" in f["text"]
    # perturb the result: the sentence follows it (no number is stored in the declaration)
    moved = dataclasses.replace(r, p_hat=0.031415, ci=(0.0271, 0.0359), trials=123457)
    g = _one(_headline([moved, results["selftest.dg_tail_doubled"]]), "selftest.dg_tail")
    assert "0.0314" in g["text"] and "[0.0271, 0.0359]" in g["text"] and "123457 trials" in g["text"]
    assert f"{r.p_hat:.4f}" not in g["text"] and g["text"] != f["text"]
    # the level comes from the run's α
    doc = build_document([dataclasses.replace(x, alpha=0.05) for x in rs], {**META, "alpha": 0.05})
    assert "95 % CS" in _one(doc["headline_findings"], "selftest.dg_tail")["text"]


def test_a_flipped_verdict_changes_the_words(results):
    r = results["selftest.dg_tail"]
    held = _one(_headline(list(results.values())), "selftest.dg_tail")
    flipped = _one(_headline([dataclasses.replace(r, verdict="refuted"), results["selftest.dg_tail_doubled"]]),
                   "selftest.dg_tail")
    assert held["case"] == "holds" and flipped["case"] == "refuted"
    assert "within the Dasgupta–Gupta bound" in held["text"] and "above the Dasgupta–Gupta bound" in flipped["text"]


def test_missing_or_inconclusive_claims_give_no_number(results):
    r = results["selftest.dg_tail"]
    missing = _one(_headline([r]), "selftest.dg_tail")
    assert not missing["settled"] and missing["text"].startswith(NOT_SETTLED)
    assert "selftest.dg_tail_doubled not in this run" in missing["text"]
    assert f"{r.p_hat:.4f}" not in missing["text"] and missing["family"] == "unsettled"
    assert missing["label"] == "paper statement: not settled at this budget"
    open_ = dataclasses.replace(results["selftest.dg_tail_doubled"], verdict="inconclusive")
    f = _one(_headline([r, open_]), "selftest.dg_tail")
    assert not f["settled"] and "selftest.dg_tail_doubled inconclusive at" in f["text"]
    assert not re.search(r"\d\.\d{4}", f["text"])          # no estimate leaks into an unsettled finding
    # a finding none of whose claims is in the run is not shown
    assert all(x["id"] != "selftest.dg_tail" for x in _headline([results["selftest.logit_energy_identity"]]))


def test_values_may_refuse_to_settle(results):
    def refuse(r):
        raise NotSettled("only one end of the bracket is decided")

    f = Finding(id="test.refuses", title="t", claims=("selftest.dg_tail",),
                sentences={"holds": "p = {p}", "refuted": "p = {p}"}, values=refuse)
    (x,) = _headline(list(results.values()), registry=[f])
    assert x["text"] == f"{NOT_SETTLED} (only one end of the bracket is decided)."


def _reading_of(results, primary):
    f = Finding(id="test.reading", title="Reading", claims=(primary.claim,),
                sentences={"holds": "p̂ = {p:.4f}", "refuted": "p̂ = {p:.4f}"}, values=lambda r: {
                    "p": next(iter(r.values())).p_hat})
    (x,) = _headline([primary, *[r for k, r in results.items() if k != primary.claim]], registry=[f])
    return x


def test_a_control_refuted_as_designed_never_reads_as_a_paper_statement_refuted(results):
    control = results["selftest.dg_tail_doubled"]            # role control, expected refuted, refuted
    assert control.role == "control" and control.verdict == control.expected == "refuted"
    as_control = _reading_of(results, control)
    # the same result, had it been a paper statement (dg_tail cites Dasgupta–Gupta, Lemma 2.2)
    stmt = dataclasses.replace(control, claim="selftest.dg_tail", role="statement", expected=None,
                               label="CONFIRMED")
    as_statement = _reading_of({k: v for k, v in results.items() if k != "selftest.dg_tail"}, stmt)
    assert as_control["reading"] == "negative-control.anytime" and as_statement["reading"] == "paper.anytime"
    assert as_control["label"] == "negative control: refuted (anytime-valid at 99 %), as designed"
    assert as_statement["label"] == "paper statement: refuted (anytime-valid at 99 %)"
    assert as_control["group"] == "control" and as_statement["group"] == "refuted"
    # both formats show the reading before the sentence
    doc = build_document(list(results.values()), META)
    doc["headline_findings"] = [as_control, as_statement]
    from theorycheck.report.html import render_document_html
    from theorycheck.report.markdown import render_document_markdown

    md, html = render_document_markdown(doc), render_document_html(doc)
    assert "*negative control: refuted (anytime-valid at 99 %), as designed.*" in md
    assert "*paper statement: refuted (anytime-valid at 99 %).*" in md
    assert 'class="reading r-refuted r-control"' in html and 'class="reading r-refuted"' in html
    # a control that does NOT reach its expected verdict is a failure, not a finding
    failed = _reading_of(results, dataclasses.replace(control, verdict="holds"))
    assert failed["alarm"] and "FAILED (expected refuted)" in failed["label"]


def _entries(results_list):
    return build_document(results_list, META)["entries"]


def test_the_reading_follows_source_label_guarantee_and_origin(results):
    """The words of a claim come from reading(): the place in the paper decides "paper statement",
    the guarantee decides "confirmed", who declared the claim decides "your claim"."""
    dg, energy = results["selftest.dg_tail"], results["selftest.logit_energy_identity"]
    e = _entries([dg, energy])
    assert e["selftest.dg_tail"]["reading"] == "paper statement: confirmed (anytime-valid at 99 %) (as expected)"
    # the identity cites a paper but names no place in it: reconstructed, never "paper statement"
    assert e["selftest.logit_energy_identity"]["subject"] == "reconstructed from the paper"
    # a search verdict: no counterexample in N evaluations, not a proof, filed apart from confirmed
    searched = dataclasses.replace(energy, guarantee="search")
    s = _entries([searched])["selftest.logit_energy_identity"]
    assert s["reading"] == (f"reconstructed from the paper: no counterexample in {energy.budget} "
                            f"{type(energy).unit} (not a proof) (as expected)")
    assert s["group"] == "checked" and not s["settled"]
    for g in ("asymptotic", "estimate"):
        x = _entries([dataclasses.replace(dg, guarantee=g)])["selftest.dg_tail"]
        assert "indicated, not settled" in x["reading"] and x["group"] == "indicated"
    # a derivation with no paper, an open question, a user's claim
    der = dataclasses.replace(dg, claim="t.der", label="DERIVED")
    assert _entries([der])["t.der"]["subject"] == "our derivation"
    doc = build_document([dataclasses.replace(dg, claim="t.mine")],
                         {**META, "claims": {"t.mine": {"source": {"papers": ["otb"], "where": "Thm 1"},
                                                        "origin": "user"}}})
    assert doc["entries"]["t.mine"]["reading"].startswith("your claim: confirmed")
    assert doc["sections"][0]["title"] != "Claims citing no paper: our derivations, controls and measurements"
    user_ours = build_document([dataclasses.replace(dg, claim="t.mine2")],
                               {**META, "claims": {"t.mine2": {"source": {"papers": [], "theory": "x.md#y"},
                                                               "origin": "user"}}})
    assert user_ours["sections"][0]["title"] == "Claims citing no paper: your claims"
    assert F_OURS == OURS


def test_a_finding_reads_by_its_weakest_claim(results):
    """A finding over an anytime-valid and a search claim says what the search says."""
    dg, doubled = results["selftest.dg_tail"], results["selftest.dg_tail_doubled"]
    weak = dataclasses.replace(doubled, guarantee="search")
    f = _one(_headline([dg, weak]), "selftest.dg_tail")
    assert f["label"] == f"paper statement: no counterexample in {weak.budget} trials (not a proof) (as expected)"
    assert f["family"] == "checked" and "weakest of its 2 claims, selftest.dg_tail_doubled (search)" in f["basis"]
    est = _one(_headline([dg, dataclasses.replace(doubled, guarantee="estimate")]), "selftest.dg_tail")
    assert est["label"].startswith("paper statement: indicated, not settled") and est["family"] == "indicated"
    same = _one(_headline([dg, doubled]), "selftest.dg_tail")
    assert same["label"].startswith("paper statement: confirmed (anytime-valid") and same["basis"] == ""
    md = render_markdown([dg, weak], meta=META)
    assert "(search)" in md[md.index("Rests on:"):]                       # each claim's guarantee is shown


def test_headline_results_come_first_in_both_formats(results):
    rs = list(results.values())
    md = render_markdown(rs, meta=META)
    assert md.index("Headline results\n") < md.index("Provenance\n") < md.index("Summary of findings (")
    assert md.index("## Contents") < md.index('<a id="headline"></a>\n\n## Headline results')
    assert '<a id="finding-selftest.dg_tail"></a>**Self-test: the Dasgupta–Gupta tail bound**' in md
    assert "Rests on: [`selftest.dg_tail`](#claim-selftest.dg_tail) holds" in md
    html = render_html(rs, meta=META)
    assert html.index('id="headline"') < html.index('id="provenance"') < html.index('id="findings"')
    assert 'id="finding-selftest.dg_tail"' in html and 'href="#claim-selftest.dg_tail"' in html


def test_interpolated_text_is_escaped(results):
    f = Finding(id="test.escape", title="<b>x</b> *y*", claims=("selftest.dg_tail",),
                sentences={"holds": "{s}", "refuted": "{s}"}, values=lambda r: {"s": "<script>x</script> a_b*c|d"})
    items = _headline(list(results.values()), registry=[f])
    doc = build_document(list(results.values()), META)
    doc["headline_findings"] = items
    from theorycheck.report.html import render_document_html
    from theorycheck.report.markdown import render_document_markdown

    html, md = render_document_html(doc), render_document_markdown(doc)
    assert "<script>x</script>" not in html and "&lt;script&gt;" in html and "<b>x</b>" not in html
    assert "a\\_b\\*c\\|d" in md and "&lt;script>" in md


def test_declarations_are_checked():
    ok = dict(id="t.x", title="T", claims=("a.b",), sentences={"holds": "{v}", "refuted": "{v}"},
              values=lambda r: {"v": 1})
    Finding(**ok)
    with pytest.raises(ValueError, match="number outside a field"):
        Finding(**{**ok, "sentences": {"holds": "M is 9.2× M*", "refuted": "{v}"}})
    with pytest.raises(ValueError, match="missing: refuted"):
        Finding(**{**ok, "sentences": {"holds": "{v}"}})
    with pytest.raises(ValueError, match="dotted"):
        Finding(**{**ok, "id": "nodot"})
    with pytest.raises(TypeError, match="values must be a function"):
        Finding(**{**ok, "values": 3})
    with pytest.raises(ValueError, match="claims must be one or more"):
        Finding(**{**ok, "claims": ()})


def test_a_broken_template_names_the_finding_and_field(results):
    f = Finding(id="test.broken", title="T", claims=("selftest.dg_tail",),
                sentences={"holds": "{nope}", "refuted": "{nope}"}, values=lambda r: {"p": 1})
    with pytest.raises(ValueError, match=r"test.broken.*'nope'"):
        fill(f, results)


def test_every_registered_finding_is_well_formed():
    found = registered_findings()
    ids = {f.id for f in found}
    topics = {i.split(".")[0] for i in ids}
    assert {"seqproj", "ensemble", "mismatch", "baselines", "selftest"} <= topics
    assert {"seqproj.theorem_vs_worst_case", "mismatch.bounds_tightness", "mismatch.t_squared_remainder",
            "baselines.shared_otb_vs_bstar", "ensemble.hyperagent_vs_rlsvi"} <= ids
    for f in found:
        assert f.id.split(".")[0] == f.primary.split(".")[0], f.id      # a topic's findings bind its claims
        for c in f.claims:
            get_claim(c)                                                 # every bound claim exists
        assert {"holds", "refuted"} <= set(f.sentences)


def test_claims_by_reading_keep_controls_apart_from_refuted_statements(results):
    from theorycheck.report.findings import claim_groups

    dg, doubled, energy = (results[i] for i in ("selftest.dg_tail", "selftest.dg_tail_doubled",
                                                "selftest.logit_energy_identity"))
    refuted_stmt = dataclasses.replace(dg, verdict="refuted", expected=None)      # dg_tail cites a paper
    doc = build_document([refuted_stmt, doubled, energy], META)
    groups = {g["key"]: g for g in claim_groups(doc)}
    assert [e["id"] for _, es in groups["refuted"]["subjects"] for e in es] == ["selftest.dg_tail"]
    assert [e["id"] for _, es in groups["control"]["subjects"] for e in es] == ["selftest.dg_tail_doubled"]
    assert groups["refuted"]["subjects"][0][0] == "paper statement"
    assert "selftest.dg_tail_doubled" not in {e["id"] for k, g in groups.items() if k != "control"
                                               for _, es in g["subjects"] for e in es}
    md = render_markdown([refuted_stmt, doubled, energy], meta=META)
    refuted = md[md.index('<a id="group-refuted"></a>'):md.index('<a id="group-control"></a>')]
    assert "selftest.dg_tail`" in refuted and "dg_tail_doubled" not in refuted
    assert "paper statement: refuted (anytime-valid at 99 %)" in refuted
    controls = md[md.index('<a id="group-control"></a>'):md.index('<a id="papers"></a>')]
    assert "negative control: refuted (anytime-valid at 99 %), as designed" in controls
    md_details = md[md.index("<details>\n<summary>Controls (1)"):md.index("</details>")]     # collapsed
    assert "selftest.dg_tail_doubled" in md_details
    assert md.index("Headline results\n") < md.index("Claims by reading\n") < md.index('<a id="papers"></a>')
    html = render_html([refuted_stmt, doubled, energy], meta=META)
    details = html[html.index("<details><summary>Controls (1)"):html.index("</details>", html.index(
        "<details><summary>Controls (1)"))]
    assert "selftest.dg_tail_doubled" in details
    # a control that failed is not collapsed
    failed = dataclasses.replace(doubled, verdict="holds")
    html = render_html([refuted_stmt, failed, energy], meta=META)
    g = html[html.index('id="group-control"'):]
    assert g.index("selftest.dg_tail_doubled") < g.index("<details>") if "<details>" in g else True
    assert "FAILED (expected refuted)" in g


#: Results of every claim a registered finding binds, from `theorycheck report --quick` (seed 0,
#: commit 999545d): realistic inputs for every finding's values function.
QUICK = __import__("pathlib").Path(__file__).with_name("findings_quick_results.jsonl")


@pytest.fixture(scope="module")
def quick():
    from theorycheck.report import read_results

    return {r.claim: r for r in read_results(QUICK)}


#: what the sentences must say once every bound estimate is scaled by 1.37 (+ 0.001)
PERTURBED = {"mismatch.bounds_tightness": ["bound found is 0.686"],
             "baselines.shared_otb_vs_bstar": ["79.6× that of b*"],
             "mismatch.t_squared_remainder": ["T^2.756", "T^1.368"],
             "ensemble.deepsea_scaling": ["N^2.10", "N^2.44"],
             "seqproj.fixed_time_under_stopping": ["probability 0.734"],
             "selftest.dg_tail": ["probability 0.0051"]}


def test_every_registered_finding_fills_from_a_real_run_and_follows_it(quick):
    """Each finding fills from a real quick run (settled, or 'not settled' for a claim that
    quick budgets leave inconclusive), and its sentence changes when its claims' numbers
    are perturbed: the numbers are the run's."""
    doc = build_document(list(quick.values()), META)
    items = {f["id"]: f for f in doc["headline_findings"]}
    assert set(items) == {f.id for f in registered_findings()}
    for f in registered_findings():
        x = items[f.id]
        assert "lack what this finding reads" not in x["text"], (f.id, x["text"])
        open_ = [c for c in f.claims if quick[c].verdict == "inconclusive"]
        assert x["settled"] == (not open_), (f.id, x["text"])
        if open_:
            continue
        changed = {}
        for c in f.claims:                          # every bound claim's estimate, scaled
            r = quick[c]
            fields = [n for n in ("p_hat", "mean_diff", "exponent", "worst_ratio", "worst_lhs") if hasattr(r, n)]
            changed[c] = dataclasses.replace(r, **{n: getattr(r, n) * 1.37 + 1e-3 for n in fields})
        y = fill(f, {**quick, **changed})
        assert y["text"] != x["text"], f.id
        for needle in PERTURBED.get(f.id, ()):        # the scaled number itself is in the sentence
            assert needle in y["text"] and needle not in x["text"], (f.id, needle, y["text"])
    # the numbers the issue asks for, as this run has them
    assert "8.3–9.4× the exact worst-case dimension: M*_worst lies in (88, 101]" in \
        items["seqproj.theorem_vs_worst_case"]["text"]
    assert "58.1× that of b*" in items["baselines.shared_otb_vs_bstar"]["text"]
    assert "largest |Error| / bound found is 0.499996" in items["mismatch.bounds_tightness"]["text"]
    assert "grow like T^2.011" in items["mismatch.t_squared_remainder"]["text"]


def test_results_of_another_version_do_not_crash_the_report(quick):
    r = quick["seqproj.efficiency.M_theorem_div5"]
    old = dataclasses.replace(r, params={"M": 168})                 # no M_theorem recorded
    f = _one(_headline([old]), "seqproj.theorem_slack")
    assert not f["settled"] and "lack what this finding reads (KeyError: 'M_theorem')" in f["text"]


def test_the_worst_case_bracket_reads_as_a_range_and_follows_its_ends(quick):
    f = next(x for x in registered_findings() if x.id == "seqproj.theorem_vs_worst_case")
    cell = "seqproj.worst_case.M_star.eps0.5_T300"
    full = fill(f, quick)["text"]
    assert "M*_worst lies in (88, 101] — a range, not a point" in full
    lower_failed = fill(f, {**quick, f"{cell}.lower": dataclasses.replace(quick[f"{cell}.lower"],
                                                                        verdict="refuted")})
    assert lower_failed["case"] == "upper_only" and "at least 8.3×" in lower_failed["text"]
    assert "lower end M*_worst > 88 was not confirmed" in lower_failed["text"]
    both = {f"{cell}.{s}": dataclasses.replace(quick[f"{cell}.{s}"], verdict="refuted") for s in ("lower", "upper")}
    y = fill(f, {**quick, **both})
    assert not y["settled"] and "neither end of the worst-case bracket held" in y["text"]
    thm = dataclasses.replace(quick["seqproj.worst_case.theorem_M"], verdict="refuted", worst_lhs=0.07)
    z = fill(f, {**quick, "seqproj.worst_case.theorem_M": thm})
    assert z["case"] == "refuted" and "is NOT safe" in z["text"] and "0.07 > δ" in z["text"]
