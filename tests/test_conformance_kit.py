"""The conformance kit (:mod:`theorycheck.testing`) and the entry-point loading it
relies on: each check fails on a planted defect; a broken third-party claims
module is skipped with a one-line warning while the others load; and
``THEORYCHECK_NO_PLUGINS=1`` skips every entry point this distribution does not ship."""
import json
import sys
import textwrap
import types
import warnings

import pytest

import paper_figs
from proofs_check.engine import registry
from theorycheck.cli import main
from theorycheck.testing import check_claims_module, claims_module_problems

GOOD = '''
import proofs_check as pc
from proofs_check.engine import Source


def rare(rng, n):
    return rng.random(n) < 0.01


def sq(a, b):
    return (a + b) ** 2


def expand(a, b):
    return a * a + 2 * a * b + b * b


def square(x):
    return x * x


def itself(x):
    return x


pc.probability("kitplant.rare", rare, delta=0.05, expected="holds", budget=20_000, quick_budget=20_000,
               source=Source(papers=("trm",), theory="kitplant.md#rare"))
pc.identity("kitplant.square", sq, expand, domain=pc.Box(a=(-3, 3), b=(-3, 3)), expected="holds",
            source=Source(theory="kitplant.md#square"))
'''

#: defect -> (text added to GOOD, words of the one problem it must cause)
PLANTED = {
    "id outside the prefix": ('pc.identity("other.square", sq, expand, domain=pc.Box(a=(0, 1), b=(0, 1)))\n',
                              "other.square: id is not under the prefix 'kitplant.'"),
    "unknown paper": ('pc.identity("kitplant.paper", sq, expand, domain=pc.Box(a=(0, 1), b=(0, 1)), '
                      'source=Source(papers=("no_such_paper",)))\n', "kitplant.paper: unknown paper"),
    "missing anchor": ('pc.identity("kitplant.anchor", sq, expand, domain=pc.Box(a=(0, 1), b=(0, 1)), '
                       'source=Source(theory="kitplant.md#nowhere"))\n', "kitplant.anchor: no anchor 'nowhere'"),
    "control without expected": ('pc.identity("kitplant.control", sq, expand, domain=pc.Box(a=(0, 1), b=(0, 1)), '
                                 'role="control")\n', "kitplant.control: a control must declare"),
    "verdict in prose": ('pc.identity("kitplant.prose", sq, expand, domain=pc.Box(a=(0, 1), b=(0, 1)), '
                         'statement="(a+b)^2 expands; expected verdict: holds")\n', "kitplant.prose: the statement"),
    "lambda": ('pc.probability("kitplant.lambda", lambda rng, n: rng.random(n) < 0.01, delta=0.05)\n',
               "kitplant.lambda: its function"),
    "false claim expected to hold": (
        'pc.inequality("kitplant.false", square, itself, domain=pc.Box(x=(0.0, 3.0)), expected="holds", '
        'quick_budget=200)\n', "kitplant.false: verdict refuted, expected holds"),
}


@pytest.fixture
def plant(tmp_path, monkeypatch):
    """Write a claims module (and its theory page) under tmp_path; yield a loader of it by name.
    Its claims and the module leave with the test."""
    theory = tmp_path / "docs" / "theory"
    theory.mkdir(parents=True)
    (theory / "kitplant.md").write_text('<a id="rare"></a>\n\n<a id="square"></a>\n', encoding="utf-8")
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    monkeypatch.syspath_prepend(str(pkg))
    names = []

    def write(name: str, text: str) -> str:
        (pkg / f"{name}.py").write_text(textwrap.dedent(text), encoding="utf-8")
        names.append(name)
        return name

    with registry.isolated():
        yield write
    for name in names:
        sys.modules.pop(name, None)


def test_a_conforming_module_passes(plant):
    name = plant("kit_good", GOOD)
    claims = check_claims_module(name, prefix="kitplant", figures={"fig": ("kitplant.square", "selftest.*")})
    assert [c.id for c in claims] == ["kitplant.rare", "kitplant.square"]


@pytest.mark.parametrize("defect", sorted(PLANTED))
def test_each_planted_defect_is_the_one_problem_found(plant, defect):
    text, words = PLANTED[defect]
    name = plant("kit_" + defect.replace(" ", "_"), GOOD + text)
    problems = claims_module_problems(name, prefix="kitplant", figures=False)
    assert len(problems) == 1 and problems[0].startswith(words), problems


def test_a_figure_pattern_matching_no_claim_is_caught(plant, monkeypatch):
    name = plant("kit_fig", GOOD)
    problems = claims_module_problems(name, prefix="kitplant", verdicts=False,
                                      figures={"f": ("kitplant.rare", "kitplant.nothing.*", "other.*")})
    assert problems == ["figure 'f': claims pattern 'kitplant.nothing.*' matches no claim of the module"]
    # by default the registered figures are read (paper_figs.figure_info)
    monkeypatch.setattr(paper_figs, "figure_info", lambda: {"g": {"claims": ("kitplant.sq*", "kitplant.gone")}})
    assert claims_module_problems(name, prefix="kitplant", verdicts=False) == [
        "figure 'g': claims pattern 'kitplant.gone' matches no claim of the module"]


def test_a_module_that_registers_nothing_or_fails_to_import_or_has_no_entry_point(plant):
    assert "registers no claim" in claims_module_problems(plant("kit_empty", "X = 1\n"), prefix="kitplant")[0]
    broken = plant("kit_broken", GOOD + "import not_a_real_package_xyz\n")
    assert claims_module_problems(broken, prefix="kitplant") == [
        "kit_broken: cannot import the claims module: ModuleNotFoundError: No module named 'not_a_real_package_xyz'"]
    problems = claims_module_problems(plant("kit_no_ep", GOOD), verdicts=False, figures=False)
    assert len(problems) == 1 and "not declared in the 'theorycheck.claims' entry points" in problems[0]


