"""The report: results round-trip through results.jsonl; the report groups claims
by paper, puts the findings first, states its provenance and interval level,
gives each verdict a citation line and each inconclusive verdict the budget or
method that would settle it, and re-renders byte for byte from its files."""
import dataclasses
import json
import math
import re
import subprocess
from importlib.metadata import version
from pathlib import Path

import pytest

from tests.engine.report_fixture import write_selftest_report

import proofs_check as pc
from proofs_check.engine import Result, get_claim
from theorycheck.report import (figures_for, read_results, render_markdown, render_report_from,
                                 rerender_report, write_report)
from theorycheck.report import evidence as ev
from theorycheck.report.provenance import collect_provenance, git_commit, interval_level

IDS = ["selftest.dg_tail", "selftest.dg_tail_doubled", "selftest.logit_energy_identity"]
FAKE = "test_report_fig"
FAKE_INFO = {FAKE: {"caption": "A test figure drawn for the report tests.",
                    "claims": ["selftest.dg_tail*"], "width": 3.3}}


@pytest.fixture(scope="module")
def results():
    return [pc.verify(i, quick=True) for i in IDS]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """A real report folder: the selftest claims at quick budgets and one
    registered figure with a caption and the claims it supports."""
    def draw(ax):
        ax.plot([0, 1], [0, 1])
        return {"x": [0, 1]}

    return write_selftest_report(tmp_path_factory, FAKE, draw, FAKE_INFO[FAKE]["caption"])


def _section(text, heading_anchor):
    """The Markdown between the heading holding ``heading_anchor`` and the next ``## ``."""
    start = text.index(f'<a id="{heading_anchor}"></a>')
    end = text.find("\n## ", start)
    return text[start:end if end >= 0 else None]


def test_every_result_round_trips_through_json(results):
    for r in results:
        back = Result.from_dict(json.loads(json.dumps(r.to_dict())))
        assert back.to_dict() == r.to_dict() and type(back) is type(r)


def test_report_rerenders_from_results_without_running(results, tmp_path):
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r.to_dict()) + "\n" for r in results))
    (tmp_path / "report.json").write_text(json.dumps({"seed": 0, "alpha": 0.01, "quick": True,
                                                      "elapsed_s": 1.0}))
    path = rerender_report(tmp_path)
    text = path.read_text()
    assert text == render_markdown(read_results(tmp_path / "results.jsonl"), [], seed=0, alpha=0.01,
                                   quick=True, elapsed_s=1.0)
    assert "## Summary of findings (0)" in text and (tmp_path / "report.html").exists()
    # no provenance was recorded with these results: the report says so instead of inventing it
    assert "not recorded" in text and "fingerprint of the current code" in text


def test_a_bad_results_file_is_refused_naming_the_line(tmp_path):
    (tmp_path / "results.jsonl").write_text('{"kind": "probability", "bogus": 1}\n')
    with pytest.raises(ValueError, match="line 1"):
        rerender_report(tmp_path)
    with pytest.raises(ValueError, match=r"nowhere.results\.jsonl does not exist: run `theorycheck report "
                                         r"--out \S*nowhere` first"):
        rerender_report(tmp_path / "nowhere")
    with pytest.raises(TypeError, match="results_path must be a path"):
        render_report_from(5)
    with pytest.raises(TypeError, match="figures must be a list"):
        write_report([], tmp_path, figures="seqproj_tails")
    (tmp_path / "results.jsonl").write_text("")
    with pytest.raises(ValueError, match="holds no results"):
        render_report_from(tmp_path / "results.jsonl")


def test_claims_are_grouped_by_their_first_paper(report):
    text = (report / "report.md").read_text()
    order = [m.group(1) for m in re.finditer(r'^## <a id="paper-([^"]+)"></a>', text, re.M)]
    assert order == ["dasgupta-gupta", "otb", "ours"]          # registry order, our own last
    assert '<a id="claim-selftest.dg_tail"></a>' in _section(text, "paper-dasgupta-gupta")
    assert '<a id="claim-selftest.logit_energy_identity"></a>' in _section(text, "paper-otb")
    assert '<a id="claim-selftest.dg_tail_doubled"></a>' in _section(text, "paper-ours")
    dg = _section(text, "paper-dasgupta-gupta")
    assert "Lemma 2.2" in dg and "https://doi.org/10.1002/rsa.10073" in dg
    assert "theory `docs/theory/selftest.md#dg-tail`" in dg
    assert "P(\\|‖Πu‖² − ‖u‖²\\| > ε‖u‖²)" in dg                  # the statement inline


