"""Clipping policies: how a harness shortens a tool's output before the model sees it.

``Step.output`` is what a log holds; ``Step.shown`` is ``policy.apply(output)`` for the harness's policy.
Each policy is a small frozen dataclass with a ``name``; readers pick their harness's default and a user can
pass another by name (``--clip NAME``) or build their own with other parameters.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal, Protocol


@dataclass(frozen=True)
class NoClip:
    """The model saw the output whole (or the log already holds what it saw)."""

    name: str = "none"
    """The policy's name, recorded in ``Trajectory.clip_policy``."""

    def apply(self, text: str) -> str:
        return text


OPENHANDS_TRUNCATION_MARKER = "\n[... Observation truncated due to length ...]\n"
"""The notice OpenHands puts where it cut an observation (also used to spot logs already cut)."""


@dataclass(frozen=True)
class OpenHandsClip:
    """OpenHands v0 ``truncate_content``: an observation longer than ``max_chars`` loses its middle.

    The model gets the first ``max_chars // 2`` characters, the marker, and the last ``max_chars // 2``
    characters (so the result is ``len(marker)`` longer than ``max_chars`` for even limits). Text of at most
    ``max_chars`` characters is passed whole. Source: ``truncate_content`` in
    ``openhands/events/serialization/event.py`` (All-Hands-AI/OpenHands), called with
    ``LLMConfig.max_message_chars`` by ``CodeActAgent.get_observation_message`` (0.14.x, the version of
    TheAgentCompany's December 2024 runs) and later by ``openhands/memory/conversation_memory.py``.
    ``max_message_chars`` defaulted to 30_000 from late 2024 on (10_000 in earlier 2024 releases); the rule
    itself did not change, later versions only added a guard returning the text whole when the limit is
    ``None`` or negative. Quirk kept: for ``max_chars`` 0 or 1 the tail slice ``[-0:]`` is the whole text.
    """

    name: str = "openhands-v0"
    """The policy's name, recorded in ``Trajectory.clip_policy``."""
    max_chars: int = 30_000
    """Longest observation passed whole, in characters (``LLMConfig.max_message_chars``)."""
    marker: str = OPENHANDS_TRUNCATION_MARKER
    """Put where the middle was cut."""

    def __post_init__(self) -> None:
        if self.max_chars < 0:
            raise ValueError(f"max_chars must be >= 0, got {self.max_chars} (use NoClip for no limit)")

    def apply(self, text: str) -> str:
        if len(text) <= self.max_chars:
            return text
        half = self.max_chars // 2
        return text[:half] + self.marker + text[-half:]


# --- OpenHands V1 (software-agent-sdk) -------------------------------------------------------------------

OPENHANDS_SDK_TRUNCATE_NOTICE = (
    "<response clipped><NOTE>Due to the max output limit, only part of the full "
    "response has been shown to you.</NOTE>"
)
"""``DEFAULT_TRUNCATE_NOTICE`` of openhands-sdk/openhands/sdk/utils/truncate.py (OpenHands/software-agent-sdk)."""

OPENHANDS_SDK_SAVED_NOTICE = (
    "<response clipped><NOTE>Due to the max output limit, only part of the full "
    "response has been shown to you. The complete output has been saved to "
    "{file_path} - you can use other tools to view the full content (truncated "
    "part starts around line {line_num}).</NOTE>"
)
"""``DEFAULT_TRUNCATE_NOTICE_WITH_PERSIST`` (same file, SDK 1.4 on): the notice when the full text was saved."""


