"""A small document model and its renderings as txt, md, csv, json and xlsx, with what reading each prints.

A :class:`Doc` is a title, a few meta lines and blocks (headings, paragraphs, bullet lists, key figures,
tables). :func:`render` writes it as one file kind and returns the bytes together with the *printed text*:
the file itself for text kinds, and for xlsx what ``openpyxl.load_workbook(data_only=True)`` prints row by
row (``str`` of each cell, tab-joined; the one-liner of the task brief). The xlsx bytes do not depend on when
or where they were made: fixed document properties, entries sorted, fixed timestamps, stored uncompressed
(deflate output may differ between zlib builds).
"""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from dataclasses import dataclass, field
from typing import Any

from rtlab.synth._gen_numbers import Num, cell, printed

FIXED_TIME = "2025-01-01T00:00:00Z"
_ZIP_TIME = (2025, 1, 1, 0, 0, 0)
_APP_XML = (
    b'<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties">'
    b"<Application>rtlab.synth (simulated data)</Application></Properties>"
)
_CORE_TIMES = re.compile(r"(<dcterms:(created|modified)[^>]*>)[^<]*(</dcterms:\2>)")


@dataclass
class Table:
    columns: list[str]
    rows: list[list[Any]]
    """Cells: text, a :class:`Num`, or ``None`` (empty)."""
    sheet: str = "Data"


@dataclass
class Doc:
    title: str
    meta: list[tuple[str, str]] = field(default_factory=list)
    blocks: list[tuple[str, Any]] = field(default_factory=list)
    """``("h", text)``, ``("p", text)``, ``("ul", [text])``, ``("kv", [(label, text | Num)])``,
    ``("table", Table)``."""

    def add(self, kind: str, value: Any) -> Doc:
        self.blocks.append((kind, value))
        return self


def _val(value: Any, file_kind: str, where: str, currency: str) -> Any:
    if isinstance(value, Num):
        return cell(value, file_kind, where=where, currency=currency)
    return value


def _text(value: Any, file_kind: str, where: str, currency: str) -> str:
    v = _val(value, file_kind, where, currency)
    return "" if v is None else printed(v)


# ---------------------------------------------------------------------------------------------------------
# Text kinds


def _md(doc: Doc, currency: str) -> str:
    out = [f"# {doc.title}", ""]
    if doc.meta:
        out += [" · ".join(f"{k}: {v}" for k, v in doc.meta), ""]
    for kind, value in doc.blocks:
        if kind == "h":
            out += [f"## {value}", ""]
        elif kind == "p":
            out += [value, ""]
        elif kind == "ul":
            out += [f"- {v}" for v in value] + [""]
        elif kind == "kv":
            out += [f"- **{k}:** {_text(v, 'md', 'kv', currency)}" for k, v in value] + [""]
        elif kind == "table":
            out.append("| " + " | ".join(value.columns) + " |")
            out.append("|" + "|".join("---" for _ in value.columns) + "|")
            for row in value.rows:
                out.append("| " + " | ".join(_text(c, "md", "table", currency) for c in row) + " |")
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _txt(doc: Doc, currency: str) -> str:
    out = [doc.title.upper(), "=" * min(len(doc.title), 78), ""]
    out += [f"{k}: {v}" for k, v in doc.meta] + ([""] if doc.meta else [])
    for kind, value in doc.blocks:
        if kind == "h":
            out += [value, "-" * min(len(value), 78), ""]
        elif kind == "p":
            out += [value, ""]
        elif kind == "ul":
            out += [f"* {v}" for v in value] + [""]
        elif kind == "kv":
            out += [f"{k}: {_text(v, 'txt', 'kv', currency)}" for k, v in value] + [""]
        elif kind == "table":
            cells = [value.columns] + [[_text(c, "txt", "table", currency) for c in r] for r in value.rows]
            widths = [max(len(r[i]) for r in cells) for i in range(len(value.columns))]
            for r in cells:
                out.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _csv(doc: Doc, currency: str) -> str:
    table = next(v for k, v in doc.blocks if k == "table")
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(table.columns)
    for row in table.rows:
        writer.writerow([_text(c, "csv", "table", currency) for c in row])
    return buf.getvalue()


def _key(label: str) -> str:
    return re.sub(r"[^0-9a-zA-Z\u00c0-\u024f\u4e00-\u9fff]+", "_", label).strip("_").lower()


