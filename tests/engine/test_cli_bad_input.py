"""Sixty-odd bad invocations: each is one stderr line, exit 2, no traceback, nothing written."""

import pytest

from theorycheck.cli import main

HUGE = str(10 ** 400)

BAD = [
    # arguments
    ["verify"], ["verify", "nope"], ["verify", "selftest.dg_tail", "--budget", "0"],
    ["verify", "selftest.dg_tail", "--budget", "-5"], ["verify", "selftest.dg_tail", "--budget", "1e15"],
    ["verify", "selftest.dg_tail", "--budget", HUGE], ["verify", "selftest.dg_tail", "--budget", str(10 ** 30)],
    ["verify", "selftest.dg_tail", "--budget", "abc"], ["verify", "selftest.dg_tail", "--budget", ""],
    ["verify", "selftest.dg_tail", "--budget", "2.5"], ["verify", "selftest.dg_tail", "--seed", "-1"],
    ["verify", "selftest.dg_tail", "--seed", "x"], ["verify", "selftest.dg_tail", "--seed", HUGE + "x"],
    ["verify", "selftest.dg_tail", "--alpha", "0"], ["verify", "selftest.dg_tail", "--alpha", "1"],
    ["verify", "selftest.dg_tail", "--alpha", "1.5"], ["verify", "selftest.dg_tail", "--alpha", "-0.1"],
    ["verify", "selftest.dg_tail", "--alpha", "nan"], ["verify", "selftest.dg_tail", "--alpha", "inf"],
    ["verify", "selftest.dg_tail", "--alpha", "5e-324"], ["verify", "selftest.dg_tail", "--alpha", "x"],
    ["verify", "selftest.dg_tail", "--workers", "0"], ["verify", "selftest.dg_tail", "--workers", "1e10"],
    ["verify", "selftest.dg_tail", "--workers", "10000000000", "--executor", "processes"],
    ["verify", "selftest.dg_tail", "--executor", "gpu"], ["verify", "selftest.dg_tail", "--executor", ""],
    ["verify", "selftest.dg_tail", "--executor", "threads", "--scheduler", "tcp://127.0.0.1:1"],
    ["verify", "selftest.dg_tail", "--scheduler", "tcp://127.0.0.1:1"],
    ["verify", "selftest.dg_tail", "--scheduler", "tcp://127.0.0.1:99999"],
    ["verify", "selftest.dg_tail", "--scheduler", "not-an-address"],
    ["verify", "selftest.dg_tail", "--scheduler", "tcp://host-that-does-not-exist.invalid:8786"],
    ["verify", "selftest.dg_tail", "--out", ""], ["verify", "selftest.dg_tail", "--out", "   "],
    ["verify", "selftest.dg_tail", "--resume"],                       # default folder, nothing to resume: fine? no:
    ["verify", "selftest.dg_tail", "--bogus"], ["verify", "selftest.dg_tail", "extra"],
    ["verify", "[[["], ["verify", "selftest.dg_tail", "--quick", "--budget", "-1"],
    # other commands
    [], ["nope"], ["list", "--paper", "nope"], ["list", "nope.nothing"], ["list", "--bogus"],
    ["list", "a", "b"], ["figs", "nope-figure"], ["figs", "--seed", "-3"], ["figs", "--out", ""],
    ["figs", "--bogus"], ["report", "--alpha", "2"], ["report", "--out", ""], ["report", "--budget", "5"],
    ["report", "--rerender", "--out", "no-such-report"], ["report", "nope.nothing"],
    ["report", "--workers", "-1"], ["calibrate", "--reps", "0"], ["calibrate", "--reps", "x"],
    ["calibrate", "--alpha", "1"], ["calibrate", "--alpha", "0"], ["calibrate", "--kind", "nope"],
    ["calibrate", "--bogus"], ["calibrate", "--reps", HUGE],
    ["verify", "selftest.dg_tail", "--fixed", "--fixed", "--budget", "0"],
    ["list", "--json", "--paper", ""],
]
# `verify --resume` with the default (absent) folder starts a fresh run: not an error
BAD.remove(["verify", "selftest.dg_tail", "--resume"])


def _listing(path):
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


@pytest.mark.parametrize("argv", BAD, ids=[" ".join(a)[:60] or "(nothing)" for a in BAD])
def test_bad_invocation_is_one_line_exit_2_and_writes_nothing(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = _listing(tmp_path)
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, (code, err)
    lines = [x for x in err.strip().splitlines() if x.strip() and not x.startswith("usage:")
             and not x.startswith(" ")]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert _listing(tmp_path) == before


def test_there_are_at_least_sixty_cases():
    assert len(BAD) >= 60


def test_unwritable_and_odd_output_folders_are_one_line(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    for out in (str(blocker / "sub"), "/proc/theorycheck-cannot-write", str(tmp_path / ("n" * 300))):
        code = main(["verify", "selftest.dg_tail", "--quick", "--out", out])
        err = capsys.readouterr().err
        assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (out, err)
    (tmp_path / "res").mkdir()
    (tmp_path / "res" / "selftest.dg_tail.chunks.jsonl").mkdir()       # a directory where the export goes
    code = main(["verify", "selftest.dg_tail", "--quick", "--out", str(tmp_path / "res")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err


def test_a_closed_pipe_ends_quietly(tmp_path):
    import subprocess
    import sys
    proc = subprocess.run(f"{sys.executable} -m theorycheck list --json | head -1", shell=True,
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.count("\n") == 1
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr
