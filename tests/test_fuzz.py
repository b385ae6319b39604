"""A property-based fuzzer (hypothesis) over mutated logs of every format rtlab reads (issue 19, item 2).

Each case copies one seed (a sample log or run folder of ``tests/fixtures``, one per format in
``rtlab.ingest.FORMATS``, plus small real logs from ``../shared/real/wild`` when present), damages one of its
files in one way (cut short, bytes flipped, a field dropped or given another type, a line repeated or moved,
deep nesting, a huge string, NUL bytes, invalid UTF-8, a BOM, CRLF, a lone surrogate, pretty-printed where
lines are expected, replaced by a zip bomb: an Inspect log of 3 MB with a member of 3 to 5 GiB, honest, lying
about its size, zstd, or overlapping entries, ``tests/zipbomb.py``) and runs ``ingest``, ``info``, ``replay``, ``values`` and ``diagnose`` on it in-process
through ``rtlab.cli.main``, with stdout and stderr as real UTF-8 streams (a string no terminal can hold fails
as it would there). The property: no exception escapes ``main``, no "Traceback" is printed, the exit status is
one of rtlab's (0, 2, 3, 4).

A second property (issue 30, item 5) tampers with a built store (:data:`TAMPERS`: a part's bytes flipped, cut,
emptied or deleted, its footer broken, another table's file swapped in, the manifest's entries dropped,
doubled, pointed out of the store, retyped, or the manifest itself damaged, a table folder linked out) and runs
``info``, ``score``, ``values`` on the store, then ``build`` over its runs, then ``info`` again: no traceback,
rtlab's exit statuses, and after the build the store verifies clean and holds the runs' trajectories (an
unreadable manifest is the one thing a build refuses, naming it).

The seed is fixed (``derandomize``) and the budget bounded: ``RTLAB_FUZZ_EXAMPLES`` cases (default 300: 1,500
command runs, about half a minute here); ``bench/fuzz.py`` runs a longer campaign. The case count is
printed at the end of the test run. Minimal failing examples found so far are kept as ``@example`` rows of
:func:`test_mutated_logs_never_crash` and as tests in ``test_hostile_input.py``.
"""

from __future__ import annotations

import io
import json
import os
import random
import shutil
import signal
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
import zipbomb
from conftest import FIXTURES, REAL, ROOT, fuzz_stats
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rtlab.cli import main
from rtlab.ingest import FORMATS, detect

EXAMPLES = int(os.environ.get("RTLAB_FUZZ_EXAMPLES", "300"))
COMMANDS = ("ingest", "info", "replay", "values", "diagnose")
EXITS = {0, 2, 3, 4}

SEEDS: dict[str, Path] = {
    "codex": FIXTURES / "codex" / "runs" / "7_plain",
    "codex-rollout": FIXTURES
    / "codex-rollout"
    / "rollout-2025-08-18T01-16-13-c3c4b301-27c8-4c70-b6e4-46b99fdf0236.jsonl",
    "g2b": FIXTURES / "g2b" / "traces" / "demo__oqa-7_s1",
    "dci": FIXTURES / "dci" / "20260210-141503",
    "pi": FIXTURES / "pi" / "session-v3.jsonl",
    "inspect": FIXTURES / "inspect" / "rich.eval",
    "openhands-v1": FIXTURES / "openhands-v1" / "11111111222233334444555555555555",
    "openhands": FIXTURES / "openhands" / "traj_demo-task-image.json",
    "claude-code-stream": FIXTURES / "claude-code" / "agent_log_raw.txt",
    "claude-code-session": FIXTURES
    / "claude-code"
    / "project"
    / "5d3b1c2a-0000-4000-8000-00000000c0de.jsonl",
    "swe-agent": FIXTURES / "swe-agent" / "0_7_run" / "a1b2c3.traj",
    "mini-swe-agent": FIXTURES / "mini-swe-agent" / "calc__calc-7.traj.json",
    "gemini-cli": FIXTURES / "gemini-cli" / "session-2026-03-02T09-00-5e0c1f2a.jsonl",
    "cline": FIXTURES / "cline" / "1733010000000",
    "opencode": FIXTURES / "opencode" / "session__ses_4a1f09c2effeQ7x2Lm9TzKpB3w.json",
    "otel": FIXTURES / "otel" / "genai-otlp.json",
    "atif": FIXTURES / "atif" / "stream.atif.jsonl",
    "openai-responses": FIXTURES / "openai" / "responses_items.jsonl",
    "openai-chat": FIXTURES / "openai" / "chat_messages.jsonl",
    "aider": FIXTURES / "aider" / ".aider.chat.history.md",
    "asciicast": FIXTURES / "asciicast" / "terminus-v2.cast",
}
"""One sample per format; the canonical JSONL (``rtlab``) is made from the chat sample by ``rtlab ingest``."""