def test_the_summary_of_findings_comes_first_in_its_order(results, tmp_path):
    dg, doubled, energy = results
    contradicted = dataclasses.replace(doubled, verdict="holds")
    unsettled = dataclasses.replace(dg, verdict="inconclusive", further_trials=10)
    finding = dataclasses.replace(energy, expected=None)
    meta = {"seed": 0, "alpha": 0.01, "quick": True, "elapsed_s": 1.0, "figures": FAKE_INFO}
    (tmp_path / f"{FAKE}.png").write_bytes(b"png")
    text = render_markdown([unsettled, finding, contradicted], meta=meta, figure_dir=tmp_path)
    summary = text[text.index("## Summary of findings (3)"):text.index("## Papers")]
    items = re.findall(r"^\d+\. \[`([^`]+)`\]", summary, re.M)
    assert items == ["selftest.dg_tail_doubled", "selftest.logit_energy_identity", "selftest.dg_tail"]
    first = summary.splitlines()[4]
    assert first.startswith("1. [`selftest.dg_tail_doubled`](#claim-selftest.dg_tail_doubled) — **holds** "
                            "(contradicts expected *refuted*)")
    assert f"p̂ = {ev.fmt(doubled.p_hat)}" in first and "99 % anytime-valid CS [" in first
    assert f"seed {doubled.seed}" in first and f"figure [{FAKE}](#fig-{FAKE})" in first
    assert text.index("## Summary of findings") < text.index('<a id="paper-')


def test_provenance_header_and_interval_level(report):
    meta = json.loads((report / "report.json").read_text())
    prov = meta["provenance"]
    for lib in ("numpy", "scipy", "numba"):
        assert prov[lib] == version(lib)
    assert prov["version"] == version("theorycheck") and prov["seed"] == 0 and prov["alpha"] == 0.01
    text = (report / "report.md").read_text()
    head = text[:text.index("## Summary of findings")]
    for needle in (f"theorycheck {version('theorycheck')}", f"NumPy {version('numpy')}",
                   f"SciPy {version('scipy')}", f"numba {version('numba')}", prov["date"],
                   "every interval in this report is a 99 % interval", "quick (each claim's quick budget"):
        assert needle in head, needle
    assert interval_level(0.05) == "95 %" and interval_level(0.001) == "99.9 %"


def test_git_commit_is_read_only_from_this_checkout(tmp_path):
    root = Path(pc.__file__).resolve().parents[1]
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout, or no git")
    assert git_commit()["commit"] == head
    assert collect_provenance(seed=1, alpha=0.05, quick=False)["commit"] == head
    (tmp_path / "pkg").mkdir()
    assert git_commit(tmp_path / "pkg") is None                  # not inside a checkout of the project


def test_every_verdict_has_a_cite_line(report):
    text = (report / "report.md").read_text()
    prov = json.loads((report / "report.json").read_text())["provenance"]
    lines = re.findall(r"^- \*\*Cite this verdict:\*\* `([^`]+)`", text, re.M)
    assert len(lines) == 3
    for r in read_results(report / "results.jsonl"):
        c = get_claim(r.claim)
        want = (f"{r.claim} v{c.version} (fingerprint {c.fingerprint()}): {r.verdict} at seed {r.seed}, "
                f"α = 0.01, budget {r.budget} ")
        line = next(x for x in lines if x.startswith(r.claim + " "))
        assert line.startswith(want), line
        assert f"theorycheck {prov['version']}, commit " in line
        if prov["commit"]:
            assert prov["commit"][:10] in line


def _prob(**kw):
    base = pc.verify("selftest.dg_tail", quick=True)
    return dataclasses.replace(base, **kw)


