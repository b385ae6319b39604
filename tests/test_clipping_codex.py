"""Codex's clipping policies, against expectations worked out by hand from the Codex source rules."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtlab.ingest import POLICIES, CodexLineTruncation, CodexTruncation, get_policy
from rtlab.ingest._clipping import utf8_exceeds
from rtlab.ingest.readers import ReadOptions, codex


def test_presets() -> None:
    p = get_policy("codex-0.133")
    assert (p.name, p.mode, p.limit, p.byte_budget) == ("codex-0.133", "tokens", 10_000, 40_000)
    b = POLICIES["codex-0.133-bytes"]
    assert (b.mode, b.byte_budget) == ("bytes", 10_000)
    legacy = POLICIES["codex-256-lines"]
    assert (legacy.max_bytes, legacy.max_lines) == (10_240, 256)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.limit = 1  # type: ignore[misc]
    with pytest.raises(ValueError, match="mode"):
        CodexTruncation(mode="lines")


def test_within_budget_is_unchanged() -> None:
    p = get_policy("codex-0.133")
    assert p.apply("") == ""
    exact = "x" * 40_000
    assert p.apply(exact) == exact
    cjk = "数" * 13_333  # 39999 bytes
    assert p.apply(cjk) == cjk


def test_one_byte_over_budget() -> None:
    text = "a" * 20_000 + "b" + "c" * 20_000  # 40001 bytes, one line: no header
    assert get_policy("codex-0.133").apply(text) == "a" * 20_000 + "…1 tokens truncated…" + "c" * 20_000


def test_utf8_boundaries_tokens_mode() -> None:
    # 8 CJK characters, 24 bytes; budget 3 tokens = 12 bytes: 6 bytes of head, 6 of tail, ceil(12 / 4) = 3
    assert CodexTruncation(limit=3).apply("一二三四五六七八") == "一二…3 tokens truncated…七八"


def test_utf8_boundaries_bytes_mode() -> None:
    # budget 10 bytes: head 5 bytes holds one character (3 bytes); the tail of 5 bytes starts mid-character at
    # byte 19 and moves on to 21; 6 characters removed
    assert CodexTruncation(mode="bytes", limit=10).apply("一二三四五六七八") == "一…6 chars truncated…八"


def test_line_count_header_only_when_lines_change() -> None:
    p = CodexTruncation(limit=4)  # 16 bytes
    # 24 bytes: head "line1\nli", tail bytes 16.. "3\nline4\n", ceil(8 / 4) = 2; 4 lines become 3
    assert (
        p.apply("line1\nline2\nline3\nline4\n")
        == "Total output lines: 4\nline1\nli…2 tokens truncated…3\nline4\n"
    )
    # one long line stays one line: no header
    assert CodexTruncation(limit=2).apply("abcdefghijkl") == "abcd…1 tokens truncated…ijkl"


def test_variant_with_later_codex_header() -> None:
    p = CodexTruncation(
        name="mine", limit=2, header="Warning: truncated output\nTotal output lines: {total_lines}\n\n"
    )
    # 12 bytes, budget 8: head "ab\nc", tail from byte 8 "\ngh\n", ceil(4 / 4) = 1; 4 lines become 3
    expected = "Warning: truncated output\nTotal output lines: 4\n\nab\nc…1 tokens truncated…\ngh\n"
    assert p.apply("ab\ncd\nef\ngh\n") == expected


def test_legacy_line_limit() -> None:
    lines = [f"{i:03d}\n" for i in range(300)]  # 1200 bytes, 300 lines > 256
    expected = (
        "Total output lines: 300\n\n"
        + "".join(lines[:128])
        + "\n[... omitted 44 of 300 lines ...]\n\n"
        + "".join(lines[172:])
    )
    assert CodexLineTruncation().apply("".join(lines)) == expected


def test_legacy_byte_limit_drops_the_tail_of_few_long_lines() -> None:
    # one line of 20000 bytes: no whole line to omit, so the byte marker; head 5120 bytes; no tail segment left
    # (the behaviour openai/codex#6415 reported)
    marker = "\n[... output truncated to fit 10240 bytes ...]\n\n"
    assert CodexLineTruncation().apply("a" * 20_000) == "Total output lines: 1\n\n" + "a" * 5120 + marker


def test_legacy_small_limits_and_cjk() -> None:
    p = CodexLineTruncation(max_bytes=40, max_lines=4)
    # head 2 lines "0\n1\n", tail 2 lines "8\n9\n", marker 34 bytes: head budget min(20, 6), 2 bytes of tail left
    text = "".join(f"{i}\n" for i in range(10))
    assert p.apply(text) == "Total output lines: 10\n\n0\n1\n\n[... omitted 6 of 10 lines ...]\n\n9\n"
    q = CodexLineTruncation(max_bytes=12, max_lines=256)
    # 8 CJK chars (24 bytes, 1 line); marker is longer than the budget: head budget 0, nothing left for a tail
    assert (
        q.apply("一二三四五六七八")
        == "Total output lines: 1\n\n\n[... output truncated to fit 12 bytes ...]\n\n"
    )


def test_real_semfs_grep_is_clipped_to_the_expected_form(real: Path) -> None:
    """95_cloud's 510,402-character ``semfs grep`` (TOKEN_ECONOMY.md §1.2): what Codex 0.133 let the model see."""
    stream = (
        real / "workspace-bench" / "codex-gpt-5.4-runs" / "95_cloud" / "output" / "raw" / "codex_stdout.jsonl"
    )
    raw = None
    for line in stream.read_text(encoding="utf-8").splitlines():
        ev = json.loads(line)
        if ev["type"] == "item.completed" and ev["item"]["id"] == "item_4":
            raw = ev["item"]["aggregated_output"]
    assert raw is not None and len(raw) == 510_402
    data = raw.encode("utf-8")
    assert len(data) == 511_776
    # independent of rtlab.ingest._clipping: cut bytes and drop a split character at each cut
    head = data[:20_000].decode("utf-8", "ignore")
    tail = data[-20_000:].decode("utf-8", "ignore")
    expected = "Total output lines: 28\n" + head + "…117944 tokens truncated…" + tail  # (511776 - 40000) / 4
    (t,) = codex.read(stream.parent.parent.parent, ReadOptions())
    step = next(s for s in t.steps if s.call_id == "item_4")
    assert step.clipped and step.shown == expected
    assert len(step.shown.encode("utf-8")) == 40_052
    assert step.shown.startswith("Total output lines: 28\n# rewritten query")


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        st.characters(exclude_categories=()) | st.sampled_from(["\ud800", "\U0001f600", "\u00e9"]),
        max_size=40,
    ),
    st.integers(0, 170),
)
def test_utf8_exceeds_is_the_encoded_size(text: str, limit: int) -> None:
    """The size check that spares encoding every output: the same answer as encoding (surrogates, astral
    characters and ASCII alike)."""
    assert utf8_exceeds(text, limit) == (len(text.encode("utf-8", "surrogatepass")) > limit)
    for reps in (1, 2, 30):
        assert utf8_exceeds(text * reps, limit) == (
            len((text * reps).encode("utf-8", "surrogatepass")) > limit
        )


