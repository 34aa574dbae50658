"""The certifier's mutation table (issue 31: "remove each premise check in turn → the suite
fails, naming the case").

``proofs_check.engine.certify._PREMISES`` maps each premise check of the certifier to a flag
(``True``: checked).  For each flag set to ``False`` in turn (monkeypatch), every case of the
table runs at seed 0; the flag must make at least one case fail that passes with every check
on (a false proof, a refutation outside the domain, a refuted true control).  The table flag →
failing cases is printed (``pytest -s``).  Flags are read from the module, so a new premise
check is covered the day it is added; with no ``_PREMISES`` the test skips and says so.

A flag that no case needs on its own is then tried together with each other flag (both
``False``): if the pair fails cases that the other flag alone does not, the check is defence
in depth and the table says so ("needed once <other> is off").  Measured on the tree of issue
31: ``as_differentiated_derivative`` is needed once ``g_enclosed_before_derivative`` is off
(``jump.atan_w1e-9``), and ``integer_slices`` and ``counterexample_in_domain`` each guard the
other (``int.true_*_engine``; through ``tc.inequality`` the declaration layer's
``CheckedCertifier`` is a third guard).  The test fails for a flag needed neither alone nor
in any pair: a check that no planted statement needs is redundant or lacks its case.
"""
from __future__ import annotations

import pytest

from .cases import CASES
from .harness import judge, run_case


def _premises():
    from proofs_check.engine import certify

    flags = getattr(certify, "_PREMISES", None)
    if not isinstance(flags, dict) or not flags:
        pytest.skip("proofs_check.engine.certify._PREMISES is missing or empty: no premise flags to mutate")
    return flags


def _failing(seed=0):
    out = {}
    for c in CASES:
        kinds = sorted({k for k, _ in judge(c, run_case(c, seed))})
        if kinds:
            out[c.id] = kinds
    return out


@pytest.mark.slow
def test_each_premise_check_is_needed(monkeypatch):
    flags = _premises()
    base = _failing()
    table, idle = {}, []
    for flag in sorted(flags):
        with monkeypatch.context() as mp:
            mp.setitem(flags, flag, False)
            now = _failing()
        new = {cid: kinds for cid, kinds in now.items() if base.get(cid) != kinds}
        table[flag] = new
        if not new:
            idle.append(flag)
    alone = {flag: now for flag, now in table.items()}
    pairs = {}
    for flag in idle:
        for other in sorted(flags):
            if other == flag:
                continue
            with monkeypatch.context() as mp:
                mp.setitem(flags, flag, False)
                mp.setitem(flags, other, False)
                now = _failing()
            other_alone = {**base, **alone[other]}
            extra = sorted(cid for cid, kinds in now.items() if other_alone.get(cid) != kinds)
            if extra:
                pairs.setdefault(flag, []).append((other, extra))
    print("\nmutation table (flag set False → cases that now fail):")
    for flag, new in table.items():
        shown = ", ".join(f"{cid} [{'/'.join(k)}]" for cid, k in sorted(new.items())) or "NONE alone"
        print(f"  {flag}: {shown}")
        for other, extra in pairs.get(flag, []):
            print(f"      needed once {other} is off: {', '.join(extra)}")
    if base:
        print(f"  (failing with every check on, not counted: {sorted(base)})")
    useless = [f for f in idle if f not in pairs]
    assert not useless, (f"no case fails when these premise checks are removed, alone or with another: {useless}; "
                         f"add a case that needs them")
