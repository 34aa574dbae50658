"""The mismatch figures build quickly and deterministically."""
import json

import pytest

import paper_figs as pf


@pytest.mark.parametrize("name", ["mismatch_horizon", "mismatch_tightness", "mismatch_trm_acceptance",
                                  "mismatch_lr_schedule"])
def test_quick_figure_deterministic(name, tmp_path):
    fn = pf.figures(name)[name]
    _, d1 = fn(quick=True, seed=0)
    fig, d2 = fn(quick=True, seed=0)
    assert json.dumps(d1, sort_keys=True, default=str) == json.dumps(d2, sort_keys=True, default=str)
    paths = pf.save_figure(fig, name, d2, tmp_path)
    assert all(p.exists() and p.stat().st_size > 0 for p in paths)


def test_horizon_slopes():
    _, d = pf.figures("mismatch_horizon")["mismatch_horizon"](quick=True, seed=0)
    assert 0.9 < d["curves"]["|Error| (i.i.d. tilt, exact)"]["slope"] < 1.1
    assert 1.4 < d["bounds"]["pm_kl"]["slope"] < 1.6
    assert 1.95 < d["bounds"]["classical"]["slope"] < 2.1


def test_stationary_weight_panel_matches_enumeration():
    """Panel (d) of mismatch_estimators: the closed forms against brute force over all 2^T responses."""
    import itertools
    import math

    import numpy as np

    from paper_figs.mismatch_figs import _stationary_weight
    from proofs_check.mismatch.estimators import length_trap_horizon

    w = _stationary_weight(range(1, 9), z=3.0, temp=0.6, C=2.0)
    pi1, mu1 = 1 / (1 + math.exp(-3.0)), 1 / (1 + math.exp(-1.8))
    for i, T in enumerate(w["T"]):
        second = masked = 0.0
        for y in itertools.product((0, 1), repeat=T):
            k = sum(y)
            pmu = mu1 ** k * (1 - mu1) ** (T - k)
            rho = (pi1 / mu1) ** k * ((1 - pi1) / (1 - mu1)) ** (T - k)
            second += pmu * rho * rho
            masked += pmu * (rho > 2.0)
        assert w["second_moment"][i] == pytest.approx(second, rel=1e-12)
        assert w["masked"][i] == pytest.approx(masked, abs=1e-12)
        assert w["typical_rho"][i] == pytest.approx((pi1 / mu1) ** T, rel=1e-12)
    assert w["T_star"] == pytest.approx(length_trap_horizon(2.0, pi1 / mu1))
    assert np.all(np.diff(w["second_moment"]) > 0)
