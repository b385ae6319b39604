"""Notebook display: the HTML primitives every record's ``_repr_html_`` is made of (escaping, a table truncated
with counts, a text with marked spans and its clip markers) and the compact plain-text fallback. It works on
plain data (strings, rows, spans), so the records and the environment can use it for their own types; it
imports nothing of rtlab but its errors. The whole-run page is :mod:`rtlab.view`'s."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtlab._lazy import attach

if TYPE_CHECKING:
    from rtlab.display._html import MAX_ROWS as MAX_ROWS
    from rtlab.display._html import MAX_TEXT as MAX_TEXT
    from rtlab.display._html import Span as Span
    from rtlab.display._html import block as block
    from rtlab.display._html import escape as escape
    from rtlab.display._html import marked_text as marked_text
    from rtlab.display._html import one_line as one_line
    from rtlab.display._html import side_by_side as side_by_side
    from rtlab.display._html import table as table
    from rtlab.display._html import text_table as text_table

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._html": (
            "MAX_ROWS",
            "MAX_TEXT",
            "Span",
            "escape",
            "table",
            "text_table",
            "marked_text",
            "one_line",
            "side_by_side",
            "block",
        ),
    },
)
