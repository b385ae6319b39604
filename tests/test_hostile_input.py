"""Hostile input (issue 19): every reproducer found by probing rtlab as a hostile user would, each a regression
test that failed before its fix. Commands run in-process through ``rtlab.cli.main``; a traceback (an exception
escaping ``main``) fails the test, and every skipped file must be named with why.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, warnings_of

from rtlab.cli import main
from rtlab.errors import ReaderError, RtlabError, UnitError
from rtlab.ingest import ingest
from rtlab.io import first_json_line, iter_json_lines, load_json

CHAT = FIXTURES / "openai" / "chat_messages.jsonl"
CODEX_RUN = FIXTURES / "codex" / "runs" / "7_plain"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``rtlab ARGV`` in-process: exit status, stdout, stderr; no traceback allowed."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


# --- symbolic links in a scanned folder ------------------------------------------------------------------


def _looped(tmp_path: Path) -> Path:
    folder = tmp_path / "scan"
    folder.mkdir()
    shutil.copy(CHAT, folder / "chat.jsonl")
    (folder / "self").symlink_to(folder)  # a link back up
    (folder / "a").symlink_to("b")  # a two-link loop
    (folder / "b").symlink_to("a")
    (folder / "dangling").symlink_to(tmp_path / "nowhere")
    return folder


def test_symlink_loops_and_dangling_links_are_listed_not_fatal(tmp_path: Path, capsys) -> None:
    folder = _looped(tmp_path)
    result = ingest([folder])
    assert [t.format for t in result.trajectories] == ["openai-chat"]
    why = {Path(u.path).name: u.reason for u in result.unclaimed}
    assert why["a"] == why["b"] == "a symbolic link loop"
    assert why["dangling"].startswith("a broken symbolic link")
    assert why["self"] == "a link to a folder already scanned"
    for command in ("info", "replay", "values", "diagnose"):
        code, _, err = run(capsys, command, str(folder))
        assert code == 0, (command, err)
        assert "symbolic link loop" in err and "broken symbolic link" in err


def test_a_loop_given_directly_is_named(tmp_path: Path, capsys) -> None:
    folder = _looped(tmp_path)
    code, _, err = run(capsys, "info", str(folder / "a"))
    assert code == 2 and f"{folder / 'a'}: a symbolic link loop" in err


def test_a_folder_of_links_to_run_folders_reads_every_run(tmp_path: Path, capsys) -> None:
    links = tmp_path / "links"
    links.mkdir()
    (links / "r1").symlink_to(CODEX_RUN)
    (links / "r2").symlink_to(FIXTURES / "dci" / "20260210-141503")
    result = ingest([links])
    assert sorted(t.format for t in result.trajectories) == ["codex", "dci"]
    code, out, _ = run(capsys, "info", str(links))
    assert code == 0 and "2 trajectories" in out


def test_fifos_and_unreadable_folders_are_named(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "scan"
    folder.mkdir()
    shutil.copy(CHAT, folder / "chat.jsonl")
    os.mkfifo(folder / "pipe.jsonl")  # never opened: a read would block for good
    result = ingest([folder])
    assert len(result.trajectories) == 1
    assert [(Path(u.path).name, u.reason) for u in result.unclaimed] == [
        ("pipe.jsonl", "a FIFO (named pipe), not a regular file")
    ]
    code, _, err = run(capsys, "info", str(folder / "pipe.jsonl"))
    assert code == 2 and "a FIFO" in err


# --- --strict ends in rtlab's error, never a traceback -----------------------------------------------------


def _bad_and_good(tmp_path: Path) -> list[str]:
    bad = tmp_path / "broken.jsonl"
    lines = CHAT.read_text(encoding="utf-8").splitlines()
    lines[2] = "{not json"  # claimed by its first line, broken on its third
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [str(CHAT), str(bad)]


@pytest.mark.parametrize("command", ["replay", "values", "diagnose", "info", "ingest"])
def test_strict_stops_with_a_named_error(tmp_path: Path, capsys, command: str) -> None:
    extra = ["-o", str(tmp_path / "out.jsonl")] if command == "ingest" else []
    code, _, err = run(capsys, command, "--strict", *_bad_and_good(tmp_path), *extra)
    assert code == 2
    assert "rtlab: error:" in err and "broken.jsonl" in err


def test_strict_replay_paths_raises_unit_error_still_a_runtime_error(tmp_path: Path) -> None:
    from rtlab.runner import replay_paths

    with pytest.raises(UnitError, match="broken.jsonl") as caught:
        list(replay_paths(_bad_and_good(tmp_path), strict=True))
    assert isinstance(caught.value, RuntimeError)


def test_strict_ingest_names_a_folder_where_a_judge_file_is_expected(tmp_path: Path, capsys) -> None:
    run_dir = tmp_path / "7_plain"
    shutil.copytree(CODEX_RUN, run_dir)
    judge = run_dir / "output" / "rubrics_judge--fixture-judge.json"
    judge.unlink()
    judge.mkdir()  # a directory where a judge file is expected (IsADirectoryError escaped before)
    for command in ("info", "ingest"):
        extra = ["-o", str(tmp_path / "o.jsonl")] if command == "ingest" else []
        code, _, err = run(capsys, command, "--strict", str(run_dir), *extra)
        assert code == 2, err
        assert "rtlab: error:" in err and "rubrics_judge--fixture-judge.json" in err
    with pytest.raises(RtlabError, match="7_plain"):
        ingest([run_dir], strict=True)


def test_a_time_no_date_has_is_a_warning(tmp_path: Path, capsys) -> None:
    doc = json.loads((FIXTURES / "openai" / "responses_run.json").read_text(encoding="utf-8"))
    doc["created_at"] = 1e300  # OverflowError escaped `info --strict` before
    path = tmp_path / "resp.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    (t,) = ingest([path]).trajectories
    assert t.started_at is None
    assert any("[created_at]: 1e+300 is not a Unix time" in w for w in warnings_of(t))
    code, _, _ = run(capsys, "info", str(path))
    assert code == 0
    code, _, err = run(capsys, "info", "--strict", str(path))  # a reading warning is an error (issue 24)
    assert code == 2 and "[created_at]: 1e+300 is not a Unix time" in err


# --- deep nesting -----------------------------------------------------------------------------------------


def test_deep_nesting_on_a_first_line(tmp_path: Path, capsys) -> None:
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100_000 + "\n", encoding="utf-8")
    assert first_json_line(deep) is None  # RecursionError before
    with pytest.raises(ReaderError, match="nested too deeply"):
        list(iter_json_lines(deep))
    whole = tmp_path / "deep.json"
    whole.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(ReaderError, match="nested too deeply"):
        load_json(whole)
    code, _, err = run(capsys, "info", str(deep))
    assert code == 2 and str(deep) in err
    code, _, err = run(capsys, "info", str(tmp_path))
    assert code == 4 and "nested too deeply" in err and "deep.jsonl" in err


# --- a lone surrogate -------------------------------------------------------------------------------------


def _with_surrogate(tmp_path: Path) -> Path:
    lines = CHAT.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        msg = json.loads(line)
        if msg["role"] == "tool":
            msg["content"] = "\udc80 " + str(
                msg["content"]
            )  # json.dumps writes the escape "\\udc80": valid JSON
            lines[i] = json.dumps(msg)
            break
    path = tmp_path / "surrogate.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert "\\udc80" in path.read_text(encoding="utf-8")
    return path


def test_a_lone_surrogate_never_aborts_a_batch(tmp_path: Path, capsys) -> None:
    path = _with_surrogate(tmp_path)
    out = tmp_path / "canonical.jsonl"
    code, _, err = run(capsys, "ingest", str(path), str(CHAT), "-o", str(out))
    assert code == 0, err  # UnicodeEncodeError in write_jsonl before, naming no file
    text = out.read_text(encoding="utf-8")
    assert "\ufffd" in text and len(text.splitlines()) == 2
    (t,) = ingest([path]).trajectories
    assert any("lone surrogate" in w and "surrogate.jsonl:" in w for w in warnings_of(t))
    code, _, _ = run(capsys, "info", str(path))
    assert code == 0
    code, _, err = run(capsys, "replay", str(path), "--out", str(tmp_path / "tables"))
    assert code == 0, err  # pyarrow's UnicodeEncodeError before
    code, _, _ = run(capsys, "replay", "--json", str(path))
    assert code == 0


def test_dump_json_lines_writes_what_utf8_can_hold(tmp_path: Path) -> None:
    from rtlab.io import write_json_lines

    write_json_lines([{"a": "x\udc80y"}], tmp_path / "o.jsonl")
    assert json.loads((tmp_path / "o.jsonl").read_text(encoding="utf-8")) == {"a": "x\ufffdy"}


# --- damaged files never vanish without a word ------------------------------------------------------------


def test_damaged_files_in_a_folder_are_each_named_with_why(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "scan"
    folder.mkdir()
    (folder / "empty.jsonl").write_bytes(b"")
    pi = (FIXTURES / "pi" / "session-v3.jsonl").read_text(encoding="utf-8").splitlines()
    (folder / "pi_headless.jsonl").write_text("\n".join(pi[1:]) + "\n", encoding="utf-8")
    chat = CHAT.read_text(encoding="utf-8")
    (folder / "capital.jsonl").write_text(chat.replace('"role": "assistant"', '"role": "Assistant"'))
    (folder / "nul.jsonl").write_bytes(b"\x00" + CHAT.read_bytes())
    (folder / "bom.jsonl").write_bytes(b"\xef\xbb\xbf" + CHAT.read_bytes())
    result = ingest([folder])
    assert [Path(t.source_path).name for t in result.trajectories] == ["bom.jsonl"]  # a BOM is no damage
    why = {Path(u.path).name: f"{u.reason}; {u.detail}" for u in result.unclaimed}
    assert why["empty.jsonl"].startswith("empty file")
    assert "Pi session records without the session header" in why["pi_headless.jsonl"]
    assert "role 'Assistant' is not a Chat Completions role" in why["capital.jsonl"]
    assert why["nul.jsonl"].startswith("binary, not text")
    code, _, err = run(capsys, "info", "--list-unread", str(folder))
    assert code == 0
    for name in ("empty.jsonl", "pi_headless.jsonl", "capital.jsonl", "nul.jsonl"):
        assert name in err


def test_a_folder_in_place_of_the_log_is_named(tmp_path: Path, capsys) -> None:
    run_dir = tmp_path / "7_plain"
    shutil.copytree(CODEX_RUN, run_dir)
    stream = run_dir / "output" / "raw" / "codex_stdout.jsonl"
    stream.unlink()
    stream.mkdir()
    code, _, err = run(capsys, "info", str(run_dir))
    assert code == 4
    assert f"skipped {run_dir} (codex)" in err and "Is a directory" in err and str(stream) in err


# --- deliverables are read inside the run folder only ----------------------------------------------------


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file outside every run folder, as /etc/passwd or /proc/self/environ would be."""
    path = tmp_path / "outside" / "secret.txt"
    path.parent.mkdir()
    path.write_text("root:x:0:0:SECRET-OUTSIDE-THE-RUN\n", encoding="utf-8")
    return path


