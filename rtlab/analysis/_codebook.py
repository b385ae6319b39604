"""The failure codebook: why a rubric point was lost, as versioned data shipped with rtlab.

``codebook_v2.json`` (package data; ``codebook_v1.json``, version 1.1, beside it) holds the categories of the RunningTab diagnosis (Shown but Missing,
Dropped or Distorted, Discovery failure, Other with sub-reasons), each with a definition, the ordered
decision rules that lead to it and a real example, plus the word lists the rules read. ``load_codebook()``
turns it into typed, immutable records; :mod:`rtlab.analysis._diagnose` applies the rules in order, and every label it
writes records :data:`CODEBOOK_VERSION`. A human annotator applies the same rules from the same file.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

CODEBOOK_VERSION = "rtlab-codebook/2.5"
CODEBOOK_FILE = "codebook_v2.json"
"""The packaged codebook the labeler applies; ``codebook_v1.json`` (version 1.1) stays beside it, loadable by
path, so that labels written under it can be read against the rules that made them."""
CATEGORIES: tuple[str, ...] = ("shown_but_missing", "dropped_or_distorted", "discovery", "other")
Confidence = Literal["high", "low"]
"""How far a rule's label can be trusted (:attr:`Rule.confidence`)."""
CONFIDENCES: tuple[Confidence, ...] = ("high", "low")
"""The category keys, in the order tables show them."""
LEXICON_LISTS: tuple[str, ...] = (
    "format_words",
    "access_words",
    "source_file_words",
    "reasoning_words",
    "rubric_error_phrases",
    "mismatch_phrases",
    "absent_phrases",
    "no_source_words",
    "unread_phrases",
    "data_words",
)


@dataclass(frozen=True)
class Example:
    """A real failed rubric item that shows the category."""

    run: str | None
    """Trajectory id of the run (``codex:15_plain``); ``None`` where no real run shows the case."""
    rubric_index: int | None
    """Index of the rubric item in the task's rubric."""
    why: str
    """One sentence: why this item belongs here."""

    @property
    def cite(self) -> str:
        """``codex:15_plain rubric 3``, or ``(no real example)``."""
        return f"{self.run} rubric {self.rubric_index}" if self.run is not None else "(no real example)"


@dataclass(frozen=True)
class Rule:
    """One decision rule; the labeler tries them in codebook order and the first that holds decides."""

    id: str
    """``R1``, ``R2``, ...: the order of application."""
    category: str
    """The category the rule assigns (one of :data:`CATEGORIES`)."""
    subreason: str | None
    """The sub-reason it assigns (only under ``other``)."""
    text: str
    """The condition, written for a human annotator."""
    labeler: str | None = None
    """How the labeler tests the condition where it cannot read what a human reads (``None``: as written)."""
    confidence: Confidence = "high"
    """How far the rule's label can be trusted (codebook 2.2): ``high`` when it reads the evidence itself
    (what was opened, shown and delivered, an answer re-run); ``low`` when it rests on the judge's wording, on
    a fallback that found no evidence, or on a reading a careful annotator often labels otherwise (a codebook
    without the field: every rule ``high``)."""


@dataclass(frozen=True)
class Subreason:
    """A sub-reason of ``other``."""

    key: str
    """The key a label writes as its ``subreason`` (``reasoning_computation``, ``judge_error``, ...)."""
    name: str
    """Display name."""
    definition: str
    """What it means, written for a human annotator."""
    rules: tuple[str, ...]
    """Ids of the rules that assign it, in order."""
    example: Example
    """A real failed item it fits, where a real run shows one (see :class:`Example`)."""


@dataclass(frozen=True)
class Category:
    """A failure category: definition, the rules that assign it and a real example."""

    key: str
    """``shown_but_missing``, ``dropped_or_distorted``, ``discovery`` or ``other``."""
    name: str
    """Display name (``Shown but Missing``)."""
    definition: str
    """What it means, written for a human annotator."""
    rules: tuple[str, ...]
    """Ids of the rules that assign this category, in order."""
    example: Example
    """A real failed item it fits."""
    subreasons: tuple[Subreason, ...] = ()
    """Its sub-reasons, in codebook order (only ``other`` has any)."""


@dataclass(frozen=True)
class Feature:
    """One piece of evidence the rules read, and how it is determined."""

    name: str
    """What the codebook calls it (``referred files``)."""
    definition: str
    """What it is and how it is determined, written for a human annotator."""


@dataclass(frozen=True)
class Lexicon:
    """The word and phrase lists the rules read: case-insensitive Python regular expressions."""

    lists: Mapping[str, tuple[str, ...]]
    """List name -> patterns as written in the codebook (read-only)."""

    def find(self, name: str, text: str) -> list[str]:
        """The text each pattern of list ``name`` matches in ``text`` (first match, pattern order; empty when
        none matches): what a rationale quotes."""
        found = (rx.search(text) for rx in _compiled(self.lists[name]))
        return [m.group(0) for m in found if m is not None]

    def has(self, name: str, text: str) -> bool:
        """Whether some pattern of list ``name`` occurs in ``text``."""
        return any(rx.search(text) for rx in _compiled(self.lists[name]))


