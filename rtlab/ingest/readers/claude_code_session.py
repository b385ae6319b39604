"""Claude Code session files (``~/.claude/projects/<project>/<session>.jsonl``) and its sub-agents' files.

One record a line (field names as Claude Code writes them; the models of meridianlabs-ai/inspect_scout
src/inspect_scout/sources/_claude_code/models.py and daaain/claude-code-log claude_code_log/models.py):
``user`` and ``assistant`` records carry an API ``message``, ``uuid`` and ``parentUuid`` (the record before it;
``null`` at a root), ``sessionId``, ``cwd``, ``version``, ``timestamp``, ``isSidechain``, 2.x ``gitBranch`` and
``slug``; a user record answering tool calls carries ``toolUseResult`` (the tool's structured output: for Bash
``stdout``/``stderr``, the same text the ``tool_result`` holds; for ``Task`` its ``agentId`` in 2.x); flags
``isMeta`` (Claude Code's own text, e.g. the local-command caveat), ``isCompactSummary`` (the summary a
compaction starts the conversation anew with), ``isApiErrorMessage`` (a ``<synthetic>`` assistant message).
``system`` records (2.x) note compactions (``compact_boundary``, with ``logicalParentUuid``), local commands,
API errors; ``attachment`` and ``progress`` records sit on the chain too. Records off the chain: ``summary``
(a conversation's title, with ``leafUuid``), ``queue-operation``, ``file-history-snapshot``, ``ai-title``, and
2.1's bookkeeping (:data:`OFF_CHAIN_TYPES`: 2.1.332 adds ``tools-used``, ``atis-latch`` and the request capture
``api-request-shape`` / ``api-request-blob`` / ``api-request``), read as known and skipped without a warning.

The path the model saw is the chain from the last non-sidechain leaf back to the root through ``parentUuid``;
a root that is a compaction summary continues, after the compaction, the chain that ended before it
(``logicalParentUuid`` in 2.x, the last leaf written before the summary in 1.0.x, whose compactions start a
new root). Other leaves are branches abandoned by an edit or a retry: they are left out and described in
``meta["abandoned_branches"]``. Records the walk leaves out although the model saw them are put back as Claude
Code itself does when it resumes (2.1's ``recoverOrphanedParallelToolResults``): the sibling records of a
response's parallel calls and their results, which hang off each call's record, and the turn that a result
began where 2.1 chained ``progress`` records from the call (:func:`_recover_orphans`). Side chains are their own trajectories with ``parent_id``: 1.0.x writes them
inline (``isSidechain: true`` records under their own root, the ``Task`` prompt as first message, found again
in the parent's ``Task`` call for ``parent_call_id``); 2.x writes each sub-agent to ``agent-<agentId>.jsonl``
(every record ``isSidechain: true`` with ``agentId``) in the project folder (2.0) or in
``<session>/subagents/`` (2.1, ``getAgentTranscriptPath`` in src/utils/sessionStorage.ts): such a file is read
on its own, its ``parent_id`` is the session's trajectory and its ``parent_call_id`` the ``Task`` call whose
``toolUseResult.agentId`` names it, looked up in the session file when it lies beside it. Message contents and
tool results: :mod:`._claude_code`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtlab.errors import ReaderError
from rtlab.ingest.readers._base import ReadOptions, checked_field, typed
from rtlab.ingest.readers._claude_code import (
    HARNESS,
    SUBAGENT_TOOLS,
    Timeline,
    clip_policy,
)
from rtlab.ingest.readers._claude_code import type_step as type_step
from rtlab.ingest.readers._registry import FileFacts, FileShape
from rtlab.ingest.readers._tolerant import SKIPPED_ERRORS, skipped_because
from rtlab.io import blank_text, head_bytes, iter_json_lines, parse_json
from rtlab.records import Deliverable, EventKind, Trajectory

NAME = "claude-code-session"
FILE_SHAPE: FileShape = "json-lines"
"""A file this reader is given (not a folder) is read by ``rtlab.io.iter_json_lines`` alone, its refusal let
out: a file that iterator refuses holds no step for it (``_registry.FileShape``)."""

LOOKS_FOR = (
    "a JSON-lines file (any extension) of Claude Code session records: user/assistant/system lines with uuid, "
    "parentUuid and sessionId, possibly after records of other types (summary, queue-operation, "
    "file-history-snapshot, permission-mode, progress, ...)"
)
CHAIN_TYPES = frozenset({"user", "assistant", "system", "attachment", "progress"})
"""Record types that sit on the ``parentUuid`` chain."""
OFF_CHAIN_TYPES = frozenset(
    {
        # 1.0 to 2.1.2xx
        "summary",
        "queue-operation",
        "file-history-snapshot",
        "ai-title",
        "custom-title",
        "permission-mode",
        "last-prompt",
        "agent-name",
        "agent-color",
        "agent-setting",
        "tag",
        "pr-link",
        "mode",
        "worktree-state",
        "attribution-snapshot",
        "content-replacement",
        "marble-origami-commit",
        "marble-origami-snapshot",
        "cost-state",
        "speculation-accept",
        # 2.1.332's table (below): bookkeeping, titles, latches, and the request capture
        "file-history-delta",
        "continued-in",
        "resume-head-vouch",
        "data-flow-records",
        "data-flow-incomplete",
        "derived-from",
        "api-request-shape",
        "api-request-blob",
        "api-request",
        "api-request-resumed",
        "fork-context-ref",
        "frame-link",
        "ended-by-model",
        "relocated",
        "artifact-comment-monitor",
        "artifact-autoreact-ledger",
        "bridge-session",
        "history-suppression",
        "isolation-latch",
        "session-owner",
        "dev-mods",
        "memory-mode",
        "atis-latch",
        "tools-used",
        "observer-ref",
        "host-row",
        "repl-mode",
        "hybrid-organization",
    }
)
"""Record types outside the chain (no ``uuid``), which may open a session file: titles, tags, the permission mode,
the last prompt, snapshots of edited files, queue operations (Claude Code's ``Entry`` types; 2.1's
``sessionStorage.ts``). A type not listed here or in :data:`CHAIN_TYPES` is skipped with a warning.

