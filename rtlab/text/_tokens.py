"""The one tokeniser rtlab uses for paths, task text, requirements and excerpts.

``tokenize`` turns any text into lower-case terms for BM25 ranking and the evidence check, so that a path,
the task that asks for it and the excerpt read from it meet on the same terms:

1. NFKC normalisation (skipped for ASCII text, which it leaves unchanged): full-width forms become ASCII
   (``Ｑ３`` is ``Q3``), ligatures are split (``ﬁ`` is ``fi``), and the decomposed accents of macOS file
   names compose, so ``café`` typed and ``cafe\\u0301`` listed give one token. Accents are kept:
   ``résumé`` stays ``résumé``, not ``resume``.
2. Split on anything that is not a letter or a digit: ``/ _ - . , :`` and spaces all separate. Combining
   marks that survive NFKC (Indic, Thai) and letters outside the BMP other than CJK (historic scripts) count
   as separators too: no corpus here uses them, and leaving them out keeps the regex fast.
3. Split inside a run on camelCase and on letter/digit boundaries: ``budgetReview`` is ``budget review``;
   an upper-case run keeps together and gives up its last letter to a following capitalised word
   (``HTTPServer`` is ``http server``, ``XMLHttpRequest`` is ``xml http request``); an upper-case run before a
   lone ``s`` is a plural acronym (``PDFs`` is ``pdf``). Case is detected in every cased script (Latin,
   Greek, Cyrillic, ...), not only ASCII.
4. CJK (Han ideographs, kana, Bopomofo, Hangul) gives one token per character, since those scripts do not
   separate words: ``季度报告`` is ``季 度 报 告``.
5. Digits are kept, and split at every non-digit like everything else: ``1,234.5`` is ``1 234 5``,
   ``2024-03-15`` is ``2024 03 15`` (leading zeros kept; no guess whether ``.`` or ``,`` is a decimal or a
   thousands separator, which differs by locale).
6. Lower-case; drop ``STOP_WORDS`` and tokens of one ASCII letter (``v`` of ``v2``, ``Q`` of ``Q3``,
   ``s`` of ``file's``). A lone digit and a lone CJK character are kept.

>>> tokenize("Desktop/Downloads/Q3_budgetReview-v2.xlsx")
['desktop', 'downloads', '3', 'budget', 'review', '2', 'xlsx']
>>> tokenize("by-topic/测试周期/test_report_v5_8_20250301.pdf")
['topic', '测', '试', '周', '期', 'test', 'report', '5', '8', '20250301', 'pdf']
>>> tokenize("Summarise the HTTPServer logs and all PDFs for Q3Report")
['summarise', 'http', 'server', 'logs', 'pdf', '3', 'report']
>>> tokenize("Total: 1,234.5 in 2024 (ＦＹ２４)")
['total', '1', '234', '5', '2024', 'fy', '24']
>>> tokenize("Cafe\\u0301 Résumé ÉTÉ")
['café', 'résumé', 'été']
>>> tokenize("")
[]

What counts as a term
---------------------
The paper's review shows an open requirement beside "read-log entries containing words of the requirement",
and its evidence check refuses a ``done`` citation "whose path and excerpt share no term with the
requirement". A *term*, for every comparison the tab makes (the candidates' ranking against the task, the
review's entries and candidates, the evidence check), is what :func:`terms` returns: the tokens above less
what names no topic, so that two texts sharing one are about the same thing:

- stop words and one-letter tokens (already gone from :func:`tokenize`);
- **lone digits** (``2`` of ``Week 2``, ``3`` of ``Q3``, ``1`` of ``v1``): any two texts with numbers in
  them share one (``Sessions growth ... in Week 2`` and a lunch menu's ``2 eggs`` do). A number of two or
  more digits stays a term (``2024``, ``12``, ``05``, ``48213``);
- **a file name's extension** (``md`` of ``notes.md``, ``xlsx`` of ``Q3_budget.xlsx``): a ``.`` and one of
  :data:`rtlab.text._mentions.FILE_EXTENSIONS` right after a letter or digit and before no letter or digit.
  Every entry's path has one, so it matches every requirement that names a file of that type. The same word
  standing alone stays a term (``the CSV export``, ``error log``).

Lone CJK characters stay terms (that is how those scripts are tokenised). Month names and abbreviations
stay terms (``jan`` of ``sales_jan.csv`` is what the file is about). :func:`tokenize` itself is unchanged:
it is the tokeniser; :func:`terms` is the rule of what two texts must share.

>>> terms("Sessions growth from Week 1 to Week 2")
['sessions', 'growth', 'week', 'week']
>>> terms("notes/lunch_menu.txt: 2 eggs, 1 toast")
['notes', 'lunch', 'menu', 'eggs', 'toast']
>>> terms("Desktop/Downloads/Q3_budgetReview-v2.xlsx and the xlsx export for 2024")
['desktop', 'downloads', 'budget', 'review', 'xlsx', 'export', '2024']
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator

from rtlab.text._mentions import FILE_EXTENSIONS

STOP_WORDS: frozenset[str] = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just me more most my
    myself no nor not now of off on once only or other our ours ourselves out over own same she should so
    some such than that the their theirs them themselves then there these they this those through to too
    under until up upon very was we were what when where which while who whom whose why will with would you
    your yours yourself yourselves also might must shall via per etc
    don doesn didn isn aren wasn weren hasn haven hadn won wouldn shouldn couldn mustn ll ve re
    """.split()
)
"""Common English function words (articles, pronouns, prepositions, conjunctions, auxiliaries and the stems
contractions leave behind: ``don`` of ``don't``). Content words such as ``file`` or ``report`` are kept, and
so is ``may``, a month in file names."""

