"""Every public record documents itself and each of its fields: a class docstring, and a string literal on the
line after each field (as :class:`rtlab.records.TokenUsage` shows).

A public record is a dataclass, NamedTuple or TypedDict class that a package face exports (a name in its
``__all__``), or that a public module (no path segment starting with ``_``) defines under a public name. The
check reads each class's source with :mod:`ast`; a field is an annotated assignment in the class body that is
not a ``ClassVar``.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import sys
import typing
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import ClassVar, NamedTuple

import pytest
from conftest import ROOT

PACKAGE = ROOT / "rtlab"


_RECORD_BASES = {"NamedTuple", "TypedDict"}


def is_record(obj: object) -> bool:
    """A dataclass, NamedTuple or TypedDict class."""
    if not inspect.isclass(obj):
        return False
    is_named_tuple = issubclass(obj, tuple) and hasattr(obj, "_fields")
    return dataclasses.is_dataclass(obj) or typing.is_typeddict(obj) or is_named_tuple


def _name(node: ast.expr) -> str | None:
    """The last name of ``x``, ``a.x`` or ``x(...)`` (a decorator or a base)."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else None


def _is_record_node(node: ast.ClassDef, records: set[str]) -> bool:
    """``@dataclass``, or a base that is NamedTuple, TypedDict or a record of the same module."""
    if any(_name(d) == "dataclass" for d in node.decorator_list):
        return True
    return any(_name(b) in _RECORD_BASES | records for b in node.bases)


@cache
def _tree(module: str) -> ast.Module:
    path = sys.modules[module].__file__
    assert path is not None, module
    return ast.parse(Path(path).read_text(encoding="utf-8"))


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _class_node(module: str, qualname: str) -> ast.ClassDef:
    body: list[ast.stmt] = _tree(module).body
    node: ast.ClassDef | None = None
    for part in qualname.split("."):
        node = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == part), None)
        assert node is not None, f"{module}.{qualname}: class not found in its module's source"
        body = node.body
    assert node is not None
    return node


def public_records() -> dict[str, tuple[str, ast.ClassDef]]:
    """``module.Class`` -> (module, class node) for every public record."""
    found: dict[str, tuple[str, ast.ClassDef]] = {}
    for init in sorted(PACKAGE.rglob("__init__.py")):
        face = importlib.import_module(_module_name(init))
        for name in face.__all__:
            obj = getattr(face, name)
            if is_record(obj):
                found[f"{obj.__module__}.{obj.__qualname__}"] = (
                    obj.__module__,
                    _class_node(obj.__module__, obj.__qualname__),
                )
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if any(p.startswith("_") for p in parts if p != "__init__"):
            continue
        module = _module_name(path)
        importlib.import_module(module)
        records: set[str] = set()
        for node in _tree(module).body:
            if isinstance(node, ast.ClassDef) and _is_record_node(node, records):
                records.add(node.name)
                if not node.name.startswith("_"):
                    found.setdefault(f"{module}.{node.name}", (module, node))
    return found


def _is_classvar(annotation: ast.expr) -> bool:
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        annotation = ast.parse(annotation.value, mode="eval").body
    if isinstance(annotation, ast.Subscript):
        annotation = annotation.value
    return _name(annotation) == "ClassVar"


def _is_docstring(node: ast.stmt | None) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def fields_of(node: ast.ClassDef) -> list[tuple[str, bool]]:
    """(field name, documented) for each field of a class, in order."""
    out = []
    for stmt, after in zip(node.body, [*node.body[1:], None], strict=True):
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            if not _is_classvar(stmt.annotation):
                out.append((stmt.target.id, _is_docstring(after)))
    return out


def undocumented(module: str, node: ast.ClassDef) -> list[str]:
    """``module.Class`` when the class lacks a docstring, and ``module.Class.field`` for each field that does."""
    where = f"{module}.{node.name}"
    missing = [] if ast.get_docstring(node) is not None else [where]
    return missing + [f"{where}.{name}" for name, documented in fields_of(node) if not documented]


def check(records: Iterable[tuple[str, ast.ClassDef]], *, skip: frozenset[str] = frozenset()) -> None:
    """Fail, naming every class and field without a docstring (those in ``skip`` aside)."""
    missing = [m for module, node in records for m in undocumented(module, node) if m not in skip]
    if missing:
        raise AssertionError(f"{len(missing)} without a docstring:\n  " + "\n  ".join(missing))


def test_every_public_record_field_has_a_docstring() -> None:
    check(public_records().values())


def test_records_are_found_through_faces_and_public_modules() -> None:
    found = public_records()
    for name in (
        "rtlab.records._records.Trajectory",  # rtlab.records' face
        "rtlab.environment._tab.ReadEntry",  # rtlab.environment's face
        "rtlab.environment._capture.core.CapturedRead",  # a private subpackage's face
        "rtlab.text._shell.Word",  # a NamedTuple
        "rtlab.ingest.readers.pi.PiParse",  # a public module, not exported by a face
        "rtlab.synth.agents.RunResult",
        "rtlab.synth.world.World",  # rtlab.synth's own lazy face
    ):
        assert name in found, name
    assert not any(name.rsplit(".", 1)[-1].startswith("_") for name in found)


# A small record of each kind, to show that the check fails where it should.


@dataclass
class _Sample:
    """A record with one documented field, one bare field and a class constant."""

    documented: int = 0
    """A docstring under the field."""
    bare: str = ""
    LIMIT: ClassVar[int] = 3


class _Bare(NamedTuple):
    first: int
    """A docstring under the field."""
    second: int


def test_check_fails_on_a_field_without_a_docstring() -> None:
    sample = (__name__, _class_node(__name__, "_Sample"))
    assert fields_of(sample[1]) == [("documented", True), ("bare", False)]
    with pytest.raises(AssertionError) as failure:
        check([sample])
    assert str(failure.value) == f"1 without a docstring:\n  {__name__}._Sample.bare"
    check([sample], skip=frozenset({f"{__name__}._Sample.bare"}))


def test_check_fails_on_a_class_without_a_docstring() -> None:
    bare = (__name__, _class_node(__name__, "_Bare"))
    assert is_record(_Bare) and _is_record_node(bare[1], set())
    assert undocumented(*bare) == [f"{__name__}._Bare", f"{__name__}._Bare.second"]
    with pytest.raises(AssertionError):
        check([bare])
