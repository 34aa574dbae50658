"""What the command line prints: rows in four formats, the summary line, ``--fail-on``.

* ``table``  — a rich table for a terminal (ids, kinds, verdicts never wrap); when the
  terminal is too narrow for the long columns (an 80-column terminal), each row is
  printed *stacked*: its id, kind and verdict on one line, the other columns below it
  wrapped by words;
* ``plain``  — a header line (the column names), then one line per row, tab-separated,
  never wrapped (the default when standard output is not a terminal, so
  ``theorycheck list | grep`` sees whole ids);
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

__all__ = ["FORMATS", "FAIL_ON", "default_format", "print_rows", "table_fits", "print_note", "summary_line", "parse_fail_on",
           "failing", "suggest", "print_json", "reading_cell", "evidence_cell", "reading_summary"]

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


#: Below this many terminal cells a wrapping column (evidence, statement, source) is
#: not given: the rows are printed stacked instead (see :func:`table_fits`).
MIN_WRAP_WIDTH = 28
#: A column whose longest cell is at most this wide is never wrapped (verdict, seed, seconds).
SHORT_CELL = 16


def _cells(text) -> int:
    """Terminal cells of the widest line of ``text``."""
    from rich.cells import cell_len

    return max((cell_len(line) for line in str(text).splitlines() or [""]), default=0)


def _widths(columns, rows):
    return [max([_cells(c)] + [_cells(r[i]) for r in rows]) for i, c in enumerate(columns)]


def table_fits(columns: list[str], rows: list[tuple], width: int, *, no_wrap: int = 3) -> bool:
    """Whether a boxed table of ``rows`` fits ``width`` terminal cells readably.

    The first ``no_wrap`` columns and every column whose longest cell has at most
    :data:`SHORT_CELL` cells keep their full width; every other column must get at
    least ``min(its longest cell, MIN_WRAP_WIDTH)`` cells (a box table spends 3 cells
    per column and 1 more on its border).  Otherwise :func:`print_rows` stacks the rows.
    """
    need = 1 + 3 * len(columns)
    for i, w in enumerate(_widths(columns, rows)):
        need += w if (i < no_wrap or w <= SHORT_CELL) else min(w, MIN_WRAP_WIDTH)
    return need <= width


def _segments(parts: list[str], width: int, *, indent: int, sep: str = "  ") -> list[str]:
    """``parts`` joined by ``sep`` into lines of at most ``width`` cells, broken only
    between parts (a continuation line starts with ``indent`` spaces; a part longer
    than a line gets a line of its own)."""
    from rich.cells import cell_len

    lines: list[str] = []
    for part in parts:
        if lines and cell_len(lines[-1] + sep + part) <= width:
            lines[-1] += sep + part
        else:
            lines.append((" " * indent if lines else "") + part)
    return lines


def print_rows(fmt: str, title: str, columns: list[str], rows: list[tuple], *, no_wrap: int = 3,
               width: int | None = None) -> None:
    """Print ``rows`` under ``columns`` in ``fmt`` (one of :data:`FORMATS` except json).

    ``table`` is a boxed table when it fits the terminal (:func:`table_fits`; ``width``
    defaults to the terminal's, ``COLUMNS`` included), else *stacked*: per row one line
    with the first ``no_wrap`` columns (broken only between them), one line with the
    short columns as ``name: value``, then every other column as ``name: value``
    wrapped by words under a four-cell indent.  ``plain`` starts with one header line
    (the column names, tab-separated), then one tab-separated line per row."""
    if fmt == "table":
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        console = Console() if width is None else Console(width=width)
        rows = [tuple(str(x) for x in r) for r in rows]
        if table_fits(columns, rows, console.width, no_wrap=no_wrap):
            widths = _widths(columns, rows)
            t = Table(title=title, show_lines=False)
            for i, c in enumerate(columns):
                keep = i < no_wrap or widths[i] <= SHORT_CELL
                t.add_column(c, overflow="fold", no_wrap=keep,
                             min_width=widths[i] if keep else min(widths[i], MIN_WRAP_WIDTH))
            for r in rows:
                t.add_row(*r)
            console.print(t)
            return
        console.print(Text(title, style="italic"))
        widths = _widths(columns, rows)
        short = [i for i in range(no_wrap, len(columns)) if widths[i] <= SHORT_CELL]
        for r in rows:
            for line in _segments(list(r[:no_wrap]), console.width, indent=2):
                console.print(Text(line, style="bold"), overflow="fold", soft_wrap=False)
            below = [" · ".join(f"{columns[i]}: {r[i]}" for i in short if r[i].strip())]
            below += [f"{columns[i]}: {r[i]}" for i in range(no_wrap, len(columns))
                      if i not in short and r[i].strip()]
            for text in filter(None, below):       # wrapped by words under a 4-cell indent
                for line in Text(text).wrap(console, max(console.width - 4, 8), overflow="fold"):
                    line.rstrip()
                    console.print(Text("    ") + line, soft_wrap=True)
    elif fmt == "plain":
        print("\t".join(columns))
        for r in rows:
            print("\t".join(" ".join(str(x).split()) for x in r))
    elif fmt == "markdown":
        print("| " + " | ".join(columns) + " |")
        print("|" + "---|" * len(columns))
        for r in rows:
            print("| " + " | ".join(" ".join(str(x).split()).replace("|", "\\|") for x in r) + " |")
    else:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")


def print_note(text: str, *, indent: int = 2) -> None:
    """One note under a table, wrapped by words to the terminal's width (``COLUMNS``
    included) with a hanging indent, so a narrow terminal does not cut words."""
    import shutil
    import textwrap

    width = max(shutil.get_terminal_size((100, 24)).columns, 20 + indent)
    print(textwrap.fill(text, width=width - 1, initial_indent=" " * indent,
                        subsequent_indent=" " * (indent + 2), break_long_words=False,
                        break_on_hyphens=False))


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
    asymptotic = sum(1 for r in results if _not_settled(r) and r.guarantee == "asymptotic")
    if asymptotic:
        parts.append(f"{asymptotic} of the decisive verdicts asymptotic only (not settled)")
    estimates = sum(1 for r in results if _not_settled(r) and r.guarantee == "estimate")
    if estimates:
        parts.append(f"{estimates} on numerical estimates only (not settled)")
    noun = "claim" if len(results) == 1 else "claims"
    line = f"{len(results)} {noun}: " + (", ".join(parts) if parts else "nothing verified")
    if elapsed_s is not None:
        line += f" in {elapsed_s:.1f} s"
    return line


def reading_cell(r, level: str | None = None) -> str:
    """The words a result is printed with: its reading
    (:func:`proofs_check.engine.reading.reading_of`; the tables are in
    ``docs/theory/engine.md`` §5, "Readings"), e.g. ``"paper statement: no counterexample in 400
    evaluations (not a proof)"``.  ``level``: the interval level (default from the result's α)."""
    from proofs_check.engine.reading import reading_of
    from theorycheck.report.provenance import interval_level

    return reading_of(r, level=level or interval_level(r.alpha)).words