def test_codex_never_reads_a_deliverable_through_a_link_out(tmp_path: Path, secret: Path, capsys) -> None:
    run_dir = tmp_path / "7_plain"
    shutil.copytree(CODEX_RUN, run_dir)
    (run_dir / "output" / "output" / "passwd.md").symlink_to(secret)
    (run_dir / "output" / "output" / "etc").symlink_to(secret.parent, target_is_directory=True)
    (run_dir / "output" / "output" / "environ.md").symlink_to("/proc/self/environ")
    inner = run_dir / "output" / "output" / "inner.md"
    inner.symlink_to(run_dir / "output" / "output" / "summary.md")  # a link inside the run: read
    raw = run_dir / "output" / "raw" / "last_message.txt"
    raw.unlink()
    raw.symlink_to(secret)
    out = tmp_path / "canonical.jsonl"
    code, _, _ = run(capsys, "ingest", str(run_dir), "-o", str(out))
    assert code == 0
    text = out.read_text(encoding="utf-8")
    assert "SECRET-OUTSIDE-THE-RUN" not in text and "PATH=" not in text
    (t,) = ingest([run_dir]).trajectories
    names = sorted(f.path for f in t.deliverable.files)
    assert "passwd.md" not in names and "environ.md" not in names and "inner.md" in names
    said = [w for w in warnings_of(t) if "a link out of the run folder" in w or "a linked folder" in w]
    assert {Path(w.split(":")[0]).name for w in said} == {"passwd.md", "environ.md", "etc"}


