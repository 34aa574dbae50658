"""Local exponents, curvature, the smallest index dimension and bsuite's learning time on
DeepSea (theory ``docs/theory/ensemble.md#deep-sea-laws``, issue 23 §3)."""
import functools
import math

import numpy as np
import pytest

from proofs_check.engine import Experiment, get_claim, replace, verify_claim
from seqproj.ensemble.deep_exploration import (bsuite_learning_time, deep_sea_trials,
                                               episodes_to_solve, make_agent, run_deep_sea)
from seqproj.ensemble.deep_sea_laws import (curvature, curvature_or_against, local_exponents,
                                            mstar_log_slope, mstar_signs, paired_signs,
                                            smallest_m, smallest_m_table)
from seqproj.ensemble.deepsea import DeepSea

NS = (4, 8, 16, 32, 64)


def _noisy(y_of_n, R=40, sd=0.2, seed=0):
    g = np.random.default_rng(seed)
    return np.array([[y_of_n(N) * math.exp(sd * g.standard_normal()) for N in NS] for _ in range(R)])


# ----------------------------------------------------------------------------- local exponents

def test_local_exponents_of_a_power_law_and_of_a_bending_curve():
    y = _noisy(lambda N: 3.0 * N ** 2)
    rows = local_exponents(NS, y, width=3)
    assert [r.Ns for r in rows] == [(4, 8, 16), (8, 16, 32), (16, 32, 64)]
    for r in rows:
        assert r.censored == 0 and r.ci[0] < 2.0 < r.ci[1] and r.ci[1] - r.ci[0] < 0.5
    # log y = 0.5 ℓ²: local slope = ℓ at the window's centre, rising
    bend = _noisy(lambda N: math.exp(0.5 * math.log(N) ** 2), sd=0.05)
    ex = [r.exponent for r in local_exponents(NS, bend, width=3)]
    assert ex[0] < ex[1] < ex[2]
    assert abs(ex[1] - math.log(16)) < 0.05


def test_local_exponents_keep_censoring_censored():
    y = _noisy(lambda N: N ** 2, R=6)
    y[2, 4] = np.nan
    rows = local_exponents(NS, y, width=3)
    assert rows[-1].exponent is None and rows[-1].ci is None and rows[-1].censored == 1
    assert rows[0].exponent is not None and rows[0].censored == 0
    one = local_exponents(NS, y[:1], width=2)        # one replicate: slope, no interval
    assert one[0].exponent is not None and one[0].ci is None


@pytest.mark.parametrize("fn", [local_exponents, curvature])
@pytest.mark.parametrize("Ns, episodes, kw, name", [
    (NS, np.ones((3, 5)), {"width": 1}, "width"),
    (NS, np.ones((3, 5)), {"level": 1.5}, "level"),
    ((4, 8), np.ones((3, 5)), {}, "episodes"),
    (NS, -np.ones((3, 5)), {}, "episodes"),
    (NS, np.full((3, 5), np.inf), {}, "episodes"),
    ("abc", np.ones((3, 5)), {}, "Ns")])
def test_local_exponents_and_curvature_refuse_bad_input(fn, Ns, episodes, kw, name):
    with pytest.raises((ValueError, TypeError), match=name):
        fn(Ns, episodes, **kw)


def test_local_exponents_need_width_points():
    with pytest.raises(ValueError, match="width"):
        local_exponents(NS[:2], np.ones((3, 2)), width=3)


# ----------------------------------------------------------------------------- curvature

def test_curvature_zero_for_a_power_law_positive_for_a_bend():
    flat = curvature(NS, _noisy(lambda N: 5 * N ** 1.7), width=2)
    assert flat.quad_ci[0] < 0 < flat.quad_ci[1] and flat.slope_diff_ci[0] < 0 < flat.slope_diff_ci[1]
    bend = curvature(NS, _noisy(lambda N: math.exp(0.3 * math.log(N) ** 2)), width=2)
    assert bend.quad_ci[0] > 0 and bend.slope_diff_ci[0] > 0
    assert abs(bend.quad - 0.3) < 0.1


