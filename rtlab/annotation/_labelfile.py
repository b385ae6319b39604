"""Label files on disk, CSV or Parquet, read once for every annotation stage: the rows as read, each with where
it is in the file, so that any rule a caller checks (agreement's, the human import's) raises an error naming
the file, the line (the row, for Parquet) and the column."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from rtlab.errors import ReaderError
from rtlab.io import read_text

if TYPE_CHECKING:
    import pandas as pd

PARQUET_SUFFIXES = (".parquet", ".pq")
"""A file with one of these suffixes (any case) is read as Parquet, any other as CSV."""


@dataclass(frozen=True)
class LabelFile:
    """A label file as read, before any rule about labels is checked."""

    path: Path
    """The file."""
    frame: pd.DataFrame
    """Its rows, columns as in the file: CSV cells as strings (``""`` for an empty one), Parquet values as
    stored."""
    positions: tuple[int, ...]
    """Where each row of :attr:`frame` is in the file: the 1-based line it starts on (CSV, whose header is line
    1; a quoted cell may span lines), or its 1-based row (Parquet)."""
    unit: Literal["line", "row"]
    """What :attr:`positions` count: ``line`` (CSV) or ``row`` (Parquet)."""

    @property
    def columns(self) -> list[str]:
        """The column names, in file order."""
        return [str(c) for c in self.frame.columns]

    def place(self, row: int) -> str:
        """Where row ``row`` (0-based, into :attr:`frame`) is, for a message: ``line 5`` or ``row 2``."""
        return f"{self.unit} {self.positions[row]}"

    def error(self, message: str, *, rows: Sequence[int] = (), column: str | None = None) -> ReaderError:
        """A :class:`ReaderError` naming the file, the rows at fault (0-based, into :attr:`frame`) and the column.

        Its ``line`` is the position of the last row given (a Parquet row counts as a line, as list positions
        do for :class:`ReaderError`); two rows are both named in the message (``on lines 2 and 5``). No row:
        the header's fault, line 1 of a CSV file (a Parquet file has no header line).
        """
        if not rows:
            return ReaderError(self.path, message, line=1 if self.unit == "line" else None, field=column)
        where = [self.positions[r] for r in rows]
        if len(where) > 1:
            message += f" on {self.unit}s {where[0]} and {where[1]}"
        return ReaderError(self.path, message, line=where[-1], field=column)


def read_label_file(path: str | Path) -> LabelFile:
    """Read a label file: Parquet by its suffix (:data:`PARQUET_SUFFIXES`), else CSV (UTF-8, a byte-order mark
    allowed, quoted newlines allowed, blank lines skipped; every record as many fields as the header, no column
    name repeated). A missing, unreadable or malformed file raises :class:`ReaderError` with its line."""
    path = Path(path)
    if not path.is_file():
        raise ReaderError(path, "no such file")
    if path.suffix.lower() in PARQUET_SUFFIXES:
        return _read_parquet(path)
    return _read_csv(path)


def _read_csv(path: Path) -> LabelFile:
    import pandas as pd

    text = read_text(path).removeprefix("\ufeff")
    if not text.strip():
        raise ReaderError(path, "empty file: expected a header with columns item, annotator, label", line=1)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
        rows: list[list[str]] = []
        lines: list[int] = []
        start = reader.line_num + 1
        for record in reader:
            if record:
                if len(record) != len(header):
                    raise ReaderError(
                        path,
                        f"expected {len(header)} fields as in the header, found {len(record)}",
                        line=start,
                    )
                rows.append(record)
                lines.append(start)
            start = reader.line_num + 1
    except csv.Error as exc:
        raise ReaderError(path, f"malformed CSV: {exc}", line=reader.line_num) from None
    if len(set(header)) != len(header):
        raise ReaderError(path, f"repeated column names in header: {header}", line=1)
    return LabelFile(path, pd.DataFrame(rows, columns=header, dtype=object), tuple(lines), "line")


def _read_parquet(path: Path) -> LabelFile:
    import pandas as pd

    try:
        frame = pd.read_parquet(path)
    except Exception as exc:  # pyarrow raises several unrelated types for unreadable files
        raise ReaderError(path, f"not a readable Parquet file: {exc}") from None
    return LabelFile(path, frame, tuple(range(1, len(frame) + 1)), "row")
