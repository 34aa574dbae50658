import numpy as np
import pytest

from proofs_check.baselines import (GROUP_KINDS, compare_population_baselines, dense_tabular_scores, exact_model,
                                    group_estimator_moments, population_baselines, population_variances,
                                    proxy_correlation)
from proofs_check.baselines.moments import _group_coefficients
from proofs_check.policies import LinearSoftmaxPolicy, TabularPolicy, sample_responses, sequence_index


def dense_variance(P, S, a):
    """E‖Σ_t s_t a_t‖² − ‖E Σ_t s_t a_t‖² from explicit score vectors."""
    gv = np.einsum("n,nt,ntd->nd", np.ones_like(P), a, S)
    mean = P @ gv
    return float(P @ np.sum(gv * gv, axis=1) - mean @ mean)


@pytest.mark.parametrize("V,T", [(2, 3), (3, 2), (2, 4)])
def test_tabular_structure_matches_dense_scores(rng, V, T):
    pol = TabularPolicy.random(V, T, rng, scale=1.5)
    R = rng.random(V ** T)
    m = exact_model(pol, R)
    S = dense_tabular_scores(pol)
    n = V ** T
    K = np.einsum("ntd,mud->ntmu", S, S)
    np.testing.assert_allclose(m.gram(), K, atol=1e-13)
    b = population_baselines(m)
    v = population_variances(m, b)
    for name, bt in b.items():
        a = R[:, None] - bt[None, :]
        assert v[name] == pytest.approx(dense_variance(m.P, S, a), abs=1e-12)
    # mean gradient: structured vs dense
    g = m.mean_gradient(np.repeat(R[:, None], T, axis=1))
    gd = np.einsum("n,ntd->d", m.P * R, S)
    assert m.sq_norm(g) == pytest.approx(float(gd @ gd), abs=1e-13)
    assert n == m.n_seq


def test_linear_softmax_dense_path(rng):
    pol = LinearSoftmaxPolicy.random(3, 3, 4, rng, scale=2.0)
    R = rng.random(27)
    m = exact_model(pol, R)
    assert m.kind == "linear"
    b = population_baselines(m)
    v = population_variances(m, b)
    for name, bt in b.items():
        assert v[name] == pytest.approx(dense_variance(m.P, m.scores, R[:, None] - bt), abs=1e-12)
    # per-token optimum is the minimiser over per-position constants: perturbing it raises the variance
    for k in range(3):
        bb = dict(b)
        pert = b["per_token"].copy()
        pert[k] += 1e-3
        bb["x"] = pert
        assert population_variances(m, bb)["x"] > v["per_token"]
    assert -1.0 <= proxy_correlation(pol) <= 1.0


def test_population_ordering_on_random_instances(rng):
    for _ in range(10):
        c = compare_population_baselines(TabularPolicy.random(3, 3, rng, scale=1.5), rng.random(27))
        v = c.variances
        assert v["per_token"] <= v["otb"] + 1e-14
        assert v["per_token"] <= v["global_bstar"] + 1e-14
        assert v["global_bstar"] <= v["mean"] + 1e-14
        assert v["mean"] <= v["none"] + 1e-14
    assert set(c.to_dict()["variances"]) == {"none", "mean", "global_bstar", "otb", "per_token"}


def test_proxy_vs_true_weights_identical_for_tabular(rng):
    m = exact_model(TabularPolicy.random(2, 3, rng), rng.random(8))
    np.testing.assert_allclose(m.proxy, m.energy)
    b1, b2 = population_baselines(m, weights="proxy"), population_baselines(m, weights="true")
    np.testing.assert_allclose(b1["otb"], b2["otb"])


@pytest.mark.parametrize("N", [2, 3, 4])
def test_group_bias_exact(rng, N):
    m = exact_model(TabularPolicy.random(2, 3, rng, scale=1.5), rng.random(8))
    gm = group_estimator_moments(m, N, "mean")
    assert gm.scale == pytest.approx((N - 1) / N, abs=1e-12)
    assert gm.bias_ratio == pytest.approx(1 / N, abs=1e-7)
    assert gm.cosine == pytest.approx(1.0, abs=1e-12)
    gr = group_estimator_moments(m, N, "rloo")
    assert gr.scale == pytest.approx(1.0, abs=1e-12) and gr.bias_ratio < 1e-6
    go = group_estimator_moments(m, N, "otb")
    assert 0.0 < go.bias_ratio < 1.0 and 0.0 < go.cosine <= 1.0 + 1e-12
    none = group_estimator_moments(m, N, "none")
    g1 = group_estimator_moments(m, 1, "none")
    assert none.mse == pytest.approx(g1.mse / N, rel=1e-10)  # i.i.d. average
    for gmom in (gm, gr, go):
        assert gmom.mse == pytest.approx(gmom.variance + (gmom.bias_ratio * gmom.grad_norm) ** 2, abs=1e-10)


