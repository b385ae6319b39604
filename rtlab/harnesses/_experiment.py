"""``rtlab experiment --agent claude-code|codex``: the harness's own CLI as the agent of each run of a grid.

For each cell (task x method/ablation x model x run), :func:`run_cli_agent`:

1. copies the task's workspace into a private temporary folder (as :func:`rtlab.agent.copy_workspace` does for
   rtlab's own runs: links out of it and the task's rubric files left out), with a private ``HOME`` beside it (the
   CLI's own settings, logins, ``CLAUDE.md`` and hooks never reach the run) and a per-run tab state folder;
2. installs the method there with ``rtlab tab install`` (:func:`install_claude_code` / :func:`install_codex`: the
   ``rtlab tab serve --method M --ablation A`` server and its hooks; Codex: a git repository, trusted in the
   private ``CODEX_HOME``, and ``--dangerously-bypass-hook-trust``);
3. runs ``claude -p PROMPT --output-format stream-json --verbose`` or ``codex exec --json -- PROMPT`` in it, the
   model, base URL and key from the experiment's endpoint (``--base-url`` / ``--api-key``, else
   ``ANTHROPIC_BASE_URL`` / ``ANTHROPIC_API_KEY`` for Claude Code and ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` for
   Codex), passed in the environment only (the key is never written: not to the run folder, not to a settings
   file), killed (its whole process group) at the time limit;
4. writes the run folder (below), the completion marker last, and removes the temporary folder.

The run folder holds the CLI's own logs where rtlab's readers claim them, so every command reads it as it is::

    RUN/<session-id>.jsonl            Claude Code's session file (``claude-code-session``; the tab calls are
    RUN/<session-id>/subagents/...    tab steps), its sub-agents' files beside it as Claude Code keeps them
    RUN/rollout-<...>.jsonl           or Codex's rollout (``codex-rollout``)
    RUN/claude.stdout.jsonl.gz        the CLI's stdout (stream-json / exec --json), compressed so that a scan
    RUN/codex.stdout.jsonl.gz           does not read the same run twice (``gunzip`` it to read it alone)
    RUN/<cli>.stderr.txt              what the CLI printed on stderr, when anything
    RUN/run.json                      labels (method, variant, model, run, task id, harness) and the settings
    RUN/metadata.json, ...            the task, for the benchmark adapters (as ``rtlab run`` writes it)
    RUN/output/...                    the deliverables (the workspace's outputs/ at the end)
    RUN/tab.json                      the tab the server held at the end (owner-only: excerpts of the files)
    RUN/_COMPLETE.json                written last: the run is whole (``agent`` names the CLI)

Every file copied there has the key masked (``***``), should the CLI have printed or logged it. A folder without
the marker that holds only these files is an unfinished run: it is removed and redone, so an
interrupted experiment resumes by running the same command again (as with rtlab's own agent). The run's summary
(steps, model turns, tokens) is read back from the CLI's log by rtlab's reader, which is what checks that the
folder reads. A CLI that exits without writing its log makes the run fail (reported, redone next time); one that
exits non-zero after writing it ends the run with ``server_error`` (its status and stderr tail in ``run.json``).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rtlab.agent import (
    COMPLETE,
    METHOD_LABELS,
    AgentTask,
    EndReason,
    ExperimentConfig,
    PlannedRun,
    RunSummary,
    copy_outputs,
    copy_workspace,
    load_task,
    make_policy,
    prepare_run_folder,
)
from rtlab.errors import RtlabError
from rtlab.harnesses._install import install_claude_code, install_codex, serve_command
from rtlab.harnesses._names import SERVER
from rtlab.ingest import ReadOptions, get_reader
from rtlab.io import atomic_open
from rtlab.records import Trajectory

CliAgent = Literal["claude-code", "codex"]
CLI_AGENTS: tuple[CliAgent, ...] = ("claude-code", "codex")
EXECUTABLES: dict[CliAgent, str] = {"claude-code": "claude", "codex": "codex"}
"""The command each CLI installs."""
PACKAGES: dict[CliAgent, str] = {"claude-code": "@anthropic-ai/claude-code", "codex": "@openai/codex"}
"""The npm package each CLI comes from (checked end to end with the versions pinned in tools/npm/package.json)."""
KEY_VARIABLES: dict[CliAgent, tuple[str, str]] = {
    "claude-code": ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"),
    "codex": ("OPENAI_BASE_URL", "OPENAI_API_KEY"),
}
"""The environment variables an unset ``--base-url`` / ``--api-key`` fall back to, per CLI."""
CLAUDE_TOOLS = ("Read", "Write", "Edit", "Glob", "Grep", "Bash", f"mcp__{SERVER}")
"""The tools ``claude -p`` may use without asking: direct workspace interaction and the method's tools."""
PASSED_VARIABLES = (
    "PATH",
    "LANG",
    "LC_ALL",
    "TZ",
    "TMPDIR",
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "NO_PROXY",
    "https_proxy",
    "http_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
)
"""The only variables of rtlab's environment the CLI sees (besides its private ``HOME`` and the endpoint's)."""
_KEY_VARIABLE = "RTLAB_AGENT_API_KEY"
"""Codex's provider reads the key from this variable (``env_key``): the key is in no file."""
_STDERR_TAIL = 4000


