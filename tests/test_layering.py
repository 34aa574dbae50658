"""Imports point one way: engine → substrate → topics → figures → top.

The layers: the engine (``proofs_check.engine``, the ``proofs_check`` facade,
``declare``, ``domains``), the substrate (policies, logits, ...), the topics (each package
whose ``claims`` module is a ``theorycheck.claims`` entry point of this
distribution: ``seqproj``, ``seqproj.ensemble``, ``proofs_check.{mismatch,
baselines,selftest}``), the figures (``paper_figs``) and the top (the package
``theorycheck``: CLI, report, calibration, catalogue, pytest plugin, testing kit).

An ``ast`` pass over every module of the four packages checks that

* a module imports only from its own layer or layers below it, and a topic
  only from itself, never from another topic (:func:`violations_in`);
* no import cycle exists among project modules, counting imports inside
  functions and ignoring those under ``if TYPE_CHECKING:`` (:func:`import_cycles`);
* topics and figures reach the engine through its facade ``proofs_check.engine``
  (and ``proofs_check.engine.errors``) only, never a submodule
  (:func:`deep_engine_imports`).

Each rule has a planted violation that must be caught.
"""
from __future__ import annotations

import ast
from importlib.metadata import entry_points
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("proofs_check", "seqproj", "paper_figs", "theorycheck")
#: The distribution whose entry points name this project's topics.
DISTRIBUTION = "theorycheck"


def topic_entry_points() -> dict[str, str]:
    """name -> claims module of this distribution's ``theorycheck.claims`` entry
    points: the one place a topic is named (``pyproject.toml``)."""
    return {ep.name: ep.value for ep in entry_points(group="theorycheck.claims")
            if ep.dist is not None and ep.dist.name == DISTRIBUTION}


def topic_package(claims_module: str) -> str:
    """The topic package of a claims module (``seqproj.claims`` -> ``seqproj``)."""
    return claims_module.rsplit(".", 1)[0] if claims_module.endswith(".claims") else claims_module


#: Topic packages, derived from the entry points, most specific first (a module
#: belongs to the first that prefixes it: ``seqproj.ensemble`` before ``seqproj``).
TOPICS = tuple(sorted({topic_package(m) for m in topic_entry_points().values()},
                      key=lambda p: (-p.count("."), p)))
SUBSTRATE = ("proofs_check.policies", "proofs_check.logits", "proofs_check.strategies",
             "proofs_check.symbolic", "proofs_check.papers")
TOP = ("theorycheck", "proofs_check.__main__")
#: The user-facing engine API (engine layer): the package facade, its version, declaring claims, domains.
ENGINE = ("proofs_check.engine", "proofs_check._version", "proofs_check.kind_names", "proofs_check.declare",
          "proofs_check.domains")
LAYERS = ("engine", "substrate", "topic", "figures", "top")


def _starts(mod: str, prefixes) -> str | None:
    for p in prefixes:
        if mod == p or mod.startswith(p + "."):
            return p
    return None


def layer_of(mod: str) -> tuple[int, str | None] | None:
    """(layer index, topic) of a project module; None for third-party modules."""
    if mod == "proofs_check" or _starts(mod, ENGINE):
        return 0, None                                  # the package facade re-exports the engine
    if _starts(mod, SUBSTRATE):
        return 1, None
    topic = _starts(mod, TOPICS)
    if topic:
        return 2, topic
    if _starts(mod, ("paper_figs",)):
        return 3, None
    if _starts(mod, TOP):
        return 4, None
    if _starts(mod, PACKAGES):
        raise AssertionError(f"module {mod} is in no layer: add it to tests/test_layering.py")
    return None


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(tree: ast.AST, type_checking: bool):
    """Every import node (at any depth: in functions too); without the bodies of
    ``if TYPE_CHECKING:`` unless ``type_checking``."""
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        if not type_checking and isinstance(node, ast.If) and _is_type_checking(node.test):
            todo += node.orelse
            continue
        todo += ast.iter_child_nodes(node)