def test_group_moments_against_monte_carlo(rng):
    """Sampled groups: the mean of ĝ·g / ‖g‖² over 20000 groups within 5 standard errors of the exact scale."""
    pol = TabularPolicy.random(2, 3, rng, scale=1.0)
    R = rng.random(8)
    m = exact_model(pol, R)
    N, reps = 3, 20_000
    g = m.mean_gradient(np.repeat(R[:, None], 3, axis=1))
    h = m.inner_with(g)
    idx = sequence_index(sample_responses(pol, N * reps, rng), 2).reshape(reps, N)
    a = _group_coefficients("otb", R[idx], np.cumsum(m.proxy, axis=1)[idx], 1e-8)
    proj = np.sum(a * h[idx], axis=(1, 2)) / N / m.sq_norm(g)
    exact = group_estimator_moments(m, N, "otb").scale
    assert abs(proj.mean() - exact) < 5 * proj.std() / np.sqrt(reps)


def test_bad_inputs(rng):
    m = exact_model(TabularPolicy.random(2, 2, rng), rng.random(4))
    with pytest.raises(ValueError, match="kind"):
        group_estimator_moments(m, 2, "median")
    with pytest.raises(ValueError, match="max_tuples"):
        group_estimator_moments(m, 12, "mean")
    with pytest.raises(TypeError):
        exact_model("not a policy", np.zeros(4))
    with pytest.raises(ValueError):
        exact_model(TabularPolicy.random(2, 2, rng), np.zeros(5))
    with pytest.raises(ValueError, match="weights"):
        population_baselines(m, weights="fake")
    assert set(GROUP_KINDS) == {"none", "mean", "rloo", "global_bstar", "otb"}


@pytest.mark.parametrize("kind", ["tabular", "linear"])
def test_population_variances_float_and_mpmath_agree(rng, kind):
    """The float model (structured scores, Gram tensor) and the 50-digit one (explicit score vectors)."""
    import mpmath

    from proofs_check.baselines import linear_model_mp, population_variances_mp, tabular_model_mp
    for _ in range(3):
        if kind == "tabular":
            pol = TabularPolicy.random(2, 3, rng, scale=2.0)
            parts = lambda: tabular_model_mp(pol.logits, 2, 3)  # noqa: E731
        else:
            pol = LinearSoftmaxPolicy.random(2, 3, 2, rng, scale=2.0)
            parts = lambda: linear_model_mp(pol.theta, pol.features, 2, 3)  # noqa: E731
        R = rng.random(8)
        v = population_variances(exact_model(pol, R))
        with mpmath.workdps(50):
            P, S, w = parts()
            vm = population_variances_mp(P, R, S, w)
        for k in v:
            assert float(vm[k]) == pytest.approx(v[k], rel=1e-11, abs=1e-14), k


def test_variance_pairs_float_and_mpmath_agree(rng):
    import mpmath

    from proofs_check.baselines.instances import (instance_sample, shared_instance_sample,
                                                  shared_variance_pair, shared_variance_pair_mp,
                                                  variance_pair, variance_pair_mp)
    th = instance_sample(rng, V=2, T=3, scale=2.0)
    sh = shared_instance_sample(rng, V=2, T=3, d=2, scale=2.0)
    with mpmath.workdps(50):
        a = variance_pair_mp(th, small="otb", large="mean", V=2, T=3)
        b = shared_variance_pair_mp(sh, small="otb", large="global_bstar", V=2, T=3, d=2, weights="proxy")
    np.testing.assert_allclose([float(x) for x in a], variance_pair(th, small="otb", large="mean", V=2, T=3),
                               rtol=1e-11)
    np.testing.assert_allclose([float(x) for x in b],
                               shared_variance_pair(sh, small="otb", large="global_bstar", V=2, T=3, d=2,
                                                    weights="proxy"), rtol=1e-11)
    with pytest.raises(ValueError, match="proxy"):
        shared_variance_pair_mp(sh, small="otb", large="mean", V=2, T=3, d=2, weights="true")
