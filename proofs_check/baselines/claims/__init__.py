"""Claims of the baselines topic (theory page ``docs/theory/baselines.md``), one module per family.

Importing this package registers every ``baselines.*`` claim; the registry finds
it through the ``theorycheck.claims`` entry point.  Nothing outside this package
imports it: the case generators and experiments the claims run live in the
library modules of :mod:`proofs_check.baselines`.

Families: :mod:`.proxy` (the logit-gradient proxy), :mod:`.variance` (exact
population variances, tabular and shared parameters), :mod:`.bias` (finite
groups: bias and MSE), :mod:`.otb` (the implementation), :mod:`.logit` (logit
dynamics), :mod:`.dapo` (divergence augmentation), :mod:`.toy` (the headline
in a toy).

Tolerance rules (fixed before any data):

* identities accumulated over many terms (``V`` up to 1e5 logits, ``L``
  positions, ``V**T`` sequences) use ``tol_mode="scale"`` with the scale stated
  in the case generator and ``tol = 1e-13`` (a few hundred unit roundoffs:
  pairwise summation of 1e5 terms costs ≈ 17 ε);
* identities over a small, fixed number of terms (group moments over ≤ 8**4
  tuples of normalised O(1) ratios, the 2×3 complex-step gradient, 16-sequence
  per-decision IS) keep ``tol_mode="mixed"`` at 1e-12;
* inequalities: the true ``(lhs, rhs)`` and ``atol = 0``, ``rtol = 1e-9`` (the
  exact population variances are a difference of two sums of at most 8 × 9
  products, each correct to ~1e-15 relative, so 1e-9 is far above rounding and
  far below every reported ratio); a float64 violation is re-checked at 50
  digits (:mod:`proofs_check.baselines.population_mp`);
* scaling windows: the theoretical exponent ± 0.1 (logit dynamics: a Taylor
  remainder, exact exponents 2, 3, ½, 1) and −1 ± 0.5 for the OTB group bias.
"""
from . import bias, dapo, logit, otb, proxy, toy, variance  # noqa: F401  (registers the claims)
from . import group_mc  # noqa: F401  (issue 15: Monte Carlo twins of the group bias claims)
from . import scalar  # noqa: F401  (issue 22: the Welford gap, proved)
from .. import findings  # noqa: E402,F401  (the headline findings bound to these claims)
