"""The first hour without friction (issue 32, friction list 1–4; issue 35's ``diff`` defects).

* progress on stderr whenever a run lasts more than a few seconds, terminal or not, with a
  count and an ETA per finished claim, silenced by ``--quiet``;
* several patterns to ``verify``/``report``/``list``: their union, each claim once, a
  pattern that matches nothing named; positional words after an option
  (``verify good.py -m good mine.rare``);
* ``verify --out DIR`` writes ``results.jsonl`` and ``report.json`` (provenance, fingerprints),
  ``diff`` compares two such folders and says which fields it could not compare otherwise;
* ``diff`` on hostile input: one line naming file/line/field, exit 2; a 100 MB results file is
  refused at once.

The fast tests call :func:`theorycheck.cli.main` in this process; the ``slow`` ones run the
installed ``theorycheck`` command with stdout redirected to a file, as a user meets it.
"""
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

from theorycheck import cli
from theorycheck.cli import _ProgressLines, main

TWO = ("selftest.dg_tail", "selftest.dg_tail_doubled")
SERIAL = ("--executor", "serial")          # no pool to start: the fast tests stay fast


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- progress

def test_progress_lines_give_count_eta_and_stay_silent_for_a_short_run():
    buf = io.StringIO()
    with _ProgressLines(3, stream=buf, after_s=0.0, heartbeat_s=60) as p:
        p.tracker("c")(1, 4)                        # a running claim a quarter done
        p.claim_done("a", "holds", 0.5)
        p.claim_done("b", "refuted", 1.25)
    text = buf.getvalue()
    assert "[1/3 claims] holds        a (0.5 s)" in text and "[2/3 claims] refuted" in text
    # ETA = elapsed · (1 − f)/f with f = (2 + 1/4)/3 > 0: a number of seconds, not "unknown"
    assert re.search(r"\[2/3 claims\].* elapsed · ETA \d+ s for the claims", text), text
    quiet = io.StringIO()
    with _ProgressLines(2, stream=quiet, after_s=60.0) as p:    # ends before the threshold: nothing
        p.claim_done("a", "holds", 0.1)
        p.claim_done("b", "holds", 0.1)
    assert quiet.getvalue() == ""


def test_progress_first_line_and_heartbeat_while_nothing_finishes():
    buf = io.StringIO()
    with _ProgressLines(stream=buf, after_s=0.1, heartbeat_s=0.3) as p:
        time.sleep(0.8)                                  # loading: first line, then "still loading"
        p.set_work(2)
        time.sleep(0.8)                                  # a slow claim: "still running"
    lines = buf.getvalue().splitlines()
    assert "verify: loading claims" in lines[0] and len(lines[0]) <= 60
    assert any("still loading the claims" in x for x in lines)
    assert any("2 claims to verify" in x for x in lines)
    assert any("[0/2 claims] still running" in x and "ETA unknown until a claim finishes" in x for x in lines)