class CliNotFoundError(RtlabError):
    """The CLI an experiment asks for is not installed (the message says what to install)."""


def find_cli(agent: CliAgent, binary: str | None = None) -> Path:
    """The CLI's executable: ``binary`` when given, else ``claude`` / ``codex`` on ``PATH``; an error naming what to
    install when there is none."""
    package = PACKAGES[agent]
    how = (
        f"install it (npm install -g {package}, Node.js >= 20), or give its executable with --agent-binary / "
        "agent_binary"
    )
    if binary is not None:
        path = Path(binary).expanduser()
        if not path.is_file() and os.sep not in binary:  # a command name: looked for on PATH
            path = Path(shutil.which(binary) or binary)
        if not path.is_file() or not os.access(path, os.X_OK):
            raise CliNotFoundError(f"{binary}: not an executable file ({agent}'s CLI, npm {package}); {how}")
        return path.absolute()
    found = shutil.which(EXECUTABLES[agent])
    if found is None:
        raise CliNotFoundError(
            f"{agent}: `{EXECUTABLES[agent]}` is not on PATH ({package} is not installed); {how}"
        )
    return Path(found)


@dataclass
class CliRunConfig:
    """How one run of a CLI agent goes: the CLI, the method it is given, the model and endpoint, the limits."""

    agent: CliAgent
    """Which CLI (:data:`CLI_AGENTS`)."""
    binary: Path
    """Its executable (:func:`find_cli`)."""
    method: str
    """The method ``rtlab tab serve`` gives it (:data:`rtlab.agent.METHODS`)."""
    model: str
    """The model the CLI asks for."""
    ablation: str | None = None
    """RunningTab's ablation, or ``None``."""
    base_url: str | None = None
    """The endpoint (unset: the CLI's variable of :data:`KEY_VARIABLES`, else the CLI's default)."""
    api_key: str | None = field(default=None, repr=False)
    """The key (unset: the CLI's variable of :data:`KEY_VARIABLES`). Never written anywhere."""
    run: str = "1"
    """The run label."""
    time_limit: float = 3600.0
    """Seconds the CLI may run; then its process group is killed and the run ends with ``time_limit``."""
    max_turns: int = 300
    """Claude Code's ``--max-turns`` (Codex has no such limit)."""
    sandbox: str = "auto"
    """Codex's sandbox: ``none`` runs it with ``--sandbox danger-full-access``, else ``workspace-write``. Claude Code
    runs its tools unconfined in the workspace copy (what ``--allowedTools`` allows, :data:`CLAUDE_TOOLS`)."""
    prices: dict[str, tuple[float, float]] | None = None
    """Model -> (input, output) US dollars per 1M tokens (the run's cost; the CLI's own estimate is kept too)."""
    work_root: str | None = None
    """Where each run's private folder (workspace copy, ``HOME``, tab state) goes while it runs (default
    :func:`default_work_root`). Codex's sandbox needs it outside the system's temporary folder."""