def test_inconclusive_probability_says_the_budget_that_would_settle_it():
    # p̂ = 0.005 < δ = 0.01, upper end 0.012: half-width 0.007 must shrink below the gap 0.005
    r = _prob(verdict="inconclusive", trials=1000, events=5, p_hat=0.005, ci=(0.001, 0.012), delta=0.01,
              budget=1000, chunks=1, further_trials=1)
    assert ev.budget_to_settle(r) == 2000          # 1000·(0.007/0.005)² = 1960, whole chunks of 1000
    advice = ev.settle_advice(r)
    assert "≈ 2000 trials in total" in advice and "--resume --budget 2000" in advice
    # above δ: the lower end decides; no event at all: the width shrinks like 1/n
    assert ev.budget_to_settle(dataclasses.replace(r, p_hat=0.02, events=20, ci=(0.005, 0.04))) == 3000
    assert ev.budget_to_settle(dataclasses.replace(r, p_hat=0.0, events=0, ci=(0.0, 0.05))) == 5000
    on = dataclasses.replace(r, p_hat=0.01, events=10, ci=(0.005, 0.02))
    assert ev.budget_to_settle(on) is None and "no budget settles it" in ev.settle_advice(on)
    fixed = dataclasses.replace(r, method="fixed")
    # issue 21 item 3: the hint names a concrete new seed (same seed = same data)
    assert f"--seed {fixed.seed + 1} --fixed --budget 2000" in ev.settle_advice(fixed)
    assert "--seed 8 --fixed" in ev.settle_advice(dataclasses.replace(fixed, seed=7))
    assert ev.settle_advice(_prob()) is None                        # decided: no advice


def test_inconclusive_scaling_and_comparison_advice():
    from scipy.stats import t

    base = dataclasses.replace(pc.verify("selftest.dg_tail", quick=True))  # any result for the common fields
    common = {f.name: getattr(base, f.name) for f in dataclasses.fields(Result)}
    from proofs_check.engine import ComparisonResult, IdentityResult, InequalityResult, ScalingResult

    common.update(verdict="inconclusive", kind="scaling", budget=2, chunks=2)
    s = ScalingResult(**common, x=(1, 2, 4), y_mean=(1, 1, 1), y_se=(0.1, 0.1, 0.1), replicates=2,
                      exponent=-0.0757, exponent_ci=(-3.1527, 3.0013), exponent_lo=-0.15, exponent_hi=0.15)
    n = ev.budget_to_settle(s)
    sd = (3.0013 + 3.1527) / 2 * math.sqrt(2) / t.isf(0.005, 1)
    gap = 0.15 - 0.0757
    assert t.isf(0.005, n - 1) * sd / math.sqrt(n) < gap <= t.isf(0.005, n - 2) * sd / math.sqrt(n - 1)
    assert "fresh run with a new seed" in ev.settle_advice(s)
    censored = dataclasses.replace(s, exponent=math.nan, exponent_ci=(math.nan, math.nan))
    assert ev.settle_advice(censored).startswith("method, not budget") and "censored" in ev.settle_advice(censored)

    common.update(kind="comparison", budget=500, chunks=5)
    c = ComparisonResult(**common, n=500, mean_diff=0.01, ci=(-0.01, 0.03), threshold=0.0,
                         alternative="greater", method="betting")
    assert ev.budget_to_settle(c) == 2000                          # 500·(0.02/0.01)²
    assert "--resume --budget 2000" in ev.settle_advice(c)
    flat = dataclasses.replace(c, method="hall", ci=(-math.inf, math.inf))
    assert "declare bounds" in ev.settle_advice(flat)

    common.update(kind="identity")
    i = IdentityResult(**common, cases=10, max_abs_error=0.0, max_scaled_error=0.0, tol=1e-12,
                       tol_mode="mixed", proved=False)
    assert "sympy" in ev.settle_advice(i)
    common.update(kind="inequality")
    q = InequalityResult(**common, evaluations=10, worst_ratio=0.5, worst_lhs=1.0, worst_rhs=2.0,
                         worst_point=[0.1, 0.2], nonfinite=3, confirmed_by="none")
    assert "3 evaluation(s) gave NaN/inf" in ev.settle_advice(q)


def test_worst_point_names_its_coordinates():
    from proofs_check.engine import InequalityResult

    base = pc.verify("selftest.dg_tail", quick=True)
    common = {f.name: getattr(base, f.name) for f in dataclasses.fields(Result)}
    common.update(kind="inequality", verdict="holds")
    r = InequalityResult(**common, evaluations=10, worst_ratio=0.5, worst_lhs=1.0, worst_rhs=2.0,
                         worst_point={"V": 2, "bounds": {"kl": 0.25}, "mu": [1.0, 0.0]}, nonfinite=0,
                         confirmed_by="none")
    assert ev.worst_point(r) == "V = 2, bounds.kl = 0.25, mu = (1, 0)"
    listed = dataclasses.replace(r, worst_point=[0.5, 1.5])
    assert ev.worst_point(listed, ["x", "y"]) == "x = 0.5, y = 1.5"
    assert "2 unnamed coordinates" in ev.worst_point(listed)
    assert any("worst lhs/rhs = 0.5" in s for s in ev.slack(r))


