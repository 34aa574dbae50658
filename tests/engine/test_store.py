"""The result store cannot be torn, raced or fed a damaged record.

Every corruption the reliability audit tried (events above the chunk size,
negative, fractional, zeroed, extra fields, ``[1e300]``, ``[Infinity]``,
``[]``, a foreign record) is applied both to the SQLite store and to an
imported JSON-lines file: each is refused with the file named, or recomputed —
never used.  Four runs started at once on one folder, 30 times: no uncaught
error, no duplicated chunk, identical results.
"""
import functools
import json
import multiprocessing as mp
import sqlite3

import pytest

from proofs_check.engine import ProbabilityClaim, ResultFileError, verify_claim
from proofs_check.engine.store import DB_NAME, checksum
from proofs_check.engine.verify import result_path
from proofs_check.selftest.samplers import bernoulli_events

CLAIM = ProbabilityClaim(id="test.store", statement="P(X = 1) ≤ 0.3", source="test", label="DERIVED",
                         fn=functools.partial(bernoulli_events, p=0.3), delta=0.3, chunk_size=100)


def _run(out, **kw):
    return verify_claim(CLAIM, budget=2_000, seed=1, out=out, method="fixed", **kw)


MUTATIONS = {
    "events above the chunk size": lambda s: [101],
    "negative events": lambda s: [-1],
    "fractional events": lambda s: [s[0] + 0.5],
    "zeroed events": lambda s: [0] if s[0] else [1],
    "1e300": lambda s: [1e300],
    "empty": lambda s: [],
    "two fields": lambda s: [s[0], 0],
    "a string": lambda s: ["12"],
}


def _edit_db(out, mutate, *, fix_sum: bool):
    with sqlite3.connect(out / DB_NAME) as db:
        fp, = db.execute("SELECT fingerprint FROM runs").fetchone()
        text, = db.execute("SELECT stats FROM chunks WHERE k = 5").fetchone()
        new = json.dumps(mutate(json.loads(text)), separators=(",", ":"))
        total = checksum(fp, 5, new) if fix_sum else "0" * 16
        db.execute("UPDATE chunks SET stats = ?, sum = ? WHERE k = 5", (new, total))


@pytest.mark.parametrize("name,fix_sum", [(n, False) for n in sorted(MUTATIONS)]
                         + [(n, True) for n in sorted(MUTATIONS) if n != "zeroed events"])
def test_a_damaged_store_record_is_refused(tmp_path, name, fix_sum):
    """A plain edit fails the checksum; an edit that also recomputes the checksum
    fails the range check (a valid-looking forged value with a forged checksum
    in a chunk other than the last is not detectable without recomputing it)."""
    _run(tmp_path)
    _edit_db(tmp_path, MUTATIONS[name], fix_sum=fix_sum)
    with pytest.raises(ResultFileError, match=str(tmp_path / DB_NAME)):
        _run(tmp_path, resume=True)


def test_a_consistent_edit_of_the_last_chunk_is_caught_by_recomputation(tmp_path):
    _run(tmp_path)
    with sqlite3.connect(tmp_path / DB_NAME) as db:
        fp, = db.execute("SELECT fingerprint FROM runs").fetchone()
        k, text = db.execute("SELECT k, stats FROM chunks ORDER BY k DESC LIMIT 1").fetchone()
        events = json.loads(text)[0]
        new = json.dumps([events + 1 if events < 100 else events - 1])
        db.execute("UPDATE chunks SET stats = ?, sum = ? WHERE k = ?", (new, checksum(fp, k, new), k))
    with pytest.raises(ResultFileError, match="recomputation"):
        _run(tmp_path, resume=True)


JSONL_MUTATIONS = {
    **{name: ("stats", m) for name, m in MUTATIONS.items()},
    "extra field": ("record", lambda r: {**r, "note": 1}),
    "missing sum": ("record", lambda r: {"k": r["k"], "stats": r["stats"]}),
    "negative index": ("record", lambda r: {**r, "k": -1}),
    "not an object": ("record", lambda r: [r["k"], r["stats"]]),
}


@pytest.mark.parametrize("name", sorted(JSONL_MUTATIONS))
def test_a_damaged_imported_jsonl_record_is_refused_naming_the_file(tmp_path, name):
    _run(tmp_path)
    path = result_path(tmp_path, CLAIM.id)
    (tmp_path / DB_NAME).unlink()                       # only the export is left
    lines = path.read_text().splitlines()
    rec = json.loads(lines[6])
    where, mutate = JSONL_MUTATIONS[name]
    rec = {**rec, "stats": mutate(rec["stats"])} if where == "stats" else mutate(rec)
    lines[6] = json.dumps(rec)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ResultFileError, match=str(path)):
        _run(tmp_path, resume=True)


@pytest.mark.parametrize("text", ["[Infinity]", "[1e999]", "[NaN]"])
def test_non_finite_json_is_refused(tmp_path, text):
    _run(tmp_path)
    _edit_db(tmp_path, lambda s: json.loads(text), fix_sum=True)
    with pytest.raises(ResultFileError):
        _run(tmp_path, resume=True)


def test_an_intact_jsonl_export_is_imported_and_gives_the_same_result(tmp_path):
    first = _run(tmp_path)
    (tmp_path / DB_NAME).unlink()
    again = _run(tmp_path, resume=True)
    assert (again.events, again.trials, again.verdict) == (first.events, first.trials, first.verdict)


def _worker(out, barrier, queue):
    try:
        barrier.wait(timeout=30)
        r = verify_claim(CLAIM, budget=2_000, seed=1, out=out, resume=True)
        queue.put(("ok", r.events, r.trials))
    except BaseException as exc:            # reported to the parent, which fails the test
        queue.put(("error", repr(exc), 0))


@pytest.mark.slow
@pytest.mark.hostile     # 10 s: four processes on one folder
def test_four_simultaneous_runs_on_one_folder(tmp_path):
    ctx = mp.get_context("fork")
    outcomes = set()
    for i in range(30):
        out = tmp_path / f"run{i}"
        barrier, queue = ctx.Barrier(4), ctx.Queue()
        procs = [ctx.Process(target=_worker, args=(out, barrier, queue)) for _ in range(4)]
        for p in procs:
            p.start()
        results = [queue.get(timeout=120) for _ in procs]
        for p in procs:
            p.join(timeout=60)
        assert all(r[0] == "ok" for r in results), results
        outcomes |= {r[1:] for r in results}
        with sqlite3.connect(out / DB_NAME) as db:
            dup = db.execute("SELECT run_id, k, COUNT(*) FROM chunks GROUP BY run_id, k HAVING COUNT(*) > 1").fetchall()
        assert not dup
    assert len(outcomes) == 1, outcomes                  # identical final results every time
