"""``rtlab synth``: write a whole simulated world to a folder, deterministically.

Layout (every name says *simulated*; the README written at the top says how it was made)::

    OUT/README_SIMULATED.md        what this is, the seed and the configuration
    OUT/config.json                the configuration it was generated from (regenerate: rtlab synth OUT --config)
    OUT/world.json                 roles, files, facts, tasks and rubric items (rtlab.synth.world)
    OUT/workspaces/<role>/...      the workspaces the simulated agents worked in
    OUT/runs/<task>/<arm>/<model>/run-<k>/
        session.jsonl              the run as a Pi session (format v3), readable by rtlab's ``pi`` reader
        run.json                   its labels: method, variant, model, run (rtlab.ingest._labels)
        metadata.json              the task in Workspace-Bench's format
        rubrics_judge--sim-judge.json   the deterministic judge's verdicts in Workspace-Bench's format
        output/<deliverable>       what the agent delivered
    OUT/ground_truth.csv           per run and rubric item: passed, and the simulated cause of a failure

Same seed and configuration, same bytes: nothing depends on the clock, the machine or the order folders are
walked in. Runs are simulated in worker processes (``jobs``), one task per job, and written in a fixed order.
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from rtlab._workers import process_pool
from rtlab.io import atomic_open
from rtlab.synth.agents import ItemOutcome, RunResult, run_seed, simulate
from rtlab.synth.judge import judge
from rtlab.synth.profiles import ARMS, PROFILES, Arm
from rtlab.synth.shell import Shell
from rtlab.synth.workspaces import WorldConfig, build_world, metadata_record
from rtlab.synth.world import SIMULATED_MARKER, SynthTask, World, world_from_dict, world_to_dict

JUDGE_NAME = "sim-judge"
JUDGE_FILE = f"rubrics_judge--{JUDGE_NAME}.json"
GROUND_TRUTH = "ground_truth.csv"
GROUND_TRUTH_COLUMNS = (
    "trajectory",
    "run_dir",
    "task_id",
    "method",
    "variant",
    "model",
    "run",
    "rubric_index",
    "passed",
    "cause",
    "subreason",
)
_START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class SynthConfig:
    """What to generate: the world, which arms and models, how many runs of each."""

    seed: int = 0
    """Seed of everything generated: the same seed and configuration give the same bytes."""
    world: WorldConfig = field(default_factory=WorldConfig)
    """How big the simulated world is."""
    models: tuple[str, ...] = tuple(PROFILES)
    """Simulated model profiles to run, by name (keys of :data:`PROFILES`)."""
    arms: tuple[str, ...] = tuple(a.slug for a in ARMS)
    """Arm slugs: a method (``DCI``) or ``RunningTab--<ablation>``."""
    runs: int = 3
    """Runs of each (task, arm, model), numbered from 1."""
    judge_error_rate: float = 0.04
    """Chance that the judge fails an item that passed (ground truth ``other``/``judge_error``)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "world": asdict(self.world),
            "models": list(self.models),
            "arms": list(self.arms),
            "runs": self.runs,
            "judge_error_rate": self.judge_error_rate,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SynthConfig:
        """A configuration from JSON; anything malformed (unknown keys, models or arms, duplicates, wrong types or
        ranges) is a ``ValueError`` naming it."""
        if not isinstance(data, dict):
            raise ValueError(f"a synth configuration is a JSON object, not {type(data).__name__}")
        unknown = sorted(set(data) - {f.name for f in fields(cls)})
        if unknown:
            raise ValueError(f"unknown synth configuration key(s): {', '.join(unknown)}")
        world_data = data.get("world", {})
        if not isinstance(world_data, dict):
            raise ValueError(f"world: expected an object, got {type(world_data).__name__}")
        bad = sorted(set(world_data) - {f.name for f in fields(WorldConfig)})
        if bad:
            raise ValueError(f"unknown world configuration key(s): {', '.join(bad)}")
        # JSON values: WorldConfig's own checks (and TypeError) judge them at run time
        world_args: dict[str, Any] = {
            k: tuple(v) if isinstance(v, list) else v for k, v in world_data.items()
        }
        try:
            world = WorldConfig(**world_args)
        except TypeError as exc:
            raise ValueError(f"world: {exc}") from None
        models = _names(data, "models", list(PROFILES))
        arms = _names(data, "arms", [a.slug for a in ARMS])
        for model in models:
            if model not in PROFILES:
                raise ValueError(f"unknown simulated model {model!r}; known: {', '.join(PROFILES)}")
        slugs = {a.slug for a in ARMS}
        for arm in arms:
            if arm not in slugs:
                raise ValueError(f"unknown arm {arm!r}; known: {', '.join(sorted(slugs))}")
        seed, runs = _integer(data, "seed", 0), _integer(data, "runs", 3)
        if runs < 1:
            raise ValueError("runs must be at least 1")
        rate = data.get("judge_error_rate", 0.04)
        if isinstance(rate, bool) or not isinstance(rate, int | float) or not 0 <= rate <= 1:
            raise ValueError(f"judge_error_rate must be a number within [0, 1], got {rate!r}")
        return cls(seed=seed, world=world, models=models, arms=arms, runs=runs, judge_error_rate=float(rate))


