"""The report: results round-trip through results.jsonl, and the report re-renders from it."""
import json

import pytest

import proofs_check as pc
from proofs_check.engine import Result
from proofs_check.report import read_results, render_markdown, rerender_report


@pytest.fixture(scope="module")
def results():
    ids = ["selftest.dg_tail", "selftest.dg_tail_doubled", "selftest.logit_energy_identity"]
    return [pc.verify(i, quick=True) for i in ids]


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
    assert "## As expected (3)" in text and "## Findings (0)" in text


def test_a_bad_results_file_is_refused_naming_the_line(tmp_path):
    (tmp_path / "results.jsonl").write_text('{"kind": "probability", "bogus": 1}\n')
    with pytest.raises(ValueError, match="line 1"):
        rerender_report(tmp_path)
    with pytest.raises(ValueError, match="does not exist"):
        rerender_report(tmp_path / "nowhere")
