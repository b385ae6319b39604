"""Files: atomic writes, the one JSON-lines writer, UTF-8 and JSON(-lines) reading whose errors name the file,
line and field, a memo for files many runs share, and the size limits on what is read from outside
(``parse_size``, ``byte_limit``). Imports nothing of rtlab but its errors."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtlab._lazy import attach

if TYPE_CHECKING:
    from rtlab.io._files import atomic_open as atomic_open
    from rtlab.io._files import blank_text as blank_text
    from rtlab.io._files import cached_by_file as cached_by_file
    from rtlab.io._files import decode_text as decode_text
    from rtlab.io._files import dump_json_lines as dump_json_lines
    from rtlab.io._files import field as field
    from rtlab.io._files import first_json_line as first_json_line
    from rtlab.io._files import first_json_value as first_json_value
    from rtlab.io._files import head_bytes as head_bytes
    from rtlab.io._files import head_json_lines as head_json_lines
    from rtlab.io._files import head_text as head_text
    from rtlab.io._files import iter_json_lines as iter_json_lines
    from rtlab.io._files import iter_json_values as iter_json_values
    from rtlab.io._files import json_lines_refused as json_lines_refused
    from rtlab.io._files import load_json as load_json
    from rtlab.io._files import loads as loads
    from rtlab.io._files import one_head_read as one_head_read
    from rtlab.io._files import parse_json as parse_json
    from rtlab.io._files import parse_json_by as parse_json_by
    from rtlab.io._files import parse_json_each as parse_json_each
    from rtlab.io._files import parse_utf8_json as parse_utf8_json
    from rtlab.io._files import read_text as read_text
    from rtlab.io._files import repair_escapes as repair_escapes
    from rtlab.io._files import skip_reason as skip_reason
    from rtlab.io._files import without_surrogates as without_surrogates
    from rtlab.io._files import write_json_lines as write_json_lines
    from rtlab.io._limits import byte_limit as byte_limit
    from rtlab.io._limits import describe_size as describe_size
    from rtlab.io._limits import parse_size as parse_size

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._files": (
            "atomic_open",
            "write_json_lines",
            "dump_json_lines",
            "cached_by_file",
            "read_text",
            "blank_text",
            "decode_text",
            "head_bytes",
            "head_json_lines",
            "head_text",
            "first_json_line",
            "first_json_value",
            "iter_json_lines",
            "iter_json_values",
            "json_lines_refused",
            "load_json",
            "one_head_read",
            "loads",
            "parse_json",
            "parse_json_by",
            "parse_json_each",
            "parse_utf8_json",
            "repair_escapes",
            "skip_reason",
            "without_surrogates",
            "field",
        ),
        "._limits": ("parse_size", "byte_limit", "describe_size"),
    },
)
