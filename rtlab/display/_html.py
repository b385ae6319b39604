"""HTML fragments for notebook display, over plain data.

Everything that comes from a trajectory is escaped here (:func:`escape`: ``&``, ``<``, ``>`` and both quotes), so a
shown output holding ``</script><script>...`` or markup is displayed as text. Tables show at most
:data:`MAX_ROWS` rows (the first ones and the last few) and say how many were left out; texts at most
:data:`MAX_TEXT` characters, cut in the middle with the count. The styles are inline in one ``<style>`` scoped by
the ``rtlab-d`` class: a notebook cell needs no file and no network.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

MAX_ROWS = 40
"""Rows a table shows: the first ``MAX_ROWS - 5`` and the last 5, with the count of those between."""
MAX_TEXT = 20_000
"""Characters of a text shown: its head and tail, with the count of the characters between."""
_TAIL_ROWS = 5

SpanKind = Literal["read", "clip", "frame", "cited"]

_STYLE = """<style>
.rtlab-d{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:#222}
.rtlab-d table{border-collapse:collapse;margin:2px 0}
.rtlab-d th,.rtlab-d td{border-bottom:1px solid #ddd;padding:1px 6px;text-align:left;vertical-align:top}
.rtlab-d th{background:#f3f3f3}
.rtlab-d td.n{text-align:right}
.rtlab-d .note{color:#666;font-style:italic}
.rtlab-d pre{white-space:pre-wrap;word-break:break-word;margin:2px 0;max-height:28em;overflow:auto;
 background:#fafafa;border:1px solid #e4e4e4;padding:4px}
.rtlab-d mark.read{background:#fff1a8}
.rtlab-d mark.cited{background:#ffc2c2;outline:1px solid #d33}
.rtlab-d span.clip{background:#ddd;color:#a00;font-weight:bold}
.rtlab-d span.frame{color:#888}
.rtlab-d .cols{display:flex;gap:12px;align-items:flex-start}
.rtlab-d .cols>div{flex:1;min-width:0;overflow-x:auto}
.rtlab-d h4{margin:4px 0}
</style>"""


@dataclass(frozen=True)
class Span:
    """A part of a text to mark: a captured read, a clip marker, a harness frame or a cited excerpt."""

    start: int
    """Offset of the first character in the text."""
    end: int
    """Offset after the last character."""
    kind: SpanKind
    """``read`` (highlighted), ``clip`` (the marker where output was cut), ``frame`` (the harness's own words,
    dimmed) or ``cited`` (evidence a diagnosis label cites)."""
    title: str = ""
    """Shown on hover: the file read, the kind of frame."""


def escape(value: Any) -> str:
    """``value`` as text safe inside an element or a quoted attribute."""
    return html.escape("" if value is None else str(value), quote=True)


def one_line(text: str, width: int) -> str:
    """``text`` on one line (runs of whitespace as one space), cut to ``width`` characters with ``…``."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def block(*parts: str) -> str:
    """One display: the style sheet and the parts, in a ``div.rtlab-d``."""
    return f'<div class="rtlab-d">{_STYLE}{"".join(parts)}</div>'


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return f"<td>{'yes' if value else ''}</td>"
    if isinstance(value, int | float):
        return f'<td class="n">{value:,}</td>'
    return f"<td>{escape(value)}</td>"


def _kept_rows(n: int, limit: int) -> tuple[list[int], int]:
    """The row positions shown and how many are left out between the head and the tail."""
    if n <= limit:
        return list(range(n)), 0
    head = max(limit - _TAIL_ROWS, 1)
    return [*range(head), *range(n - _TAIL_ROWS, n)], n - head - _TAIL_ROWS


def table(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    title: str = "",
    limit: int = MAX_ROWS,
    what: str = "rows",
) -> str:
    """An HTML table of ``rows`` (values escaped; numbers right-aligned), at most ``limit`` rows with the count of
    those left out; ``what`` names the rows in that count (``steps``)."""
    kept, left_out = _kept_rows(len(rows), limit)
    out = [f"<h4>{escape(title)}</h4>" if title else "", "<table><tr>"]
    out += [f"<th>{escape(c)}</th>" for c in columns]
    out.append("</tr>")
    for k, i in enumerate(kept):
        if left_out and k == len(kept) - _TAIL_ROWS:
            out.append(
                f'<tr><td class="note" colspan="{len(columns)}">… {left_out:,} {escape(what)} not shown …</td></tr>'
            )
        out.append("<tr>" + "".join(_cell(v) for v in rows[i]) + "</tr>")
    out.append("</table>")
    if left_out:
        out.append(f'<div class="note">{len(kept):,} of {len(rows):,} {escape(what)} shown</div>')
    return "".join(out)


def text_table(
    columns: Sequence[str], rows: Sequence[Sequence[Any]], *, limit: int = MAX_ROWS, what: str = "rows"
) -> str:
    """The plain-text form of :func:`table`: aligned columns, the same rows and the same count."""
    kept, left_out = _kept_rows(len(rows), limit)
    cells = [[str(c) for c in columns]] + [[_plain(v) for v in rows[i]] for i in kept]
    widths = [min(max(len(r[j]) for r in cells), 60) for j in range(len(columns))]
    lines = ["  ".join(v[:60].ljust(w) for v, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    if left_out:
        lines.insert(1 + len(kept) - _TAIL_ROWS, f"... {left_out:,} {what} not shown ...")
    return "\n".join(lines)


def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else ""
    if isinstance(value, int):
        return f"{value:,}"
    return " ".join(str("" if value is None else value).split())


def marked_text(text: str, spans: Sequence[Span] = (), *, limit: int = MAX_TEXT) -> str:
    """``text`` in a ``<pre>``, escaped, with ``spans`` marked (a later span that overlaps an earlier one is cut
    to what is left); longer than ``limit`` characters, its middle is left out and counted."""
    cut: tuple[int, int] | None = None
    if len(text) > limit:
        head = limit * 2 // 3
        cut = (head, len(text) - (limit - head))
    points = sorted({0, len(text), *(s.start for s in spans), *(s.end for s in spans), *(cut or ())})
    ordered = sorted((s for s in spans if s.end > s.start), key=lambda s: (s.start, -s.end))
    out = ["<pre>"]
    for a, b in zip(points, points[1:], strict=False):
        if a >= b or (cut is not None and cut[0] <= a < cut[1]):
            if cut is not None and a == cut[0]:
                out.append(f'<span class="clip">[… {cut[1] - cut[0]:,} characters not shown here …]</span>')
            continue
        piece = escape(text[a:b])
        covering = [s for s in ordered if s.start <= a and b <= s.end]
        for s in reversed(covering):  # the innermost span is the one marked closest to the text
            tag = "mark" if s.kind in ("read", "cited") else "span"
            title = f' title="{escape(s.title)}"' if s.title else ""
            piece = f'<{tag} class="{s.kind}"{title}>{piece}</{tag}>'
        out.append(piece)
    out.append("</pre>")
    return "".join(out)


def side_by_side(*columns: tuple[str, str]) -> str:
    """Columns side by side, each ``(heading, html)``."""
    cells = "".join(f"<div><h4>{escape(h)}</h4>{body}</div>" for h, body in columns)
    return f'<div class="cols">{cells}</div>'
