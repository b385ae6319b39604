"""Look at a run: the self-contained HTML viewer (``rtlab view``).

A run's page holds its steps (command, shown text with clip markers and captured reads highlighted, the tab after
each step, status line, tab reply), its rubric with the diagnosis label of each failed item, whose cited evidence
links to the step and span, filters and keyboard navigation; several runs get an index with scores and labels.
The page is one file: no network, no external script, style or font, and it renders lazily from the embedded
JSON. The notebook display of the records themselves is their own (``_repr_html_``, made of :mod:`rtlab.display`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtlab._lazy import attach

if TYPE_CHECKING:
    from rtlab.view._build import ViewResult as ViewResult
    from rtlab.view._build import page_name as page_name
    from rtlab.view._build import view_run as view_run
    from rtlab.view._build import view_runs as view_runs
    from rtlab.view._page import embed_json as embed_json
    from rtlab.view._page import index_page as index_page
    from rtlab.view._page import run_page as run_page
    from rtlab.view._page import write_page as write_page
    from rtlab.view._payload import index_row as index_row
    from rtlab.view._payload import run_payload as run_payload
    from rtlab.view._payload import score_of as score_of

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._payload": ("run_payload", "index_row", "score_of"),
        "._page": ("embed_json", "run_page", "index_page", "write_page"),
        "._build": ("ViewResult", "view_run", "view_runs", "page_name"),
    },
)
