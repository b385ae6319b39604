"""Package faces that import their parts on first use (PEP 562), so that ``import rtlab.X`` stays cheap.

Every package of rtlab lists its public names and the private module each lives in; a name is imported
when it is first asked for. Type checkers see the same names through ``if TYPE_CHECKING:`` imports in the
package's ``__init__``; a test checks that those imports and the table below agree.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from typing import Any


def attach(
    package: str, parts: Mapping[str, tuple[str, ...]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``__getattr__``, ``__dir__`` and ``__all__`` for ``package``, whose public names live in ``parts``:
    ``{private module (relative, e.g. "._tab"): names}``."""
    where: dict[str, str] = {}
    for module, names in parts.items():
        for name in names:
            if name in where:
                raise ValueError(f"{package}: {name!r} is exported by both {where[name]} and {module}")
            where[name] = importlib.util.resolve_name(module, package)
    public = sorted(where)

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            if not name.startswith("_") and importlib.util.find_spec(f"{package}.{name}") is not None:
                return importlib.import_module(f"{package}.{name}")  # a subpackage, e.g. rtlab.synth
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        importlib.import_module(package).__dict__[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(public) | set(importlib.import_module(package).__dict__))

    return __getattr__, __dir__, public