def test_curvature_uses_only_the_uncensored_prefix():
    y = _noisy(lambda N: N ** 2, R=5)
    y[0, 3] = np.nan
    c = curvature(NS, y, width=3)
    assert c.Ns_used == (4, 8, 16) and c.censored == (0, 0, 0, 1, 0)
    assert c.quad is not None and c.slope_diff is None        # 3 points: quadratic, not 2 windows
    assert curvature(NS, y, width=2).slope_diff is not None   # windows (4, 8) and (8, 16)


def test_curvature_or_against_counts_censored_against():
    y = _noisy(lambda N: math.exp(0.3 * math.log(N) ** 2), R=4)
    y[1, 4] = np.nan
    q = curvature_or_against({"episodes_hyper": y}, agent="hyper", Ns=NS)
    assert q[1] == -1.0 and np.all(q[[0, 2, 3]] > 0)
    with pytest.raises(ValueError, match="Ns"):
        curvature_or_against({"episodes_hyper": y}, agent="hyper", Ns=(4, 8))
    with pytest.raises(ValueError, match="episodes_rlsvi"):
        curvature_or_against({"episodes_hyper": y}, agent="rlsvi", Ns=NS)


# ----------------------------------------------------------------------------- smallest M

def test_paired_signs_and_censoring():
    h = np.array([10, 20, np.nan, 5, np.nan, 15])
    r = np.array([10, 10, 10, np.nan, np.nan, 10])
    assert paired_signs(h, r, factor=1.5).tolist() == [1, -1, -1, 1, -1, 0]
    with pytest.raises(ValueError, match="factor"):
        paired_signs(h, r, factor=0.5)
    with pytest.raises(ValueError, match="t_hyper"):
        paired_signs(h[:3], r)
    with pytest.raises(ValueError, match="t_hyper"):
        paired_signs(-h, r)


def test_smallest_m_is_monotone_and_censored():
    ms = (1, 2, 4, 8)
    good, bad = np.ones(5), -np.ones(5)
    assert smallest_m(ms, np.stack([bad, good, good, good])) == 2.0
    # qualifies at M = 1 by luck below a failing M = 2: the "from which on" rule ignores it
    assert smallest_m(ms, np.stack([good, bad, good, good])) == 4.0
    assert smallest_m(ms, np.stack([bad, good, bad, good])) == 8.0            # the last failure counts
    assert smallest_m(ms, np.stack([good, good, good, bad])) is None          # censored > 8
    assert smallest_m(ms, np.stack([good, good, good, np.zeros(5)])) is None  # mean 0: not > 0
    with pytest.raises(ValueError, match="signs"):
        smallest_m(ms, np.full((4, 5), 0.5))
    with pytest.raises(ValueError, match="ms"):
        smallest_m((2, 1, 4, 8), np.stack([good] * 4))
    with pytest.raises(ValueError, match="signs"):
        smallest_m(ms, np.stack([good] * 3))


def _mstar_stats(mstar_by_n, ms, n=30, seed=0):
    """Synthetic mstar_trials output: HyperAgent at M ≥ mstar(N) equals RLSVI, below it 3×."""
    g = np.random.default_rng(seed)
    r = g.uniform(50, 100, size=(n, len(mstar_by_n)))
    out = {"episodes_rlsvi": r}
    for m in ms:
        out[f"episodes_m{m}"] = np.where(np.asarray(mstar_by_n)[None, :] <= m, r, 3 * r)
    return out


