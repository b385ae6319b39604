"""``rtlab.open``: the name users type for :func:`rtlab.store._open.open_store` (kept apart, so that no module
that opens files has the builtin ``open`` shadowed)."""

from __future__ import annotations

from rtlab.store._open import open_store as open  # noqa: A004

__all__ = ["open"]
