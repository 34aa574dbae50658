"""Result files: resuming equals one uninterrupted run; a killed run keeps its chunks."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from proofs_check.engine import ResultFileError, verify_claim
from proofs_check.engine.store import DB_NAME
from proofs_check.engine.verify import result_path


def _at_boundary(chunk_size=1_000):
    """A Bernoulli claim whose true p equals δ: never decided, so every run uses its whole budget."""
    import functools

    from proofs_check.engine import ProbabilityClaim
    from proofs_check.selftest.samplers import bernoulli_events
    return ProbabilityClaim(id="test.boundary", statement="P(X = 1) ≤ 0.3", source="test",
                            label="DERIVED", fn=functools.partial(bernoulli_events, p=0.3), delta=0.3,
                            chunk_size=chunk_size)


def test_extended_anytime_run_equals_uninterrupted_run(tmp_path):
    claim = _at_boundary()
    first = verify_claim(claim, budget=20_000, seed=4, out=tmp_path / "a")
    extended = verify_claim(claim, budget=60_000, seed=4, out=tmp_path / "a", resume=True)
    whole = verify_claim(claim, budget=60_000, seed=4, out=tmp_path / "b")
    assert first.trials == 20_000 and first.verdict == "inconclusive"
    assert (extended.events, extended.trials, extended.ci) == (whole.events, whole.trials, whole.ci)
    lines = [json.loads(x) for x in result_path(tmp_path / "a", claim.id).read_text().splitlines()]
    assert sum("k" in r for r in lines) == 60           # one line per chunk, none recomputed
    assert [r["eval"]["chunks"] for r in lines if "eval" in r] == [20, 60]   # both looks recorded


def test_a_seen_fixed_run_cannot_be_extended(tmp_path):
    """Issue 9 item 6: doubling a --fixed budget until decisive is optional stopping."""
    claim = _at_boundary()
    verify_claim(claim, budget=20_000, seed=4, method="fixed", out=tmp_path)
    again = verify_claim(claim, budget=20_000, seed=4, method="fixed", out=tmp_path, resume=True)
    assert again.trials == 20_000                       # re-evaluating the same data is fine
    with pytest.raises(ValueError, match="optional stopping"):
        verify_claim(claim, budget=40_000, seed=4, method="fixed", out=tmp_path, resume=True)
    # anytime-valid continuation of the same chunks is allowed
    cont = verify_claim(claim, budget=40_000, seed=4, method="anytime", out=tmp_path, resume=True)
    assert cont.trials == 40_000 and cont.guarantee == "anytime-valid"
    with pytest.raises(ValueError, match="optional stopping"):      # and no fixed test after looks
        verify_claim(claim, budget=40_000, seed=4, method="fixed", out=tmp_path, resume=True)


def test_alpha_and_code_are_fixed_when_a_run_starts(tmp_path):
    import dataclasses
    import functools

    from proofs_check.selftest.samplers import bernoulli_events
    claim = _at_boundary()
    verify_claim(claim, budget=5_000, seed=1, out=tmp_path, alpha=0.01)
    with pytest.raises(ResultFileError, match="alpha"):
        verify_claim(claim, budget=10_000, seed=1, out=tmp_path, alpha=0.05, resume=True)
    changed = dataclasses.replace(claim, fn=functools.partial(bernoulli_events, p=0.31))
    assert changed.fingerprint() != claim.fingerprint()    # bound arguments are fingerprinted
    with pytest.raises(ResultFileError, match="fingerprint"):
        verify_claim(changed, budget=10_000, seed=1, out=tmp_path, resume=True)
    assert dataclasses.replace(claim, version=2).fingerprint() != claim.fingerprint()


def test_old_format_files_are_refused_not_mixed(tmp_path):
    claim = _at_boundary()
    verify_claim(claim, budget=2_000, seed=1, out=tmp_path)
    path = result_path(tmp_path, claim.id)
    lines = path.read_text().splitlines()
    head = json.loads(lines[0])
    head["format"] = "theorycheck-chunks/1"
    path.write_text("\n".join([json.dumps(head)] + lines[1:]) + "\n")
    (tmp_path / DB_NAME).unlink()                         # a folder from before the SQLite store
    with pytest.raises(ResultFileError, match="old format"):
        verify_claim(claim, budget=2_000, seed=1, out=tmp_path, resume=True)


def _db_rows(out, sql, params=()):
    import sqlite3
    with sqlite3.connect(out / DB_NAME) as db:
        return db.execute(sql, params).fetchall()


def test_rerun_without_resume_keeps_the_old_run(tmp_path):
    claim = _at_boundary()
    verify_claim(claim, budget=5_000, seed=1, method="fixed", out=tmp_path)
    verify_claim(claim, budget=5_000, seed=1, method="fixed", out=tmp_path)
    assert _db_rows(tmp_path, "SELECT COUNT(*) FROM runs WHERE name = ?", (claim.id,)) == [(2,)]
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".jsonl") == ["test.boundary.chunks.jsonl"]


def test_mismatched_and_corrupt_files_are_refused(tmp_path):
    claim = _at_boundary()
    verify_claim(claim, budget=5_000, seed=1, method="fixed", out=tmp_path)
    path = result_path(tmp_path, claim.id)
    before = path.read_text()
    with pytest.raises(ResultFileError, match="seed"):
        verify_claim(claim, budget=5_000, seed=2, method="fixed", out=tmp_path, resume=True)
    assert path.read_text() == before                    # nothing lost or overwritten
    (tmp_path / DB_NAME).unlink()                         # only the JSON-lines export is left: imported
    path.write_text(before.splitlines()[0] + "\n{not json}\n" + "\n".join(before.splitlines()[1:]) + "\n")
    with pytest.raises(ResultFileError, match="corrupt at line 2"):
        verify_claim(claim, budget=5_000, seed=1, method="fixed", out=tmp_path, resume=True)


SLOW_RUN = textwrap.dedent("""
    import functools, sys, time
    from proofs_check.engine import ProbabilityClaim, verify_claim
    from tests_slow_chunk import slow_events
    claim = ProbabilityClaim(id="test.slow", statement="s", source="test", label="DERIVED",
                             fn=slow_events, delta=0.5, chunk_size=100)
    verify_claim(claim, budget=100 * 400, seed=3, method="fixed", out=sys.argv[1])
