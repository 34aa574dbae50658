"""Simulators: kernel == reference bit for bit, the protocol itself, refusals, bad input."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from seqproj.adversaries import PREDICTABLE, adversary
from seqproj.columns import FAMILIES, column_family, columns_from_normals
from seqproj.lookahead import null_vector, simulate_lookahead
from seqproj.reduced import chisq_constants, simulate_reduced
from seqproj.rng import chisq_np, counter_chisq, draw_keys, fill_normals, normals_np
from seqproj.simulate import simulate_full

FIELDS = ("exit_time", "final_ratio", "max_dev", "mix_cross", "anytime_exit", "ratio_grid")
REDUCED_ADV = ("constant", "random", "stopping", "magnitude", "pushing")


def _same(a, b):
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in FIELDS)


@pytest.mark.parametrize("columns", FAMILIES)
@pytest.mark.parametrize("adv", PREDICTABLE)
def test_full_kernel_equals_numpy_reference(columns, adv):
    kw = dict(columns=columns, adversary=adv)
    a = simulate_full(12, 0.5, 30, 9, 7, **kw)
    b = simulate_full(12, 0.5, 30, 9, 7, backend="numpy", **kw)
    assert _same(a, b)
    # non-trivial paths: trials differ from one another and the ratio moves
    assert np.unique(a.final_ratio).size > 1 and a.max_dev.min() > 0


@pytest.mark.parametrize("columns", ["sphere", "gaussian"])
@pytest.mark.parametrize("adv", REDUCED_ADV)
def test_reduced_kernel_equals_numpy_reference(columns, adv):
    a = simulate_reduced(12, 0.5, 60, 40, 3, columns=columns, adversary=adv)
    b = simulate_reduced(12, 0.5, 60, 40, 3, columns=columns, adversary=adv, backend="numpy")
    assert _same(a, b)


@settings(max_examples=15, deadline=None)
@given(M=st.integers(3, 20), T=st.integers(1, 25), n=st.integers(1, 5), seed=st.integers(0, 2 ** 32),
       x0=st.floats(0.2, 3.0), cx=st.floats(0.1, 4.0), eps=st.floats(0.05, 0.95))
def test_kernels_agree_property(M, T, n, seed, x0, cx, eps):
    for adv in ("pushing", "magnitude", "random"):
        kw = dict(adversary=adv, x0=x0, cx=cx)
        assert _same(simulate_full(M, eps, T, n, seed, **kw),
                     simulate_full(M, eps, T, n, seed, backend="numpy", **kw))
        assert _same(simulate_reduced(M, eps, T, n, seed, **kw),
                     simulate_reduced(M, eps, T, n, seed, backend="numpy", **kw))


def test_full_matches_direct_matrix_computation():
    """Independent check of the protocol: S_T = x0 z0 + Pi x with the same normals."""
    M, T, n, x0 = 10, 15, 3, 1.3
    ps = simulate_full(M, 0.5, T, n, 11, x0=x0, grid=np.arange(T + 1))
    keys = draw_keys(np.random.default_rng(11), n)
    g = normals_np(keys, np.arange(T * M, dtype=np.uint64)).reshape(n, T, M)
    z = columns_from_normals(g, column_family("sphere", M))
    S = x0 * np.eye(M)[0] + np.cumsum(z, axis=1)          # x_t = 1
    V = x0 ** 2 + np.arange(1, T + 1)
    ratio = (S ** 2).sum(-1) / V
    np.testing.assert_allclose(ps.ratio_grid[:, 1:], ratio, rtol=1e-12)
    np.testing.assert_allclose(ps.ratio_grid[:, 0], 1.0)
    out = np.abs(ratio - 1) > 0.5
    first = np.where(out.any(1), out.argmax(1) + 1, T + 1)
    np.testing.assert_array_equal(ps.exit_time, first)


@pytest.mark.parametrize("adv", ["magnitude", "stopping"])
def test_adversary_is_predictable_independent_implementation(adv):
    """A plain loop (choose x_t from (||S_{t-1}||^2, V_{t-1}), THEN use z_t) gives the kernel's path."""
    M, T, n, eps = 8, 40, 4, 0.5
    ps = simulate_full(M, eps, T, n, 21, adversary=adv, grid=np.arange(T + 1))
    keys = draw_keys(np.random.default_rng(21), n)
    g = normals_np(keys, np.arange(T * M, dtype=np.uint64)).reshape(n, T, M)
    for i in range(n):
        S = np.eye(M)[0].copy()
        V, left = 1.0, False
        for t in range(1, T + 1):
            r = S @ S / V
            if adv == "magnitude":
                x = 1.0 if abs(r - 1) >= 0.5 * eps else 0.1
            else:
                x = 0.0 if left else 1.0
            z = g[i, t - 1] / np.linalg.norm(g[i, t - 1])     # z_t drawn after x_t
            S = S + x * z
            V += x * x
            left = left or abs(S @ S / V - 1) > eps
            assert abs(ps.ratio_grid[i, t] - S @ S / V) < 1e-9


def test_stopping_freezes_path_after_exit():
    ps = simulate_reduced(32, 0.5, 200, 2000, 1, adversary="stopping")
    np.testing.assert_array_equal(ps.failed, ps.out_at_T)
    assert 0.3 < ps.failed.mean() < 0.7


def test_lookahead_always_fails():
    ps = simulate_lookahead(8, 0.5, 24, 5, 0)
    assert ps.failed.all() and np.all(ps.final_ratio < 0.5)
    with pytest.raises(ValueError, match="T > M"):
        simulate_lookahead(8, 0.5, 8, 1, 0)