def test_g2b_and_dci_answer_files_never_read_through_a_link_out(tmp_path: Path, secret: Path) -> None:
    g2b = tmp_path / "traces"
    shutil.copytree(FIXTURES / "g2b" / "traces", g2b)
    answer = g2b / "demo__oqa-7_s1" / "output.txt"
    answer.unlink()
    answer.symlink_to(secret)
    dci = tmp_path / "dci"
    shutil.copytree(FIXTURES / "dci" / "20260210-141503", dci)
    (dci / "final.txt").unlink()
    (dci / "final.txt").symlink_to(secret)
    for t in ingest([g2b, dci]).trajectories:
        dumped = json.dumps([f.content for f in t.deliverable.files]) + str(t.deliverable.final_message)
        assert "SECRET-OUTSIDE-THE-RUN" not in dumped, t.id


# --- --workspace with a symlink loop ----------------------------------------------------------------------


def test_a_loop_inside_the_workspace_neither_skips_the_run_nor_breaks_show(tmp_path: Path, capsys) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURES / "capture" / "workspace", ws)
    (ws / "l1").symlink_to("l2")
    (ws / "l2").symlink_to("l1")
    (ws / "up").symlink_to(ws)
    messages = [{"role": "user", "content": "Look around /work/ws."}]
    for i, command in enumerate(["cat l1", "cat up/l2/x.txt", "ls -la"]):
        args = json.dumps({"command": f"cd /work/ws && {command}"})
        call = {"id": f"c{i}", "type": "function", "function": {"name": "execute_bash", "arguments": args}}
        messages += [
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {
                "role": "tool",
                "tool_call_id": f"c{i}",
                "content": "The regional margin target is 38 percent.\n",
            },
        ]
    log = tmp_path / "run.jsonl"
    log.write_text("\n".join(json.dumps(m) for m in messages) + "\n", encoding="utf-8")
    from rtlab.environment import Workspace

    space = Workspace(ws)  # RuntimeError("Symlink loop from ...") out of every look-up before
    assert space.read_text("l1") is None and not space.exists("l1") and not space.is_file("up/l2")
    where = ["--workspace", str(ws), "--agent-root", "/work/ws", str(log)]
    code, out, err = run(capsys, "replay", *where)
    assert code == 0 and "skipped" not in err and out.strip()  # the run was skipped before
    code, out, _ = run(capsys, "show", "--step", "1", *where)
    assert code == 0 and "Read log" in out  # RuntimeError("Symlink loop") before


