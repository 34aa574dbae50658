"""``--resume`` after a code change (issue 26 item 1, and the non-determinism part of 15).

Each case runs the real CLI in a subprocess from a scratch folder, as a user
would: a run, an edit (of a module constant, a helper module, a closure, a
value read at call time), then ``--resume``.  The resume must be refused with
one line (exit 2, no traceback) — by the fingerprint when it can see the
change, by the sampled recomputation (:func:`proofs_check.engine.runner.spot_check`)
when it cannot — and a claim that draws from global state is named
NON-DETERMINISTIC, not "edited".
"""
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

#: Subprocess suites (each test starts the CLI): the slow tier, run first in CI's slow stage
#: (``.ci/run``), so that the default run stays under 10 minutes on 2 cores.
pytestmark = [pytest.mark.slow, pytest.mark.hostile]


def _cli(tmp_path, *args, env=None):
    run_env = {**os.environ, **(env or {})}
    extra = str(tmp_path)
    run_env["PYTHONPATH"] = extra + (os.pathsep + run_env["PYTHONPATH"] if run_env.get("PYTHONPATH") else "")
    return subprocess.run([sys.executable, "-m", "theorycheck", *args], cwd=tmp_path, env=run_env,
                          capture_output=True, text=True, timeout=300)


def _one_line_refusal(proc):
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("theorycheck: error: "), proc.stderr
    return lines[0]


RUN = ("--fixed", "--seed", "7", "--budget", "20000", "--executor", "serial", "--out", "o")


def _write(path, text):
    path.write_text(textwrap.dedent(text))


def test_a_module_constant_read_by_the_claim_is_in_its_fingerprint(tmp_path):
    """The review's reproducer (P0 = 0.3000 → 0.3015): the old code resumed it
    with the old verdict whenever the last chunk happened to agree."""
    claims = tmp_path / "stale_claim.py"
    _write(claims, """
        import proofs_check as pc
        P0 = 0.3000
        def ev(rng, n):
            return rng.random(n) < P0
        pc.probability("stale.ev", ev, delta=0.3005, budget=20_000_000, quick_budget=20_000, chunk_size=1000)
    """)
    assert _cli(tmp_path, "verify", "stale_claim.py", *RUN).returncode == 0
    claims.write_text(claims.read_text().replace("P0 = 0.3000", "P0 = 0.3015"))
    line = _one_line_refusal(_cli(tmp_path, "verify", "stale_claim.py", *RUN, "--resume"))
    assert "stale.ev" in line and "fingerprint" in line and "changed since that run" in line


def test_a_helper_module_and_a_closure_are_in_the_fingerprint(tmp_path):
    """A constant of a helper module read through a helper function, and a
    value captured in a closure: both invisible to a source-only fingerprint."""
    helper = tmp_path / "tc26_helper.py"
    _write(helper, """
        LEVEL = 0.30
        def threshold():
            return LEVEL
    """)
    claims = tmp_path / "helper_claim.py"
    _write(claims, """
        import proofs_check as pc
        import tc26_helper
        SCALE = 1.0
        def make(p):
            def ev(rng, n):
                return rng.random(n) < p
            return ev
        def via_helper(rng, n):
            return rng.random(n) < tc26_helper.threshold()
        pc.probability("helper.via", via_helper, delta=0.5, budget=20_000, chunk_size=1000)
        pc.probability("helper.closure", make(0.3 * SCALE), delta=0.5, budget=20_000, chunk_size=1000)
    """)
    assert _cli(tmp_path, "verify", "helper_claim.py", *RUN).returncode == 0
    helper.write_text(helper.read_text().replace("LEVEL = 0.30", "LEVEL = 0.31"))
    claims.write_text(claims.read_text().replace("SCALE = 1.0", "SCALE = 1.01"))
    for cid in ("helper.via", "helper.closure"):
        line = _one_line_refusal(_cli(tmp_path, "verify", "helper_claim.py", cid, *RUN, "--resume"))
        assert cid in line and "changed since that run" in line