@pytest.mark.parametrize("columns, adv, why", [
    ("rademacher", "constant", "rademacher"), ("onehot", "constant", "onehot"),
    ("sparse", "constant", "sparse"), ("sphere", "coordinate", "coordinate"),
    ("sphere", "lookahead", "not predictable"),
])
def test_reduced_refuses(columns, adv, why):
    with pytest.raises(ValueError, match=why):
        simulate_reduced(16, 0.5, 10, 2, 0, columns=columns, adversary=adv)


@pytest.mark.parametrize("kw, arg", [
    (dict(M=0), "M"), (dict(T=0), "T"), (dict(eps=0.0), "eps"), (dict(eps=1.0), "eps"),
    (dict(x0=0.0), "x0"), (dict(columns="cauchy"), "columns"), (dict(adversary="oracle"), "adversary"),
    (dict(adversary="lookahead"), "predictable"), (dict(cx=0.0), "cx"), (dict(n=-1), "n"),
])
def test_bad_input(kw, arg):
    args = dict(M=8, eps=0.5, T=5, n=2, rng=0)
    args.update(kw)
    with pytest.raises(ValueError, match=arg):
        simulate_full(args.pop("M"), args.pop("eps"), args.pop("T"), args.pop("n"), args.pop("rng"),
                      **args)


def test_adversary_params_validated():
    with pytest.raises(ValueError, match="lo"):
        adversary("random", lo=1.5)
    assert not adversary("lookahead").predictable
    assert all(adversary(a).predictable for a in PREDICTABLE)


def test_same_seed_same_result_and_rng_types():
    a = simulate_reduced(32, 0.5, 50, 100, 42)
    b = simulate_reduced(32, 0.5, 50, 100, np.random.default_rng(42))
    assert _same(a, b)
    c = simulate_reduced(32, 0.5, 50, 100, 43)
    assert not np.array_equal(a.final_ratio, c.final_ratio)
    with pytest.raises(TypeError, match="rng"):
        simulate_reduced(32, 0.5, 50, 100, None)


def test_counter_rng_numba_equals_numpy_and_is_normal():
    keys = draw_keys(np.random.default_rng(3), 40)
    out = np.empty((40, 50, 50))
    fill_normals(keys, 50, 50, out)
    ref = normals_np(keys, np.arange(2500, dtype=np.uint64)).reshape(40, 50, 50)
    assert np.array_equal(out, ref)
    x = out.ravel()
    from scipy import stats
    assert stats.kstest(x, "norm").pvalue > 1e-3
    assert abs(x.var() - 1) < 5 * np.sqrt(2 / x.size)
    # tail path (|x| > 3.654) is exercised
    assert np.any(np.abs(x) > 3.7)


@pytest.mark.parametrize("M", [3, 17, 300])
def test_counter_chisq_numba_equals_numpy_and_has_right_law(M):
    from scipy import stats
    d, c = chisq_constants(M)
    keys = draw_keys(np.random.default_rng(M), 4000)
    st_ = np.full(4000, 7, dtype=np.uint64)
    ref = chisq_np(keys, st_, d, c)
    nb = np.array([counter_chisq(k, np.uint64(7), d, c) for k in keys])
    assert np.array_equal(ref, nb)
    assert stats.kstest(ref, "chi2", args=(M - 1,)).pvalue > 1e-3


def test_null_vector_is_orthogonal_to_columns():
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((50, 40))
    x = null_vector(Z, rng.standard_normal(50))
    assert np.abs(Z.T @ x).max() < 1e-10 * np.linalg.norm(x) * 50
    assert np.linalg.norm(x) > 0.1


def test_shared_bookkeeping_step_equals_numpy_book():
    """The numba step both kernels inline (``book_step``) and the NumPy ``PathBook`` agree bit for
    bit on arbitrary step inputs — including exits, mixture crossings and any-time exits."""
    from seqproj.bookkeeping import PathBook, book_constants, book_finish, book_start, book_step
    from seqproj.protocol import PathStats, empty_outputs, make_setup

    T, n = 40, 12
    setup = make_setup(10, 0.3, T, grid=np.arange(0, T + 1, 5), x0=0.7, anytime_const=0.5)
    rng = np.random.default_rng(0)
    x = rng.uniform(0.0, 1.5, (n, T))
    dot = rng.normal(0.0, 1.0, (n, T)) * np.linspace(0.01, 2.0, n)[:, None]   # calm to wild
    s2 = np.abs(0.49 + np.cumsum(x * x + 2 * x * dot, axis=1))
    book = PathBook(n, setup)
    for t in range(1, T + 1):
        book.step(t, x[:, t - 1], dot[:, t - 1], s2[:, t - 1])
    ref = PathStats.from_outputs(book.stats(), setup)

    x0, eps, _, _, _, grid, rho, mix_l, K, any_ld, x0sq = setup.kernel_args()
    consts = book_constants(T, eps, setup.M, rho, mix_l, K, any_ld, x0sq)
    out = empty_outputs(n, grid.size)
    for i in range(n):
        b = book_start(consts, x0, grid, out[2], i)
        for t in range(1, T + 1):
            b = book_step(b, t, x[i, t - 1], dot[i, t - 1], s2[i, t - 1], consts, grid, out[2], i)
        book_finish(b, i, out[0], out[1], out[3], out[4], out[5])
    got = PathStats.from_outputs(out, setup)
    assert _same(got, ref)
    assert ref.failed.any() and (~ref.failed).any()
    assert ref.mix_cross.any() and not ref.mix_cross.all()
    assert ref.anytime_exit.any() and not ref.anytime_exit.all()