# --- a set of output tables is whole or marked incomplete -------------------------------------------------


def test_replay_tables_are_a_set_with_a_marker(tmp_path: Path, monkeypatch) -> None:
    import pandas as pd

    from rtlab.environment import MANIFEST, export_parquet, read_parquet_tables, replay
    from rtlab.environment import _replay as replay_module

    (t,) = ingest([CHAT]).trajectories
    out = tmp_path / "tables"
    export_parquet([replay(t)], out)
    whole = read_parquet_tables(out)
    assert set(whole) == {"read_log", "candidates", "requirements", "steps"}
    assert oct((out / MANIFEST).stat().st_mode & 0o777) == "0o600"

    real_tables = replay_module.tables

    def killed_after_two(replays, *, redact=False):  # a kill between the 2nd and 3rd table
        frames = real_tables(replays, redact=redact)
        frames["requirements"] = _Exploding()
        return frames

    class _Exploding(pd.DataFrame):
        def to_parquet(self, *args, **kwargs):
            raise KeyboardInterrupt

    monkeypatch.setattr(replay_module, "tables", killed_after_two)
    with pytest.raises(KeyboardInterrupt):
        export_parquet([replay(t)], out)
    assert not (out / MANIFEST).exists()  # removed before the first table was replaced
    with pytest.raises(RtlabError, match="not a complete set"):
        read_parquet_tables(out)
    monkeypatch.undo()
    export_parquet([replay(t)], out)
    (out / "steps.parquet").write_bytes(b"another run's table")
    with pytest.raises(RtlabError, match="steps.parquet: not the table"):
        read_parquet_tables(out)