def evidence_cell(r) -> str:
    """The evidence of a result in the statement's own terms: a proved claim's certificate (the
    statement proved, its allowance, boxes, smallest width) instead of its search line; else the
    kind's summary, with a positive worst margin beside "holds" explained
    (:func:`theorycheck.report.evidence.margin_note`); then one ``⚠`` line per warning."""
    from theorycheck.report.evidence import margin_note

    if r.guarantee == "proved" and getattr(r, "certificate", None):
        text = r.certificate_sentence()
    else:
        note = margin_note(r)
        text = r.summary() + (f" ({note[0]})" if note else "")
    return text + "".join(f"\n⚠ {w}" for w in r.warnings)


def reading_summary(results) -> str:
    """How many results read in each family (``docs/theory/engine.md`` §5, "Readings"):
    ``"readings: 3 confirmed, 2 searched or on a grid (not proofs), 1 indicated (not settled)"``;
    ``""`` for no result."""
    from proofs_check.engine.reading import reading_of

    words = {"confirmed": "confirmed", "refuted": "refuted", "checked": "searched or on a grid (not proofs)",
             "indicated": "indicated (not settled)", "unsettled": "not settled at this budget"}
    counts: dict[str, int] = {}
    for r in results:
        fam = reading_of(r).family
        counts[fam] = counts.get(fam, 0) + 1
    parts = [f"{counts[f]} {w}" for f, w in words.items() if counts.get(f)]
    return "readings: " + ", ".join(parts) if parts else ""


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
    a variance bound: Hall's interval, no finite-sample guarantee) or
    ``"estimate"`` (a numerical approximation with an estimated, not bounded,
    error) is not settled: it counts as ``inconclusive``, never as ``refuted``
    or ``unexpected`` (``docs/theory/engine.md`` §2.4, §4).
    """
    out = []
    for r in results:
        if _not_settled(r):
            if "inconclusive" in conditions:
                why = ("only asymptotically (no finite-sample guarantee)" if r.guarantee == "asymptotic"
                       else "on a numerical estimate (error not bounded)")
                out.append((r.claim, f"{r.verdict} {why}: not settled"))
        elif "refuted" in conditions and r.verdict == "refuted" and r.expected != "refuted":
            out.append((r.claim, "refuted"))
        elif "inconclusive" in conditions and r.verdict == "inconclusive":
            out.append((r.claim, "inconclusive"))
        elif "unexpected" in conditions and _contradicts(r):
            out.append((r.claim, f"{r.verdict}, expected {r.expected}"))
    return out


def _not_settled(r) -> bool:
    """A decisive verdict resting on an asymptotic guarantee or a numerical estimate only: not
    settled."""
    return r.verdict in ("holds", "refuted") and getattr(r, "guarantee", "") in ("asymptotic", "estimate")


def _contradicts(r) -> bool:
    """A decisive verdict other than the declared expected one (inconclusive and
    asymptotic verdicts are "not settled")."""
    return (r.expected is not None and r.verdict in ("holds", "refuted") and r.verdict != r.expected
            and not _not_settled(r))


def suggest(pattern: str, ids) -> str:
    """A "did you mean" hint for a pattern that matches nothing (ids and their dotted prefixes)."""
    ids = list(ids)
    prefixes = {".".join(i.split(".")[:k]) for i in ids for k in range(1, i.count(".") + 1)}
    near = difflib.get_close_matches(pattern, sorted(prefixes | set(ids)), n=4, cutoff=0.6)
    return f"; did you mean {' or '.join(repr(n) for n in near)}?" if near else \
        "; run `theorycheck list` to see the ids"


def print_json(obj) -> None:
    print(json.dumps(obj, ensure_ascii=False), flush=True)
