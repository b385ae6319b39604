"""Text rules shared by stages: folding for comparison, and file names mentioned in text."""

from __future__ import annotations

import random
import re
import unicodedata

from rtlab.text import fold_text


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