@dataclass(frozen=True)
class Codebook:
    """The whole codebook: version, features, ordered rules, categories and lexicon."""

    version: str
    """The version the file states; the packaged file's must be :data:`CODEBOOK_VERSION`."""
    title: str
    """The codebook's title."""
    unit: str
    """What one label is about (one failed rubric item)."""
    procedure: tuple[str, ...]
    """The labelling procedure, one paragraph per step, for a human annotator."""
    features: tuple[Feature, ...]
    """The evidence the rules read, in codebook order."""
    rules: tuple[Rule, ...]
    """All rules in the order the labeler applies them."""
    categories: tuple[Category, ...]
    """The categories in the order of :data:`CATEGORIES`."""
    lexicon: Lexicon
    """The word and phrase lists the rules read."""
    changes: tuple[str, ...] = ()
    """The change log: what each version changed from the one before, newest first."""

    def category(self, key: str) -> Category:
        """The category with this key; ``KeyError`` naming the known keys otherwise."""
        for c in self.categories:
            if c.key == key:
                return c
        raise KeyError(f"no category {key!r}; known: {[c.key for c in self.categories]}")

    def rule(self, rule_id: str) -> Rule:
        """The rule with this id."""
        for r in self.rules:
            if r.id == rule_id:
                return r
        raise KeyError(f"no rule {rule_id!r}")

    @property
    def subreasons(self) -> tuple[str, ...]:
        """All sub-reason keys, in codebook order."""
        return tuple(s.key for c in self.categories for s in c.subreasons)

    def describe(self) -> str:
        """The codebook as plain text for annotators: categories with definitions, then the ordered rules."""
        lines = [f"{self.title} ({self.version})", f"Unit: {self.unit}", ""]
        for c in self.categories:
            lines += [f"{c.name} [{c.key}]: {c.definition}", f"  rules: {', '.join(c.rules)}"]
            lines.append(f"  example: {c.example.cite}: {c.example.why}")
            for s in c.subreasons:
                lines += [
                    f"  - {s.name} [{s.key}]: {s.definition}",
                    f"    example: {s.example.cite}: {s.example.why}",
                ]
        lines += ["", "Rules, applied in order (the first that holds decides):"]
        for r in self.rules:
            target = r.category + (f"/{r.subreason}" if r.subreason else "")
            lines.append(f"  {r.id} -> {target}: {r.text}")
            if r.labeler:
                lines.append(f"      labeler: {r.labeler}")
        return "\n".join(lines)


@functools.lru_cache(maxsize=64)
def _compiled(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, re.IGNORECASE) for p in patterns)


# ---------------------------------------------------------------------------------------------------------
# Loading


class CodebookError(ValueError):
    """The codebook file is malformed; the message names the field."""