# --- worker processes die with their parent ---------------------------------------------------------------

_ORPHAN = """
import os, sys, time

def slow(*args, **kwargs):
    print("worker", os.getpid(), flush=True)
    time.sleep(600)

which, out = sys.argv[1], sys.argv[2]
if which == "synth":
    from synth_mini import build_mini_world  # a small world: the pool starts at once

    from rtlab.synth import dataset
    dataset.build_world = lambda root, seed, config: build_mini_world(root)
    dataset._task_runs = slow
    dataset.generate(out, jobs=2)
else:
    from rtlab.runner import _replay_many, replay_paths
    _replay_many._replay_unit = slow
    list(replay_paths(sys.argv[3:], jobs=2))
"""


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError):
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to see the workers")
@pytest.mark.parametrize("which", ["synth", "replay"])
def test_workers_die_with_a_parent_killed_by_sigkill(tmp_path: Path, which: str) -> None:
    script = tmp_path / "orphan.py"
    script.write_text(_ORPHAN, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]))
    argv = [
        sys.executable,
        str(script),
        which,
        str(tmp_path / "world"),
        str(CHAT),
        str(FIXTURES / "openai" / "chat_explore.json"),
    ]
    for _ in range(3):  # 10 of 10 kills left both workers running before
        parent = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, text=True)
        assert parent.stdout is not None
        assert parent.stdout.readline().startswith("worker")  # the pool is up and a task is running
        workers = _children(parent.pid)
        assert len(workers) >= 2
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 30  # a bound, not a speed claim: the kernel kills them at once
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        survivors = [w for w in workers if _alive(w)]
        for w in survivors:
            os.kill(w, signal.SIGKILL)
        assert not survivors
        shutil.rmtree(tmp_path / "world.partial", ignore_errors=True)


def test_a_number_past_a_64_bit_integer_is_dropped_with_a_warning_in_every_command(
    tmp_path: Path, capsys
) -> None:
    """A token count of 10**30 written out in digits once lost the run in `rtlab build` (an OverflowError, the run
    skipped) while `rtlab info` read it: the field is dropped and said, and every command reads the run."""
    src = ROOT / "data" / "sample" / "pi" / "hiring-summary-v3.jsonl"
    lines = []
    for line in src.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        message = record.get("message")
        if isinstance(message, dict) and isinstance(message.get("usage"), dict):
            message["usage"]["input"] = 10**30
        lines.append(json.dumps(record))
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "s.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (t,) = ingest([runs]).trajectories
    assert t.usage is not None and t.usage.input_tokens is None and t.usage.output_tokens is not None
    (w,) = [w for w in t.warnings if w.field == "usage.input_tokens"]
    assert w.kind == "bad-record" and "past a 64-bit integer" in w.reason  # the sum of five such counts
    code, out, _ = run(capsys, "build", str(runs), "-o", str(tmp_path / "store"))
    assert code == 0
    import rtlab

    assert len(rtlab.open(tmp_path / "store").table("trajectories")) == 1
    assert run(capsys, "build", str(runs), "-o", str(tmp_path / "strict"), "--strict")[0] != 0
