"""Errors that name where bad input is: file, line and field."""

from __future__ import annotations

from pathlib import Path


class RtlabError(Exception):
    """Base class for errors rtlab raises on purpose."""


class ReaderError(RtlabError):
    """Malformed input: carries the file, the 1-based line (or list position) and the field at fault."""

    def __init__(self, path: str | Path, message: str, *, line: int | None = None, field: str | None = None):
        self.path = str(path)
        self.line = line
        self.field = field
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
        if self.field:
            where += f" [{self.field}]"
        return f"{where}: {self.message}"


class TooLargeError(ReaderError):
    """Input that would take more than a stated limit to hold (an archive member that decompresses past its
    limit: a zip bomb); the message names the file, the part at fault, the limit and how to raise it."""


class UnknownFormatError(RtlabError):
    """No reader recognised a path; the message lists the known formats and what each looked for."""


class UnitError(RtlabError, RuntimeError):
    """A unit of a batch (a file or run folder) failed and the batch was asked to stop (``--strict``); the
    message names the unit and what went wrong. A ``RuntimeError`` too, as :func:`rtlab.runner.replay_paths`
    raised before."""
