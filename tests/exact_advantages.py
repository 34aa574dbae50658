"""The exact reference of the group advantage estimators, shared by the hostile-input suites
(``test_issue26_regressions.py``, ``test_fuzz_one_hostile.py``)."""
from __future__ import annotations

from fractions import Fraction

import numpy as np


def exact_advantages(kind, r, m, gid, lp=None, spp=None, eps=1e-8):
    """``A^i_t = (G^i_t − b_i) m^i_t`` in exact rational arithmetic (each float input is a rational),
    rounded once to float: the group mean, leave-one-out or E-weighted (b*) baseline."""
    N, L = r.shape
    G = [[sum((Fraction(float(r[i, k])) * int(m[i, k]) for k in range(t, L)), Fraction(0)) for t in range(L)]
         for i in range(N)]
    if kind == "bstar":
        E = [sum(Fraction(float(1.0 - 2.0 * np.exp(min(lp[i, t], 0.0)) + spp[i, t]))
                 for t in range(L) if m[i, t] == 1) for i in range(N)]
    out = np.zeros((N, L))
    for i in range(N):
        grp = [j for j in range(N) if gid[j] == gid[i]]
        if len(grp) == 1:
            b = Fraction(0)
        elif kind == "mean":
            b = sum(G[j][0] for j in grp) / len(grp)
        elif kind == "rloo":
            b = sum(G[j][0] for j in grp if j != i) / (len(grp) - 1)
        else:
            b = sum(E[j] * G[j][0] for j in grp) / (sum(E[j] for j in grp) + Fraction(eps))
        for t in range(L):
            out[i, t] = float((G[i][t] - b) * int(m[i, t]))
    return out