REAL_SEEDS = (
    "wild/codex-exec/tielec__pr-451__analyze__agent_log.md",
    "wild/codex-rollout/openagents__qa-runner__codex-rollout.sample.jsonl",
    "wild/claude-code-stream/tielec__issue-38__05_test_implementation__execute__agent_log_raw.txt",
    "wild/claude-code-session/openagents__regex-log__subagents__agent-a1df203.jsonl",
    "wild/mini-swe-agent/mini__deepseek_reasoner_dev__pvlib__pvlib-python-1154.traj.json",
    "wild/swe-agent/sweagent__commit0__simpy_madeup_test__97af1e.traj",
    "wild/atif/openagents__qa-runner__login-trace__trajectory.json",
    "wild/inspect/inspect_ai__log_message_deduplication.eval",
    "wild/openhands/sdk-v1-conversation__cd94562403b9487ebdd4018e3f531dfd",
    "wild/otel-genai/any-agent__OPENAI_trace.json",
)
"""Small real logs (``../shared/real``), used when present."""

MUTATIONS = (
    "truncate",
    "flip_bytes",
    "drop_field",
    "retype_field",
    "duplicate_line",
    "reorder_lines",
    "deep_nesting",
    "huge_string",
    "nul_bytes",
    "bad_utf8",
    "bom",
    "crlf",
    "lone_surrogate",
    "pretty_print",
    "empty",
    "zip_bomb",
)


def _canonical_seed() -> Path:
    """The chat sample as canonical JSONL, written once per session (the ``rtlab`` format's seed)."""
    target = Path(tempfile.gettempdir()) / f"rtlab-fuzz-seed-{os.getpid()}" / "canonical.jsonl"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        with redirect_stderr(io.StringIO()):
            assert main(["ingest", str(SEEDS["openai-chat"]), "-o", str(target), "--no-join"]) == 0
    return target


def _seeds() -> list[Path]:
    found = [_canonical_seed(), *SEEDS.values()]
    found += [REAL / rel for rel in REAL_SEEDS if (REAL / rel).exists()]
    return found


def test_every_format_has_a_seed() -> None:
    """The seed table covers every registered format, each seed detected as its format."""
    assert detect(_canonical_seed()) == "rtlab"
    assert {detect(p) for p in SEEDS.values()} | {"rtlab"} == set(FORMATS)
    for fmt, path in SEEDS.items():
        assert detect(path) == fmt, path


def _files(unit: Path) -> list[Path]:
    if unit.is_file():
        return [unit]
    return sorted(p for p in unit.rglob("*") if p.is_file())


def _other(value: object, rng: random.Random) -> object:
    return rng.choice(
        [v for v in (7, "x", None, [], {}, True, -1.5e308, "\udc80") if type(v) is not type(value)]
    )


def _walk_to_container(obj: object, rng: random.Random) -> object:
    for _ in range(rng.randrange(1, 5)):
        inner = (
            [v for v in obj.values() if isinstance(v, dict | list) and v]
            if isinstance(obj, dict)
            else [v for v in obj if isinstance(v, dict | list) and v]
            if isinstance(obj, list)
            else []
        )
        if not inner:
            break
        obj = rng.choice(inner)
    return obj


def _edit_json(value: object, kind: str, rng: random.Random) -> object:
    target = _walk_to_container(value, rng)
    if isinstance(target, dict) and target:
        key = rng.choice(sorted(target))
        if kind == "drop_field":
            del target[key]
        elif kind == "retype_field":
            target[key] = _other(target[key], rng)
        elif kind == "huge_string":
            target[key] = "x" * rng.choice((70_000, 300_000)) + "\n" * rng.randrange(3)
        elif kind == "lone_surrogate":
            target[key] = "\udc80" + (target[key] if isinstance(target[key], str) else "")
    elif isinstance(target, list) and target:
        i = rng.randrange(len(target))
        if kind == "drop_field":
            target.pop(i)
        else:
            target[i] = _other(target[i], rng)
    return value