def default_work_root() -> Path:
    """``$XDG_CACHE_HOME/rtlab/cli-runs``, else ``~/.cache/rtlab/cli-runs``: outside the temporary folder, where
    Codex 0.171.0 refuses to set up its sandbox ("Refusing to create helper binaries under temporary dir": every
    command then fails under ``workspace-write``)."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "rtlab" / "cli-runs"


def _scratch(config: CliRunConfig) -> Path:
    root = Path(config.work_root) if config.work_root else default_work_root()
    temp = os.path.realpath(tempfile.gettempdir())
    inside = os.path.realpath(root) == temp or os.path.realpath(root).startswith(temp.rstrip(os.sep) + os.sep)
    if config.agent == "codex" and config.sandbox != "none" and inside:
        raise RtlabError(
            f"{root}: Codex's sandbox does not start under the temporary folder {temp} (its CODEX_HOME would be "
            "there); give a work folder outside it, or sandbox none (then Codex runs unconfined)"
        )
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    return Path(tempfile.mkdtemp(prefix="rtlab-cli-", dir=root))


def _ours(folder: Path) -> bool:
    """``folder`` holds only what an unfinished :func:`run_cli_agent` leaves (its logs and files, no marker)."""
    for entry in folder.iterdir():
        name = entry.name
        if name in ("run.json", "output", "tab.json", "metadata.json", "g2b_officeqa_pro_dataset.json"):
            continue
        if name.endswith((".stdout.jsonl.gz", ".stderr.txt", ".jsonl")) and entry.is_file():
            continue
        if entry.is_dir() and (entry / "subagents").is_dir() and len(list(entry.iterdir())) == 1:
            continue
        return False
    return True


def _endpoint(config: CliRunConfig) -> tuple[str | None, str]:
    url_variable, key_variable = KEY_VARIABLES[config.agent]
    base_url = config.base_url or os.environ.get(url_variable) or None
    key = config.api_key or os.environ.get(key_variable) or ""
    if not key:
        raise RtlabError(f"{config.agent}: no API key: give --api-key (api_key) or set {key_variable}")
    return base_url, key


def _environment(config: CliRunConfig, home: Path, base_url: str | None, key: str) -> dict[str, str]:
    env = {k: os.environ[k] for k in PASSED_VARIABLES if k in os.environ}
    env["HOME"] = str(home)
    env.setdefault("PATH", os.defpath)
    if config.agent == "claude-code":
        env["ANTHROPIC_API_KEY"] = key
        if base_url:
            env["ANTHROPIC_BASE_URL"] = base_url
        env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"  # no telemetry, no update checks
        env["DISABLE_AUTOUPDATER"] = "1"
        env["ENABLE_TOOL_SEARCH"] = "false"  # the method's tools in every request, not behind ToolSearch
    else:
        env["CODEX_HOME"] = str(home / ".codex")
        env[_KEY_VARIABLE] = key
    return env


def _codex_config(config: CliRunConfig, workspace: Path, base_url: str | None) -> str:
    """The private ``CODEX_HOME/config.toml``: the model, a provider reading the key from the environment, and
    the workspace trusted (Codex reads a project's ``.codex/`` only in a trusted repository)."""
    url = base_url or "https://api.openai.com/v1"
    return (
        f"model = {json.dumps(config.model)}\n"
        'model_provider = "rtlab"\n'
        "[model_providers.rtlab]\n"
        'name = "rtlab experiment endpoint"\n'
        f"base_url = {json.dumps(url)}\n"
        f'env_key = "{_KEY_VARIABLE}"\n'
        'wire_api = "responses"\n'
        f"[projects.{json.dumps(str(workspace))}]\n"
        'trust_level = "trusted"\n'
    )


def _command(config: CliRunConfig, prompt: str) -> list[str]:
    if config.agent == "claude-code":
        return [
            str(config.binary),
            "-p",
            "--model",
            config.model,
            "--output-format",
            "stream-json",
            "--verbose",
            "--max-turns",
            str(config.max_turns),
            "--allowedTools",
            *CLAUDE_TOOLS,
            "--",
            prompt,
        ]  # fmt: skip  (after "--": a prompt may start with "-")
    sandbox = "danger-full-access" if config.sandbox == "none" else "workspace-write"
    return [
        str(config.binary), "exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-hook-trust",
        "--sandbox", sandbox, "--", prompt,
    ]  # fmt: skip


def _version(binary: Path, env: dict[str, str]) -> str | None:
    try:
        done = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() or None


def _run(command: list[str], cwd: Path, env: dict[str, str], limit: float) -> tuple[int | None, bytes, bytes]:
    """Run the CLI in its own process group; ``None`` for the status when it was killed at ``limit`` seconds."""
    with subprocess.Popen(
        command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True,
    ) as process:  # fmt: skip
        try:
            stdout, stderr = process.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
            return None, stdout, stderr
        finally:
            try:  # the MCP server and hooks the CLI started go with it
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    return process.returncode, stdout, stderr


def _write_private(path: Path, data: bytes, secret: str) -> None:
    """Write ``data`` owner-only, atomically, with the key masked should the CLI have logged it."""
    with atomic_open(path, "wb", private=True) as fh:
        fh.write(data.replace(secret.encode(), b"***") if secret else data)


def _claude_logs(home: Path, stdout: bytes, out: Path, secret: str) -> Path | None:
    """Copy the session file (and its sub-agents' folder) of the run into ``out``; its path there."""
    session_id = None
    for line in stdout.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and isinstance(rec.get("session_id"), str):
            session_id = rec["session_id"]
            break
    projects = home / ".claude" / "projects"
    files = sorted(projects.glob(f"*/{session_id}.jsonl")) if session_id else []
    if not files:
        files = sorted(projects.glob("*/*.jsonl"))
    if len(files) != 1:
        return None
    source = files[0]
    target = out / source.name
    _write_private(target, source.read_bytes(), secret)
    agents = source.with_suffix("") / "subagents"
    if agents.is_dir():
        for path in sorted(agents.rglob("*")):
            if path.is_file():
                dest = out / source.stem / "subagents" / path.relative_to(agents)
                dest.parent.mkdir(parents=True, exist_ok=True)
                _write_private(dest, path.read_bytes(), secret)
    return target


def _codex_logs(home: Path, out: Path, secret: str) -> Path | None:
    rollouts = sorted((home / ".codex" / "sessions").rglob("rollout-*.jsonl"))
    if len(rollouts) != 1:
        return None
    target = out / rollouts[0].name
    _write_private(target, rollouts[0].read_bytes(), secret)
    return target


def _tab_snapshot(state: Path, out: Path, secret: str) -> None:
    snapshots = sorted((state / "sessions").glob("*/tab.json"))
    if len(snapshots) == 1:
        _write_private(out / "tab.json", snapshots[0].read_bytes(), secret)


def _turns(agent: CliAgent, trajectory: Trajectory) -> int:
    """Model responses: Claude Code's assistant messages per model (``meta["models"]``), Codex's token counts
    (one ``token_count`` event per response)."""
    if agent == "claude-code":
        models = trajectory.meta.get("models")
        return sum(v for v in models.values() if isinstance(v, int)) if isinstance(models, dict) else 0
    counts = trajectory.meta.get("event_msgs")
    value = counts.get("token_count", 0) if isinstance(counts, dict) else 0
    return value if isinstance(value, int) else 0


def _stream_result(stdout: bytes) -> dict[str, Any]:
    """Claude Code's closing ``result`` message of stream-json (``subtype``, ``num_turns``, ``total_cost_usd``)."""
    for line in reversed(stdout.splitlines()):
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and rec.get("type") == "result":
            return rec
    return {}


def _mask(text: str, secret: str) -> str:
    return text.replace(secret, "***") if secret else text


def run_cli_agent(
    task: AgentTask,
    config: CliRunConfig,
    out: str | Path,
    *,
    before_complete: Callable[[AgentTask, Path], None] | None = None,
) -> RunSummary:
    """Run the CLI on ``task`` with the method served by ``rtlab tab serve``, and write the run folder ``out``
    (module docstring; which must not exist, or be empty, or hold an unfinished run of this function: that one
    is removed and redone). ``before_complete(task, out)`` runs before the completion marker (a judge)."""
    out = Path(out)
    policy = make_policy(config.method, config.ablation)  # a bad combination is refused before anything runs
    base_url, key = _endpoint(config)
    began = time.monotonic()
    scratch = _scratch(config)
    try:
        prepare_run_folder(out, unfinished=_ours, who="a CLI agent")
        workspace, home, state = scratch / "workspace", scratch / "home", scratch / "state"
        skipped = copy_workspace(task.workspace, workspace, exclude=task.exclude)
        home.mkdir(mode=0o700)
        state.mkdir(mode=0o700)
        serve = serve_command(config.agent, state_dir=state, method=config.method, ablation=config.ablation)
        if config.agent == "claude-code":
            install_claude_code(workspace, serve)
        else:
            git = shutil.which("git")
            if git is None:
                raise RtlabError(
                    "codex: git is not installed; Codex reads a project's .codex/ only in a repository"
                )
            subprocess.run([git, "init", "-q", str(workspace)], check=True, capture_output=True)
            install_codex(workspace, serve)
            (home / ".codex").mkdir(mode=0o700)
            with atomic_open(home / ".codex" / "config.toml", private=True) as fh:
                fh.write(_codex_config(config, workspace, base_url))
        env = _environment(config, home, base_url, key)
        version = _version(config.binary, env)
        status, stdout, stderr = _run(_command(config, task.prompt), workspace, env, config.time_limit)
        cli = EXECUTABLES[config.agent]
        stdout = stdout.replace(key.encode(), b"***")
        _write_private(out / f"{cli}.stdout.jsonl.gz", gzip.compress(stdout, mtime=0), key)
        error_text = _mask(stderr.decode("utf-8", errors="replace"), key)
        if error_text.strip():
            with atomic_open(out / f"{cli}.stderr.txt", private=True) as fh:
                fh.write(error_text)
        log = (
            _claude_logs(home, stdout, out, key)
            if config.agent == "claude-code"
            else _codex_logs(home, out, key)
        )
        if log is None:
            raise RtlabError(
                f"{config.agent} wrote no session log (exit status {status}); stderr ends: "
                f"{error_text[-_STDERR_TAIL:].strip() or '(nothing)'}"
            )
        _tab_snapshot(state, out, key)
        files = copy_outputs(workspace, out)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    fmt = "claude-code-session" if config.agent == "claude-code" else "codex-rollout"
    trajectories = get_reader(fmt).read(log, ReadOptions())
    main = next((t for t in trajectories if t.parent_id is None), trajectories[0])
    result = _stream_result(stdout) if config.agent == "claude-code" else {}
    reason: EndReason
    if status is None:
        reason = "time_limit"
    elif result.get("subtype") == "error_max_turns":
        reason = "max_turns"
    elif status == 0:
        reason = "finished"
    else:
        reason = "server_error"
    prompt_tokens = sum((t.usage.input_tokens or 0) for t in trajectories if t.usage)
    completion_tokens = sum((t.usage.output_tokens or 0) for t in trajectories if t.usage)
    price = (config.prices or {}).get(config.model)
    cost = None if price is None else (prompt_tokens * price[0] + completion_tokens * price[1]) / 1e6
    summary = RunSummary(
        run_dir=str(out),
        trajectory_id=main.id,
        end_reason=reason,
        turns=_turns(config.agent, main),
        steps=main.n_steps,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        cost=cost,
        seconds=time.monotonic() - began,
        deliverables=[f.path for f in files],
    )
    settings = {
        "cli": config.agent,
        "cli_version": version,
        "method": policy.describe(),
        "model": config.model,
        "base_url": base_url,
        "time_limit": config.time_limit,
        "max_turns": config.max_turns if config.agent == "claude-code" else None,
        "sandbox": "danger-full-access"
        if config.agent == "codex" and config.sandbox == "none"
        else ("workspace-write" if config.agent == "codex" else "none"),
        "exit_status": status,
        "end_reason": reason,
        "task_kind": task.kind,
        "log": log.name,
        "cli_result": {
            k: result[k] for k in ("subtype", "num_turns", "total_cost_usd", "is_error") if k in result
        },
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "cost_usd": cost},
        "skipped": skipped,
    }
    if reason == "server_error":
        settings["stderr_tail"] = error_text[-_STDERR_TAIL:]
    labels = {
        "schema": "rtlab.run",
        "task_id": task.task.id,
        "method": METHOD_LABELS[config.method],  # type: ignore[index]  # checked by make_policy
        "variant": policy.variant,
        "model": config.model,
        "run": config.run,
        "harness": config.agent,
        "agent": settings,
    }
    with atomic_open(out / "run.json", private=True) as fh:
        fh.write(json.dumps(labels, ensure_ascii=False, indent=2) + "\n")
    for name, text in task.sidecars.items():
        with atomic_open(out / name, private=True) as fh:
            fh.write(text if text.endswith("\n") else text + "\n")
    if before_complete is not None:
        before_complete(task, out)
    with atomic_open(out / COMPLETE, private=True) as fh:
        marker = {
            "schema": "rtlab.agent-run",
            "agent": config.agent,
            "trajectory": main.id,
            **summary.to_dict(),
        }
        fh.write(json.dumps(marker, ensure_ascii=False, indent=2) + "\n")
    return summary


