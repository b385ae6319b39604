"""Text folded for comparison: case and white space (and, on request, compatibility forms) made alike."""

from __future__ import annotations

import unicodedata


def fold_text(text: str, *, compatibility: bool = False) -> str:
    """``text`` with case and white space folded: every run of white space one space, none at the ends, letters
    case-folded (``str.casefold``). Two requirements on the tab are the same when these are.

    ``compatibility`` first applies Unicode NFKC, so full-width forms, ligatures and no-break spaces fold to
    their plain forms (the diagnosis compares quotes of the judge with what the agent was shown this way).
    """
    if compatibility:
        text = unicodedata.normalize("NFKC", text)
    return " ".join(text.split()).casefold()