@dataclass(frozen=True)
class OpenHandsSdkClip:
    """OpenHands V1 (software-agent-sdk) ``maybe_truncate``: a text longer than the limit loses its middle.

    ``maybe_truncate(content, truncate_after, ...)`` (openhands-sdk/openhands/sdk/utils/truncate.py) keeps
    ``ceil((limit - len(notice)) / 2)`` characters of the head, the notice, and the rest of the budget from the
    tail, so the result is exactly ``limit`` characters; text within the limit is passed whole. The SDK applies
    it twice on the way to the model:

    - ``apply``: a terminal observation's ``to_llm_content`` cuts the whole rendered text (output with its
      prefix, suffix and ``[Current working directory: ...]`` lines) to ``MAX_CMD_OUTPUT_SIZE`` = 30,000
      (openhands-tools/openhands/tools/terminal/definition.py, ``execute_bash/definition.py`` before the
      rename, and ``constants.py``). Since SDK 1.4 (PR #419, 2025-12-01) an observation with
      ``full_output_save_dir`` saves the whole text to ``<dir>/<prefix>_output_<sha256[:8]>.txt`` and names
      that file in a longer notice (:meth:`apply_saved`); the head is sized for the short notice either way.
    - ``message``: ``Message._maybe_truncate_tool_text`` cuts every text part of a tool result to
      ``DEFAULT_TEXT_CONTENT_LIMIT`` = 50,000 (openhands-sdk/openhands/sdk/llm/message.py; before SDK 1.11.1
      ``TextContent.to_llm_dict`` did the same to every text part): the only cut other tools' results get
      on top of their own (the file editor cuts its view at 16,000 itself, and the log holds that).

    The 2025 ``maybe_truncate`` (before the notice with a file) splits the budget the same way, except at a limit
    one above the notice's length, where its ``text[-0:]`` tail kept the whole text (the SDK's limits are 30,000
    and 50,000). Checked against the SDK's own function @ 4f4c68c1 on random texts and limits, with and without
    the saved file.
    """

    name: str = "openhands-sdk"
    """The policy's name, recorded in ``Trajectory.clip_policy``."""
    max_chars: int = 30_000
    """A terminal observation's limit, in characters (``MAX_CMD_OUTPUT_SIZE``)."""
    message_max_chars: int = 50_000
    """Every tool result's text part limit, in characters (``DEFAULT_TEXT_CONTENT_LIMIT``)."""
    notice: str = OPENHANDS_SDK_TRUNCATE_NOTICE
    """Put where the middle was cut."""
    saved_notice: str = OPENHANDS_SDK_SAVED_NOTICE
    """Put there instead when the full text was saved (``{file_path}``, ``{line_num}``)."""

    def __post_init__(self) -> None:
        if self.max_chars < 0 or self.message_max_chars < 0:
            raise ValueError(
                f"limits must be >= 0, got {self.max_chars}, {self.message_max_chars} (use NoClip for no limit)"
            )

    def truncate(self, text: str, limit: int, *, saved_as: str | None = None) -> str:
        """``maybe_truncate(text, limit)``; ``saved_as``: the file the SDK saved the whole text to."""
        if not limit or len(text) <= limit:
            return text
        if len(self.notice) >= limit:
            return self.notice[:limit]
        available = limit - len(self.notice)
        head = available // 2 + available % 2
        notice = self.notice
        if saved_as is not None:
            notice = self.saved_notice.format(file_path=saved_as, line_num=len(text[:head].splitlines()) + 1)
            if len(notice) >= limit:
                return notice[:limit]
        remaining = limit - len(notice)
        head = min(head, remaining)
        tail = remaining - head
        return text[:head] + notice + (text[-tail:] if tail > 0 else "")

    def apply(self, text: str) -> str:
        """What a terminal observation's rendered text becomes (then the message cap, which it is within)."""
        return self.message(self.truncate(text, self.max_chars))

    def apply_saved(self, text: str, save_dir: str, tool_prefix: str) -> str:
        """:meth:`apply` for an observation with ``full_output_save_dir``: the notice names the saved file."""
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        saved_as = str(PurePosixPath(save_dir) / f"{tool_prefix}_output_{digest}.txt")
        return self.message(self.truncate(text, self.max_chars, saved_as=saved_as))

    def message(self, text: str) -> str:
        """What any tool result's text part becomes when the SDK sends it (``_maybe_truncate_tool_text``)."""
        return self.truncate(text, self.message_max_chars)


# --- Codex CLI -------------------------------------------------------------------------------------------
# Codex measures budgets in UTF-8 bytes and cuts on character boundaries; Python strings count code points,
# so these helpers work on the encoded bytes.


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def utf8_exceeds(text: str, limit: int) -> bool:
    """Whether ``text`` takes more than ``limit`` bytes in UTF-8 (lone surrogates 3 bytes each, as
    ``surrogatepass`` writes them), without encoding it where its length decides: a character takes 1 to 4
    bytes, an ASCII text 1 each."""
    n = len(text)
    if n > limit:
        return True
    if text.isascii() or 4 * n <= limit:
        return False
    return len(_utf8(text)) > limit


