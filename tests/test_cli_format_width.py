"""The terminal table at 60, 80 and 120 columns, and the header of piped output.

Run as a user meets them: ``theorycheck`` in a subprocess on a real pseudo-terminal
of the given width (``COLUMNS`` set too).  Readable means: no line wider than the
terminal, every claim id whole on one line, and every word of every evidence/statement
cell (taken from the ``plain`` format of the same command) whole in the output — a
column squeezed to one character prints words letter by letter and fails this.
"""
from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios

import pytest

from rich.cells import cell_len

#: Subprocess suites (each test starts the CLI): the slow tier, run first in CI's slow stage
#: (``.ci/run``), so that the default run stays under 10 minutes on 2 cores.
pytestmark = [pytest.mark.slow, pytest.mark.hostile]

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")
_BOX = re.compile(r"[│┃]")
LIST_COLUMNS = ["claim", "kind", "label", "role", "source", "statement"]
VERIFY_COLUMNS = ["claim", "kind", "verdict", "guarantee", "evidence", "seed", "s"]


def run_in_pty(args: list[str], columns: int, cwd) -> tuple[int, str]:
    """``python -m theorycheck ARGS`` on a pseudo-terminal ``columns`` wide; (rc, screen text)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {**os.environ, "COLUMNS": str(columns), "LINES": "50", "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen([sys.executable, "-m", "theorycheck", *args], stdin=slave, stdout=slave,
                            stderr=slave, cwd=cwd, env=env, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 600)
        if not ready:
            proc.kill()
            raise AssertionError(f"theorycheck {' '.join(args)} produced nothing for 600 s")
        try:
            data = os.read(master, 65536)
        except OSError:              # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    rc = proc.wait(timeout=60)
    text = _ANSI.sub("", b"".join(chunks).decode("utf-8", "replace"))
    return rc, text


def plain_rows(args: list[str], cwd) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the same command piped (the ``plain`` format)."""
    out = subprocess.run([sys.executable, "-m", "theorycheck", *args], capture_output=True, text=True,
                         cwd=cwd, timeout=600)
    assert out.returncode == 0, out.stderr
    lines = [line.split("\t") for line in out.stdout.splitlines()]
    known = LIST_COLUMNS if args[0] == "list" else VERIFY_COLUMNS
    if lines and lines[0] == known:
        return lines[0], lines[1:]
    return [], lines                      # no header line (the old behaviour)


def assert_readable(screen: str, header: list[str], rows: list[list[str]], columns: int, wrapped: list[str]):
    lines = [line for line in screen.splitlines() if line.strip()]
    header = header or (LIST_COLUMNS if len(rows[0]) == len(LIST_COLUMNS) else VERIFY_COLUMNS)
    tokens = set()
    for line in lines:
        tokens.update(_BOX.sub(" ", line).split())
    for row in rows:
        assert any(row[0] in line for line in lines), f"claim id {row[0]} not whole on one line"
        for name in wrapped:
            words = [w for w in row[header.index(name)].split() if w not in "⚠·"]
            missing = [w for w in words if w not in tokens]
            assert not missing, (f"{row[0]}: {name} words cut at {columns} columns: {missing[:5]}\n"
                                 + "\n".join(lines[:40]))
    # no column squeezed: no run of three lines whose text cells are all ≤ 2 characters
    narrow = [all(len(c.strip()) <= 2 for c in _BOX.split(line)[1:-1]) and _BOX.search(line) is not None
              for line in lines]
    assert not any(narrow[i] and narrow[i + 1] and narrow[i + 2] for i in range(len(narrow) - 2)), \
        "a column is printed one or two characters wide"
    too_wide = [line for line in lines if cell_len(line) > columns]
    assert not too_wide, f"{len(too_wide)} line(s) wider than {columns} columns: {too_wide[:2]}"


@pytest.fixture(scope="module")
def verify_out(tmp_path_factory):
    """One quick run of the selftest claims; the terminal runs read it back with --resume."""
    out = tmp_path_factory.mktemp("verify")
    header, rows = plain_rows(["verify", "selftest", "--quick", "--out", str(out / "r")], out)
    return out, header, rows


def _verify_case(verify_out, columns):
    out, header, rows = verify_out
    rc, screen = run_in_pty(["verify", "selftest", "--quick", "--out", str(out / "r"), "--resume"],
                            columns, out)
    assert rc == 0, screen
    assert_readable(screen, header, rows, columns, ["evidence"])
    assert f"{len(rows)} claims:" in screen


def test_verify_table_is_readable_at_80_columns(verify_out):
    _verify_case(verify_out, 80)


@pytest.mark.slow
@pytest.mark.parametrize("columns", [60, 120])
def test_verify_table_is_readable_at_60_and_120_columns(verify_out, columns):
    _verify_case(verify_out, columns)


@pytest.mark.parametrize("columns", [60, 80, 120, 200])
def test_list_table_is_readable(tmp_path, columns):
    header, rows = plain_rows(["list", "selftest"], tmp_path)
    rc, screen = run_in_pty(["list", "selftest"], columns, tmp_path)
    assert rc == 0, screen
    assert_readable(screen, header, rows, columns, ["statement", "source"])


def test_piped_output_starts_with_a_header_line(tmp_path, verify_out):
    header, rows = plain_rows(["list", "selftest"], tmp_path)
    assert header == LIST_COLUMNS
    assert rows and all(len(r) == len(header) for r in rows)
    _, vheader, vrows = verify_out
    assert vheader == VERIFY_COLUMNS
    assert {r[0] for r in vrows} == {"selftest.dg_tail", "selftest.dg_tail_doubled",
                                     "selftest.logit_energy_identity"}
