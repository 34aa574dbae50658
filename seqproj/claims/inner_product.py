"""Inner products (theory ``#inner-product``): polarisation on ``x ± y`` with ``δ/2`` each."""
from __future__ import annotations

import functools

from proofs_check.engine import ProbabilityClaim, Source, register

from ..bounds import sequential_jl_min_dim
from ..events import inner_product_events
from .common import DELTA, EPS, T

#: the corollary's M: sequential_jl_min_dim(ε, δ/2, T, cx=4, x0=1) = 1035
M_IP = int(sequential_jl_min_dim(EPS, DELTA / 2, T, cx=4.0, x0=1.0))

register(ProbabilityClaim(
    id="seqproj.inner_product.sphere.pushing",
    statement=f"P(∃ t ≤ T: |⟨S_t(x), S_t(y)⟩ − Σ x_s y_s| > (ε/2)(V_t(x) + V_t(y))) ≤ δ = {DELTA} "
              f"at M = {M_IP} = sequential_jl_min_dim(ε, δ/2, T, c_x = 4) (x_t = 1, y_t = sign of the "
              "current error), sphere columns",
    source=Source(papers=("seqjl",), where="sequential JL theorem",
                  theory="seqproj.md#inner-product",
                  note="inner-product corollary derived by us by polarisation; whether "
                       "the paper states it is OPEN"),
    label="DERIVED", params={"M": M_IP, "eps": EPS, "delta": DELTA, "T": T, "columns": "sphere",
                             "x0": 1.0, "y0": 0.0},
    fn=functools.partial(inner_product_events, M=M_IP, eps=EPS, T=T), delta=DELTA,
    chunk_size=100, quick_budget=300, default_budget=2000, role="statement", expected="holds"))