def _get(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(data, dict):
        raise CodebookError(f"{where}: expected an object")
    if key not in data:
        raise CodebookError(f"{where}: missing field {key!r}")
    value = data[key]
    if not isinstance(value, kind):
        raise CodebookError(f"{where}.{key}: expected {kind}, got {type(value).__name__}")
    return value


def _confidence(data: dict[str, Any], where: str) -> Confidence:
    value = data.get("confidence", "high")
    if value not in CONFIDENCES:
        raise CodebookError(f"{where}.confidence: expected one of {list(CONFIDENCES)}, got {value!r}")
    return "high" if value == "high" else "low"


def _example(data: dict[str, Any], where: str) -> Example:
    run = _get(data, "run", (str, type(None)), where)
    index = _get(data, "rubric_index", (int, type(None)), where)
    return Example(run=run, rubric_index=index, why=_get(data, "why", str, where))


def _subreason(data: dict[str, Any], where: str) -> Subreason:
    return Subreason(
        key=_get(data, "key", str, where),
        name=_get(data, "name", str, where),
        definition=_get(data, "definition", str, where),
        rules=tuple(_get(data, "rules", list, where)),
        example=_example(_get(data, "example", dict, where), f"{where}.example"),
    )


def _category(data: dict[str, Any], where: str) -> Category:
    return Category(
        key=_get(data, "key", str, where),
        name=_get(data, "name", str, where),
        definition=_get(data, "definition", str, where),
        rules=tuple(_get(data, "rules", list, where)),
        example=_example(_get(data, "example", dict, where), f"{where}.example"),
        subreasons=tuple(
            _subreason(s, f"{where}.subreasons[{i}]")
            for i, s in enumerate(_get(data, "subreasons", list, where))
        ),
    )


def _check(cb: Codebook) -> None:
    """Consistency: the four categories, unique rule ids, and each rule listed under what it assigns."""
    keys = tuple(c.key for c in cb.categories)
    if keys != CATEGORIES:
        raise CodebookError(f"categories must be {list(CATEGORIES)} in that order, got {list(keys)}")
    ids = [r.id for r in cb.rules]
    if len(set(ids)) != len(ids):
        raise CodebookError(f"rule ids repeat: {ids}")
    for c in cb.categories:
        assigned = tuple(r.id for r in cb.rules if r.category == c.key)
        if assigned != c.rules:
            raise CodebookError(
                f"category {c.key}: lists rules {list(c.rules)}, rules assigning it are {assigned}"
            )
        for s in c.subreasons:
            assigned = tuple(r.id for r in cb.rules if r.category == c.key and r.subreason == s.key)
            if assigned != s.rules:
                raise CodebookError(
                    f"subreason {s.key}: lists rules {list(s.rules)}, rules assigning it are {assigned}"
                )
        known = {s.key for s in c.subreasons}
        for r in cb.rules:
            if r.category == c.key and (r.subreason is not None) and r.subreason not in known:
                raise CodebookError(f"rule {r.id}: sub-reason {r.subreason!r} is not a sub-reason of {c.key}")
    missing = [
        name for name in LEXICON_LISTS if name not in cb.lexicon.lists and not _added_later(name, cb.version)
    ]
    if missing:
        raise CodebookError(f"lexicon lacks {missing}")
    for name, patterns in cb.lexicon.lists.items():
        for p in patterns:
            try:
                re.compile(p)
            except re.error as exc:
                raise CodebookError(
                    f"lexicon.{name}: pattern {p!r} is not a regular expression: {exc}"
                ) from None


_ADDED_IN = {"no_source_words": (2, 0), "unread_phrases": (2, 1), "data_words": (2, 1)}
"""The codebook version that brought each lexicon list an older one lacks."""


def _added_later(name: str, version: str) -> bool:
    """A lexicon list that a codebook of ``version`` predates (``no_source_words`` came with 2.0,
    ``unread_phrases`` and ``data_words`` with 2.1)."""
    if name not in _ADDED_IN:
        return False
    try:
        major, minor = (int(x) for x in version.rsplit("/", 1)[-1].split(".")[:2])
    except ValueError:
        return False
    return (major, minor) < _ADDED_IN[name]


def parse_codebook(data: dict[str, Any], where: str = "codebook") -> Codebook:
    """A :class:`Codebook` from its JSON object; :class:`CodebookError` names the bad field."""
    lexicon = _get(data, "lexicon", dict, where)
    lists: dict[str, tuple[str, ...]] = {}
    for name, patterns in lexicon.items():
        if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
            raise CodebookError(f"{where}.lexicon.{name}: expected a list of strings")
        lists[name] = tuple(patterns)
    cb = Codebook(
        version=_get(data, "version", str, where),
        title=_get(data, "title", str, where),
        unit=_get(data, "unit", str, where),
        procedure=tuple(_get(data, "procedure", list, where)),
        features=tuple(
            Feature(
                name=_get(f, "name", str, f"{where}.features[{i}]"),
                definition=_get(f, "definition", str, f"{where}.features[{i}]"),
            )
            for i, f in enumerate(_get(data, "features", list, where))
        ),
        rules=tuple(
            Rule(
                id=_get(r, "id", str, f"{where}.rules[{i}]"),
                category=_get(r, "category", str, f"{where}.rules[{i}]"),
                subreason=_get(r, "subreason", (str, type(None)), f"{where}.rules[{i}]"),
                text=_get(r, "text", str, f"{where}.rules[{i}]"),
                labeler=_get(r, "labeler", (str, type(None)), f"{where}.rules[{i}]"),
                confidence=_confidence(r, f"{where}.rules[{i}]"),
            )
            for i, r in enumerate(_get(data, "rules", list, where))
        ),
        categories=tuple(
            _category(c, f"{where}.categories[{i}]")
            for i, c in enumerate(_get(data, "categories", list, where))
        ),
        lexicon=Lexicon(MappingProxyType(lists)),
        changes=tuple(str(c) for c in data.get("changes", [])),
    )
    _check(cb)
    return cb


@functools.lru_cache(maxsize=4)
def _load_packaged() -> Codebook:
    text = resources.files("rtlab.analysis").joinpath(CODEBOOK_FILE).read_text(encoding="utf-8")
    cb = parse_codebook(json.loads(text), CODEBOOK_FILE)
    if cb.version != CODEBOOK_VERSION:
        raise CodebookError(
            f"{CODEBOOK_FILE}: version {cb.version!r}, this rtlab expects {CODEBOOK_VERSION!r}"
        )
    return cb


def load_codebook(path: str | Path | None = None) -> Codebook:
    """The packaged codebook (``rtlab/analysis/codebook_v2.json``), or one read from ``path`` (for drafts of a new
    version); the records are immutable, so the packaged one is read once."""
    if path is None:
        return _load_packaged()
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CodebookError(f"{path}: invalid JSON at line {exc.lineno}: {exc.msg}") from None
    return parse_codebook(data, str(path))
