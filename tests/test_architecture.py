"""The dependency rules of rtlab, checked against the code.

The rules are written once, in the table "Packages and what they may import" of docs/ARCHITECTURE.md; this
file parses that table and checks every rtlab-internal import under ``rtlab/`` against it: module-level ones,
those inside functions, classes and ``if TYPE_CHECKING:``, relative ones, and ``importlib.import_module``
calls as far as their module name is literal. The checker is plain functions over a source root (the folder
that holds ``rtlab/``), so a test can run it on a copy with violations put in.
"""

from __future__ import annotations

import ast
import gc
import importlib
import importlib.util
import re
import shutil
import sys
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from conftest import ROOT

DOC = ROOT / "docs" / "ARCHITECTURE.md"
SECTION = "## Packages and what they may import"
HEADER = "| package | owns | may import |"
LAZY = "rtlab._lazy"
"""The module every package may import (the lazy faces), besides itself."""


# --- the rules, from the doc -------------------------------------------------------------------------------

_NAME = r"rtlab(?:\.\w+)*"
_PACKAGE_CELL = re.compile(rf"`({_NAME})`")
_MAY_IMPORT_CELL = re.compile(rf"`{_NAME}`(?:, `{_NAME}`)*")


def parse_rules(text: str) -> dict[str, tuple[str, ...]]:
    """The doc's table: each package and the packages it may import besides itself and ``rtlab._lazy``, in
    the doc's order. A malformed table raises ``ValueError`` naming the row."""
    lines = text.splitlines()
    if SECTION not in lines:
        raise ValueError(f"no section {SECTION!r}")
    section = lines[lines.index(SECTION) + 1 :]
    section = section[: next((i for i, line in enumerate(section) if line.startswith("## ")), len(section))]
    if section.count(HEADER) != 1:
        raise ValueError(f"{SECTION!r} must hold exactly one table headed {HEADER!r}")
    start = section.index(HEADER) + 2  # past the header and the |---| row
    rules: dict[str, tuple[str, ...]] = {}
    for row in section[start:]:
        if not row.startswith("|"):
            break
        cells = [cell.strip() for cell in row.strip()[1:-1].split("|")]
        # The first and last cells are the package and its imports; "owns" may hold anything between.
        package, may_import = cells[0], cells[-1]
        named = _PACKAGE_CELL.fullmatch(package)
        if named is None or len(cells) < 3:
            raise ValueError(f"row {row!r}: the package cell must be one backticked rtlab name")
        if may_import != "—" and not _MAY_IMPORT_CELL.fullmatch(may_import):
            raise ValueError(f"row {row!r}: 'may import' must be '—' or backticked names separated by ', '")
        if named[1] in rules:
            raise ValueError(f"row {row!r}: {named[1]} is listed twice")
        rules[named[1]] = tuple(re.findall(r"`([^`]+)`", may_import))
    unknown = {(p, q) for p, allowed in rules.items() for q in allowed if q not in rules}
    if unknown:
        raise ValueError(f"'may import' names packages the table does not list: {sorted(unknown)}")
    return rules


@cache
def doc_rules() -> dict[str, tuple[str, ...]]:
    return parse_rules(DOC.read_text(encoding="utf-8"))


def package_of(module: str, packages: dict[str, tuple[str, ...]] | set[str]) -> str | None:
    """The longest table entry that is ``module`` or a dotted prefix of it."""
    found = [p for p in packages if module == p or module.startswith(p + ".")]
    return max(found, key=len, default=None)


# --- the code ----------------------------------------------------------------------------------------------


