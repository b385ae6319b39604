"""The screen model writes printable runs a row at a time: the same screen, cell for cell, as writing them one
character at a time (the model's rule, kept here as the reference), whatever the output."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rtlab.ingest.readers._terminal import Mark, Screen


class OneAtATime(Screen):
    """The rule written plainly: each printable character overwrites its cell, wrapping first past the last
    column; a run of printable characters ends at a control character or DEL."""

    def feed(self, data: str) -> None:
        data = self._pending + data
        self._pending = ""
        i, n = 0, len(data)
        while i < n:
            ch = data[i]
            if ch == "\x1b":
                j = self._escape(data, i)
                if j < 0:
                    self._pending = data[i:]
                    return
                i = j
                continue
            if ch >= " " and ch != "\x7f":
                j = i + 1
                while j < n and data[j] >= " " and data[j] != "\x7f" and data[j] != "\x1b":
                    j += 1
                self._put(data[i:j])
                i = j
                continue
            Screen.feed(self, ch)
            i += 1

    def _put(self, text: str) -> None:
        b = self.buf
        for ch in text:
            if b.col >= self.width:
                b.wrapped[b.row] = True
                self._down(b)
                b.col = 0
            row = b.rows[b.row]
            if b.col < len(row):
                row[b.col] = ch
            else:
                row.extend(" " * (b.col - len(row)))
                row.append(ch)
            b.col += 1


_pieces = st.sampled_from(
    [
        "a",
        "hello world ",
        "x" * 13,
        "\u00e9\U0001f600",
        "\r",
        "\n",
        "\b",
        "\t",
        "\x7f",
        "\x1b[2K",
        "\x1b[3D",
        "\x1b[5C",
        "\x1b[H",
        "\x1b[2J",
        "\x1b[4;3H",
        "\x1b[?1049h",
        "\x1b[?1049l",
        "\x1b[1;31m",
        "\x1b[",
        "\x1b[2P",
        "\x1b[3@",
        "\x1b[4X",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(_pieces, max_size=12).map("".join), max_size=6), st.integers(1, 12), st.integers(1, 6)
)
def test_a_row_at_a_time_is_one_character_at_a_time(chunks: list[str], width: int, height: int) -> None:
    fast, slow = Screen(width, height), OneAtATime(width, height)
    for chunk in chunks:
        for screen in (fast, slow):
            screen.feed(chunk)  # never raises: a clear below a scrolled cursor leaves it on a blank line
        for attr in ("rows", "wrapped", "row", "col", "top"):
            assert getattr(fast.main, attr) == getattr(slow.main, attr)
        assert (fast.alt is None) == (slow.alt is None)
        if fast.alt is not None and slow.alt is not None:
            assert (fast.alt.rows, fast.alt.col, fast.alt.row) == (slow.alt.rows, slow.alt.col, slow.alt.row)
    end = Mark(len(fast.main.rows), 0)
    assert fast.text(Mark(0, 0), end) == slow.text(Mark(0, 0), end)


def test_a_clear_after_scrolling_keeps_the_cursor_on_a_blank_line() -> None:
    # the screen scrolled (four lines on a two-line screen), then ESC[2J cleared it with the cursor below the top:
    # the cursor stays where it was (xterm's ED 2), the next character is written there
    # (line feeds without carriage returns: each line starts where the last ended)
    screen = Screen(80, 2)
    screen.feed("a\nb\nc\nd\x1b[2Ja")
    b = screen.main
    assert [("".join(r)) for r in b.rows[b.top :]] == ["", "    a"]  # the screen: cleared, then 'a' at the cursor
    assert [("".join(r)) for r in b.rows[: b.top]] == ["a", " b"]  # the scrollback is kept