def test_verify_prints_progress_to_a_non_terminal_stderr_and_quiet_silences_it(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(cli, "PROGRESS_AFTER_S", 0.0)
    code, out, err = _run(["verify", *TWO, "--quick", "--format", "plain", "--out", str(tmp_path / "o"), *SERIAL],
                          capsys)
    assert code == 0
    assert "[1/2 claims]" in err and "[2/2 claims]" in err and "elapsed" in err
    assert "claims]" not in out                       # stdout stays data
    code, out, err = _run(["verify", "selftest.dg_tail", "--quick", "--quiet", "--format", "plain", "--out",
                           str(tmp_path / "o"), *SERIAL], capsys)
    assert code == 0 and "claims]" not in err and "--quiet" not in err


# --------------------------------------------------------------------------- several patterns

def _listed(capsys, *words):
    code, out, err = _run(["list", *words, "--format", "json"], capsys)
    return code, [json.loads(x)["claim"] for x in out.splitlines()], err


def test_several_patterns_are_a_union_each_claim_once(capsys):
    code, ids, _ = _listed(capsys, "selftest.dg*", "selftest.dg_tail", "selftest.logit*", "selftest.dg*")
    assert code == 0
    assert ids == ["selftest.dg_tail", "selftest.dg_tail_doubled", "selftest.logit_energy_identity"]


def test_a_pattern_matching_nothing_is_named(capsys):
    for cmd in (["list"], ["verify", "--quick"], ["report", "--quick"]):
        code, out, err = _run([*cmd, "selftest.dg*", "nosuch.zzz"], capsys)
        assert code == 2 and "'nosuch.zzz' matches no claim" in err and err.count("\n") == 1, (cmd, err)


def test_positional_words_after_options_join_the_patterns(capsys, tmp_path):
    mine = tmp_path / "good.py"
    mine.write_text("import proofs_check as pc\n"
                    "pc.probability('mine.rare', lambda rng, n: rng.random(n) < 0.001, delta=0.05, "
                    "quick_budget=2000)\n"
                    "pc.probability('mine.often', lambda rng, n: rng.random(n) < 0.2, delta=0.05, "
                    "quick_budget=2000)\n")
    from proofs_check.engine import registry

    with registry.isolated():
        code, ids, err = _listed(capsys, str(mine), "--paper", "nosuchpaper-ignored", "mine.rare")
        assert code == 2 and "nosuchpaper" in err       # the option is still parsed as an option
        code, ids, err = _listed(capsys, str(mine), "--format", "json", "mine.rare")
        assert code == 0 and ids == ["mine.rare"], err
    code, out, err = _run(["list", "selftest.dg_tail", "--bogus"], capsys)
    assert code == 2 and "unrecognized arguments: --bogus" in err


# --------------------------------------------------------------------------- verify --out, diff

def test_verify_out_writes_results_and_report_json_that_diff_compares(capsys, tmp_path):
    from theorycheck.report import read_results
    from theorycheck.report.schema import load_meta

    a, b = tmp_path / "a", tmp_path / "b"
    assert _run(["verify", *TWO, "--quick", "--quiet", "--out", str(a), "--format", "plain", *SERIAL], capsys)[0] == 0
    assert _run(["verify", *TWO, "--quick", "--quiet", "--out", str(b), "--seed", "1", "--json", *SERIAL],
                capsys)[0] == 0
    meta = load_meta(a / "report.json")                 # the schema `report --from` uses accepts it
    assert set(meta["claims"]) == set(TWO) and meta["seed"] == 0 and meta["quick"] is True
    assert meta["provenance"]["numpy"] and "commit" in meta["provenance"]
    assert all(len(m["fingerprint"]) >= 12 for m in meta["claims"].values())
    assert [r.claim for r in read_results(a / "results.jsonl")] == list(TWO)
    code, out, err = _run(["diff", str(a), str(b), "--no-findings", "--format", "plain"], capsys)
    assert code in (0, 1)
    assert "no results found" not in err and "not compared" not in err and "not recorded" not in err
    # fingerprints are compared: a changed one is listed
    m = json.loads((b / "report.json").read_text())
    m["claims"]["selftest.dg_tail"]["fingerprint"] = "0" * 64
    (b / "report.json").write_text(json.dumps(m))
    code, out, err = _run(["diff", str(a), str(b), "--no-findings", "--format", "plain"], capsys)
    assert code == 1 and "fingerprint" in out and "selftest.dg_tail" in out
    # `verify --json` lines carry no provenance: diff says exactly which fields it could not compare
    jl = tmp_path / "v.jsonl"
    jl.write_text((a / "results.jsonl").read_text())
    code, out, err = _run(["diff", str(a), str(jl), "--no-findings", "--format", "plain"], capsys)
    assert code == 0
    assert ("not compared: each claim's code fingerprint and version, the source commit, the package and "
            "library versions, quick or default budgets, the date of the run — run B recorded none") in err


def _report_dir(tmp_path, capsys):
    d = tmp_path / "good"
    assert _run(["verify", "selftest.dg_tail", "--quick", "--quiet", "--out", str(d), "--json", *SERIAL],
                capsys)[0] == 0
    return d


def test_diff_on_hostile_input_is_one_line_exit_2(capsys, tmp_path):
    good = _report_dir(tmp_path, capsys)
    line = (good / "results.jsonl").read_text().splitlines()[0]
    cases = {
        "claims_x": ({"report.json": lambda m: {**m, "claims": "x"}}, "field 'claims'"),
        "seed_nan": ({"report.json": lambda m: {**m, "seed": float("nan")}}, "field 'seed'"),
        "non_dict_line": ({"results.jsonl": line + "\n[1, 2]\n"}, "line 2"),
        "nan_trials": ({"results.jsonl": json.dumps({**json.loads(line), "trials": math.nan}) + "\n"},
                       "field 'trials'"),
    }
    for name, (edit, needle) in cases.items():
        bad = tmp_path / name
        shutil.copytree(good, bad)
        for fname, change in edit.items():
            if fname == "report.json":
                m = json.loads((bad / fname).read_text())
                (bad / fname).write_text(json.dumps(change(m)))
            else:
                (bad / fname).write_text(change)
        code, out, err = _run(["diff", str(good), str(bad), "--no-findings"], capsys)
        assert code == 2, (name, err)
        assert err.count("\n") == 1 and needle in err and "Traceback" not in err, (name, err)
        assert str(bad) in err, (name, err)


def test_diff_refuses_a_100_mb_results_file_at_once(capsys, tmp_path):
    good = _report_dir(tmp_path, capsys)
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as fh:                         # a 100 MB file (sparse: the size is real)
        fh.truncate(100 * 2 ** 20)
    t0 = time.perf_counter()
    code, out, err = _run(["diff", str(good), str(big), "--no-findings"], capsys)
    assert code == 2 and time.perf_counter() - t0 < 5
    assert "100 MB of results, more than the 8 MB" in err and err.count("\n") == 1


# --------------------------------------------------------------------------- as a user meets it

def _cli(*args, cwd, timeout=900):
    """The installed ``theorycheck`` command, stdout into a file (not a terminal), real stderr."""
    exe = shutil.which("theorycheck") or sys.executable
    cmd = [exe, *args] if exe != sys.executable else [exe, "-m", "theorycheck", *args]
    out_path = os.path.join(cwd, "stdout.txt")
    t0 = time.monotonic()
    with open(out_path, "w") as out:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "COLUMNS": "120"})
        stamped = []
        for line in p.stderr:                            # each stderr line with its time since the start
            stamped.append((time.monotonic() - t0, line.rstrip("\n")))
        p.wait(timeout=timeout)
    with open(out_path) as fh:
        return p.returncode, fh.read(), stamped


