"""Result files: resuming equals one uninterrupted run; a killed run keeps its chunks."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from proofs_check.engine import ResultFileError, get_claim, verify_claim
from proofs_check.engine.verify import result_path


def test_extended_run_equals_uninterrupted_run(tmp_path):
    claim = get_claim("seed.dg_tail")
    first = verify_claim(claim, budget=20_000, seed=4, method="fixed", out=tmp_path / "a")
    extended = verify_claim(claim, budget=60_000, seed=4, method="fixed", out=tmp_path / "a", resume=True)
    whole = verify_claim(claim, budget=60_000, seed=4, method="fixed", out=tmp_path / "b")
    assert first.trials == 20_000
    assert (extended.events, extended.trials) == (whole.events, whole.trials)
    lines = result_path(tmp_path / "a", claim.id).read_text().splitlines()
    assert len(lines) == 1 + 60          # header + one line per chunk, none recomputed


def test_rerun_without_resume_keeps_the_old_file(tmp_path):
    claim = get_claim("seed.dg_tail")
    verify_claim(claim, budget=5_000, seed=1, method="fixed", out=tmp_path)
    verify_claim(claim, budget=5_000, seed=1, method="fixed", out=tmp_path)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["seed.dg_tail.chunks.jsonl", "seed.dg_tail.chunks.prev-1.jsonl"]


def test_mismatched_and_corrupt_files_are_refused(tmp_path):
    claim = get_claim("seed.dg_tail")
    verify_claim(claim, budget=5_000, seed=1, method="fixed", out=tmp_path)
    path = result_path(tmp_path, claim.id)
    before = path.read_text()
    with pytest.raises(ResultFileError, match="seed"):
        verify_claim(claim, budget=5_000, seed=2, method="fixed", out=tmp_path, resume=True)
    assert path.read_text() == before                    # nothing lost or overwritten
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


def test_killed_run_keeps_finished_chunks_and_resumes_to_same_totals(tmp_path):
    (tmp_path / "tests_slow_chunk.py").write_text(SLOW_CHUNK)
    (tmp_path / "run.py").write_text(SLOW_RUN)
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    proc = subprocess.Popen([sys.executable, str(tmp_path / "run.py"), str(out)], env=env)
    path = out / "test.slow.chunks.jsonl"
    deadline = time.time() + 60
    while time.time() < deadline:
        if path.exists() and len(path.read_text().splitlines()) > 20:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    kept = len(path.read_text().splitlines()) - 1
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
    recs = [json.loads(x) for x in path.read_text().splitlines()[1:]]
    assert sorted(r["k"] for r in recs) == list(range(400))   # no chunk computed twice