def test_smallest_m_table_and_log_slope_on_synthetic_data():
    ms, Ns = (1, 2, 4, 8, 16), (8, 16, 32)
    st = _mstar_stats([2, 4, 8], ms)
    rows = smallest_m_table(st, Ns=Ns, ms=ms, n_boot=50)
    assert [r["mstar"] for r in rows] == [2.0, 4.0, 8.0] and rows[0]["ci"] == (2.0, 2.0)
    lx = np.log(2.0 * np.asarray(Ns, float) ** 2)
    fit = mstar_log_slope(st, Ns=Ns, ms=ms, n_boot=50)
    assert math.isclose(fit["slope"], np.polyfit(lx, [2, 4, 8], 1)[0])
    cens = _mstar_stats([2, 4, 32], ms)                          # > max(ms) at N = 32
    assert smallest_m_table(cens, Ns=Ns, ms=ms, n_boot=20)[2]["mstar"] is None
    fit = mstar_log_slope(cens, Ns=Ns, ms=ms, n_boot=20)
    assert fit["slope"] is None and fit["ci"][1] is None
    with pytest.raises(ValueError, match="episodes_m3"):
        mstar_signs(st, M=3)
    with pytest.raises(ValueError, match="n_boot"):
        smallest_m_table(st, Ns=Ns, ms=ms, n_boot=0)


# ----------------------------------------------------------------------------- bsuite's rule

def test_bsuite_learning_time_against_the_window_rule():
    f = np.array([[0] * 4 + [1] * 30, [0] * 34, [1] * 34, [0, 1] * 17], float)
    t = bsuite_learning_time(f)
    # row 0: bad fraction 4/e < 0.8 first at e = 6; row 3: 1/2 < 0.8 at e = 2
    assert t[0] == 6 and math.isnan(t[1]) and t[2] == 1 and t[3] == 2
    w = episodes_to_solve(f, window=20)
    # row 0: the window of episodes 2..21 already has 18 found; alternating never reaches 18/20
    assert w[0] == 2 and math.isnan(w[1]) and math.isnan(w[3])
    # an early failure streak of e0 then all found: bsuite fires at the first e > e0/0.8
    e0 = 100
    f2 = np.array([[0] * e0 + [1] * 100], float)
    assert bsuite_learning_time(f2)[0] == math.floor(e0 / 0.8) + 1
    with pytest.raises(ValueError, match="thresh"):
        bsuite_learning_time(f, thresh=0.0)
    with pytest.raises(ValueError, match="found"):
        bsuite_learning_time(f * 2)


def test_run_deep_sea_bsuite_keeps_the_window_rule():
    N, B = 6, 4
    res = []
    for bs in (False, True):
        g = np.random.default_rng(5)
        env = DeepSea(N, batch=B, rng=g)
        res.append(run_deep_sea(make_agent("rlsvi", N, batch=B, rng=g), env, 300, bsuite=bs))
    assert np.array_equal(res[0]["solve"], res[1]["solve"], equal_nan=True)
    assert "bsuite" in res[1] and "bsuite" not in res[0]
    assert np.array_equal(res[1]["bsuite"], bsuite_learning_time(res[1]["found"].astype(float)),
                          equal_nan=True)


def test_noise_sd_is_a_parameter():
    a = make_agent("hyper", 6, batch=2, rng=0, noise_sd=0.3, M=4)
    assert a.noise_sd == 0.3 and a.M == 4
    with pytest.raises(ValueError, match="noise_sd"):
        make_agent("rlsvi", 6, batch=2, rng=0, noise_sd=0.0)
    with pytest.raises(ValueError, match="noise_sd"):
        deep_sea_trials(0, 2, agents=("rlsvi",), Ns=(5,), noise_sd=-1.0)
    out = deep_sea_trials(0, 2, agents=("rlsvi",), Ns=(5,), bsuite=True)
    assert set(out) == {"episodes_rlsvi", "bsuite_rlsvi"}


# ----------------------------------------------------------------------------- claims and mutations

