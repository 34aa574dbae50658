"""Concurrent ``theorycheck report`` runs into one folder (issue 26, item 4).

One writer per folder (a lock file naming its holder; a stale one is taken
over) and whole files only (temporary sibling, then rename): three concurrent
runs give one report (the others refused in one line, or run one after the
other), ``results.jsonl`` is never spliced, and ``--rerender``/``--from`` work
afterwards.  Real command line, in subprocesses, from a temporary folder.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

#: Subprocess suites (each test starts the CLI): the slow tier, run first in CI's slow stage
#: (``.ci/run``), so that the default run stays under 10 minutes on 2 cores.
pytestmark = [pytest.mark.slow, pytest.mark.hostile]

CLAIMS = textwrap.dedent('''
    import os, pathlib, time
    import proofs_check as pc
    if os.environ.get("BARRIER_DIR"):      # the concurrent runs start verifying together
        d = pathlib.Path(os.environ["BARRIER_DIR"])
        (d / f"ready-{os.getpid()}").touch()
        end = time.time() + 180
        while len(list(d.glob("ready-*"))) < 3 and time.time() < end:
            time.sleep(0.02)
    def a(rng, n):
        if n > 8:
            time.sleep(0.05)
        return rng.random(n) < 0.05          # at delta: runs its whole budget
    def b(rng, n):
        if n > 8:
            time.sleep(0.05)
        return rng.random(n) < 0.05
    pc.probability("rep.a", a, delta=0.05, budget=60_000, quick_budget=60_000, chunk_size=1000)
    pc.probability("rep.b", b, delta=0.05, budget=60_000, quick_budget=60_000, chunk_size=1000)
''')


def cli(args, cwd, **extra):
    env = {k: v for k, v in os.environ.items() if k != "THEORYCHECK_DEBUG"}
    env.update(extra)
    return [sys.executable, "-m", "theorycheck", *map(str, args)], dict(cwd=cwd, env=env)


def run(args, cwd, timeout=300):
    cmd, kw = cli(args, cwd)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


def check_folder(folder):
    lines = (folder / "results.jsonl").read_text().splitlines()
    rows = [json.loads(ln) for ln in lines]                    # every line whole
    assert sorted(r["claim"] for r in rows) == ["rep.a", "rep.b"]
    assert len({r["seed"] for r in rows}) == 1
    meta = json.loads((folder / "report.json").read_text())
    assert meta["seed"] == rows[0]["seed"]                     # report.json agrees with the results
    assert not list(folder.glob(".*.tmp"))                     # no temporary file left


@pytest.mark.slow        # five command lines: about 75 s on the loaded 2-core box
def test_three_concurrent_reports_into_one_folder(tmp_path):
    (tmp_path / "rep.py").write_text(CLAIMS)
    out = tmp_path / "R"
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    procs = []
    for seed in (1, 2, 3):
        cmd, kw = cli(["report", "rep.py", "--quick", "--executor", "serial", "--out", out, "--seed", seed],
                      tmp_path, BARRIER_DIR=str(barrier))
        procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw))
    done = [(p.wait(timeout=300), *p.communicate()) for p in procs]
    ok = [d for d in done if d[0] == 0]
    assert len(ok) == 1, done                     # they ran together: one wrote, two were refused
    refused = [d for d in done if d[0] != 0]
    assert ok, done
    for rc, _, err in refused:
        lines = err.strip().splitlines()
        assert rc == 2 and len(lines) == 1, (rc, err)
        assert f"report folder {out} is being written by another `theorycheck report` (pid " in lines[0]
        assert "running" in lines[0]
    check_folder(out)
    again = run(["report", "--rerender", "--out", out], tmp_path)
    assert again.returncode == 0, again.stderr
    other = run(["report", "--from", out, "--out", tmp_path / "R2"], tmp_path)
    assert other.returncode == 0, other.stderr


def test_a_live_holder_is_named_and_a_stale_lock_is_taken_over(tmp_path):
    from theorycheck.report import LOCK_NAME, exclusive_folder

    (tmp_path / "rep.py").write_text(CLAIMS.replace("60_000", "2_000"))
    out = tmp_path / "R"
    with exclusive_folder(out):                                 # this test process holds it
        p = run(["report", "rep.py", "--quick", "--executor", "serial", "--out", out], tmp_path)
    assert p.returncode == 2
    (line,) = p.stderr.strip().splitlines()
    assert f"report folder {out} is being written by another `theorycheck report` (pid {os.getpid()}" in line
    assert not (out / "results.jsonl").exists()
    # a lock file left by a process that is gone (kill -9): taken over
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    (out / LOCK_NAME).write_text(f"{dead} somehost 0\n")
    p = run(["report", "rep.py", "--quick", "--executor", "serial", "--out", out], tmp_path)
    assert p.returncode == 0, p.stderr
    check_folder(out)
