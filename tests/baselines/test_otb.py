import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from proofs_check.baselines import (global_bstar_advantage, group_mean_advantage,
                                    optimal_token_baseline_advantage, otb_advantage_loop,
                                    otb_advantage_numpy, ragged_batch, rloo_advantage)
from proofs_check.baselines.otb import exp_nonpositive

IMPLS = (optimal_token_baseline_advantage, otb_advantage_numpy, otb_advantage_loop)


def hand_batch():
    r = np.array([[0.0, 0.0, 1.0], [0.0, 2.0, 5.0], [1.0, 1.0, 0.0]])
    m = np.array([[1, 1, 1], [1, 1, 0], [1, 0, 0]], dtype=float)
    lp = np.log(np.array([[0.5] * 3, [0.25] * 3, [0.3] * 3]))
    spp = np.array([[0.5] * 3, [0.25] * 3, [0.4] * 3])
    g = np.array([0, 0, 1])
    return r, m, g, lp, spp


@pytest.mark.parametrize("impl", IMPLS)
def test_hand_computed(impl):
    r, m, g, lp, spp = hand_batch()
    A, G = impl(r, m, g, lp, spp, eps=0.0)
    # w = 0.5 (row 0), 0.75 (row 1); B = (1.6, 1.6, 1.0); group of one: B = 0
    np.testing.assert_allclose(G, [[1, 1, 1], [2, 2, 0], [1, 0, 0]], atol=1e-15)
    np.testing.assert_allclose(A, [[-0.6, -0.6, 0.0], [0.4, 0.4, 0.0], [1.0, 0.0, 0.0]], atol=1e-14)
    A, _ = impl(r, m, g, lp, spp, eps=0.0, handle_zero_tail=True)  # row 0 uniquely longest: B_2 = 0
    np.testing.assert_allclose(A[0], [-0.6, -0.6, 1.0], atol=1e-14)
    isw = np.ones((3, 3))
    isw[1] = 2.0  # w of row 1 becomes 0.75 * 4 = 3
    A, _ = impl(r, m, g, lp, spp, eps=0.0, is_weights=isw)
    B0 = (1 * 0.5 + 2 * 3.0) / 3.5
    B1 = (1 * 1.0 + 2 * 6.0) / 7.0
    np.testing.assert_allclose(A[1, :2], [2 - B0, 2 - B1], atol=1e-14)
    np.testing.assert_allclose(A[0], [1 - B0, 1 - B1, 0.0], atol=1e-14)


@settings(max_examples=40)
@given(seed=st.integers(0, 2 ** 32 - 1), use_is=st.booleans(), tail=st.booleans(),
       N=st.integers(1, 20), L=st.integers(1, 15), eps=st.sampled_from([0.0, 1e-8, 1e-3]))