def _hyper_zeroed_trials(rng, n, *, Ns):
    """HyperAgent with its index zeroed (index_scale = 0): the planted defect."""
    g = np.random.default_rng(rng.integers(2 ** 63))
    out = np.full((n, len(Ns)), np.nan)
    for j, N in enumerate(Ns):
        env = DeepSea(N, batch=n, rng=g)
        agent = make_agent("hyper", N, batch=n, rng=g, index_scale=0.0)
        out[:, j] = run_deep_sea(agent, env, N * N + 200)["solve"]
    return {"episodes_hyper": out, "episodes_rlsvi": out, "episodes_m6": out, "episodes_m1": out}


@pytest.mark.slow
def test_curvature_claim_holds_and_the_zeroed_index_moves_it():
    claim = get_claim("ensemble.deepsea.hyper.curvature")
    res = verify_claim(claim, budget=16, seed=0)
    assert res.verdict == "holds", res
    Ns = tuple(claim.experiment.params["Ns"])
    mutant = replace(claim, experiment=Experiment(
        id="test.deepsea.curve_zeroed", fn=functools.partial(_hyper_zeroed_trials, Ns=Ns),
        chunk_size=claim.experiment.chunk_size, params={"Ns": list(Ns), "index_scale": 0.0}))
    assert verify_claim(mutant, budget=16, seed=0).verdict == "refuted"


@pytest.mark.slow
def test_smallest_m_claims_bracket_and_the_zeroed_index_moves_them():
    m6 = get_claim("ensemble.deepsea.hyper.smallest_m_n20.m6")
    assert verify_claim(m6, quick=True, seed=0).verdict == "holds"
    assert verify_claim(get_claim("ensemble.deepsea.hyper.smallest_m_n20.m1"), budget=32,
                        seed=0).verdict == "refuted"

    def zeroed(rng, n):
        g = np.random.default_rng(rng.integers(2 ** 63))
        N = 20
        mapping = DeepSea(N, batch=n, rng=g).mapping
        out = {}
        for key, kw in (("episodes_rlsvi", None), ("episodes_m6", 0.0)):
            env = DeepSea(N, batch=n, rng=g)
            env.mapping = mapping.copy()
            agent = (make_agent("rlsvi", N, batch=n, rng=g) if kw is None else
                     make_agent("hyper", N, batch=n, rng=g, M=6, index_scale=kw))
            out[key] = run_deep_sea(agent, env, N * N + 200)["solve"][:, None]
        return out

    mutant = replace(m6, experiment=Experiment(id="test.deepsea.mstar_zeroed", fn=zeroed,
                                               chunk_size=8, params={"index_scale": 0.0}))
    assert verify_claim(mutant, quick=True, seed=0).verdict == "refuted"


@pytest.mark.slow
def test_quick_sigma_figure_builds_and_keeps_censoring():
    from paper_figs.lint import lint_figure
    from paper_figs.registry import figures

    fig, data = figures("deepsea_sigma")["deepsea_sigma"](quick=True, seed=0)
    assert lint_figure(fig, name="deepsea_sigma") == []
    for agent in ("rlsvi", "hyper"):
        per = data["agents"][agent]
        assert set(per) == {"0.03", "0.1", "0.3", "1.0"}
        for v in per.values():
            y = np.asarray(v["episodes"], float)
            assert v["censored"] == np.isnan(y).sum(axis=0).tolist()
            # a median is drawn only where it is identified: at most half of the runs censored
            med = np.asarray(v["quartiles"][1], float)
            cens = np.isnan(y).sum(axis=0)
            assert np.all(cens[np.isfinite(med)] * 2 <= y.shape[0])
            assert np.all(np.isnan(med[cens * 2 > y.shape[0]]))
    # σ = 1 is censored at the budget where σ = 0.1 solves (the sweep's finding, quick grid)
    assert sum(data["agents"]["rlsvi"]["1.0"]["censored"]) > sum(data["agents"]["rlsvi"]["0.1"]["censored"])