def _names(data: dict[str, Any], key: str, default: list[str]) -> tuple[str, ...]:
    """A list of distinct names (models, arms)."""
    value = data.get(key, default)
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value) or not value:
        raise ValueError(f"{key} must be a non-empty list of names, got {value!r}")
    repeated = sorted({v for v in value if list(value).count(v) > 1})
    if repeated:
        raise ValueError(f"{key} lists {', '.join(repeated)} more than once")
    return tuple(value)


def _integer(data: dict[str, Any], key: str, default: int) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key} must be an integer, got {value!r}")
    return value


def load_config(path: str | Path) -> SynthConfig:
    """The configuration in a JSON file (``config.json`` of a generated world); errors name the file."""
    try:
        return SynthConfig.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
    except ValueError as exc:  # JSONDecodeError is one
        raise ValueError(f"{path}: {exc}") from None


def _arm(slug: str) -> Arm:
    return next(a for a in ARMS if a.slug == slug)


def trajectory_id(task: SynthTask, arm: Arm, model: str, run: int) -> str:
    """The id rtlab's Pi reader gives the run (``pi:`` + the session id)."""
    return f"pi:{session_id(task, arm, model, run)}"


def session_id(task: SynthTask, arm: Arm, model: str, run: int) -> str:
    return f"{task.id}.{arm.slug}.{model}.r{run}"


def _run_dir(task: SynthTask, arm: Arm, model: str, run: int) -> str:
    return f"runs/{task.id}/{arm.slug}/{model}/run-{run}"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)


