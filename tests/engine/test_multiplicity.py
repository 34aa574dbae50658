"""e-BH across a run (:mod:`proofs_check.engine.multiplicity`): a hand-computed
example, FDR ≤ α measured on simulated nulls, the e-values the kinds store."""
import functools
import math

import numpy as np
import pytest

from proofs_check.engine import ComparisonClaim, ProbabilityClaim, verify_claim
from proofs_check.engine.betting import stopped_log_capital
from proofs_check.engine.multiplicity import bonferroni, e_bh, fdr_statement, run_evalue, run_multiplicity
from proofs_check.selftest.samplers import bernoulli_events


def test_hand_computed_example():
    # K = 5, α = 0.1: thresholds K/(αk) = 50, 25, 16.7, 12.5, 10.
    # sorted 200 ≥ 50, 50 ≥ 25, 30 ≥ 16.7, 8 < 12.5, 2 < 10  ->  k* = 3
    assert e_bh([50, 2, 30, 8, 200], 0.1) == [0, 2, 4]
    assert bonferroni([50, 2, 30, 8, 200], 0.1) == [0, 4]           # e ≥ K/α = 50
    # k* is the largest k that qualifies, even when smaller k do not
    assert e_bh([13, 13, 13, 13, 1], 0.1) == [0, 1, 2, 3]            # 13 ≥ 12.5 at k = 4; 13 < 50 at k = 1
    assert bonferroni([13, 13, 13, 13, 1], 0.1) == []
    assert e_bh([11] * 5, 0.1) == [0, 1, 2, 3, 4]                    # 11 ≥ 10 at k = 5
    assert e_bh([100, 5, 5, 12.6, 5], 0.1) == [0]
    assert e_bh([9.99] * 1, 0.1) == [] and e_bh([10.0], 0.1) == [0]  # K = 1: e ≥ 1/α
    # log scale, infinities, nothing
    assert e_bh(np.log([50, 2, 30, 8, 200]), 0.1, log=True) == [0, 2, 4]
    assert e_bh([math.inf, 0.0, 1.0], 0.5) == [0]
    assert e_bh([1e6] + [0.0] * 9, 0.1) == [0]
    assert e_bh([], 0.1) == [] and bonferroni([], 0.1) == []
    assert e_bh(np.full(3, 800.0), 0.01, log=True) == [0, 1, 2]      # e = exp(800): no overflow


@pytest.mark.parametrize("bad, match", [(([1.0], 0.0), "alpha"), (([1.0], 1.0), "alpha"),
                                        (([1.0], True), "alpha"), (([-1.0], 0.1), "≥ 0"),
                                        (([math.nan], 0.1), "nan"), (([[1.0]], 0.1), "1-D")])
def test_bad_input(bad, match):
    with pytest.raises(ValueError, match=match):
        e_bh(*bad)


def _simulated_fdp(rng, K, K0, alpha, rho, reps, rule=e_bh):
    """False discovery proportions of ``rule`` over ``reps`` runs: K0 nulls with
    e = exp(λZ − λ²/2), Z ~ N(0, 1) (E e = 1 exactly), equicorrelated with ρ,
    and K − K0 alternatives with Z ~ N(3, 1); λ = 3."""
    lam = 3.0
    fdp, power = np.empty(reps), np.empty(reps)
    for r in range(reps):
        z = math.sqrt(rho) * rng.standard_normal() + math.sqrt(1 - rho) * rng.standard_normal(K)
        z[K0:] += 3.0
        rej = rule(lam * z - lam * lam / 2, alpha, log=True)
        v = sum(i < K0 for i in rej)
        fdp[r] = v / max(len(rej), 1)
        power[r] = (len(rej) - v) / max(K - K0, 1)
    return fdp, power


@pytest.mark.parametrize("K0, rho", [(15, 0.0), (15, 0.5), (20, 0.5), (20, 0.9)])
def test_fdr_is_at_most_alpha_on_simulated_nulls(K0, rho):
    """2000 reps (seed 2022) at α = 0.2, K = 20: the FDR's upper 99.9 % Hoeffding
    bound (mean FDP + √(log(1000)/(2·2000)) = +0.042) stays ≤ α·K0/K."""
    K, alpha, reps = 20, 0.2, 2000
    fdp, power = _simulated_fdp(np.random.default_rng(2022), K, K0, alpha, rho, reps)
    upper = fdp.mean() + math.sqrt(math.log(1000) / (2 * reps))
    assert upper <= alpha * K0 / K, (fdp.mean(), upper)
    if K0 < K:
        assert power.mean() > 0.5                    # the test rejects something: it can fail


def _wrong_rule(le, alpha, log=True):
    """A planted defect: BH thresholds without the factor K (1/(αk))."""
    le = np.asarray(le)
    order = np.argsort(-le)
    ok = le[order] >= -math.log(alpha) - np.log(np.arange(1, le.size + 1))
    return sorted(order[:np.flatnonzero(ok)[-1] + 1].tolist()) if ok.any() else []


def test_the_fdr_check_catches_a_wrong_threshold():
    fdp, _ = _simulated_fdp(np.random.default_rng(2022), 20, 20, 0.2, 0.0, 2000, rule=_wrong_rule)
    assert fdp.mean() - math.sqrt(math.log(1000) / (2 * 2000)) > 0.2


