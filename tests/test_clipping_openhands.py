"""OpenHands v0 middle truncation (``truncate_content``), checked against hand-computed results."""

from __future__ import annotations

import dataclasses

import pytest

from rtlab.ingest import OPENHANDS_TRUNCATION_MARKER, POLICIES, OpenHandsClip, get_policy

MARKER = "\n[... Observation truncated due to length ...]\n"


def test_marker_is_openhands_text() -> None:
    assert OPENHANDS_TRUNCATION_MARKER == MARKER
    assert OpenHandsClip().marker == MARKER


def test_registered_default() -> None:
    policy = get_policy("openhands-v0")
    assert policy is POLICIES["openhands-v0"]
    assert isinstance(policy, OpenHandsClip)
    assert policy.name == "openhands-v0"
    assert policy.max_chars == 30_000


def test_at_or_under_limit_is_whole() -> None:
    policy = OpenHandsClip(max_chars=10)
    assert policy.apply("") == ""
    assert policy.apply("abcdefghij") == "abcdefghij"  # exactly max_chars: kept


def test_over_limit_keeps_half_head_and_half_tail() -> None:
    policy = OpenHandsClip(max_chars=10)
    assert policy.apply("abcdefghijk") == "abcde" + MARKER + "ghijk"
    assert policy.apply("abcdefghijklmnop") == "abcde" + MARKER + "lmnop"


def test_odd_limit_rounds_half_down() -> None:
    # half = 11 // 2 = 5: the result keeps 10 characters of text, not 11
    assert OpenHandsClip(max_chars=11).apply("0123456789AB") == "01234" + MARKER + "789AB"


def test_default_limit_lengths() -> None:
    text = "h" * 15_000 + "m" * 5 + "t" * 15_000
    shown = POLICIES["openhands-v0"].apply(text)
    assert shown == "h" * 15_000 + MARKER + "t" * 15_000
    assert len(shown) == 30_000 + len(MARKER)
    assert POLICIES["openhands-v0"].apply("x" * 30_000) == "x" * 30_000


def test_zero_half_quirk_is_kept() -> None:
    # OpenHands slices text[-0:], which is the whole text, when max_chars // 2 == 0
    assert OpenHandsClip(max_chars=1).apply("abc") == MARKER + "abc"
    assert OpenHandsClip(max_chars=0).apply("ab") == MARKER + "ab"


def test_negative_limit_rejected() -> None:
    with pytest.raises(ValueError, match="max_chars"):
        OpenHandsClip(max_chars=-1)


def test_policy_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        OpenHandsClip().max_chars = 5  # type: ignore[misc]