def module_files(root: Path) -> dict[str, Path]:
    """Every module under ``root/rtlab`` by its dotted name (a package by its ``__init__.py``)."""
    found: dict[str, Path] = {}
    for path in sorted((root / "rtlab").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def top_level_packages(root: Path) -> set[str]:
    """``rtlab`` itself, and each module or package directly under ``rtlab/``."""
    src = root / "rtlab"
    found = {"rtlab"} if (src / "__init__.py").is_file() else set()
    for path in src.iterdir():
        if path.suffix == ".py" and path.name != "__init__.py":
            found.add(f"rtlab.{path.stem}")
        elif path.is_dir() and any(path.rglob("*.py")):
            found.add(f"rtlab.{path.name}")
    return found


@dataclass(frozen=True)
class Import:
    """One rtlab-internal import in a source file."""

    file: str
    """The importing file, relative to the source root (``rtlab/environment/_tab.py``)."""
    line: int
    """The 1-based line of the import statement or ``import_module`` call."""
    importer: str
    """The importing module (``rtlab.environment._tab``)."""
    imported: str
    """What is imported: a module (``from M import n`` imports ``M.n`` when that is a module, else ``M``), or
    for ``from M import _n`` of a private name the path ``M._n``."""


def _is_internal(name: str) -> bool:
    return name == "rtlab" or name.startswith("rtlab.")


def _resolve(name: str, level: int, package: str) -> str:
    """A relative module name (``level`` dots, then ``name``) as seen from ``package``."""
    if level == 0:
        return name
    parts = package.split(".")
    if level > len(parts):
        raise ValueError(f"relative import beyond the top package from {package}")
    base = parts[: len(parts) - level + 1]
    return ".".join([*base, name] if name else base)


def _literal_name(node: ast.expr) -> str | None:
    """The module name of an ``import_module`` argument as far as it is literal: a string, or an f-string's
    leading text up to its last complete segment (a cut segment is kept when it starts with ``_``, since that
    alone makes the module private)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if not isinstance(node, ast.JoinedStr):
        return None
    text = ""
    for part in node.values:
        if not (isinstance(part, ast.Constant) and isinstance(part.value, str)):
            break
        text += part.value
    else:
        return text
    head, dot, cut = text.rpartition(".")
    if not dot:
        return None
    return f"{head}.{cut}" if cut.startswith("_") else head


def _is_import_call(func: ast.expr) -> bool:
    if isinstance(func, ast.Attribute):
        return (
            func.attr == "import_module" and isinstance(func.value, ast.Name) and func.value.id == "importlib"
        )
    return isinstance(func, ast.Name) and func.id in ("import_module", "__import__")


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement in ``body`` and in the bodies nested in it (functions, classes, ifs, tries, ...)."""
    for node in body:
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            nested = getattr(node, field, None)
            if isinstance(nested, list):
                yield from _statements(nested)


@contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """Parsing makes a great many small objects and no garbage cycles; the cyclic collector, run again and
    again meanwhile, would take most of the time (measured: 3 to 5 times the parse)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@cache
def imports_in(
    source: str, module: str, *, file: str, is_package: bool, modules: frozenset[str]
) -> tuple[Import, ...]:
    """Every rtlab-internal import in ``source``, the text of ``module`` (``is_package`` for an
    ``__init__.py``), wherever it sits in the file. ``modules`` are the modules that exist, to tell
    ``from M import submodule`` from ``from M import name``. (Cached: a copied tree re-reads only what changed.)"""
    package = module if is_package else module.rpartition(".")[0]
    with _no_cyclic_gc():
        tree = ast.parse(source, filename=file)
    nodes: list[ast.stmt | ast.expr] = list(_statements(tree.body))
    if "import_module" in source or "__import__" in source:  # only then can a call import a module
        nodes += [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
    found: list[Import] = []
    for node in nodes:
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(node.module or "", node.level, package)
            for alias in node.names:
                path = f"{base}.{alias.name}"
                private_name = alias.name.startswith("_") and not alias.name.endswith("__")
                targets.append(path if path in modules or private_name else base)
        elif isinstance(node, ast.Call) and _is_import_call(node.func) and node.args:
            name = _literal_name(node.args[0])
            if name is not None and name.startswith("."):
                anchor = node.args[1] if len(node.args) > 1 else None
                # import_module resolves a relative name against its package argument, taken as a package.
                if isinstance(anchor, ast.Name) and anchor.id in ("__name__", "__package__"):
                    name = importlib.util.resolve_name(name, module if anchor.id == "__name__" else package)
                elif anchor is not None and (literal := _literal_name(anchor)) is not None:
                    name = importlib.util.resolve_name(name, literal)
            if name is not None:
                targets = [name]
        found += [Import(file, node.lineno, module, t) for t in targets if _is_internal(t)]
    return tuple(dict.fromkeys(found))  # ``from M import a, b`` imports M once


def find_imports(root: Path) -> tuple[Import, ...]:
    """Every rtlab-internal import in every module under ``root/rtlab``."""
    files = module_files(root)
    names = frozenset(files)
    found: list[Import] = []
    for module, path in files.items():
        found.extend(
            imports_in(
                path.read_text(encoding="utf-8"),
                module,
                file=path.relative_to(root).as_posix(),
                is_package=path.name == "__init__.py",
                modules=names,
            )
        )
    return tuple(sorted(found, key=lambda i: (i.file, i.line, i.imported)))


@dataclass(frozen=True)
class Violation:
    """An import the rules forbid."""

    found: Import
    """The import."""
    package: str
    """The importing module's package."""
    allowed: tuple[str, ...]
    """What that package may import, by the table."""
    private_to: str | None
    """For an import of a private module across packages, the package it is private to; else ``None``."""

    @property
    def key(self) -> tuple[str, str]:
        return (self.found.file, self.found.imported)

    def __str__(self) -> str:
        where = f"{self.found.file}:{self.found.line}: {self.package} imports {self.found.imported}"
        if self.private_to is not None:
            return f"{where} (private to {self.private_to}: import its face or a public submodule)"
        return f"{where} ({self.package} may import: {', '.join(self.allowed) or '—'})"


def violations(imports: tuple[Import, ...], rules: dict[str, tuple[str, ...]]) -> list[Violation]:
    """Each import whose edge the table forbids, and each import of another package's private module."""
    out: list[Violation] = []
    for found in imports:
        package = package_of(found.importer, rules)
        target = package_of(found.imported, rules)
        if package is None or target is None:  # only when the table lacks `rtlab` itself
            raise ValueError(
                f"{found.file}:{found.line}: {found.importer} or {found.imported} is in no package"
            )
        allowed = rules[package]
        if target != package and target != LAZY and target not in allowed:
            out.append(Violation(found, package, allowed, None))
        below = found.imported[len(target) + 1 :].split(".") if found.imported != target else []
        if target != package and any(part.startswith("_") for part in below):
            out.append(Violation(found, package, allowed, target))
    return out


def check(root: Path, rules: dict[str, tuple[str, ...]]) -> list[Violation]:
    """Every violation of ``rules`` in the source tree at ``root``."""
    return violations(find_imports(root), rules)


# --- the table ---------------------------------------------------------------------------------------------


def test_table_lists_exactly_the_packages_under_rtlab() -> None:
    rules = doc_rules()
    modules = set(module_files(ROOT))
    assert sorted(set(rules) - modules) == [], "the table lists packages that do not exist"
    assert sorted(top_level_packages(ROOT) - set(rules)) == [], "packages under rtlab/ that the table lacks"


def cli_importers(imports: tuple[Import, ...], rules: dict[str, tuple[str, ...]]) -> set[tuple[str, str]]:
    """``(importer, imported)`` for each import of the command line's package (``rtlab.cli`` or any module
    in it) from a module outside it."""
    return {
        (i.importer, i.imported)
        for i in imports
        if package_of(i.imported, rules) == "rtlab.cli" and package_of(i.importer, rules) != "rtlab.cli"
    }


def test_only_main_may_import_cli(tmp_path: Path) -> None:
    """On the table and in the code. The command line is a package: its modules (``rtlab.cli._main``,
    ``rtlab.cli._reading``, ...) belong to ``rtlab.cli`` and import each other freely; from outside it only
    ``rtlab.__main__`` imports it, through its face."""
    rules = doc_rules()
    assert [p for p, allowed in rules.items() if "rtlab.cli" in allowed] == ["rtlab.__main__"]
    imports = find_imports(ROOT)
    assert cli_importers(imports, rules) == {("rtlab.__main__", "rtlab.cli")}
    inside = {i.importer for i in imports if i.importer.startswith("rtlab.cli.")}
    assert {"rtlab.cli._main", "rtlab.cli._reading"} <= inside
    assert {package_of(m, rules) for m in inside} == {"rtlab.cli"}
    # an import of one of its modules from another package is found, and is a violation
    shutil.copytree(ROOT / "rtlab", tmp_path / "rtlab", ignore=shutil.ignore_patterns("__pycache__"))
    line = _append(
        tmp_path / "rtlab/analysis/_values.py",
        "def _injected():\n    from rtlab.cli._common import _json_safe\n",
    )
    injected = find_imports(tmp_path)
    assert cli_importers(injected, rules) - cli_importers(imports, rules) == {
        ("rtlab.analysis._values", "rtlab.cli._common._json_safe")  # a private name: its path
    }
    said = [str(v) for v in violations(injected, rules) if v.found.imported.startswith("rtlab.cli")]
    assert said == [
        f"rtlab/analysis/_values.py:{line}: rtlab.analysis imports rtlab.cli._common._json_safe "
        f"(rtlab.analysis may import: {', '.join(rules['rtlab.analysis'])})",
        f"rtlab/analysis/_values.py:{line}: rtlab.analysis imports rtlab.cli._common._json_safe "
        "(private to rtlab.cli: import its face or a public submodule)",
    ]


def test_table_is_layered() -> None:
    """No cycle among packages: each may import only what comes before it in some order."""
    rules = doc_rules()
    done: set[str] = set()
    while len(done) < len(rules):
        ready = {p for p, allowed in rules.items() if p not in done and set(allowed) - {p} <= done}
        assert ready, f"the table has a cycle among {sorted(set(rules) - done)}"
        done |= ready


def test_malformed_table_is_refused() -> None:
    good = f"{SECTION}\n\n{HEADER}\n|---|---|---|\n| `rtlab.a` | a | — |\n| `rtlab.b` | b | `rtlab.a` |\n"
    assert parse_rules(good) == {"rtlab.a": (), "rtlab.b": ("rtlab.a",)}
    with pytest.raises(ValueError, match="does not list"):
        parse_rules(good.replace("`rtlab.a` |\n", "`rtlab.c` |\n"))
    with pytest.raises(ValueError, match="may import"):
        parse_rules(good.replace("| — |", "| rtlab.b |"))
    with pytest.raises(ValueError, match="no section"):
        parse_rules(good.replace(SECTION, "## Other"))


# --- the code against the table ----------------------------------------------------------------------------


def test_imports_follow_the_table() -> None:
    assert [str(v) for v in check(ROOT, doc_rules())] == []


def _append(path: Path, text: str) -> int:
    """Append ``text`` to ``path``; the line number its second line gets (the line after a ``def``)."""
    before = path.read_text(encoding="utf-8")
    if not before.endswith("\n"):
        before += "\n"
    path.write_text(before + text, encoding="utf-8")
    return before.count("\n") + 2


def test_checker_reports_injected_violations(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "rtlab", tmp_path / "rtlab", ignore=shutil.ignore_patterns("__pycache__"))
    # A forbidden edge inside a function body, and a private module of another package on an allowed edge.
    tab_line = _append(
        tmp_path / "rtlab/environment/_tab.py",
        "def _injected():\n    from rtlab.analysis import values_frame\n",
    )
    values_line = _append(
        tmp_path / "rtlab/analysis/_values.py",
        "def _injected():\n    from rtlab.environment._tab import Tab\n",
    )
    before = {str(v) for v in check(ROOT, doc_rules())}
    added = sorted(str(v) for v in check(tmp_path, doc_rules()) if str(v) not in before)
    assert added == [
        f"rtlab/analysis/_values.py:{values_line}: rtlab.analysis imports rtlab.environment._tab "
        "(private to rtlab.environment: import its face or a public submodule)",
        f"rtlab/environment/_tab.py:{tab_line}: rtlab.environment imports rtlab.analysis "
        f"(rtlab.environment may import: {', '.join(doc_rules()['rtlab.environment'])})",
    ]


def test_resolution_of_relative_and_submodule_imports() -> None:
    modules = frozenset(
        {"rtlab", "rtlab.a", "rtlab.a._x", "rtlab.a.sub", "rtlab.a.sub.leaf", "rtlab.b", "rtlab.b.pub"}
    )
    source = """
from . import leaf, name
from .. import _x
from ...b import pub, thing, _hidden, __version__
import rtlab.b.pub as p
from rtlab.a import sub
from rtlab import b
import importlib
importlib.import_module(".pub", "rtlab.b")
importlib.import_module(f"rtlab.b.{p}")
importlib.import_module(f"rtlab.a._{p}")
import os
def f():
    if p:
        from rtlab.b import pub
"""
    found = imports_in(source, "rtlab.a.sub.mod", file="f", is_package=False, modules=modules)
    assert sorted((i.line, i.imported) for i in found) == [
        (2, "rtlab.a.sub"),  # ``name`` is not a module: the package is what is imported
        (2, "rtlab.a.sub.leaf"),  # ``leaf`` is a submodule
        (3, "rtlab.a._x"),
        (4, "rtlab.b"),  # thing and __version__ (dunder names are not private), once
        (4, "rtlab.b._hidden"),  # a private name of another module counts as a private path
        (4, "rtlab.b.pub"),
        (5, "rtlab.b.pub"),
        (6, "rtlab.a.sub"),
        (7, "rtlab.b"),
        (9, "rtlab.b.pub"),
        (10, "rtlab.b"),  # as far as literal
        (11, "rtlab.a._"),  # the cut segment is private whatever follows
        (15, "rtlab.b.pub"),
    ]
    # In an __init__, "." is the package itself.
    in_init = imports_in(
        "from . import _x\nfrom ._x import y\n", "rtlab.a", file="f", is_package=True, modules=modules
    )
    assert [(i.line, i.imported) for i in in_init] == [(1, "rtlab.a._x"), (2, "rtlab.a._x")]


# --- import circles ----------------------------------------------------------------------------------------

Graph = dict[str, dict[str, Import]]
"""Who imports whom: each importer, the names it imports, each with the first import statement that does."""


def module_graph(imports: Iterable[Import]) -> Graph:
    """The graph of rtlab-internal imports between modules: an edge for every import :func:`find_imports`
    counts (module-level, in a function or class, under ``if TYPE_CHECKING:``, a literal ``import_module``); a
    face is a module like any other, so ``from rtlab.records import Step`` is an edge to ``rtlab.records``, and
    the face's own imports lead on from there. A module importing itself is no edge."""
    graph: Graph = {}
    for found in sorted(imports, key=lambda i: (i.file, i.line, i.imported)):
        if found.imported != found.importer:
            graph.setdefault(found.importer, {}).setdefault(found.imported, found)
    return graph


def package_graph(imports: Iterable[Import], packages: dict[str, tuple[str, ...]] | set[str]) -> Graph:
    """The same imports between packages (each module in the longest of ``packages`` that prefixes its name);
    an import within a package is no edge."""
    graph: Graph = {}
    for found in sorted(imports, key=lambda i: (i.file, i.line, i.imported)):
        source, target = package_of(found.importer, packages), package_of(found.imported, packages)
        if source is not None and target is not None and source != target:
            graph.setdefault(source, {}).setdefault(target, found)
    return graph


def _components(graph: Graph) -> list[list[str]]:
    """The strongly connected components of ``graph`` (Tarjan's algorithm, without recursion), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> Iterator[str]:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        return iter(sorted(graph.get(node, {})))

    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, visit(root))]
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    work.append((child, visit(child)))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while not component or component[-1] != node:
                    component.append(stack.pop())
                    on_stack.discard(component[-1])
                found.append(sorted(component))
    return found


def _shortest_circle(graph: Graph, members: set[str]) -> list[str]:
    """The shortest way from the first of ``members`` (a strongly connected set) back to itself, through
    ``members`` only, its neighbours taken in sorted order (so the same code names the same circle)."""
    start = min(members)
    previous: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for child in sorted(graph.get(node, {})):
            if child == start:
                path = [node]
                while path[-1] != start:
                    path.append(previous[path[-1]])
                return [*reversed(path), start]
            if child in members and child not in previous:
                previous[child] = node
                queue.append(child)
    raise ValueError(f"{sorted(members)} is not strongly connected")


def circles(graph: Graph) -> list[list[str]]:
    """One circle for every set of nodes that import each other, directly or not: its first node (in sorted
    order), the shortest way back to it, and that node again at the end; in the order of their first nodes."""
    return sorted(_shortest_circle(graph, set(c)) for c in _components(graph) if len(c) > 1)


def describe_circle(circle: list[str], graph: Graph) -> str:
    """A circle as its names, then the import statement behind each step (file and line)."""
    steps = [graph[a][b] for a, b in zip(circle, circle[1:], strict=False)]
    where = "; ".join(f"{s.file}:{s.line} imports {s.imported}" for s in steps)
    return f"{' -> '.join(circle)} ({where})"


def test_no_import_circles() -> None:
    """No module imports itself through others (inside a package or across packages), and no package does."""
    imports = find_imports(ROOT)
    modules = module_graph(imports)
    assert [describe_circle(c, modules) for c in circles(modules)] == []
    packages = package_graph(imports, doc_rules())
    assert [describe_circle(c, packages) for c in circles(packages)] == []


def test_circles_are_found_and_named() -> None:
    def imp(importer: str, imported: str, line: int = 1) -> Import:
        return Import(f"{importer.replace('.', '/')}.py", line, importer, imported)

    edges = [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "d"), ("e", "f"), ("f", "e"), ("b", "a")]
    graph = module_graph([imp(f"rtlab.{x}", f"rtlab.{y}") for x, y in edges])
    assert circles(graph) == [["rtlab.a", "rtlab.b", "rtlab.a"], ["rtlab.e", "rtlab.f", "rtlab.e"]]
    assert describe_circle(["rtlab.e", "rtlab.f", "rtlab.e"], graph) == (
        "rtlab.e -> rtlab.f -> rtlab.e (rtlab/e.py:1 imports rtlab.f; rtlab/f.py:1 imports rtlab.e)"
    )
    # the longer way round is found when it is the only one
    graph = module_graph([imp(f"rtlab.{x}", f"rtlab.{y}") for x, y in edges if (x, y) != ("b", "a")])
    assert circles(graph)[0] == ["rtlab.a", "rtlab.b", "rtlab.c", "rtlab.a"]
    # a long chain does not reach the recursion limit
    chain = [imp(f"rtlab.m{i}", f"rtlab.m{i + 1}") for i in range(5000)] + [imp("rtlab.m5000", "rtlab.m0")]
    assert len(circles(module_graph(chain))[0]) == 5002


def test_checker_reports_injected_circles(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "rtlab", tmp_path / "rtlab", ignore=shutil.ignore_patterns("__pycache__"))
    # Inside a package, in a function body: the simulated server's script would import the server.
    scripted = _append(
        tmp_path / "rtlab/llm/_scripted.py",
        "def _injected():\n    from rtlab.llm._simulated import SimulatedServer\n",
    )
    # Under TYPE_CHECKING: a record module importing its own face (which imports it).
    records = _append(
        tmp_path / "rtlab/records/_records.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from rtlab.records import Step\n",
    )
    # Across packages, through a literal import_module: errors would import io, which imports errors.
    errors = _append(
        tmp_path / "rtlab/errors.py",
        "def _injected():\n    import importlib\n    return importlib.import_module('rtlab.io')\n",
    )
    imports = find_imports(tmp_path)
    modules = module_graph(imports)
    found = [describe_circle(c, modules) for c in circles(modules)]
    assert len(found) == 3, found
    io_circle, llm_circle, records_circle = found
    assert io_circle.startswith("rtlab.errors -> rtlab.io -> rtlab.io._") and io_circle.count(" -> ") == 3
    assert f"rtlab/errors.py:{errors + 1} imports rtlab.io;" in io_circle
    assert llm_circle == (
        "rtlab.llm._scripted -> rtlab.llm._simulated -> rtlab.llm._scripted "
        f"(rtlab/llm/_scripted.py:{scripted} imports rtlab.llm._simulated; "
        f"rtlab/llm/_simulated.py:{_line_of(ROOT / 'rtlab/llm/_simulated.py', 'import Scripted')} "
        "imports rtlab.llm._scripted)"
    )
    assert records_circle == (
        "rtlab.records -> rtlab.records._records -> rtlab.records "
        f"(rtlab/records/__init__.py:{_line_of(ROOT / 'rtlab/records/__init__.py', '._records import')} "
        f"imports rtlab.records._records; rtlab/records/_records.py:{records + 1} imports rtlab.records)"
    )
    packages = package_graph(imports, doc_rules())
    assert [describe_circle(c, packages) for c in circles(packages)] == [
        f"rtlab.errors -> rtlab.io -> rtlab.errors (rtlab/errors.py:{errors + 1} imports rtlab.io; "
        f"rtlab/io/{_first_importer_of_errors(imports)})"
    ]


def _line_of(path: Path, text: str) -> int:
    """The 1-based line of the first line of ``path`` that holds ``text``."""
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in line)


def _first_importer_of_errors(imports: tuple[Import, ...]) -> str:
    """Where the package graph's edge rtlab.io -> rtlab.errors comes from: the first such import, in
    :func:`package_graph`'s order."""
    first = min(
        (i for i in imports if i.importer.startswith("rtlab.io") and i.imported == "rtlab.errors"),
        key=lambda i: (i.file, i.line, i.imported),
    )
    return f"{first.file.removeprefix('rtlab/io/')}:{first.line} imports rtlab.errors"


# --- the lazy faces ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Face:
    """A package ``__init__`` that uses ``rtlab._lazy.attach``."""

    package: str
    """The package (``rtlab.environment``)."""
    attached: frozenset[tuple[str, str]]
    """Its attach table, as (absolute module, name) pairs."""
    type_checked: frozenset[tuple[str, str]]
    """Its ``if TYPE_CHECKING:`` imports, as (absolute module, name bound) pairs."""
    renamed: tuple[str, ...]
    """``TYPE_CHECKING`` imports bound under another name (an attach table cannot rename)."""


def lazy_faces(root: Path) -> list[Face]:
    """Every package ``__init__`` under ``root/rtlab`` that calls ``attach``."""
    faces = []
    for package, path in module_files(root).items():
        if path.name != "__init__.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = [
            node.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id == "attach"
        ]
        if not calls:
            continue
        assert len(calls) == 1, f"{path}: more than one attach call"
        table: dict[str, tuple[str, ...]] = ast.literal_eval(calls[0].args[1])
        attached = {(importlib.util.resolve_name(m, package), n) for m, names in table.items() for n in names}
        type_checked: set[tuple[str, str]] = set()
        renamed: list[str] = []
        for node in tree.body:
            if isinstance(node, ast.If) and ast.unparse(node.test) in (
                "TYPE_CHECKING",
                "typing.TYPE_CHECKING",
            ):
                for stmt in node.body:
                    assert isinstance(stmt, ast.ImportFrom), f"{path}:{stmt.lineno}: not a from-import"
                    module = _resolve(stmt.module or "", stmt.level, package)
                    for alias in stmt.names:
                        type_checked.add((module, alias.asname or alias.name))  # the name it binds
                        if alias.asname not in (None, alias.name):
                            renamed.append(f"{alias.name} as {alias.asname}")
        faces.append(Face(package, frozenset(attached), frozenset(type_checked), tuple(renamed)))
    return faces