def test_stopped_betting_capital_is_an_e_value_under_the_null():
    """E[K_τ] ≤ 1 at E d = m: the mean of 4000 stopped capitals (seed 7), with a
    99.9 % t upper interval, against 1; the running supremum is not an e-value
    (its mean is far above 1, so the check can fail)."""
    rng = np.random.default_rng(7)
    alpha, m = 0.2, 0.3
    stopped, sup = [], []
    for _ in range(4000):
        x = (rng.random(200) < m).astype(float)
        lm, lp = stopped_log_capital(x, m, (0.0, 1.0), alpha)
        stopped += [math.exp(lm), math.exp(lp)]
    for _ in range(500):
        x = (rng.random(200) < m).astype(float)
        from proofs_check.engine.betting import BettingState
        s = BettingState(m, (0.0, 1.0), alpha)
        s.update(x)
        sup.append(math.exp(s.max_log_plus))
    st = np.asarray(stopped)
    assert st.mean() - 3.3 * st.std(ddof=1) / math.sqrt(st.size) <= 1.0, st.mean()
    assert st.mean() <= 1.1
    assert np.mean(sup) > 1.5


def _prob_claim(p, delta):
    return ProbabilityClaim(id="t.prob", statement="P ≤ δ", source="t", label="DERIVED",
                            fn=functools.partial(bernoulli_events, p=p), delta=delta, chunk_size=500)


def _diffs(rng, n, *, p):
    return (rng.random(n) < p).astype(float)


def _cmp_claim(p, thr, bounds):
    return ComparisonClaim(id="t.cmp", statement="E d < thr", source="t", label="DERIVED",
                           fn=functools.partial(_diffs, p=p), threshold=thr, bounds=bounds)


def test_run_multiplicity_on_results():
    alpha = 0.05
    rs = [verify_claim(_prob_claim(0.2, 0.1), budget=5000, alpha=alpha),           # refuted, anytime
          verify_claim(_prob_claim(0.2, 0.1), budget=5000, alpha=alpha, method="fixed"),
          verify_claim(_cmp_claim(0.5, 0.3, (0.0, 1.0)), budget=400, alpha=alpha),  # refuted, betting
          verify_claim(_cmp_claim(0.1, 0.3, (0.0, 1.0)), budget=400, alpha=alpha),  # holds, betting
          verify_claim(_cmp_claim(0.5, 0.3, None), budget=400, alpha=alpha)]        # refuted, Hall
    assert [r.verdict for r in rs] == ["refuted", "refuted", "refuted", "holds", "refuted"]
    ev = [run_evalue(r) for r in rs]
    assert ev[0].log_e_refute == rs[0].log_e_above and ev[1].log_e_refute == rs[1].log_e_above
    assert ev[2].log_e_refute >= math.log(2 / alpha)          # stopped where it crossed 2/α
    assert ev[3].log_e_holds >= math.log(2 / alpha) and ev[3].log_e_refute < 0
    assert ev[4].log_e_refute is None and "asymptotic" in ev[4].how
    m = run_multiplicity(rs, alpha)
    assert m.K == 4 and m.refuted == ("t.prob", "t.prob", "t.cmp") and m.refuted_outside == ("t.cmp",)
    # K = 4: three refutations with e ≥ 2/α = 40 ≥ K/(3α) = 26.7 survive together; the single
    # 'holds' stopped at e ≈ 2/α = 40 < K/α = 80 does not
    assert len(m.refuted_fdr) == 3 and m.holds == ("t.cmp",) and m.holds_fdr == ()
    text = "\n".join(fdr_statement(m))
    assert "e-BH" in text and "Bonferroni" in text and "asymptotic verdict" in text
    assert "3 of 3 refutation(s) survive" in text
    # a weak refutation among many nulls does not survive
    weak = rs[2]
    import dataclasses
    nulls = [dataclasses.replace(rs[3], claim=f"n{i}", verdict="inconclusive", log_e_refute=0.0,
                                 log_e_holds=0.0) for i in range(200)]
    m2 = run_multiplicity([weak] + nulls, alpha)
    assert m2.refuted == ("t.cmp",) and m2.refuted_fdr == () and m2.refuted_fwer == ()
    assert "0 of 1 refutation(s) survive" in "\n".join(fdr_statement(m2))


def test_cli_fdr_marks_refutations_and_prints_the_statement(capsys, tmp_path):
    from theorycheck.cli import main

    code = main(["verify", "selftest", "--quick", "--fdr", "--format", "plain", "--out", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 0
    # plain: rows on stdout, the statement beside the summary on stderr
    assert "FDR ≤ 0.01 across the run (e-BH" in err and "Family-wise reading (Bonferroni" in err
    row = next(line for line in out.splitlines() if line.startswith("selftest.dg_tail_doubled\t"))
    assert "refuted (as expected) [survives FDR (e-BH)]" in row
    main(["verify", "selftest", "--quick", "--format", "plain", "--out", str(tmp_path / "b")])
    out, err = capsys.readouterr()
    assert "e-BH" not in out + err                          # only with --fdr