def _from_utf8(data: bytes) -> str:
    return data.decode("utf-8", "surrogatepass")


def _rust_line_count(text: str) -> int:
    """Lines as Rust's ``str::lines`` counts them: a final newline does not start another line."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def _head_bytes(data: bytes, budget: int) -> bytes:
    """The longest prefix of ``data`` within ``budget`` bytes that ends on a character boundary."""
    if len(data) <= budget:
        return data
    cut = max(budget, 0)
    while cut > 0 and data[cut] & 0xC0 == 0x80:
        cut -= 1
    return data[:cut]


def _tail_bytes(data: bytes, budget: int) -> bytes:
    """The longest suffix of ``data`` within ``budget`` bytes that starts on a character boundary."""
    if len(data) <= budget:
        return data
    start = len(data) - max(budget, 0)
    while start < len(data) and data[start] & 0xC0 == 0x80:
        start += 1
    return data[start:]


@dataclass(frozen=True)
class CodexTruncation:
    """Codex CLI's ``TruncationPolicy`` applied to shell output; ``codex-0.133`` is ``Tokens(10_000)``.

    For a ``shell_command`` call (the shell tool of GPT-5.x models) Codex sends the model
    ``format_exec_output_for_model_freeform`` (codex-rs/core/src/tools/mod.rs)::

        Exit code: 0
        Wall time: 0.4 seconds
        Total output lines: 4021        <- only when truncation changed the line count
        Output:
        <head>…2531 tokens truncated…<tail>

    ``apply`` returns the ``Total output lines`` line (when Codex adds it) and the body. The exit-code,
    wall-time and ``Output:`` lines frame every result, clipped or not; the wall time is not logged.

    The body is ``truncate_text(output, policy)`` (codex-rs/utils/output-truncation/src/lib.rs): when the
    output's UTF-8 size exceeds the byte budget (``limit * bytes_per_token`` in ``tokens`` mode, ``limit`` in
    ``bytes`` mode) Codex keeps the longest prefix within half the budget (rounded down) and the longest
    suffix within the rest, both on character boundaries, joined by the marker with no newline added
    (``truncate_with_byte_estimate`` in codex-rs/utils/string/src/truncate.rs). In ``tokens`` mode the marker
    counts ``ceil((output_bytes - budget) / 4)`` tokens, not the bytes actually cut; in ``bytes`` mode it
    counts the characters cut.

    Sources (openai/codex): ``gpt-5.4`` has ``truncation_policy {"mode": "tokens", "limit": 10000}`` and
    ``shell_type "shell_command"`` in codex-rs/models-manager/models.json @ 069e6b19; the slug
    ``openai/gpt-5.4`` resolves to it by ``find_model_by_namespaced_suffix`` (models-manager/src/manager.rs
    @ 0301b586), and unknown slugs fall back to ``bytes`` 10000 (``model_info_from_slug``; preset
    ``codex-0.133-bytes``); ``ShellCommandHandler`` formats freeform (core/src/tools/handlers/shell.rs @
    001cb8e2); the formatter in core/src/tools/mod.rs @ 019402a8; the byte arithmetic in
    utils/string/src/truncate.rs @ b24d7f3c. The history keeps items within ``policy * 1.2``
    (``with_serialization_allowance``), which leaves an already-truncated body as it is. Codex after 0.133
    (PR openai/codex#28467, merged 2026-06-16) adds a ``Warning: truncated output (original token count:
    N)`` line: build a variant with another ``header`` for it. A timed-out command also gets ``command timed
    out after N milliseconds`` in front, which the exec log does not record.
    """

    name: str = "codex-0.133"
    """The policy's name, recorded in ``Trajectory.clip_policy``."""
    mode: Literal["tokens", "bytes"] = "tokens"
    """``tokens`` or ``bytes``, as Codex's ``TruncationMode``."""
    limit: int = 10_000
    """Tokens (``tokens`` mode) or bytes (``bytes`` mode)."""
    bytes_per_token: int = 4
    """Codex's ``APPROX_BYTES_PER_TOKEN``."""
    header: str = "Total output lines: {total_lines}\n"
    """Put before the body when clipping changed the line count (``{total_lines}``: the output's)."""
    tokens_marker: str = "…{count} tokens truncated…"
    """Put where the middle was cut, in ``tokens`` mode (``{count}``: tokens over the budget)."""
    chars_marker: str = "…{count} chars truncated…"
    """Put where the middle was cut, in ``bytes`` mode (``{count}``: characters cut)."""

    def __post_init__(self) -> None:
        if self.mode not in ("tokens", "bytes"):
            raise ValueError(f"mode must be 'tokens' or 'bytes', got {self.mode!r}")
        if self.limit < 0 or self.bytes_per_token < 1:
            raise ValueError(
                f"limit must be >= 0 and bytes_per_token >= 1, got {self.limit}, {self.bytes_per_token}"
            )

    @property
    def byte_budget(self) -> int:
        """The budget in UTF-8 bytes (Codex's ``TruncationPolicy::byte_budget``)."""
        return self.limit * self.bytes_per_token if self.mode == "tokens" else self.limit

    def truncate(self, text: str) -> str:
        """Codex's ``truncate_text``: an over-budget text loses its middle to a marker."""
        budget = self.byte_budget
        if text.isascii():  # a byte a character: the same cuts without encoding the text
            if len(text) <= budget:
                return text
            size, rest = len(text), budget - budget // 2
            head, tail = text[: budget // 2], text[size - rest :] if rest else ""
        else:  # encoded once, to measure it and to cut it (as utf8_exceeds measures it)
            if 4 * len(text) <= budget:
                return text
            data = _utf8(text)
            size = len(data)
            if size <= budget:
                return text
            head = _from_utf8(_head_bytes(data, budget // 2))
            tail = _from_utf8(_tail_bytes(data, budget - budget // 2))
        if self.mode == "tokens":
            marker = self.tokens_marker.format(count=-(-(size - budget) // self.bytes_per_token))
        else:
            marker = self.chars_marker.format(count=len(text) - len(head) - len(tail))
        return head + marker + tail

    def apply(self, text: str) -> str:
        body = self.truncate(text)
        total = _rust_line_count(text)
        if body != text and self.header and total != _rust_line_count(body):
            return self.header.format(total_lines=total) + body
        return body


@dataclass(frozen=True)
class CodexLineTruncation:
    """Codex CLI's older exec-output clip: 256 lines or 10 KiB, whichever comes first, head and tail kept.

    ``format_output_for_model_body`` in codex-rs/core/src/truncate.rs @ 02080945 (openai/codex): the policy
    issues openai/codex#6426 and #6544 describe, for Codex of about v0.46-v0.57 (October-November 2025,
    before per-model ``TruncationPolicy``). Output within both limits is shown whole; otherwise the model
    sees ``Total output lines: N`` and a blank line, then the first ``max_lines // 2`` lines cut to at most
    ``max_bytes // 2`` bytes, the marker ``[... omitted K of N lines ...]`` (``[... output truncated to fit
    10240 bytes ...]`` when no whole line was dropped), and the end of the last ``max_lines - max_lines //
    2`` lines within the bytes left. Sizes are UTF-8 bytes, cut on character boundaries.
    """

    name: str = "codex-256-lines"
    """The policy's name, recorded in ``Trajectory.clip_policy``."""
    max_bytes: int = 10 * 1024
    """Byte budget of what the model sees (UTF-8)."""
    max_lines: int = 256
    """Line budget: a longer output keeps its first and last halves of this many lines."""
    header: str = "Total output lines: {total_lines}\n\n"
    """Put first when the output is clipped (``{total_lines}``: its line count)."""
    lines_marker: str = "\n[... omitted {omitted} of {total_lines} lines ...]\n\n"
    """Put between head and tail when whole lines were dropped."""
    bytes_marker: str = "\n[... output truncated to fit {max_bytes} bytes ...]\n\n"
    """Put there instead when no whole line was dropped but the bytes were over budget."""

    def apply(self, text: str) -> str:
        total = _rust_line_count(text)
        if total <= self.max_lines and not utf8_exceeds(text, self.max_bytes):
            return text
        return self.header.format(total_lines=total) + self._head_and_tail(_utf8(text), total)

    def _head_and_tail(self, data: bytes, total: int) -> str:
        pieces = data.split(b"\n")
        # the byte sizes of Rust's split_inclusive('\n') segments
        sizes = [len(p) + 1 for p in pieces[:-1]] + ([len(pieces[-1])] if pieces[-1] else [])
        head_take = min(self.max_lines // 2, len(sizes))
        tail_take = min(self.max_lines - self.max_lines // 2, len(sizes) - head_take)
        omitted = len(sizes) - head_take - tail_take
        head_slice = data[: sum(sizes[:head_take])]
        tail_slice = data[len(data) - sum(sizes[len(sizes) - tail_take :]) :] if tail_take else b""
        if omitted > 0:
            marker = self.lines_marker.format(omitted=omitted, total_lines=total)
        elif len(data) > self.max_bytes:
            marker = self.bytes_marker.format(max_bytes=self.max_bytes)
        else:
            marker = ""
        marker_bytes = _utf8(marker)
        head_budget = min(self.max_bytes // 2, max(self.max_bytes - len(marker_bytes), 0))
        result = _head_bytes(head_slice, head_budget) + marker_bytes
        remaining = max(self.max_bytes - len(result), 0)
        if remaining:
            result += _tail_bytes(tail_slice, remaining)
        return _from_utf8(result)


# --- SWE-agent and mini-swe-agent ----------------------------------------------------------------------

SWE_AGENT_CLIP_NOTE = (
    "<response clipped><NOTE>Observations should not exceeded {max_chars} characters. "
    "{elided} characters were elided. Please try a different command that produces less output "
    "or use head/tail/grep/redirect the output to a file. Do not use interactive pagers.</NOTE>"
)
"""What SWE-agent 1.x puts after a cut observation (``next_step_truncated_observation_template``)."""


@dataclass(frozen=True)
class SweAgentTruncation:
    """SWE-agent 1.x: an observation longer than ``max_chars`` keeps its first ``max_chars`` characters.

    ``DefaultAgent.add_step_to_history`` (sweagent/agent/agents.py, SWE-agent/SWE-agent) renders
    ``next_step_truncated_observation_template`` when ``len(observation) > max_observation_length``
    (``TemplateConfig``, default 100_000 characters): ``Observation: {{observation[:max_observation_length]}}``
    followed by the ``<response clipped><NOTE>...</NOTE>`` notice (:data:`SWE_AGENT_CLIP_NOTE`). ``apply``
    returns the kept head and the notice (the ``Observation:`` prefix frames every observation, clipped or
    not). SWE-agent 0.7 did not truncate (policy ``none``).
    """

    name: str = "swe-agent-1"
    """The policy's name, recorded in ``Trajectory.clip_policy``."""
    max_chars: int = 100_000
    """Longest observation passed whole (``max_observation_length``)."""
    note: str = SWE_AGENT_CLIP_NOTE
    """Put after the kept head (``{max_chars}``, ``{elided}``: characters cut)."""

    def apply(self, text: str) -> str:
        if len(text) <= self.max_chars:
            return text
        return text[: self.max_chars] + self.note.format(
            max_chars=self.max_chars, elided=len(text) - self.max_chars
        )


MINI_SWE_AGENT_WARNING = (
    "<warning>\n"
    "The output of your last command was too long.\n"
    "Please try a different command that produces less output.\n"
    "If you're looking at a file you can try use head, tail or sed to view a smaller number of lines selectively.\n"
    "If you're using grep or find and it produced too much output, you can use a more selective search pattern.\n"
    "If you really need to see something from the full command's output, you can redirect output to a file and "
    "then search in that file.\n"
    "</warning>"
)
"""The warning mini-swe-agent's observation template puts before a long output's head."""


@dataclass(frozen=True)
class MiniSweAgentClip:
    """mini-swe-agent's observation template: a long output keeps its head and tail, with a warning in front.

    An output of ``max_chars`` characters or more keeps its first ``head`` and last ``tail`` characters, with
    the warning in front and the count of elided characters between.

    The template (``observation_template`` in src/minisweagent/config/default.yaml and
    benchmarks/swebench.yaml of mini-swe-agent 2.x; ``action_observation_template`` in config/default.yaml
    and extra/swebench.yaml of 1.x, SWE-agent/mini-swe-agent) renders, for ``output | length < 10000``::

        <returncode>0</returncode>
        <output>
        {output}</output>

    and otherwise::

        <returncode>0</returncode>
        <warning>...</warning><output_head>
        {output[:5000]}
        </output_head>
        <elided_chars>
        {len(output) - 10000} characters elided
        </elided_chars>
        <output_tail>
        {output[-5000:]}
        </output_tail>

    (an ``<exception>...</exception>`` line first when the command raised). ``apply`` returns the output
    whole when it is short, else the warning, the head, the marker and the tail as rendered (from
    ``<warning>`` to ``</output_tail>``); the return code and the ``<output>`` wrapper frame every
    observation, clipped or not. Only the shape depends on the output; the readers take what the model saw
    from the logged message, and ``tests/test_readers_mini_swe_agent.py`` checks this policy against it.
    """

    name: str = "mini-swe-agent"
    """The policy's name, recorded in ``Trajectory.clip_policy``."""
    max_chars: int = 10_000
    """Outputs this long or longer are cut (the template tests ``length < 10000``)."""
    head: int = 5_000
    """Characters kept from the start."""
    tail: int = 5_000
    """Characters kept from the end."""
    warning: str = MINI_SWE_AGENT_WARNING
    """Put in front of a cut output."""
    marker: str = (
        "\n</output_head>\n<elided_chars>\n{elided} characters elided\n</elided_chars>\n<output_tail>\n"
    )
    """Put between head and tail (``{elided}``: the template's ``length - max_chars``)."""

    def apply(self, text: str) -> str:
        if len(text) < self.max_chars:
            return text
        tail = text[-self.tail :] if self.tail > 0 else ""
        return (
            self.warning
            + "<output_head>\n"
            + text[: self.head]
            + self.marker.format(elided=len(text) - self.max_chars)
            + tail
            + "\n</output_tail>"
        )


class ClipPolicy(Protocol):
    """What a policy offers: a ``name`` (recorded in ``Trajectory.clip_policy``) and ``apply(output) -> shown``.

    Any object with these two serves, so a user can write a policy for a harness rtlab does not know yet.
    """

    # read-only, so that frozen dataclasses (the policies here) satisfy it
    @property
    def name(self) -> str: ...

    def apply(self, text: str) -> str: ...


CODEX_ROLLOUT = NoClip(name="codex-rollout")
"""A Codex session rollout holds each tool result as Codex sent it to the model, already cut by Codex's own
truncation for that version and model (the 256-line policy, ``TruncationPolicy`` budgets, the unified exec
tools' ``max_output_tokens``): nothing more is cut (``rtlab.ingest.readers.codex_rollout``)."""

CLAUDE_CODE_AS_SENT = NoClip(name="claude-code")
"""Claude Code's logs hold the ``tool_result`` block it sent the model (built by each tool's
``mapToolResultToToolResultBlockParam`` and ``processToolResultBlock``, src/services/tools/toolExecution.ts), so
what the model saw is the logged content as it is. Claude Code's own cuts happened before logging: Bash output
over ``BASH_MAX_OUTPUT_LENGTH`` (default 30000 characters, at most 150000) keeps its head and gets ``\n\n...
[N lines truncated] ...`` (``formatOutput``, src/tools/BashTool/utils.ts; 0.2-era versions kept head and tail
around the marker), 2.1 puts a result too large to send in a file and sends a ``<persisted-output>`` preview,
Read refuses files over its token limit and Grep / Glob cap their result counts, each saying so in the
result (the readers mark these words as frames and the step as clipped)."""

POLICIES: dict[str, ClipPolicy] = {
    "none": NoClip(),
    "codex-rollout": CODEX_ROLLOUT,
    "claude-code": CLAUDE_CODE_AS_SENT,
    "openhands-v0": OpenHandsClip(),
    "openhands-sdk": OpenHandsSdkClip(),
    "codex-0.133": CodexTruncation(),
    "codex-0.133-bytes": CodexTruncation(name="codex-0.133-bytes", mode="bytes", limit=10_000),
    "codex-256-lines": CodexLineTruncation(),
    "swe-agent-1": SweAgentTruncation(),
    "mini-swe-agent": MiniSweAgentClip(),
}
"""Named policies that ``--clip`` accepts."""


def get_policy(policy: str | ClipPolicy) -> ClipPolicy:
    """A policy by name (or the policy itself); an unknown name raises ``ValueError`` listing the known ones."""
    if not isinstance(policy, str):
        return policy
    try:
        return POLICIES[policy]
    except KeyError:
        raise ValueError(f"unknown clip policy {policy!r}; known: {', '.join(sorted(POLICIES))}") from None
