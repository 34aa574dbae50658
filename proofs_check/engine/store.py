"""Result stores: per-chunk statistics kept as each chunk finishes.

The store of an output folder is one SQLite database, ``OUT/theorycheck.sqlite``
(standard library ``sqlite3``, WAL journal, one transaction per chunk):

* ``runs(run_id, name, kind, fingerprint, seed, chunk_size, alpha, method,
  format, created)`` — one row per run of a claim or experiment;
* ``chunks(run_id, k, stats)`` with a unique key on ``(run_id, k)`` — a chunk
  is stored once, whatever number of processes compute it;
* ``evals(run_id, seq, record)`` — every look at the chunks (method, α, chunks
  used, planned, verdict), so that a fixed-sample test is never re-run on more
  data after its verdict was seen (optional stopping) — neither by ``resume``
  nor by a fresh run with the same seed, which draws the same data
  (:meth:`ChunkStore.evaluated_runs`, checked in :mod:`.verify`).

A killed run keeps every committed chunk; concurrent runs on one folder are
safe (SQLite's locking; ``INSERT OR IGNORE`` on the unique key).  A new run
(no ``resume``) starts a new ``runs`` row and leaves older runs in place;
``resume`` attaches to the newest run of the same name and refuses one whose
fingerprint, seed, chunk size or α differ.  Stored statistics are range-checked
when read (:func:`check_stats`): a damaged or foreign record is refused with
the file, run and chunk named, never used.

For people (and ``theorycheck report --rerender``) the newest run of each name
is also exported as JSON lines, ``OUT/<name>.chunks.jsonl`` — a header line
``{"format": FORMAT, ...}``, one ``{"k", "stats", "sum"}`` line per chunk and one
``{"eval": {...}}`` line per look — rewritten atomically when a run closes.  A
folder holding only such a file (from an earlier version of the store) is
imported on ``resume`` after the same checks; files of the older format
``theorycheck-chunks/1`` are refused.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import time
from pathlib import Path

from .claims import claim_class
from .errors import ResultFileError

__all__ = ["FORMAT", "DB_NAME", "ChunkStore", "ResultFileError", "check_stats", "checksum", "export_path",
           "dump_stats", "plain_stats"]

FORMAT = "theorycheck-chunks/2"
OLD_FORMATS = ("theorycheck-chunks/1",)
DB_NAME = "theorycheck.sqlite"
_IDENTITY = ("fingerprint", "seed", "chunk_size", "alpha")


#: Longest name part of an export file (file systems allow 255 bytes per name).
_MAX_STEM = 160


def why_unwritable(folder) -> str:
    """``""``, or why nothing can be written in ``folder`` (for error messages): on a
    read-only file system, not writable by this user, or on a full disk (under 64 KiB
    free).  The nearest existing parent is examined when ``folder`` does not exist."""
    folder = Path(folder)
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent
    try:
        st = os.statvfs(folder)
    except (OSError, AttributeError):
        return ""
    if st.f_flag & getattr(os, "ST_RDONLY", 1):
        return f"; {folder} is on a read-only file system: give --out a writable folder"
    if not os.access(folder, os.W_OK):
        return f"; {folder} is not writable by this user: give --out a writable folder"
    if st.f_bavail * st.f_frsize < 64 * 1024:
        return (f"; the disk holding {folder} is full ({st.f_bavail * st.f_frsize} bytes free): free space "
                f"or give --out a folder on another disk")
    return ""


def _drop_if_empty(path: Path, existed: bool) -> None:
    """Remove a store file this process created empty (an open that failed on a full disk)."""
    if existed:
        return
    for p in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            if p.stat().st_size == 0:
                p.unlink()
        except OSError:
            pass


def export_path(out, name: str) -> Path:
    """``OUT/<name>.chunks.jsonl`` with the name made file-name safe, injectively.

    An id made only of ``[A-Za-z0-9_.-]`` (at most ``_MAX_STEM`` characters) is
    kept as it is.  Any other id has each other character replaced by ``_``
    (and is cut to ``_MAX_STEM`` characters) and gets ``~`` plus the first 16
    hex digits of the SHA-256 of the whole id appended: ``mine.θ`` and
    ``mine.φ`` (or ``mine/a`` and ``mine:a``) map to different files, and an
    escaped name never equals a kept one (``~`` is not in the kept set), so
    two ids share a file only on a 64-bit hash collision."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    if safe != name or len(safe) > _MAX_STEM:
        safe = f"{safe[:_MAX_STEM]}~{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"
    return Path(out) / f"{safe}.chunks.jsonl"


