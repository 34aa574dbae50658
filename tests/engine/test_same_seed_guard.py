"""Issue 21 item 3: a fresh fixed-sample run with the seed of an evaluated run is refused.

Chunk ``k`` draws from ``SeedSequence(seed, spawn_key=(k,))``: same seed = same
data.  Doubling a ``--fixed`` budget with the same seed (no ``--resume``) re-tests
the data whose verdict was seen — optional stopping.  With a store (``out``) the
engine refuses it, naming ``--seed`` and the smallest unused seed; an exact
repeat (same test on the same data) and anytime-valid runs stay allowed.
"""
import functools

import pytest

from proofs_check.engine import ProbabilityClaim, verify_claim
from proofs_check.selftest.samplers import bernoulli_events


def _claim(p=0.3):
    return ProbabilityClaim(id="test.same_seed", statement="P(X = 1) ≤ 0.3", source="test",
                            label="DERIVED", fn=functools.partial(bernoulli_events, p=p), delta=0.3,
                            chunk_size=500)


def test_a_larger_fixed_budget_with_the_same_seed_is_refused(tmp_path):
    claim = _claim()
    first = verify_claim(claim, budget=2_000, seed=0, method="fixed", out=tmp_path)
    assert first.verdict == "inconclusive"
    with pytest.raises(ValueError) as exc:
        verify_claim(claim, budget=4_000, seed=0, method="fixed", out=tmp_path)
    msg = str(exc.value)
    assert "\n" not in msg and len(msg) <= 400                # one line, shown whole by the CLI
    assert "--seed 0" in msg and "same seed = same data" in msg and "--seed 1" in msg
    assert "k·α" in msg                                       # warns that chasing over fresh seeds inflates too
    # refused before anything is written: the store still holds one run only
    import sqlite3
    with sqlite3.connect(tmp_path / "theorycheck.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM runs").fetchone() == (1,)
    # the suggested seed is accepted, and then the next unused one is suggested
    verify_claim(claim, budget=4_000, seed=1, method="fixed", out=tmp_path)
    with pytest.raises(ValueError, match=r"--seed 2\b"):
        verify_claim(claim, budget=8_000, seed=1, method="fixed", out=tmp_path)
    with pytest.raises(ValueError, match=r"--seed 2\b"):    # a smaller budget re-tests a subset: refused too
        verify_claim(claim, budget=1_000, seed=0, method="fixed", out=tmp_path)


def test_an_exact_repeat_and_other_seeds_are_allowed(tmp_path):
    claim = _claim()
    a = verify_claim(claim, budget=2_000, seed=3, method="fixed", out=tmp_path)
    b = verify_claim(claim, budget=2_000, seed=3, method="fixed", out=tmp_path)    # same test, same data
    assert (a.events, a.verdict) == (b.events, b.verdict)
    verify_claim(claim, budget=4_000, seed=4, method="fixed", out=tmp_path)
    with pytest.raises(ValueError, match="--seed"):          # same budget, other α: a new test on seen data
        verify_claim(claim, budget=2_000, seed=3, method="fixed", out=tmp_path, alpha=0.05)
    # the smallest seed no run used (0, below the ones used) is the one suggested
    with pytest.raises(ValueError, match=r"e\.g\. --seed 0\b"):
        verify_claim(claim, budget=4_000, seed=3, method="fixed", out=tmp_path)


def test_fixed_after_anytime_looks_with_the_same_seed_is_refused_anytime_is_not(tmp_path):
    claim = _claim()
    verify_claim(claim, budget=2_000, seed=0, out=tmp_path)                         # anytime looks
    verify_claim(claim, budget=4_000, seed=0, out=tmp_path)                         # anytime: valid
    with pytest.raises(ValueError, match="--seed"):
        verify_claim(claim, budget=4_000, seed=0, method="fixed", out=tmp_path)


def test_a_changed_claim_or_another_folder_is_not_guarded(tmp_path):
    """The guard is per store and per fingerprint: other code draws other data;
    without ``out`` there is no store (the Python API's and pytest plugin's default)."""
    claim = _claim()
    verify_claim(claim, budget=2_000, seed=0, method="fixed", out=tmp_path / "a")
    verify_claim(claim, budget=4_000, seed=0, method="fixed", out=tmp_path / "b")
    verify_claim(_claim(p=0.31), budget=4_000, seed=0, method="fixed", out=tmp_path / "a")
    verify_claim(claim, budget=4_000, seed=0, method="fixed")                       # no store: unguarded


def test_an_asymptotic_comparison_is_guarded_through_its_hook():
    """Comparisons without bounds decide by a fixed-sample method (their
    ``fixed_sample_decisions``): the same guard applies."""
    import tempfile

    from proofs_check.engine import ComparisonClaim

    claim = ComparisonClaim(id="test.same_seed_cmp", statement="E d < 0", source="test", label="DERIVED",
                            fn=_normal_diffs, threshold=0.0, chunk_size=50)
    decision = claim.decision_method("anytime")
    assert decision in claim.fixed_sample_decisions
    with tempfile.TemporaryDirectory() as out:
        verify_claim(claim, budget=100, seed=0, out=out)
        with pytest.raises(ValueError, match="--seed 1"):
            verify_claim(claim, budget=200, seed=0, out=out)


def _normal_diffs(rng, n):
    return rng.standard_normal(n)


def test_the_cli_refuses_in_one_line_naming_a_new_seed(tmp_path, capsys):
    from theorycheck.cli import main

    base = ["verify", "selftest.dg_tail", "--fixed", "--out", str(tmp_path)]
    assert main(base + ["--budget", "10000"]) == 0
    capsys.readouterr()
    assert main(base + ["--budget", "20000"]) == 2                   # no --resume: a fresh run, same seed
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err and not err.endswith("…")
    assert "--seed 0" in err and "e.g. --seed 1" in err
    assert main(base + ["--budget", "20000", "--seed", "1"]) == 0    # the suggested seed runs
