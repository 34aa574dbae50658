import pickle

import numpy as np
import pytest

import proofs_check
from proofs_check.engine import LABELS
from proofs_check.engine import measure
from proofs_check.engine import claims, get_claim
from proofs_check.engine import sign_of


def _ours():
    return claims("ensemble")


def test_claims_registered_and_picklable():
    ours = _ours()
    ids = {c.id for c in ours}
    for needed in ("ensemble.equivalence.mean_is_ridge",
                   "ensemble.equivalence.one_hot_is_ensemble_sampling",
                   "ensemble.equivalence.sgd_to_closed_form", "ensemble.tracking.decay_in_M",
                   "ensemble.tracking.flat_in_d", "ensemble.tracking.flat_in_T",
                   "ensemble.regret.finite.d10.gaussian", "ensemble.regret.finite.d50.ES",
                   "ensemble.regret.smallest_m_vs_d", "ensemble.failure.float32_sqrt"):
        assert needed in ids
    for c in ours:
        assert c.label in LABELS and c.id.startswith("ensemble.")
        pickle.loads(pickle.dumps(c.chunk_task()))


@pytest.mark.parametrize("cid", ["ensemble.equivalence.mean_is_ridge",
                                 "ensemble.equivalence.one_hot_is_ensemble_sampling",
                                 "ensemble.equivalence.sgd_to_closed_form",
                                 "ensemble.failure.unnormalised_perturbation",
                                 "ensemble.failure.rank_deficient",
                                 "ensemble.failure.lookahead_perturbation",
                                 "ensemble.failure.reused_perturbation",
                                 "ensemble.failure.float32_sqrt"])
def test_quick_identity_claims_hold(cid):
    r = proofs_check.verify(cid, quick=True)
    assert r.verdict == "holds", r.to_dict()


def test_smallest_m_censoring_is_never_a_value():
    """'Not reached on the grid' is ``None`` from :func:`smallest_m_on_grid` and NaN in the
    claim's reduce (censored), never a number that a fit could use."""
    import math

    import numpy as np

    from seqproj.ensemble import smallest_m_on_grid
    from seqproj.ensemble.regret_sweep import smallest_m_per_d

    ms = (1, 2, 4, 8)
    ts = 100.0
    assert smallest_m_on_grid(ms, [130, 105, 108, 109], ts, 0.10) == 2
    assert smallest_m_on_grid(ms, [105, 130, 108, 109], ts, 0.10) == 4    # from which on
    assert smallest_m_on_grid(ms, [100, 100, 100, 100], ts, 0.10) == 1
    assert smallest_m_on_grid(ms, [100, 100, 100, 111], ts, 0.10) is None
    assert smallest_m_on_grid(ms, [200, 200, 200, 200], ts, 0.10) is None
    # d = 1: columns TS, then M ∈ 1, 2, 3, 4, 6, 8
    stats = {"mean_final_d1": np.array([[100.0, 105, 108, 109, 109, 109, 109],
                                        [100.0, 200, 200, 200, 200, 200, 200]])}
    out = smallest_m_per_d(stats, ds=(1,), margin=0.10)
    assert out.shape == (2, 1) and out[0, 0] == 1 and math.isnan(out[1, 0])


def test_roles_and_expectations_are_declared():
    by_id = {c.id: c for c in _ours()}
    for c in by_id.values():
        assert c.role in ("statement", "control", "measurement")
        assert c.expected in ("holds", "refuted", None)
    for cid, c in by_id.items():
        if cid.startswith("ensemble.failure.") and cid != "ensemble.failure.one_hot_small_m":
            assert (c.role, c.expected) == ("control", "holds"), cid
        if cid.startswith("ensemble.regret.") or cid.startswith("ensemble.tracking.haar") \
                or cid == "ensemble.failure.one_hot_small_m":
            # no honest a.s. range of a regret or a sup error: a majority of signs (issue 21)
            assert c.kind != "comparison" or (c.bounds == (-1.0, 1.0) and c.params.get("statistic", "sign")
                                              and "sign" in c.statement), cid
    assert by_id["ensemble.regret.smallest_m_vs_d"].version >= 2


def test_sweep_experiment_equals_run_bandit():
    """The stored sweep is the runner's simulation: same seed and chunk size, same numbers."""
    from seqproj.ensemble import (FiniteArmEnv, RegretSweep, finite_sweep, run_bandit,
                                  sweep_agents)

    exp = finite_sweep(3, K=20, T=30, ms=(1, 2, 24))
    m = measure(exp, 10, seed=4)
    ref = run_bandit(FiniteArmEnv(3, 20), sweep_agents(3, ms=(1, 2, 24)), 30, 10, 4, chunk_size=5)
    res = RegretSweep.from_measurement(m)
    np.testing.assert_array_equal(res.final, ref.final)
    assert res.labels == ref.labels and res.ms == (1, 2, 24)
    for lab in res.curve_labels:
        mean, lo, hi = res.curve_mean_ci(lab)
        np.testing.assert_allclose(mean, ref.mean[ref.index(lab)][res.times - 1], rtol=1e-12)
        assert np.all(lo <= mean) and np.all(mean <= hi)
    assert res.final_mean_ci("TS") == ref.final_mean_ci("TS")


