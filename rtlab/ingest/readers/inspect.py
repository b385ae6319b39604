"""Inspect AI eval logs: ``.eval`` archives and ``.json`` logs, one trajectory per sample and epoch.

An Inspect log is an ``EvalLog`` (UKGovernmentBEIS/inspect_ai src/inspect_ai/log/_log.py: ``version``,
``status``, ``eval`` an ``EvalSpec``, ``plan``, ``results``, ``stats`` an ``EvalStats``, ``samples`` of
``EvalSample``). A ``.json`` log is that object whole (log versions 1 and 2). A ``.eval`` log is a ZIP archive
(log/_recorders/eval.py): ``header.json`` (the log without samples; while the eval runs, or after a crash, only
``_journal/start.json`` with ``version``, ``eval`` and ``plan``), one ``samples/<id>_epoch_<n>.json`` per
sample (a re-logged sample's later member wins), ``summaries.json`` or ``_journal/summaries/<n>.json``, and
``reductions.json``. Inspect 0.3.2xx compresses the members with zstd (ZIP method 93), read here by
:mod:`rtlab.ingest.readers._zip`. Header versions 2 and 3 are read: 3 is the short-lived format whose samples
carry ``message_pool`` / ``call_pool``; later logs went back to 2 with ``events_data`` (PRs #3374, #3519).

Each sample becomes a trajectory, id ``inspect:<eval_id>/<sample id>/<epoch>``. Its steps are the tool calls
of ``sample.messages``: every ``ChatMessageAssistant.tool_calls[i]`` (``ToolCall``: ``id``, ``function``,
``arguments``, ``parse_error``; tool/_tool_call.py) answered by the ``ChatMessageTool`` whose
``tool_call_id`` is its ``id`` (model/_chat_message.py; ``error`` a ``ToolCallError``, ``tool_error`` in
version-1 logs). The top-level ``ToolEvent`` of the same call (event/_tool.py, matched by ``message_id``, else
by id in order) gives the call's start and end times and ``truncated`` (original bytes, limit). Calls that
appear only as events (the ``submit`` call that ``react()`` removes from the messages, agent/_react.py
``_remove_submit_tool``) are kept as ``other`` events. Text, reasoning and other content blocks become
message, reasoning and marker events; ``ModelEvent`` errors become error events, placed by time.

What the model saw. ``execute_tools`` (model/_call_tools.py) truncates a string result to ``max_tool_output``
(16 KiB by default) with ``truncate_tool_output`` *before* it builds the ``ChatMessageTool`` and the
``ToolEvent``, and the providers send the tool message's text. So the message holds what the model was sent,
and the log never holds the untruncated output: ``output`` and ``shown`` are that text (clip policy ``none``;
checked on the real logs: every tool message in the (pool-resolved) ``ModelEvent.input`` equals the one in
``sample.messages``), ``clipped`` is set where Inspect truncated, and Inspect's wrapper and cut are marked as
frames (:func:`rtlab.ingest.readers._frames.inspect_truncation`: head-only truncation up to 0.3.116, middle
truncation since). A call whose tool message carries an ``error`` was sent the error message instead of the
content (``_openai.py``: ``Error: {message}``; Anthropic, Google and the Responses API: the message alone):
``shown`` is the error's message, all of it a frame, and ``is_error`` is set.

Samples run by ``rtlab.inspect``'s agent (``--solver rtlab/runningtab``) leave ``sample.messages`` to the scorer
without the tab's calls and status lines, and keep the conversation as the model saw it in the sample's store
(:data:`TRANSCRIPT_KEY`): such a sample's steps are read from there, tab calls typed as ``tab`` actions, and the
spans where its ``clip`` option cut an output (:data:`CLIPS_KEY`) are clip frames. The agent builds each step it
captures live with :func:`live_step`, this reader's own rule, so a replay of the log equals the live tab.

Attachments: ``condense_sample`` (log/_condense.py) replaces data URIs in messages, and strings over 100
characters in events, by ``attachment://<hash>`` (``tc://`` in the oldest logs) kept in
``sample.attachments``; every such reference in what this reader reads (:data:`SAMPLE_KEYS_READ`,
:data:`EVENT_KEYS_READ`) is resolved before it is read, as ``resolve_sample_attachments`` does, and the references
in the rest (a model event's ``input`` and ``call``, which repeat the conversation so far, the pools, ...) are
only looked up, to say how many name no attachment. The pools (``message_pool`` / ``events_data``,
event/_pool.py) hold only ``ModelEvent`` inputs and calls, which this reader does not need: ``sample.messages``
is never pooled.

Tools typed (tool/_tools/): ``bash`` (``cmd``, later ``command``) is a shell command line, ``python`` a
script, ``bash_session`` ``type_submit`` a shell line (its echo, prompt and tail notice framed),
``text_editor`` ``view`` a read (or a folder list) with its ``cat -n`` header framed, ``create`` a write,
``str_replace`` / ``insert`` / ``undo_edit`` an edit; ``read_file`` a read, ``grep`` and ``list_files`` the
``grep -rn`` / ``find`` command lines they run; ``think``, ``web_search``, ``web_browser_*`` and custom tools
are others, except a custom tool that the events show returned a sandbox file unchanged: a ``read_file``
``SandboxEvent`` while the tool ran (util/_sandbox/events.py, whose ``content_display`` logs the first 20 lines
and ``Output truncated (N additional lines)``) whose text is the tool's result (or its first 20 lines, with the
same number of lines) makes the step a ``read`` of that file (``meta["sandbox_file_results"]``). Scores (``sample.scores``, ``Score``: ``value``, ``answer``, ``explanation``, ``metadata``) whose
value is a grade Inspect's ``value_to_float`` knows (``C``/``I``/``P``/``N``, yes/no, true/false, a bool, or
a number in [0, 1]) become a :class:`~rtlab.records.Judgement` (one item per scorer, passed at full marks);
the others are kept in ``meta["scores"]``. Token usage is ``sample.model_usage`` summed over models;
``input_tokens`` there excludes cache reads and writes since 0.3.184 (PR #3341) and included them for some
providers before, so each entry's ``total_tokens`` decides.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import shlex
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from rtlab.errors import ReaderError, TooLargeError
from rtlab.ingest._clipping import ClipPolicy, get_policy
from rtlab.ingest.readers._base import (
    ReadOptions,
    call_command,
    compact_json,
    deliverable_file,
    parse_arguments,
    read_command,
    tab_action,
    typed,
)
from rtlab.ingest.readers._frames import (
    editor_clip_frames,
    inspect_truncation,
    output_frames,
    read_tool_reply,
    session_frames,
    whole,
)
from rtlab.ingest.readers._registry import SUMMARY_ONLY, FileFacts, NoSummary
from rtlab.ingest.readers._tolerant import SKIPPED_ERRORS, skipped_because
from rtlab.ingest.readers._zip import ZIP_MAGIC, ArchiveTooLargeError, Limits, ZipArchive, zip_names
from rtlab.io import head_bytes, load_json, parse_utf8_json
from rtlab.records import (
    Action,
    Deliverable,
    DeliverableFile,
    Event,
    EventKind,
    Frame,
    ItemResult,
    Judgement,
    Step,
    TokenUsage,
    Trajectory,
    status_start,
)

NAME = "inspect"
LOOKS_FOR = (
    "an Inspect AI log: a ZIP archive (.eval) holding header.json or _journal/start.json, or a JSON object "
    'beginning {"version": N, "status": ..., "eval": {...}} (.json)'
)
DEFAULT_CLIP = "none"

HEADER = "header.json"
START = "_journal/start.json"
SAMPLES_DIR = "samples/"
SUMMARIES = "summaries.json"
JOURNAL_SUMMARIES = "_journal/summaries/"
KNOWN_VERSIONS = (1, 2, 3)
MIDDLE_TRUNCATION_SINCE = (0, 3, 117)
"""Inspect keeps head and tail of a truncated tool output from 0.3.117 on (PR #2193), the head before."""
ATTACHMENT_PREFIXES = ("attachment://", "tc://")
STORE_PREFIX = "rtlab_tab:"
"""How every sample-store key ``rtlab.inspect``'s agent writes begins (Inspect's ``StoreModel`` style)."""
TRANSCRIPT_KEY = f"{STORE_PREFIX}transcript"
"""The sample-store key under which ``rtlab.inspect``'s agent keeps the conversation as the model saw it (tab
calls and status lines included), while ``sample.messages`` holds what the scorer read (without them). A sample
whose store holds it is read from it."""
SETTINGS_KEY = f"{STORE_PREFIX}settings"
"""The sample-store key under which ``rtlab.inspect``'s agent keeps its settings: ``method`` (the arm's label,
``RunningTab``, ``DCI``, ...) and ``variant`` (the ablation) become the trajectory's labels, the rest
``meta["agent"]`` (a ``run.json`` beside the log still wins, as for every format)."""
CLIPS_KEY = f"{STORE_PREFIX}clips"
"""The sample-store key under which ``rtlab.inspect``'s agent keeps, by call id, the ``[start, end]`` span of the
tool message's text where an rtlab clip policy (its ``clip`` option) cut the tool's output: a ``clip`` frame."""

_JSON_LOG = re.compile(
    rb'\A(?:\xef\xbb\xbf)?\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:\s*"\w+"\s*,\s*"eval"\s*:\s*\{'
)
_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")
_GRADES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0, "yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
"""Inspect's ``value_to_float`` (scorer/_metric.py): CORRECT, INCORRECT, PARTIAL, NOANSWER, booleans in words."""
_EDIT_COMMANDS = {"str_replace", "insert", "undo_edit"}
TYPED_TOOLS = frozenset({"bash", "python", "bash_session", "text_editor", "read_file", "grep", "list_files"})
"""Inspect's own tools whose calls this reader types from their arguments; any other tool is an ``other``
unless the log shows it returned a sandbox file verbatim (a ``read``, see :meth:`_Sample._sandbox_read`)."""


# ---------------------------------------------------------------------------------------------------------
# Detection


def sniff(path: Path) -> bool:
    """A ZIP archive whose central directory holds ``header.json`` or ``_journal/start.json`` (or a ``.eval`` ZIP
    whose directory cannot be read), or a JSON object whose first keys are ``version``, ``status`` and
    ``eval`` (the order ``EvalLog`` writes them in)."""
    try:
        if not path.is_file():
            return False
    except OSError:
        return False
    head = head_bytes(path, 4096)
    if head.startswith(ZIP_MAGIC):
        names = zip_names(path)
        if names is None:  # a damaged archive: claimed when it is named as a log, so that reading says why
            return path.suffix == ".eval"
        return HEADER in names or START in names
    return bool(_JSON_LOG.match(head))


# ---------------------------------------------------------------------------------------------------------
# The log: header and samples, from either container


_Built = tuple[tuple[tuple[int, str], str], Trajectory | Exception]
"""A sample's place among the log's trajectories (:func:`_sample_order`) and its trajectory, or what building
it raised."""


@dataclass
class _Log:
    """A log being read: its header, and each sample built into its trajectory as soon as it is loaded
    (:meth:`take`): from a ``.eval`` log, no more than one sample's records are held at a time."""

    path: Path
    container: str
    header: dict[str, Any]
    policy: ClipPolicy
    summarized: list[tuple[Any, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    faults: list[ReaderError] = field(default_factory=list)
    """Why samples were skipped (the first is raised when none could be read)."""
    refused: list[tuple[str, TooLargeError]] = field(default_factory=list)
    """Sample members not read, each with why (past the decompression limits)."""
    built: list[_Built] = field(default_factory=list)
    """Each sample kept, in the order loaded (what building it raised is raised by :func:`_read` when no sample
    before it in the log's order raised first)."""
    stored: set[tuple[str, Any]] = field(default_factory=set)
    """``(str(id), epoch)`` of each sample kept."""
    unkept: list[str] = field(default_factory=list)
    """What is said of each sample without an id or an epoch (not understood, skipped)."""

    def __post_init__(self) -> None:
        try:
            self.header_warnings = _header_warnings(self.path, self.header)
            self.header_fault: ReaderError | None = None
        except ReaderError as exc:  # raised once the log is loaded, as every fault of loading comes first
            self.header_warnings, self.header_fault = [], exc

    def take(self, where: str, sample: dict[str, Any]) -> None:
        """Keep one sample (with an id and an epoch) and build its trajectory, the log's warnings left to
        :func:`_read`."""
        if "id" not in sample or "epoch" not in sample:
            missing_key = "id" if "id" not in sample else "epoch"
            self.unkept.append(
                f"{self.path} [{where}: {missing_key}]: missing field; sample not understood, skipped"
            )
            return
        self.stored.add((str(sample["id"]), sample["epoch"]))
        if self.header_fault is not None:  # nothing is built from a header that is not an Inspect log's
            return
        order = _sample_order(sample["id"], sample["epoch"])
        result: Trajectory | Exception
        try:
            result = _Sample(self, where, sample, self.policy).build()
        except Exception as exc:  # noqa: BLE001 (raised by _read if no sample before it in order raised first)
            result = exc
        self.built.append((order, result))


def _parse_member(z: ZipArchive, name: str) -> Any:
    data = z.read(name)
    try:
        return parse_utf8_json(data)
    except UnicodeDecodeError as exc:
        raise ReaderError(z.path, f"not valid UTF-8 (byte offset {exc.start})", field=name) from None
    except json.JSONDecodeError as exc:
        raise ReaderError(
            z.path, f"invalid JSON: {exc.msg} (column {exc.colno})", line=exc.lineno, field=name
        ) from None


def _load_eval(path: Path, limits: Limits, policy: ClipPolicy) -> _Log:
    """The log's header and samples, each sample built as it is loaded; a sample (or summary) member past the
    limit of one member is skipped with the reason in the warnings (:mod:`rtlab.ingest.readers._zip`); the
    header past it, or the members past the archive's limit in all, fail the log (a log too large to read whole
    within the limit is never read in part)."""
    with ZipArchive(path, limits=limits) as z:
        names = z.names
        if HEADER in names:
            header_name = HEADER
        elif START in names:
            header_name = START
        else:
            raise ReaderError(
                path, f"ZIP archive without {HEADER} or {START}: not an Inspect log (or a damaged one)"
            )
        header = _parse_member(z, header_name)
        if not isinstance(header, dict):
            raise ReaderError(path, f"expected an object, got {type(header).__name__}", field=header_name)
        log = _Log(path, "eval", header, policy)
        if header_name == START:
            log.warnings.append(f"no {HEADER}: the eval was running or did not finish; read from {START}")
        for name in names:
            if name.startswith(SAMPLES_DIR) and name.endswith(".json"):
                try:
                    sample = _parse_member(z, name)
                    if not isinstance(sample, dict):
                        raise ReaderError(
                            path, f"expected an object, got {type(sample).__name__}", field=name
                        )
                except ArchiveTooLargeError:
                    raise
                except TooLargeError as exc:  # past the limit of one member: skipped, said below
                    log.refused.append((name, exc))
                    continue
                except ReaderError as exc:  # one sample not readable: said, the others read
                    log.faults.append(exc)
                    log.warnings.append(skipped_because(exc, path, None, "sample"))
                    continue
                log.take(name, sample)
                del sample  # the next sample is parsed without this one held
        summary_names = [SUMMARIES] if SUMMARIES in names else _journal_summaries(names)
        for name in summary_names:
            try:
                rows = _parse_member(z, name)
            except ArchiveTooLargeError:
                raise
            except TooLargeError as exc:
                log.warnings.append(f"summaries not read: {exc}")
                continue
            if isinstance(rows, list):
                log.summarized += [(r.get("id"), r.get("epoch")) for r in rows if isinstance(r, dict)]
    log.warnings += [f"sample skipped: {exc}" for _, exc in log.refused]
    return log


def _sample_key(member: str) -> tuple[str, Any]:
    """``(id, epoch)`` from a sample member's name (``samples/<id>_epoch_<n>.json``, as Inspect names them)."""
    stem = member[len(SAMPLES_DIR) : -len(".json")]
    sample_id, _, epoch = stem.rpartition("_epoch_")
    return (sample_id, int(epoch)) if epoch.isdigit() else (stem, None)


def _journal_summaries(names: list[str]) -> list[str]:
    """The journal's summary files, in the order Inspect numbered them."""

    def order(name: str) -> tuple[int, int, str]:
        stem = name[len(JOURNAL_SUMMARIES) : -len(".json")]
        return (0, int(stem), "") if stem.isdigit() else (1, 0, stem)

    return sorted((n for n in names if n.startswith(JOURNAL_SUMMARIES) and n.endswith(".json")), key=order)


def _load_json(path: Path, policy: ClipPolicy) -> _Log:
    loaded: list[str] = []
    data = load_json(path, loaded)
    if not isinstance(data, dict):
        raise ReaderError(path, f"expected an Inspect log object, got {type(data).__name__}")
    samples = data.get("samples")
    if samples is None:
        samples = []
    if not isinstance(samples, list):
        raise ReaderError(path, f"expected a list, got {type(samples).__name__}", field="samples")
    found = []
    for i, sample in enumerate(samples):
        if not isinstance(sample, dict):
            loaded.append(f"{path} [samples[{i}]]: expected an object, got {type(sample).__name__}; skipped")
            continue
        found.append((f"samples[{i}]", sample))
    header = {k: v for k, v in data.items() if k != "samples"}
    log = _Log(path, "json", header, policy)
    log.warnings.extend(loaded)
    for where, sample in found:
        log.take(where, sample)
    return log


def _read(path: Path, options: ReadOptions, policy: ClipPolicy) -> list[Trajectory]:
    """The log's trajectories, in Inspect's order of samples, each with the log's warnings before its own."""
    if head_bytes(path, 4).startswith(ZIP_MAGIC):
        log = _load_eval(path, options.limits(), policy)
    else:
        log = _load_json(path, policy)
    if log.header_fault is not None:
        raise log.header_fault
    log.warnings += log.header_warnings
    log.warnings += log.unkept
    skipped = [w for w in log.warnings if "not understood" in w]
    refused = {_sample_key(name) for name, _ in log.refused}
    stored = log.stored
    missing = [(i, e) for i, e in log.summarized if (str(i), e) not in stored and (str(i), e) not in refused]
    if missing:
        log.warnings.append(
            f"{len(missing)} sample(s) summarized but not stored (log_samples off, or not flushed yet): "
            + ", ".join(f"{i} epoch {e}" for i, e in missing[:10])
            + (" ..." if len(missing) > 10 else "")
        )
    if not log.built and log.refused:
        raise TooLargeError(
            path,
            f"no sample read: {len(log.refused)} refused, the first: {log.refused[0][1].message}",
        )
    if not log.built and log.faults:  # samples there, none readable: the first one's fault
        raise log.faults[0]
    if not log.built and skipped:
        raise ReaderError(path, f"no sample could be read ({skipped[0]})")
    if not log.built:
        raise ReaderError(
            path,
            "the log holds no samples (run with log_samples=False, or none finished)"
            + (f"; {len(log.summarized)} summarized" if log.summarized else ""),
        )
    found = []
    for _, result in sorted(log.built, key=lambda built: built[0]):
        if isinstance(result, Exception):
            raise result
        warnings = [*log.warnings, *result.meta["warnings"]]  # the sample's own, put there by build()
        if warnings:
            result.meta["warnings"] = warnings
        else:
            del result.meta["warnings"]
        found.append(result)
    return found


def _header_warnings(path: Path, header: dict[str, Any]) -> list[str]:
    """What is said of a log's header (a version rtlab does not know); a header without an ``eval`` object or
    an integer ``version`` is not an Inspect log's (a :class:`ReaderError`)."""
    spec = header.get("eval")
    if not isinstance(spec, dict):
        raise ReaderError(path, "missing field or not an object: not an Inspect log", field="eval")
    version = header.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ReaderError(path, f"expected int, got {type(version).__name__}", field="version")
    if version not in KNOWN_VERSIONS:
        return [f"log version {version} is not one rtlab knows {KNOWN_VERSIONS}; read as version 2"]
    return []


def _run_name(spec: dict[str, Any], path: Path) -> Any:
    """The run part of a trajectory id: the eval's id, else its task's id or name, else the log's name."""
    return spec.get("eval_id") or spec.get("task_id") or spec.get("task") or path.stem


def _inspect_version(spec: dict[str, Any]) -> str | None:
    """The ``inspect_ai`` version that wrote the log (``eval.packages``)."""
    packages = spec.get("packages")
    return _text_or_none(packages.get("inspect_ai")) if isinstance(packages, dict) else None


def _sample_order(sample_id: Any, epoch: Any) -> tuple[tuple[int, str], str]:
    """Where a sample stands among a log's trajectories: by epoch, then by id as Inspect sorts them."""
    return (_sort_epoch(epoch), _sort_id(sample_id))


def _sort_epoch(epoch: Any) -> tuple[int, str]:
    return (epoch, "") if isinstance(epoch, int) else (0, str(epoch))


def _sort_id(sample_id: Any) -> str:
    """Inspect's ``sort_samples``: string ids as they are, numbers zero-filled to 20 places."""
    return sample_id if isinstance(sample_id, str) else str(sample_id).zfill(20)


# ---------------------------------------------------------------------------------------------------------
# Attachments


SAMPLE_KEYS_READ = frozenset(
    {
        "id", "epoch", "input", "target", "messages", "output", "scores", "metadata", "store", "events",
        "model_usage", "total_time", "working_time", "turn_count", "uuid", "error", "error_retries", "limit",
        "started_at", "completed_at",
    }
)  # fmt: skip
"""The keys of a sample that :class:`_Sample` reads: their attachments are resolved (:func:`_resolved_sample`);
the sample's other keys (the pools, ``choices``, ``sandbox``, ``files``, ``setup``, ...) are left out of the
resolved sample, their references only counted. A key read from the sample must be here."""
EVENT_KEYS_READ = frozenset(
    {
        "event", "action", "timestamp", "completed", "id", "message_id", "model", "output", "error", "file",
        "truncated", "function", "arguments", "result", "events",
    }
)  # fmt: skip
"""The keys of an event (at any depth of ``events``) that :class:`_Sample` reads (of an ``output`` that is an
object, only :data:`_OUTPUT_READ`); the others (a model event's ``input``, ``call``, ``tools`` and ``config``, a
state event's ``changes``, ...) are left out of the resolved sample, their references only counted. A key read
from an event must be here."""


def _resolve(value: Any, attachments: dict[str, Any], missing: set[str]) -> Any:
    """``value`` with every ``attachment://<hash>`` (or ``tc://<hash>``) string replaced by its attachment; a list
    or object in which nothing is replaced is given back as it is (not copied), one in which something is, as a
    new one."""
    kind = type(value)
    if kind is str:
        return _attachment(value, attachments, missing) if value.startswith(ATTACHMENT_PREFIXES) else value
    if kind is list:
        items: Any = enumerate(value)
    elif kind is dict:
        items = value.items()
    else:
        return value
    copy: Any = None
    for key, item in items:
        kind = type(item)
        if kind is str:
            if not item.startswith(ATTACHMENT_PREFIXES):
                continue
            new = _attachment(item, attachments, missing)
        elif kind is dict or kind is list:
            new = _resolve(item, attachments, missing)
        else:
            continue
        if new is not item:
            if copy is None:
                copy = list(value) if type(value) is list else dict(value)
            copy[key] = new
    return value if copy is None else copy


def _attachment(value: str, attachments: dict[str, Any], missing: set[str]) -> Any:
    """The attachment a reference string names, or the string itself when none (its key put in ``missing``)."""
    for prefix in ATTACHMENT_PREFIXES:
        if value.startswith(prefix):
            key = value[len(prefix) :]
            if key in attachments:
                return attachments[key]
            missing.add(key)
    return value


def _resolved_events(events: Any, attachments: dict[str, Any], missing: set[str], unread: list[Any]) -> Any:
    """``events`` (a sample's, or an event's nested ``events``) with each event's keys read resolved
    (:data:`EVENT_KEYS_READ`) and its other keys left out, put in ``unread``; a list item that is no event (nor
    a reference, which may name one) is left out too (the reader reads only objects)."""
    if type(events) is not list:
        return _resolve(events, attachments, missing)
    out: list[Any] = []
    for ev in events:
        kind = type(ev)
        if kind is dict:
            kept: dict[str, Any] = {}
            for key, value in ev.items():
                if key not in EVENT_KEYS_READ:
                    unread.append(value)
                    continue
                kind = type(value)  # most are short strings: _resolve inlined for them
                if kind is str:
                    if value.startswith(ATTACHMENT_PREFIXES):
                        value = _attachment(value, attachments, missing)
                elif kind is dict or kind is list:
                    if key == "events":
                        value = _resolved_events(value, attachments, missing, unread)
                    elif key == "output" and kind is dict:  # a model event's: its first message's id is read
                        unread.append(value)
                        value = _resolved_path(value, _OUTPUT_READ, attachments, missing)
                    else:
                        value = _resolve(value, attachments, missing)
                kept[key] = value
            out.append(kept)
        elif kind is str:
            out.append(_resolve(ev, attachments, missing))
        else:
            unread.append(ev)
    return out


_OUTPUT_READ = ("choices", 0, "message", "id")
"""What is read of an event's ``output`` that is an object (a ``ModelOutput``): the id of its first choice's
message (:meth:`_Sample._index_events`)."""


def _resolved_path(
    value: Any, path: tuple[str | int, ...], attachments: dict[str, Any], missing: set[str]
) -> Any:
    """``value`` as :func:`_resolve` gives it as far as ``path`` (keys of objects, indices of lists) reads into it:
    each object or list on the way holds only the item the path goes on to (or nothing, where it has none),
    the item at the end is resolved whole, and a reference on the way is resolved to its attachment, which is
    not looked into (as :func:`_resolve` does)."""
    kind = type(value)
    if not path or (kind is not dict and kind is not list):
        return _resolve(value, attachments, missing)
    step, rest = path[0], path[1:]
    if kind is dict:
        return {step: _resolved_path(value[step], rest, attachments, missing)} if step in value else {}
    if type(step) is int and 0 <= step < len(value):
        return [*([None] * step), _resolved_path(value[step], rest, attachments, missing)]
    return []


_REFERENCE_STARTS = tuple(b'"' + prefix.encode() for prefix in ATTACHMENT_PREFIXES)


def _may_refer(values: list[Any]) -> bool:
    """Whether ``values`` may hold a reference: ``False`` when orjson's text of them holds neither prefix
    (orjson escapes nothing in them), ``True`` when it does, or when orjson cannot write them."""
    try:
        text = orjson.dumps(values)
    except orjson.JSONEncodeError:
        return True
    return any(start in text for start in _REFERENCE_STARTS)


def _count_unread(values: list[Any], attachments: dict[str, Any], missing: set[str]) -> None:
    """Put in ``missing`` the key of every reference in ``values`` that names no attachment, as :func:`_resolve`
    does, without resolving anything (nothing reads them): found in orjson's text of ``values``
    (:func:`_reference_keys`), or, where orjson cannot write them (an integer past 64 bits, a lone surrogate,
    deep nesting) or a key holds an escape, by :func:`_resolve` itself."""
    if not values:
        return
    try:
        keys = _reference_keys(orjson.dumps(values))
    except orjson.JSONEncodeError:
        keys = None
    if keys is None:
        _resolve(values, attachments, missing)
        return
    missing.update(key for key in keys if key not in attachments)


def _reference_keys(text: bytes) -> set[str] | None:
    """The keys of the strings that begin ``attachment://`` or ``tc://`` in ``text``, orjson's compact JSON of
    some values, except the keys of objects; ``None`` when a key holds an escape (a backslash). orjson escapes
    nothing in the prefixes, and a quote inside a string only with a backslash: such a string is its prefix
    after a quote no backslash escapes, and an object's key is followed by a colon."""
    keys: set[bytes] = set()
    for start in _REFERENCE_STARTS:
        if start not in text:  # (the oldest logs' prefix, mostly): nothing to split
            continue
        pieces = text.split(start)
        for before, piece in itertools.pairwise(pieces):
            if before[-1:] == b"\\":  # an escaped quote: the prefix is inside another string
                continue
            end = piece.find(b'"')
            key = piece[:end]
            if end < 0 or 0x5C in key:
                return None
            if piece[end + 1 : end + 2] != b":":
                keys.add(key)
    return {key.decode() for key in keys}


def _resolved_sample(sample: dict[str, Any], warnings: list[str], where: str) -> dict[str, Any]:
    """The sample's keys read (:data:`SAMPLE_KEYS_READ`, :data:`EVENT_KEYS_READ`) with their attachments resolved;
    a version-1 ``transcript`` and ``score`` in today's places. The warning of references that name no
    attachment counts them in the whole sample."""
    sample = dict(sample)
    if "transcript" in sample and "events" not in sample and isinstance(sample["transcript"], dict):
        transcript = sample.pop("transcript")
        sample["events"] = transcript.get("events") or []
        sample["attachments"] = transcript.get("content") or {}
    if "score" in sample and "scores" not in sample:
        sample["scores"] = {"score": sample.pop("score")} if sample.get("score") is not None else None
    attachments = sample.pop("attachments", None) or {}
    if not isinstance(attachments, dict):
        warnings.append(f"{where}: attachments is {type(attachments).__name__}, not an object; ignored")
        attachments = {}
    missing: set[str] = set()
    unread: list[Any] = []
    resolved: dict[str, Any] = {}
    for key, value in sample.items():
        if key in SAMPLE_KEYS_READ:
            resolved[key] = value
        else:
            unread.append(value)
    events = resolved.pop("events", None)
    if _may_refer(list(resolved.values())):  # (the messages hold none but data URIs: mostly nothing to do)
        resolved = {key: _resolve(value, attachments, missing) for key, value in resolved.items()}
    if "events" in sample:
        resolved["events"] = _resolved_events(events, attachments, missing, unread)
    _count_unread(unread, attachments, missing)
    if missing:
        warnings.append(
            f"{where}: {len(missing)} attachment reference(s) name no attachment; left as they are"
        )
    return resolved


# ---------------------------------------------------------------------------------------------------------
# Content


def _block_marker(block: dict[str, Any]) -> str:
    """``[type]`` or ``[type: name]`` for a content block that is not text (image, audio, document, ...)."""
    kind = block.get("type") if isinstance(block.get("type"), str) else "content"
    for key in ("filename", "name", "format"):
        value = block.get(key)
        if isinstance(value, str) and value and not value.startswith("data:"):
            return f"[{kind}: {value}]"
    return f"[{kind}]"


def _blocks(content: Any) -> list[tuple[str, str, dict[str, Any]]]:
    """``(kind, text, block)`` for each piece of a message's content: ``text``, ``reasoning`` or ``other``."""
    if content is None:
        return []
    if isinstance(content, str):
        return [("text", content, {})]
    if not isinstance(content, list):
        return [("other", compact_json(content), {})]
    out: list[tuple[str, str, dict[str, Any]]] = []
    for block in content:
        if isinstance(block, str):
            out.append(("text", block, {}))
        elif not isinstance(block, dict):
            out.append(("other", compact_json(block), {}))
        elif block.get("type") == "text" and isinstance(block.get("text"), str):
            out.append(("text", block["text"], block))
        elif block.get("type") == "reasoning":
            # a redacted block's ``reasoning`` is the provider's encrypted payload: only its summary is text
            key = "summary" if block.get("redacted") else "reasoning"
            value = block.get(key)
            out.append(("reasoning", value if isinstance(value, str) else "", block))
        else:
            out.append(("other", _block_marker(block), block))
    return out


def content_text(content: Any) -> str:
    """A message's content as text: text blocks joined with newlines (``ChatMessage.text``), every other block
    (image, audio, video, document, data, reasoning, tool use) as a ``[type]`` marker line in its place."""
    return "\n".join(
        text if kind == "text" else _block_marker(block) for kind, text, block in _blocks(content)
    )


# ---------------------------------------------------------------------------------------------------------
# Steps: commands and typed actions


def _str(args: dict[str, Any], *keys: str) -> str | None:
    for key in keys:
        value = args.get(key)
        if isinstance(value, str):
            return value
    return None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _view_range(args: dict[str, Any]) -> tuple[int | None, int | None]:
    """``(offset, limit)`` of ``text_editor``'s ``view_range`` ``[first, last]`` (1-based, ``-1``: to the end)."""
    rng = args.get("view_range")
    if isinstance(rng, list) and len(rng) == 2 and all(_int(v) is not None for v in rng):
        first, last = rng
        return first, (None if last == -1 or last < first else last - first + 1)
    return None, None


def _read_file_range(args: dict[str, Any]) -> tuple[int | None, int | None]:
    """``(offset, limit)`` of ``read_file``: its ``offset`` is 0-based, the read starts at line ``offset + 1``."""
    offset, limit = _int(args.get("offset")), _int(args.get("limit"))
    start = max(0, offset or 0) + 1
    return (None if start == 1 and limit is None else start), limit


def _grep_command(args: dict[str, Any]) -> str | None:
    """The argv the ``grep`` tool runs (tool/_tools/_grep.py), as a shell command line."""
    pattern = _str(args, "pattern")
    if pattern is None:
        return None
    argv = ["grep", "-rn"]
    if args.get("fixed_strings") is True:
        argv.append("-F")
    if isinstance(args.get("glob"), str) and args["glob"]:
        argv += ["--include", args["glob"]]
    mode = args.get("output_mode")
    if mode == "files_with_matches":
        argv.append("-l")
    elif mode == "count":
        argv.append("-c")
    argv += ["--", pattern, _str(args, "path") or "."]
    return shlex.join(argv)


def _find_command(args: dict[str, Any]) -> str:
    """The argv the ``list_files`` tool runs (tool/_tools/_list_files.py), as a shell command line (its
    ``--`` left out where the path cannot be taken for an option)."""
    target = _str(args, "path") or "."
    argv = ["find", *(["--"] if target.startswith("-") else []), target, "-mindepth", "1"]
    depth = _int(args.get("depth"))
    if depth is not None:
        argv += ["-maxdepth", str(depth)]
    return shlex.join([*argv, "-print"])


def step_command(tool: str, args: dict[str, Any]) -> str:
    """``Step.command`` of an Inspect tool call: the command line of shell tools, the code of ``python``,
    ``read PATH [OFFSET [LIMIT]]`` / ``write PATH`` / ``edit PATH`` for file tools, else ``tool {json args}``."""
    if set(args) == {"_raw"}:
        return call_command(tool, args)
    if tool == "bash" and (cmd := _str(args, "cmd", "command")) is not None:
        return cmd
    if tool == "python" and (code := _str(args, "code")) is not None:
        return code
    if tool == "bash_session":
        line = _session_line(args)
        if line is not None:
            return line
    if tool == "text_editor" and (target := _str(args, "path")) is not None:
        command = args.get("command")
        if command == "view":
            return read_command(target, *_view_range(args))
        if command == "create":
            return f"write {target}"
        if command in _EDIT_COMMANDS:
            return f"edit {target}"
    if tool == "read_file" and (target := _str(args, "file_path")) is not None:
        return read_command(target, *_read_file_range(args))
    if tool == "grep" and (grep := _grep_command(args)) is not None:
        return grep
    if tool == "list_files":
        return _find_command(args)
    return call_command(tool, args)


def _session_line(args: dict[str, Any]) -> str | None:
    """The command line a ``bash_session`` call ran: ``input`` of ``type_submit`` (``command`` in the first
    versions of the tool), else ``None``."""
    if args.get("action") == "type_submit":
        return _str(args, "input")
    if "action" not in args:
        return _str(args, "command")
    return None


@dataclass(frozen=True)
class _Cut:
    """How Inspect truncated a step's output (see :func:`rtlab.ingest.readers._frames.inspect_truncation`)."""

    middle: bool = True
    limit: int | None = None


def type_step(step: Step) -> None:
    """Inspect's tools in harness-neutral terms (see the module's docstring), with Inspect's words as frames:
    the ``max_tool_output`` wrapper and its cut, the editor's ``cat -n`` header and clip notice, the terminal's
    echo and prompt around a ``bash_session`` line. An error result (the error message the model got) is
    framed whole. Truncation is taken to be Inspect's present middle cut; the reader passes the log's own."""
    _type_step(step, _Cut())


def _type_step(step: Step, cut: _Cut) -> None:
    shown = step.shown or ""
    status = status_start(shown)  # a recorded tab run's status line follows Inspect's wrapper
    wrapped = (
        None if step.is_error else inspect_truncation(shown[:status], middle=cut.middle, limit=cut.limit)
    )
    (start, end), outer = wrapped if wrapped is not None else ((0, len(shown)), ())
    if wrapped is not None and status < len(shown):
        outer = (*outer, Frame(status, len(shown), "frame"))
    action, inner = _typed_body(step, shown[start:end])
    step.action = action
    if step.is_error:
        step.frames = whole(shown)
        return
    shifted = [Frame(f.start + start, f.end + start, f.kind) for f in inner]
    step.frames = _merge([*outer, *shifted])


def _merge(frames: list[Frame]) -> tuple[Frame, ...]:
    """Frames in order without overlaps: a zero-width clip inside another frame is dropped, overlapping frames
    are joined (a ``clip`` wins)."""
    out: list[Frame] = []
    for f in sorted(frames, key=lambda f: (f.start, f.end)):
        if out and f.start < out[-1].end:
            if f.start == f.end:
                continue
            last = out[-1]
            joined = Frame(last.start, max(last.end, f.end), "frame")
            out[-1] = Frame(joined.start, joined.end, "clip") if "clip" in (last.kind, f.kind) else joined
        else:
            out.append(f)
    return tuple(out)


def _typed_body(step: Step, body: str) -> tuple[Action, tuple[Frame, ...]]:
    """The action of a call and the frames of its output ``body`` (the shown text inside Inspect's wrapper)."""
    tool, args, clipped = step.tool, step.args, step.clipped
    raw = set(args) == {"_raw"}
    if raw:
        return Action.other(tool), ()
    if (tab := tab_action(tool)) is not None:
        return tab, ()
    if tool == "bash" and (cmd := _str(args, "cmd", "command")) is not None:
        return Action.shell(cmd), output_frames(body, cmd, clipped=clipped, harness="inspect")
    if tool == "python" and (code := _str(args, "code")) is not None:
        return (
            Action("script", command=code, language="python"),
            output_frames(body, code, clipped=clipped, harness="inspect"),
        )
    if tool == "bash_session" and (line := _session_line(args)) is not None:
        frames = [*session_frames(body, line), *output_frames(body, line, clipped=clipped, harness="inspect")]
        return Action.shell(line), _merge(frames)
    if tool == "text_editor" and (target := _str(args, "path")) is not None:
        command = args.get("command")
        if command == "view":
            action, reply = read_tool_reply(body, target, clipped=clipped, harness="inspect")
            if action.kind == "read":
                action = Action.read(target, *_view_range(args))
            return action, _merge([*reply, *editor_clip_frames(body)])
        if command == "create":
            return Action("write", path=target), ()
        if command in _EDIT_COMMANDS:
            return Action("edit", path=target), ()
    if tool == "read_file" and (target := _str(args, "file_path")) is not None:
        return Action.read(target, *_read_file_range(args)), output_frames(
            body, "", clipped=clipped, harness="inspect"
        )
    if tool in ("grep", "list_files"):
        command = _grep_command(args) if tool == "grep" else _find_command(args)
        if command is not None:
            empty = body == "No matches found." or body.startswith("No files found in: ")
            return Action.shell(command), (
                whole(body) if empty else output_frames(body, command, clipped=clipped, harness="inspect")
            )
    if (
        tool not in TYPED_TOOLS
        and step.command.startswith("read ")
        and step.command != call_command(tool, args)
    ):
        return Action.read(step.command[len("read ") :]), ()  # a sandbox file returned verbatim (read time)
    return Action.other(tool), ()


# ---------------------------------------------------------------------------------------------------------
# One sample


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def _version(text: str | None) -> tuple[int, int, int] | None:
    m = _VERSION.match(text or "")
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def _usage(model_usage: Any) -> TokenUsage | None:
    """``sample.model_usage`` summed over models, with cached input counted in ``input_tokens``."""
    if not isinstance(model_usage, dict):
        return None
    total: TokenUsage | None = None
    for usage in model_usage.values():
        if not isinstance(usage, dict):
            continue
        inp, out, tot = (
            _int(usage.get("input_tokens")),
            _int(usage.get("output_tokens")),
            _int(usage.get("total_tokens")),
        )
        read, write = _int(usage.get("input_tokens_cache_read")), _int(usage.get("input_tokens_cache_write"))
        cached = (read or 0) + (write or 0)
        if inp is not None and cached and not (tot is not None and out is not None and inp + out == tot):
            inp += cached  # input_tokens excluded the cache (always since 0.3.184; Anthropic before)
        cost = usage.get("total_cost")
        one = TokenUsage(
            input_tokens=inp,
            output_tokens=out,
            cached_input_tokens=read,
            reasoning_tokens=_int(usage.get("reasoning_tokens")),
            total_tokens=tot,
            cost_usd=float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None,
        )
        total = one if total is None else total + one
    return total


def _grade(value: Any) -> float | None:
    """A score value as Inspect's ``value_to_float`` reads it, where it is a grade on [0, 1]; else ``None``."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        if value in _GRADES:
            return _GRADES[value]
        if value.lower() in _GRADES and value.lower() not in ("c", "i", "p", "n"):
            return _GRADES[value.lower()]
        try:
            number = float(value)
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) and 0.0 <= number <= 1.0 else None


def _judgement(scores: Any, source: str, meta: dict[str, Any]) -> Judgement | None:
    """A :class:`Judgement` with one item per scorer whose value is a grade; the rest go to ``meta["scores"]``."""
    if not isinstance(scores, dict) or not scores:
        return None
    items: list[ItemResult] = []
    values: dict[str, Any] = {}
    answers: dict[str, Any] = {}
    unmapped: dict[str, Any] = {}
    score_meta: dict[str, Any] = {}
    for index, (name, score) in enumerate(scores.items()):
        if not isinstance(score, dict):
            unmapped[name] = score
            continue
        grade = _grade(score.get("value"))
        if grade is None:
            unmapped[name] = score
            continue
        explanation = score.get("explanation")
        items.append(
            ItemResult(
                index=index,
                passed=grade == 1.0,
                score=grade,
                evidence=explanation if isinstance(explanation, str) and explanation else None,
            )
        )
        values[name] = score.get("value")
        if score.get("answer") is not None:
            answers[name] = score["answer"]
        if score.get("metadata"):
            score_meta[name] = score["metadata"]
    if unmapped:
        meta["scores"] = unmapped
    if score_meta:
        meta["score_metadata"] = score_meta
    if not items:
        return None
    summary: dict[str, Any] = {"scorers": list(scores), "values": values}
    if answers:
        summary["answers"] = answers
    return Judgement(
        items=items, judge="inspect scorers: " + ", ".join(values), source_path=source, summary=summary
    )


@dataclass
class _Extra:
    """An event from ``sample.events`` with no place in the messages, put on the timeline by its time."""

    item: Event
    at: datetime | None


_SANDBOX_CUT = re.compile(r"\n\nOutput truncated \((\d+) additional lines\)\Z")
SANDBOX_EVENT_LINES = 20
"""``content_display`` (inspect_ai/util/_sandbox/events.py) logs a file a ``read_file`` returned as its first 20
lines (``truncate_lines``) and ``Output truncated (N additional lines)``."""


def _same_text(logged: str, result: str) -> bool:
    """Whether a tool's ``result`` is the file whose ``read_file`` sandbox event logged ``logged``: the same
    text, or, where the event kept only the first lines, the same first lines and the same number of lines."""
    if logged == result:
        return True
    m = _SANDBOX_CUT.search(logged)
    if m is None:
        return False
    lines = result.splitlines()
    return len(lines) == SANDBOX_EVENT_LINES + int(m.group(1)) and logged[: m.start()] == "\n".join(
        lines[:SANDBOX_EVENT_LINES]
    )


def _walk_events(events: list[Any]) -> list[dict[str, Any]]:
    """Events and the events nested in them (``ToolEvent.events``, ``SubtaskEvent.events`` of older logs)."""
    out: list[dict[str, Any]] = []
    stack = list(reversed(events))
    while stack:
        ev = stack.pop()
        if isinstance(ev, dict):
            out.append(ev)
            nested = ev.get("events")
            if isinstance(nested, list):
                stack.extend(reversed(nested))
    return out


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _calls_first(messages: list[Any], warnings: list[str], path: Path, sample: str) -> list[tuple[int, Any]]:
    """``(position, message)`` in order, except that a tool message whose call is made by a later assistant
    message (a log written out of order) is moved to just after that message: results pair with calls by
    id, whatever their order (said in ``warnings``)."""
    made: dict[str, int] = {}
    for pos, msg in enumerate(messages):
        calls = msg.get("tool_calls") if isinstance(msg, dict) and msg.get("role") == "assistant" else None
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                made.setdefault(call["id"], pos)
    late: dict[int, list[tuple[int, Any]]] = {}
    order: list[tuple[int, Any]] = []
    for pos, msg in enumerate(messages):
        call_id = msg.get("tool_call_id") if isinstance(msg, dict) and msg.get("role") == "tool" else None
        at = made.get(call_id) if isinstance(call_id, str) else None
        if at is not None and at > pos:
            warnings.append(
                f"{path}:{pos + 1}: {sample}: messages[{pos}]: tool message for call {call_id!r} came before its "
                f"call (messages[{at}]); paired by id"
            )
            late.setdefault(at, []).append((pos, msg))
            continue
        order.append((pos, msg))
        order.extend(late.pop(pos, []))
    return order


def _call_step(index: int, call: dict[str, Any], line: int | None) -> Step:
    """The step of one ``ToolCall`` (``id``, ``function``, ``arguments``, ``parse_error``), not yet answered."""
    tool, call_id = call["function"], call["id"]
    args, args_error = parse_arguments(call.get("arguments"))
    args_error = _text_or_none(call.get("parse_error")) or args_error
    return Step(
        index=index, tool=tool, command=step_command(tool, args), args=args, call_id=call_id, line=line,
        args_error=args_error,
    )  # fmt: skip


def _answer_step(step: Step, message: dict[str, Any], policy: ClipPolicy, *, limit: int | None) -> None:
    """Answer ``step`` with its ``ChatMessageTool``: the text logged, and what the model was sent (the error's
    message for a call whose message carries an ``error``; ``limit``: the ``ToolEvent``'s truncation limit)."""
    text = content_text(message.get("content"))
    error = message.get("error")
    refused = error.get("message") if isinstance(error, dict) else message.get("tool_error")  # v1: tool_error
    step.output = text
    if isinstance(refused, str):
        step.is_error = True
        step.shown = refused
    else:
        step.shown = policy.apply(text)
        step.clipped = limit is not None or step.shown != text or inspect_truncation(text) is not None


def live_step(
    index: int,
    call: dict[str, Any],
    message: dict[str, Any],
    *,
    limit: int | None = None,
    clip: tuple[int, int] | None = None,
) -> Step:
    """The typed step that :func:`read` makes of one ``ToolCall`` and its ``ChatMessageTool`` (both as logged,
    ``model_dump()`` of Inspect's records), for an agent that captures while it runs (``rtlab.inspect``): what
    the live environment records is what a replay of the log records. ``limit``: Inspect's truncation limit,
    when it truncated the result; ``clip``: the span an rtlab clip policy's marker takes in it (:data:`CLIPS_KEY`)."""
    step = _call_step(index, call, None)
    _answer_step(step, message, get_policy(DEFAULT_CLIP), limit=limit)
    _type_step(step, _Cut(limit=limit))
    _add_clip(step, clip)
    return step


def _add_clip(step: Step, span: Any) -> None:
    """A ``clip`` frame where an rtlab clip policy cut the output (``span``: ``[start, end]`` in ``shown``)."""
    if step.is_error or not isinstance(span, (list, tuple)) or len(span) != 2:
        return
    start, end = span
    if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end <= len(step.shown or "")):
        return
    step.clipped = True
    step.frames = _merge([*step.frames, Frame(start, end, "clip")])


class _Sample:
    """Builds one trajectory from one sample: steps and events in the order of ``sample.messages``."""

    def __init__(self, log: _Log, where: str, raw: dict[str, Any], policy: ClipPolicy):
        self.log, self.path, self.where, self.policy = log, log.path, where, policy
        self.warnings: list[str] = []
        self.sample = _resolved_sample(raw, self.warnings, where)
        self.spec: dict[str, Any] = log.header["eval"]
        self.version = _inspect_version(self.spec)
        parsed = _version(self.version)
        self.middle = parsed is None or parsed >= MIDDLE_TRUNCATION_SINCE
        self.items: list[Step | Event] = []
        self.times: list[datetime | None] = []
        self.steps: list[Step] = []
        self.open: dict[str, list[Step]] = {}
        self.cuts: dict[int, _Cut] = {}
        self.truncations: list[dict[str, Any]] = []
        self.tool_errors: list[dict[str, Any]] = []
        self.positions: dict[int, int] = {}
        """Where each step stands in ``items`` (by step index)."""
        self.unlinked: list[dict[str, Any]] = []
        self.file_reads: list[dict[str, Any]] = []
        self.models: list[str] = []
        self.last_assistant: str | None = None
        self.first_user: str | None = None
        self.from_transcript = False
        self.clips: dict[str, Any] = {}
        """rtlab clip spans by call id (:data:`CLIPS_KEY`)."""
        """The steps come from the store's transcript (:data:`TRANSCRIPT_KEY`), not ``sample.messages``."""
        self.events = self._events()
        self._index_events()

    # --- errors and typed access ---------------------------------------------------------------------------

    def fail(self, message: str, where: str, line: int | None = None) -> ReaderError:
        return ReaderError(self.path, message, line=line, field=f"{self.where}: {where}")

    def get(self, obj: dict[str, Any], key: str, kind: type, where: str, line: int | None = None) -> Any:
        name = f"{where}.{key}" if where else key
        if key not in obj:
            raise self.fail("missing field", name, line)
        value = obj[key]
        if not isinstance(value, kind):
            raise self.fail(f"expected {kind.__name__}, got {type(value).__name__}", name, line)
        return value

    # --- events of the sample ------------------------------------------------------------------------------

    def _events(self) -> list[dict[str, Any]]:
        events = self.sample.get("events") or []
        if not isinstance(events, list):
            raise self.fail(f"expected a list, got {type(events).__name__}", "events")
        return [e for e in events if isinstance(e, dict)]

    def _index_events(self) -> None:
        """Top-level tool events by the id of their tool message and by call id; model events by the id of the
        assistant message they produced; model events that failed."""
        self.tool_by_message: dict[str, dict[str, Any]] = {}
        self.tool_by_id: dict[str, list[dict[str, Any]]] = {}
        self.tool_events: list[tuple[int, dict[str, Any]]] = []
        self.used: set[int] = set()
        self.model_by_message: dict[str, dict[str, Any]] = {}
        self.model_errors: list[tuple[int, dict[str, Any]]] = []
        self.sandbox_reads: list[tuple[datetime, str, str]] = []
        for ev in _walk_events(self.events):
            if ev.get("event") == "sandbox" and ev.get("action") == "read_file":
                at, file, text = _time(ev.get("timestamp")), ev.get("file"), ev.get("output")
                if at is not None and isinstance(file, str) and isinstance(text, str) and text:
                    self.sandbox_reads.append((at, file, text))
        for pos, ev in enumerate(self.events):
            if ev.get("event") == "tool" and isinstance(ev.get("id"), str):
                self.tool_events.append((pos, ev))
                if isinstance(ev.get("message_id"), str):
                    self.tool_by_message[ev["message_id"]] = ev
                self.tool_by_id.setdefault(ev["id"], []).append(ev)
            elif ev.get("event") == "model":
                if _text_or_none(ev.get("error")):
                    self.model_errors.append((pos, ev))
                output = ev.get("output")
                choices = output.get("choices") if isinstance(output, dict) else None
                if isinstance(choices, list) and choices and isinstance(choices[0], dict):
                    message = choices[0].get("message")
                    if isinstance(message, dict) and isinstance(message.get("id"), str):
                        self.model_by_message[message["id"]] = ev

    def _tool_event_for(self, call_id: str, message_id: Any) -> dict[str, Any] | None:
        """The tool event of a call: the one naming its tool message, else the first unused one with its id."""
        ev = self.tool_by_message.get(message_id) if isinstance(message_id, str) else None
        if ev is None or id(ev) in self.used or ev.get("id") != call_id:
            ev = next((e for e in self.tool_by_id.get(call_id, []) if id(e) not in self.used), None)
        if ev is not None:
            self.used.add(id(ev))
        return ev

    # --- the timeline --------------------------------------------------------------------------------------

    def add(self, item: Step | Event, at: datetime | None = None) -> int:
        self.items.append(item)
        self.times.append(at)
        return len(self.items) - 1

    def event(
        self,
        kind: EventKind,
        text: str,
        line: int | None,
        role: str | None = None,
        at: Any = None,
        **data: Any,
    ) -> Event:
        # positional (seq 0, its default): the dataclass's __init__ called with keywords costs about twice as much
        ev = Event(kind, text, role, 0, _text_or_none(at), line, data)
        self.add(ev, _time(at))
        return ev

    def messages(self) -> None:
        store = self.sample.get("store")
        store = store if isinstance(store, dict) else {}
        transcript = store.get(TRANSCRIPT_KEY)
        if transcript is not None:  # rtlab.inspect's agent: the conversation as the model saw it
            if not isinstance(transcript, list):
                raise self.fail(
                    f"expected a list, got {type(transcript).__name__}", f"store.{TRANSCRIPT_KEY}"
                )
            messages = transcript
            self.from_transcript = True
            clips = store.get(CLIPS_KEY)
            if isinstance(clips, dict):
                self.clips = {k: v for k, v in clips.items() if isinstance(k, str)}
        elif "messages" not in self.sample:  # EvalSample.messages defaults to an empty list
            self.warnings.append(f"{self.where}: the sample has no messages")
            return
        else:
            messages = self.get(self.sample, "messages", list, "")
        for pos, msg in _calls_first(messages, self.warnings, self.path, self.where):
            line = pos + 1
            where = f"messages[{pos}]"
            try:  # what _tolerant.record does, without an object a message
                self._message(msg, where, line)
            except SKIPPED_ERRORS as exc:
                self.warnings.append(skipped_because(exc, self.path, line, f"{self.where} {where}"))

    def _message(self, msg: Any, where: str, line: int) -> None:
        if not isinstance(msg, dict):
            raise self.fail(f"expected an object, got {type(msg).__name__}", where, line)
        role = self.get(msg, "role", str, where, line)
        data = {k: msg[k] for k in ("id", "source") if isinstance(msg.get(k), str)}
        if role == "system":
            self.event("system", content_text(msg.get("content")), line, role="system", **data)
        elif role == "user":
            text = content_text(msg.get("content"))
            if self.first_user is None:
                self.first_user = text
            self.event("message", text, line, role="user", **data)
        elif role == "assistant":
            self._assistant(msg, where, line, data)
        elif role == "tool":
            self._tool(msg, where, line)
        else:
            self.warnings.append(
                f"{self.path}:{line}: {self.where}: {where}: unknown role {role!r}; kept as an 'other' event"
            )
            self.event("other", content_text(msg.get("content")), line, role=role, **data)

    def _assistant(self, msg: dict[str, Any], where: str, line: int, data: dict[str, Any]) -> None:
        model = _text_or_none(msg.get("model"))
        if model:
            data["model"] = model
            if model not in self.models:
                self.models.append(model)
        mev = self.model_by_message.get(msg["id"]) if isinstance(msg.get("id"), str) else None
        at = (mev.get("completed") or mev.get("timestamp")) if mev is not None else None
        texts: list[str] = []

        def flush() -> None:
            text = "\n".join(texts)
            texts.clear()
            if text.strip():
                self.last_assistant = text
                self.event("message", text, line, role="assistant", at=at, **data)

        for kind, text, block in _blocks(msg.get("content")):
            if kind == "reasoning":
                flush()
                extra = {"redacted": True} if block.get("redacted") else {}
                self.event("reasoning", text, line, role="assistant", at=at, **data, **extra)
            else:
                texts.append(text)
        flush()
        calls = msg.get("tool_calls")
        if calls is None:
            return
        if not isinstance(calls, list):
            raise self.fail(f"expected a list, got {type(calls).__name__}", f"{where}.tool_calls", line)
        for i, call in enumerate(calls):
            here = f"{where}.tool_calls[{i}]"
            try:  # what _tolerant.record does, without an object a call
                self._call(call, here, line, at)
            except SKIPPED_ERRORS as exc:
                self.warnings.append(skipped_because(exc, self.path, line, f"{self.where} {here}"))

    def _call(self, call: Any, where: str, line: int, at: Any) -> None:
        if not isinstance(call, dict):
            raise self.fail(f"expected an object, got {type(call).__name__}", where, line)
        call_id = self.get(call, "id", str, where, line)
        self.get(call, "function", str, where, line)
        step = _call_step(len(self.steps), call, line)
        if call_id in self.open:
            self.warnings.append(
                f"{self.path}:{line}: {self.where}: {where}: call id {call_id!r} is used by more than one open call"
            )
        self.open.setdefault(call_id, []).append(step)
        self.steps.append(step)
        self.positions[step.index] = self.add(step, _time(at))

    def _tool(self, msg: dict[str, Any], where: str, line: int) -> None:
        call_id = msg.get("tool_call_id")
        text = content_text(msg.get("content"))
        queue = self.open.get(call_id, []) if isinstance(call_id, str) else []
        if not isinstance(call_id, str) or not queue:
            why = (
                "has no tool_call_id" if not isinstance(call_id, str) else f"answers no open call {call_id!r}"
            )
            self.warnings.append(
                f"{self.path}:{line}: {self.where}: {where}: tool message {why}; kept as an 'other' event"
            )
            self.event("other", text, line, role="tool", tool_call_id=call_id)
            return
        step = queue.pop(0)
        if not queue:
            del self.open[call_id]
        error = msg.get("error")
        limit: int | None = None
        ev = self._tool_event_for(call_id, msg.get("id"))
        if ev is not None:
            step.started_at = _text_or_none(ev.get("timestamp"))
            step.ended_at = _text_or_none(ev.get("completed"))
            at = _time(step.started_at)
            if at is not None:
                self.times[self.positions[step.index]] = at
            truncated = ev.get("truncated")
            if (
                isinstance(truncated, list)
                and len(truncated) == 2
                and all(_int(v) is not None for v in truncated)
            ):
                limit = truncated[1]
                self.truncations.append(
                    {"call_id": call_id, "original_bytes": truncated[0], "limit_bytes": truncated[1]}
                )
        _answer_step(step, msg, self.policy, limit=limit)
        if step.is_error:
            kind = error.get("type") if isinstance(error, dict) else None
            self.tool_errors.append(
                {"call_id": call_id, "type": kind if isinstance(kind, str) else "unknown"}
            )
        elif ev is not None and step.tool not in TYPED_TOOLS and not step.clipped:
            self._sandbox_read(step, ev)
        self.cuts[step.index] = _Cut(middle=self.middle, limit=limit)

    def _sandbox_read(self, step: Step, ev: dict[str, Any]) -> None:
        """A custom tool that read one sandbox file (a ``read_file`` sandbox event while it ran) and returned
        its content unchanged showed the model that file: its step becomes a ``read`` of the file."""
        start, end = _time(ev.get("timestamp")), _time(ev.get("completed"))
        if start is None or not step.output:
            return
        files = {
            file
            for at, file, text in self.sandbox_reads
            if start <= at and (end is None or at <= end) and _same_text(text, step.output)
        }
        if len(files) == 1:
            (file,) = files
            step.command = read_command(file)
            self.file_reads.append({"call_id": step.call_id, "function": step.tool, "file": file})

    def extras(self) -> None:
        """Tool events of calls the messages do not hold, and model errors, placed by their time."""
        found: list[_Extra] = []
        for pos, ev in self.tool_events:
            if id(ev) in self.used:
                continue
            data: dict[str, Any] = {"event": "tool", "event_index": pos, "call_id": ev.get("id")}
            for key in ("function", "arguments", "error"):
                if ev.get(key) is not None:
                    data[key] = ev[key]
            self.unlinked.append({"call_id": ev.get("id"), "function": ev.get("function")})
            at = ev.get("timestamp")
            text = content_text(ev.get("result"))
            found.append(
                _Extra(
                    Event("other", text=text, role="tool", timestamp=_text_or_none(at), data=data), _time(at)
                )
            )
        for pos, ev in self.model_errors:
            at = ev.get("timestamp")
            data = {"event": "model", "event_index": pos, "model": ev.get("model")}
            found.append(
                _Extra(Event("error", text=ev["error"], timestamp=_text_or_none(at), data=data), _time(at))
            )
        for extra in sorted(found, key=lambda x: (x.at is None, x.at or datetime.min.replace(tzinfo=UTC))):
            place = len(self.items)
            if extra.at is not None:
                place = next((i for i, t in enumerate(self.times) if t is not None and t > extra.at), place)
            self.items.insert(place, extra.item)
            self.times.insert(place, extra.at)

    def ending(self, meta: dict[str, Any]) -> None:
        """The sample's error and the limit that halted it, as events at the end."""
        error = self.sample.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            meta["error"] = error["message"]
            data = {"from": "sample.error"}
            if isinstance(error.get("traceback"), str):
                data["traceback"] = error["traceback"]
            self.add(Event("error", text=error["message"], data=data))
        limit = self.sample.get("limit")
        if isinstance(limit, dict):
            meta["limit"] = limit
            text = f"{limit.get('type')} limit reached ({limit.get('limit')})"
            self.add(Event("system", text=text, data={"from": "sample.limit", **limit}))

    def build(self) -> Trajectory:
        """The sample's trajectory; ``meta["warnings"]`` holds the sample's own warnings, the log's are put
        before them once the whole log is loaded (:func:`_read`)."""
        self.messages()
        self.extras()
        sample, spec, header = self.sample, self.spec, self.log.header
        meta: dict[str, Any] = {"log_format": self.log.container, "log_version": header.get("version")}
        if header.get("status") is not None:
            meta["status"] = header["status"]
        self.ending(meta)
        for seq, item in enumerate(self.items):
            item.seq = seq
        for step in self.steps:
            _type_step(step, self.cuts.get(step.index, _Cut(middle=self.middle)))
            _add_clip(step, self.clips.get(step.call_id or ""))
        sample_id, epoch = sample["id"], sample["epoch"]
        run = _run_name(spec, self.path)
        for key in (
            "eval_id",
            "run_id",
            "eval_set_id",
            "task",
            "task_id",
            "task_version",
            "task_display_name",
        ):
            if spec.get(key) not in (None, ""):
                meta[key] = spec[key]
        dataset = spec.get("dataset")
        if isinstance(dataset, dict) and dataset.get("name"):
            meta["dataset"] = dataset["name"]
        sandbox = spec.get("sandbox")
        if isinstance(sandbox, dict) and sandbox.get("type"):
            meta["sandbox"] = sandbox["type"]
        meta.update({"sample_id": sample_id, "epoch": epoch, "sample": self.where})
        for key in ("uuid", "target", "total_time", "working_time", "turn_count"):
            if sample.get(key) not in (None, "", []):
                meta[key] = sample[key]
        if sample.get("metadata"):
            meta["sample_metadata"] = sample["metadata"]
        meta["message_count"] = len(sample.get("messages") or [])
        if self.from_transcript:
            meta["messages_from"] = f"store.{TRANSCRIPT_KEY}"
        if isinstance(sample.get("model_usage"), dict) and sample["model_usage"]:
            meta["model_usage"] = sample["model_usage"]
        if self.models:
            meta["message_models"] = self.models
        if isinstance(sample.get("error_retries"), list) and sample["error_retries"]:
            meta["error_retries"] = len(sample["error_retries"])
        for key, value in (
            ("truncated_outputs", self.truncations),
            ("tool_errors", self.tool_errors),
            ("unlinked_tool_events", self.unlinked),
            ("sandbox_file_results", self.file_reads),
            ("unanswered_calls", [s.call_id for s in self.steps if not s.answered]),
        ):
            if value:
                meta[key] = value
        judgement = _judgement(sample.get("scores"), str(self.path), meta)
        meta["warnings"] = (
            self.warnings
        )  # the log's go before them, and the key goes if both are empty (_read)
        model = spec.get("model")
        store = sample.get("store")
        settings = store.get(SETTINGS_KEY) if isinstance(store, dict) else None
        labels: dict[str, str | None] = {}
        if isinstance(settings, dict):
            meta["agent"] = settings
            labels = {k: v for k, v in settings.items() if k in ("method", "variant") and isinstance(v, str)}
        return Trajectory(
            id=f"{NAME}:{run}/{sample_id}/{epoch}",
            format=NAME,
            source_path=str(self.path),
            steps=self.steps,
            events=[i for i in self.items if isinstance(i, Event)],
            deliverable=Deliverable(final_message=self._final_message(), files=_written(self.steps)),
            task_id=str(sample_id),
            instruction=self._instruction(),
            model=model if isinstance(model, str) else None,
            harness="inspect",
            harness_version=self.version,
            started_at=self._bound(sample.get("started_at"), first=True),
            ended_at=self._bound(sample.get("completed_at"), first=False),
            usage=_usage(sample.get("model_usage")),
            clip_policy=self.policy.name,
            judgement=judgement,
            meta=meta,
            method=labels.get("method"),
            variant=labels.get("variant"),
        )

    def _instruction(self) -> str | None:
        value = self.sample.get("input")
        if isinstance(value, str):
            return value
        if isinstance(value, list):
            for msg in value:
                if isinstance(msg, dict) and msg.get("role") == "user":
                    return content_text(msg.get("content"))
        return self.first_user

    def _final_message(self) -> str | None:
        output = self.sample.get("output")
        completion = output.get("completion") if isinstance(output, dict) else None
        if isinstance(completion, str) and completion.strip():
            return completion
        return self.last_assistant

    def _bound(self, value: Any, *, first: bool) -> str | None:
        """The sample's own start or end time, else its first event's time or its last event's end."""
        if _text_or_none(value):
            return str(value)
        for ev in self.events if first else reversed(self.events):
            for key in ("timestamp",) if first else ("completed", "timestamp"):
                if _text_or_none(ev.get(key)):
                    return str(ev[key])
        return None


def _written(steps: list[Step]) -> list[DeliverableFile]:
    """Files ``text_editor create`` wrote with content the log holds (a later edit leaves only the name)."""
    files: dict[str, DeliverableFile] = {}
    for step in steps:
        if step.tool != "text_editor" or not step.answered or step.is_error:
            continue
        target = _str(step.args, "path")
        if target is None:
            continue
        command = step.args.get("command")
        if command == "create" and isinstance(step.args.get("file_text"), str):
            files[target] = deliverable_file(
                target, step.args["file_text"].encode("utf-8"), origin="write_tool"
            )
        elif command in _EDIT_COMMANDS:
            files[target] = DeliverableFile(path=target, origin="write_tool")
    return list(files.values())


def _run_by_rtlab(header: dict[str, Any]) -> bool:
    """Whether ``rtlab.inspect``'s agent ran the eval (a solver registered under ``rtlab/``, named in the spec
    or the plan): it keeps the arm's labels and the conversation the model saw in each sample's store, which no
    summary holds."""
    spec, plan = header.get("eval"), header.get("plan")
    names = [spec.get("solver") if isinstance(spec, dict) else None]
    steps = plan.get("steps") if isinstance(plan, dict) else None
    names += [step.get("solver") for step in steps or [] if isinstance(step, dict)]
    return any(isinstance(name, str) and name.startswith("rtlab/") for name in names)


_SUMMARY_KEYS = frozenset({"id", "epoch", "model_usage"})
"""What every ``EvalSampleSummary`` Inspect writes holds (``model_usage`` even when empty; ``scores`` only when
set): a summary without them (a hand-made or older one) does not stand for its sample."""


def summarize(path: Path, options: ReadOptions) -> list[Trajectory]:
    """One trajectory per sample and epoch from the log's ``header.json`` and ``summaries.json`` alone (Inspect's
    ``EvalSampleSummary``: id, epoch, scores, model usage; no sample member is decompressed): the same ids,
    order, task, model, harness, version, usage and judgement as :func:`read` gives, no steps or events, marked
    :data:`~rtlab.ingest.readers._registry.SUMMARY_ONLY`. Raises :class:`NoSummary` where the summary cannot
    stand for the whole reading: a ``.json`` log (its samples inline), no ``header.json`` (a running or crashed
    eval) or no ``summaries.json``, samples summarized and stored that differ, members past the decompression
    limits, an eval ``rtlab.inspect``'s agent ran (its labels are in each sample's store), ``--strict`` (every
    record is read to check it)."""
    path = Path(path)
    if options.strict:
        raise NoSummary("--strict reads every record")
    if not head_bytes(path, 4).startswith(ZIP_MAGIC):
        raise NoSummary("a .json log holds its samples inline")
    limits = options.limits()
    with ZipArchive(path, limits=limits) as z:
        names = z.names
        if HEADER not in names or SUMMARIES not in names:
            raise NoSummary(f"no {HEADER if HEADER not in names else SUMMARIES}")
        members = [n for n in names if n.startswith(SAMPLES_DIR) and n.endswith(".json")]
        sizes = [z.size(n) for n in [HEADER, SUMMARIES, *members]]
        if max(sizes) > limits.member or sum(sizes) > limits.archive:
            raise NoSummary("members past the decompression limits")
        header = _parse_member(z, HEADER)
        if not isinstance(header, dict):
            raise ReaderError(path, f"expected an object, got {type(header).__name__}", field=HEADER)
        warnings = _header_warnings(path, header)
        rows = _parse_member(z, SUMMARIES)
    if warnings:
        raise NoSummary(warnings[0])
    if _run_by_rtlab(header):
        raise NoSummary("rtlab's agent ran it: each sample's store holds its labels, which summaries do not")
    if not isinstance(rows, list) or not all(isinstance(r, dict) and _SUMMARY_KEYS <= r.keys() for r in rows):
        raise NoSummary(
            f"{SUMMARIES} is not a list of whole sample summaries ({', '.join(sorted(_SUMMARY_KEYS))})"
        )
    keys = [(str(r["id"]), r["epoch"]) for r in rows]
    if not rows or len(set(keys)) != len(keys) or set(keys) != {_sample_key(n) for n in members}:
        raise NoSummary("the samples summarized are not the samples stored")
    spec: dict[str, Any] = header["eval"]
    run, version, model = _run_name(spec, path), _inspect_version(spec), spec.get("model")
    clip_policy = get_policy(options.clip or DEFAULT_CLIP).name
    found = []
    for r in sorted(rows, key=lambda r: _sample_order(r["id"], r["epoch"])):
        meta: dict[str, Any] = {SUMMARY_ONLY: f"{HEADER} + {SUMMARIES}"}
        found.append(
            Trajectory(
                id=f"{NAME}:{run}/{r['id']}/{r['epoch']}",
                format=NAME,
                source_path=str(path),
                task_id=str(r["id"]),
                model=model if isinstance(model, str) else None,
                harness="inspect",
                harness_version=version,
                usage=_usage(r.get("model_usage")),
                clip_policy=clip_policy,
                judgement=_judgement(r.get("scores"), str(path), meta),
                meta=meta,
            )
        )
    return found


def may_find_steps(facts: FileFacts) -> bool:
    """A necessary condition of :func:`read` finding a tool call, on the facts every reader shares: an ``.eval``
    (a zip, by its first bytes) is offered as it is; a JSON log is an object whose ``samples`` list holds an
    object (:func:`_load_json`: a sample is where every step is)."""
    if not facts.is_file or (facts.data or b"")[:4].startswith(ZIP_MAGIC):
        return True
    doc = facts.document
    samples = doc.get("samples") if isinstance(doc, dict) else None
    return isinstance(samples, list) and any(isinstance(s, dict) for s in samples)


@typed(type_step)
def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """One trajectory per sample and epoch of an Inspect log; the log holds what the model saw (``none``)."""
    path = Path(path)
    return _read(path, options, get_policy(options.clip or DEFAULT_CLIP))
