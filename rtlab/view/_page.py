"""The viewer page: one self-contained HTML file per run, and an index of runs.

The page is the run's payload (:func:`rtlab.view._payload.run_payload`) embedded as JSON in a
``<script type="application/json">`` element, a style sheet and one script, all inline: no network, no external
script, style or font. The script renders lazily: the step timeline draws only the rows in view, and only the
selected step's text is put in the page, so a 1,000-step, 10 MB run opens at once. Everything from the run is
put in the page as text (``textContent``), never as markup; the JSON is written with ``<``, ``>``, ``&`` and the
two JavaScript line separators escaped, so an output holding ``</script>`` cannot close the element. The page's
Content-Security-Policy allows no connection and only the viewer's own script (by its SHA-256), so even markup
that got through could not load or run anything.
"""

from __future__ import annotations

import base64
import hashlib
import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from rtlab.io import atomic_open

_JSON_ESCAPES = (
    ("<", "\\u003c"),
    (">", "\\u003e"),
    ("&", "\\u0026"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)


def embed_json(data: Any) -> str:
    """``data`` as JSON safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` appears raw (so no
    ``</script>`` nor ``<!--``), and U+2028 / U+2029 are escaped."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for raw, escaped in _JSON_ESCAPES:  # str.replace runs in C; str.translate with a dict does not
        text = text.replace(raw, escaped)
    return text


@cache
def _asset(name: str) -> str:
    return resources.files("rtlab.view").joinpath(name).read_text(encoding="utf-8")


def _html_text(value: str) -> str:
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _page(title: str, kind: str, data: Any) -> str:
    script = _asset("viewer.js")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    policy = f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n<link rel="icon" href="data:,">\n'
        f"<title>{_html_text(title)}</title>\n<style>{_asset('viewer.css')}</style>\n</head>\n"
        f'<body data-kind="{kind}"><div id="app"><p id="loading">rtlab view: loading…</p></div>\n'
        f'<script type="application/json" id="rtlab-data">{embed_json(data)}</script>\n'
        f"<script>{script}</script>\n</body></html>\n"
    )


def run_page(payload: dict[str, Any]) -> str:
    """The HTML page of one run's payload."""
    return _page(f"rtlab view · {payload['run']['id']}", "run", payload)


def index_page(rows: list[dict[str, Any]], *, failures: list[dict[str, str]] | None = None) -> str:
    """The HTML index of runs (rows of :func:`rtlab.view._payload.index_row`), with the units that could not be
    read or replayed."""
    return _page(f"rtlab view · {len(rows)} runs", "index", {"runs": rows, "failures": failures or []})


def write_page(text: str, path: str | Path) -> Path:
    """Write a page atomically (a reader never sees half of it)."""
    out = Path(path)
    with atomic_open(out, "w", encoding="utf-8") as f:
        f.write(text)
    return out