def _seed_with_unchanged_last_chunk(p_old, p_new, n_chunks, size):
    """A seed whose last chunk has the same count under both p (so recomputing
    only the last chunk, the old spot check, cannot see the change) while the
    whole run differs."""
    for seed in range(1000):
        counts = []
        for k in range(n_chunks):
            u = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(k,))).random(size)
            counts.append((int((u < p_old).sum()), int((u < p_new).sum())))
        if counts[-1][0] == counts[-1][1] and any(a != b for a, b in counts):
            return seed
    raise AssertionError("no such seed")                 # pragma: no cover


def test_a_change_the_fingerprint_cannot_see_is_caught_by_the_sampled_recomputation(tmp_path):
    """p read from the environment at call time (invisible to any fingerprint)
    moves by 1/chunk_size; the seed is chosen so that the last chunk agrees —
    the old spot check resumed the stale run; the sample of 14 chunks refuses it."""
    _write(tmp_path / "env_claim.py", """
        import os
        import proofs_check as pc
        def ev(rng, n):
            return rng.random(n) < float(os.environ["TC26_P"])
        pc.probability("envp.ev", ev, delta=0.5, budget=50_000, chunk_size=1000)
    """)
    seed = _seed_with_unchanged_last_chunk(0.300, 0.301, 50, 1000)
    run = ("--fixed", "--seed", str(seed), "--budget", "50000", "--executor", "serial", "--out", "o")
    assert _cli(tmp_path, "verify", "env_claim.py", *run, env={"TC26_P": "0.300"}).returncode == 0
    line = _one_line_refusal(_cli(tmp_path, "verify", "env_claim.py", *run, "--resume",
                                  env={"TC26_P": "0.301"}))
    assert "envp.ev" in line and "differs from a recomputation" in line


def test_a_non_deterministic_claim_is_diagnosed_as_such(tmp_path):
    _write(tmp_path / "nondet.py", """
        import numpy as np
        import proofs_check as pc
        def ev(rng, n):
            return np.random.random(n) < 0.3
        pc.probability("nondet.ev", ev, delta=0.5, budget=20_000, chunk_size=1000)
    """)
    assert _cli(tmp_path, "verify", "nondet.py", *RUN).returncode == 0
    line = _one_line_refusal(_cli(tmp_path, "verify", "nondet.py", *RUN, "--resume"))
    assert "nondet.ev" in line and "NON-DETERMINISTIC" in line and "np.random" in line
    assert "edited" not in line


def test_unchanged_code_resumes(tmp_path):
    _write(tmp_path / "same.py", """
        import proofs_check as pc
        P0 = 0.3
        def ev(rng, n):
            return rng.random(n) < P0
        pc.probability("same.ev", ev, delta=0.5, budget=20_000, chunk_size=1000)
    """)
    first = _cli(tmp_path, "verify", "same.py", *RUN, "--json")
    again = _cli(tmp_path, "verify", "same.py", *RUN, "--json", "--resume")
    assert first.returncode == again.returncode == 0, again.stderr
    strip = lambda s: s.split('"elapsed_s"')[0]            # noqa: E731
    assert strip(first.stdout) == strip(again.stdout)


# -- the pieces, in process ----------------------------------------------------------------

def test_spot_check_size_meets_the_stated_power():
    """(1 − 1/m)^(m·s) ≤ 1e-6 for the chosen s, and s − 1 would not do (for m ≥ 2)."""
    from proofs_check.engine.runner import spot_check_size

    for m in (2, 3, 10, 100, 1000, 10 ** 6):
        s = spot_check_size(m, 10 ** 9)
        q = (1 - 1 / m) ** m
        assert q ** s <= 1e-6 < q ** (s - 1)
    assert spot_check_size(1000, 10 ** 9) == 14 == math.ceil(6 * math.log(10))
    assert spot_check_size(1000, 5) == 5 and spot_check_size(1, 10) == 1


LEVEL = 0.25


def _reads_level(rng, n):
    return rng.random(n) < LEVEL


def test_describe_sees_globals_and_nondeterministic_reads_names_them(monkeypatch):
    from proofs_check.engine.fingerprint import describe_callable, nondeterministic_reads

    before = describe_callable(_reads_level)
    monkeypatch.setattr(sys.modules[__name__], "LEVEL", 0.26)
    assert describe_callable(_reads_level) != before

    def wrapped(rng, n):
        return np.random.random(n) < LEVEL

    assert nondeterministic_reads(wrapped) == ["np.random"]
    assert nondeterministic_reads(_reads_level) == []
