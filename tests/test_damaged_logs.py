"""Damaged logs: every way a copy of a real log is broken either still reads (and replays, and is diagnosed),
saying what it skipped or repaired so that ``--strict`` refuses it (issue 24), or fails with rtlab's own error
naming file, line and field; never a stray ``KeyError`` or ``TypeError``.

Each case copies one run, damages one of its log files in one seeded way (cut short, a line replaced by
broken JSON, invalid UTF-8 inserted, a field's value given another type or removed), then reads it as a batch
would and replays what was read. The sample runs are always used; the real runs in ``../shared/real`` when
present.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from conftest import REAL, ROOT

from rtlab.analysis import diagnose
from rtlab.environment import replay
from rtlab.errors import RtlabError
from rtlab.ingest import iter_units, read_unit

DAMAGES = ("truncate", "broken_line", "bad_utf8", "field_type", "field_type", "field_type")
CASES_PER_UNIT = 10


def _log_files(unit: Path) -> list[Path]:
    if unit.is_file():
        return [unit]
    return sorted(p for p in unit.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl"))


def _other_type(value: object, rng: random.Random) -> object:
    return rng.choice([v for v in (5, "x", None, [], {}, True, 1.5) if type(v) is not type(value)])


def _damage_object(obj: object, rng: random.Random, depth: int = 0) -> None:
    """Give one field somewhere in ``obj`` a value of another type, or remove it."""
    if isinstance(obj, dict) and obj:
        key = rng.choice(sorted(obj))
        inner = obj[key]
        if depth < 3 and isinstance(inner, dict | list) and inner and rng.random() < 0.6:
            _damage_object(inner, rng, depth + 1)
        elif rng.random() < 0.3:
            del obj[key]
        else:
            obj[key] = _other_type(inner, rng)
    elif isinstance(obj, list) and obj:
        i = rng.randrange(len(obj))
        if isinstance(obj[i], dict | list) and obj[i]:
            _damage_object(obj[i], rng, depth + 1)
        else:
            obj[i] = _other_type(obj[i], rng)


def _damage(path: Path, kind: str, rng: random.Random) -> None:
    data = path.read_bytes()
    if kind == "truncate":
        path.write_bytes(data[: rng.randrange(1, max(2, len(data)))])
    elif kind == "broken_line":
        lines = data.split(b"\n")
        lines[rng.randrange(len(lines))] = b"{not json"
        path.write_bytes(b"\n".join(lines))
    elif kind == "bad_utf8":
        at = rng.randrange(len(data))
        path.write_bytes(data[:at] + b"\xff\xfe" + data[at:])
    elif path.suffix == ".jsonl":
        lines = data.decode("utf-8").split("\n")
        filled = [i for i, line in enumerate(lines) if line.strip()]
        for i in rng.sample(filled, min(3, len(filled))):
            obj = json.loads(lines[i])
            _damage_object(obj, rng)
            lines[i] = json.dumps(obj)
        path.write_text("\n".join(lines), encoding="utf-8")
    else:
        obj = json.loads(data)
        for _ in range(3):
            _damage_object(obj, rng)
        path.write_text(json.dumps(obj), encoding="utf-8")


def _units() -> list[tuple[Path, str]]:
    roots = [ROOT / "data" / "sample"]
    if REAL.is_dir():
        roots += [
            REAL / "workspace-bench" / "codex-gpt-5.4-runs",
            REAL / "officeqa" / "g2b-gpt-5.4-traces",
            REAL / "theagentcompany" / "openhands-trajectories",
            REAL / "pi",
        ]
    found = list(iter_units(roots))
    rng = random.Random(7)
    by_format: dict[str, list[tuple[Path, str]]] = {}
    for unit, fmt in found:
        by_format.setdefault(fmt, []).append((unit, fmt))
    return [u for fmt in sorted(by_format) for u in rng.sample(by_format[fmt], min(3, len(by_format[fmt])))]


@pytest.mark.parametrize(("unit", "fmt"), _units(), ids=lambda v: v.name if isinstance(v, Path) else v)
def test_a_damaged_log_reads_or_fails_with_file_line_and_field(unit: Path, fmt: str, tmp_path: Path) -> None:
    rng = random.Random(f"{fmt}:{unit.name}")
    outcomes: list[str] = []
    for case in range(CASES_PER_UNIT):
        copy = tmp_path / f"case{case}" / unit.name
        copy.parent.mkdir()
        for (
            sibling
        ) in unit.parent.iterdir():  # what a run's files are joined with (G2B's task list beside runs)
            if sibling.is_file() and sibling != unit and sibling.stat().st_size < 5_000_000:
                shutil.copy(sibling, copy.parent / sibling.name)
        if unit.is_dir():
            shutil.copytree(unit, copy)
        else:
            shutil.copy(unit, copy)
        target = rng.choice(_log_files(copy))
        kind = rng.choice(DAMAGES)
        _damage(target, kind, rng)
        try:
            found = read_unit(copy, fmt)
            for trajectory in found:
                replay(trajectory, requirements="trajectory")
                diagnose(trajectory, replay(trajectory))  # what was read also goes through the analyses
        except RtlabError as exc:
            # rtlab's own error: it names the damaged file, with a line number for JSON-lines logs
            assert target.name in str(exc), (kind, str(exc))
            outcomes.append(f"{kind}: error")
        else:
            # read tolerantly (issue 24): what was skipped or repaired is said, and --strict refuses it
            warned = [w for t in found for w in t.warnings if w.kind not in ("join", "no-steps")]
            if warned:
                with pytest.raises(RtlabError):
                    read_unit(copy, fmt, strict=True)
            outcomes.append(f"{kind}: read" + (" with warnings" if warned else ""))
    assert len(outcomes) == CASES_PER_UNIT
    assert any(o.endswith(("error", "with warnings")) for o in outcomes), outcomes
