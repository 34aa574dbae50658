"""A cache of what ``theorycheck list`` prints, so listing does not import every topic.

Loading the registry imports every claim module and, through them, NumPy,
SciPy, SymPy and numba (about 2 s).  ``list`` needs only each claim's
metadata, so the first call writes it to a JSON file and later calls read it
back (about 0.2 s).  The cache key covers everything that could change the
list: the entry-point claim modules, the size and modification time of every
``.py`` file in their top-level packages, the package version and the Python
version; any change rebuilds the cache.  The file also carries a SHA-256 of
its key and its rows together (:func:`_checksum`), and every row is checked
for its fields' types: a cache edited by hand, damaged or written by another
program does not match and is rebuilt from the registry, so ``list`` never
prints a claim that does not exist (issue 35, N8).  A cache that cannot be
read or written is ignored (listing then costs the import).  ``THEORYCHECK_NO_CACHE=1``
turns it off; ``THEORYCHECK_CACHE_DIR`` moves it (default
``$XDG_CACHE_HOME/theorycheck`` or ``~/.cache/theorycheck``).
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ListedClaim", "listed_claims", "cache_dir"]

FORMAT = "theorycheck-list-cache/2"


@dataclass(frozen=True)
class ListedClaim:
    """The metadata of one claim that ``theorycheck list`` prints."""

    id: str
    kind: str
    label: str
    role: str
    expected: str | None
    source: str
    statement: str
    papers: tuple[str, ...]
    description: dict

    def describe(self) -> dict:
        return self.description


def cache_dir() -> Path:
    base = os.environ.get("THEORYCHECK_CACHE_DIR")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "theorycheck"


def _key(modules: list[str]) -> str:
    from proofs_check._version import __version__

    h = hashlib.sha256()
    h.update(f"{FORMAT}|{__version__}|{sys.version}|{sorted(modules)}".encode())
    for top in sorted({m.split(".")[0] for m in modules}):
        spec = importlib.util.find_spec(top)          # top-level only: imports nothing
        roots = list(spec.submodule_search_locations or []) if spec else []
        if spec and spec.origin and not roots:
            roots = [str(Path(spec.origin).parent)]
        for root in roots:
            for path in sorted(Path(root).rglob("*.py")):
                st = path.stat()
                h.update(f"{path}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _checksum(key: str, rows: list) -> str:
    """SHA-256 of the cache's key and rows (canonical JSON: sorted keys, no spaces): binds the
    content to what it was built from, so an edited row no longer matches."""
    text = json.dumps({"format": FORMAT, "key": key, "claims": rows}, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


_STR_FIELDS = ("id", "kind", "label", "role", "source", "statement")


def _rows_ok(rows) -> bool:
    """Every row has exactly :class:`ListedClaim`'s fields with their types, and the ids are unique."""
    if not isinstance(rows, list):
        return False
    fields = set(ListedClaim.__dataclass_fields__)
    ids = set()
    for row in rows:
        if not isinstance(row, dict) or set(row) != fields:
            return False
        if not all(isinstance(row[f], str) for f in _STR_FIELDS) or row["id"] in ids:
            return False
        if not (row["expected"] is None or isinstance(row["expected"], str)):
            return False
        if not (isinstance(row["papers"], list) and all(isinstance(p, str) for p in row["papers"])):
            return False
        if not isinstance(row["description"], dict):
            return False
        ids.add(row["id"])
    return True


def _from_registry() -> list[ListedClaim]:
    from proofs_check.engine.registry import claims

    return [ListedClaim(c.id, c.kind, c.label, c.role, c.expected, str(c.source), c.statement,
                        tuple(c.papers), c.describe()) for c in claims()]


def listed_claims(*, fresh: bool = False) -> list[ListedClaim]:
    """Every registered claim's metadata, sorted by id (from the cache when it is current;
    ``fresh=True`` loads the registry and neither reads nor writes the cache)."""
    from proofs_check.engine.registry import claim_modules

    if fresh or os.environ.get("THEORYCHECK_NO_CACHE"):
        return _from_registry()
    modules = claim_modules()
    try:
        key = _key(modules)
    except OSError:
        return _from_registry()
    path = cache_dir() / f"list-{key[:32]}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if (isinstance(data, dict) and data.get("format") == FORMAT and data.get("key") == key
                and _rows_ok(data.get("claims")) and data.get("sha256") == _checksum(key, data["claims"])):
            return [ListedClaim(**{**row, "papers": tuple(row["papers"])}) for row in data["claims"]]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    listed = _from_registry()
    from proofs_check.engine.registry import load_errors

    if load_errors():           # a broken plugin: list without it, warn again next time
        return listed
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        rows = [{**c.__dict__, "papers": list(c.papers)} for c in listed]
        tmp.write_text(json.dumps({"format": FORMAT, "key": key, "claims": rows,
                                   "sha256": _checksum(key, rows)}, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass
    return listed
