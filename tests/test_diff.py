"""``theorycheck diff RUN_A RUN_B``: verdict flips, estimates moved beyond their
intervals (disjoint intervals only), fingerprint changes, new and removed
claims and changed headline findings are listed; the exit status is 0 with
nothing to list, 1 with something, 2 on bad input; every format works."""
import dataclasses
import json

import pytest

import proofs_check as pc
from proofs_check.engine import get_claim
from theorycheck.cli import main
from theorycheck.diff import diff_runs, estimate, load_run
from theorycheck.report.document import claim_meta
from theorycheck.report.provenance import collect_provenance

IDS = ("selftest.dg_tail", "selftest.dg_tail_doubled", "selftest.logit_energy_identity")
PROVENANCE = collect_provenance(seed=0, alpha=0.01, quick=True)


@pytest.fixture(scope="module")
def results():
    return [pc.verify(i, quick=True) for i in IDS]


def _run(path, results, *, meta=True, fingerprints=None):
    path.mkdir(parents=True, exist_ok=True)
    (path / "results.jsonl").write_text("".join(json.dumps(r.to_dict()) + "\n" for r in results))
    if meta:
        claims = {r.claim: claim_meta(get_claim(r.claim)) for r in results}
        for cid, fp in (fingerprints or {}).items():
            claims[cid]["fingerprint"] = fp
        (path / "report.json").write_text(json.dumps({"seed": results[0].seed, "alpha": 0.01, "quick": True,
                                                      "elapsed_s": 1.0, "claims": claims,
                                                      "provenance": PROVENANCE}))
    return path


def _changes(d, kind):
    return {c["claim"] for c in d["changes"] if c["change"] == kind}


def test_identical_runs_differ_in_nothing(results, tmp_path, capsys):
    a, b = _run(tmp_path / "a", results), _run(tmp_path / "b", results)
    d = diff_runs(load_run(a), load_run(b))
    assert d["changes"] == [] and d["same"] == 3 and d["notes"] == []
    assert main(["diff", str(a), str(b), "--format", "plain"]) == 0
    assert "no change; 3 claims in both runs unchanged" in capsys.readouterr().err


def test_a_verdict_flip_new_and_removed_claims(results, tmp_path, capsys):
    dg, doubled, energy = results
    a = _run(tmp_path / "a", [dg, doubled])
    b = _run(tmp_path / "b", [dg, dataclasses.replace(doubled, verdict="holds"), energy])
    d = diff_runs(load_run(a), load_run(b), findings=False)
    assert _changes(d, "verdict") == {"selftest.dg_tail_doubled"} and _changes(d, "new") == {IDS[2]}
    (flip,) = [c for c in d["changes"] if c["change"] == "verdict"]
    assert "refuted → holds" in flip["why"]
    d2 = diff_runs(load_run(b), load_run(a), findings=False)
    assert _changes(d2, "removed") == {IDS[2]}
    assert main(["diff", str(a), str(b), "--json", "--no-findings"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["counts"]["verdict"] == 1 and out["counts"]["new"] == 1


def test_only_disjoint_intervals_count_as_moved(results, tmp_path):
    dg = results[0]
    name, v, (lo, hi) = estimate(dg)
    assert name == "p̂" and lo <= v <= hi
    w = hi - lo
    near = dataclasses.replace(dg, p_hat=v + w / 4, ci=(lo + w / 4, hi + w / 4))        # overlapping: two seeds
    far = dataclasses.replace(dg, p_hat=hi + 2 * w, ci=(hi + 1.5 * w, hi + 2.5 * w))    # disjoint: moved
    a = _run(tmp_path / "a", [dg])
    assert diff_runs(load_run(a), load_run(_run(tmp_path / "near", [near])), findings=False)["changes"] == []
    d = diff_runs(load_run(a), load_run(_run(tmp_path / "far", [far])), findings=False)
    assert _changes(d, "moved") == {"selftest.dg_tail"}
    (m,) = d["changes"]
    assert "intervals are disjoint" in m["why"] and "0.02" in m["why"]          # α_A + α_B


def test_fingerprint_changes_and_missing_report_json(results, tmp_path):
    a = _run(tmp_path / "a", results)
    b = _run(tmp_path / "b", results, fingerprints={"selftest.dg_tail": "0" * 64})
    d = diff_runs(load_run(a), load_run(b), findings=False)
    assert _changes(d, "fingerprint") == {"selftest.dg_tail"}
    c = _run(tmp_path / "c", results, meta=False)
    d = diff_runs(load_run(a), load_run(c), findings=False)
    assert d["changes"] == [] and "run B recorded none" in d["notes"][0]


def test_a_changed_headline_finding_is_listed(results, tmp_path, capsys):
    dg = results[0]
    moved = dataclasses.replace(dg, p_hat=dg.p_hat * 0.5)            # within the interval: not 'moved'
    a, b = _run(tmp_path / "a", results), _run(tmp_path / "b", [moved, *results[1:]])
    d = diff_runs(load_run(a), load_run(b))
    assert _changes(d, "finding") == {"selftest.dg_tail"} and not _changes(d, "moved")
    (f,) = d["changes"]
    assert f"{dg.p_hat:.4f}" in f["a"] and f"{dg.p_hat * 0.5:.4f}" in f["b"]
    assert "only its numbers changed" in f["why"] and d["same"] == 3 and not d["significant"]
    assert main(["diff", str(a), str(b), "--format", "markdown"]) == 0        # numbers only: not significant
    md = capsys.readouterr().out
    assert md.startswith("## Changes between two runs") and "| finding | selftest.dg\\_tail |" in md
    # a finding that reads differently (its claim flipped) is significant
    flipped = _run(tmp_path / "c", [dataclasses.replace(dg, verdict="refuted"), *results[1:]])
    d = diff_runs(load_run(a), load_run(flipped))
    (f,) = [c for c in d["changes"] if c["change"] == "finding"]
    assert "it reads differently: holds → refuted" in f["why"] and d["significant"]


def test_inputs_and_formats(results, tmp_path, capsys):
    a = _run(tmp_path / "a", results)
    jsonl = tmp_path / "verify.jsonl"                  # `verify --json` lines are a run too
    jsonl.write_text((a / "results.jsonl").read_text())
    assert main(["diff", str(a / "report.json"), str(jsonl), "--no-findings", "--format", "plain"]) == 0
    assert "no change" in capsys.readouterr().err
    assert main(["diff", str(a), str(tmp_path / "nowhere"), "--no-findings"]) == 2
    err = capsys.readouterr().err
    assert "nowhere: no results found" in err and err.count("\n") == 1
    (tmp_path / "empty.jsonl").write_text("")
    assert main(["diff", str(a), str(tmp_path / "empty.jsonl")]) == 2
    assert "holds no results" in capsys.readouterr().err
    with pytest.raises(TypeError, match="a run must be a path"):
        load_run(3)
