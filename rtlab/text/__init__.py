"""The rules about text that every stage shares, each defined once: the tokeniser, BM25, text folding, numbers
in text, anchors (IDs, dates, amounts, quantities, names), paths and file names (and file names mentioned in prose), and the POSIX shell lexer and parser."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtlab._lazy import attach

if TYPE_CHECKING:
    from rtlab.text._anchors import Anchor as Anchor
    from rtlab.text._anchors import AnchorIndex as AnchorIndex
    from rtlab.text._anchors import AnchorKind as AnchorKind
    from rtlab.text._anchors import anchor_in as anchor_in
    from rtlab.text._anchors import find_anchors as find_anchors
    from rtlab.text._bm25 import BM25 as BM25
    from rtlab.text._bm25 import IdfKind as IdfKind
    from rtlab.text._fold import fold_text as fold_text
    from rtlab.text._mentions import FILE_EXTENSIONS as FILE_EXTENSIONS
    from rtlab.text._mentions import FILE_MENTION as FILE_MENTION
    from rtlab.text._mentions import file_mentions as file_mentions
    from rtlab.text._numbers import YEAR_RANGE as YEAR_RANGE
    from rtlab.text._numbers import Number as Number
    from rtlab.text._numbers import NumberIndex as NumberIndex
    from rtlab.text._numbers import find_numbers as find_numbers
    from rtlab.text._numbers import is_year_like as is_year_like
    from rtlab.text._numbers import matches as matches
    from rtlab.text._numbers import number_index as number_index
    from rtlab.text._paths import content_id as content_id
    from rtlab.text._paths import is_under as is_under
    from rtlab.text._paths import name_key as name_key
    from rtlab.text._paths import normalize_path as normalize_path
    from rtlab.text._paths import relative_to as relative_to
    from rtlab.text._shell import Compound as Compound
    from rtlab.text._shell import CompoundKind as CompoundKind
    from rtlab.text._shell import Part as Part
    from rtlab.text._shell import Pipeline as Pipeline
    from rtlab.text._shell import Redirect as Redirect
    from rtlab.text._shell import Simple as Simple
    from rtlab.text._shell import Word as Word
    from rtlab.text._shell import literal_word as literal_word
    from rtlab.text._shell import parse as parse
    from rtlab.text._shell import split_shell_words as split_shell_words
    from rtlab.text._tokens import STOP_WORDS as STOP_WORDS
    from rtlab.text._tokens import terms as terms
    from rtlab.text._tokens import tokenize as tokenize

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._tokens": ("STOP_WORDS", "tokenize", "terms"),
        "._anchors": ("Anchor", "AnchorIndex", "AnchorKind", "anchor_in", "find_anchors"),
        "._bm25": ("BM25", "IdfKind"),
        "._fold": ("fold_text",),
        "._mentions": ("FILE_EXTENSIONS", "FILE_MENTION", "file_mentions"),
        "._numbers": (
            "Number",
            "NumberIndex",
            "YEAR_RANGE",
            "find_numbers",
            "is_year_like",
            "matches",
            "number_index",
        ),
        "._paths": ("normalize_path", "relative_to", "is_under", "name_key", "content_id"),
        "._shell": (
            "Part",
            "Word",
            "literal_word",
            "Redirect",
            "Simple",
            "Pipeline",
            "Compound",
            "CompoundKind",
            "parse",
            "split_shell_words",
        ),
    },
)
