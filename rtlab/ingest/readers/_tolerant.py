"""The tolerant reading contract, written once and applied to every reader (through ``_base.typed``).

A log is read record by record. A record that cannot be parsed or is not understood (a line that is not JSON,
invalid JSON, an unknown record type, a missing or mistyped field, a result before its call, a call id seen
twice, an invalid ``\\`` escape) is skipped or repaired and reported as a :class:`~rtlab.records.ReadWarning`
naming file, line and reason; the rest of the file is read. A file is refused only when nothing in it is
recognisable as its format.

Readers (and ``rtlab.io``, which cannot know the records) say what they skipped as text, one warning a string
in the form ``f"{path}:{line}: {reason}"`` (``f"{path}: {reason}"`` without a line), appended to a list they
keep in ``Trajectory.meta["warnings"]``; :func:`settle` turns those strings into typed warnings on
``Trajectory.warnings`` (:func:`read_warning`, the kind by :data:`KINDS`), so a reader written in that style
fulfils the contract unchanged. Then:

- a file from which the reader found no tool call at all says so (``no-steps``), naming the formats whose
  readers do find steps in it (:func:`formats_with_steps`; ``meta["formats_with_steps"]`` for
  :func:`rtlab.ingest.read_unit`, which, when the format was detected rather than asked for, reads the file
  with the one of them that finds most);
- ``ReadOptions.strict`` turns the first warning into a :class:`~rtlab.errors.ReaderError` naming its file and
  line.

Per-record tolerance inside a reader's loop is :class:`record`: ``with record(warnings, path, line): ...``
turns an error raised while one record is handled (rtlab's own ``ReaderError`` for a missing or mistyped
field, or the ``KeyError`` / ``TypeError`` / ``ValueError`` ... of a shape the reader did not expect) into a
warning, and the loop goes on with the next record.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from rtlab.errors import ReaderError
from rtlab.records import ReadWarning, Trajectory, WarningKind

if TYPE_CHECKING:
    from rtlab.ingest.readers._registry import FileFacts, ReadOptions

_KIND_PATTERNS: tuple[tuple[str, WarningKind], ...] = (
    (r"^not JSON\b", "not-json"),
    (r"not complete JSON|cut off", "truncated"),
    (r"\brepaired\b|lone surrogate", "repaired"),
    (r"^invalid JSON\b|no line is|no JSON value", "invalid-json"),
    (r"\bunknown (record|event|item|message|entry|action|observation|role|block|part)\b", "unknown-record"),
    (r"\bunknown\b.*\btype\b|\btype\b.*\bnot known\b", "unknown-record"),
    (
        r"\bcall id\b.*\b(more than one|twice|again|already)\b|\bappears again\b|\bused by more than one\b",
        "duplicate-id",
    ),
    (
        r"\bbefore its call\b|\bno (earlier|open|matching) (tool )?call\b|\banswers no\b|\bmatches no\b"
        r"|\bno call\b|\borphan",
        "orphan-result",
    ),
    (r"^no tool call found\b", "no-steps"),
    (r"\bshare \d+ tool_use id|\bduplicate\b.*\bid\b", "duplicate-id"),
    (
        r"\bexpected\b.*\bgot\b|\bmissing field\b|\bnot understood\b|\bnot an object\b|\bis not a\b",
        "bad-record",
    ),
)
KINDS: tuple[tuple[re.Pattern[str], WarningKind], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), kind) for pattern, kind in _KIND_PATTERNS
)
"""The kind of a warning written as text, by the first pattern its reason matches (else ``other``)."""


def warning_kind(reason: str) -> WarningKind:
    """The kind of fault a warning's reason describes (:data:`KINDS`)."""
    for pattern, kind in KINDS:
        if pattern.search(reason):
            return kind
    return "other"


_LINE_PREFIX = re.compile(r"^line (\d+): ")
_HEAD = re.compile(
    r"^(?P<path>[^\n]+?)(?::(?P<line>\d+))?(?: \[(?P<field>(?:[^\[\]]|\[[^\[\]]*\])*)\])?: (?P<reason>.*)$",
    re.DOTALL,
)
"""A warning written as ``path``, ``path:line`` or ``path:line [field]`` (a field may hold ``[i]``), then ``": "``."""


def _is_path(head: str, source: str) -> bool:
    """Whether the text before a warning's ``": "`` names a file (rather than being part of the reason)."""
    if head.startswith(source):
        return True
    parent = str(Path(source).parent)
    return head.startswith(("/", "./", "../", "~/")) or (parent not in (".", "") and head.startswith(parent))


