"""What the command line prints: rows in four formats, the summary line, ``--fail-on``.

* ``table``  — a rich table for a terminal (ids, kinds, verdicts never wrap);
* ``plain``  — one line per row, tab-separated, never wrapped (the default when
  standard output is not a terminal, so ``theorycheck list | grep`` sees whole ids);
* ``markdown`` — a pipe table to paste into a document;
* ``json``   — one JSON object per line.

The summary line reads like pytest's::

    226 claims: 178 holds, 23 refuted (16 as expected), 25 inconclusive in 70.0 s

``--fail-on`` turns verdicts into an exit status for CI (see :func:`failing`).
"""
from __future__ import annotations

import difflib
import json
import sys

__all__ = ["FORMATS", "FAIL_ON", "default_format", "print_rows", "summary_line", "parse_fail_on",
           "failing", "suggest", "print_json"]

FORMATS = ("table", "plain", "markdown", "json")

#: ``--fail-on`` conditions and what each one means.
FAIL_ON = {
    "refuted": "a claim is refuted that was not expected to be (asymptotic verdicts excepted: not settled)",
    "inconclusive": "a claim is inconclusive, or decided only asymptotically (not settled)",
    "unexpected": "a claim is decided (holds or refuted, not asymptotically) against its declared expected "
                  "verdict",
}

#: Exit status when a ``--fail-on`` condition is met (2 is bad input, 130 Ctrl-C).
EXIT_FAILED = 1


def default_format(stream=None) -> str:
    """``table`` on a terminal, ``plain`` otherwise (pipes and files never wrap)."""
    stream = sys.stdout if stream is None else stream
    return "table" if getattr(stream, "isatty", lambda: False)() else "plain"


def _cell(x) -> str:
    return " ".join(str(x).split()) if not isinstance(x, str) else x


def print_rows(fmt: str, title: str, columns: list[str], rows: list[tuple], *, no_wrap: int = 3) -> None:
    """Print ``rows`` under ``columns`` in ``fmt`` (one of :data:`FORMATS` except json)."""
    if fmt == "table":
        from rich.console import Console
        from rich.table import Table

        t = Table(title=title, show_lines=False)
        for i, c in enumerate(columns):
            t.add_column(c, overflow="fold", no_wrap=i < no_wrap)
        for r in rows:
            t.add_row(*[str(x) for x in r])
        Console().print(t)
    elif fmt == "plain":
        for r in rows:
            print("\t".join(" ".join(str(x).split()) for x in r))
    elif fmt == "markdown":
        print("| " + " | ".join(columns) + " |")
        print("|" + "---|" * len(columns))
        for r in rows:
            print("| " + " | ".join(" ".join(str(x).split()).replace("|", "\\|") for x in r) + " |")
    else:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")


def summary_line(results, elapsed_s: float | None = None) -> str:
    """``N claims: a holds, b refuted (c as expected), d inconclusive`` (+ how many
    are against expectation, how many decisive verdicts are asymptotic only, time)."""
    results = list(results)
    counts: dict[str, int] = {}
    expected_hits: dict[str, int] = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
        if r.expected is not None and r.verdict == r.expected:
            expected_hits[r.verdict] = expected_hits.get(r.verdict, 0) + 1
    parts = []
    for verdict in ("holds", "refuted", "inconclusive"):
        n = counts.get(verdict, 0)
        if not n:
            continue
        text = f"{n} {verdict}"
        if verdict != "holds" and expected_hits.get(verdict):
            text += f" ({expected_hits[verdict]} as expected)"
        parts.append(text)
    contradicted = sum(1 for r in results if _contradicts(r))
    if contradicted:
        parts.append(f"{contradicted} against expectation")
    asymptotic = sum(1 for r in results if _asymptotic(r))
    if asymptotic:
        parts.append(f"{asymptotic} of the decisive verdicts asymptotic only (not settled)")
    noun = "claim" if len(results) == 1 else "claims"
    line = f"{len(results)} {noun}: " + (", ".join(parts) if parts else "nothing verified")
    if elapsed_s is not None:
        line += f" in {elapsed_s:.1f} s"
    return line


def parse_fail_on(text: str) -> tuple[str, ...]:
    """``"refuted,inconclusive"`` -> ``("refuted", "inconclusive")``; ValueError names the allowed words."""
    words = tuple(w.strip() for w in text.split(",") if w.strip())
    bad = [w for w in words if w not in FAIL_ON]
    if bad or not words:
        raise ValueError(f"--fail-on must be a comma-separated subset of {', '.join(FAIL_ON)}, "
                         f"got {text!r}")
    return words


def failing(results, conditions) -> list[tuple[str, str]]:
    """``(claim id, reason)`` for every result meeting one of the ``--fail-on`` conditions.

    ``refuted`` respects ``expected``: a control or finding declared
    ``expected="refuted"`` that is refuted does not fail the run.  A decisive
    verdict whose guarantee is ``"asymptotic"`` (a comparison without bounds or
    a variance bound: Hall's interval, no finite-sample guarantee) is not
    settled: it counts as ``inconclusive``, never as ``refuted`` or
    ``unexpected`` (``docs/theory/engine.md`` §2.4).
    """
    out = []
    for r in results:
        if _asymptotic(r):
            if "inconclusive" in conditions:
                out.append((r.claim, f"{r.verdict} only asymptotically (no finite-sample guarantee): not settled"))
        elif "refuted" in conditions and r.verdict == "refuted" and r.expected != "refuted":
            out.append((r.claim, "refuted"))
        elif "inconclusive" in conditions and r.verdict == "inconclusive":
            out.append((r.claim, "inconclusive"))
        elif "unexpected" in conditions and _contradicts(r):
            out.append((r.claim, f"{r.verdict}, expected {r.expected}"))
    return out


def _asymptotic(r) -> bool:
    """A decisive verdict resting on an asymptotic guarantee only: not settled."""
    return r.verdict in ("holds", "refuted") and getattr(r, "guarantee", "") == "asymptotic"


def _contradicts(r) -> bool:
    """A decisive verdict other than the declared expected one (inconclusive and
    asymptotic verdicts are "not settled")."""
    return (r.expected is not None and r.verdict in ("holds", "refuted") and r.verdict != r.expected
            and not _asymptotic(r))


def suggest(pattern: str, ids) -> str:
    """A "did you mean" hint for a pattern that matches nothing (ids and their dotted prefixes)."""
    ids = list(ids)
    prefixes = {".".join(i.split(".")[:k]) for i in ids for k in range(1, i.count(".") + 1)}
    near = difflib.get_close_matches(pattern, sorted(prefixes | set(ids)), n=4, cutoff=0.6)
    return f"; did you mean {' or '.join(repr(n) for n in near)}?" if near else \
        "; run `theorycheck list` to see the ids"


def print_json(obj) -> None:
    print(json.dumps(obj, ensure_ascii=False), flush=True)