@pytest.mark.slow
def test_verify_to_a_file_shows_progress_within_5_s(tmp_path):
    code, out, err = _cli("verify", "selftest.dg*", "selftest.dg_tail", "--quick", "--out", "o", cwd=tmp_path)
    assert code == 0 and "selftest.dg_tail_doubled" in out
    progress = [(t, x) for t, x in err if x.startswith("theorycheck: ") and "elapsed" in x]
    assert progress and progress[0][0] < 5.0, err
    assert any("[2/2 claims]" in x for _, x in progress)
    assert (tmp_path / "o" / "results.jsonl").exists() and (tmp_path / "o" / "report.json").exists()
    code, out, err = _cli("verify", "selftest.dg_tail", "--quick", "--quiet", "--out", "o", cwd=tmp_path)
    assert code == 0 and not [x for _, x in err if "elapsed" in x]


@pytest.mark.slow
def test_report_quick_to_a_log_shows_progress(tmp_path):
    code, out, err = _cli("report", "--quick", "selftest.dg*", "--out", "rep", cwd=tmp_path)
    assert code == 0 and "report written to" in out
    progress = [(t, x) for t, x in err if "elapsed" in x]
    assert progress and progress[0][0] < 5.0, err
    assert any("[2/2 claims]" in x for _, x in progress), err
