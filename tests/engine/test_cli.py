"""The command line: listing, verdict JSON, and one-line errors with exit 2."""
import json
import subprocess
import sys

import pytest

import proofs_check as pc
from theorycheck.cli import main

BASE_KEYS = {"claim", "kind", "verdict", "source", "label", "seed", "elapsed_s"}
KIND_KEYS = {
    "probability": {"trials", "events", "p_hat", "ci", "delta", "alpha"},
    "inequality": {"worst_ratio", "evaluations"},
    "identity": {"max_abs_error"},
}


def _run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_list_shows_every_claim(capsys):
    code, out, _ = _run(["list", "--json"], capsys)
    rows = [json.loads(x) for x in out.splitlines()]
    assert code == 0
    assert {r["claim"] for r in rows} == {c.id for c in pc.claims()}
    for r in rows:
        assert {"claim", "kind", "source", "label"} <= set(r)
        assert r["label"] in ("CONFIRMED", "DERIVED", "RECONSTRUCTED", "OPEN") and r["source"]


def test_list_table_names_kind_source_label(capsys):
    code, out, _ = _run(["list", "selftest"], capsys)
    assert code == 0 and "selftest.dg_tail" in out and "probability" in out and "CONFIRMED" in out


def test_verify_json_has_the_documented_keys(capsys, tmp_path):
    code, out, _ = _run(["verify", "selftest", "--json", "--quick", "--seed", "3", "--out", str(tmp_path)], capsys)
    assert code == 0
    rows = [json.loads(x) for x in out.splitlines()]
    assert len(rows) == len(pc.claims("selftest"))
    for r in rows:
        assert BASE_KEYS <= set(r), set(r)
        assert KIND_KEYS.get(r["kind"], set()) <= set(r)
        assert r["verdict"] in ("holds", "refuted", "inconclusive") and r["seed"] == 3
        if r["kind"] == "probability":
            assert len(r["ci"]) == 2 and r["ci"][0] <= r["p_hat"] <= r["ci"][1]


def test_verify_cli_counts_identical_across_executors(capsys, tmp_path):
    seen = set()
    for ex, w in (("serial", 1), ("threads", 2), ("processes", 2), ("dask", 2)):
        code, out, _ = _run(["verify", "selftest.dg_tail", "--json", "--fixed", "--budget", "20000",
                             "--executor", ex, "--workers", str(w), "--out", str(tmp_path / ex)], capsys)
        r = json.loads(out)
        assert code == 0
        seen.add((r["events"], r["trials"]))
    assert len(seen) == 1


@pytest.mark.parametrize("args,needle", [
    (["verify", "no.such.claim"], "matches no claim"),
    (["verify", "selftest.dg_tail", "--alpha", "1.5"], "--alpha must lie in the open interval (0, 1)"),
    (["verify", "selftest.dg_tail", "--alpha", "0"], "--alpha must lie in the open interval (0, 1)"),
    (["verify", "selftest.dg_tail", "--budget", "0"], "--budget must be a positive integer"),
    (["verify", "selftest.dg_tail", "--budget", "-5"], "--budget must be a positive integer"),
    (["verify", "selftest.dg_tail", "--executor", "dask", "--scheduler", "tcp://127.0.0.1:1"],
     "cannot reach Dask scheduler"),
])
def test_bad_input_is_one_line_exit_2(args, needle, capsys):
    code, out, err = _run(args, capsys)
    assert code == 2
    assert needle in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_corrupt_result_file_on_resume_is_refused_and_kept(capsys, tmp_path):
    assert _run(["verify", "selftest.dg_tail", "--fixed", "--budget", "3000", "--out", str(tmp_path)], capsys)[0] == 0
    path = tmp_path / "selftest.dg_tail.chunks.jsonl"
    (tmp_path / "theorycheck.sqlite").unlink()          # only the JSON-lines export left: it is imported
    path.write_text(path.read_text() + "garbage\n{}\n")
    before = path.read_text()
    code, _, err = _run(["verify", "selftest.dg_tail", "--resume", "--out", str(tmp_path)], capsys)
    assert code == 2 and "corrupt" in err and len(err.strip().splitlines()) == 1
    assert path.read_text() == before


@pytest.mark.slow
@pytest.mark.hostile     # 5–8 s of subprocesses (the console script and python -m)
def test_console_script_and_module_entry_points():
    out = subprocess.run([sys.executable, "-m", "proofs_check", "list", "selftest", "--json"],
                         capture_output=True, text=True, check=True).stdout
    assert len(out.splitlines()) == len(pc.claims("selftest"))
    bad = subprocess.run([sys.executable, "-m", "proofs_check", "verify", "nope"], capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_resume_from_an_empty_folder_starts_a_fresh_run(tmp_path, capsys):
    out_dir = tmp_path / "not-yet"
    code, out, err = _run(["verify", "selftest.dg_tail", "--resume", "--out", str(out_dir), "--json",
                           "--budget", "20000"], capsys)
    assert code == 0, err
    assert json.loads(out)["verdict"] in ("holds", "inconclusive")
    assert (out_dir / "selftest.dg_tail.chunks.jsonl").exists()


def test_extending_a_seen_fixed_run_is_refused_in_one_line(tmp_path, capsys):
    base = ["verify", "selftest.dg_tail", "--fixed", "--out", str(tmp_path)]
    assert _run(base + ["--budget", "10000"], capsys)[0] == 0
    code, out, err = _run(base + ["--budget", "20000", "--resume"], capsys)
    assert code == 2 and "optional stopping" in err and len(err.strip().splitlines()) == 1


def test_calibrate_prints_the_operating_characteristic(capsys):
    code, out, err = _run(["calibrate", "--reps", "20", "--quick", "--kind", "comparison"], capsys)
    assert code == 0
    assert "comparison" in out and "promise" in out
