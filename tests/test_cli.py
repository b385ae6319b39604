"""The command line on the hand-made sample: ingest writes canonical JSONL, info prints the promised fields."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from rtlab.cli import EXIT_PARTIAL, main
from rtlab.ingest import FORMATS, read_jsonl

SAMPLE = ROOT / "data" / "sample"
INFO_FIELDS = {
    "id",
    "format",
    "model",
    "method",
    "n_steps",
    "chars_logged",
    "chars_shown",
    "deliverable_files",
    "n_rubric_items",
    "n_rubric_passed",
}


def test_ingest_then_info_json(tmp_path: Path, capsys) -> None:
    out = tmp_path / "sample.jsonl"
    assert main(["ingest", str(SAMPLE), "-o", str(out)]) == 0
    trajectories = read_jsonl(out)
    assert sorted(t.format for t in trajectories) == ["codex", "openai-chat", "pi"]
    capsys.readouterr()

    assert main(["info", str(out), "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == 3
    assert all(INFO_FIELDS <= set(r) for r in rows)
    by_format = {r["format"]: r for r in rows}
    codex = by_format["codex"]
    # 6 commands; the rubric judge passes 4 of 6 (hand-made sample, data/sample/README.md)
    assert codex["n_steps"] == 6 and codex["n_rubric_items"] == 6 and codex["n_rubric_passed"] == 4
    assert codex["deliverable_files"] == ["q3-budget-review.md"]
    assert codex["method"] == "plain" and codex["model"] == "gpt-5.4-nano"
    # the abandoned branch's read is not on the path the model saw: ls, 2 reads, grep, write
    assert by_format["pi"]["n_steps"] == 5
    assert by_format["openai-chat"]["n_steps"] == 3
    assert (
        by_format["openai-chat"]["n_rubric_items"] is None
        and by_format["openai-chat"]["n_rubric_passed"] is None
    )


def test_ingest_to_stdout_writes_the_file_bytes(tmp_path: Path, capsys) -> None:
    out = tmp_path / "sample.jsonl"
    assert main(["ingest", str(SAMPLE), "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["ingest", str(SAMPLE), "-o", "-"]) == 0
    assert capsys.readouterr().out.encode("utf-8") == out.read_bytes()


def test_info_on_raw_paths_is_readable(capsys) -> None:
    assert main(["info", str(SAMPLE)]) == 0
    out = capsys.readouterr().out
    assert "rubric: 4/6 passed" in out and out.rstrip().endswith("3 trajectories")


def test_partial_failure_exit_status_and_strict(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "runs" / "broken.jsonl"
    bad.parent.mkdir()
    bad.write_text(
        '{"schema":"rtlab.trajectory","version":1,"id":"a","format":"pi","source_path":"p"}\n{oops\n'
    )
    ok = tmp_path / "runs" / "ok.jsonl"
    main(["ingest", str(SAMPLE / "openai"), "-o", str(ok)])
    capsys.readouterr()
    out = tmp_path / "all.jsonl"
    # the broken line is skipped with a warning, the rest read (issue 24); a unit with nothing readable fails
    assert main(["ingest", str(tmp_path / "runs"), "-o", str(out)]) == 0
    (a,) = [t for t in read_jsonl(out) if t.id == "a"]
    assert [w.line for w in a.warnings] == [2] and a.warnings[0].path == str(bad)
    assert main(["ingest", str(tmp_path / "runs"), "-o", str(out), "--strict"]) == 2
    assert "broken.jsonl:2" in capsys.readouterr().err
    bad.write_text('{"schema":"rtlab.trajectory","version":1,"id":"a"}\n{oops\n')  # nothing readable in it
    assert main(["ingest", str(tmp_path / "runs"), "-o", str(out)]) == EXIT_PARTIAL
    assert "broken.jsonl" in capsys.readouterr().err
    assert len(read_jsonl(out)) == 1


def test_unknown_format_and_clip_policy_are_clear_errors(tmp_path: Path, capsys) -> None:
    p = tmp_path / "notes.txt"
    p.write_text("hi")
    assert main(["info", str(p)]) == 2
    err = capsys.readouterr().err
    assert "not recognised" in err and "codex:" in err
    assert main(["info", str(SAMPLE), "--clip", "nope"]) == 2
    assert "unknown clip policy 'nope'" in capsys.readouterr().err


def test_console_script_runs() -> None:
    exe = Path(sys.executable).with_name("rtlab")
    out = subprocess.run([str(exe), "formats"], capture_output=True, text=True, check=True).stdout
    assert "codex:" in out and "none:" in out


def test_ingest_accepts_every_format(tmp_path: Path, capsys) -> None:
    out = tmp_path / "fixtures.jsonl"
    assert main(["ingest", str(ROOT / "tests" / "fixtures"), "-o", str(out)]) == 0
    formats = {t.format for t in read_jsonl(out)}
    # every reader has a hand-made fixture (the canonical format is what ingest writes)
    assert formats == set(FORMATS) - {"rtlab"}


def test_score_json_on_the_sample(capsys) -> None:
    assert main(["score", str(SAMPLE), "--json", "--n-boot", "50"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scorer_version"].startswith("databricks/officeqa@") and out["tcr_p"] == 0.7
    wb = {g["metric"]: g for g in out["groups"] if g["benchmark"] == "workspace-bench"}
    # one run, 4 of 6 rubric items passed: pass rate 4/6; 4/6 < 0.70, so the task is not completed
    assert wb["pass_rate"]["value"] == pytest.approx(4 / 6)
    assert wb["tcr@70"]["value"] == 0.0
    assert wb["pass_rate"]["ci_low"] == wb["pass_rate"]["ci_high"] == pytest.approx(4 / 6)  # one task
    assert out["failures"] == []


def test_values_json_rows_and_summary(capsys) -> None:
    assert main(["values", str(SAMPLE), "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {"trajectory", "rubric_index", "value", "shown", "delivered", "held"} <= set(rows[0])
    by_value = {r["value"]: r for r in rows}
    # July's total: computed and printed by the agent's python one-liner (step 3), so no read-log entry holds it
    assert (
        by_value["26,060.50"] | {} and by_value["26,060.50"]["shown"] and by_value["26,060.50"]["delivered"]
    )
    assert not by_value["26,060.50"]["held"]
    # August's total (38,810.25) was never printed and the review distorts it (36,810.25)
    assert not by_value["38,810.25"]["shown"] and not by_value["38,810.25"]["delivered"]
    assert main(["values", str(SAMPLE), "--summary"]) == 0
    summary = json.loads(capsys.readouterr().out)  # strict JSON: no NaN
    assert summary["shown_missing"] == 0 and summary["share_missing_held"] is None


def test_diagnose_json_and_breakdown(capsys) -> None:
    assert main(["diagnose", str(SAMPLE), "--json"]) == 0
    labels = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # the sample's judge fails rubric items 2 (August total) and 3 (September total)
    assert [lab["rubric_index"] for lab in labels] == [2, 3]
    for lab in labels:
        assert lab["category"] in {"shown_but_missing", "dropped_or_distorted", "discovery", "other"}
        assert lab["codebook_version"] == "rtlab-codebook/2.5"  # the packaged one
        assert lab["rule"] and lab["confidence"] in ("high", "low")
        assert lab["evidence"] and {"step", "path", "excerpt"} <= set(lab["evidence"][0])
    assert main(["diagnose", str(SAMPLE), "--breakdown", "--by", "method", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sum(r["lost"] for r in rows) == 2 and {r["method"] for r in rows} == {"plain"}


def test_diagnose_and_values_in_worker_processes_print_what_one_process_prints(capsys) -> None:
    # --jobs 2: each unit is read, replayed and diagnosed in a worker; the labels come back in unit order
    paths = [str(ROOT / "data" / "sample"), str(ROOT / "tests" / "fixtures" / "runningtab")]
    for extra in (["--json"], ["--breakdown", "--by", "method,model", "--json"], []):
        assert main(["diagnose", *paths, *extra]) == 0
        serial = capsys.readouterr().out
        assert main(["diagnose", *paths, *extra, "--jobs", "2"]) == 0
        assert capsys.readouterr().out == serial
    assert "failed rubric items labelled" in serial
    for extra in (["--json"], ["--summary"], []):  # rtlab values the same way
        assert main(["values", *paths, *extra]) == 0
        serial = capsys.readouterr().out
        assert main(["values", *paths, *extra, "--jobs", "2"]) == 0
        assert capsys.readouterr().out == serial
    # --no-join: no judge results joined, so no failed items to label (the flag used to be ignored)
    assert main(["diagnose", paths[0], "--no-join"]) == 0
    assert capsys.readouterr().out.strip() == "0 failed rubric items labelled"


def test_annotate_with_the_simulated_model_then_agree(tmp_path: Path, capsys) -> None:
    import pandas as pd

    labels = tmp_path / "labels.csv"
    args = [
        "annotate",
        str(SAMPLE),
        "-o",
        str(labels),
        "--model",
        "m",
        "--simulated",
        "--cache-dir",
        str(tmp_path),
    ]
    assert main(args) == 0
    frame = pd.read_csv(labels)
    # the sample's two failed rubric items, labelled by the rules and by one simulated LLM annotator
    assert sorted(frame["annotator"].unique()) == ["llm:m:p1:s0", "rules"]
    assert sorted(frame["item"].unique()) == ["codex:301_plain#2", "codex:301_plain#3"]
    assert (labels.stat().st_mode & 0o777) == 0o600
    assert "SIMULATED" in capsys.readouterr().err
    assert main([*args, "--dry-run"]) == 0
    assert capsys.readouterr().out.startswith("0 calls to make (2 of 2 requests cached)")
    assert main(["agree", str(labels), "--json", "--reference", "rules", "--n-boot", "20"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {"krippendorff_alpha", "percent_agreement", "cohen_kappa"} <= set(report)
    assert list(report["cohen_kappa"]) == ["llm:m:p1:s0|rules"]


def test_recover_with_the_simulated_model(tmp_path: Path, capsys) -> None:
    paper = ["recover", str(SAMPLE), "--model", "m", "--simulated", "--cache-dir", str(tmp_path), "--json"]
    args = [*paper[:-1], "--sample", "held", "--json"]
    assert main(args) == 0
    captured = capsys.readouterr()
    rows = [json.loads(line) for line in captured.out.splitlines()]
    # the sample's tab holds one expected value (15,800, read from the August sheet): three conditions
    assert sorted(r["condition"] for r in rows) == ["no_tab", "read_log", "review"]
    figures = json.loads(captured.err.strip().splitlines()[-1])["figures"]
    assert figures["llm:m:r1:s0"]["read_log"]["values"] == 1
    assert main([*args[:-1], "--dry-run"]) == 0
    assert capsys.readouterr().out.startswith("0 calls to make (3 of 3 requests cached)")


@pytest.mark.parametrize("command", ["annotate", "recover"])
def test_llm_commands_count_requests_with_concurrency_and_jobs_is_a_deprecated_alias(
    command: str, tmp_path: Path, capsys, monkeypatch
) -> None:
    import rtlab.annotation
    from rtlab.cli import build_parser

    base = [command, str(SAMPLE), "--model", "m"] + (
        ["-o", str(tmp_path / "l.csv")] if command == "annotate" else []
    )
    assert build_parser().parse_args(base).concurrency == 8
    assert build_parser().parse_args([*base, "--concurrency", "3"]).concurrency == 3
    assert capsys.readouterr().err == ""
    assert build_parser().parse_args([*base, "--jobs", "2"]).concurrency == 2
    notice = capsys.readouterr().err.splitlines()
    assert len(notice) == 1 and "--jobs is deprecated" in notice[0] and "--concurrency" in notice[0]

    help_text = subprocess.run(
        [sys.executable, "-m", "rtlab", command, "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert "--concurrency N" in help_text and "requests in flight" in help_text
    assert "deprecated alias of --concurrency" in " ".join(help_text.split())

    # the number reaches the requests: the pipeline is asked for that many in flight
    name = "annotate" if command == "annotate" else "recover"
    real, seen = getattr(rtlab.annotation, name), {}

    def spy(*args, **kw):
        seen.update(kw)
        return real(*args, **kw)

    monkeypatch.setattr(rtlab.annotation, name, spy)
    assert main([*base, "--simulated", "--cache-dir", str(tmp_path / "c"), "--jobs", "3"]) == 0
    assert seen["max_workers"] == 3
    err = capsys.readouterr().err
    assert err.splitlines()[0].startswith("rtlab: --jobs is deprecated") and "SIMULATED" in err


# --- the package: families, grouped help, shared options, a cheap start ---------------------------------


def _help_sections(text: str) -> dict[str, list[str]]:
    """``rtlab --help``'s sections: each heading and the first word of each of its entries."""
    sections: dict[str, list[str]] = {}
    heading = None
    for line in text.splitlines():
        if line and not line.startswith(" ") and line.endswith(":"):
            heading = line[:-1]
            sections[heading] = []
        elif heading is not None and line.startswith("  ") and not line.startswith("   "):
            sections[heading].append(line.split()[0])
    return sections