def cli_runner(
    agent: CliAgent, *, binary: str | None = None, work_root: str | None = None
) -> Callable[
    [PlannedRun, ExperimentConfig, str | None, Callable[[AgentTask, Path], None] | None], RunSummary
]:
    """The :data:`rtlab.agent.Runner` of ``rtlab experiment --agent claude-code|codex``: each cell run by
    :func:`run_cli_agent`. The CLI is looked for now (:func:`find_cli`), so a missing one stops the experiment
    before any run, with what to install."""
    if agent not in CLI_AGENTS:
        raise ValueError(f"{agent!r} is not a CLI agent; known: {', '.join(CLI_AGENTS)}")
    executable = find_cli(agent, binary)
    try:
        import mcp  # noqa: F401  (what `rtlab tab serve` runs on)
    except ImportError:
        raise RtlabError(f"{agent}: `rtlab tab serve` needs the MCP SDK: pip install 'rtlab[mcp]'") from None

    def run(
        p: PlannedRun,
        config: ExperimentConfig,
        api_key: str | None,
        before_complete: Callable[[AgentTask, Path], None] | None,
    ) -> RunSummary:
        options = config.run_options
        run_config = CliRunConfig(
            agent=agent,
            binary=executable,
            method=p.method,
            ablation=p.ablation,
            model=p.model,
            base_url=config.base_url,
            api_key=api_key,
            run=str(p.k),
            time_limit=float(options.get("time_limit", 3600.0)),
            max_turns=int(options.get("max_turns", 300)),
            sandbox=str(options.get("sandbox", "auto")),
            prices=config.prices,
            work_root=work_root,
        )
        return run_cli_agent(
            load_task(p.task, files=p.files), run_config, p.folder, before_complete=before_complete
        )

    return run