def face_mismatches(faces: list[Face]) -> list[str]:
    """Where a face's ``TYPE_CHECKING`` imports and its attach table disagree, one line each."""
    out = []
    for face in faces:
        out += [
            f"{face.package}: {n} from {m} is attached, not type-checked"
            for m, n in sorted(face.attached - face.type_checked)
        ]
        out += [
            f"{face.package}: {n} from {m} is type-checked, not attached"
            for m, n in sorted(face.type_checked - face.attached)
        ]
        out += [f"{face.package}: {r} (an attach table cannot rename)" for r in face.renamed]
    return out


def test_lazy_faces_mirror_their_attach_tables() -> None:
    faces = lazy_faces(ROOT)
    assert {"rtlab", "rtlab.environment", "rtlab.analysis", "rtlab.llm"} <= {f.package for f in faces}
    assert face_mismatches(faces) == []


def test_face_check_reports_a_mismatch(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "rtlab", tmp_path / "rtlab", ignore=shutil.ignore_patterns("__pycache__"))
    face = tmp_path / "rtlab/environment/__init__.py"
    text = face.read_text(encoding="utf-8")
    line = "    from rtlab.environment._tab import Tab as Tab\n"
    assert line in text
    face.write_text(
        text.replace(line, "    from rtlab.environment._tab import Tab as Tabs\n"), encoding="utf-8"
    )
    assert face_mismatches(lazy_faces(tmp_path)) == [
        "rtlab.environment: Tab from rtlab.environment._tab is attached, not type-checked",
        "rtlab.environment: Tabs from rtlab.environment._tab is type-checked, not attached",
        "rtlab.environment: Tab as Tabs (an attach table cannot rename)",
    ]


def test_lazy_face_names_resolve() -> None:
    for face in lazy_faces(ROOT):
        package = importlib.import_module(face.package)
        for module, name in sorted(face.attached):
            got, wanted = getattr(package, name), getattr(importlib.import_module(module), name)
            # ``rtlab.ingest`` is both a subpackage of rtlab and its main function: once imported, the
            # subpackage binds the name and is callable (rtlab/ingest/__init__.py), which is intended.
            assert got is wanted or got is sys.modules.get(f"{face.package}.{name}"), f"{face.package}.{name}"