def test_check_claims_module_lists_every_problem_in_one_assertion(plant):
    name = plant("kit_many", GOOD + PLANTED["unknown paper"][0] + PLANTED["lambda"][0])
    with pytest.raises(AssertionError) as info:
        check_claims_module(name, prefix="kitplant", verdicts=False, figures=False)
    lines = str(info.value).splitlines()
    assert lines[0] == "claims module 'kit_many' fails the theorycheck conformance kit (2 problems):"
    assert [x.split(":")[0] for x in lines[1:]] == ["  - kitplant.paper", "  - kitplant.lambda"]


def test_the_entry_point_name_is_the_prefix(plant, monkeypatch):
    name = plant("kit_ep", GOOD)
    real = registry._entry_points()
    fake = types.SimpleNamespace(name="kitwrong", value=name, group=registry.ENTRY_POINT_GROUP, dist=None)
    monkeypatch.setattr(registry, "_entry_points", lambda: [*real, fake])
    problems = claims_module_problems(name, verdicts=False, figures=False)
    assert len(problems) == 2 and all("not under the prefix 'kitwrong.'" in p for p in problems), problems


# ---------------------------------------------------------------------------
# entry-point loading: per-module isolation and THEORYCHECK_NO_PLUGINS
# ---------------------------------------------------------------------------

PLUGIN = '''
import proofs_check as pc


def sq(a):
    return a * a


pc.identity("kitgood.square", sq, sq, domain=pc.Box(a=(0, 1)), expected="holds")
'''

BROKEN_PLUGIN = '''
import proofs_check as pc


def sq(a):
    return a * a


pc.identity("kitbroken.partial", sq, sq, domain=pc.Box(a=(0, 1)))
import not_a_real_package_xyz
'''


def _ep(name, module, dist=None):
    return types.SimpleNamespace(name=name, value=module, group=registry.ENTRY_POINT_GROUP,
                                 dist=None if dist is None else types.SimpleNamespace(name=dist))


@pytest.fixture
def plugins(plant, monkeypatch):
    """The installed entry points plus a good and a broken third-party one (fresh loading)."""
    good, broken = plant("kit_plugin_good", PLUGIN), plant("kit_plugin_broken", BROKEN_PLUGIN)
    real = registry._entry_points()
    monkeypatch.setattr(registry, "_entry_points",
                        lambda: [*real, _ep("kitgood", good, "kit-good"), _ep("kitbroken", broken)])
    monkeypatch.setattr(registry, "_loaded", False)
    monkeypatch.setattr(registry, "_LOAD_ERRORS", {})
    monkeypatch.setenv("THEORYCHECK_NO_CACHE", "1")
    monkeypatch.delenv(registry.NO_PLUGINS_ENV, raising=False)
    return good, broken


def test_a_broken_plugin_fails_alone_with_a_one_line_warning(plugins):
    good, broken = plugins
    with pytest.warns(registry.ClaimModuleWarning) as record:
        ids = {c.id for c in registry.claims()}
    assert "kitgood.square" in ids and "selftest.dg_tail" in ids
    assert not any(i.startswith("kitbroken.") for i in ids)       # what it registered before failing goes
    assert list(registry.load_errors()) == [broken]
    [w] = [w for w in record.list if issubclass(w.category, registry.ClaimModuleWarning)]
    text = warnings.formatwarning(w.message, w.category, w.filename, w.lineno)
    assert text.count("\n") == 1, text
    for words in (broken, "'kitbroken'", "ModuleNotFoundError", "not_a_real_package_xyz", "THEORYCHECK_NO_PLUGINS=1"):
        assert words in text, (words, text)


def test_list_still_lists_the_others_with_exit_0(plugins, capsys):
    with pytest.warns(registry.ClaimModuleWarning):
        code = main(["list", "--json"])
    rows = [json.loads(x)["claim"] for x in capsys.readouterr().out.splitlines()]
    assert code == 0 and "kitgood.square" in rows and "selftest.dg_tail" in rows


def test_a_failing_shipped_module_still_raises(plant, monkeypatch):
    broken = plant("kit_shipped_broken", BROKEN_PLUGIN)
    real = registry._entry_points()
    monkeypatch.setattr(registry, "_entry_points", lambda: [*real, _ep("kitbroken", broken, "theorycheck")])
    monkeypatch.setattr(registry, "_loaded", False)
    with pytest.raises(ModuleNotFoundError, match="not_a_real_package_xyz"):
        registry.claims()


def test_no_plugins_switch_skips_third_party_entry_points(plugins, monkeypatch):
    good, broken = plugins
    assert {good, broken} <= set(registry.claim_modules())
    monkeypatch.setenv(registry.NO_PLUGINS_ENV, "1")
    assert not {good, broken} & set(registry.claim_modules())
    shipped = {ep.value for ep in registry._entry_points() if registry.is_own_entry_point(ep)}
    assert shipped and set(registry.claim_modules()) == shipped
    with warnings.catch_warnings():
        warnings.simplefilter("error", registry.ClaimModuleWarning)    # the broken one is not even tried
        ids = {c.id for c in registry.claims()}
    assert "selftest.dg_tail" in ids and not any(i.startswith(("kitgood.", "kitbroken.")) for i in ids)
    assert registry.load_errors() == {}
