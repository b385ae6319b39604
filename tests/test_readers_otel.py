"""The OpenTelemetry reader: hand-made OTLP JSON (GenAI conventions) and OTLP JSON lines (OpenInference), the
real span dumps in ``../shared/real/wild/otel-genai``, damaged records, detection."""

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
from rtlab.ingest.readers import get_reader, otel
from rtlab.ingest.readers._base import ReadOptions
from rtlab.records import Trajectory, trajectory_from_dict, trajectory_to_dict

HERE = FIXTURES / "otel"
GENAI = HERE / "genai-otlp.json"
OPENINFERENCE = HERE / "openinference.otlp.jsonl"


def read(path: Path) -> list[Trajectory]:
    return otel.read(path, ReadOptions())


def said(t: Trajectory) -> list[tuple[int | None, str | None, str, str]]:
    """The reading warnings as (line, field, kind, reason); each names the file read."""
    assert all(w.path == t.source_path for w in t.warnings)
    return [(w.line, w.field, w.kind, w.reason) for w in t.warnings]


def test_genai_trace() -> None:
    [t] = read(GENAI)
    assert t.id == "otel:5b8efff798038103d269b633813fc60c" and t.format == "otel"
    assert [
        (s.tool, s.call_id, s.command, s.action.kind, s.action.path, s.answered, s.is_error) for s in t.steps
    ] == [
        ("shell", "call_1", "find src -name '*.py' | wc -l", "shell", None, True, False),
        ("read_file", "call_2", "read src/app.py", "read", "src/app.py", True, False),
        ("read_file", "call_3", "read src/missing.py", "read", "src/missing.py", True, True),
        ("web_search", "call_4", "web_search", "other", None, False, False),
    ]
    assert t.steps[0].shown == "3\n"
    assert t.steps[2].shown == "[Errno 2] No such file or directory: 'src/missing.py'"
    assert [(r.path, r.excerpt) for r in capture_step(t.steps[1]).reads] == [
        ("src/app.py", "import os\nimport json\n\nprint(json.dumps(dict(os.environ)))\n")
    ]
    assert capture_step(t.steps[2]).reads == ()
    assert (
        t.steps[1].started_at == "2026-01-05T12:00:01.300000Z"
        and t.steps[1].ended_at == "2026-01-05T12:00:01.350000Z"
    )
    assert t.model == "gpt-4.1-2025-04-14"
    assert (t.usage.input_tokens, t.usage.output_tokens) == (820 + 1010, 40 + 35)
    assert t.instruction == "How many Python files are under src/, and what does src/app.py import?"
    assert t.deliverable.final_message == "There are 3 Python files; src/app.py imports os and json."
    assert t.meta["agents"] == ["repo-helper"] and t.meta["n_spans"] == 7
    assert said(t) == [
        (None, None, "other", "trace 5b8efff798038103d269b633813fc60c: 1 tool span(s) record no result "
         "(content capture off?); kept as unanswered steps")
    ]  # fmt: skip
    with pytest.raises(ReaderError, match=re.escape(f"{GENAI}: trace 5b8e")):
        otel.read(GENAI, ReadOptions(strict=True))
    assert (t.started_at, t.ended_at) == ("2026-01-05T12:00:00Z", "2026-01-05T12:00:09Z")
    assert trajectory_from_dict(json.loads(json.dumps(trajectory_to_dict(t)))) == t


def test_openinference_lines_one_trajectory_per_trace() -> None:
    first, second = read(OPENINFERENCE)
    assert first.id == "otel:0af7651916cd43dd8448eb211c80319c"
    assert [(s.tool, s.command, s.shown) for s in first.steps] == [
        ("read_file", "read config.yaml", "server:\n  port: 8080\n")
    ]
    assert first.steps[0].line == 1
    assert first.model == "claude-3-5-haiku-20241022" and first.usage.total_tokens == 650
    assert first.deliverable.final_message == "The default port is 8080."  # its last LLM span is on line 2
    assert second.id == "otel:4bf92f3577b34da6a3ce929d0e0e4736"
    assert [(s.tool, s.action.kind, s.shown) for s in second.steps] == [
        ("list_dir", "other", "index.md\nsetup.md\n")
    ]
    assert second.instruction == "List the docs folder."
    assert first.warnings == second.warnings == []


