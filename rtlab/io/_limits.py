"""The size limits on what rtlab reads from outside (a decompressed archive member, an HTTP response body),
each stated with a default and raised by an option or an environment variable: one way to write a size, one
order of precedence."""

from __future__ import annotations

import os
import re

from rtlab.errors import RtlabError

_SIZE = re.compile(r"\s*(\d+)\s*([KMGT]?)(?:i?B)?\s*", re.IGNORECASE)
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def parse_size(text: str, *, name: str) -> int:
    """A positive number of bytes written ``268435456``, ``256M``, ``256MiB`` or ``2G`` (powers of 1024); any
    other text is an :class:`~rtlab.errors.RtlabError` naming ``name`` (where the text came from)."""
    m = _SIZE.fullmatch(text)
    value = int(m.group(1)) * _UNITS[m.group(2).upper()] if m else 0
    if value <= 0:
        raise RtlabError(
            f"{name}={text!r}: expected a positive number of bytes, such as 268435456, 256M or 2G"
        )
    return value


def byte_limit(given: int | None, env: str, default: int) -> int:
    """A limit in bytes: ``given`` when set, else the environment variable ``env`` (:func:`parse_size`), else
    ``default``."""
    if given is not None:
        if given <= 0:
            raise RtlabError(f"{env}: a size limit must be a positive number of bytes, not {given}")
        return given
    text = os.environ.get(env)
    return default if text is None or not text.strip() else parse_size(text, name=env)


def describe_size(n: int) -> str:
    """``n`` bytes for a message: the number, and MiB past one."""
    return f"{n} bytes" if n < 2**20 else f"{n} bytes ({n / 2**20:,.0f} MiB)"