def test_help_lists_every_command_once_under_its_family_heading() -> None:
    import argparse
    import importlib

    from rtlab.cli import FAMILIES, build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    sections = _help_sections(parser.format_help())
    titles = [importlib.import_module(f"rtlab.cli.{name}").TITLE for name in FAMILIES]
    assert list(sections) == [*titles, "options"]  # where argparse puts the commands: before the options
    assert sections["options"] == ["-h,", "--version"]
    listed = [c for title in titles for c in sections[title]]
    assert sorted(listed) == sorted(sub.choices) and len(set(listed)) == len(listed) == 20
    assert sections["reading and export"] == ["ingest", "export", "info", "formats"]
    assert sections["the store"] == ["build"]
    assert sections["the tab in Claude Code and Codex"] == ["tab"]
    # each with its one-line help, as argparse words it (%% in a help is a %)
    text = " ".join(parser.format_help().split())
    assert "score the benchmarks' own metrics per group, with bootstrap 95% CIs over tasks" in text
    # a command's own help is argparse's: its prog and usage, no family headings
    own = sub.choices["info"].format_help()
    assert own.startswith("usage: rtlab info [-h]") and "reading and export" not in own


def test_a_new_family_is_a_module_and_its_name(monkeypatch, capsys) -> None:
    """The extension point the later families (``rtlab tab ...``, Inspect) use: a module with ``TITLE`` and
    ``register``, and its name in ``FAMILIES``."""
    import types

    import rtlab.cli._main
    from rtlab.cli._options import command, json_option

    family = types.ModuleType("rtlab.cli._extra")

    def cmd_hello(args) -> int:
        print(f"hello {args.json}")
        return 7

    def register(sub) -> None:
        p = command(sub, "hello", cmd_hello, help="say hello")
        json_option(p, "say it as JSON")

    family.TITLE = "an extra family"  # type: ignore[attr-defined]
    family.register = register  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "rtlab.cli._extra", family)
    monkeypatch.setattr(rtlab.cli._main, "FAMILIES", (*rtlab.cli._main.FAMILIES, "_extra"))
    sections = _help_sections(rtlab.cli._main.build_parser().format_help())
    assert sections["an extra family"] == ["hello"]
    assert main(["hello", "--json"]) == 7
    assert capsys.readouterr().out == "hello True\n"