""")

SLOW_CHUNK = textwrap.dedent("""
    import time
    import numpy as np
    def slow_events(rng, n):
        time.sleep(0.02)
        return int(np.count_nonzero(rng.random(n) < 0.3))
""")


@pytest.mark.slow
@pytest.mark.hostile     # 9 s: a CLI run killed in a subprocess, then resumed
def test_killed_run_keeps_finished_chunks_and_resumes_to_same_totals(tmp_path):
    (tmp_path / "tests_slow_chunk.py").write_text(SLOW_CHUNK)
    (tmp_path / "run.py").write_text(SLOW_RUN)
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    proc = subprocess.Popen([sys.executable, str(tmp_path / "run.py"), str(out)], env=env)
    deadline = time.time() + 60

    def stored():
        try:
            return _db_rows(out, "SELECT COUNT(*) FROM chunks")[0][0]
        except Exception:                     # the store is not created yet
            return 0
    while time.time() < deadline and stored() <= 20:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    kept = stored()
    assert 20 <= kept < 400, kept

    sys.path.insert(0, str(tmp_path))
    try:
        from tests_slow_chunk import slow_events
        from proofs_check.engine import ProbabilityClaim
        claim = ProbabilityClaim(id="test.slow", statement="s", source="test", label="DERIVED",
                                 fn=slow_events, delta=0.5, chunk_size=100)
        resumed = verify_claim(claim, budget=100 * 400, seed=3, method="fixed", out=out, resume=True,
                               executor="threads", workers=2)
        whole = verify_claim(claim, budget=100 * 400, seed=3, method="fixed", executor="threads", workers=2)
    finally:
        sys.path.remove(str(tmp_path))
    assert (resumed.events, resumed.trials) == (whole.events, whole.trials)
    ks = [k for (k,) in _db_rows(out, "SELECT k FROM chunks ORDER BY k")]
    assert ks == list(range(400))                               # every chunk once
    recs = [r for r in map(json.loads, (out / "test.slow.chunks.jsonl").read_text().splitlines()[1:]) if "k" in r]
    assert sorted(r["k"] for r in recs) == list(range(400))     # and the export agrees
