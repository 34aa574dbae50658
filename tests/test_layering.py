"""Imports point one way: engine → substrate → topics → figures → report/CLI.

An ``ast`` pass over every module of the three packages; a module may import
only from its own layer or layers to its left, and a topic only from itself
(a topic is a package named in :data:`TOPICS`), never from another topic.
``test_a_planted_upward_import_is_caught`` plants one and watches it fail.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("proofs_check", "seqproj", "paper_figs", "theorycheck")

#: Topic packages, most specific first (a module belongs to the first that prefixes it).
TOPICS = ("seqproj.ensemble", "seqproj", "proofs_check.mismatch", "proofs_check.baselines",
          "proofs_check.selftest")
SUBSTRATE = ("proofs_check.policies", "proofs_check.logits", "proofs_check.strategies",
             "proofs_check.symbolic", "proofs_check.papers")
TOP = ("theorycheck", "proofs_check.__main__")
#: The user-facing engine API (engine layer): the package facade, its version, declaring claims.
ENGINE = ("proofs_check.engine", "proofs_check._version", "proofs_check.declare")
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


def imports_in(mod: str, text: str, is_pkg: bool = False) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in module ``mod`` with source
    ``text``, relative ones resolved."""
    pkg = mod if is_pkg else mod.rsplit(".", 1)[0]
    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.append((node.lineno, target))
            # `from pkg import sub` may import a submodule
            out += [(node.lineno, f"{target}.{a.name}") for a in node.names
                    if (ROOT / Path(*f"{target}.{a.name}".split("."))).with_suffix(".py").exists()
                    or (ROOT / Path(*f"{target}.{a.name}".split(".")) / "__init__.py").exists()]
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
