"""The conformance kit: check a claims module as theorycheck checks its own topics.

A package that adds claims through the ``theorycheck.claims`` entry point (see
``examples/theorycheck-example``) tests them with one call::

    # tests/test_conformance.py of your package
    from theorycheck.testing import check_claims_module

    def test_my_claims_conform():
        check_claims_module("mypkg.claims")          # quick budgets, seed 0

:func:`check_claims_module` raises one ``AssertionError`` that lists every
problem it found, one per line, each naming the claim at fault:

* **ids**: the module is declared in the ``theorycheck.claims`` entry points
  (else ``theorycheck list`` never sees it: add the entry point and reinstall),
  registers at least one claim, and every id starts with ``<entry-point name>.``;
* **sources**: a structured :class:`~proofs_check.engine.Source` names only keys
  of the paper registry (``proofs_check.papers.PAPERS``) and a theory anchor
  ``page.md#id`` that exists on ``docs/theory/page.md`` — when that page is found
  (searched upwards from the module's file, or in ``theory_dir``);
* **expected verdicts**: every control (``role="control"``) declares ``expected``,
  no statement spells its expected verdict in prose, and every claim with an
  ``expected`` verdict reaches it: at quick budgets (``quick=True``) a verdict
  must not contradict it (inconclusive is "not settled yet", as for
  ``theorycheck verify --quick --fail-on unexpected``); at default budgets
  (``quick=False``) it must equal it;
* **portability**: each claim's functions pickle, so that ``--executor
  processes`` and ``dask`` can run it;
* **figures**: every ``claims=`` pattern of a registered figure that names the
  module's prefix matches at least one of its claims.

This project runs the same kit on its own topics (``tests/test_sources.py``,
``tests/test_expected_verdicts.py``).  :func:`claims_module_problems` returns
the list instead of raising; the single checks (:func:`id_problems`,
:func:`source_problems`, :func:`expectation_problems`, :func:`verdict_problem`,
:func:`portability_problems`, :func:`figure_problems`) are public building blocks.
"""
from __future__ import annotations

import re
import types
from pathlib import Path
from typing import Iterable, Mapping

from proofs_check.engine import Claim, Source, verify_claim
from proofs_check.engine import registry
from proofs_check.engine.errors import UserClaimsError

__all__ = ["check_claims_module", "claims_module_problems", "id_problems", "source_problems",
           "expectation_problems", "verdict_problem", "portability_problems", "figure_problems"]

#: A statement that carries its expected verdict in prose (it belongs in ``expected=``).
_PROSE_VERDICT = re.compile(r"expected (verdict:? )?'?(refuted|holds)|negative control", re.I)


