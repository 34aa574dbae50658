"""The hostile soundness suite of the proved/exact tiers (issue 31, ``shared/reviews`` N1–N5, N14, N15).

Planted statements nobody in the project wrote, each run through the public API
(``tc.inequality`` / ``tc.identity`` with ``register=False``, then
``proofs_check.engine.verify_claim(c, executor="serial", seed=s)``), and judged by one rule:

* a **false** case is never ``guarantee == "proved"`` and is never refuted at a point outside
  its declared domain (outside the box, or a non-integer value of an ``integer=`` coordinate);
  a declaration refused with ``ValueError``/``TypeError`` counts as a pass, and the table
  records the refusal — provided the message names the problem (the row's ``refusal_names``,
  e.g. ``"positive"`` for a symbol declared positive on a box reaching below 0);
* a **true** control is never ``verdict == "refuted"``;
* an exception out of ``verify_claim`` fails either kind (a user sees a traceback).

What a "proof" means is the ball-arithmetic certifier's theorem (``docs/theory/engine.md`` §4):
every rule it applies must have its premise established on the box where it is applied. The
classes below are the ways a premise can silently fail: poles, jumps that a simplified
derivative hides, kinks, discontinuous functions, branch cuts, integer domains (both
directions), SymPy assumptions that contradict the box, rounding allowances, decimal literals,
``arb=`` twins that differ from the callables, zero-sided identities and removable
singularities.

Layout
------
``cases.py``
    The table: one :class:`~tests.soundness.cases.Case` per row, ``(id, cls, expect, box,
    integer, build, seeded, fast, note, refusal_names)``.  ``build(domain)`` returns the claim.
``harness.py``
    :func:`run_case` (one case, one seed → :class:`Outcome`) and :func:`judge` (the rule
    above → the list of failures); ``python -m tests.soundness.harness [--seeds N] [--only
    id,...]`` prints the whole table and the failures, and says which tree it imported.
``test_hostile_soundness.py``
    The default run: the ``fast`` rows at 3 seeds (≤ 60 s); ``-m slow``: every row, at
    30 seeds when ``seeded`` (the search can find the violation first on some seeds, so a
    false proof shows on some seeds only) and 3 otherwise.
``test_premise_mutations.py`` (slow)
    For each flag of ``proofs_check.engine.certify._PREMISES`` set to ``False`` in turn, at
    least one named case must fail; prints the table flag → failing cases.

Adding a case
-------------
Append a ``Case`` to :data:`~tests.soundness.cases.CASES`: a unique ``id`` prefixed by its
class, ``expect="false"`` (must never be proved) or ``"true"`` (must never be refuted), the
box as ``{name: (lo, hi)}`` (``integer=("n",)`` for integer coordinates), and ``build`` taking
the :class:`theorycheck.Box` built from them.  Say in ``note`` why it is false (where the
violation lives and how wide it is).  Mark ``fast=True`` only if it runs in about a second and
guards a class no other fast row guards.  Check that it can fail: a false case should be
"proved" by some mutation of the certifier (``test_premise_mutations``), or by the tree before
issue 31 (``PYTHONPATH=<old tree> python -m tests.soundness.harness``).
"""
