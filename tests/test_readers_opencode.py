"""The OpenCode reader: a hand-made session export, the two real exports in ``../shared/real/wild/opencode``,
damaged records, detection."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import FIXTURES, wild_folder

from rtlab.cli import main
from rtlab.environment import capture_step
from rtlab.errors import ReaderError
from rtlab.ingest import FORMATS, detect
from rtlab.ingest.readers import get_reader, opencode
from rtlab.ingest.readers._base import ReadOptions
from rtlab.records import Step, Trajectory, trajectory_from_dict, trajectory_to_dict

HERE = FIXTURES / "opencode"
EXPORT = HERE / "session__ses_4a1f09c2effeQ7x2Lm9TzKpB3w.json"


def read_one(path: Path) -> Trajectory:
    [t] = opencode.read(path, ReadOptions())
    return t


def unframed(step: Step) -> str:
    shown, pos, out = step.shown or "", 0, []
    for f in step.frames:
        out.append(shown[pos : f.start])
        pos = f.end
    return "".join(out) + shown[pos:]


def test_export_steps_exactly() -> None:
    t = read_one(EXPORT)
    assert [
        (
            s.tool,
            s.call_id,
            s.action.kind,
            s.action.path or s.action.base or s.action.pattern,
            s.answered,
            s.is_error,
        )
        for s in t.steps
        if s.action
    ] == [  # fmt: skip
        ("read", "toolu_r1", "read", "/srv/shop/src/cart.ts", True, False),
        ("read", "toolu_r2", "read", "/srv/shop/src/tax.ts", True, False),
        ("grep", "toolu_g1", "read", "/srv/shop/src/cart.ts", True, False),
        ("grep", "toolu_g2", "other", None, True, False),
        ("glob", "toolu_gl", "list", "**/*.test.ts", True, False),
        ("read", "toolu_r3", "list", "/srv/shop/test", True, False),
        ("edit", "toolu_e1", "edit", "/srv/shop/src/cart.ts", True, False),
        ("write", "toolu_w1", "write", "/srv/shop/test/tax.test.ts", True, False),
        ("apply_patch", "toolu_p1", "edit", "/srv/shop/src/cart.ts", True, False),
        ("bash", "toolu_b1", "shell", None, True, False),
        ("bash", "toolu_b2", "shell", None, True, True),
        ("bash", "toolu_b3", "shell", None, False, False),
    ]
    read, old_read, grep, _, glob, folder = t.steps[:6]
    assert unframed(read) == (
        "export function total(items: Item[]): number {\n  return items.reduce((s, i) => s + i.price, 0)\n}"
    )
    assert (read.action.offset, read.command) == (1, "read /srv/shop/src/cart.ts")
    assert unframed(old_read) == "const TAX = 0.2\nexport const withTax = (n: number) => n * (1 + TAX)"
    assert (old_read.action.offset, old_read.action.limit) == (10, 2)  # from the first line shown
    assert unframed(grep) == (
        "export function total(items: Item[]): number {\n  return items.reduce((s, i) => s + i.price, 0)"
    )
    assert unframed(glob) == "/srv/shop/test/cart.test.ts" and unframed(folder) == "cart.test.ts\nfixtures/"
    assert t.steps[9].cwd == "/srv/shop" and unframed(t.steps[10]) == ""
    assert [(r.path, r.excerpt) for r in capture_step(read).reads] == [
        ("/srv/shop/src/cart.ts", "export function total(items: Item[]): number {\n"),
        ("/srv/shop/src/cart.ts", "  return items.reduce((s, i) => s + i.price, 0)\n"),
        ("/srv/shop/src/cart.ts", "}"),
    ]
    assert t.steps[0].started_at == "2026-01-01T10:00:01.300000Z"
    assert t.steps[0].ended_at == "2026-01-01T10:00:01.310000Z"


def test_export_facts() -> None:
    t = read_one(EXPORT)
    assert t.id == "opencode:ses_4a1f09c2effeQ7x2Lm9TzKpB3w" and t.format == "opencode"
    assert (t.harness, t.harness_version, t.model, t.cwd) == (
        "opencode",
        "1.1.40",
        "claude-sonnet-4-5",
        "/srv/shop",
    )
    assert t.instruction == "Cart totals ignore tax. Fix it and add a test."
    assert t.deliverable.final_message.startswith("Totals now include tax")
    assert [f.path for f in t.deliverable.files] == ["/srv/shop/test/tax.test.ts"]
    u = t.usage
    assert (u.input_tokens, u.output_tokens, u.cached_input_tokens, u.reasoning_tokens) == (
        2100 + 1500 + 300 + 900 + 3600,
        180 + 420,
        1500 + 3600,
        40,
    )
    assert u.cost_usd == pytest.approx(0.0334)
    assert t.meta["title"] == "Include tax in cart totals" and "warnings" not in t.meta and t.warnings == []
    assert [e.kind for e in t.events][:3] == ["message", "other", "reasoning"]
    assert trajectory_from_dict(json.loads(json.dumps(trajectory_to_dict(t)))) == t


def test_damaged_parts_are_skipped_by_place(tmp_path: Path) -> None:
    doc = json.loads(EXPORT.read_text(encoding="utf-8"))
    doc["messages"][1]["parts"][3]["state"] = "oops"  # a mistyped field: the second read is lost
    doc["messages"][1]["parts"].insert(0, {"type": "hologram"})
    doc["messages"].insert(2, {"info": {"role": "robot"}, "parts": []})
    doc["messages"].append(42)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    t = read_one(path)
    assert t.n_steps == 10
    assert all(w.path == str(path) for w in t.warnings)
    assert [(w.line, w.field, w.kind, w.reason) for w in t.warnings] == [
        (2, "messages[1].parts[0].type", "unknown-record", "unknown part type 'hologram'; skipped"),
        (2, "messages[1].parts[4]", "bad-record",
         "a tool part: missing field tool or state (or not a text / an object); skipped"),
        (3, "messages[2].info.role", "unknown-record", "unknown role 'robot'; skipped"),
        (6, "messages[5]", "bad-record",
         "a message: missing field info or parts (or not an object / a list); skipped"),
    ]  # fmt: skip
    with pytest.raises(ReaderError, match=re.escape(f"{path}:2")):
        opencode.read(path, ReadOptions(strict=True))


def test_not_an_export_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"info": {"id": "ses_1"}, "messages": {}}', encoding="utf-8")
    assert detect(path) is None
    with pytest.raises(ReaderError, match="not an OpenCode session export"):
        read_one(path)


def test_detection() -> None:
    assert [n for n in FORMATS if get_reader(n).sniff(EXPORT)] == ["opencode"]
    for path in sorted(FIXTURES.rglob("*")):
        if path.is_file() and path.parent != HERE:
            assert not opencode.sniff(path), path


def test_sniff_claims_none_of_the_other_wild_formats(real: Path) -> None:
    for path in sorted((real / "wild").rglob("*")):
        if path.is_file() and path.parent.name != "opencode":
            assert not opencode.sniff(path), path


def raw_counts(path: Path) -> tuple[int, int]:
    """Tool parts, and those in state ``completed`` or ``error``, counted from the raw export."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    parts = [p for m in doc["messages"] for p in m["parts"] if p["type"] == "tool"]
    return len(parts), sum(1 for p in parts if p["state"]["status"] in ("completed", "error"))