def _truncate_by_bytes(policy: CodexTruncation, text: str) -> str:
    """``truncate`` as Codex states it, on the encoded bytes always: the reference for the ASCII shortcut."""
    data = text.encode("utf-8", "surrogatepass")
    budget = policy.byte_budget
    if len(data) <= budget:
        return text
    cut = budget // 2
    while cut > 0 and data[cut] & 0xC0 == 0x80:
        cut -= 1
    start = len(data) - (budget - budget // 2)
    while start < len(data) and data[start] & 0xC0 == 0x80:
        start += 1
    head = data[:cut].decode("utf-8", "surrogatepass")
    tail = data[start:].decode("utf-8", "surrogatepass") if budget - budget // 2 < len(data) else text
    if policy.mode == "tokens":
        marker = policy.tokens_marker.format(count=-(-(len(data) - budget) // policy.bytes_per_token))
    else:
        marker = policy.chars_marker.format(count=len(text) - len(head) - len(tail))
    return head + marker + tail


@settings(max_examples=300, deadline=None)
@given(
    st.text(st.sampled_from("ab\n \u00e9\U0001f600"), max_size=60),
    st.integers(0, 9),
    st.sampled_from(["tokens", "bytes"]),
)
def test_truncate_cuts_as_on_the_bytes(text: str, limit: int, mode: str) -> None:
    policy = CodexTruncation(mode=mode, limit=limit, bytes_per_token=2)  # type: ignore[arg-type]
    assert policy.truncate(text) == _truncate_by_bytes(policy, text)
    ascii_text = text.encode("ascii", "replace").decode("ascii")
    assert policy.truncate(ascii_text) == _truncate_by_bytes(policy, ascii_text)