def read_warning(text: str | ReadWarning, source: str, kind: WarningKind | None = None) -> ReadWarning:
    """A warning written as text (``"{path}:{line}: {reason}"``, ``"{path}:{line} [{field}]: {reason}"``,
    ``"{path}: {reason}"``, ``"line N: ..."`` or just a reason) as a :class:`ReadWarning`; ``source`` (the file
    read) is its path when the text names none."""
    if isinstance(text, ReadWarning):
        return text
    path, line, reason, field = source, None, text, None
    m = _LINE_PREFIX.match(text)
    if m is not None:
        line, reason = int(m.group(1)), text[m.end() :]
    else:
        head = _HEAD.match(text)
        if head is not None and _is_path(head.group("path"), source):
            path, reason, field = head.group("path"), head.group("reason"), head.group("field")
            line = int(head.group("line")) if head.group("line") else None
    return ReadWarning(path=path, line=line, reason=reason, kind=kind or warning_kind(reason), field=field)


def warn(
    warnings: list[str], path: Path | str, line: int | None, reason: str, *, field: str | None = None
) -> None:
    """Say in a reader's warnings that a record was skipped, repaired or not understood (``field``: where in
    the record, as ``messages[3].parts[2]``)."""
    where = f"{path}:{line}" if line is not None else str(path)
    if field:
        where += f" [{field}]"
    warnings.append(f"{where}: {reason}")


SKIPPED_ERRORS: tuple[type[Exception], ...] = (
    ReaderError,
    KeyError,
    TypeError,
    ValueError,
    AttributeError,
    IndexError,
    LookupError,
)
"""What handling one record may raise that skips that record only: rtlab's own field errors, and the errors of
a record whose shape the reader did not expect (``RecursionError`` and the like still stop the file)."""


class record:
    """``with record(warnings, path, line): handle(rec)``: an error raised while one record is handled (see
    :data:`SKIPPED_ERRORS`) is said in ``warnings`` (``"record not understood (...); skipped"``, or the
    field error's own words) and the reader goes on with the next record."""

    __slots__ = ("warnings", "path", "line", "what", "faults")

    def __init__(
        self,
        warnings: list[str],
        path: Path | str,
        line: int | None,
        what: str = "record",
        faults: list[BaseException] | None = None,
    ) -> None:
        self.warnings = warnings
        self.path = path
        self.line = line
        self.what = what
        self.faults = faults
        """Where the errors caught are kept, when given (a reader that read nothing raises the first)."""

    def __enter__(self) -> record:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool:
        if exc is None or not isinstance(exc, SKIPPED_ERRORS):
            return False
        self.warnings.append(skipped_because(exc, self.path, self.line, self.what))
        if self.faults is not None:
            self.faults.append(exc)
        return True


def skipped_because(exc: BaseException, path: Path | str, line: int | None, what: str = "record") -> str:
    """The warning text for a record skipped because handling it raised ``exc``."""
    if isinstance(exc, ReaderError):
        where = exc.path if exc.line is None else f"{exc.path}:{exc.line}"
        if exc.line is None and line is not None and exc.path == str(path):
            where = f"{path}:{line}"
        field = f" [{exc.field}]" if exc.field else ""
        return f"{where}{field}: {exc.message}; {what} not understood, skipped"
    detail = f"{type(exc).__name__}: {exc}"[:200]
    at = f"{path}:{line}" if line is not None else str(path)
    return f"{at}: {what} not understood ({detail}); skipped"


# ---------------------------------------------------------------------------------------------------------
# After a reader: typed warnings, files with no step, --strict


def settle(trajectories: list[Trajectory], path: Path, fmt: str | None, options: ReadOptions) -> None:
    """Apply the contract to what a reader returned for ``path``: its warnings typed, a file with no tool call
    said (with the formats that find steps in it), and, with ``options.strict``, the first warning raised."""
    for t in trajectories:
        typed_warnings(t)
        out_of_range(t)
    if fmt is not None and trajectories and not any(s.answered for t in trajectories for s in t.steps):
        found = formats_with_steps(path, fmt, options) if options.alternatives else {}
        fits = ", ".join(f"{name} ({n} steps)" for name, n in found.items())
        events = sum(len(t.events) for t in trajectories)
        reason = f"no tool call found in it read as {fmt} ({events} other records read); " + (
            f"formats whose readers find steps in it: {fits}" if fits else "no other reader finds steps in it"
        )
        for t in trajectories:
            t.warnings.append(ReadWarning(str(path), None, reason, "no-steps"))
            if found:
                t.meta["formats_with_steps"] = found
    if options.strict:
        faults = [w for t in trajectories for w in t.warnings if w.kind != "join"]
        if faults:  # the first fault in a record, else the file's (no step found)
            w = min(faults, key=lambda w: (w.kind == "no-steps", w.line is None, w.line or 0))
            raise ReaderError(
                w.path, f"{w.reason} (--strict: a reading warning is an error)", line=w.line, field=w.field
            )


