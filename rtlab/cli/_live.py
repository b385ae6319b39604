"""Live runs and experiments: ``rtlab run``, ``experiment``, ``serve-simulated`` and ``synth``, the commands
that make new runs rather than read recorded ones.

``synth`` is here, not with reading: it generates the simulated world (workspaces, tasks, agent runs driven
through the real environment, judge results), the runs the other commands then read. ``serve-simulated`` is
here although the annotation commands can use the simulated model too (``--simulated`` starts it in process):
served on a port, it is the endpoint a live run or an experiment talks to."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rtlab.cli._common import COUNT
from rtlab.cli._options import (
    command,
    endpoint_options,
    jobs_option,
    method_options,
    progress_option,
    quiet_option,
    sim_judge_option,
    strict_option,
)

AGENTS = ("rtlab", "claude-code", "codex")
"""Who runs an experiment's cells (``rtlab.agent.AGENTS``, tested equal: the parser imports no agent code)."""
TITLE = "live runs and experiments"
"""The heading of these commands in ``rtlab --help``."""


def cmd_run(args: argparse.Namespace) -> int:
    from rtlab.agent import RunConfig, load_task, run_agent
    from rtlab.llm import load_prices

    task = load_task(args.task, files=args.files)
    config = RunConfig(
        method=args.method,
        ablation=args.ablation,
        model=args.model,
        base_url=args.base_url,
        api_key=args.api_key,
        max_turns=args.max_turns,
        time_limit=args.time_limit,
        context=args.context,
        seed=args.seed,
        run=args.run,
        sandbox=args.sandbox,
        command_timeout=args.command_timeout,
        clip=args.clip,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        cache=args.cache,
        prices=load_prices(args.prices) if args.prices else None,
    )
    if args.sim_judge and task.dataset is None:
        print("rtlab run: --sim-judge judges simulated-world tasks only", file=sys.stderr)
        return 2
    try:
        summary = run_agent(task, config, args.out, before_complete=_sim_judge if args.sim_judge else None)
    except FileExistsError as exc:
        print(f"rtlab run: {exc}", file=sys.stderr)
        return 2
    if args.sim_judge:
        print("judged by the SIMULATED world's deterministic judge (rubrics_judge--sim-judge.json)")
    cost = "?" if summary.cost is None else f"${summary.cost:.4f}"
    print(
        f"{summary.trajectory_id}: {summary.end_reason} after {summary.turns} turns, {summary.steps} tool calls; "
        f"{summary.prompt_tokens} prompt + {summary.completion_tokens} completion tokens, {cost}; "
        f"delivered {', '.join(summary.deliverables) or 'nothing'}; wrote {summary.run_dir}"
    )
    return 0 if summary.end_reason in ("finished", "max_turns", "time_limit") else 5


def _sim_judge(task: Any, out: Any) -> None:
    """``--sim-judge``: a simulated-world run's deliverable judged by that world's deterministic judge."""
    if task.dataset is None:
        return  # not a simulated-world task: rtlab judge judges it
    from rtlab.synth import judge_run

    delivered = out / "output" / task.deliverable.split("/", 1)[1]
    text = delivered.read_text(encoding="utf-8") if delivered.is_file() else ""
    judge_run(task.dataset, out, task.task.id, text)


def cmd_experiment(args: argparse.Namespace) -> int:
    from rtlab.agent import format_table, load_experiment, run_experiment

    config = load_experiment(args.config)
    if args.base_url:
        config.base_url = args.base_url
    if args.concurrency:
        config.concurrency = args.concurrency
    if args.agent:
        config.agent = args.agent
    if args.agent_binary:
        config.agent_binary = args.agent_binary
    runner = None
    if config.agent != "rtlab":
        from rtlab.harnesses import cli_runner

        runner = cli_runner(config.agent, binary=config.agent_binary)  # a CLI not installed: said here
    progress = sys.stderr.isatty() and not args.quiet
    result = run_experiment(
        config,
        args.out,
        api_key=args.api_key,
        progress=progress,
        strict=args.strict,
        before_complete=_sim_judge if args.sim_judge else None,
        runner=runner,
    )
    print(
        f"{len(result.done)} runs made, {len(result.skipped)} already finished, {len(result.failed)} failed"
    )
    for folder, error in result.failed:
        print(f"  failed: {folder}: {error}", file=sys.stderr)
    print(format_table(result.rows, result.totals))
    return 5 if result.failed else 0


def cmd_serve_simulated(args: argparse.Namespace) -> int:
    import threading

    from rtlab.llm import SIMULATED_MODEL, SimulatedServer

    server = SimulatedServer(port=args.port, latency=args.latency).start()
    print(
        f"simulated OpenAI-compatible server (model {SIMULATED_MODEL}, SIMULATED answers) at {server.base_url}"
    )
    sys.stdout.flush()
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