def _one_line(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _module_name(module) -> str:
    if isinstance(module, types.ModuleType):
        return module.__name__
    if isinstance(module, str) and module.strip():
        return module.strip()
    raise TypeError(f"module must be a module or a dotted module name, got {module!r}")


def id_problems(claims: Iterable[Claim], prefix: str) -> list[str]:
    """Claims whose id is not under ``prefix.`` (the module's entry-point name)."""
    return [f"{c.id}: id is not under the prefix {prefix + '.'!r} (the module's entry-point name)"
            for c in claims if not c.id.startswith(prefix + ".")]


def _theory_page(page: str, theory_dir, near: Path | None) -> Path | None:
    if theory_dir is not None:
        return Path(theory_dir) / page
    if near is not None:
        for parent in near.resolve().parents:
            candidate = parent / "docs" / "theory" / page
            if candidate.is_file():
                return candidate
    return None


def _anchors(path: Path) -> set[str]:
    return set(re.findall(r'<a id="([^"]+)"></a>', path.read_text(encoding="utf-8")))


def source_problems(claims: Iterable[Claim], *, papers: Mapping | None = None, theory_dir=None,
                    near=None, structured: bool = False) -> list[str]:
    """Source pointers that do not resolve.

    ``papers`` is the paper registry (default ``proofs_check.papers.PAPERS``).
    A theory anchor ``page.md#id`` must exist on ``theory_dir/page.md`` when
    ``theory_dir`` is given (a missing page is then a problem too); otherwise
    the page is searched in ``docs/theory/`` upwards from the file ``near``, and
    an anchor is checked only when its page is found.  ``structured=True``
    also refuses plain-string sources (this project's rule for its topics).
    """
    if papers is None:
        from proofs_check.papers import PAPERS as papers
    near = Path(near) if near is not None else None
    bad: list[str] = []
    anchors: dict[Path, set[str]] = {}
    for c in claims:
        src = c.source
        if not isinstance(src, Source):
            if structured:
                bad.append(f"{c.id}: free-text source {str(src)!r}: give a structured Source "
                           f"(paper keys, where, theory anchor)")
            continue
        bad += [f"{c.id}: unknown paper {k!r} (not in the paper registry)" for k in src.papers
                if k not in papers]
        if src.theory:
            page, anchor = src.theory.split("#", 1)
            path = _theory_page(page, theory_dir, near)
            if path is not None and not path.is_file():
                bad.append(f"{c.id}: theory page {page!r} does not exist in {theory_dir}")
            elif path is not None:
                if path not in anchors:
                    anchors[path] = _anchors(path)
                if anchor not in anchors[path]:
                    bad.append(f"{c.id}: no anchor {anchor!r} in docs/theory/{page}")
        if "spec " in src.note or "spec " in src.where:
            bad.append(f"{c.id}: points to a spec page outside the repository ({src.note or src.where})")
    return bad


def expectation_problems(claims: Iterable[Claim]) -> list[str]:
    """Controls without an ``expected`` verdict, and statements that carry one in prose."""
    bad = []
    for c in claims:
        if c.role == "control" and c.expected is None:
            bad.append(f"{c.id}: a control must declare its expected verdict (expected='holds' or 'refuted')")
        if _PROSE_VERDICT.search(c.statement):
            bad.append(f"{c.id}: the statement carries its expected verdict in prose: use expected= "
                       f"(and role='control' for a negative control)")
    return bad


def verdict_problem(claim: Claim, *, quick: bool = True, seed: int = 0, alpha: float = 0.01) -> str | None:
    """Why ``claim`` fails its ``expected`` verdict (``None`` if it does not, or has none).

    At quick budgets a verdict must not contradict ``expected`` (inconclusive is
    not settled); at default budgets (``quick=False``) it must equal it.  Every
    result must state a known guarantee.
    """
    if claim.expected is None:
        return None
    from proofs_check.engine.results import GUARANTEES

    try:
        r = verify_claim(claim, quick=quick, seed=seed, alpha=alpha)
    except Exception as exc:
        return f"{claim.id}: verification raised {_one_line(exc)}"
    budget = "quick" if quick else "default"
    if r.guarantee not in GUARANTEES:
        return f"{claim.id}: the result states an unknown guarantee {r.guarantee!r}"
    settled = r.verdict in ("holds", "refuted")
    if r.verdict != claim.expected and (settled or not quick):
        return (f"{claim.id}: verdict {r.verdict}, expected {claim.expected} ({budget} budget, seed {seed}, "
                f"α = {alpha}: {r.summary()})")
    return None


def portability_problems(claims: Iterable[Claim], executor: str = "processes") -> list[str]:
    """Claims whose functions cannot be pickled for worker processes."""
    bad = []
    for c in claims:
        try:
            registry.check_portable([c], executor)
        except UserClaimsError as exc:
            bad.append(f"{c.id}: {exc}".replace(f"{c.id}: claim {c.id!r}: ", f"{c.id}: "))
    return bad


def figure_problems(claims: Iterable[Claim], prefix: str, figures: Mapping | None = None) -> list[str]:
    """Figure ``claims=`` patterns under ``prefix.`` that match none of ``claims``.

    ``figures`` maps figure name to its claim patterns; default: every
    registered figure (``paper_figs.figure_info()``, which loads the
    ``theorycheck.figures`` entry points)."""
    if figures is None:
        import paper_figs

        figures = {name: info["claims"] for name, info in paper_figs.figure_info().items()}
    ids = [c.id for c in claims]
    return [f"figure {name!r}: claims pattern {pat!r} matches no claim of the module"
            for name, patterns in sorted(figures.items()) for pat in patterns
            if pat.split(".", 1)[0] == prefix and not any(registry.matches(i, pat) for i in ids)]


def claims_module_problems(module, *, quick: bool = True, seed: int = 0, alpha: float = 0.01,
                           prefix: str | None = None, verdicts: bool = True, figures: bool | Mapping = True,
                           papers: Mapping | None = None, theory_dir=None,
                           structured_sources: bool = False) -> list[str]:
    """Every problem :func:`check_claims_module` finds, as one line each (``[]`` if none)."""
    name = _module_name(module)
    registry.claims()                              # the entry-point modules first: ids stay unique
    try:
        mod = module if isinstance(module, types.ModuleType) else registry.import_claims_module(name)
    except Exception as exc:
        return [f"{name}: cannot import the claims module: {_one_line(exc)}"]
    claims = registry.claims_registered_by(name)
    if not claims:
        return [f"{name}: registers no claim (declare them at import: proofs_check.probability(...), "
                f"..., or register(...))"]
    problems: list[str] = []
    if prefix is not None:
        prefixes = [prefix]
    else:
        prefixes = registry.entry_point_names(name)
        if not prefixes:
            problems.append(f"{name}: not declared in the {registry.ENTRY_POINT_GROUP!r} entry points "
                            f"(add it to your pyproject.toml and reinstall), or pass prefix=")
    for p in prefixes:
        problems += id_problems(claims, p)
    problems += source_problems(claims, papers=papers, theory_dir=theory_dir, structured=structured_sources,
                                near=getattr(mod, "__file__", None))
    problems += expectation_problems(claims)
    problems += portability_problems(claims)
    if figures is not False:
        try:
            for p in prefixes:
                problems += figure_problems(claims, p, None if figures is True else figures)
        except Exception as exc:
            problems.append(f"{name}: the figure modules failed to load: {_one_line(exc)}")
    if verdicts:
        problems += [p for c in claims if (p := verdict_problem(c, quick=quick, seed=seed, alpha=alpha))]
    return problems


def check_claims_module(module, *, quick: bool = True, seed: int = 0, alpha: float = 0.01,
                        prefix: str | None = None, verdicts: bool = True, figures: bool | Mapping = True,
                        papers: Mapping | None = None, theory_dir=None,
                        structured_sources: bool = False) -> list[Claim]:
    """Check a claims module as theorycheck checks its own; return its claims.

    Parameters
    ----------
    module : a module, or its dotted name (imported; importing registers its claims).
    quick, seed, alpha : how expected verdicts are checked: quick budgets (a
        verdict must not contradict ``expected``) or default ones (it must
        equal it), with this root seed and error level.
    prefix : the id prefix; default the module's name(s) in the
        ``theorycheck.claims`` entry points (required for a module that has none).
    verdicts : ``False`` skips running the claims (every static check still runs).
    figures : ``True`` checks the registered figures' ``claims=`` patterns,
        ``False`` skips them, a mapping ``{figure: patterns}`` checks those.
    papers : the paper registry (default ``proofs_check.papers.PAPERS``).
    theory_dir : where the theory pages are; default ``docs/theory/`` found
        upwards from the module's file (anchors are checked only if found).
    structured_sources : refuse plain-string sources too.

    Raises
    ------
    AssertionError
        listing every problem, one per line.

    Example
    -------
    In a test of the package that ships ``mypkg.claims``::

        from theorycheck.testing import check_claims_module

        def test_claims_conform():
            claims = check_claims_module("mypkg.claims")                 # quick budgets
            assert {c.id for c in claims} >= {"mypkg.bound", "mypkg.rate"}

        def test_claims_conform_at_full_budget():                        # slower
            check_claims_module("mypkg.claims", quick=False, seed=1)
    """
    problems = claims_module_problems(module, quick=quick, seed=seed, alpha=alpha, prefix=prefix,
                                      verdicts=verdicts, figures=figures, papers=papers,
                                      theory_dir=theory_dir, structured_sources=structured_sources)
    name = _module_name(module)
    if problems:
        raise AssertionError(f"claims module {name!r} fails the theorycheck conformance kit "
                             f"({len(problems)} problem{'s' if len(problems) != 1 else ''}):\n"
                             + "\n".join(f"  - {p}" for p in problems))
    return registry.claims_registered_by(name)