# Scripts written without spaces between words: each character is a token. Planes 2 and 3 hold only CJK
# ideographs (extensions B to H) and unassigned code points.
_CJK_RANGES = (
    (0x1100, 0x11FF),  # Hangul jamo
    (0x3005, 0x3005),  # iteration mark
    (0x3007, 0x3007),  # ideographic zero
    (0x3021, 0x3029),  # Hangzhou numerals
    (0x3038, 0x303C),
    (0x3041, 0x3096),  # hiragana
    (0x309D, 0x309F),
    (0x30A1, 0x30FA),  # katakana (not the middle dot U+30FB)
    (0x30FC, 0x30FF),
    (0x3105, 0x312F),  # bopomofo
    (0x3131, 0x318E),  # Hangul compatibility jamo
    (0x31A0, 0x31BF),
    (0x31F0, 0x31FF),
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xAC00, 0xD7A3),  # Hangul syllables
    (0xF900, 0xFAFF),  # compatibility ideographs
    (0x1B000, 0x1B16F),  # kana supplement and extensions
    (0x20000, 0x3FFFF),  # CJK extensions B-H
)


def _class_body(codes: Iterable[int]) -> str:
    """Ascending code points as the body of a regex character class, consecutive runs written as ranges."""
    runs: list[list[int]] = []
    for code in codes:
        if runs and runs[-1][1] == code - 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    return "".join(chr(lo) if lo == hi else f"{chr(lo)}-{chr(hi)}" for lo, hi in runs)


def _non_cjk_bmp() -> Iterator[int]:
    """Every BMP code point outside ``_CJK_RANGES`` (which are sorted), ascending."""
    code = 0
    for lo, hi in _CJK_RANGES:
        if lo >= 0x10000:
            break
        yield from range(code, lo)
        code = hi + 1
    yield from range(code, 0x10000)


def _letter_classes() -> tuple[str, str]:
    """(upper, other): BMP letters that are upper or title case, and the remaining non-CJK BMP letters.

    Both are listed explicitly (not as ``[^\\W\\d_...]``) so that ``re`` compiles them to bitmaps: a class
    with categories or supplementary-plane ranges is checked item by item and made tokenising 2-3x slower.
    Letters outside the BMP other than CJK therefore separate tokens (historic scripts; NFKC has already
    turned mathematical alphanumerics into ASCII).
    """
    upper: list[int] = []
    other: list[int] = []
    for code in _non_cjk_bmp():
        ch = chr(code)
        if ch.isalpha():
            (upper if ch.isupper() or ch.istitle() else other).append(code)
    return _class_body(upper), _class_body(other)


def _token_pattern() -> re.Pattern[str]:
    """Compile the splitter: (capitalised) words, digit runs, CJK characters, acronyms."""
    upper_body, lower_body = _letter_classes()
    upper, lower = f"[{upper_body}]", f"[{lower_body}]"
    cjk = "".join(chr(lo) if lo == hi else f"{chr(lo)}-{chr(hi)}" for lo, hi in _CJK_RANGES)
    # The first three alternatives start on different kinds of character; the last three all start on an
    # upper-case letter not followed by a lower-case one, and their order decides how acronyms split.
    return re.compile(
        f"{upper}?{lower}+"  # budget, Server, été
        r"|\d+"
        f"|[{cjk}]"  # one CJK character
        f"|{upper}{{2,}}(?=s(?!{lower}))"  # PDFs -> PDF (the lone s is then dropped)
        f"|{upper}+(?={upper}{lower})"  # HTTPServer -> HTTP
        f"|{upper}+"  # HTTP, Q
    )


_TOKEN = _token_pattern()
_DROP = STOP_WORDS | frozenset("abcdefghijklmnopqrstuvwxyz")


def tokenize(text: str) -> list[str]:
    """Split ``text`` into lower-case BM25 terms (rules in the module docstring); the same rule for all text."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    return [token for piece in _TOKEN.findall(text) if (token := piece.lower()) not in _DROP]


_EXTENSION = re.compile(
    rf"(?<=[^\W_])\.(?:{'|'.join(sorted(FILE_EXTENSIONS, key=len, reverse=True))})(?![^\W_])", re.IGNORECASE
)
"""A file name's extension: ``.`` and a known extension after a letter or digit, before none."""


def terms(text: str) -> list[str]:
    """The terms of ``text`` (module docstring, "What counts as a term"): :func:`tokenize` of the text with file
    names' extensions taken out, less lone digits. The one rule of what the tab's texts must share."""
    if "." in text:
        text = _EXTENSION.sub(" ", text)
    return [token for token in tokenize(text) if not (len(token) == 1 and token.isdigit())]