def test_damaged_lines_and_spans(tmp_path: Path) -> None:
    lines = OPENINFERENCE.read_text(encoding="utf-8").splitlines()
    doc = json.loads(lines[1])
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    del spans[1]["spanId"]  # the second trace's root loses its id
    spans.append("not a span")
    lines[1] = json.dumps(doc)
    lines.insert(1, "2026-01-05 12:00:30 exporter: flush failed, retrying")
    lines.append(lines[0][:100])  # a last line cut off
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    first, second = read(path)
    assert (first.n_steps, second.n_steps) == (1, 1)
    spans_at = "resourceSpans[0].scopeSpans[0].spans"
    assert (
        said(first)
        == said(second)
        == [
            (
                2,
                None,
                "not-json",
                "not JSON ('2026-01-05 12:00:30 exporter: flush failed, retrying'); skipped",
            ),
            (4, None, "truncated", "last line is not complete JSON (log cut off?); skipped"),
            (
                3,
                f"{spans_at}[1]",
                "bad-record",
                "a span without a trace id and span id (missing field); skipped",
            ),
            (3, f"{spans_at}[3]", "bad-record", "expected an object (a span), got str; skipped"),
        ]
    )
    with pytest.raises(ReaderError, match=re.escape(f"{path}:2")):
        otel.read(path, ReadOptions(strict=True))


def test_nothing_recognisable_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"spans": []}', encoding="utf-8")
    assert detect(path) is None
    with pytest.raises(ReaderError, match="no OpenTelemetry span"):
        read(path)


def test_detection() -> None:
    for path in (GENAI, OPENINFERENCE):
        assert [n for n in FORMATS if get_reader(n).sniff(path)] == ["otel"]
    for path in sorted(FIXTURES.rglob("*")):
        if path.is_file() and path.parent != HERE:
            assert not otel.sniff(path), path


def test_sniff_claims_none_of_the_other_wild_formats(real: Path) -> None:
    for path in sorted((real / "wild").rglob("*")):
        if path.is_file() and path.parent.name != "otel-genai":
            assert not otel.sniff(path), path


def raw_tool_spans(path: Path) -> tuple[int, int]:
    """GenAI ``execute_tool`` spans, and those recording a result (any-agent's ``gen_ai.output``), from the raw
    dump."""
    spans = json.loads(path.read_text(encoding="utf-8"))["spans"]
    tools = [s for s in spans if s["attributes"].get("gen_ai.operation.name") == "execute_tool"]
    return len(tools), sum(1 for s in tools if "gen_ai.output" in s["attributes"])


@pytest.mark.parametrize("name", ["any-agent__OPENAI_trace.json", "any-agent__LANGCHAIN_trace.json"])
def test_real_any_agent_traces(real: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = wild_folder(real, "otel-genai") / name
    assert detect(path) == "otel"
    [t] = read(path)
    assert (len(t.steps), t.n_steps) == raw_tool_spans(path) == (2, 2)
    assert [s.tool for s in t.steps] == ["get_current_time", "write_file"]
    assert t.model == "mistral/mistral-small-latest" and t.usage.cost_usd > 0
    assert t.instruction.startswith("Find what year it is in the America/New_York timezone")
    assert "warnings" not in t.meta and t.warnings == []
    assert main(["replay", str(path)]) == 0
    assert t.id in capsys.readouterr().out


def test_real_dump_without_genai_attributes(real: Path) -> None:
    path = wild_folder(real, "otel-genai") / "open-agent-traces__otel_traces_2025-06-29_00-23-24.json"
    assert detect(path) == "otel"
    [t] = read(path)
    spans = json.loads(path.read_text(encoding="utf-8"))["spans"]
    assert t.n_steps == sum(1 for s in spans if s["attributes"].get("openinference.span.kind") == "TOOL") == 0
    assert t.meta["n_spans"] == len(spans) == 6
    assert [(w.line, w.kind) for w in t.warnings] == [(None, "other"), (None, "no-steps")]
    assert t.warnings[0].reason == (
        "trace bf386626acbcb551618d51dc42d956ec: no GenAI (execute_tool) or OpenInference (TOOL) tool span; no steps"
    )


@pytest.mark.parametrize("name", ["genai-otlp.json", "openinference.otlp.jsonl"])
def test_the_file_is_read_once(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A document or JSON lines: the bytes are read once, its first line and its values taken from them; what
    is read is what reading each from the file gave (the same trajectories, a 128-bit integer id included)."""
    expected = [trajectory_to_dict(t) for t in read(HERE / name)]
    big = tmp_path / "big-ids.json"  # trace ids as 128-bit integers (any-agent's dumps): json reads them
    doc = {"spans": [{"name": "tool", "context": {"trace_id": 2**127 + 5, "span_id": 2**63 + 1},
                      "attributes": {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "bash"}}]}  # fmt: skip
    big.write_text(json.dumps(doc, indent=2))
    (trace,) = read(big)
    assert trace.id.endswith(f"{2**127 + 5:032x}")
    opened: list[Path] = []
    real_read_bytes = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        opened.append(self)
        return real_read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    monkeypatch.setattr("rtlab.io._files.head_bytes", lambda *a: pytest.fail("the head read apart"))
    assert [trajectory_to_dict(t) for t in read(HERE / name)] == expected
    assert opened == [HERE / name]