def _json_edit(data: bytes, kind: str, rng: random.Random) -> bytes:
    """A structural edit of one JSON value of the file (a random line of JSON lines, or the whole document)."""
    text = data.decode("utf-8", errors="replace")
    try:
        whole = json.loads(text)
        return json.dumps(_edit_json(whole, kind, rng)).encode("utf-8", "surrogatepass")
    except (ValueError, RecursionError):
        pass
    lines = text.split("\n")
    filled = [i for i, line in enumerate(lines) if line.strip().startswith(("{", "["))]
    if not filled:
        return data[: len(data) // 2]
    for i in rng.sample(filled, min(len(filled), rng.randrange(1, 4))):
        try:
            lines[i] = json.dumps(_edit_json(json.loads(lines[i]), kind, rng))
        except (ValueError, RecursionError):
            continue
    return "\n".join(lines).encode("utf-8", "surrogatepass")


def mutate(data: bytes, kind: str, rng: random.Random) -> bytes:
    """``data`` damaged in one way (``kind`` in :data:`MUTATIONS`)."""
    n = len(data)
    lines = data.split(b"\n")
    if kind == "truncate":
        return data[: rng.randrange(0, max(1, n))]
    if kind == "flip_bytes":
        out = bytearray(data)
        for _ in range(rng.randrange(1, 9)):
            if out:
                out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
        return bytes(out)
    if kind in ("drop_field", "retype_field", "huge_string", "lone_surrogate"):
        return _json_edit(data, kind, rng)
    if kind == "duplicate_line":
        i = rng.randrange(len(lines))
        return b"\n".join(lines[: i + 1] + [lines[i]] + lines[i + 1 :])
    if kind == "reorder_lines":
        rng.shuffle(lines)
        return b"\n".join(lines)
    if kind == "deep_nesting":
        depth = rng.choice((1_000, 5_000, 100_000))
        deep = (b"[" if rng.random() < 0.5 else b'{"a":') * depth
        i = rng.randrange(len(lines))
        return b"\n".join(lines[:i] + [deep] + lines[i:])
    if kind == "nul_bytes":
        at = rng.randrange(n + 1)
        return data[:at] + b"\x00" * rng.randrange(1, 4) + data[at:]
    if kind == "bad_utf8":
        at = rng.randrange(n + 1)
        return data[:at] + rng.choice((b"\xff\xfe", b"\xc3", b"\xed\xa0\x80", b"\xe9t\xe9")) + data[at:]
    if kind == "bom":
        return b"\xef\xbb\xbf" + data
    if kind == "crlf":
        return data.replace(b"\n", b"\r\n")
    if kind == "pretty_print":
        try:
            values = [json.loads(line) for line in lines if line.strip()]
        except ValueError:
            return data
        return b"\n".join(json.dumps(v, indent=2).encode("utf-8", "surrogatepass") for v in values)
    if kind == "empty":
        return b""
    if kind == "zip_bomb":  # whatever the file was: an Inspect log holding a bomb
        return zipbomb.bomb_bytes(rng.choice(zipbomb.KINDS), genuine=rng.random() < 0.5)
    raise ValueError(kind)


def _utf8_stream() -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", write_through=True)


def run_commands(unit: Path, work: Path) -> list[tuple[str, int]]:
    """Every command of :data:`COMMANDS` on ``unit``; fails on a traceback or an exit status not rtlab's."""
    codes = []
    for command in COMMANDS:
        argv = [command, str(unit)] + (["-o", str(work / "out.jsonl")] if command == "ingest" else [])
        out, err = _utf8_stream(), _utf8_stream()
        try:
            with redirect_stdout(out), redirect_stderr(err):
                code = main(argv)
        except BaseException as exc:  # noqa: BLE001 - any exception escaping main is the failure we look for
            raise AssertionError(f"rtlab {' '.join(argv)} raised {type(exc).__name__}: {exc}") from exc
        err.seek(0)
        said = err.buffer.getvalue().decode("utf-8")  # type: ignore[attr-defined]
        assert "Traceback" not in said, (argv, said[-2000:])
        assert code in EXITS, (argv, code, said[-2000:])
        codes.append((command, code))
        fuzz_stats["runs"] += 1
        fuzz_stats[f"exit {code}"] = fuzz_stats.get(f"exit {code}", 0) + 1
    return codes


class Hang(BaseException):
    """A case ran past :data:`CASE_SECONDS`: a hang (or a quadratic corner) is a failure too."""


CASE_SECONDS = 120
"""A bound on one case's five commands (they take well under a second each on these seeds)."""


def _alarm(signum: int, frame: object) -> None:
    raise Hang(f"a case ran over {CASE_SECONDS} s")


def one_case(seed: Path, kind: str, rng: random.Random) -> None:
    """Copy ``seed``, damage one of its files, run every command on the copy (a hang fails: SIGALRM)."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_SECONDS)
    try:
        _one_case(seed, kind, rng)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _one_case(seed: Path, kind: str, rng: random.Random) -> None:
    with tempfile.TemporaryDirectory(prefix="rtlab-fuzz-") as tmp:
        work = Path(tmp)
        unit = work / seed.name
        if seed.is_dir():
            shutil.copytree(seed, unit)
        else:
            shutil.copy(seed, unit)
        victim = rng.choice(_files(unit))
        victim.write_bytes(mutate(victim.read_bytes(), kind, rng))
        fuzz_stats["cases"] += 1
        run_commands(unit, work)


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    seed=st.sampled_from(sorted(_seeds(), key=str)),
    kind=st.sampled_from(MUTATIONS),
    salt=st.integers(min_value=0, max_value=2**32 - 1),
)
@example(seed=SEEDS["openai-chat"], kind="lone_surrogate", salt=0)
@example(seed=SEEDS["pi"], kind="deep_nesting", salt=0)
@example(seed=SEEDS["g2b"], kind="huge_string", salt=0)  # minimal hang found: sources_dir's regex, quadratic
def test_mutated_logs_never_crash(seed: Path, kind: str, salt: int) -> None:
    one_case(seed, kind, random.Random(salt))


@pytest.mark.parametrize("kind", MUTATIONS)
def test_every_mutation_changes_or_keeps_bytes_as_documented(kind: str) -> None:
    """The mutations themselves: each gives bytes (the fuzzer's cases are what they say they are)."""
    data = SEEDS["openai-chat"].read_bytes()
    out = mutate(data, kind, random.Random(1))
    assert isinstance(out, bytes)
    if kind in ("truncate", "empty"):
        assert len(out) < len(data)
    elif kind == "zip_bomb":
        assert out.startswith(b"PK\x03\x04") and len(out) < 8 * 2**20
    elif kind in ("bom", "crlf", "nul_bytes", "bad_utf8", "deep_nesting", "duplicate_line"):
        assert len(out) > len(data)


# ---------------------------------------------------------------------------------------------------------
# Tampered stores

STORE_RUNS = ROOT / "data" / "sample"
TAMPERS = (
    "flip_bytes",
    "truncate",
    "empty_file",
    "delete_file",
    "bad_footer",
    "swap_table",
    "drop_run",
    "list_twice",
    "outside_file",
    "outside_part",
    "retype_manifest",
    "drop_manifest_key",
    "manifest_garbage",
    "link_out",
    "index_garbage",
    "drop_index",
)


def _pristine_store() -> Path:
    """A store of ``data/sample`` built once per session (copied for every case)."""
    target = Path(tempfile.gettempdir()) / f"rtlab-fuzz-store-{os.getpid()}"
    if not (target / "_manifest.json").exists():
        from rtlab.store import build_store

        build_store([STORE_RUNS], target)
    return target


def _part_files(store: Path) -> list[Path]:
    return sorted(p for p in store.rglob("*.parquet") if p.is_file())


def tamper(store: Path, kind: str, rng: random.Random) -> None:
    """Damage ``store`` in one way (``kind`` in :data:`TAMPERS`): the index file of version 3 itself, or the
    manifest's entries (read whole, the index's in it, and written back as one file: version 2's layout)."""
    from rtlab.store import read_manifest

    manifest_path = store / "_manifest.json"
    index = store / json.loads(manifest_path.read_text())["index"]["file"]
    if kind == "index_garbage":
        index.write_bytes(mutate(index.read_bytes(), rng.choice(("truncate", "flip_bytes")), rng))
        return
    if kind == "drop_index":
        index.unlink()
        return
    m = read_manifest(store)
    assert m is not None
    victim = rng.choice(_part_files(store))
    if kind == "flip_bytes":
        victim.write_bytes(mutate(victim.read_bytes(), "flip_bytes", rng))
    elif kind == "truncate":
        victim.write_bytes(victim.read_bytes()[: rng.randrange(victim.stat().st_size)])
    elif kind == "empty_file":
        victim.write_bytes(b"")
    elif kind == "delete_file":
        victim.unlink()
    elif kind == "bad_footer":
        data = bytearray(victim.read_bytes())
        data[-rng.randrange(1, 9)] ^= 0xFF
        victim.write_bytes(bytes(data))
    elif kind == "swap_table":
        other = rng.choice([p for p in _part_files(store) if p.parent.parent != victim.parent.parent])
        shutil.copy(other, victim)
    elif kind == "drop_run" and m["runs"]:
        del m["runs"][rng.choice(sorted(m["runs"]))]
    elif kind == "list_twice":
        table = rng.choice([t for t, files in m["files"].items() if files])
        m["files"][table].append(rng.choice(m["files"][table]))
    elif kind == "outside_file":
        table = rng.choice(sorted(m["files"]))
        m["files"][table].append(rng.choice(["/etc/passwd", "../other/x.parquet", str(victim)]))
    elif kind == "outside_part" and m["parts"]:
        part = rng.choice(sorted(m["parts"]))
        m["parts"]["shard=00/../../../tmp/" + part.split("/")[1]] = m["parts"].pop(part)
    elif kind == "retype_manifest":
        target = _walk_to_container(m, rng)
        if isinstance(target, dict) and target:
            key = rng.choice(sorted(target))
            target[key] = _other(target[key], rng)
        elif isinstance(target, list) and target:
            target[rng.randrange(len(target))] = _other(target[0], rng)
    elif kind == "drop_manifest_key":
        del m[rng.choice(sorted(m))]
    elif kind == "manifest_garbage":
        manifest_path.write_bytes(
            mutate(manifest_path.read_bytes(), rng.choice(("truncate", "flip_bytes")), rng)
        )
        return
    elif kind == "link_out":
        table = victim.parent.parent
        elsewhere = store.parent / f"elsewhere-{table.name}"
        shutil.copytree(table, elsewhere)
        shutil.rmtree(table)
        table.symlink_to(elsewhere)
        return
    manifest_path.write_text(json.dumps(m))


def _run(argv: list[str]) -> tuple[int, str]:
    out, err = _utf8_stream(), _utf8_stream()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(argv)
    except BaseException as exc:  # noqa: BLE001 - any exception escaping main is the failure we look for
        raise AssertionError(f"rtlab {' '.join(argv)} raised {type(exc).__name__}: {exc}") from exc
    said = err.buffer.getvalue().decode("utf-8")  # type: ignore[attr-defined]
    assert "Traceback" not in said, (argv, said[-2000:])
    fuzz_stats["runs"] += 1
    return code, said


def one_store_case(kind: str, rng: random.Random) -> None:
    """Copy the pristine store, tamper with it, read it, rebuild it: no traceback, and a rebuilt store whole."""
    from rtlab.store import open_store

    pristine = _pristine_store()
    want = len(open_store(pristine).trajectories())
    with tempfile.TemporaryDirectory(prefix="rtlab-fuzz-store-") as tmp:
        store = Path(tmp) / "store"
        shutil.copytree(pristine, store)
        tamper(store, kind, rng)
        fuzz_stats["cases"] += 1
        for command in ("info", "score", "values"):
            code, said = _run([command, str(store)])
            assert code in EXITS, (command, kind, code, said[-2000:])
        code, said = _run(["build", str(STORE_RUNS), "-o", str(store)])
        if code == 2:  # the one refusal: a manifest that is not JSON rtlab can read, named
            assert kind in ("manifest_garbage", "retype_manifest", "drop_manifest_key"), said[-2000:]
            assert "_manifest.json" in said, said[-2000:]
            return
        assert code == 0, (kind, code, said[-2000:])
        code, said = _run(["info", str(store)])
        assert code == 0, (kind, said[-2000:])
        rebuilt = open_store(store)
        assert rebuilt.verify() == [] and len(rebuilt.trajectories()) == want, kind


@settings(
    max_examples=max(15, EXAMPLES // 10),
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(kind=st.sampled_from(TAMPERS), salt=st.integers(min_value=0, max_value=2**32 - 1))
def test_tampered_stores_never_crash(kind: str, salt: int) -> None:
    one_store_case(kind, random.Random(salt))


@pytest.mark.parametrize("kind", TAMPERS)
def test_every_tamper_is_survived(kind: str) -> None:
    """Each tampering once (the property's budget may not draw them all)."""
    one_store_case(kind, random.Random(7))
