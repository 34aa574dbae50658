"""check_coverage, empirical_min_dim, the registered claims, columns."""
import pickle

import numpy as np
import pytest

import seqproj
from proofs_check.engine import claims
from seqproj.columns import column_family, sample_columns, sparse_c0


def test_check_coverage_holds_at_theorem_M_and_refuted_at_32():
    M = seqproj.sequential_jl_min_dim(0.5, 0.05, 300)
    r = seqproj.check_coverage(M, 0.5, 0.05, 300, budget=2000, seed=1)
    assert r.verdict == "holds" and r.events == 0
    r32 = seqproj.check_coverage(32, 0.5, 0.05, 300, budget=2000, seed=1)
    assert r32.verdict == "refuted" and r32.ci[0] > 0.05
    assert r32.to_dict()["seed"] == 1


def test_check_coverage_full_simulator_path():
    """Full simulator (Rademacher columns, coordinate adversary): holds at the theorem's M for
    T = 100, refuted far below it (p ≈ 0.4 at M = 32)."""
    M = seqproj.sequential_jl_min_dim(0.5, 0.05, 100)
    r = seqproj.check_coverage(M, 0.5, 0.05, 100, columns="rademacher", adversary="coordinate",
                               budget=300, seed=0)
    assert r.params["simulator"] == "full"
    assert r.verdict == "holds" and r.events == 0 and r.trials >= 100
    r32 = seqproj.check_coverage(32, 0.5, 0.05, 100, columns="rademacher", adversary="coordinate",
                                 budget=300, seed=0)
    assert r32.verdict == "refuted" and r32.ci[0] > 0.05


def test_check_coverage_executor_invariance():
    a = seqproj.check_coverage(48, 0.5, 0.05, 80, budget=3000, seed=5, executor="serial",
                               method="fixed", chunk_size=500)
    b = seqproj.check_coverage(48, 0.5, 0.05, 80, budget=3000, seed=5, executor="threads",
                               method="fixed", chunk_size=500)
    assert (a.events, a.trials) == (b.events, b.trials)


@pytest.mark.parametrize("kw, arg", [
    (dict(adversary="lookahead"), "predictable"), (dict(eps=1.5), "eps"), (dict(delta=0.0), "delta"),
    (dict(M=0), "M"), (dict(T=0), "T"), (dict(columns="cauchy"), "columns"),
    (dict(adversary="nope"), "adversary"),
    (dict(simulator="reduced", columns="onehot"), "reduced"),
])
def test_check_coverage_bad_input(kw, arg):
    args = dict(M=64, eps=0.5, delta=0.05, T=10)
    args.update(kw)
    with pytest.raises(ValueError, match=arg):
        seqproj.check_coverage(args.pop("M"), args.pop("eps"), args.pop("delta"), args.pop("T"),
                               budget=100, **args)


def test_empirical_min_dim_brackets():
    r = seqproj.empirical_min_dim(0.5, 0.05, 50, trials=3000, seed=2)
    assert r.M_lo <= r.M_star <= r.M_hi <= r.M_theorem
    # the bracket is simultaneous: every evaluated point at level alpha / max_looks
    assert r.max_looks >= len(r.evaluations)
    from proofs_check.engine import clopper_pearson
    ev = {M: (k, n) for M, k, n in r.evaluations}
    assert clopper_pearson(*ev[r.M_hi], r.alpha / r.max_looks)[1] < 0.05
    if r.M_lo > 2:
        assert clopper_pearson(*ev[r.M_lo], r.alpha / r.max_looks)[0] > 0.05
    assert r.efficiency > 1 and r.efficiency_interval[0] <= r.efficiency <= r.efficiency_interval[1]
    d = r.to_dict()
    assert d["seed"] == 2 and len(d["evaluations"]) >= 3
    with pytest.raises(ValueError, match="predictable"):
        seqproj.empirical_min_dim(0.5, 0.05, 50, adversary="lookahead")
    with pytest.raises(ValueError, match="alpha"):
        seqproj.empirical_min_dim(0.5, 0.05, 50, alpha=1.5)


def test_claims_registered_and_picklable():
    cs = claims("seqproj")
    ids = {c.id for c in cs}
    for fam in ("sphere", "rademacher", "gaussian"):
        for adv in seqproj.PREDICTABLE:
            assert f"seqproj.coverage.{fam}.{adv}" in ids
    for must in ("seqproj.coverage.sphere.constant.M32", "seqproj.negative_control.lookahead",
                 "seqproj.fixed_time.stopping.sphere", "seqproj.mixture.sphere.constant",
                 "seqproj.tails.onehot", "seqproj.anytime.sphere.pushing",
                 "seqproj.inner_product.sphere.pushing", "seqproj.efficiency.M_theorem_div5"):
        assert must in ids
    for c in cs:
        if c.id.startswith("seqproj.") and not c.id.startswith("seqproj.ensemble"):
            assert c.label in ("CONFIRMED", "DERIVED", "RECONSTRUCTED", "OPEN")
            pickle.loads(pickle.dumps(c.chunk_task()))


def test_columns_normalisation_and_flags():
    rng = np.random.default_rng(0)
    for fam in seqproj.FAMILIES:
        z = sample_columns(fam, 64, 4000, rng)
        sq = (z * z).sum(1)
        if fam == "gaussian":
            assert abs(sq.mean() - 1) < 4 * np.sqrt(2 / 64 / 4000)
        else:
            np.testing.assert_allclose(sq, 1.0, rtol=1e-12)
        assert abs(z.mean()) < 0.01
    assert column_family("onehot", 64).assumptions == "no"
    assert column_family("sphere", 64).satisfies_assumptions
    assert column_family("gaussian", 64).assumptions == "relaxed"
    assert column_family("sparse", 64, s=2).assumptions == "no"
    assert abs(sparse_c0(64, 64) - 1) < 1e-6
    assert sparse_c0(2, 64) > sparse_c0(16, 64) > sparse_c0(32, 64) >= 1
    with pytest.raises(ValueError, match="columns"):
        column_family("cauchy", 8)
    with pytest.raises(ValueError, match="s"):
        column_family("sparse", 8, s=9)


def test_claims_and_figures_read_one_experiment():
    """A claim and the figure point that show the same simulation share the engine experiment:
    same fingerprint, same chunks, same counts."""
    from proofs_check.engine import measure
    from proofs_check.engine import get_claim
    from proofs_check.engine import verify_claim

    for cid, config, chunk in [
            ("seqproj.coverage.sphere.constant.M32", dict(M=32, T=300), 1000),
            ("seqproj.fixed_time.stopping.sphere", dict(M=32, T=500, adversary="stopping"), 10_000),
            ("seqproj.tails.sphere", dict(M=128, T=300), 1000)]:
        claim = get_claim(cid)
        exp = seqproj.path_experiment(simulator="reduced", eps=0.5, chunk_size=chunk, **config)
        assert claim.experiment.fingerprint() == exp.fingerprint()
        r = verify_claim(claim, budget=chunk, seed=0, executor="serial", out=None, method="fixed")
        m = measure(exp, chunk, seed=0)
        assert r.events == int(m.stats[claim.params["event"]].sum()) and r.trials == m.trials
    # the mixture claims at M = 128 read the tails experiment
    assert (get_claim("seqproj.mixture.sphere.constant").experiment.fingerprint()
            == get_claim("seqproj.tails.sphere").experiment.fingerprint())


def test_empirical_min_dim_takes_adversary_names():
    with pytest.raises(ValueError, match="adversary name"):
        seqproj.empirical_min_dim(0.5, 0.05, 50, adversary=seqproj.adversary("random", lo=0.5))
