"""Export file names are injective in the claim id (issue 26 item 6).

Before: ``mine.θ`` and ``mine.φ`` (or ``mine/a`` and ``mine:a``) were both
written to ``mine._.chunks.jsonl``, one overwriting the other, and a resume
from the exports alone was refused as "belongs to another run".
"""
import os
import subprocess
import sys
import textwrap

import pytest

from hypothesis import given, settings, strategies as st

from proofs_check.engine.store import export_path

CLAIMS = """
import proofs_check as pc
def a(rng, n):
    return rng.random(n) < 0.001
def b(rng, n):
    return rng.random(n) < 0.002
for cid, fn in (("mine.θ", a), ("mine.φ", b), ("mine/a", a), ("mine:a", b), ("mine.plain-id_1", a)):
    pc.probability(cid, fn, delta=0.01, budget=20_000, quick_budget=20_000, chunk_size=1000)
"""
IDS = ("mine.θ", "mine.φ", "mine/a", "mine:a", "mine.plain-id_1")


def test_ordinary_ids_keep_their_names_and_others_get_distinct_ones():
    assert export_path("o", "seqproj.coverage.x-1_y").name == "seqproj.coverage.x-1_y.chunks.jsonl"
    names = {export_path("o", i).name for i in IDS}
    assert len(names) == len(IDS)
    assert all(os.sep not in n and len(n.encode()) <= 255 for n in names)
    assert len(export_path("o", "x" * 400).name.encode()) <= 255


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1, max_size=40), st.text(min_size=1, max_size=40))
def test_distinct_ids_never_share_a_file(a, b):
    if a != b:
        assert export_path("o", a) != export_path("o", b)
    name = export_path("o", a).name
    assert "/" not in name and "\x00" not in name


@pytest.mark.slow
@pytest.mark.hostile     # 5 s of subprocesses
def test_each_id_has_its_own_export_and_resumes_from_it(tmp_path):
    (tmp_path / "ids.py").write_text(textwrap.dedent(CLAIMS))
    run = [sys.executable, "-m", "theorycheck", "verify", "ids.py", "--quick", "--out", "o"]
    first = subprocess.run(run, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    exports = sorted(p.name for p in (tmp_path / "o").glob("*.chunks.jsonl"))
    assert len(exports) == len(IDS), exports
    assert "mine.plain-id_1.chunks.jsonl" in exports
    for f in (tmp_path / "o").glob("theorycheck.sqlite*"):
        f.unlink()
    again = subprocess.run(run + ["--resume"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "Traceback" not in again.stderr, again.stderr
    verdicts = lambda out: [ln.split("\t")[:5] for ln in out.splitlines()]     # noqa: E731 (no timings)
    assert verdicts(first.stdout) == verdicts(again.stdout)
