"""The tokeniser: hand-worked cases, an independent character-by-character reference for ASCII, properties."""

from __future__ import annotations

import doctest
import random
import re
import unicodedata

import pytest

import rtlab.text._tokens
from rtlab.text import STOP_WORDS, tokenize


def test_docstring_examples() -> None:
    result = doctest.testmod(rtlab.text._tokens)
    assert result.attempted >= 6
    assert result.failed == 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", []),
        ("  /_-.,:;  ", []),
        (
            "Desktop/Downloads/Q3_budgetReview-v2.xlsx",
            ["desktop", "downloads", "3", "budget", "review", "2", "xlsx"],
        ),
        ("snake_case_name", ["snake", "case", "name"]),
        ("kebab-case-name", ["kebab", "case", "name"]),
        # camelCase and acronyms
        ("quarterlyBudgetReview", ["quarterly", "budget", "review"]),
        ("HTTPServer", ["http", "server"]),
        ("XMLHttpRequest", ["xml", "http", "request"]),
        ("getHTTPResponseCode", ["get", "http", "response", "code"]),
        ("Q3Report", ["3", "report"]),
        ("README.MD", ["readme", "md"]),
        ("PDFs", ["pdf"]),
        ("all URLs and IDs", ["url", "id"]),
        ("PDFsReport", ["pdf", "report"]),
        ("ABCsomething", ["ab", "csomething"]),
        ("iPhone", ["phone"]),
        ("report2024final", ["report", "2024", "final"]),
        # digits: split at every non-digit, leading zeros kept, lone digits kept
        ("1,234.5", ["1", "234", "5"]),
        ("2024-03-15", ["2024", "03", "15"]),
        ("v2.1", ["2", "1"]),
        ("x86_64", ["86", "64"]),
        ("2025q1", ["2025", "1"]),
        ("a 1 b 2", ["1", "2"]),
        # CJK: one token per character, mixed with Latin and digits
        ("季度预算报告.xlsx", ["季", "度", "预", "算", "报", "告", "xlsx"]),
        ("by-topic/测试周期Q1报告", ["topic", "测", "试", "周", "期", "1", "报", "告"]),
        ("会议纪要（第3次）。", ["会", "议", "纪", "要", "第", "3", "次"]),
        ("データ分析", ["デ", "ー", "タ", "分", "析"]),
        ("한국어 보고서", ["한", "국", "어", "보", "고", "서"]),
        ("Java后端组", ["java", "后", "端", "组"]),
        # accents kept, NFD composed, case split in other cased scripts
        ("Résumé", ["résumé"]),
        ("Re\u0301sume\u0301", ["résumé"]),
        ("ÉTÉ", ["été"]),
        ("naïveCafé", ["naïve", "café"]),
        ("ΑθήναΠόλη", ["αθήνα", "πόλη"]),
        ("ОтчетЗаМай", ["отчет", "за", "май"]),
        ("a b c é ü", ["é", "ü"]),
        # NFKC: full-width forms, ligatures, superscripts, circled and mathematical letters
        ("ＨＴＴＰＳｅｒｖｅｒ", ["http", "server"]),
        ("Ｑ３", ["3"]),
        ("ﬁnal_report", ["final", "report"]),
        ("m²", ["2"]),
        ("𝐁𝐨𝐥𝐝 Ⓑudget", ["bold", "budget"]),
        # stop words and single ASCII letters dropped; "may" (a month) kept
        ("The report of the year", ["report", "year"]),
        ("Sales for May 2024", ["sales", "may", "2024"]),
        ("don't stop: it's the file's end", ["stop", "file", "end"]),
        ("📊report✅", ["report"]),
    ],
)
def test_hand_worked(text: str, expected: list[str]) -> None:
    assert tokenize(text) == expected


def test_same_tokens_for_composed_and_decomposed() -> None:
    name = "Ré_sumé-Ünïcode.docx"
    assert tokenize(unicodedata.normalize("NFD", name)) == tokenize(unicodedata.normalize("NFC", name))