def test_the_options_choices_are_their_owners() -> None:
    """The parser's choices are plain tuples (the command line starts without the packages that own them);
    they are the owners' own."""
    import typing

    from rtlab.annotation import GROUPINGS, PROMPT_VERSIONS
    from rtlab.annotation._gold import By, Level
    from rtlab.cli import _options
    from rtlab.environment import ABLATIONS, REQUIREMENT_SOURCES

    assert _options.ABLATIONS == ABLATIONS
    assert _options.REQUIREMENTS == REQUIREMENT_SOURCES
    from rtlab.agent import AGENTS, METHODS, AgentKind
    from rtlab.cli import _live, _tab
    from rtlab.harnesses import CLI_AGENTS, HARNESSES, CliAgent

    assert _options.METHODS == METHODS
    assert _tab.HARNESSES == HARNESSES == CLI_AGENTS == typing.get_args(CliAgent)
    assert _live.AGENTS == AGENTS == typing.get_args(AgentKind) == ("rtlab", *CLI_AGENTS)
    assert _options.PROMPTS == tuple(PROMPT_VERSIONS)
    assert _options.LEVELS == typing.get_args(Level)
    assert _options.GROUPINGS == GROUPINGS == typing.get_args(By)


def test_the_command_line_starts_without_the_heavy_packages() -> None:
    """Every command's parser is built (``rtlab --help`` does that) without pandas, numpy or rtlab's analysis
    stages: each command imports them when it runs."""
    heavy = ("pandas", "numpy", "pyarrow", "matplotlib", "openai", "duckdb")
    stages = ("environment", "runner", "analysis", "annotation", "judge", "store", "view", "synth", "agent")
    code = (
        "import sys\nfrom rtlab.cli import build_parser\nbuild_parser().format_help()\n"
        "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in HEAVY or "
        "m.split('.')[:2] in [['rtlab', s] for s in STAGES])))"
    )
    out = subprocess.run(
        [sys.executable, "-c", f"HEAVY = {heavy!r}\nSTAGES = {stages!r}\n{code}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.split() == []


def test_python_m_rtlab_cli_is_the_command_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rtlab.cli", "formats"], capture_output=True, text=True, check=True
    )
    assert done.stdout.startswith("Formats (autodetected in this order; --format NAME forces one):")