def _dump(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def _judge_record(task: SynthTask, outcomes: Sequence[ItemOutcome], created: datetime) -> dict[str, Any]:
    passed = sum(o.passed for o in outcomes)
    return {
        "taskId": task.id,
        "agentKind": "simulated",
        "createdAt": created.isoformat(),
        "rubrics": [
            {
                "index": o.index,
                "rubric": task.items[o.index].text,
                "passed": o.passed,
                "confidence": 1.0,
                "evidence": o.evidence,
            }
            for o in outcomes
        ],
        "summary": {"total": len(outcomes), "passed": passed, "failed": len(outcomes) - passed},
        "judge": {
            "model": JUDGE_NAME,
            "modelName": JUDGE_NAME,
            "note": "deterministic simulated judge (rtlab.synth)",
        },
    }


def _task_runs(args: tuple[str, str, dict[str, Any], str]) -> list[dict[str, Any]]:
    """Simulate and write every run of one task (a worker's job); returns the ground-truth rows."""
    out_dir, world_json, config_dict, task_id = args
    out = Path(out_dir)
    world = world_from_dict(json.loads(world_json))
    config = SynthConfig.from_dict(config_dict)
    task = world.task(task_id)
    role = world.role(task.role)
    shell = Shell(out / role.root)
    metadata = _dump(metadata_record(world, task))
    rows: list[dict[str, Any]] = []
    ordinal = [t.id for t in world.tasks].index(task_id) * 1000
    for slug in config.arms:
        arm = _arm(slug)
        for model in config.models:
            for run in range(1, config.runs + 1):
                ordinal += 1
                # one stream per (task, model, run) shared by every arm: arms are compared on common random
                # numbers (the same draws where their policies agree), which narrows paired comparisons
                rng = random.Random(run_seed(config.seed, task.id, model, run))
                start = _START + timedelta(minutes=7 * ordinal)
                result, outcomes = simulate(
                    world,
                    task,
                    arm,
                    PROFILES[model],
                    rng=rng,
                    shell=shell,
                    session_id=session_id(task, arm, model, run),
                    start=start,
                    judge_error_rate=config.judge_error_rate,
                )
                folder = out / _run_dir(task, arm, model, run)
                _write_run(folder, task, arm, model, run, result, outcomes, metadata, start)
                tid = trajectory_id(task, arm, model, run)
                rows.extend(
                    {
                        "trajectory": tid,
                        "run_dir": _run_dir(task, arm, model, run),
                        "task_id": task.id,
                        "method": arm.method,
                        "variant": arm.variant or "",
                        "model": model,
                        "run": str(run),
                        "rubric_index": o.index,
                        "passed": o.passed,
                        "cause": o.cause or "",
                        "subreason": o.subreason or "",
                    }
                    for o in outcomes
                )
    return rows


def _write_run(
    folder: Path,
    task: SynthTask,
    arm: Arm,
    model: str,
    run: int,
    result: RunResult,
    outcomes: Sequence[ItemOutcome],
    metadata: str,
    start: datetime,
) -> None:
    _write(folder / "session.jsonl", result.session)
    labels = {
        "schema": "rtlab.run",
        "task_id": task.id,
        "method": arm.method,
        "variant": arm.variant,
        "model": model,
        "run": str(run),
    }
    _write(folder / "run.json", _dump(labels))
    _write(folder / "metadata.json", metadata)
    _write(folder / JUDGE_FILE, _dump(_judge_record(task, outcomes, start + timedelta(hours=1))))
    _write(folder / "output" / task.deliverable, result.deliverable)


def _readme(config: SynthConfig, world: World, n_runs: int) -> str:
    roles = ", ".join(r.name for r in world.roles)
    return f"""# SIMULATED data — generated by rtlab.synth

Everything in this folder is **simulated**: invented organisations, files, numbers, tasks, agent runs and judge
verdicts, generated by `rtlab synth` with seed {config.seed}. Nothing here was recorded from a real model or a
real benchmark. It exists so that rtlab's analyses and figures can run anywhere, and so that failure causes are
known by construction (`{GROUND_TRUTH}`).

- Roles: {roles}; {len(world.tasks)} tasks; {sum(len(r.files) for r in world.roles)} workspace files.
- Runs: {n_runs} ({len(config.arms)} arms x {len(config.models)} simulated models x {config.runs} runs per task).
- Simulated models: {", ".join(f"{m} ({PROFILES[m].style})" for m in config.models)}.
- Regenerate byte for byte: `rtlab synth OUT --config config.json`.

How the simulated agents decide, what they remember and how failures arise: `rtlab/synth/agents.py`.
"""


def generate(
    out_dir: str | Path, config: SynthConfig | None = None, *, jobs: int = 1, progress: bool = False
) -> Path:
    """Write a whole simulated world to ``out_dir`` (which must not exist or be empty); returns it."""
    config = config or SynthConfig()
    out = Path(out_dir)
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} exists and is not empty; rtlab synth writes only into a new folder")
    tmp = out.with_name(out.name + ".partial")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    world = build_world(tmp, seed=config.seed, config=config.world)
    world_json = json.dumps(world_to_dict(world), ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    _write(tmp / "world.json", world_json)
    _write(tmp / "config.json", _dump(config.to_dict()))
    jobs_args = [(str(tmp), world_json, config.to_dict(), t.id) for t in world.tasks]
    results: list[list[dict[str, Any]]]
    if jobs > 1:
        with process_pool(jobs) as pool:  # workers die with this process, however it dies
            iterator = pool.map(_task_runs, jobs_args)
            results = list(_progress(iterator, len(jobs_args), progress))
    else:
        results = list(_progress(map(_task_runs, jobs_args), len(jobs_args), progress))
    rows = [row for task_rows in results for row in task_rows]
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=GROUND_TRUTH_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    _write(tmp / GROUND_TRUTH, buf.getvalue())
    n_runs = len(world.tasks) * len(config.arms) * len(config.models) * config.runs
    _write(tmp / SIMULATED_MARKER, _readme(config, world, n_runs))
    if out.exists():
        out.rmdir()
    os.replace(tmp, out)
    return out


def _progress(iterator: Any, total: int, show: bool) -> Any:
    if not show:
        return iterator
    from tqdm.auto import tqdm

    return tqdm(iterator, total=total, desc="synth", unit="task")


def judge_run(dataset: str | Path, run_dir: str | Path, task_id: str, deliverable: str) -> Path:
    """Judge a deliverable written for one of the dataset's tasks by another agent (``rtlab run --sim-judge``)
    with the simulated world's deterministic judge; writes ``rubrics_judge--sim-judge.json`` into ``run_dir``
    (the Workspace-Bench judge format, as for the dataset's own runs) and returns it."""
    world = load_world(dataset)
    task = world.task(task_id)
    outcomes = [
        ItemOutcome(index, passed, evidence) for index, passed, evidence in judge(task, world, deliverable)
    ]
    path = Path(run_dir) / JUDGE_FILE
    with atomic_open(path) as fh:
        fh.write(_dump(_judge_record(task, outcomes, datetime.now(UTC))))
    return path


def load_world(out_dir: str | Path) -> World:
    """The world of a generated folder (``world.json``)."""
    return world_from_dict(json.loads((Path(out_dir) / "world.json").read_text(encoding="utf-8")))


def ground_truth(out_dir: str | Path):
    """The simulated cause of every rubric item of every run (``ground_truth.csv``) as a DataFrame."""
    import pandas as pd

    frame = pd.read_csv(
        Path(out_dir) / GROUND_TRUTH, dtype={"run": str, "variant": str}, keep_default_na=False
    )
    frame["variant"] = frame["variant"].replace("", None)
    return frame


def truth_labels(out_dir: str | Path):
    """The ground truth as an annotator's long-form labels (``item``, ``annotator`` = ``truth``, ``label``), one
    row per failed rubric item, keyed like every other annotator (:func:`rtlab.annotation._annotators.item_key`)."""
    import pandas as pd

    from rtlab.records import item_key

    failed = ground_truth(out_dir)
    failed = failed[~failed["passed"]]
    return pd.DataFrame(
        {
            "item": [
                item_key(t, int(i)) for t, i in zip(failed["trajectory"], failed["rubric_index"], strict=True)
            ],
            "annotator": "truth",
            "label": failed["cause"].to_numpy(),
        }
    )