def test_experiments_are_executor_independent():
    from proofs_check.engine import clear_measurements
    from seqproj.ensemble import finite_sweep, tracking_experiment

    for exp in (finite_sweep(3, K=20, T=30, ms=(1, 24)),
                tracking_experiment("M", (4, 8), {"d": 3, "T": 20, "K": 10}, starts=("random", "haar"),
                                    name="vs_M.executors")):
        runs = []
        for ex in ("serial", "threads", "processes"):
            clear_measurements()
            runs.append(measure(exp, 6, seed=2, executor=ex, workers=2).stats)
        for other in runs[1:]:
            assert other.keys() == runs[0].keys()
            for name in runs[0]:
                np.testing.assert_array_equal(other[name], runs[0][name])
    clear_measurements()


def test_regret_claims_of_one_d_read_one_measurement(monkeypatch):
    """Two per-family claims and the figure's reader share the chunks: the sweep runs once."""
    import functools

    from proofs_check.engine import clear_measurements, replace, verify_claim
    from seqproj.ensemble import EnsemblePP, finite_sweep, regret_sweep
    from seqproj.ensemble.regret_sweep import final_gap

    calls = []
    orig = regret_sweep.cumulative_regrets

    def counting(rng, n, **kw):
        calls.append(n)
        return orig(rng, n, **kw)

    monkeypatch.setattr(regret_sweep, "cumulative_regrets", counting)
    clear_measurements()
    exp = finite_sweep(3, K=20, T=30, ms=(1, 24))
    ids = ("ensemble.regret.finite.d10.gaussian", "ensemble.regret.finite.d10.ES")
    for cid, (idx, pert) in zip(ids, (("gaussian", "gaussian"), ("one_hot", "gaussian"))):
        c = replace(get_claim(cid), experiment=exp,
                    reduce=functools.partial(sign_of, functools.partial(
                        final_gap, d=3, label=EnsemblePP(24, idx, pert).label, margin=0.10, ms=(1, 24))))
        verify_claim(c, budget=10, seed=0)
    measure(exp, 10, seed=0)
    assert calls == [5, 5]                    # two chunks of five repetitions, computed once
    clear_measurements()


def test_claims_share_the_figures_experiments():
    from seqproj.ensemble.experiments import (FINITE_SWEEPS, SMALLEST_M, TRACKING_VS_D, TRACKING_VS_M,
                                              TRACKING_VS_T)

    by_id = {c.id: c for c in _ours()}
    families = {}
    for d, exp in FINITE_SWEEPS.items():
        fams = [c for cid, c in by_id.items() if cid.startswith(f"ensemble.regret.finite.d{d}.")]
        assert fams and all(c.experiment is exp for c in fams)
        families[d] = {c.id.rsplit(".", 1)[1] for c in fams}
    assert len(set(map(frozenset, families.values()))) == 1, f"the sweeps check different families: {families}"
    assert by_id["ensemble.regret.smallest_m_vs_d"].experiment is SMALLEST_M
    assert by_id["ensemble.tracking.decay_in_M"].experiment is TRACKING_VS_M
    assert by_id["ensemble.tracking.haar_start_lowers_sup"].experiment is TRACKING_VS_M
    assert by_id["ensemble.tracking.flat_in_d"].experiment is TRACKING_VS_D
    assert by_id["ensemble.tracking.flat_in_T"].experiment is TRACKING_VS_T


def test_sources_are_structured_and_resolve():
    import re
    from pathlib import Path

    from proofs_check.engine import Source
    from proofs_check.papers import PAPERS

    page = Path(__file__).resolve().parents[2] / "docs" / "theory" / "ensemble.md"
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', page.read_text(encoding="utf-8")))
    for c in _ours():
        assert isinstance(c.source, Source), c.id
        assert all(k in PAPERS for k in c.source.papers), c.id
        name, anchor = c.source.theory.split("#")
        assert name == "ensemble.md" and anchor in anchors, c.id
        for ascii_op in ("<=", ">=", "eps", "sqrt"):
            assert ascii_op not in c.statement, (c.id, ascii_op)


def test_importing_the_figures_registers_no_claims():
    import subprocess
    import sys

    code = ("import sys, paper_figs.ensemble_figs, seqproj.ensemble; "
            "print(any(m.startswith('seqproj.ensemble.claims') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.slow
@pytest.mark.parametrize("cid", ["ensemble.tracking.decay_in_M", "ensemble.tracking.flat_in_T"])
def test_slow_claims_decide(cid):
    r = proofs_check.verify(cid)
    assert r.verdict == "holds", r.to_dict()
