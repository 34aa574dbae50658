"""Damaged stores and big seeds, met through the real CLI (issue 26 items 5, 12, 13).

* a truncated SQLite store (page-level damage that opening does not notice) is
  refused at open — by a fresh run as by ``--resume`` — with one line naming
  the file and saying to move it aside, exit 2 (the README's usage/input error),
  never a traceback, never written into;
* an eval record tampered to ``5``, ``null``, ``[]`` (or a field of the wrong
  type) is refused on ``--resume --fixed`` with one line naming the store, the
  run and the look;
* a seed ≥ 2⁶³ (SQLite's INTEGER limit) works wherever a store is used, and
  resumes the same run; small seeds stay INTEGER, as in stores written before.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap

import pytest

#: Subprocess suites (each test starts the CLI): the slow tier, run first in CI's slow stage
#: (``.ci/run``), so that the default run stays under 10 minutes on 2 cores.
pytestmark = [pytest.mark.slow, pytest.mark.hostile]

DB = "theorycheck.sqlite"

GOOD = """
import proofs_check as pc
def rare(rng, n):
    return rng.random(n) < 0.001
pc.probability("mine.rare", rare, delta=0.01, budget=2_000_000, quick_budget=20_000, chunk_size=1000)
"""


def _cli(cwd, *args):
    return subprocess.run([sys.executable, "-m", "theorycheck", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def _one_line(proc, code=2):
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("theorycheck: error: "), proc.stderr
    return lines[0]


RUN = ("good.py", "mine.rare", "--fixed", "--budget", "200000", "--seed", "3", "--executor", "serial",
       "--out", "tr")


@pytest.fixture(scope="module")
def _template(tmp_path_factory):
    """One finished run (the CLI is slow to start: it is run once and copied)."""
    path = tmp_path_factory.mktemp("template")
    (path / "good.py").write_text(textwrap.dedent(GOOD))
    assert _cli(path, "verify", *RUN).returncode == 0
    return path


@pytest.fixture
def folder(_template, tmp_path):
    shutil.copytree(_template, tmp_path, dirs_exist_ok=True)
    return tmp_path


def test_a_truncated_store_is_refused_by_resume_and_by_a_fresh_run(folder):
    """The review's reproducer: 90 % of the file kept.  Before: ``--resume`` was
    a ``sqlite3.DatabaseError`` traceback and a fresh run exited 0 writing into it."""
    db = folder / "tr" / DB
    os.truncate(db, int(db.stat().st_size * 0.9))
    size = db.stat().st_size
    with sqlite3.connect(db) as con:                       # the damage is real
        assert con.execute("PRAGMA quick_check").fetchall() != [("ok",)]
    for extra in (("--resume",), ()):
        line = _one_line(_cli(folder, "verify", *RUN, *extra))
        assert str(os.path.join("tr", DB)) in line and "damaged" in line and "move it aside" in line
    assert db.stat().st_size == size                       # nothing was written into it


def test_a_zeroed_page_in_the_middle_is_refused(folder):
    db = folder / "tr" / DB
    with sqlite3.connect(db) as con:
        page = con.execute("PRAGMA page_size").fetchone()[0]
        pages = con.execute("PRAGMA page_count").fetchone()[0]
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert pages >= 4
    with open(db, "r+b") as fh:
        fh.seek(page * (pages // 2))
        fh.write(b"\x00" * page)
    line = _one_line(_cli(folder, "verify", *RUN))
    assert "damaged" in line or "cannot be used" in line


@pytest.mark.parametrize("record", ["5", "null", "[]", '"x"',
                                    '{"method": "fixed", "alpha": 0.01, "chunks": "2", '
                                    '"planned_chunks": 200, "verdict": "holds"}'])
def test_a_tampered_eval_record_is_one_line_naming_store_run_and_look(folder, record):
    with sqlite3.connect(folder / "tr" / DB) as con:
        con.execute("UPDATE evals SET record = ?", (record,))
    line = _one_line(_cli(folder, "verify", *RUN, "--resume"))
    assert os.path.join("tr", DB) in line and "run 1" in line and "look 1" in line and "mine.rare" in line
    if record.startswith("{"):
        assert "'chunks'" in line


@pytest.mark.parametrize("seed", [2 ** 63, 10 ** 44 + 7])
def test_seeds_beyond_sqlite_integers_work_with_a_store_and_resume(tmp_path, seed):
    (tmp_path / "good.py").write_text(textwrap.dedent(GOOD))
    args = ("verify", "good.py", "mine.rare", "--quick", "--seed", str(seed), "--out", "big", "--json")
    first, again = _cli(tmp_path, *args), _cli(tmp_path, *args, "--resume")
    assert first.returncode == 0 and again.returncode == 0, (first.stderr, again.stderr)
    a, b = json.loads(first.stdout), json.loads(again.stdout)
    assert a["seed"] == b["seed"] == seed and a["verdict"] == b["verdict"]
    with sqlite3.connect(tmp_path / "big" / DB) as con:
        rows = con.execute("SELECT seed FROM runs WHERE name = 'mine.rare'").fetchall()
    assert rows == [(f"big:{seed}",)]                      # one run: the resume attached to it
    head = json.loads((tmp_path / "big" / "mine.rare.chunks.jsonl").read_text().splitlines()[0])
    assert head["seed"] == seed


def test_small_seeds_stay_integers_as_in_older_stores(tmp_path):
    (tmp_path / "good.py").write_text(textwrap.dedent(GOOD))
    args = ("verify", "good.py", "mine.rare", "--quick", "--seed", str(2 ** 63 - 1), "--out", "s")
    assert _cli(tmp_path, *args).returncode == 0
    with sqlite3.connect(tmp_path / "s" / DB) as con:
        assert con.execute("SELECT seed, typeof(seed) FROM runs").fetchall() == [(2 ** 63 - 1, "integer")]
    assert _cli(tmp_path, *args, "--resume").returncode == 0
