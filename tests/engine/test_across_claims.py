"""Whole claims on every core (``verify_claims(across_claims=True)``): the same
results, bitwise and in the same order, as one process; claims a fresh process
cannot find by id run here."""
from __future__ import annotations

import pytest

from proofs_check.engine import claims, get_claim, verify_claims
from proofs_check.engine.across_claims import groups_by_experiment
from proofs_check.engine import replace
from proofs_check.engine.registry import is_shipped


def _plain(results):
    return [{k: v for k, v in r.to_dict().items() if k != "elapsed_s"} for r in results]


def test_groups_keep_claims_of_one_experiment_together():
    cs = claims("selftest") + claims("seqproj.coverage")
    groups = groups_by_experiment(cs)
    assert sorted(i for g in groups for i in g) == list(range(len(cs)))
    for g in groups:
        exps = {getattr(cs[i], "experiment", None) and cs[i].experiment.id for i in g}
        assert len(exps) == 1 and (None not in exps or len(g) == 1)
    dg = [i for i, c in enumerate(cs) if c.id.startswith("selftest.dg_tail")]
    assert any(set(dg) <= set(g) for g in groups)            # the two DG claims share one experiment


def test_results_equal_one_process_bitwise_and_in_order(tmp_path):
    chosen = claims("selftest") + claims("seqproj.coverage")[:3]
    planted = replace(get_claim("selftest.dg_tail"), id="selftest.dg_tail_local_copy")
    chosen.insert(2, planted)                                  # not findable by id: stays local
    assert not is_shipped(planted) and all(is_shipped(c) for c in chosen if c is not planted)
    kw = dict(quick=True, seed=5, alpha=0.05)
    serial = list(verify_claims(chosen, executor="serial", **kw))
    across = list(verify_claims(chosen, across_claims=True, workers=2, out=tmp_path, **kw))
    assert [r.claim for r in across] == [c.id for c in chosen]
    assert _plain(across) == _plain(serial)


@pytest.mark.parametrize("executor", ["serial", "threads"])
def test_an_explicit_executor_keeps_claims_in_this_process(executor, monkeypatch):
    import proofs_check.engine.across_claims as ac

    monkeypatch.setattr(ac, "verify_across_claims", lambda *a, **k: pytest.fail("went across claims"))
    rs = list(verify_claims(claims("selftest"), executor=executor, workers=2, across_claims=True, quick=True))
    assert len(rs) == len(claims("selftest"))