@pytest.mark.parametrize(
    ("name", "calls", "answered"),
    [
        ("dark-factory__session__silent-nebula__ses_39b2e52e8ffeokU5mBDCeUvc8t.json", 25, 24),
        ("dark-factory__session__jolly-eagle__ses_39b5d713cffeRgAoxPIwS3Plus.json", 2, 2),
    ],
)
def test_real_exports(
    real: Path, name: str, calls: int, answered: int, capsys: pytest.CaptureFixture[str]
) -> None:
    path = wild_folder(real, "opencode") / name
    assert detect(path) == "opencode"
    t = read_one(path)
    assert (len(t.steps), t.n_steps) == raw_counts(path) == (calls, answered)
    assert "warnings" not in t.meta
    assert (t.harness_version, t.model) == ("1.2.5", "gpt-5.3-codex")
    assert all(s.action is not None for s in t.steps)
    assert trajectory_from_dict(json.loads(json.dumps(trajectory_to_dict(t)))) == t
    assert main(["replay", str(path)]) == 0
    assert t.id in capsys.readouterr().out


def test_real_export_cut_output_is_marked(real: Path) -> None:
    path = (
        wild_folder(real, "opencode")
        / "dark-factory__session__silent-nebula__ses_39b2e52e8ffeokU5mBDCeUvc8t.json"
    )
    t = read_one(path)
    cut = [s for s in t.steps if any(f.kind == "clip" for f in s.frames)]
    assert [s.command for s in cut] == ["opencode export ses_39b2e52e8ffeokU5mBDCeUvc8t"]
    assert cut[0].clipped and unframed(cut[0]).endswith('"pattern": "session"\n            },')
