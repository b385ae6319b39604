"""Text rules shared by stages: folding for comparison, and file names mentioned in text."""

from __future__ import annotations

import random
import re
import unicodedata

from rtlab.text import FILE_EXTENSIONS, FILE_MENTION, file_mentions, fold_text


def test_fold_text_case_and_white_space() -> None:
    assert fold_text("  Total\tRevenue\n\u3000 2024 ") == "total revenue 2024"
    assert fold_text("Straße") == "strasse"
    assert fold_text("") == fold_text(" \n ") == ""


def test_fold_text_compatibility_forms_only_on_request() -> None:
    assert fold_text("Ａ①\u00a0ｂ") == "ａ① ｂ"  # the tab: full-width text is another requirement
    assert fold_text("Ａ①\u00a0ｂ", compatibility=True) == "a1 b"  # the diagnosis: the same words


def test_fold_text_is_the_diagnosis_rule_of_before() -> None:
    """The diagnosis folded with ``re.sub(r"\\s+", " ", NFKC(text)).casefold().strip()``: the same on any text."""
    rng = random.Random(7)
    alphabet = "aZß ﬁ\t\n\u00a0\u2028\u3000\x1cＡ①ǅİΣς" + "".join(
        chr(rng.randrange(0x20, 0x3000)) for _ in range(300)
    )
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 30)))
        before = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).casefold().strip()
        assert fold_text(text, compatibility=True) == before


def test_file_mentions_in_prose() -> None:
    text = (
        "Check [system_report.doc] and `Q3_2024.csv`; /workspace/answer.txt exists, as does 报告_终.XLSX, "
        "not Chart.js4 nor v2.0"
    )
    assert file_mentions(text) == [
        "system_report.doc",
        "Q3_2024.csv",
        "/workspace/answer.txt",
        "报告_终.XLSX",
    ]
    assert file_mentions("a.jsonl, b.json and c.htm or d.html; e.yml f.jpeg g.jpg") == [
        "a.jsonl",
        "b.json",
        "c.htm",
        "d.html",
        "e.yml",
        "f.jpeg",
        "g.jpg",
    ]
    assert FILE_MENTION.sub(" ", "see sales_2024.xlsx for 1,200") == "see   for 1,200"


def test_file_mention_is_the_values_rule_of_before() -> None:
    """The values' former pattern (regex alternatives ``jpe?g``, ``ya?ml``): the same spans on any text."""
    old = (
        "xlsx|xlsm|xls|csv|tsv|md|txt|docx|doc|pdf|pptx|ppt|json|jsonl|html|htm|py|xml|png|jpe?g|gif|zip|"
        "ya?ml|log|sql|js|ts|ipynb|rtf|odt|ods"
    )
    before = re.compile(rf"[^\s`'\"“”‘’《》「」()\[\],;]*\.(?:{old})(?![A-Za-z0-9])", re.IGNORECASE)
    rng = random.Random(11)
    pieces = [
        *FILE_EXTENSIONS,
        "JPG",
        "Yaml",
        "jsonlx",
        "x",
        "_",
        "1",
        ".",
        " ",
        "`",
        "(",
        "]",
        "/",
        "报",
        "é",
    ]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 14)))
        assert [m.span() for m in FILE_MENTION.finditer(text)] == [m.span() for m in before.finditer(text)]