From 2.1.332 the list is Claude Code's own: the table its session loader merges records by (in the native binary
of ``@anthropic-ai/claude-code-linux-x64`` 2.1.332) names every type it writes, ``user`` / ``assistant`` /
``system`` / ``attachment`` as the transcript and every other one as bookkeeping (``progress`` and
``file-history-*`` cleared at a compaction, titles and latches last-wins, ``content-replacement`` accumulated),
plus ``host-row``, ``repl-mode`` and ``hybrid-organization`` in the function beside it. None of them is a turn:
``tools-used`` is the running list of tool names used (``{"tools": [...]}``), ``atis-latch`` a flag,
``api-request-shape`` / ``api-request-blob`` / ``api-request`` record each model request once (the system prompt
and tools by hash, each new message as a blob, the request's parameters) for replaying it; the messages the
model received are the chain's ``user`` / ``assistant`` records all the same. ``progress`` sits on the chain
(:data:`CHAIN_TYPES`)."""
_HEAD_LINES = 20
_AGENT_FILE = re.compile(r"agent-(?P<id>[A-Za-z0-9_-]+)\.jsonl$")


# ---------------------------------------------------------------------------------------------------------
# Detection


def _is_chain_record(rec: Any) -> bool:
    return (
        isinstance(rec, dict)
        and rec.get("type") in CHAIN_TYPES
        and isinstance(rec.get("uuid"), str)
        and "parentUuid" in rec
        and isinstance(rec.get("sessionId"), str)
    )


def _is_off_chain_record(rec: Any) -> bool:
    if not isinstance(rec, dict):
        return False
    kind = rec.get("type")
    if kind == "summary":
        return isinstance(rec.get("summary"), str) and isinstance(rec.get("leafUuid"), str)
    if kind == "queue-operation":
        return isinstance(rec.get("operation"), str) and isinstance(rec.get("sessionId"), str)
    if kind == "file-history-snapshot":
        return "messageId" in rec and isinstance(rec.get("snapshot"), dict)
    return kind in OFF_CHAIN_TYPES and isinstance(rec.get("sessionId"), str)


_HEAD_KEYS = re.compile(rb'"parentUuid"\s*:\s*(?:null|")')
_HEAD_SESSION = re.compile(rb'"sessionId"\s*:\s*"')
_HEAD_TYPE = re.compile(rb'"type"\s*:\s*"(?:user|assistant|system)"')


def sniff(path: Path) -> bool:
    """A file (of any name) whose first records include a Claude Code chain record (``uuid``, ``parentUuid``,
    ``sessionId``, a chain type); records of types this reader does not know, and lines that are not JSON, may
    come before it. A file of titles and snapshots only is claimed too (reading says so). A first line too long
    to parse in the head is judged by its keys."""
    try:
        if not path.is_file():
            return False
    except OSError:
        return False
    data = head_bytes(path, 65536)
    lines = data.split(b"\n")
    if len(data) == 65536:
        lines = lines[:-1]
        if not lines or not any(ln.strip() for ln in lines):  # one long first line: judge it by its keys
            return bool(
                data.lstrip().startswith(b"{")
                and _HEAD_KEYS.search(data)
                and _HEAD_SESSION.search(data)
                and _HEAD_TYPE.search(data)
            )
    seen_off_chain = False
    parsed = 0
    for raw in lines[:_HEAD_LINES]:
        if not raw.strip():
            continue
        try:
            rec = parse_json(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue  # a stray line: the records around it decide
        parsed += 1
        if _is_chain_record(rec):
            return True
        if _is_off_chain_record(rec):
            seen_off_chain = True
        elif not (isinstance(rec, dict) and isinstance(rec.get("type"), str) and "sessionId" in rec):
            return False  # a record of another format
    return (
        seen_off_chain and len(data) < 65536
    )  # a file of titles and snapshots only: claimed, reading says so


# ---------------------------------------------------------------------------------------------------------
# The record tree


@dataclass(slots=True)
class _Node:
    line: int
    rec: dict[str, Any]
    uuid: str
    parent: str | None
    sidechain: bool


_Parallel = tuple[dict[str, list[_Node]], dict[str, list[_Node]], dict[str, str]]
"""What :meth:`_Tree.parallel` gives: siblings by response id, results by parent uuid, response id by uuid."""


class _Tree:
    """The chain records of one file, linked by ``parentUuid``."""

    def __init__(self, path: Path, records: list[tuple[int, dict[str, Any]]], warnings: list[str]):
        self.path = path
        self.warnings = warnings
        self.nodes: dict[str, _Node] = {}
        self.order: list[_Node] = []
        self._parallel: _Parallel | None = None
        before: str | None = None  # the chain record before this one in the file
        for line, rec in records:
            uuid = rec.get("uuid")
            if not isinstance(uuid, str):
                what = "missing field" if uuid is None else f"expected str, got {type(uuid).__name__}"
                warnings.append(f"{path}:{line} [uuid]: {what}; record not understood, skipped")
                continue
            parent = rec.get("parentUuid")
            if parent is not None and not isinstance(parent, str):
                warnings.append(
                    f"{path}:{line} [parentUuid]: expected str or null, got {type(parent).__name__}; "
                    "repaired: the record before it in the file taken as its parent"
                )
                parent = before
            if uuid in self.nodes:
                warnings.append(
                    f"{path}:{line}: uuid {uuid!r} appears again (first at line "
                    f"{self.nodes[uuid].line}); the repeat is ignored"
                )
                continue
            node = _Node(line, rec, uuid, parent, rec.get("isSidechain") is True)
            self.nodes[uuid] = node
            self.order.append(node)
            before = uuid
        self.children: dict[str, list[_Node]] = {}
        for node in self.order:
            if node.parent is not None:
                if node.parent in self.nodes:
                    self.children.setdefault(node.parent, []).append(node)
                else:
                    warnings.append(
                        f"{path}:{node.line}: parentUuid {node.parent!r} names no record of this file; "
                        "taken as a root"
                    )
                    node.parent = None
        self._check_reachable()

    def _check_reachable(self) -> None:
        """Every record descends from a root: ``parentUuid`` links that loop would leave some that do not; the
        first record of each loop (in file order) is taken as a root, said in the warnings."""
        reached: set[str] = set()
        stack = [n for n in self.order if n.parent is None]
        children = self.children
        while True:
            while stack:  # each node has one parent, so a walk down from roots meets none twice
                node = stack.pop()
                reached.add(node.uuid)
                stack.extend(children.get(node.uuid, ()))
            if len(reached) == len(self.order):
                return
            loose = next((n for n in self.order if n.uuid not in reached), None)
            if loose is None:
                return
            self.warnings.append(
                f"{self.path}:{loose.line} [parentUuid]: parentUuid links form a cycle; record not understood, "
                "taken as a root"
            )
            siblings = self.children.get(loose.parent or "", [])
            if loose in siblings:
                siblings.remove(loose)
            loose.parent = None
            stack = [loose]

    def parallel(self) -> _Parallel:
        """Assistant records by response (``message.id``), records holding tool results by their parent, and each
        assistant record's response (by uuid): what :func:`_recover_orphans` looks up (built once per file)."""
        if self._parallel is None:
            siblings: dict[str, list[_Node]] = {}
            results: dict[str, list[_Node]] = {}
            responses: dict[str, str] = {}
            for n in self.order:
                kind = n.rec.get("type")
                if kind == "assistant":
                    mid = _message_id(n)
                    if mid is not None:
                        siblings.setdefault(mid, []).append(n)
                        responses[n.uuid] = mid
                elif kind == "user" and n.parent is not None and _has_tool_result(n):
                    results.setdefault(n.parent, []).append(n)
            self._parallel = (siblings, results, responses)
        return self._parallel

    def leaves(self, nodes: list[_Node]) -> list[_Node]:
        """Nodes of ``nodes`` with no child among them, in file order (a node's children are exactly the nodes
        whose ``parent`` names it: :attr:`children` is kept so)."""
        parents = {n.parent for n in nodes}
        return [n for n in nodes if n.uuid not in parents]

    def chain(self, leaf: _Node) -> list[_Node]:
        """Root-to-leaf records ending at ``leaf``."""
        out: list[_Node] = []
        seen: set[str] = set()
        node: _Node | None = leaf
        while node is not None:
            if node.uuid in seen:
                raise ReaderError(
                    self.path, "parentUuid links form a cycle", line=node.line, field="parentUuid"
                )
            seen.add(node.uuid)
            out.append(node)
            node = self.nodes.get(node.parent) if node.parent is not None else None
        out.reverse()
        return out


def _compaction_root(node: _Node) -> bool:
    rec = node.rec
    return rec.get("isCompactSummary") is True or (
        rec.get("type") == "system" and rec.get("subtype") == "compact_boundary"
    )


def _main_path(tree: _Tree, main: list[_Node]) -> tuple[list[_Node], int]:
    """The records the main agent's model saw, in order, and how many compactions joined its pieces."""
    leaves = tree.leaves(main)
    if not leaves:
        return [], 0
    path = tree.chain(leaves[-1])
    on_path = {n.uuid for n in path}
    joins = 0
    while _compaction_root(path[0]):
        root = path[0]
        logical = root.rec.get("logicalParentUuid")
        before: _Node | None = None
        if isinstance(logical, str) and logical in tree.nodes and logical not in on_path:
            before = tree.nodes[logical]
        else:
            earlier = [n for n in leaves if n.line < root.line and n.uuid not in on_path]
            before = earlier[-1] if earlier else None
        if before is None:
            break
        piece = [n for n in tree.chain(before) if n.uuid not in on_path]
        if not piece:
            break
        on_path.update(n.uuid for n in piece)
        path = piece + path
        joins += 1
    return path, joins


def _message_id(node: _Node) -> str | None:
    message = node.rec.get("message")
    mid = message.get("id") if isinstance(message, dict) else None
    return mid if isinstance(mid, str) and node.rec.get("type") == "assistant" else None


def _has_tool_result(node: _Node) -> bool:
    message = node.rec.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return (
        node.rec.get("type") == "user"
        and isinstance(content, list)
        and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
    )


def _recover_orphans(tree: _Tree, path: list[_Node]) -> tuple[list[_Node], int]:
    """``path`` with the records a walk up ``parentUuid`` leaves out although the model saw them, put back,
    and how many (Claude Code's own repair when it resumes a session, ``recoverOrphanedParallelToolResults``
    in 2.1's ``sessionStorage.ts``): parallel tool calls are logged as one assistant record each, sharing the
    response's ``message.id`` and chained one after another, and each result's ``parentUuid`` names its own
    call's record, so every result but the last is off the walk; and in 2.1 logs that wrote ``progress``
    records on the chain, the chain went on from a call through its progress records while the results (and
    the turn that followed them, up to where the chain resumes) hang off the call. Siblings of a response and
    the results of its calls (records of the path's own kind: main or side chain) are spliced in after the
    response's last record on the path, in file order; a result's own continuation is kept while it comes
    before the path's next message in the file."""
    if not path:
        return path, 0
    side = path[0].sidechain
    siblings, results, responses = tree.parallel()
    on_path = {n.uuid for n in path}
    anchors: dict[str, _Node] = {}
    for n in path:
        mid = responses.get(n.uuid)
        if mid is not None:
            anchors[mid] = n
    position: dict[str, int] | None = None
    following: list[int | None] = []  # at each index of the path, the line of the next message from there on
    inserts: dict[str, list[_Node]] = {}
    recovered = 0
    for mid, anchor in anchors.items():
        group = siblings.get(mid, [anchor])
        found = [n for n in group if n.uuid not in on_path and n.sidechain == side]
        for member in group:
            for r in results.get(member.uuid, ()):
                if r.uuid not in on_path and r.sidechain == side:
                    found.append(r)
        if not found:
            continue
        if position is None:
            position = {n.uuid: i for i, n in enumerate(path)}
            following = _message_lines_from(path)
        limit = following[position[anchor.uuid] + 1]
        extra: list[_Node] = []
        for r in found:
            if r.rec.get("type") != "user":
                continue
            # the turn that went on from this result while the chain went on elsewhere (progress records)
            stack = list(tree.children.get(r.uuid, ()))
            while stack:
                child = stack.pop()
                if child.uuid in on_path or child.sidechain != side:
                    continue
                if limit is not None and child.line > limit:
                    continue
                extra.append(child)
                stack.extend(tree.children.get(child.uuid, ()))
        chosen = sorted({n.uuid: n for n in found + extra}.values(), key=lambda n: n.line)
        on_path.update(n.uuid for n in chosen)
        inserts[anchor.uuid] = chosen
        recovered += len(chosen)
    if not recovered:
        return path, 0
    out: list[_Node] = []
    for n in path:
        out.append(n)
        out.extend(inserts.get(n.uuid, ()))
    return out, recovered


def _message_lines_from(path: list[_Node]) -> list[int | None]:
    """For each index of ``path`` (and its end), the line of the first ``user`` or ``assistant`` record at that
    index or after it, ``None`` when there is none."""
    out: list[int | None] = [None] * (len(path) + 1)
    line: int | None = None
    for i in range(len(path) - 1, -1, -1):
        if path[i].rec.get("type") in ("user", "assistant"):
            line = path[i].line
        out[i] = line
    return out


def _count_calls(nodes: list[_Node]) -> int:
    n = 0
    for node in nodes:
        message = node.rec.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if node.rec.get("type") == "assistant" and isinstance(content, list):
            n += sum(1 for b in content if isinstance(b, dict) and b.get("type") == "tool_use")
    return n


def _abandoned(tree: _Tree, main: list[_Node], path: list[_Node]) -> list[dict[str, Any]]:
    """Facts about each branch of the main agent's records that the path leaves out."""
    on_path = {n.uuid for n in path}
    out: list[dict[str, Any]] = []
    for leaf in tree.leaves(main):
        if leaf.uuid in on_path:
            continue
        branch = [n for n in tree.chain(leaf) if n.uuid not in on_path]
        fork = tree.nodes.get(branch[0].parent) if branch and branch[0].parent else None
        out.append(
            {
                "leaf_uuid": leaf.uuid,
                "leaf_line": leaf.line,
                "from_line": branch[0].line if branch else leaf.line,
                "forks_at_line": fork.line if fork is not None else None,
                "records": len(branch),
                "tool_calls": _count_calls(branch),
            }
        )
    return out


def _side_chains(tree: _Tree) -> list[list[_Node]]:
    """Each side chain's path (its last leaf back to its root), in the order the side chains start."""
    side = [n for n in tree.order if n.sidechain]
    roots: dict[str, str] = {}

    def root_of(node: _Node) -> str:
        trail = []
        while node.uuid not in roots:
            parent = tree.nodes.get(node.parent) if node.parent is not None else None
            if parent is None or not parent.sidechain:
                roots[node.uuid] = node.uuid
                break
            trail.append(node)
            node = parent
        for t in trail:
            roots[t.uuid] = roots[node.uuid]
        return roots[node.uuid]

    groups: dict[str, list[_Node]] = {}
    for node in side:
        groups.setdefault(root_of(node), []).append(node)
    return [tree.chain(tree.leaves(members)[-1]) for members in groups.values()]


# ---------------------------------------------------------------------------------------------------------
# Building trajectories


def _text(content: Any) -> str | None:
    """A user message's text (its string, or its text blocks joined), ``None`` for tool results."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        ]
        if texts and not any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return "\n".join(texts)
    return None


class _Session:
    def __init__(self, path: Path, options: ReadOptions):
        self.path = path
        self.policy = clip_policy(options)
        self.warnings: list[str] = []
        self.counts: Counter[str] = Counter()
        self.summaries: list[tuple[int, dict[str, Any]]] = []
        self.counts_recovered = 0

    def read(self) -> list[Trajectory]:
        path = self.path
        data = path.read_bytes()
        if blank_text(data):
            raise ReaderError(path, "file is empty")
        chain: list[tuple[int, dict[str, Any]]] = []
        for line, rec in iter_json_lines(path, self.warnings, data=data):
            try:  # what _tolerant.record does, without an object a record
                if not isinstance(rec, dict):
                    raise ReaderError(path, f"expected a record object, got {type(rec).__name__}", line=line)
                kind = checked_field(rec, "type", str, path, line)
                self.counts[kind] += 1
                if kind in CHAIN_TYPES:
                    chain.append((line, rec))
                elif kind == "summary":
                    self.summaries.append((line, rec))
                elif kind not in OFF_CHAIN_TYPES:
                    self.warnings.append(f"{path}:{line}: unknown record type {kind!r}; skipped")
            except SKIPPED_ERRORS as exc:
                self.warnings.append(skipped_because(exc, path, line))
        if not any(rec.get("type") in ("user", "assistant") for _, rec in chain):
            raise ReaderError(
                path, "no user or assistant records: nothing to read (titles or snapshots only?)"
            )
        tree = _Tree(path, chain, self.warnings)
        main = [n for n in tree.order if not n.sidechain]
        if not main:
            return self._agent_file(tree)
        path_nodes, joins = _main_path(tree, main)
        path_nodes, recovered = _recover_orphans(tree, path_nodes)
        if recovered:
            self.counts_recovered = recovered
        session = self._session_id(path_nodes)
        main_id = f"{NAME}:{session}"
        trajectory, timeline = self._trajectory(main_id, path_nodes)
        trajectory.meta["session_id"] = session
        if joins:
            trajectory.meta["compactions_joined"] = joins
        abandoned = _abandoned(tree, main, path_nodes)
        if abandoned:
            trajectory.meta["abandoned_branches"] = abandoned
        trajectory.meta["records"] = dict(self.counts)
        if recovered:
            trajectory.meta["records_recovered"] = recovered
        self._summaries(timeline, tree)
        out = [trajectory]
        prompts: dict[str, list[str | None]] = {}  # Task prompt -> call ids not yet linked, in order
        for s in timeline.steps:
            if s.tool in SUBAGENT_TOOLS and isinstance(s.args.get("prompt"), str):
                prompts.setdefault(s.args["prompt"], []).append(s.call_id)
        for side in _side_chains(tree):
            side, _ = _recover_orphans(tree, side)
            root = side[0]
            sub, _ = self._trajectory(f"{main_id}/sidechain-{root.uuid}", side)
            sub.parent_id = main_id
            message = root.rec.get("message")
            first = _text(message.get("content")) if isinstance(message, dict) else None
            waiting = prompts.get(first or "")
            if waiting:
                sub.parent_call_id = waiting.pop(0)
            else:
                sub.meta["parent_call_note"] = "no Task call on the main path has this side chain's prompt"
            if isinstance(root.rec.get("agentId"), str):
                sub.meta["agent_id"] = root.rec["agentId"]
            out.append(sub)
        agents = [{"call_id": k, "agent_id": v} for k, v in timeline.agent_ids.items()]
        if agents:
            trajectory.meta["subagent_files"] = agents
        if len(out) > 1:
            trajectory.meta["sidechains"] = [t.id for t in out[1:]]
        if self.warnings:
            trajectory.meta["warnings"] = self.warnings
        return out

    def _session_id(self, nodes: list[_Node]) -> str:
        for node in reversed(nodes):
            if isinstance(node.rec.get("sessionId"), str):
                return str(node.rec["sessionId"])
        return self.path.stem

    def _agent_file(self, tree: _Tree) -> list[Trajectory]:
        """A 2.x sub-agent's file: every record a side chain, under one root."""
        chains = _side_chains(tree)
        out: list[Trajectory] = []
        for side in chains:
            side, _ = _recover_orphans(tree, side)
            root = side[0]
            agent = root.rec.get("agentId")
            m = _AGENT_FILE.search(self.path.name)
            agent_id = agent if isinstance(agent, str) else (m.group("id") if m else root.uuid)
            session = self._session_id(side)
            parent_id = f"{NAME}:{session}"
            ident = (
                f"{parent_id}/agent-{agent_id}"
                if len(chains) == 1
                else f"{parent_id}/agent-{agent_id}/{root.uuid}"
            )
            sub, _ = self._trajectory(ident, side)
            sub.parent_id = parent_id
            sub.meta.update({"session_id": session, "agent_id": agent_id, "records": dict(self.counts)})
            call, where = _find_task_call(self.path, session, agent_id)
            if call is not None:
                sub.parent_call_id = call
                sub.meta["parent_session_file"] = where
            else:
                sub.meta["parent_call_note"] = (
                    f"the session file {session}.jsonl with the Task call naming agent {agent_id} is not beside it"
                    if where is None
                    else f"no Task result in {where} names agent {agent_id}"
                )
            out.append(sub)
        if self.warnings:
            out[0].meta["warnings"] = self.warnings
        return out

    def _summaries(self, timeline: Timeline, tree: _Tree) -> None:
        """The file's ``summary`` records (conversation titles, ``leafUuid`` naming the record they sum up) as
        compaction events of the main agent, after its own."""
        for line, rec in self.summaries:
            leaf = rec.get("leafUuid")
            node = tree.nodes.get(leaf) if isinstance(leaf, str) else None
            data = {"type": "summary", "leafUuid": leaf, "leaf_line": node.line if node is not None else None}
            summary = rec["summary"] if isinstance(rec.get("summary"), str) else ""
            timeline.event("compaction", summary, line=line, data=data)  # its list is trajectory.events

    def _trajectory(self, ident: str, nodes: list[_Node]) -> tuple[Trajectory, Timeline]:
        path = self.path
        tl = Timeline(path, self.policy, self.warnings)
        versions: Counter[str] = Counter()
        stamps: list[str] = []
        cwd = branch = None
        for node in nodes:
            rec = node.rec
            ts = rec.get("timestamp")
            if not isinstance(ts, str):
                ts = None
            elif ts:
                stamps.append(ts)
            version = rec.get("version")
            if isinstance(version, str):
                versions[version] += 1
            here = rec.get("cwd")
            if not isinstance(here, str):
                here = None
            cwd = cwd or here
            if not branch:
                branch = rec.get("gitBranch") if isinstance(rec.get("gitBranch"), str) else None
            try:  # what _tolerant.record does, without an object a record
                _feed(tl, node, ts, here)
            except SKIPPED_ERRORS as exc:
                self.warnings.append(skipped_because(exc, path, node.line))
        tl.close()
        tl.pairing_warning()
        meta: dict[str, Any] = {"records_on_path": len(nodes)}
        if len(versions) > 1:
            meta["versions"] = dict(versions)
        if tl.models:
            meta["models"] = dict(tl.models)
        if branch:
            meta["git_branch"] = branch
        unanswered = tl.unanswered()
        if unanswered:
            meta["unanswered_calls"] = unanswered
        version = nodes[-1].rec.get("version") if nodes else None
        trajectory = Trajectory(
            id=ident,
            format=NAME,
            source_path=str(path),
            steps=tl.steps,
            events=tl.events,
            deliverable=Deliverable(final_message=tl.final_text, files=tl.written_files()),
            instruction=tl.instruction,
            model=tl.models.most_common(1)[0][0] if tl.models else None,
            harness=HARNESS,
            harness_version=version
            if isinstance(version, str)
            else (versions.most_common(1)[0][0] if versions else None),
            cwd=cwd,
            started_at=stamps[0] if stamps else None,
            ended_at=stamps[-1] if stamps else None,
            usage=tl.usage.total(),
            clip_policy=self.policy.name,
            meta=meta,
        )
        return trajectory, tl


_SYSTEM_KINDS: dict[str, EventKind] = {"compact_boundary": "compaction", "api_error": "error"}
"""Event kinds of ``system`` records by ``subtype`` (others are ``system``)."""


def _feed(tl: Timeline, node: _Node, timestamp: str | None, cwd: str | None) -> None:
    """Add one record of a path to its agent's timeline (``attachment`` and ``progress`` records add nothing:
    they are on the chain, but not messages the model was sent)."""
    rec, line, path = node.rec, node.line, tl.path
    kind = rec["type"]
    if kind == "assistant":
        tl.assistant(checked_field(rec, "message", dict, path, line), line=line, timestamp=timestamp, cwd=cwd)
    elif kind == "user":
        flags = {k: True for k in ("isMeta", "isCompactSummary") if rec.get(k) is True}
        ev_kind: EventKind | None = None
        if flags.get("isCompactSummary"):
            ev_kind = "compaction"
        elif flags.get("isMeta"):
            ev_kind = "system"
        tl.user(
            checked_field(rec, "message", dict, path, line),
            line=line,
            timestamp=timestamp,
            tool_use_result=rec.get("toolUseResult"),
            kind=ev_kind,
            data=flags or None,
        )
    elif kind == "system":
        subtype = rec.get("subtype")
        text = rec["content"] if isinstance(rec.get("content"), str) else str(subtype or "")
        data: dict[str, Any] = {
            k: rec[k] for k in ("subtype", "level", "compactMetadata", "logicalParentUuid") if k in rec
        }
        ev = _SYSTEM_KINDS.get(subtype, "system") if isinstance(subtype, str) else "system"
        tl.event(ev, text, line=line, timestamp=timestamp, data=data)


def _session_file(agent_file: Path, session: str) -> Path | None:
    """The parent session's file of a sub-agent's file: ``<session>.jsonl`` in its folder (2.0) or two folders
    up from ``<session>/subagents/`` (2.1); else the one ``.jsonl`` beside the ``subagents`` folder whose
    records name the session (a run folder that renamed it)."""
    here = agent_file.parent
    candidates = [here / f"{session}.jsonl"]
    if here.name == "subagents":
        candidates += [here.parent.parent / f"{session}.jsonl", here.parent / f"{session}.jsonl"]
    for c in candidates:
        if c.is_file():
            return c
    if here.name == "subagents":
        for c in sorted(here.parent.glob("*.jsonl")):
            if not c.name.startswith("agent-") and _names_session(c, session):
                return c
    return None


def _names_session(path: Path, session: str) -> bool:
    """Whether one of the first records of a session file has this ``sessionId``."""
    for raw in head_bytes(path, 65536).split(b"\n")[:_HEAD_LINES]:
        try:
            rec = parse_json(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        if isinstance(rec, dict) and rec.get("sessionId") == session:
            return True
    return False


def _find_task_call(agent_file: Path, session: str, agent_id: str) -> tuple[str | None, str | None]:
    """``(call id, session file)`` of the ``Task`` call whose result names ``agent_id``."""
    parent = _session_file(agent_file, session)
    if parent is None:
        return None, None
    try:
        records = list(iter_json_lines(parent, []))
    except ReaderError as exc:
        return None, f"{parent} (unreadable: {exc.message})"
    for _line, rec in records:
        if not isinstance(rec, dict) or rec.get("type") != "user":
            continue
        result = rec.get("toolUseResult")
        if not isinstance(result, dict) or result.get("agentId") != agent_id:
            continue
        content = rec.get("message", {}).get("content") if isinstance(rec.get("message"), dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                if isinstance(block.get("tool_use_id"), str):
                    return block["tool_use_id"], str(parent)
    return None, str(parent)


def may_find_steps(facts: FileFacts) -> bool:
    """A necessary condition of :func:`read` finding a tool call, on the facts every reader shares: a file's
    lines hold a ``user`` or ``assistant`` record (:meth:`_Session.read` refuses a file without; a folder is
    offered as it is)."""
    return not facts.is_file or not facts.types.isdisjoint(("user", "assistant"))


@typed(type_step)
def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """The main agent's trajectory and one per side chain (a sub-agent's file: its one trajectory)."""
    return _Session(Path(path), options).read()
