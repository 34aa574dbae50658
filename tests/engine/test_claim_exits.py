"""Claim code cannot take over the CLI (issue 26, items 3, 11 and 14).

Every test runs the real command line in a subprocess, from a temporary folder,
and reads its real stdout, stderr and exit status, as a user meets them:

* ``sys.exit`` (any code) inside a chunk, on every executor, and at import;
  ``os._exit`` and a segfault in a worker process; an exception in a chunk —
  each is one stderr line naming the claim and the ``file:line`` (no traceback
  unless ``THEORYCHECK_DEBUG=1``), the other claims still run, and the exit
  status is 3 (2 at import), never 0 under ``--fail-on``;
* ``print`` inside claim code never lands in ``--json`` stdout;
* ``--workers`` above the machine's cap is lowered with one line naming both;
* ``kill -9`` or SIGTERM of a ``--executor processes`` run leaves no process behind.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

#: Subprocess suites (each test starts the CLI): the slow tier, run first in CI's slow stage
#: (``.ci/run``), so that the default run stays under 10 minutes on 2 cores.
pytestmark = [pytest.mark.slow, pytest.mark.hostile]

HEADER = "import os, sys, time\nimport proofs_check as pc\n"

OK = textwrap.dedent('''
    def ok(rng, n):
        print("noise from a claim")
        return rng.random(n) < 0.01
    pc.probability("zz.ok", ok, delta=0.05, budget=20_000, quick_budget=20_000, chunk_size=1000)
''')


def claim_file(tmp_path, name, body, with_ok=True):
    """A claims file whose claim ``<name>.bad`` runs ``body`` (indented code using
    ``rng`` and ``n``) in every chunk after the declaration probe (n > 8)."""
    src = HEADER + textwrap.dedent(f'''
        def bad(rng, n):
            if n > 8:
        {textwrap.indent(textwrap.dedent(body), " " * 8)}
            return rng.random(n) < 0.01
        pc.probability("{name}.bad", bad, delta=0.05, budget=20_000, quick_budget=20_000, chunk_size=1000)
    ''') + (OK if with_ok else "")
    path = tmp_path / f"{name}.py"
    path.write_text(src)
    line = next(i for i, ln in enumerate(src.splitlines(), 1) if ln.startswith("        ") and "if n" not in ln)
    return path, line


def run_cli(args, cwd, env=None, timeout=240):
    e = {k: v for k, v in os.environ.items() if k != "THEORYCHECK_DEBUG"}
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "theorycheck", *map(str, args)], cwd=cwd, env=e,
                          capture_output=True, text=True, timeout=timeout)


def failure_lines(stderr):
    return [ln for ln in stderr.splitlines() if ln.startswith("theorycheck: claim ")]


def many_failures(tmp_path, processes):
    """One claims file: claims that call sys.exit(0), sys.exit(5), raise KeyError and (in a
    worker process only) call os._exit and segfault, then a claim that prints and holds.
    Returns the path and, per failing claim, (what its line must say, its line number)."""
    bodies = [("a0", "sys.exit(0)", "sys.exit(0)"), ("a5", "sys.exit(5)", "sys.exit(5)"),
              ("ke", "return {}['missing']", "KeyError: 'missing'")]
    if processes:
        bodies += [("ox", "os._exit(7)", "os._exit(7)"),
                   ("sg", "import ctypes; ctypes.string_at(0)", "died abruptly (signal 11")]
    src, expect = HEADER, {}
    for name, body, says in bodies:
        src += f"def {name}(rng, n):\n    if n > 8:\n        {body}\n    return rng.random(n) < 0.01\n"
        line = len(src.splitlines()) - 1
        src += (f"pc.probability('m.{name}', {name}, delta=0.05, budget=20_000, quick_budget=20_000, "
                f"chunk_size=1000)\n")
        expect[f"m.{name}"] = (says, None if name == "sg" else line)
    path = tmp_path / "many.py"
    path.write_text(src + OK)
    return path, expect


def check_failures(p, path, expect):
    assert p.returncode == 3, (p.returncode, p.stderr)   # never 0, even under --fail-on
    assert "Traceback" not in p.stderr and "BrokenProcessPool" not in p.stderr, p.stderr
    msgs = failure_lines(p.stderr)
    assert len(msgs) == len(expect), p.stderr
    for claim, (says, line) in expect.items():
        (msg,) = [m for m in msgs if f"claim {claim} failed" in m]
        assert says in msg, msg
        if line is not None:
            assert f"{path}:{line}" in msg, msg
    rows = [json.loads(ln) for ln in p.stdout.splitlines()]        # stdout is JSON only: no prints
    assert [r["claim"] for r in rows if "error" not in r] == ["zz.ok"]     # the other claim still ran
    # and one failed-claim line {"claim", "error", "where"} per failed claim (issue 26, 26E)
    assert sorted(r["claim"] for r in rows if "error" in r) == sorted(expect)
    assert all(set(r) == {"claim", "error", "where"} for r in rows if "error" in r)
    assert "noise from a claim" in p.stderr
    assert f"{len(expect)} claim(s) failed in their own code" in p.stderr


@pytest.mark.parametrize("executor", ["serial", "threads", "processes"])
def test_exits_and_exceptions_in_chunks_are_failed_claims(tmp_path, executor):
    from proofs_check.engine.executors import default_workers

    path, expect = many_failures(tmp_path, executor == "processes")
    workers = 64 if executor == "processes" else 2          # processes: above the machine's cap
    p = run_cli(["verify", path, "--executor", executor, "--workers", workers, "--out", tmp_path / "o",
                 "--fail-on", "refuted,inconclusive,unexpected", "--json"], tmp_path)
    check_failures(p, path, expect)
    if executor == "processes":
        cores = default_workers()
        assert (f"--workers 64 is more than this machine runs usefully for executor processes ({cores} cores: "
                f"at most {cores}); using {cores}") in p.stderr


def test_sys_exit_at_import_is_one_line_exit_2(tmp_path):
    path = tmp_path / "imp.py"
    path.write_text(HEADER + OK + "sys.exit(0)\n")
    p = run_cli(["verify", path, "--fail-on", "refuted"], tmp_path)
    assert p.returncode == 2, (p.returncode, p.stderr)
    lines = [ln for ln in p.stderr.splitlines() if "noise" not in ln]   # the probe's print: stderr
    n = len(path.read_text().splitlines())
    assert len(lines) == 1 and "sys.exit(0)" in lines[0] and f"{path}:{n}" in lines[0], lines
    assert p.stdout == ""


def test_theorycheck_debug_shows_the_traceback(tmp_path):
    path, line = claim_file(tmp_path, "ke", "return {}['missing']", with_ok=False)
    p = run_cli(["verify", path, "--executor", "serial", "--out", tmp_path / "o"], tmp_path,
                env={"THEORYCHECK_DEBUG": "1"})
    assert p.returncode == 3
    assert "Traceback (most recent call last)" in p.stderr and f'"{path}", line {line}' in p.stderr


@pytest.mark.slow    # a local Dask cluster: about 25 s on the 2-core CI box
def test_dask_exits_and_exceptions_are_failed_claims(tmp_path):
    src = HEADER + textwrap.dedent('''
        def a(rng, n):
            if n > 8:
                sys.exit(0)
            return rng.random(n) < 0.01
        def b(rng, n):
            if n > 8:
                os._exit(3)
            return rng.random(n) < 0.01
        def c(rng, n):
            if n > 8:
                return {}["k"]
            return rng.random(n) < 0.01
        for name, fn in (("d.a", a), ("d.b", b), ("d.c", c)):
            pc.probability(name, fn, delta=0.05, budget=5_000, quick_budget=5_000, chunk_size=1000)
    ''') + OK
    path = tmp_path / "d.py"
    path.write_text(src)
    p = run_cli(["verify", path, "--executor", "dask", "--workers", 1, "--out", tmp_path / "o", "--json"], tmp_path)
    assert p.returncode == 3, (p.returncode, p.stderr)
    msgs = failure_lines(p.stderr)
    assert len(msgs) == 3, p.stderr
    assert "d.a" in msgs[0] and "sys.exit(0)" in msgs[0] and f"{path}:6" in msgs[0]
    assert "d.b" in msgs[1] and "os._exit(3)" in msgs[1] and f"{path}:10" in msgs[1]
    assert "d.c" in msgs[2] and "KeyError" in msgs[2] and f"{path}:14" in msgs[2]
    assert "Traceback" not in p.stderr and "Compute Failed" not in p.stderr
    lines = [json.loads(ln) for ln in p.stdout.splitlines()]
    # verdicts for the claims that ran, one {"claim", "error", "where"} line per failed claim
    assert [r["claim"] for r in lines if "error" not in r] == ["zz.ok"]
    assert sorted(r["claim"] for r in lines if "error" in r) == ["d.a", "d.b", "d.c"]


# ---------------------------------------------------------------------------
# kill -9 and SIGTERM of a processes run leave nothing behind

def _children():
    """pid -> ppid of every process (Linux /proc)."""
    out = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat", "rb") as fh:
                    stat = fh.read()
                out[int(d)] = int(stat[stat.rindex(b")") + 2:].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    return out


def _descendants(root):
    tree, found, todo = _children(), set(), [root]
    while todo:
        p = todo.pop()
        for c, pp in tree.items():
            if pp == p and c not in found:
                found.add(c)
                todo.append(c)
    return found


def _alive(pids):
    alive = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                state = fh.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if state != b"Z":
            alive.add(pid)
    return alive


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("how", ["kill9", pytest.param("sigterm", marks=pytest.mark.slow)])
def test_killing_a_processes_run_leaves_no_process(tmp_path, how):
    path, _ = claim_file(tmp_path, "slow", "time.sleep(0.2)", with_ok=False)
    e = {k: v for k, v in os.environ.items() if k != "THEORYCHECK_DEBUG"}
    proc = subprocess.Popen([sys.executable, "-m", "theorycheck", "verify", str(path), "--executor", "processes",
                             "--workers", "2", "--fixed", "--budget", "2000000", "--out", str(tmp_path / "o")],
                            cwd=tmp_path, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    kids: set = set()
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:          # until the forkserver has forked the workers
            kids = _descendants(proc.pid)
            if len(kids) >= 4:                       # resource tracker, forkserver, 2 workers
                break
            time.sleep(0.3)
        assert len(kids) >= 4, f"the pool never started: {kids}"
        time.sleep(1.0)
        kids = _descendants(proc.pid)
        proc.send_signal(signal.SIGKILL if how == "kill9" else signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
        if how == "sigterm":
            assert proc.returncode == 143, (proc.returncode, err)
            assert "terminated (SIGTERM)" in err and "Traceback" not in err, err
        left = kids
        for _ in range(40):                          # the workers watch every 0.5 s
            left = _alive(kids)
            if not left:
                break
            time.sleep(0.5)
        assert not left, f"left running after {how}: {sorted(left)}"
    finally:
        for pid in _alive(kids | {proc.pid}):        # never leave our own processes behind
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