INT64 = (-(2**63), 2**63 - 1)
"""The whole numbers every table and the store can hold (a 64-bit signed integer): a count or a status past them
in a log (``"input_tokens": 1e30`` written as digits) is no count the harness meant."""


def out_of_range(t: Trajectory) -> None:
    """Whole numbers no table can hold (token counts, exit statuses, read offsets and limits past a 64-bit
    integer) are dropped from what was read and said (``bad-record``), so one absurd field never loses the run
    in one command (the store's build) while another reads it."""
    low, high = INT64

    def bad(value: object) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and not low <= value <= high

    if t.usage is not None:
        for name in (
            "input_tokens",
            "output_tokens",
            "cached_input_tokens",
            "reasoning_tokens",
            "total_tokens",
        ):
            value = getattr(t.usage, name)
            if bad(value):
                setattr(t.usage, name, None)
                t.warnings.append(
                    ReadWarning(
                        t.source_path,
                        None,
                        f"{value} is no token count (past a 64-bit integer); dropped",
                        "bad-record",
                        f"usage.{name}",
                    )
                )
    for step in t.steps:
        dropped = []
        if bad(step.exit_code):
            dropped.append(("exit_code", step.exit_code))
            step.exit_code = None
        action = step.action
        if action is not None:
            if bad(action.offset):
                dropped.append(("action.offset", action.offset))
                action = dataclasses.replace(action, offset=None)
            if bad(action.limit):
                dropped.append(("action.limit", action.limit))
                action = dataclasses.replace(action, limit=None)
            step.action = action
        for name, value in dropped:
            t.warnings.append(
                ReadWarning(
                    t.source_path,
                    None,
                    f"step {step.index}: {value} is past a 64-bit integer; dropped",
                    "bad-record",
                    name,
                )
            )


def typed_warnings(t: Trajectory) -> None:
    """Move the warnings a reader wrote as text (``meta["warnings"]``) to ``t.warnings`` as typed records."""
    texts = t.meta.pop("warnings", None)
    if not texts:
        return
    if not isinstance(texts, list):
        texts = [texts]
    seen = {(w.path, w.line, w.reason) for w in t.warnings}
    for text in texts:
        w = read_warning(text if isinstance(text, str | ReadWarning) else str(text), t.source_path)
        if (w.path, w.line, w.reason) not in seen:
            seen.add((w.path, w.line, w.reason))
            t.warnings.append(w)


def formats_with_steps(path: Path, fmt: str, options: ReadOptions) -> dict[str, int]:
    """The other formats whose readers read ``path`` and find answered tool calls in it, with how many, most
    first (each reader tried as is, its errors ignored: only what it finds counts).

    A reader is run only when it is offered the file (:func:`~rtlab.ingest.readers._registry.offered`): by
    its declared shape (``FILE_SHAPE``: the JSON-lines readers are not run on a file
    :func:`rtlab.io.iter_json_lines` refuses, where each would read its first 64 lines before refusing it)
    and by its module's ``may_find_steps``, a necessary condition of its reading finding a tool call, tested
    on the file's facts (:class:`~rtlab.ingest.readers._registry.FileFacts`: the iterator's verdict, the file
    as one document, its lines), each found once for every reader. What a reader not offered the file would
    have said is what it says: it finds nothing in it."""
    from dataclasses import replace

    from rtlab.ingest.readers._registry import FORMATS, FileFacts, get_reader

    probe = replace(options, strict=False, alternatives=False)
    found: dict[str, int] = {}
    facts = FileFacts(path)
    for name in FORMATS:
        if name in (fmt, "rtlab") or not _offered(name, facts):
            continue
        try:
            got = get_reader(name).read(path, probe)
        except Exception:  # a reader that does not read this file: it does not fit
            continue
        n = sum(t.n_steps for t in got)
        if n:
            found[name] = n
    return dict(sorted(found.items(), key=lambda kv: -kv[1]))


def _offered(name: str, facts: FileFacts) -> bool:
    """:func:`~rtlab.ingest.readers._registry.offered`, a test that fails on what it meets (a fault of the test:
    ``tests/test_formats_with_steps.py`` runs every one on odd shapes) offering the file: the reader decides."""
    from rtlab.ingest.readers._registry import offered

    try:
        return offered(name, facts)
    except Exception:  # the reader is run, as it was before any test
        return True


def count(trajectories: Iterable[Trajectory]) -> int:
    """Warnings over trajectories (what ``rtlab info`` prints)."""
    return sum(len(t.warnings) for t in trajectories)


def as_dicts(warnings: Iterable[ReadWarning]) -> list[dict[str, Any]]:
    """Warnings as plain objects (the store's column, the viewer's payload)."""
    return [
        {"path": w.path, "line": w.line, "field": w.field, "reason": w.reason, "kind": w.kind}
        for w in warnings
    ]