def test_figures_carry_captions_and_link_the_claims_they_support(report):
    text = (report / "report.md").read_text()
    fig = _section(text, f"fig-{FAKE}")
    assert f"![{FAKE}](figures/{FAKE}.png)" in fig and FAKE_INFO[FAKE]["caption"] in fig
    assert "[`selftest.dg_tail`](#claim-selftest.dg_tail)" in fig
    assert "[`selftest.dg_tail_doubled`](#claim-selftest.dg_tail_doubled)" in fig
    assert "logit_energy" not in fig and "Built at quick size" in fig
    assert f"- **Figures:** [{FAKE}](#fig-{FAKE})" in _section(text, "paper-dasgupta-gupta")
    html = (report / "report.html").read_text()
    assert 'src="data:image/png;base64,' in html and "http://" not in html.split("<body>")[1].split("<a ")[0]
    for i in IDS:
        assert f'id="claim-{i}"' in html


def test_figures_for_selects_figures_by_their_claim_patterns():
    info = {"a": {"claims": ["seqproj.coverage"]}, "b": {"claims": ["*tail*"]},
            "c": {"claims": ["selftest.dg_tail"]}, "d": {"claims": []}}
    assert figures_for(["selftest.dg_tail"], info) == ["b", "c"]
    assert figures_for([get_claim("selftest.dg_tail_doubled")], info) == ["b"]
    assert figures_for(["seqproj.coverage.sphere.constant"], info) == ["a"]
    assert figures_for([], info) == []
    with pytest.raises(TypeError, match="single string"):
        figures_for("selftest.dg_tail", info)


def test_the_report_rerenders_byte_for_byte(report, tmp_path):
    md, html = (report / "report.md").read_bytes(), (report / "report.html").read_bytes()
    assert render_report_from(report) == report / "report.md"
    assert (report / "report.md").read_bytes() == md and (report / "report.html").read_bytes() == html
    assert rerender_report(report) == report / "report.md" and (report / "report.md").read_bytes() == md
    # from the results file into another folder: same HTML, Markdown linking the figures where they are
    other = tmp_path / "elsewhere"
    render_report_from(report / "results.jsonl", other)
    assert (other / "report.html").read_bytes() == html
    rel = Path("..") / ".." / report.name / "figures"
    moved = (other / "report.md").read_text()
    assert moved.replace(f"({rel.as_posix()}/", "(figures/") == md.decode()


def test_the_report_states_which_refutations_survive_fdr_across_the_run(results):
    """The multiplicity section (e-BH, Wang & Ramdas 2022) and the per-claim line: a
    refutation whose e-value is just past the engine's 2/α survives alone, and stops
    surviving among 60 claims whose e-values are 1 (so the statement can change)."""
    from proofs_check.engine import ProbabilityClaim, verify_claim
    from proofs_check.selftest.samplers import bernoulli_events
    from theorycheck.report import render_html
    import functools

    c = ProbabilityClaim(id="t.fdr", statement="P ≤ δ", source="t", label="DERIVED",
                         fn=functools.partial(bernoulli_events, p=0.2), delta=0.1, chunk_size=500)
    ref = verify_claim(c, budget=20_000)
    assert ref.verdict == "refuted"
    weak = dataclasses.replace(ref, log_e_above=math.log(2 / 0.01) + 0.1)
    nulls = [dataclasses.replace(ref, claim=f"t.null{i}", verdict="inconclusive", log_e_above=0.0,
                                 log_e_below=0.0) for i in range(60)]
    alone = render_markdown([weak] + [r for r in results if r.verdict != "refuted"], alpha=0.01)
    crowd = render_markdown([weak] + nulls, alpha=0.01)
    for text in (alone, crowd):
        assert "## Multiplicity across the run" in text and "e-BH" in text and "Bonferroni" in text
    assert "1 of 1 refutation(s) survive: t.fdr" in alone
    assert "across the run: survives FDR ≤ 0.01 (e-BH)" in alone
    assert "0 of 1 refutation(s) survive" in crowd
    assert "does not survive FDR ≤ 0.01 (e-BH over 61 e-values)" in crowd
    html = render_html([weak] + nulls, alpha=0.01)
    assert 'id="multiplicity"' in html and "0 of 1 refutation(s) survive" in html