def cmd_synth(args: argparse.Namespace) -> int:
    from rtlab.synth import SynthConfig, generate, load_config

    try:
        config = load_config(args.config) if args.config else SynthConfig()
        if args.seed is not None:
            config = SynthConfig.from_dict({**config.to_dict(), "seed": args.seed})
        out = generate(args.out_dir, config, jobs=args.jobs, progress=args.progress)
    except (FileExistsError, ValueError, OSError) as exc:
        print(f"rtlab synth: {exc}", file=sys.stderr)
        return 2
    print(f"wrote a simulated world to {out} (seed {config.seed}); see {out}/README_SIMULATED.md")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the family's commands to ``sub``, the parser's subcommands."""
    p = command(
        sub,
        "run",
        cmd_run,
        help="run one live agent on one task with one method and model (OpenAI-compatible endpoint)",
        description="Run an agent (read, bash, write in a confined private copy of the task's workspace) with a "
        "method's policy over any OpenAI-compatible endpoint, and write the run folder rtlab reads.",
    )
    p.add_argument(
        "task",
        metavar="TASK",
        help="DATASET:TASK_ID (rtlab synth), a Workspace-Bench task folder, "
        "TABLE.csv:ID, QUESTIONS.csv:UID or g2b_officeqa_pro_dataset.json:oqa-N",
    )
    method_options(p)
    p.add_argument(
        "--model", required=True, help="the model to request (rtlab-simulated for the simulated server)"
    )
    endpoint_options(p, base_url_help="the endpoint (default: OPENAI_BASE_URL)")
    p.add_argument(
        "--out", required=True, metavar="RUN_DIR", help="the run folder to write (new, or unfinished)"
    )
    p.add_argument(
        "--files", metavar="DIR", help="the task's files (a Lite table's task, OfficeQA bulletins)"
    )
    p.add_argument("--max-turns", type=COUNT, default=300, metavar="N")
    p.add_argument("--time-limit", type=float, default=3600.0, metavar="SECONDS")
    p.add_argument(
        "--context",
        default="keep-all",
        metavar="POLICY",
        help="keep-all (default), drop-old-outputs[:TOKENS], truncate-old-outputs[:TOKENS]",
    )
    p.add_argument("--seed", type=int, help="sent as the requests' seed; the run label unless --run")
    p.add_argument("--run", help="the run label (default: the seed, else 1)")
    p.add_argument(
        "--sandbox",
        choices=["auto", "bwrap", "none"],
        default="auto",
        help="how commands are confined (auto: bubblewrap, refused without it; none: UNCONFINED)",
    )
    p.add_argument("--command-timeout", type=float, default=60.0, metavar="SECONDS")
    p.add_argument(
        "--clip", default="openhands-v0", metavar="NAME", help="clip policy of outputs (rtlab formats)"
    )
    p.add_argument("--temperature", type=float)
    p.add_argument("--max-tokens", type=COUNT, metavar="N", help="output limit of a turn")
    p.add_argument("--cache", action="store_true", help="cache model turns on disk (off by default)")
    p.add_argument("--prices", metavar="PRICES.json", help='{"model": [input_per_1M, output_per_1M]}')
    sim_judge_option(p, "a simulated-world task: judge the deliverable with that world's deterministic judge")

    p = command(
        sub,
        "experiment",
        cmd_experiment,
        help="run a grid of tasks x methods x models x runs, resumable",
        description="Run every unfinished run of an experiment configuration (JSON or YAML) concurrently; "
        "finished runs (their completion marker) are never redone, so rerunning resumes an interrupted one.",
    )
    p.add_argument("config", metavar="CONFIG", help="the experiment configuration (.json, .yaml)")
    p.add_argument("--out", required=True, metavar="DIR", help="where the runs go (OUT/runs/...)")
    endpoint_options(p, base_url_help="override the configuration's endpoint")
    p.add_argument("--concurrency", type=COUNT, metavar="N", help="override the configuration's concurrency")
    p.add_argument(
        "--agent",
        choices=AGENTS,
        help="who runs each cell (overrides the configuration's agent; default rtlab): rtlab's own loop, or the "
        "Claude Code / Codex CLI (claude -p / codex exec) with the method installed by `rtlab tab install`; the "
        "endpoint is then Anthropic's (ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY) or OpenAI's Responses "
        "(OPENAI_BASE_URL / OPENAI_API_KEY) unless --base-url / --api-key",
    )
    p.add_argument(
        "--agent-binary",
        metavar="PATH",
        help="the CLI's executable (default: claude / codex on PATH)",
    )
    strict_option(p, "stop at the first run that fails")
    sim_judge_option(
        p, "judge simulated-world runs with that world's deterministic judge (before each marker)"
    )
    quiet_option(p, "no progress bar")

    p = command(
        sub,
        "serve-simulated",
        cmd_serve_simulated,
        help="serve the local SIMULATED OpenAI-compatible model (scripted agent turns, annotations) on 127.0.0.1",
    )
    p.add_argument("--port", type=int, default=8089, help="port on 127.0.0.1 (default 8089; 0: any free)")
    p.add_argument("--latency", type=float, default=0.0, metavar="SECONDS", help="delay of every answer")

    p = command(
        sub,
        "synth",
        cmd_synth,
        help="generate a simulated world: workspaces, tasks, agent runs, judge results, ground truth",
        description="Write a seeded, clearly labelled SIMULATED dataset (rtlab.synth) into a new folder: the same "
        "seed and configuration give the same bytes.",
    )
    p.add_argument("out_dir", metavar="OUT_DIR", help="a new (or empty) folder")
    p.add_argument("--seed", type=int, help="random seed (default: the configuration's, else 0)")
    p.add_argument("--config", metavar="CONFIG.json", help="a configuration written by a previous run")
    jobs_option(p)
    progress_option(p)