def _from_target(pkg: str, node: ast.ImportFrom) -> str:
    """The absolute module of ``from ... import``, relative levels resolved against ``pkg``."""
    if not node.level:
        return node.module or ""
    base = pkg.split(".")
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_in(mod: str, text: str, is_pkg: bool = False, *, type_checking: bool = True,
               modules: set[str] | None = None) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in module ``mod`` with source
    ``text``, relative ones resolved; ``type_checking=False`` leaves out the
    imports under ``if TYPE_CHECKING:``.

    ``from pkg import sub`` yields ``pkg.sub`` when ``sub`` is a module (a file
    under the repository, or a name in ``modules`` if given), and ``pkg`` itself
    unless ``pkg`` is a package enclosing ``mod`` and every name is a submodule:
    a package is always initialised before its own modules run, so the sibling
    import ``from . import sub`` depends on ``sub`` only."""
    pkg = mod if is_pkg else mod.rsplit(".", 1)[0]

    def is_module(name: str) -> bool:
        return name in modules if modules is not None else _path_of(name) is not None

    out = []
    for node in sorted(_import_nodes(ast.parse(text), type_checking), key=lambda n: (n.lineno, n.col_offset)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        else:
            target = _from_target(pkg, node)
            subs = [f"{target}.{a.name}" for a in node.names if is_module(f"{target}.{a.name}")]
            enclosing = mod.startswith(target + ".")
            if not (enclosing and len(subs) == len(node.names)):
                out.append((node.lineno, target))
            out += [(node.lineno, sub) for sub in subs]
    return out


def violations_in(mod: str, text: str, is_pkg: bool = False) -> list[str]:
    bad = []
    here = layer_of(mod)
    for line, target in imports_in(mod, text, is_pkg):
        there = layer_of(target)
        if there is None or here is None:
            continue
        if there[0] > here[0]:
            bad.append(f"{mod}:{line}: {mod} ({LAYERS[here[0]]}) imports {target} ({LAYERS[there[0]]})")
        elif here[0] == there[0] == 2 and here[1] != there[1]:
            bad.append(f"{mod}:{line}: topic {here[1]} imports topic {there[1]} ({target})")
    return bad


def violations(paths) -> list[str]:
    return [v for path in paths for v in violations_in(_module_name(path), path.read_text(encoding="utf-8"),
                                                       path.name == "__init__.py")]


def project_files():
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def test_imports_point_one_way():
    bad = violations(project_files())
    assert not bad, "upward or cross-topic imports:\n" + "\n".join(bad)


@pytest.mark.parametrize("module,planted", [
    ("proofs_check.engine.verify", "import seqproj.claims\n"),
    ("proofs_check.engine.stats", "from ..policies import TabularPolicy\n"),
    ("proofs_check.policies", "from proofs_check.mismatch import bounds\n"),
    ("seqproj.columns", "from proofs_check.baselines import toy\n"),
    ("seqproj.ensemble", "from seqproj.claims import register\n"),
    ("proofs_check.mismatch.bounds", "from paper_figs import style\n"),
    ("paper_figs.style", "from theorycheck import cli\n"),
])
def test_a_planted_upward_import_is_caught(module, planted):
    base = ROOT / Path(*module.split("."))
    path = base.with_suffix(".py") if base.with_suffix(".py").exists() else base / "__init__.py"
    is_pkg = path.name == "__init__.py"
    original = path.read_text(encoding="utf-8")
    assert not violations_in(module, original, is_pkg)
    assert violations_in(module, original + "\n" + planted, is_pkg), f"{module}: {planted!r} was not caught"


def test_layer_names_are_current():
    """Every module named in a layer exists (a stale name would hide nothing, but
    misleads), and the topics derived from the entry points are real packages."""
    assert TOPICS, "no theorycheck.claims entry point of this distribution: reinstall (pip install -e .)"
    missing = [m for m in (*ENGINE, *SUBSTRATE, *TOP, *TOPICS, *PACKAGES) if _path_of(m) is None]
    assert not missing, f"modules named in tests/test_layering.py that do not exist: {missing}"


def test_every_shipped_package_is_checked():
    """A top-level package the distribution ships (``[tool.setuptools.packages.find]
    include``) but :data:`PACKAGES` misses would be silently unchecked."""
    import re

    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    found = re.search(r"\[tool\.setuptools\.packages\.find\]\s*include\s*=\s*\[([^\]]*)\]", text)
    assert found, "no [tool.setuptools.packages.find] include in pyproject.toml"
    shipped = {name.rstrip("*").rstrip(".") for name in re.findall(r'"([^"]+)"', found.group(1))}
    assert shipped == set(PACKAGES), f"pyproject ships {sorted(shipped)}, the layering test checks {PACKAGES}"


# ---------------------------------------------------------------------------
# no import cycle
# ---------------------------------------------------------------------------

def _path_of(mod: str) -> Path | None:
    base = ROOT / Path(*mod.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.exists():
            return path
    return None


def import_graph(sources: dict[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """module -> the project modules it imports (at any depth of the module,
    not under ``if TYPE_CHECKING:``); ``sources`` maps module -> (text, is_pkg)."""
    mods = set(sources)
    return {m: {t for _, t in imports_in(m, text, is_pkg, type_checking=False, modules=mods) if t in mods and t != m}
            for m, (text, is_pkg) in sources.items()}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def project_sources() -> dict[str, tuple[str, bool]]:
    return {_module_name(p): (p.read_text(encoding="utf-8"), p.name == "__init__.py") for p in project_files()}


def test_no_import_cycle():
    cycles = import_cycles(import_graph(project_sources()))
    assert not cycles, ("import cycles among project modules (move the shared names down a floor, "
                        "issue 20 §7 item 1):\n" + "\n".join(f"{len(c)}: {', '.join(c)}" for c in cycles))


def test_a_planted_cycle_is_caught():
    two = {"proofs_check.ping": ("from .pong import b\n", False),
           "proofs_check.pong": ("def f():\n    import proofs_check.ping\n", False)}
    assert import_cycles(import_graph(two)) == [["proofs_check.ping", "proofs_check.pong"]]
    one_way = {**two, "proofs_check.pong": ("import numpy\n", False)}
    assert import_cycles(import_graph(one_way)) == []
    # a package whose __init__ imports a module that takes a *name* from the package: a cycle
    # (the name may not exist yet); taking a sibling *module* from it is not
    pkg = {"proofs_check.pk": ("from .a import f\nG = 1\n", True), "proofs_check.pk.a": ("from . import G\n", False),
           "proofs_check.pk.b": ("X = 1\n", False)}
    assert import_cycles(import_graph(pkg)) == [["proofs_check.pk", "proofs_check.pk.a"]]
    pkg["proofs_check.pk.a"] = ("from . import b\nfrom .b import X\n", False)
    assert import_cycles(import_graph(pkg)) == []
    # from outside the package, importing a submodule runs the package's __init__: a cycle
    outside = {**pkg, "proofs_check.pk.a": ("from proofs_check.out import y\n", False),
               "proofs_check.out": ("from proofs_check.pk import b\n", False)}
    assert import_cycles(import_graph(outside)) == [["proofs_check.out", "proofs_check.pk", "proofs_check.pk.a"]]


@pytest.mark.parametrize("how,closes", [
    ("\n\ndef _planted():\n    from {importer} import *\n", True),
    ("\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import {importer}\n", False),
    ("\nimport typing\nif typing.TYPE_CHECKING:\n    import {importer}\nelse:\n    import numpy\n", False),
])
def test_a_planted_import_in_a_real_module_closes_a_cycle(how, closes):
    """engine.stats is a bottom floor: importing, inside one of its functions, a
    module that imports it closes a cycle; the same import under ``if TYPE_CHECKING:`` does not."""
    sources = project_sources()
    mod = "proofs_check.engine.stats"
    graph = import_graph(sources)
    importer = min(m for m, targets in graph.items() if mod in targets)

    def cyclic(srcs):
        return any(mod in c for c in import_cycles(import_graph(srcs)))

    assert not cyclic(sources)
    text, is_pkg = sources[mod]
    assert cyclic({**sources, mod: (text + how.format(importer=importer), is_pkg)}) is closes


# ---------------------------------------------------------------------------
# topics and figures reach the engine through its facade only
# ---------------------------------------------------------------------------

#: Engine modules that topics and figures may import besides the facade.
ENGINE_PUBLIC_SUBMODULES = ("proofs_check.engine.errors",)


def _facade_names() -> set[str]:
    """``proofs_check.engine.__all__`` (the facade imports its names lazily)."""
    import importlib

    return set(importlib.import_module("proofs_check.engine").__all__)


def deep_engine_imports(mod: str, text: str, is_pkg: bool = False, facade: set[str] | None = None) -> list[str]:
    """Imports of an engine submodule (other than :data:`ENGINE_PUBLIC_SUBMODULES`)
    by a topic or figures module ``mod``; ``from proofs_check.engine import name``
    is a deep import when ``name`` is a submodule that the facade's ``__all__``
    does not list (``claims`` is both, and the facade binds the function)."""
    here = layer_of(mod)
    if here is None or LAYERS[here[0]] not in ("topic", "figures"):
        return []
    facade = _facade_names() if facade is None else facade
    pkg = mod if is_pkg else mod.rsplit(".", 1)[0]
    bad = []
    for node in _import_nodes(ast.parse(text), type_checking=True):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            target = _from_target(pkg, node)
            targets = [target]
            if target == "proofs_check.engine":
                targets = [f"{target}.{a.name}" for a in node.names
                           if a.name not in facade and _path_of(f"{target}.{a.name}") is not None]
        bad += [f"{mod}:{node.lineno}: imports {t}" for t in targets
                if t.startswith("proofs_check.engine.") and not _starts(t, ENGINE_PUBLIC_SUBMODULES)]
    return sorted(bad, key=lambda b: int(b.split(":")[1]))


def test_topics_and_figures_import_only_the_engine_facade():
    bad = [b for p in project_files()
           for b in deep_engine_imports(_module_name(p), p.read_text(encoding="utf-8"), p.name == "__init__.py")]
    assert not bad, (f"{len(bad)} imports of engine submodules by topics and figures: import from the "
                     f"facade proofs_check.engine (add the name to its __all__ if missing):\n" + "\n".join(bad))


@pytest.mark.parametrize("module,planted,caught", [
    ("proofs_check.mismatch.bounds", "from proofs_check.engine.verify import verify_claim\n", True),
    ("proofs_check.mismatch.bounds", "import proofs_check.engine.stats\n", True),
    ("proofs_check.mismatch.bounds", "def f():\n    from proofs_check.engine import registry\n", True),
    ("paper_figs.style", "from proofs_check.engine.results import GUARANTEES\n", True),
    ("seqproj.ensemble.claims", "from proofs_check.engine import claims, verify_claim, Source\n", False),
    ("proofs_check.mismatch.bounds", "from proofs_check.engine.errors import ClaimDeclarationError\n", False),
    ("proofs_check.engine.verify", "from proofs_check.engine.stats import clopper_pearson\n", False),
    ("theorycheck.cli", "from proofs_check.engine.registry import claims\n", False),
])
def test_a_planted_deep_engine_import_is_caught(module, planted, caught):
    path = _path_of(module)
    is_pkg = path.name == "__init__.py"
    original = path.read_text(encoding="utf-8")
    before = deep_engine_imports(module, original, is_pkg)
    after = deep_engine_imports(module, original + "\n" + planted, is_pkg)
    assert (len(after) > len(before)) is caught, (module, planted, after[len(before):])
