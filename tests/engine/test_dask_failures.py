"""Dask cannot hang a run (issue 26, item 10).

A real ``dask scheduler`` (and ``dask worker``) in subprocesses, the real
command line against it:

* a scheduler with no worker: one line naming the address and the wait, exit 2,
  after ``THEORYCHECK_DASK_DEADLINE`` seconds (default 60);
* its only worker killed mid-run: the same line; the finished chunks are in the
  store and ``--resume`` with a fresh worker gives the serial run's verdict;
* the scheduler killed mid-run: one line ("lost the Dask scheduler"), no
  traceback; ``--resume`` continues from the stored chunks.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

pytest.importorskip("distributed")

#: Subprocess suites (each test starts the CLI and a Dask scheduler): the slow tier, run first in
#: CI's slow stage (``.ci/run``), so that the default run stays under 10 minutes on 2 cores.
pytestmark = [pytest.mark.slow, pytest.mark.hostile]

DASK = os.path.join(os.path.dirname(sys.executable), "dask")

CLAIM = textwrap.dedent('''
    import time
    import proofs_check as pc
    def ev(rng, n):
        if n > 8:
            time.sleep(0.1)
        return rng.random(n) < 0.01
    pc.probability("dk.slow", ev, delta=0.05, budget=200_000, quick_budget=200_000, chunk_size=1000)
''')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def env(**extra):
    e = {k: v for k, v in os.environ.items() if k != "THEORYCHECK_DEBUG"}
    e.update(extra)
    return e


def start(cmd, cwd):
    return subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env())


def wait_port(port, timeout=60):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"no scheduler on port {port}")


def stored_chunks(out) -> int:
    try:
        with sqlite3.connect(f"file:{out / 'theorycheck.sqlite'}?mode=ro", uri=True, timeout=1) as c:
            return c.execute("select count(*) from chunks").fetchone()[0]
    except sqlite3.Error:
        return 0


def cli(args, cwd, **kw):
    return [sys.executable, "-m", "theorycheck", *map(str, args)], dict(cwd=cwd, **kw)


def stop(*procs):
    for p in procs:
        if p is not None and p.poll() is None:
            p.kill()
            p.wait(timeout=30)


@pytest.fixture
def scheduler(tmp_path):
    port = free_port()
    proc = start([DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"], tmp_path)
    try:
        wait_port(port)
        yield f"tcp://127.0.0.1:{port}", proc
    finally:
        stop(proc)


def test_a_scheduler_with_no_worker_fails_in_one_line(tmp_path, scheduler):
    address, _ = scheduler
    (tmp_path / "c.py").write_text(CLAIM)
    cmd, kw = cli(["verify", "c.py", "--scheduler", address, "--fixed", "--out", tmp_path / "o"], tmp_path,
                  env=env(THEORYCHECK_DASK_DEADLINE="3"))
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)
    assert p.returncode == 2, (p.returncode, p.stderr)
    (line,) = p.stderr.strip().splitlines()
    assert f"Dask scheduler {address} has had no worker for 3 s" in line and "--resume" in line, line
    assert time.monotonic() - t0 < 90


def _run_until_chunks(tmp_path, address, out):
    cmd, kw = cli(["verify", "c.py", "--scheduler", address, "--fixed", "--out", out, "--json"], tmp_path,
                  env=env(THEORYCHECK_DASK_DEADLINE="4"))
    run = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    end = time.monotonic() + 120
    while stored_chunks(out) < 3 and time.monotonic() < end and run.poll() is None:
        time.sleep(0.3)
    assert stored_chunks(out) >= 3, "the run never stored a chunk"
    return run


def _resumes_to_the_serial_verdict(tmp_path, out, extra):
    cmd, kw = cli(["verify", "c.py", "--fixed", "--out", out, "--resume", "--json", *extra], tmp_path, env=env())
    resumed = subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)
    assert resumed.returncode == 0, resumed.stderr
    cmd, kw = cli(["verify", "c.py", "--fixed", "--out", tmp_path / "ref", "--json", "--executor", "serial"],
                  tmp_path, env=env())
    ref = subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)
    a, b = json.loads(resumed.stdout), json.loads(ref.stdout)
    a.pop("elapsed_s"), b.pop("elapsed_s")
    assert a == b


@pytest.mark.slow       # a scheduler, two workers and three runs: about 90 s on the 2-core box
def test_losing_the_only_worker_fails_in_one_line_and_resumes(tmp_path, scheduler):
    address, _ = scheduler
    (tmp_path / "c.py").write_text(CLAIM)
    out = tmp_path / "o"
    worker = start([DASK, "worker", address, "--no-nanny", "--nthreads", "1", "--no-dashboard"], tmp_path)
    run = None
    try:
        run = _run_until_chunks(tmp_path, address, out)
        worker.send_signal(signal.SIGKILL)
        _, err = run.communicate(timeout=120)
        assert run.returncode == 2, (run.returncode, err)
        (line,) = err.strip().splitlines()
        assert f"Dask scheduler {address} has had no worker for 4 s" in line, line
        kept = stored_chunks(out)
        assert kept >= 3
        worker = start([DASK, "worker", address, "--no-nanny", "--nthreads", "1", "--no-dashboard"], tmp_path)
        _resumes_to_the_serial_verdict(tmp_path, out, ["--scheduler", address])
    finally:
        stop(run, worker)


@pytest.mark.slow       # about 60 s on the 2-core box
def test_losing_the_scheduler_is_one_line_and_resumable(tmp_path, scheduler):
    address, sched = scheduler
    (tmp_path / "c.py").write_text(CLAIM)
    out = tmp_path / "o"
    worker = start([DASK, "worker", address, "--no-nanny", "--nthreads", "1", "--no-dashboard"], tmp_path)
    run = None
    try:
        run = _run_until_chunks(tmp_path, address, out)
        sched.send_signal(signal.SIGKILL)
        _, err = run.communicate(timeout=120)
        assert run.returncode == 2, (run.returncode, err)
        assert "Traceback" not in err, err
        (line,) = [ln for ln in err.strip().splitlines() if ln.startswith("theorycheck")]
        assert f"lost the Dask scheduler {address} mid-run" in line and "--resume" in line, line
        assert len(err.strip().splitlines()) == 1, err
        stop(worker)
        _resumes_to_the_serial_verdict(tmp_path, out, ["--executor", "serial"])
    finally:
        stop(run, worker)
