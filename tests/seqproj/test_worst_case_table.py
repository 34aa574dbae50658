"""The M*_worst table's search (issue 25): the same bracket as the bisection, fewer expensive solves, resumable."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from seqproj import worst_case as wcm
from seqproj import worst_case_table as wct
from seqproj.worst_case_bracket import worst_case_mstar_range


def test_upper_estimate_is_at_least_the_coarse_value():
    """The inequality that makes the coarse DP a free test of the upper side: U(M) ≥ p_c(M)."""
    for M in (12, 30, 60):
        U, _ = wcm.worst_case_upper(M, 0.5, 20)
        p_c = wcm.worst_case_value(M, 0.5, 20, **wct.COARSE).p
        assert U >= p_c


@pytest.fixture(scope="module")
def cell(tmp_path_factory):
    path = tmp_path_factory.mktemp("wct") / "cell.jsonl"
    return wct.mstar_cell(0.5, 20, delta=0.2, n=4000, journal=path), path


def test_bracket_is_adjacent_on_both_sides(cell):
    """U(M_hi) ≤ δ < U(M_hi − 1) (or p_c(M_hi − 1) > δ, which implies it); lo(M_lo) > δ ≥ lo(M_lo + 1)."""
    res, _ = cell
    ev = res["evals"]
    hi, lo95, lo99 = res["M_hi"], res["M_lo_95"], res["M_lo_99"]
    assert lo99 <= lo95 < hi
    assert ev[str(hi)]["upper"] <= 0.2
    below = ev[str(hi - 1)]
    assert below.get("upper", 0.0) > 0.2 or below["p_c"] > 0.2
    assert ev[str(lo95)]["lo95"] > 0.2 >= ev[str(lo95 + 1)]["lo95"]
    assert ev[str(lo99)]["lo99"] > 0.2 >= ev[str(lo99 + 1)]["lo99"]
    assert res["n_evals"]["upper"] < 4                 # the coarse DP located it
    assert res["consistent"] and ev[str(hi)]["lo95"] <= 0.2


@pytest.mark.slow        # 35 s: the bisection evaluates every M on both sides
def test_same_bracket_as_the_bisection(cell):
    """worst_case_mstar_range (bisection, every M evaluated on both sides) finds the same ends."""
    res, _ = cell
    lo, hi, _ = worst_case_mstar_range(0.5, 0.2, 20, upper_window=(10, 60), lower_window=(5, 60), n=4000)
    assert (lo, hi) == (res["M_lo_95"], res["M_hi"])


def test_resume_repeats_no_evaluation(cell, monkeypatch):
    """A second run reads the journal: no solve, the same table; a line cut by an interrupt is
    recomputed, not an error."""
    res, path = cell
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2])
    calls = []
    real = wcm.worst_case_value
    monkeypatch.setattr(wcm, "worst_case_value", lambda *a, **k: calls.append(a) or real(*a, **k))
    again = wct.mstar_cell(0.5, 20, delta=0.2, n=4000, journal=path)
    for key in ("M_hi", "M_lo_95", "M_lo_99", "M_c"):
        assert again[key] == res[key]
    assert len(calls) <= 4                             # only the cut evaluation is redone
    # the recomputed evaluation starts on its own line: the journal reads back whole
    entries = wct.read_journal(path, wct.cell_identity(0.5, 20))
    assert len(entries) == len(lines)


@pytest.mark.parametrize("kw, msg", [
    (dict(eps="x"), "eps"), (dict(eps=1.5), "eps"), (dict(T=0), "T"), (dict(delta=2.0), "delta"),
    (dict(n=5), "n must"), (dict(journal=123), "journal"),
])
def test_mstar_cell_refuses_bad_input_by_name(kw, msg):
    with pytest.raises((ValueError, TypeError), match=msg):
        wct.mstar_cell(**{"eps": 0.5, "T": 20, **kw})


@pytest.mark.parametrize("argv, msg", [
    (["--cells", "0.5-100"], "EPS:T"), (["--cells", "1.5:100"], "eps must lie in (0, 1)"),
    (["--cells", "0.5:0"], "T must be"), (["--delta", "1.5"], "--delta"), (["--workers", "0"], "--workers"),
])
def test_cli_refuses_bad_arguments(argv, msg, capsys, tmp_path):
    with pytest.raises(SystemExit) as e:
        wct.main([*argv, "--out", str(tmp_path / "t.json")])
    assert e.value.code == 2 and msg in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.hostile     # a subprocess, as a user runs it
def test_cli_writes_the_table(tmp_path):
    out = tmp_path / "t.json"
    r = subprocess.run([sys.executable, "-m", "seqproj.worst_case_table", "--cells", "0.5:20", "--delta", "0.2",
                        "--workers", "1", "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    c = doc["cells"]["0.5_20"]
    assert c["M_lo_95"] < c["M_hi"] and "upper M=" in r.stderr and "(M_lo95, M_hi]" in r.stdout
    assert (tmp_path / "t.json.d" / "eps0.5_T20.jsonl").exists()


def _signed(entry, eps=0.5, T=20, **over):
    """A journal line of cell (eps, T) as the module writes it, then ``over`` applied and re-signed
    (an edit made by someone who recomputes the checksum)."""
    d = json.loads(wct.journal_line(wct.cell_identity(eps, T), entry))
    if over:
        d.update(over)
        d["sha256"] = wct._checksum(d)
    return json.dumps(d)


def _replay(M, k, n, **kw):
    from proofs_check.engine import clopper_pearson

    return {"kind": "lower", "M": M, "k": k, "n": n, "rate": k / n, "lo95": clopper_pearson(k, n, 0.05)[0],
            "p_dp": 0.2, "seed": 5000 + M, "seconds": 0.1, **kw}


_GOOD = {"kind": "coarse", "M": 12, "p_c": 0.3, "seconds": 0.1}


@pytest.mark.parametrize("line, msg", [
    (_signed(_GOOD, kind="other"), "kind must be one of"),
    (_signed(_GOOD, M=2.5), "M must be an integer"),
    (_signed(_GOOD, p_c=float("nan")), "p_c must be a finite number"),
    (_signed(_GOOD, p_c=1.5), r"p_c must be a probability in \[0, 1\]"),
    (_signed(_GOOD, p_c=-0.01), r"p_c must be a probability in \[0, 1\]"),
    (_signed({"kind": "upper", "M": 10, "seconds": 1}), "upper must be a finite number"),
    (_signed({"kind": "upper", "M": 10, "upper": 1.2, "seconds": 1}), r"upper must be a probability"),
    (_signed({**_replay(10, 5, 7), "k": 7, "n": 5}), "0 ≤ k ≤ n"),
    (_signed(_replay(10, 5, 4000), rate=0.5), "is not k/n"),
    (_signed(_replay(10, 5, 4000), seed=7), "seed must be 5000 \\+ M"),
    (_signed(_replay(10, 5, 4000), lo95=0.3), "Clopper–Pearson"),
    (_signed(_GOOD).replace('"p_c": 0.3', '"p_c": 0.0'), "checksum mismatch"),
    (_signed(_GOOD, eps=0.25), r"another cell \(ε = 0.25, T = 20\)"),
    (_signed(_GOOD, T=100), r"another cell \(ε = 0.5, T = 100\)"),
    (_signed(_GOOD, code="f" * 16), "another version of the code"),
    (_signed(_GOOD, journal="seqproj-worst-case-journal/9"), "is not 'seqproj-worst-case-journal/2'"),
    ('{"kind": "coarse", "M": 12, "p_c": 0.3, "seconds": 0.1}', "older version"),
    ("[]", "a JSON object is needed"),
], ids=["kind", "M", "p_c_nan", "p_c_above_1", "p_c_negative", "upper_missing", "upper_above_1", "k_above_n",
        "rate_not_k_over_n", "seed", "lo95", "checksum", "other_eps", "other_T", "other_code", "future_format",
        "old_format", "not_an_object"])
def test_an_edited_journal_is_refused_by_line(tmp_path, line, msg):
    """Issue 35 A2: a line of another cell, another code, a bad checksum, a probability outside
    [0, 1] or a rate other than k/n is refused with its file and line, never merged."""
    path = tmp_path / "cell.jsonl"
    path.write_text(_signed({"kind": "coarse", "M": 14, "p_c": 0.25, "seconds": 0.1}) + "\n" + line + "\n")
    with pytest.raises(wct.JournalError, match=f"{path}, line 2: .*{msg}"):
        wct.mstar_cell(0.5, 20, delta=0.2, n=4000, journal=path)


def test_contradicting_lines_and_an_upper_below_the_coarse_value_are_refused(tmp_path):
    path = tmp_path / "cell.jsonl"
    path.write_text(_signed(_GOOD) + "\n" + _signed({**_GOOD, "p_c": 0.31}) + "\n")
    with pytest.raises(wct.JournalError, match="line 2: contradicts line 1"):
        wct.mstar_cell(0.5, 20, delta=0.2, n=4000, journal=path)
    path.write_text(_signed(_GOOD) + "\n" + _signed({"kind": "upper", "M": 12, "upper": 0.2, "seconds": 1}) + "\n")
    with pytest.raises(wct.JournalError, match=r"line 2: upper 0.2 is below the coarse value"):
        wct.mstar_cell(0.5, 20, delta=0.2, n=4000, journal=path)
    # the same evaluation twice (two runs on one journal) is fine
    path.write_text(_signed(_GOOD) + "\n" + _signed({**_GOOD, "seconds": 3.0}) + "\n")
    assert [e["M"] for _, e in wct.read_journal(path, wct.cell_identity(0.5, 20))] == [12]


def test_the_code_fingerprint_covers_the_modules_that_compute(monkeypatch, tmp_path):
    """Another source of one of the computing modules gives another fingerprint (so its lines are
    refused); the identity names ε and T."""
    fp = wct.code_fingerprint()
    import seqproj.worst_case_replay as rep

    src = Path(rep.__file__).read_bytes()
    real_read = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: src + b"# edited\n" if self == Path(rep.__file__)
                        else real_read(self))
    monkeypatch.setattr(wct, "_FINGERPRINT", None)
    assert wct.code_fingerprint() != fp
    assert {"eps": 0.5, "T": 20}.items() <= wct.cell_identity(0.5, 20).items()


def test_a_failed_journal_write_names_the_file(tmp_path, monkeypatch):
    """A full disk while appending is an OSError naming the journal (the CLI prints it as one line)."""
    path = tmp_path / "cell.jsonl"

    def full(fd, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(wct.os, "write", full)
    with pytest.raises(OSError, match="cannot append to the journal: No space left on device") as e:
        wct.mstar_cell(0.5, 20, delta=0.2, n=4000, journal=path)
    assert e.value.filename == str(path)


def test_a_journalled_replay_of_another_size_is_run_again(cell, tmp_path):
    """The 4 000-trial replays of the fixture's journal are not reused at n = 2 000."""
    res, path = cell
    copy = tmp_path / "cell.jsonl"
    copy.write_text(path.read_text())
    small = wct.mstar_cell(0.5, 20, delta=0.2, n=2000, journal=copy)
    assert small["n"] == 2000 and all(e["n"] == 2000 for e in small["evals"].values() if "k" in e)
    assert small["M_hi"] == res["M_hi"]                  # the upper side does not depend on n


def test_the_stored_table_is_the_figures_source():
    cells = wct.stored_table()
    assert set(cells) == {f"{e:g}_{T}" for e, T in wct.CELLS}
    assert all(c["M_lo_95"] < c["M_hi"] and c["consistent"] for c in cells.values())
