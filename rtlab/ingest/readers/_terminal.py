"""A small terminal screen model: raw terminal output (ANSI escape sequences, carriage returns, backspaces,
cursor moves, screen clears) turned into the text a screen would show.

It keeps every row ever written (the scrollback and the visible screen, ``height`` rows from ``top``), so the
text between two places in the output can be taken at any moment: what a command printed, as it stood on the
screen when the next prompt appeared (a progress line redrawn by ``\\r`` shows its last state; a cleared screen
shows nothing). It interprets what shells and line-oriented programs use: printable text with autowrap, ``\\r``,
``\\n``, ``\\b``, ``\\t``, CSI cursor moves (``A B C D E F G H f d``), erases (``J K X``), character
insert/delete (``@ P``); SGR colours, OSC titles, charset and mode switches are dropped. Full-screen programs
draw on the alternate screen (``?1049h`` / ``?47h`` / ``?1047h``): their screens are kept apart and leave
nothing in the main rows, as on a real terminal. Bracketed-paste switches (``?2004h`` before a prompt is read,
``?2004l`` after the line is accepted, written by bash 5.1 and readline) are reported to the caller, who uses
them to find prompts. It is not a full VT100: scrolling regions, double-width characters and insert/delete
lines are approximated.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

_ESC = "\x1b"
_PRINTABLE = re.compile("[^\x00-\x1f\x7f]+")
"""A run of printable characters: every one from a space up but DEL (an escape is below a space)."""
_TAB = 8
_CSI = re.compile("\x1b\\[([^@-~]*)([@-~])")
"""A whole control sequence: ``ESC [``, its parameters (any characters below ``@`` or above ``~``), its final
character. One cut short (no final yet) is left to :meth:`Screen._escape`."""
_INERT = frozenset("mrstnqc")
"""Final characters of control sequences that change nothing the screen model keeps (colours and other SGR
attributes, scrolling regions, cursor saves, reports): not interpreted."""


@dataclass
class Mark:
    """A place in the output: a row (an index into every row written) and a column."""

    row: int
    """Row index, from 0 (scrollback included)."""
    col: int
    """Column, from 0."""


@dataclass
class _Buffer:
    rows: list[list[str]] = field(default_factory=lambda: [[]])
    wrapped: list[bool] = field(default_factory=lambda: [False])
    row: int = 0
    col: int = 0
    top: int = 0


class Screen:
    """Feed it output (:meth:`feed`); take text between marks (:meth:`text`). ``on_mode`` is called with
    ``("2004h" | "2004l", mark)`` when a bracketed-paste switch is met, with the cursor where it is."""

    def __init__(self, width: int, height: int, on_mode: Callable[[str, Mark], None] | None = None):
        self.width = max(1, width)
        self.height = max(1, height)
        self.on_mode = on_mode
        self.main = _Buffer()
        self.alt: _Buffer | None = None
        self.fullscreen_entries = 0
        """How many times a program switched to the alternate screen."""
        self._pending = ""  # an escape sequence cut at the end of the last chunk
        self._saved = (0, 0)

    @property
    def buf(self) -> _Buffer:
        return self.alt if self.alt is not None else self.main

    @property
    def on_alt(self) -> bool:
        return self.alt is not None

    def mark(self) -> Mark:
        """Where the cursor is on the main screen."""
        return Mark(self.main.row, self.main.col)

    def resize(self, width: int, height: int) -> None:
        self.width, self.height = max(1, width), max(1, height)

    # --- text out ---------------------------------------------------------------------------------------

    def row_text(self, row: int, start: int = 0, end: int | None = None) -> str:
        b = self.main
        if row < 0 or row >= len(b.rows):
            return ""
        cells = b.rows[row][start:end]
        return "".join(cells).replace("\x00", " ")

    def text(self, start: Mark, end: Mark) -> str:
        """The main screen's text from ``start`` up to ``end`` (exclusive), rows joined by ``\\n`` (a row that
        autowrapped joins the next without one), trailing blanks of each row dropped; ``""`` when ``end`` is
        not after ``start`` (the screen was cleared above it)."""
        b = self.main
        if (end.row, end.col) <= (start.row, start.col) or start.row >= len(b.rows):
            return ""
        out: list[str] = []
        for r in range(start.row, min(end.row, len(b.rows) - 1) + 1):
            a = start.col if r == start.row else 0
            z = end.col if r == end.row else None
            piece = self.row_text(r, a, z)
            if z is None:
                piece = piece.rstrip(" ")
            out.append(piece)
            if r < end.row:
                out.append("" if b.wrapped[r] else "\n")
        return "".join(out)

    # --- feeding ----------------------------------------------------------------------------------------

    def feed(self, data: str) -> None:
        data = self._pending + data
        self._pending = ""
        i, n = 0, len(data)
        while i < n:
            ch = data[i]
            if ch == _ESC:
                if m := _CSI.match(data, i):  # the common case at once, an inert one skipped
                    if m.group(2) not in _INERT:
                        self._csi(m.group(1), m.group(2))
                    i = m.end()
                    continue
                j = self._escape(data, i)
                if j < 0:  # cut short: wait for the rest
                    self._pending = data[i:]
                    return
                i = j
                continue
            if ch >= " " and ch != "\x7f":
                # a run of printable characters at once
                j = _PRINTABLE.match(data, i).end()  # type: ignore[union-attr]  # data[i] is one
                self._put(data[i:j])
                i = j
                continue
            b = self.buf
            if ch == "\n" or ch == "\x0b" or ch == "\x0c":
                self._down(b)
            elif ch == "\r":
                b.col = 0
            elif ch == "\b":
                b.col = max(0, min(b.col, self.width) - 1)
            elif ch == "\t":
                b.col = min(self.width - 1, (b.col // _TAB + 1) * _TAB)
            i += 1

    def _put(self, text: str) -> None:
        """Printable characters from the cursor on, a row's worth at a time: each overwrites its cell (a row
        shorter than the cursor padded with blanks first), a character past the last column wraps first."""
        b = self.buf
        width = self.width
        pos, n = 0, len(text)
        col = b.col
        if col + n <= width:  # the whole run on the cursor's row, as the first turn of the loop writes it
            row = b.rows[b.row]
            if col > len(row):
                row.extend(" " * (col - len(row)))
            row[col : col + n] = text
            b.col = col + n
            return
        while pos < n:
            col = b.col
            if col >= width:  # autowrap: the row continues on the next
                b.wrapped[b.row] = True
                self._down(b)
                b.col = col = 0
            take = min(n - pos, width - col)
            row = b.rows[b.row]
            if col > len(row):
                row.extend(" " * (col - len(row)))
            row[col : col + take] = text[pos : pos + take] if take < n else text
            b.col = col + take
            pos += take

    def _ensure(self, b: _Buffer, row: int) -> None:
        while len(b.rows) <= row:
            b.rows.append([])
            b.wrapped.append(False)

    def _down(self, b: _Buffer) -> None:
        b.row += 1
        self._ensure(b, b.row)
        if b.row >= b.top + self.height:
            b.top = b.row - self.height + 1
            if b is self.alt:  # the alternate screen has no scrollback: drop the row scrolled off
                del b.rows[0]
                del b.wrapped[0]
                b.row -= 1
                b.top = max(0, b.top - 1)

    def _escape(self, data: str, i: int) -> int:
        """Interpret the escape sequence at ``data[i]``; the index after it, or -1 when it is cut short."""
        n = len(data)
        if i + 1 >= n:
            return -1
        kind = data[i + 1]
        if kind == "[":
            j = i + 2
            while j < n and not ("@" <= data[j] <= "~"):
                j += 1
            if j >= n:
                return -1 if n - i < 64 else n  # an endless sequence is dropped
            self._csi(data[i + 2 : j], data[j])
            return j + 1
        if kind in "]PX^_":  # OSC, DCS, ...: up to BEL or ST
            j = i + 2
            while j < n:
                if data[j] == "\x07":
                    return j + 1
                if data[j] == _ESC and j + 1 < n and data[j + 1] == "\\":
                    return j + 2
                j += 1
            return -1 if n - i < 4096 else n
        if kind in "()*+#%":  # charset and line-size selections: one more character
            return i + 3 if i + 2 < n else -1
        b = self.buf
        if kind == "7":
            self._saved = (b.row - b.top, b.col)
        elif kind == "8":
            self._move(b, b.top + self._saved[0], self._saved[1])
        elif kind == "M":  # reverse index
            b.row = max(b.top, b.row - 1)
        elif kind == "D":
            self._down(b)
        elif kind == "E":
            self._down(b)
            b.col = 0
        elif kind == "c":  # full reset: a cleared screen
            self._erase_below(b, b.top, 0)
            self._move(b, b.top, 0)
        return i + 2

    def _move(self, b: _Buffer, row: int, col: int) -> None:
        row = max(b.top, min(row, b.top + self.height - 1))
        self._ensure(b, row)
        b.row, b.col = row, max(0, min(col, self.width - 1))

    def _erase_below(self, b: _Buffer, row: int, col: int) -> None:
        self._ensure(b, row)
        del b.rows[row + 1 :]
        del b.wrapped[row + 1 :]
        del b.rows[row][col:]
        b.wrapped[row] = False

    def _csi(self, params: str, final: str) -> None:
        private = params.startswith("?")
        body = params.lstrip("?<=>")
        nums = []
        for p in body.split(";"):
            try:
                nums.append(int(p) if p else 0)
            except ValueError:
                nums.append(0)

        def arg(k: int = 0, default: int = 1) -> int:
            v = nums[k] if k < len(nums) else 0
            return v if v else default

        b = self.buf
        if final in "hl" and private:
            for mode in nums:
                if mode == 2004 and self.on_mode is not None and self.alt is None:
                    self.on_mode("2004" + final, self.mark())
                elif mode in (1049, 47, 1047):
                    if final == "h" and self.alt is None:
                        self.alt = _Buffer()
                        self.fullscreen_entries += 1
                    elif final == "l":
                        self.alt = None
            return
        if final == "m" or final in "hlrstnqc":
            return
        if final == "A":
            b.row = max(b.top, b.row - arg())
        elif final == "B" or final == "e":
            self._move(b, b.row + arg(), b.col)
        elif final == "C" or final == "a":
            b.col = min(self.width - 1, b.col + arg())
        elif final == "D":
            b.col = max(0, min(b.col, self.width) - arg())
        elif final == "E":
            self._move(b, b.row + arg(), 0)
        elif final == "F":
            b.row, b.col = max(b.top, b.row - arg()), 0
        elif final == "G" or final == "`":
            b.col = max(0, min(arg() - 1, self.width - 1))
        elif final == "d":
            self._move(b, b.top + arg() - 1, b.col)
        elif final in "Hf":
            self._move(b, b.top + arg(0) - 1, arg(1) - 1)
        elif final == "J":
            mode = nums[0] if nums else 0
            if mode == 0:
                self._erase_below(b, b.row, b.col)
            elif mode in (2, 3):  # the whole screen; the cursor stays where it is, on a blank line
                self._erase_below(b, b.top, 0)
                self._ensure(b, b.row)
            elif mode == 1:
                for r in range(b.top, b.row):
                    b.rows[r] = []
                b.rows[b.row][: b.col + 1] = [" "] * min(len(b.rows[b.row]), b.col + 1)
        elif final == "K":
            mode = nums[0] if nums else 0
            row = b.rows[b.row]
            if mode == 0:
                del row[b.col :]
                b.wrapped[b.row] = False
            elif mode == 1:
                row[: b.col + 1] = [" "] * min(len(row), b.col + 1)
            else:
                row.clear()
        elif final == "X":
            row = b.rows[b.row]
            for k in range(b.col, min(len(row), b.col + arg())):
                row[k] = " "
        elif final == "P":
            del b.rows[b.row][b.col : b.col + arg()]
        elif final == "@":
            row = b.rows[b.row]
            if b.col <= len(row):
                row[b.col : b.col] = [" "] * arg()
                del row[self.width :]