#: Seeds beyond SQLite's signed 64-bit INTEGER are stored as TEXT with this
#: prefix (a plain decimal text would be turned into a lossy REAL by the
#: column's INTEGER affinity); smaller seeds stay INTEGER, as in older stores.
_BIG_SEED = "big:"


def _seed_to_db(seed: int):
    seed = int(seed)
    return seed if -2 ** 63 <= seed < 2 ** 63 else f"{_BIG_SEED}{seed}"


def _seed_from_db(value):
    """The seed a ``runs.seed`` cell holds (an int), or the raw value if it is
    not a seed (a damaged cell: it then differs from every run's seed)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.startswith(_BIG_SEED) and value[len(_BIG_SEED):].isdigit():
        return int(value[len(_BIG_SEED):])
    return value


#: The fields of a look (an ``evals`` record) and the types they must have.
_EVAL_FIELDS = {"method": (str,), "alpha": (int, float), "chunks": (int,), "planned_chunks": (int,),
                "verdict": (str,)}


def _check_evaluation(record) -> str | None:
    """Why ``record`` cannot be a look written by :meth:`ChunkStore.record_evaluation`
    (``None`` if it can): an object with ``method``/``verdict`` strings, a real
    ``alpha`` and integer ``chunks``/``planned_chunks`` ≥ 0."""
    if not isinstance(record, dict):
        return f"the record is {json.dumps(record)[:40]}, not an object"
    for field, types in _EVAL_FIELDS.items():
        if field not in record:
            return f"field {field!r} is missing"
        v = record[field]
        if isinstance(v, bool) or not isinstance(v, types):
            want = {(str,): "a string", (int,): "an integer"}.get(types, "a number")
            return f"field {field!r} is {json.dumps(v)[:40]}, not {want}"
        if field in ("chunks", "planned_chunks") and v < 0:
            return f"field {field!r} is negative ({v})"
    return None


def checksum(fingerprint: str, k: int, text: str) -> str:
    """Integrity sum of a stored chunk: catches an edited or damaged record
    (a deliberate edit that recomputes it is caught by the resume spot check)."""
    return hashlib.sha256(f"{fingerprint}:{k}:{text}".encode()).hexdigest()[:16]


def dump_stats(stats) -> str:
    """Chunk statistics as the compact JSON text that is stored and checksummed."""
    return json.dumps(stats, separators=(",", ":"), allow_nan=True)


def check_stats(kind: str, stats, chunk_size: int) -> str | None:
    """Why ``stats`` cannot be the statistics of one chunk of ``kind`` (``None`` if they can).

    An experiment's chunk is a mapping of per-trial lists of length
    ``chunk_size``; a claim's is a list, range-checked by its kind
    (``check_stats`` of the claim class, in the kind's module under :mod:`.kinds`).
    """
    if kind == "experiment":
        if not isinstance(stats, dict) or not stats:
            return "an experiment chunk must be a non-empty object"
        for name, v in stats.items():
            if not isinstance(v, list) or len(v) != chunk_size:
                return f"statistic {name!r} must hold {chunk_size} trials"
        return None
    if not isinstance(stats, list):
        return "statistics must be a list"
    cls = claim_class(kind)
    if cls is None:
        return f"unknown kind {kind!r}"
    return cls.check_stats(stats, chunk_size)


def plain_stats(stats):
    """Chunk statistics with NumPy scalars made plain Python numbers (as stored)."""
    import numpy as np

    if isinstance(stats, dict):
        return {k: plain_stats(v) for k, v in stats.items()}
    if isinstance(stats, (list, tuple)):
        return [plain_stats(v) for v in stats]
    if isinstance(stats, np.generic):
        return stats.item()
    return stats


class ChunkStore:
    """The chunks of one run, in the folder's SQLite store (or in memory).

    ``ChunkStore.open(out, name, header, resume=...)``; ``chunks`` maps chunk
    index to statistics, ``evaluations`` lists the looks; ``append`` and
    ``record_evaluation`` commit at once.  Use as a context manager.
    """

    def __init__(self, out, name: str, header: dict):
        self.out = Path(out) if out is not None else None
        self.name = name
        self.header = {"format": FORMAT, **header}
        self.chunks: dict[int, object] = {}
        self.evaluations: list[dict] = []
        self.run_id: int | None = None
        #: when the open run was created (``time.time()``; ``None`` in memory)
        self.created: float | None = None
        self._db: sqlite3.Connection | None = None

    # -- opening -------------------------------------------------------------
    @property
    def db_path(self) -> Path | None:
        return None if self.out is None else self.out / DB_NAME

    @property
    def path(self) -> Path | None:
        """The JSON-lines export of this run."""
        if self.out is None:
            return None
        folder = self.out / "experiments" if self.header.get("kind") == "experiment" else self.out
        return export_path(folder, self.name.removeprefix("experiment:"))

    @classmethod
    def open(cls, out, name: str, header: dict, *, resume: bool,
             before_new_run=None) -> "ChunkStore":
        """Open the run of ``name`` (the newest one with ``resume``, else a new one).
        ``before_new_run(store)``, if given, is called before a new run is created
        and may refuse it by raising (nothing is then written)."""
        store = cls(out, name, header)
        if store.out is None:
            return store
        store._connect()
        try:
            run = store._latest_run() if resume else None
            if resume and run is None and store.path.exists():
                run = store._import_jsonl(store.path)
            if run is not None:
                store._check_identity(run)
                store.run_id = run["run_id"]
                store.created = run.get("created")
                store.header = {**store.header, "method": run["method"]}
                store._load()
            else:
                if before_new_run is not None:
                    before_new_run(store)
                store.run_id = store._new_run()
                store.created = time.time()
        except BaseException:
            store.close()
            raise
        return store

    def _connect(self) -> None:
        deadline = time.monotonic() + 60.0
        while True:
            try:
                self._db = self._setup()
                return
            except sqlite3.OperationalError as exc:
                # a store being created by a concurrent run: wait for it (at most a minute)
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise ResultFileError(f"result store {self.db_path} cannot be used: {exc}") from None
                time.sleep(0.05)

    def _setup(self) -> sqlite3.Connection:
        existed = Path(self.db_path).exists()
        try:
            self.out.mkdir(parents=True, exist_ok=True)
            # the folder resolved as the OS resolves it: SQLite refuses a path that goes '..' above '/'
            db = sqlite3.connect(Path(os.path.realpath(self.out)) / DB_NAME, timeout=60.0, isolation_level=None)
        except OSError as exc:
            raise ResultFileError(f"cannot create the result folder {self.out}: "
                                  f"{exc.strerror or exc}") from None
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc):
                raise
            _drop_if_empty(Path(self.db_path), existed)
            raise ResultFileError(f"result store {self.db_path} cannot be opened: {exc}"
                                  f"{why_unwritable(self.out)}") from None
        try:
            db.execute("PRAGMA busy_timeout = 60000")
            self._check_integrity(db)
            db.execute("PRAGMA journal_mode = WAL")
            db.executescript("""
                CREATE TABLE IF NOT EXISTS runs (
                    run_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, kind TEXT NOT NULL,
                    fingerprint TEXT NOT NULL, seed INTEGER NOT NULL, chunk_size INTEGER NOT NULL,
                    alpha REAL, method TEXT, format TEXT NOT NULL, created REAL NOT NULL);
                CREATE INDEX IF NOT EXISTS runs_by_name ON runs(name);
                CREATE TABLE IF NOT EXISTS chunks (
                    run_id INTEGER NOT NULL REFERENCES runs(run_id), k INTEGER NOT NULL,
                    stats TEXT NOT NULL, sum TEXT NOT NULL, PRIMARY KEY (run_id, k));
                CREATE TABLE IF NOT EXISTS evals (
                    run_id INTEGER NOT NULL REFERENCES runs(run_id),
                    seq INTEGER PRIMARY KEY AUTOINCREMENT, record TEXT NOT NULL);
            """)
        except sqlite3.OperationalError as exc:
            db.close()
            if "locked" in str(exc):
                raise
            _drop_if_empty(Path(self.db_path), existed)
            raise ResultFileError(f"result store {self.db_path} cannot be used: {exc}"
                                  f"{why_unwritable(self.out)}") from None
        except sqlite3.DatabaseError as exc:
            db.close()
            raise ResultFileError(f"result store {self.db_path} cannot be used: {exc}") from None
        return db

    #: (path, device, inode) of each store this process found intact -> (size, mtime) the
    #: file had after the check or after this process last closed it
    _intact: dict = {}

    def _check_integrity(self, db: sqlite3.Connection) -> None:
        """Refuse a damaged store at open (issue 26 item 5): ``PRAGMA quick_check``
        (every page and index entry well formed, O(size of the file)) must answer
        ``ok``; a malformed file — truncated, a bad page — is refused with one line
        naming it, before anything is read from or written into it.  Skipped when
        this process checked the file and it is as this process left it (same
        size and modification time), so the many opens of one ``verify`` cost
        one check."""
        try:
            st = os.stat(self.db_path)
        except OSError:
            return                                   # a store being created
        key = (str(self.db_path), st.st_dev, st.st_ino)
        if st.st_size == 0 or ChunkStore._intact.get(key) == (st.st_size, st.st_mtime_ns):
            return
        try:
            rows = db.execute("PRAGMA quick_check(5)").fetchall()
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc):
                db.close()
                raise
            rows = [(str(exc),)]
        except sqlite3.DatabaseError as exc:
            rows = [(str(exc),)]
        if rows != [("ok",)]:
            db.close()
            found = [ln.strip() for row in rows for ln in str(row[0] if row else "").splitlines()
                     if ln.strip() and not ln.startswith("***")]
            first = (found[0] + ("; and more" if len(found) > 1 else "")) if found else "no answer"
            raise ResultFileError(
                f"result store {self.db_path} is damaged ({first}); move it aside "
                f"(mv {self.db_path} {self.db_path}.damaged) and run again")
        self._remember_intact()

    def _stat_key(self) -> tuple:
        try:
            st = os.stat(self.db_path)
        except OSError:
            return (None, None)
        return (st.st_dev, st.st_ino)

    def _remember_intact(self) -> None:
        try:
            st = os.stat(self.db_path)
        except OSError:
            return
        ChunkStore._intact[(str(self.db_path), st.st_dev, st.st_ino)] = (st.st_size, st.st_mtime_ns)

    def _latest_run(self) -> dict | None:
        row = self._query("SELECT run_id, kind, fingerprint, seed, chunk_size, alpha, method, format, created "
                          "FROM runs WHERE name = ? ORDER BY run_id DESC LIMIT 1", (self.name,))
        if not row:
            return None
        keys = ("run_id", "kind", "fingerprint", "seed", "chunk_size", "alpha", "method", "format", "created")
        run = dict(zip(keys, row[0]))
        run["seed"] = _seed_from_db(run["seed"])
        return run

    def _check_identity(self, run: dict) -> None:
        if run.get("format") in OLD_FORMATS:
            raise ResultFileError(
                f"result file {self.path} has the old format {run['format']} whose fingerprint does not "
                f"cover the code that wrote it; move it away or delete it, then run again")
        for key in _IDENTITY:
            if key in self.header and run.get(key) != self.header.get(key):
                why = (" (the code or arguments of the claim changed since that run)"
                       if key == "fingerprint" else
                       " (α is fixed when a run starts; changing it after seeing results is not valid)"
                       if key == "alpha" else "")
                raise ResultFileError(
                    f"result store {self.db_path} holds another run of {self.name}: {key} is "
                    f"{run.get(key)!r} there but {self.header.get(key)!r} here{why}")

    def _new_run(self, created: float | None = None) -> int:
        """A new run row; ``created`` defaults to now (an imported file passes its own age)."""
        h = self.header
        cur = self._execute(
            "INSERT INTO runs (name, kind, fingerprint, seed, chunk_size, alpha, method, format, created) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (self.name, h.get("kind", ""), h["fingerprint"], _seed_to_db(h["seed"]), int(h["chunk_size"]),
             h.get("alpha"), h.get("method"), FORMAT, time.time() if created is None else float(created)))
        return int(cur.lastrowid)

    def _load(self) -> None:
        kind, size = self.header.get("kind", ""), int(self.header["chunk_size"])
        fp = self.header["fingerprint"]
        for k, text, total in self._query("SELECT k, stats, sum FROM chunks WHERE run_id = ? ORDER BY k",
                                          (self.run_id,)):
            if not ((isinstance(k, int) and not isinstance(k, bool)) or (isinstance(k, float) and k.is_integer())) \
                    or k < 0:
                raise ResultFileError(f"result store {self.db_path}: a chunk of {self.name} (run {self.run_id}) "
                                      f"has the index {k!r}, not an integer ≥ 0; delete the store or run "
                                      f"without --resume")
            if total != checksum(fp, int(k), text):
                raise ResultFileError(f"result store {self.db_path}: chunk {k} of {self.name} was altered "
                                      f"(checksum mismatch); delete the store or run without --resume")
            try:
                stats = json.loads(text)
            except (ValueError, TypeError):          # bad JSON, bad UTF-8, not a text
                raise ResultFileError(f"result store {self.db_path}: chunk {k} of {self.name} is not "
                                      f"valid JSON; delete the folder's store or run without --resume") from None
            why = check_stats(kind, stats, size)
            if why:
                raise ResultFileError(f"result store {self.db_path}: chunk {k} of {self.name} is damaged "
                                      f"({why}); delete it or run without --resume")
            self.chunks[int(k)] = stats
        for seq, text in self._query("SELECT seq, record FROM evals WHERE run_id = ? ORDER BY seq",
                                     (self.run_id,)):
            try:
                record = json.loads(text) if isinstance(text, (str, bytes)) else text
            except ValueError:                       # bad JSON or bytes that are not UTF-8
                why = "not valid JSON"
            else:
                why = _check_evaluation(record)
            if why:
                raise ResultFileError(
                    f"result store {self.db_path}: look {seq} (table evals) of {self.name}, run {self.run_id}, "
                    f"is damaged: {why}; it guards against re-testing seen data, so the run cannot be "
                    f"resumed — start a fresh run with a new --seed")
            self.evaluations.append(record)

    def _import_jsonl(self, path: Path) -> dict | None:
        """Import a JSON-lines result file into the store (validated), or refuse it."""
        try:
            text = path.read_text(encoding="utf-8", errors="strict")
        except (OSError, UnicodeDecodeError) as exc:
            raise ResultFileError(f"result file {path} cannot be read: {exc}") from None
        lines = text.split("\n")
        lines = lines[:-1]                  # a last line without newline is torn (a kill mid-write)
        if not lines:
            raise ResultFileError(f"result file {path} is empty; delete it or run without --resume")
        try:
            head = json.loads(lines[0])
        except json.JSONDecodeError:
            raise ResultFileError(f"result file {path} is corrupt (bad header line)") from None
        if isinstance(head, dict) and head.get("format") in OLD_FORMATS:
            raise ResultFileError(
                f"result file {path} has the old format {head.get('format')} whose fingerprint does not "
                f"cover the code that wrote it; move it away or delete it, then run again")
        if not isinstance(head, dict) or head.get("format") != FORMAT:
            raise ResultFileError(f"result file {path} is not a {FORMAT} file")
        for key in ("claim",) + _IDENTITY:
            want = self.name if key == "claim" else self.header.get(key)
            if key in head and want is not None and head.get(key) != want:
                raise ResultFileError(f"result file {path} belongs to another run: {key} is "
                                      f"{head.get(key)!r} there but {want!r} here")
        kind, size = self.header.get("kind", ""), int(self.header["chunk_size"])
        chunks, evals = {}, []
        for i, line in enumerate(lines[1:], start=2):
            try:
                rec = json.loads(line)
                if isinstance(rec, dict) and set(rec) == {"eval"} and isinstance(rec["eval"], dict):
                    evals.append(rec["eval"])
                    continue
                if not isinstance(rec, dict) or set(rec) != {"k", "stats", "sum"}:
                    raise ValueError("unexpected fields")
                k, stats = rec["k"], rec["stats"]
                if not isinstance(k, int) or isinstance(k, bool) or k < 0:
                    raise ValueError("bad chunk index")
                if rec["sum"] != checksum(str(self.header.get("fingerprint")), k, dump_stats(stats)):
                    raise ValueError("checksum mismatch")
            except (json.JSONDecodeError, ValueError, TypeError):
                raise ResultFileError(f"result file {path} is corrupt at line {i}") from None
            why = check_stats(kind, stats, size)
            if why:
                raise ResultFileError(f"result file {path} is corrupt at line {i} (chunk {k}: {why})")
            if k in chunks and chunks[k] != stats:
                raise ResultFileError(f"result file {path} is corrupt at line {i} (chunk {k} twice, differently)")
            chunks[k] = stats
        h = {**self.header, **{k: head[k] for k in ("method",) if k in head}}
        self.header = h
        # the run is as old as the file: a stale export is never taken for this program's own run
        # (measure.set_default_store's trusted_since)
        try:
            age = path.stat().st_mtime
        except OSError:
            age = 0.0
        run_id = self._new_run(created=age)
        for k, stats in chunks.items():
            self._insert_chunk(run_id, int(k), stats)
        for e in evals:
            self._execute("INSERT INTO evals (run_id, record) VALUES (?, ?)", (run_id, json.dumps(e)))
        return {"run_id": run_id, **{k: h.get(k) for k in ("kind", "method") + _IDENTITY}, "format": FORMAT,
                "created": age}

    # -- database helpers ------------------------------------------------------
    def _execute(self, sql: str, params=()):
        try:
            return self._db.execute(sql, params)
        except sqlite3.DatabaseError as exc:
            raise ResultFileError(f"result store {self.db_path} failed ({exc}); it may be damaged "
                                  f"or the disk full") from None

    def _query(self, sql: str, params=()) -> list:
        cur = self._execute(sql, params)
        try:                                         # rows are read (and may fail) here, not at execute
            return cur.fetchall()
        except sqlite3.DatabaseError as exc:
            raise ResultFileError(f"result store {self.db_path} failed ({exc}); it is damaged — move it "
                                  f"aside (mv {self.db_path} {self.db_path}.damaged) and run again") from None

    # -- writing ---------------------------------------------------------------
    def _insert_chunk(self, run_id: int, k: int, stats) -> None:
        text = dump_stats(stats)
        self._execute("INSERT OR IGNORE INTO chunks (run_id, k, stats, sum) VALUES (?, ?, ?, ?)",
                      (run_id, k, text, checksum(self.header["fingerprint"], k, text)))

    def append(self, k: int, stats) -> None:
        """Keep chunk ``k`` (committed at once; a chunk already stored is kept as it is)."""
        self.chunks[int(k)] = stats
        if self._db is not None:
            self._insert_chunk(self.run_id, int(k), stats)

    def record_evaluation(self, evaluation: dict) -> None:
        """Keep a look (the method, α, chunks used and the verdict)."""
        self.evaluations.append(dict(evaluation))
        if self._db is not None:
            self._execute("INSERT INTO evals (run_id, record) VALUES (?, ?)",
                          (self.run_id, json.dumps(evaluation)))

    def evaluated_runs(self) -> list[dict]:
        """Every run of this name (oldest first) that holds at least one look:
        ``{"run_id", "fingerprint", "seed", "chunk_size", "alpha", "evals": [...]}``.
        A look whose record is damaged is kept as ``{}`` (it still counts as a look)."""
        if self._db is None:
            return []
        runs: dict[int, dict] = {}
        for run_id, fp, seed, size, alpha, text in self._query(
                "SELECT r.run_id, r.fingerprint, r.seed, r.chunk_size, r.alpha, e.record FROM runs r "
                "JOIN evals e ON e.run_id = r.run_id WHERE r.name = ? ORDER BY r.run_id, e.seq", (self.name,)):
            run = runs.setdefault(int(run_id), {"run_id": int(run_id), "fingerprint": fp, "seed": _seed_from_db(seed),
                                                "chunk_size": int(size), "alpha": alpha, "evals": []})
            try:
                rec = json.loads(text)
            except json.JSONDecodeError:
                rec = {}
            run["evals"].append(rec if isinstance(rec, dict) else {})
        return list(runs.values())

    def unused_seed(self) -> int:
        """The smallest non-negative seed no run of this name in the store used
        (whatever its fingerprint): a seed whose data no earlier run has seen."""
        used = set() if self._db is None else {
            _seed_from_db(s) for (s,) in self._query("SELECT DISTINCT seed FROM runs WHERE name = ?", (self.name,))}
        return next(s for s in range(len(used) + 1) if s not in used)

    def runs(self) -> int:
        """How many runs of this name the store holds."""
        if self._db is None:
            return 1
        return int(self._query("SELECT COUNT(*) FROM runs WHERE name = ?", (self.name,))[0][0])

    def export(self) -> Path | None:
        """Write this run as JSON lines (atomically) and return the path."""
        if self.out is None:
            return None
        path = self.path
        head = {"format": FORMAT, "claim": self.name,
                **{k: v for k, v in self.header.items() if k not in ("format", "claim")}}
        lines = [json.dumps(head, separators=(",", ":"))]
        fp = self.header["fingerprint"]
        lines += [json.dumps({"k": k, "stats": self.chunks[k],
                              "sum": checksum(fp, k, dump_stats(self.chunks[k]))}, separators=(",", ":"))
                  for k in sorted(self.chunks)]
        lines += [json.dumps({"eval": e}, separators=(",", ":")) for e in self.evaluations]
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
            os.replace(tmp, path)
        except OSError as exc:
            try:                                   # no partial or empty temporary file is left
                tmp.unlink(missing_ok=True)
            except OSError:
                pass
            raise ResultFileError(f"cannot write {path}: {exc.strerror or exc}"
                                  f"{why_unwritable(path.parent)}") from None
        return path

    def close(self) -> None:
        if self._db is not None:
            try:
                if self.run_id is not None:       # a refused open exports nothing
                    self.export()
            finally:
                intact = (str(self.db_path), *self._stat_key()) in ChunkStore._intact
                self._db.close()
                self._db = None
                if intact:                           # the file as this process leaves it
                    self._remember_intact()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