def test_kernel_numpy_loop_agree(seed, use_is, tail, N, L, eps):
    g = np.random.default_rng(seed)
    r, m, gid, lp, spp, isw = ragged_batch(g, N=N, L=L, n_groups=max(1, N // 3))
    kw = dict(is_weights=isw if use_is else None, handle_zero_tail=tail, eps=eps)
    outs = [impl(r, m, gid, lp, spp, **kw) for impl in IMPLS]
    for A, G in outs[1:]:
        np.testing.assert_allclose(A, outs[0][0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(G, outs[0][1], rtol=1e-12, atol=1e-12)
    assert np.all(outs[0][0][m == 0] == 0)


def test_ties_for_the_longest_keep_the_baseline(rng):
    r, m, gid, lp, spp, _ = ragged_batch(rng, N=4, L=6)
    gid[:] = 0
    m[:] = 0
    m[0, :6] = m[1, :6] = 1  # tie for the longest
    m[2, :3] = 1
    A0, _ = optimal_token_baseline_advantage(r, m, gid, lp, spp)
    A1, _ = optimal_token_baseline_advantage(r, m, gid, lp, spp, handle_zero_tail=True)
    np.testing.assert_array_equal(A0, A1)
    m[1, 5] = 0  # now row 0 is the unique longest (6 > 5): only its column 5 changes
    A0, G = optimal_token_baseline_advantage(r, m, gid, lp, spp)
    A1, _ = optimal_token_baseline_advantage(r, m, gid, lp, spp, handle_zero_tail=True)
    diff = np.argwhere(A0 != A1)
    assert set(map(tuple, diff)) <= {(0, 5)}
    assert A1[0, 5] == G[0, 5]


def test_properties(rng):
    r, m, gid, lp, spp, isw = ragged_batch(rng, N=12, L=10)
    A, G = optimal_token_baseline_advantage(r, m, gid, lp, spp, eps=0.0)
    # scaling every w by c (a constant IS weight) leaves B unchanged
    A2, _ = optimal_token_baseline_advantage(r, m, gid, lp, spp, eps=0.0, is_weights=np.full(r.shape, 3.0))
    np.testing.assert_allclose(A2, A, rtol=1e-12, atol=1e-12)
    # N = 1 everywhere: A = G m
    A1, G1 = optimal_token_baseline_advantage(r, m, np.arange(12), lp, spp)
    np.testing.assert_array_equal(A1, G1 * m)
    # masked positions give 0
    assert np.all(A[m == 0] == 0)


def test_fully_masked_rows_give_zeros_not_nan(rng):
    r, m, gid, lp, spp, isw = ragged_batch(rng, N=6, L=5)
    m[:] = 0
    for impl in IMPLS:
        A, G = impl(r, m, gid, lp, spp, is_weights=isw, handle_zero_tail=True)
        assert np.all(A == 0) and np.all(G == 0)


def test_equal_energy_gives_group_mean():
    g = np.random.default_rng(3)
    N, L = 5, 7
    r = g.normal(size=(N, L))
    lp = np.full((N, L), np.log(0.2))
    spp = np.full((N, L), 0.3)
    A, G = optimal_token_baseline_advantage(r, np.ones((N, L)), np.zeros(N), lp, spp, eps=0.0)
    np.testing.assert_allclose(A, G - G.mean(axis=0), atol=1e-13)


def test_other_group_estimators():
    r = np.zeros((4, 3))
    r[:, -1] = [1.0, 0.0, 1.0, 3.0]
    m = np.ones((4, 3))
    g = [0, 0, 0, 1]
    A, G = group_mean_advantage(r, m, g)
    np.testing.assert_allclose(A[:, 0], [1 / 3, -2 / 3, 1 / 3, 3.0])
    A, _ = rloo_advantage(r, m, g)
    np.testing.assert_allclose(A[:, 0], [0.5, -1.0, 0.5, 3.0])
    lp = np.log(np.full((4, 3), 0.5))
    spp = np.full((4, 3), 0.5)
    A, _ = global_bstar_advantage(r, m, g, lp, spp, eps=0.0)  # equal energies: the group mean
    np.testing.assert_allclose(A[:, 0], [1 / 3, -2 / 3, 1 / 3, 3.0])


BAD = [
    ("shape", dict(response_mask=np.ones((2, 4))), "response_mask has shape"),
    ("mask values", dict(response_mask=np.full((3, 3), 0.5)), "response_mask must contain only 0 and 1"),
    ("nan logp", dict(log_probs=np.full((3, 3), np.nan)), "log_probs contains NaN"),
    ("inf reward", dict(token_rewards=np.full((3, 3), np.inf)), "token_rewards contains NaN"),
    ("positive logp", dict(log_probs=np.full((3, 3), 0.1)), "log_probs must be ≤ 0"),
    ("spp zero", dict(sum_pi_squared=np.zeros((3, 3))), r"sum_pi_squared must lie in \(0, 1\]"),
    ("spp > 1", dict(sum_pi_squared=np.full((3, 3), 1.5)), r"sum_pi_squared must lie in \(0, 1\]"),
    ("negative IS", dict(is_weights=-np.ones((3, 3))), "is_weights must be ≥ 0"),
    ("nan IS", dict(is_weights=np.full((3, 3), np.nan)), "is_weights contains NaN"),
    ("group ids length", dict(group_ids=[0, 1]), "group_ids must be a 1-D array of length N = 3"),
    ("empty", dict(token_rewards=np.zeros((0, 3)), response_mask=np.zeros((0, 3)), group_ids=[],
                   log_probs=np.zeros((0, 3)), sum_pi_squared=np.zeros((0, 3))), "empty"),
    ("1-D", dict(token_rewards=np.zeros(3)), "2-D"),
]


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("name, change, msg", BAD, ids=[b[0] for b in BAD])
def test_bad_input(impl, name, change, msg):
    r, m, g, lp, spp = hand_batch()
    args = dict(token_rewards=r, response_mask=m, group_ids=g, log_probs=lp, sum_pi_squared=spp)
    change = dict(change)
    is_w = change.pop("is_weights", None)
    args.update(change)
    with pytest.raises(ValueError, match=msg):
        impl(args["token_rewards"], args["response_mask"], args["group_ids"], args["log_probs"],
             args["sum_pi_squared"], is_weights=is_w)


def test_bad_options():
    r, m, g, lp, spp = hand_batch()
    with pytest.raises(ValueError, match="eps"):
        optimal_token_baseline_advantage(r, m, g, lp, spp, eps=-1.0)
    with pytest.raises(TypeError, match="handle_zero_tail"):
        optimal_token_baseline_advantage(r, m, g, lp, spp, handle_zero_tail="yes")
    # padding placeholders are allowed (ranges checked where m = 1 only)
    spp2 = spp.copy()
    spp2[1, 2] = 0.0
    optimal_token_baseline_advantage(r, m, g, lp, spp2)


def test_kernel_exponential_against_numpy():
    g = np.random.default_rng(11)
    x = np.concatenate([-g.exponential(1.0, 20000), -g.uniform(0, 708, 20000),
                        [0.0, -0.0, -1e-300, -5e-324, -1e-17, -0.34657359, -0.34657360, -700.0, -708.0]])
    out = exp_nonpositive(x)
    ref = np.exp(x)
    assert np.max(np.abs(out - ref) / ref) <= 4.5e-16
    # clamped region: e^x < 4e-308 is returned as e^{-708}, an absolute error below 4e-308
    low = exp_nonpositive(np.array([-709.0, -745.0, -1e308]))
    assert np.all(low <= 3.31e-308) and np.all(low > 0)
    assert exp_nonpositive(np.array([5.0]))[0] == 1.0  # positive inputs are clipped to 0


# ---- issue 13: the single-pass kernel (live length, backward G scan, in-kernel overflow bound)

def _holey_batch(seed, N=24, L=40):
    """Ragged batch whose masks also have holes (m = 0 before the last valid token) and
    placeholder values (positive log-probs, zero Σπ²) at masked positions."""
    g = np.random.default_rng(seed)
    r, m, gid, lp, spp, isw = ragged_batch(g, N=N, L=L, n_groups=6)
    holes = (g.random(m.shape) < 0.2) & (m == 1)
    m[holes] = 0.0
    lp[m == 0] = 3.0
    spp[m == 0] = 0.0
    return r, m, gid, lp, spp, isw


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("use_is", [False, True])
def test_single_pass_kernel_equals_numpy_reference(seed, use_is):
    r, m, gid, lp, spp, isw = _holey_batch(seed)
    kw = dict(is_weights=isw if use_is else None, handle_zero_tail=seed % 2 == 0)
    A, G = optimal_token_baseline_advantage(r, m, gid, lp, spp, **kw)
    An, Gn = otb_advantage_numpy(r, m, gid, lp, spp, **kw)
    assert np.array_equal(G, Gn)                    # the same backward scan, term for term
    np.testing.assert_allclose(A, An, rtol=1e-12, atol=1e-12)
    live = m.shape[1] - np.argmax(m[:, ::-1] == 1, axis=1)
    live[m.sum(axis=1) == 0] = 0
    for i, n_live in enumerate(live):               # padding after the last valid token: exact zeros
        assert np.all(A[i, n_live:] == 0) and np.all(G[i, n_live:] == 0)


@pytest.mark.parametrize("scale", [1.0, 1e100, 1e160])
def test_in_kernel_overflow_bound_matches_numpy_decision(scale):
    """The kernel collects max Σ|m r| and max ρ̄ in its first pass; the scaled formula is used
    exactly when the NumPy bound says so, and the results agree with the reference."""
    from proofs_check.baselines.otb import _needs_scaling
    from proofs_check.baselines._batch import _validate_batch

    r, m, gid, lp, spp, isw = _holey_batch(3)
    isw = isw * scale
    A, G = optimal_token_baseline_advantage(r, m, gid, lp, spp, is_weights=isw)
    An, Gn = otb_advantage_numpy(r, m, gid, lp, spp, is_weights=isw)
    np.testing.assert_allclose(A, An, rtol=1e-10, atol=1e-12)
    assert np.all(np.isfinite(A))
    starts = _validate_batch(r, m, gid, lp, spp, isw)[-1]
    assert _needs_scaling(r, m, isw, starts) == (scale > 1e100)


@pytest.mark.parametrize("scale", [1.0, 1e160])
def test_out_buffers_receive_the_same_results(scale):
    """``out=``: the results are written into the caller's buffers (returned as such), equal bit
    for bit to the allocating call — on the kernel path and on the scaled path."""
    r, m, gid, lp, spp, isw = _holey_batch(4)
    isw = isw * scale
    A, G = optimal_token_baseline_advantage(r, m, gid, lp, spp, is_weights=isw, handle_zero_tail=True)
    bufs = (np.full_like(r, np.nan), np.full_like(r, np.nan))
    A2, G2 = optimal_token_baseline_advantage(r, m, gid, lp, spp, is_weights=isw, handle_zero_tail=True,
                                              out=bufs)
    assert A2 is bufs[0] and G2 is bufs[1]
    assert np.array_equal(A2, A) and np.array_equal(G2, G)
    # reused on the next "step": stale contents are overwritten everywhere
    A3, _ = optimal_token_baseline_advantage(r * 2, m, gid, lp, spp, is_weights=isw, handle_zero_tail=True,
                                             out=bufs)
    np.testing.assert_allclose(A3, 2 * A, rtol=1e-12, atol=1e-12)


def test_bad_out_buffers_are_refused():
    r, m, gid, lp, spp, _ = _holey_batch(5)

    def call(out):
        return optimal_token_baseline_advantage(r, m, gid, lp, spp, out=out)

    good = np.empty_like(r)
    cases = [
        (good, TypeError, "out must be a pair"),
        ((good,), TypeError, "length 1"),
        ((good, [[0.0]]), TypeError, r"out\[1\] \(returns\) must be a NumPy array"),
        ((good, np.empty(r.shape, np.float32)), ValueError, "float64 of shape"),
        ((good, np.empty((r.shape[0], r.shape[1] + 1))), ValueError, "float64 of shape"),
        ((good, np.empty((r.shape[1], r.shape[0])).T), ValueError, "C-contiguous"),
        ((good, r), ValueError, "overlaps an input"),
        ((lp, good), ValueError, r"out\[0\] \(advantages\) overlaps an input"),
        ((good, good), ValueError, "overlap; pass two separate"),
    ]
    ro = np.empty_like(r)
    ro.flags.writeable = False
    cases.append(((good, ro), ValueError, "writeable"))
    for out, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            call(out)
    assert np.array_equal(r, _holey_batch(5)[0])        # inputs untouched by the refused calls


def test_threads_split_by_group_give_bitwise_the_same_results():
    """A batch above THREAD_MIN_TOKENS runs on several threads (contiguous runs of groups): the
    same bits for every ``workers``; an invalid entry in the last thread's groups is still found."""
    from bench.otb import make_batch
    from proofs_check.baselines.otb import THREAD_MIN_TOKENS

    r, m, g, lp, spp = make_batch(72, 4096, 8, 1)
    assert r.size >= THREAD_MIN_TOKENS
    isw = np.random.default_rng(2).uniform(0.5, 1.5, r.shape)
    for kw in (dict(), dict(is_weights=isw, handle_zero_tail=True)):
        A1, G1 = optimal_token_baseline_advantage(r, m, g, lp, spp, workers=1, **kw)
        for w in (2, 3, 5, 64):
            A, G = optimal_token_baseline_advantage(r, m, g, lp, spp, workers=w, **kw)
            assert np.array_equal(A, A1) and np.array_equal(G, G1)
    big = isw.copy()
    big[70] *= 1e160                                   # the overflow bound, seen by the last thread only
    A1, G1 = optimal_token_baseline_advantage(r, m, g, lp, spp, is_weights=big, workers=1)
    A, G = optimal_token_baseline_advantage(r, m, g, lp, spp, is_weights=big, workers=2)
    assert np.all(np.isfinite(A1)) and np.array_equal(A, A1) and np.array_equal(G, G1)
    lp2 = lp.copy()
    lp2[70, 5] = 0.5                                   # a positive log-probability, last group
    m[70, 5] = 1.0
    with pytest.raises(ValueError, match=r"log_probs must be ≤ 0.*row 70, position 5"):
        optimal_token_baseline_advantage(r, m, g, lp2, spp, workers=2)
    for bad in (0, -1, 1.5, "2", True):
        with pytest.raises((ValueError, TypeError), match="workers"):
            optimal_token_baseline_advantage(r, m, g, lp, spp, workers=bad)
