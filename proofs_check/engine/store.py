"""Result files: per-chunk statistics, appended as each chunk finishes.

Format (JSON lines): a header line
``{"format": "theorycheck-chunks/2", "claim", "kind", "fingerprint", "seed",
"chunk_size", "alpha", "method"}`` followed by one line
``{"k": index, "stats": [...]}`` per finished chunk and one line
``{"eval": {"method", "alpha", "chunks", "planned_chunks", "verdict"}}`` each
time the chunks were evaluated into a verdict (a *look*).  Looks are kept so
that a fixed-budget test is never re-run on a larger sample after its result
was seen (optional stopping).  Appending and flushing per line means a killed
run keeps every chunk it finished; a torn final line (a kill mid-write) is
dropped on load.  Loading checks the header against the claim, its code
fingerprint, the seed and α and refuses a mismatch; files of the older format
``theorycheck-chunks/1`` (whose fingerprint did not cover the code) are
refused, never mixed.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = ["FORMAT", "ChunkStore", "ResultFileError"]

FORMAT = "theorycheck-chunks/2"
OLD_FORMATS = ("theorycheck-chunks/1",)


class ResultFileError(ValueError):
    """A result file that is corrupt or belongs to another run."""


class ChunkStore:
    """Per-chunk statistics of one run, mirrored to a JSON-lines file (or memory)."""

    def __init__(self, path: str | os.PathLike | None, header: dict):
        self.path = Path(path) if path is not None else None
        self.header = {"format": FORMAT, **header}
        self.chunks: dict[int, list] = {}
        self.evaluations: list[dict] = []
        self._fh = None

    # -- loading ---------------------------------------------------------
    @classmethod
    def open(cls, path, header: dict, *, resume: bool) -> "ChunkStore":
        """Open ``path`` for a run.

        With ``resume`` an existing file is validated and its chunks reused.
        Without it, an existing file is never overwritten: it is renamed to
        ``NAME.prev-K.jsonl`` and a fresh file is started.
        """
        store = cls(path, header)
        if store.path is None:
            return store
        if store.path.exists():
            if resume:
                store._load()
            else:
                k = 1
                while (bak := store.path.with_name(f"{store.path.stem}.prev-{k}{store.path.suffix}")).exists():
                    k += 1
                store.path.rename(bak)
        store.path.parent.mkdir(parents=True, exist_ok=True)
        fresh = not store.path.exists()
        store._fh = open(store.path, "a", encoding="utf-8")
        if fresh:
            store._write(store.header)
        return store

    def _load(self) -> None:
        text = self.path.read_text(encoding="utf-8", errors="strict")
        lines = text.split("\n")
        torn = lines[-1] != ""          # last line without newline: a kill mid-write
        if torn:
            lines = lines[:-1]
        else:
            lines = lines[:-1]
        if not lines:
            raise ResultFileError(f"result file {self.path} is empty; delete it or run without --resume")
        try:
            head = json.loads(lines[0])
        except json.JSONDecodeError:
            raise ResultFileError(f"result file {self.path} is corrupt (bad header line)") from None
        if isinstance(head, dict) and head.get("format") in OLD_FORMATS:
            raise ResultFileError(
                f"result file {self.path} has the old format {head.get('format')} whose fingerprint "
                f"does not cover the code that wrote it; move it away or delete it, then run again")
        if not isinstance(head, dict) or head.get("format") != FORMAT:
            raise ResultFileError(f"result file {self.path} is not a {FORMAT} file")
        for key in ("claim", "fingerprint", "seed", "chunk_size", "alpha"):
            if key in self.header and head.get(key) != self.header.get(key):
                why = (" (the code or arguments of the claim changed since that run)"
                       if key == "fingerprint" else
                       " (α is fixed when a run starts; changing it after seeing results is not valid)"
                       if key == "alpha" else "")
                raise ResultFileError(
                    f"result file {self.path} belongs to another run: {key} is {head.get(key)!r} "
                    f"there but {self.header.get(key)!r} here{why}")
        self.header = {**self.header, "method": head.get("method", self.header.get("method"))}
        for i, line in enumerate(lines[1:], start=2):
            try:
                rec = json.loads(line)
                if isinstance(rec, dict) and "eval" in rec and isinstance(rec["eval"], dict):
                    self.evaluations.append(rec["eval"])
                    continue
                k, stats = int(rec["k"]), rec["stats"]
                if not isinstance(stats, (list, dict)):
                    raise TypeError("stats must be a list or an object")
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                raise ResultFileError(f"result file {self.path} is corrupt at line {i}") from None
            if k < 0 or (k in self.chunks and self.chunks[k] != stats):
                raise ResultFileError(f"result file {self.path} is corrupt at line {i} (chunk {k})")
            self.chunks[k] = stats
        if torn:
            # rewrite without the torn tail so that appends start on a fresh line
            with open(self.path, "w", encoding="utf-8") as fh:
                fh.write("\n".join(lines) + "\n")

    # -- writing ---------------------------------------------------------
    def _write(self, obj) -> None:
        self._fh.write(json.dumps(obj, separators=(",", ":")) + "\n")
        self._fh.flush()

    def append(self, k: int, stats: list) -> None:
        self.chunks[k] = stats
        if self._fh is not None:
            self._write({"k": int(k), "stats": stats})

    def record_evaluation(self, evaluation: dict) -> None:
        """Append a look (the method, α, chunks used and the verdict)."""
        self.evaluations.append(dict(evaluation))
        if self.path is not None:
            if self._fh is None:
                with open(self.path, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps({"eval": evaluation}, separators=(",", ":")) + "\n")
            else:
                self._write({"eval": evaluation})

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
