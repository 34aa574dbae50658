"""The M*_worst table's search (issue 25): the same bracket as the bisection, fewer expensive solves, resumable."""
from __future__ import annotations

import json
import subprocess
import sys

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


@pytest.mark.parametrize("line, msg", [
    ('{"kind": "other", "M": 5}', "kind must be one of"),
    ('{"kind": "coarse", "M": 2.5, "p_c": 0.1, "seconds": 1}', "M must be an integer"),
    ('{"kind": "coarse", "M": 10, "p_c": NaN, "seconds": 1}', "p_c must be a finite number"),
    ('{"kind": "upper", "M": 10, "seconds": 1}', "upper must be a finite number"),
    ('{"kind": "lower", "M": 10, "k": 7, "n": 5, "rate": 1.4, "seconds": 1}', "0 ≤ k ≤ n"),
])
def test_an_edited_journal_is_refused_by_line(tmp_path, line, msg):
    path = tmp_path / "cell.jsonl"
    path.write_text('{"kind": "coarse", "M": 12, "p_c": 0.3, "seconds": 0.1}\n' + line + "\n")
    with pytest.raises(ValueError, match=f"line 2: .*{msg}"):
        wct.mstar_cell(0.5, 20, delta=0.2, n=4000, journal=path)


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
