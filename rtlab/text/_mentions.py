"""File names mentioned in prose (rubric items, prompts): one rule for every stage that looks for them.

A mention is a run of characters that holds no white space, quote, bracket, comma or semicolon (nor their
full-width forms and the ideographic comma, colon, full stop: ``，、；：。！？（）【】``, which separate names in
Chinese prose) and ends in
``.<extension>`` (one of :data:`FILE_EXTENSIONS`, any case) not followed by a letter or digit: ``report.xlsx``,
``/workspace/answer.txt``, ``Q3_2024.csv`` inside backticks, ``system_report.doc`` inside square
brackets. A directory part is kept (``/workspace/answer.txt``): whoever compares names takes
the base name (:func:`rtlab.text._paths.name_key`).
"""

from __future__ import annotations

import re

FILE_EXTENSIONS: tuple[str, ...] = (
    *("xlsx", "xlsm", "xls", "csv", "tsv", "md", "txt", "docx", "doc", "pdf", "pptx", "ppt"),
    *("json", "jsonl", "html", "htm", "py", "xml", "png", "jpg", "jpeg", "gif", "zip"),
    *("yaml", "yml", "log", "sql", "js", "ts", "ipynb", "rtf", "odt", "ods"),
)
"""The extensions that make a word a file name, lower case."""

FILE_MENTION = re.compile(
    rf"[^\s`'\"“”‘’《》「」()\[\],;，、；：。！？（）【】]*\.(?:{'|'.join(FILE_EXTENSIONS)})(?![A-Za-z0-9])",
    re.IGNORECASE,
)
"""A file name mentioned in text (the module's rule), for ``finditer`` / ``sub`` over the text."""


def file_mentions(text: str) -> list[str]:
    """The file names ``text`` mentions, in order, as written (repeats kept)."""
    return FILE_MENTION.findall(text)