def test_stop_words_are_lowercase_function_words() -> None:
    assert isinstance(STOP_WORDS, frozenset)
    assert all(w == w.lower() and w.isalpha() for w in STOP_WORDS)
    assert {"the", "and", "of", "to", "in", "is", "for"} <= STOP_WORDS
    assert not {"file", "report", "budget", "data", "may", "us"} & STOP_WORDS


def _reference_ascii(text: str) -> list[str]:
    """The rules of rtlab.text._tokens for ASCII text, written as a character loop over each alphanumeric run."""
    tokens = []
    for run in re.split(r"[^A-Za-z0-9]+", text):
        current = ""
        for j, ch in enumerate(run):
            if not current:
                current = ch
                continue
            prev, nxt, after = run[j - 1], run[j + 1 : j + 2], run[j + 2 : j + 3]
            upper_run = len(current) - len(current.rstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
            plural_next = nxt == "s" and not after.islower()
            boundary = (
                prev.isdigit() != ch.isdigit()
                or (prev.islower() and ch.isupper())
                or (prev.isupper() and ch.isupper() and nxt.islower() and not plural_next)
                or (prev.isupper() and ch == "s" and upper_run >= 2 and not nxt.islower())
            )
            if boundary:
                tokens.append(current)
                current = ch
            else:
                current += ch
        if current:
            tokens.append(current)
    return [t.lower() for t in tokens if t.lower() not in STOP_WORDS and not (len(t) == 1 and t.isalpha())]


def test_ascii_matches_character_reference() -> None:
    rng = random.Random(3)
    alphabet = "aAbBsSxXqQ0129_-./ " + "tT"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        assert tokenize(text) == _reference_ascii(text), text


def test_every_cjk_ideograph_kana_and_hangul_syllable_is_one_token() -> None:
    prefixes = ("CJK UNIFIED IDEOGRAPH", "HIRAGANA LETTER", "KATAKANA LETTER", "HANGUL SYLLABLE")
    checked = 0
    for code in range(0x3000, 0xD7A4):
        ch = chr(code)
        if unicodedata.name(ch, "").startswith(prefixes) and unicodedata.normalize("NFKC", ch) == ch:
            assert tokenize(f"x{ch}{ch}1") == [ch, ch, "1"], hex(code)
            checked += 1
    assert checked > 30_000
    assert tokenize("\U00020000\U0002a6d6") == ["\U00020000", "\U0002a6d6"]  # extension B


def test_cjk_ranges_hold_only_word_characters() -> None:
    for lo, hi in rtlab.text._tokens._CJK_RANGES:
        for code in range(lo, min(hi, 0x10000) + 1):
            ch = chr(code)
            if unicodedata.category(ch) != "Cn":
                assert re.fullmatch(r"\w", ch), hex(code)


def test_upper_case_letters_of_other_scripts_split_camel_case() -> None:
    # Every upper-case BMP letter starts a new word after a lower-case one, as A does in "abAb".
    for code in range(0x100, 0x10000):
        ch = chr(code)
        low = ch.lower()
        if not (
            ch.isupper()
            and len(low) == 1
            and low != ch
            and unicodedata.normalize("NFKC", ch + low) == ch + low
        ):
            continue
        assert tokenize(f"ζζ{ch}{low}") == ["ζζ", f"{low}{low}"], hex(code)


def test_properties_on_random_mixed_text() -> None:
    rng = random.Random(11)
    alphabet = "aAzZéÉßçΣσдД測试报告デー3 0_-./,:（）" + "\u0301"
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        tokens = tokenize(text)
        for token in tokens:
            assert token and token == token.lower() and re.fullmatch(r"[^\W_]+", token), (text, token)
            assert token not in STOP_WORDS and not (len(token) == 1 and "a" <= token <= "z")
        # Tokens are a fixed point: tokenising them again gives them back.
        assert tokenize(" ".join(tokens)) == tokens, text
