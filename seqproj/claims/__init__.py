"""Registered claims for sequential random projection: ``docs/theory/seqproj.md``.

One module per family; importing this package registers them all (the
engine finds it through the ``theorycheck.claims`` entry point).  Nothing
outside this package imports it: the experiments the claims read are named in
:mod:`seqproj.experiments` (the figures measure the same ones), their computations live in
:mod:`seqproj.events` and the simulators.

Roles (``role``/``expected`` of every claim): the theorem's statements and the
established checks are ``role="statement", expected="holds"``; the
false variants that show the simulator and the engine can refute (M far below
the theorem's, fixed-time JL under a stopping adversary, the look-ahead
adversary, one-hot columns against the tails threshold) are
``role="control", expected="refuted"``; the positive control of check B (a
fixed design, where Dasgupta–Gupta applies) is ``role="control",
expected="holds"``; one-hot columns at the theorem's M (outside the
assumptions, no truth known in advance) is ``role="measurement"``.

Thresholds are fixed by a rule stated before the data: δ of the theorem's
statements is the δ the theorem's M was computed for; the fixed-time δ is the
Dasgupta–Gupta bound; the mixture level is α = 0.05; the tails δ is
twice our sphere reference rate.

Theory: ``docs/theory/seqproj.md`` (one section per family).
"""
from . import anytime, controls, coverage, efficiency, fixed_time, inner_product, mixture, tails
from . import worst_case
from . import formulas
from .common import DELTA, EPS, M_THEOREM, T

__all__ = ["EPS", "DELTA", "T", "M_THEOREM", "anytime", "controls", "coverage", "efficiency",
           "fixed_time", "inner_product", "mixture", "tails", "worst_case", "formulas"]
from .. import findings  # noqa: E402,F401  (the headline findings bound to these claims)
