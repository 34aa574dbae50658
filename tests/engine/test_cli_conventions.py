"""CLI conventions: --version, formats that never wrap, the summary line,
``--fail-on`` for CI, "did you mean", ``figs --list``, fast start, the list cache."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

import proofs_check as pc
from theorycheck.cli import main
from theorycheck.cli_format import failing, parse_fail_on, summary_line


def _run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def _result(claim, verdict, expected):
    """The three fields the summary and ``--fail-on`` read."""
    return SimpleNamespace(claim=claim, verdict=verdict, expected=expected)


def test_version_prints_the_package_version(capsys):
    code, out, _ = _run(["--version"], capsys)
    assert code == 0 and out.strip() == f"theorycheck {pc.__version__}"
    assert pc.__version__ != "0+unknown"


def test_plain_format_never_wraps_ids(capsys):
    code, out, _ = _run(["list", "--format", "plain"], capsys)
    ids = {c.id for c in pc.claims()}
    header, *rows = out.splitlines()
    assert header.split("\t") == ["claim", "kind", "label", "role", "source", "statement"]
    assert code == 0 and len(rows) == len(ids)
    assert {r.split("\t")[0] for r in rows} == ids          # every id whole, one per line


def test_markdown_format_is_a_pipe_table(capsys):
    code, out, _ = _run(["list", "selftest", "--format", "markdown"], capsys)
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("| claim |") and lines[1].startswith("|---|")
    assert len(lines) == 2 + len(pc.claims("selftest"))
    assert all(line.count(" | ") == lines[0].count(" | ") for line in lines[2:])   # escaped pipes


def test_summary_line_counts_verdicts_and_expectations():
    rs = [_result("a", "holds", "holds"), _result("b", "refuted", "refuted"),
          _result("c", "refuted", None), _result("d", "inconclusive", "holds"),
          _result("e", "refuted", "holds")]
    line = summary_line(rs, 1.25)
    assert line == ("5 claims: 1 holds, 3 refuted (1 as expected), 1 inconclusive, "
                    "1 against expectation in 1.2 s")


def test_fail_on_respects_expected_verdicts():
    rs = [_result("ok", "refuted", "refuted"), _result("bad", "refuted", "holds"),
          _result("unsure", "inconclusive", "holds")]
    assert failing(rs, ("refuted",)) == [("bad", "refuted")]
    assert failing(rs, ("inconclusive",)) == [("unsure", "inconclusive")]
    assert failing(rs, ("unexpected",)) == [("bad", "refuted, expected holds")]   # inconclusive: not settled
    with pytest.raises(ValueError, match="--fail-on must be"):
        parse_fail_on("refuted,typo")


def test_verify_exit_status_gates_on_verdicts(capsys, tmp_path):
    args = ["verify", "selftest.dg_tail_doubled", "--quick", "--out", str(tmp_path), "--format", "plain"]
    code, out, err = _run(args + ["--fail-on", "refuted,unexpected"], capsys)
    assert code == 0, err                          # refuted, but expected to be: not a failure
    assert "1 claim: 1 refuted (1 as expected)" in err
    code, out, err = _run(["verify", "selftest", "--quick", "--out", str(tmp_path / "all"), "--format", "json",
                           "--fail-on", "inconclusive"], capsys)
    rows = [json.loads(x) for x in out.splitlines()]
    assert code == (1 if any(r["verdict"] == "inconclusive" for r in rows) else 0)


def test_a_failing_condition_exits_1_and_names_the_claim(capsys, tmp_path, monkeypatch):
    import theorycheck.cli as cli

    monkeypatch.setattr(cli, "_verify_many", lambda *a, **k: iter([_planted()]))
    code, out, err = _run(["verify", "selftest.dg_tail", "--out", str(tmp_path), "--format", "plain",
                           "--fail-on", "refuted"], capsys)
    assert code == 1 and "selftest.dg_tail: refuted" in err


def _planted():
    """A refuted result of a claim expected to hold (what a regression looks like)."""
    from proofs_check.engine import get_claim, verify_claim
    from proofs_check.engine import replace

    claim = replace(get_claim("selftest.dg_tail_doubled"), id="selftest.dg_tail", expected="holds")
    r = verify_claim(claim, quick=True)
    assert r.verdict == "refuted"
    return r


def test_unknown_pattern_suggests_near_ids(capsys):
    code, _, err = _run(["list", "selftset"], capsys)
    assert code == 2 and "did you mean 'selftest'" in err
    code, _, err = _run(["verify", "selftest.dg_tial", "--quick"], capsys)
    assert code == 2 and "did you mean" in err and "selftest.dg_tail" in err


def test_figs_list_builds_nothing(capsys, tmp_path):
    code, out, _ = _run(["figs", "--list", "--out", str(tmp_path)], capsys)
    import paper_figs

    assert code == 0 and len(out.splitlines()) == len(paper_figs.figures())
    assert not any(tmp_path.iterdir())


def test_help_imports_nothing_heavy():
    code = ("import sys; from theorycheck.cli import build_parser; build_parser(); "
            "heavy = [m for m in ('scipy', 'sympy', 'numba', 'matplotlib', 'rich') if m in sys.modules]; "
            "print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.slow
@pytest.mark.hostile     # 7 s of subprocesses
def test_list_cache_gives_the_same_rows_and_skips_the_imports(tmp_path):
    env = {**os.environ, "THEORYCHECK_CACHE_DIR": str(tmp_path)}
    run = [sys.executable, "-m", "proofs_check", "list", "--json"]
    fresh = subprocess.run(run, capture_output=True, text=True, env={**env, "THEORYCHECK_NO_CACHE": "1"},
                           check=True).stdout
    first = subprocess.run(run, capture_output=True, text=True, env=env, check=True).stdout
    assert len(list(tmp_path.glob("list-*.json"))) == 1
    probe = ("import sys, runpy; sys.argv = ['theorycheck', 'list', '--json']; "
             "from theorycheck.cli import main; import io, contextlib; "
             "buf = io.StringIO();\nwith contextlib.redirect_stdout(buf): main()\n"
             "print([m for m in ('scipy', 'sympy', 'numba') if m in sys.modules])")
    heavy = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env,
                           check=True).stdout.strip()
    second = subprocess.run(run, capture_output=True, text=True, env=env, check=True).stdout
    assert fresh == first == second
    assert [json.loads(x)["claim"] for x in second.splitlines()] == [c.id for c in pc.claims()]
    assert heavy == "[]"


def test_report_pattern_builds_only_the_supporting_figures(capsys, tmp_path, monkeypatch):
    import theorycheck.report as report
    from theorycheck.report.figures import figure_info, figures_for

    seen = {}

    def fake_write(selected, out, **kw):
        seen["ids"], seen["figures"] = [c.id for c in selected], kw.get("figures")
        raise KeyboardInterrupt                      # stop before running anything

    monkeypatch.setattr(report, "write_report", fake_write)
    code, _, _ = _run(["report", "selftest", "--quick", "--out", str(tmp_path)], capsys)
    assert code == 130 and seen["ids"] == [c.id for c in pc.claims("selftest")]
    assert seen["figures"] == figures_for(pc.claims("selftest"))
    assert 0 < len(seen["figures"]) < len(figure_info())


def test_report_from_rerenders_without_running(capsys, tmp_path):
    from proofs_check.engine import get_claim, verify_claim

    r = verify_claim(get_claim("selftest.logit_energy_identity"), quick=True)
    src = tmp_path / "run"
    src.mkdir()
    (src / "results.jsonl").write_text(json.dumps(r.to_dict()) + "\n")
    code, out, _ = _run(["report", "--from", str(src / "results.jsonl"), "--out", str(tmp_path / "re")], capsys)
    assert code == 0 and "1 claim: 1 holds" in out
    assert (tmp_path / "re" / "report.md").exists() and (tmp_path / "re" / "report.html").exists()
    assert "selftest.logit_energy_identity" in (tmp_path / "re" / "report.md").read_text()
    code, _, err = _run(["report", "--from", str(tmp_path / "missing")], capsys)
    assert code == 2 and "does not exist" in err