def _prose_headings(blocks: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The blocks less headings that introduce a table or key figures (those go to their own sheet or key)."""
    out = []
    for i, (kind, value) in enumerate(blocks):
        following = blocks[i + 1][0] if i + 1 < len(blocks) else None
        if kind == "h" and following not in ("p", "ul"):
            continue
        out.append((kind, value))
    return out


def _json(doc: Doc, currency: str) -> str:
    data: dict[str, Any] = {"title": doc.title}
    for k, v in doc.meta:
        data[_key(k)] = v
    sections: list[dict[str, Any]] = []
    tables: list[Table] = []
    heading = "key figures"
    for kind, value in doc.blocks:
        if kind == "h":
            heading = value
            sections.append({"heading": value, "text": []})
        elif kind in ("p", "ul"):
            if not sections:
                sections.append({"heading": "Notes", "text": []})
            sections[-1]["text"].extend([value] if kind == "p" else value)
        elif kind == "kv":
            group = data.setdefault(_key(heading), {})
            for k, v in value:
                group[k] = _val(v, "json", "kv", currency)
        elif kind == "table":
            tables.append(value)
    sections = [s for s in sections if s["text"]]
    if sections:
        data["sections"] = sections
    for table in tables:
        name = "records" if len(tables) == 1 else _key(table.sheet)
        data[name] = [
            {col: _val(c, "json", "table", currency) for col, c in zip(table.columns, row, strict=True)}
            for row in table.rows
        ]
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


# ---------------------------------------------------------------------------------------------------------
# xlsx


def sheets_of(doc: Doc, currency: str) -> list[tuple[str, list[list[Any]]]]:
    """The workbook's sheets as (name, rows of cell values or None): tables first, then key figures, notes."""
    sheets: list[tuple[str, list[list[Any]]]] = []
    summary: list[list[Any]] = []
    notes: list[list[Any]] = [[f"{k}: {v}"] for k, v in doc.meta]
    for kind, value in _prose_headings(doc.blocks):
        if kind == "table":
            rows = [[doc.title], list(value.columns)]
            rows += [[_val(c, "xlsx", "table", currency) for c in r] for r in value.rows]
            sheets.append((value.sheet, rows))
        elif kind == "kv":
            summary += [[k, _val(v, "xlsx", "kv", currency)] for k, v in value]
        elif kind in ("h", "p"):
            notes.append([value])
        elif kind == "ul":
            notes += [[f"- {v}"] for v in value]
    if not sheets:
        notes.insert(0, [doc.title])
    if summary:
        sheets.append(("Summary", summary))
    if len(notes) > len(doc.meta) or not sheets:
        sheets.append(("Notes", notes))
    return sheets


def xlsx_printed(sheets: list[tuple[str, list[list[Any]]]]) -> str:
    """What the brief's openpyxl one-liner prints for these sheets: rows padded to the widest, '' for None."""
    lines: list[str] = []
    for _, rows in sheets:
        width = max(max((i + 1 for i, v in enumerate(r) if v is not None), default=0) for r in rows)
        for r in rows:
            padded = list(r) + [None] * (width - len(r))
            lines.append("\t".join("" if v is None else str(v) for v in padded[:width]))
    return "".join(line + "\n" for line in lines)


def xlsx_bytes(sheets: list[tuple[str, list[list[Any]]]]) -> bytes:
    """A workbook of these sheets whose bytes depend on nothing but the cells."""
    import openpyxl

    wb = openpyxl.Workbook()
    first = True
    for name, rows in sheets:
        ws = wb.active if first else wb.create_sheet()
        first = False
        ws.title = name
        for r, row in enumerate(rows, 1):
            for c, value in enumerate(row, 1):
                if value is not None:
                    ws.cell(row=r, column=c, value=value)
    wb.properties.creator = "rtlab.synth (simulated data)"
    raw = io.BytesIO()
    wb.save(raw)
    return _normalise_zip(raw.getvalue())


def _normalise_zip(data: bytes) -> bytes:
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for name in sorted(src.namelist()):
            content = src.read(name)
            if name == "docProps/core.xml":
                content = _CORE_TIMES.sub(rf"\g<1>{FIXED_TIME}\g<3>", content.decode("utf-8")).encode("utf-8")
            elif name == "docProps/app.xml":
                content = _APP_XML  # openpyxl writes its own version here
            info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_STORED
            info.create_system = 3
            info.external_attr = 0o644 << 16
            dst.writestr(info, content)
    return out.getvalue()


# ---------------------------------------------------------------------------------------------------------


def printed_text(doc: Doc, kind: str, currency: str) -> str:
    """What reading the file prints (cheap: no workbook is built for xlsx)."""
    if kind == "md":
        return _md(doc, currency)
    if kind == "txt":
        return _txt(doc, currency)
    if kind == "csv":
        return _csv(doc, currency)
    if kind == "json":
        return _json(doc, currency)
    if kind == "xlsx":
        return xlsx_printed(sheets_of(doc, currency))
    raise ValueError(f"unknown file kind {kind!r}")


def file_bytes(doc: Doc, kind: str, currency: str, text: str) -> bytes:
    """The file's bytes (``text`` is :func:`printed_text` of the same doc, reused for text kinds)."""
    if kind == "xlsx":
        return xlsx_bytes(sheets_of(doc, currency))
    return text.encode("utf-8")
