"""The Inspect reader resolves attachments only in the parts of a sample it reads (``SAMPLE_KEYS_READ``,
``EVENT_KEYS_READ``, of a model event's ``output`` only its first message's id): a guard that this leaves
nothing out. Every real log read with every part resolved gives the same trajectories, warnings included, as
the reading that resolves only what it reads; so code that starts reading another key of a sample or an event
without adding it to those sets fails here on the real logs, whose samples hold attachment references at every
level."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rtlab.ingest import read_unit
from rtlab.ingest.readers import inspect as inspect_reader
from rtlab.records import trajectory_to_dict

REAL = Path(__file__).resolve().parent.parent.parent / "shared" / "real" / "wild" / "inspect"


class _Every:
    """A set holding every key."""

    def __contains__(self, key: object) -> bool:
        return True


def _read(log: Path) -> list[dict[str, Any]]:
    return [trajectory_to_dict(t) for t in read_unit(log, "inspect", join=False)]


@pytest.mark.parametrize(
    "log", sorted(REAL.glob("*.eval")) if REAL.is_dir() else [], ids=lambda p: p.name[:40]
)
def test_resolving_every_part_changes_nothing_the_reader_reads(
    log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read_only = _read(log)
    monkeypatch.setattr(inspect_reader, "SAMPLE_KEYS_READ", _Every())
    monkeypatch.setattr(inspect_reader, "EVENT_KEYS_READ", _Every())
    monkeypatch.setattr(
        inspect_reader,
        "_resolved_path",
        lambda value, path, attachments, missing: inspect_reader._resolve(value, attachments, missing),
    )
    assert _read(log) == read_only


def test_the_real_logs_are_here() -> None:
    if not REAL.is_dir():
        pytest.skip(f"no real Inspect logs at {REAL} (../shared/real absent)")
    assert len(list(REAL.glob("*.eval"))) >= 3