def _inequality_result(**kw):
    from proofs_check.engine.kinds.inequality import InequalityResult

    base = dict(claim="t.ineq", kind="inequality", verdict="holds", statement="lhs ≤ rhs", source="t",
                label="DERIVED", seed=0, alpha=0.01, budget=400, chunks=1, elapsed_s=0.1, params={},
                guarantee="search", evaluations=400, worst_ratio=math.nan, worst_lhs=1e-37, worst_rhs=1e-37,
                worst_point={"x": 0.5}, nonfinite=0, confirmed_by="float64", worst_margin=7.961e-52)
    base.update(kw)
    return InequalityResult(**base)


def test_a_proved_claim_shows_its_certificate_not_its_search_line():
    cert = {"status": "proved", "method": "ball arithmetic (python-flint Arb), branch-and-bound", "boxes": 1,
            "seconds": 0.06, "min_width": 5.0, "proved_statement": "log(x + 1) ≤ x", "allowance": "0"}
    r = _inequality_result(guarantee="proved", certificate=cert, worst_ratio=1.0, worst_margin=0.0)
    text = render_markdown([r], alpha=0.01)
    e = text[text.index('<a id="claim-t.ineq"></a>'):]
    assert "- **Proved:** proved: log(x + 1) ≤ x at every point of the declared domain" in e
    assert "1 box," in e and "1 boxes" not in text
    assert "worst point lhs/rhs" not in text                # the search line is not the evidence
    assert "*your claim: proved*" in e or "*our derivation: proved*" in e
    with_allowance = dataclasses.replace(r, certificate={**cert, "boxes": 3, "allowance": "1e-9"})
    s = with_allowance.certificate_sentence()
    assert "declared allowance 1e-9 included" in s and "3 boxes" in s


def test_a_positive_margin_beside_holds_is_explained():
    r = _inequality_result()
    assert ev.margin_note(r)[0] == "margin at rounding level"
    assert "(margin at rounding level)" in ev.headline(r)
    assert any("at rounding level" in s and "not a violation" in s for s in ev.slack(r))
    wide = _inequality_result(worst_margin=1e-40)            # inside the allowance, above rounding
    assert ev.margin_note(wide)[0] == "margin inside the declared allowance"
    assert ev.margin_note(_inequality_result(worst_margin=-1e-3)) is None
    assert ev.margin_note(_inequality_result(verdict="refuted", worst_margin=1.0)) is None


def test_the_report_has_a_table_of_contents_and_an_anchor_per_claim(report):
    html = (report / "report.html").read_text(encoding="utf-8")
    ids = set(re.findall(r'\bid="([^"]+)"', html))
    hrefs = set(re.findall(r'href="#([^"]*)"', html))
    assert hrefs and hrefs <= ids, sorted(hrefs - ids)          # every in-page link lands
    toc = html[html.index('<nav id="toc"'):html.index("</nav>")]
    for anchor in ("headline", "provenance", "by-reading", "all-claims", "papers", "figures"):
        assert f'href="#{anchor}"' in toc
    for cid in IDS:                                               # one anchor per claim, linked from the TOC
        assert f'id="claim-{cid}"' in html and f'href="#claim-{cid}"' in toc
    css = html[html.index("<style>"):html.index("</style>")]
    wide = css[css.index("@media (min-width:"):]
    assert "#toc{position:sticky" in wide.replace(" ", "")          # sticky on wide screens, CSS only
    # self-contained: no stylesheet, script or image fetched from anywhere
    assert not re.search(r'<link\b|<script[^>]+src=|<img[^>]+src="(?!data:)', html)
    md = (report / "report.md").read_text(encoding="utf-8")
    toc_md = md[md.index("## Contents"):md.index("## Headline results")]
    targets = re.findall(r"\]\(#([^)]+)\)", toc_md)
    assert "headline" in targets and "papers" in targets
    for t in targets:
        assert f'<a id="{t}"></a>' in md, t
