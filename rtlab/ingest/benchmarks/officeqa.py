"""OfficeQA: questions, the G2B-Skill task list and the G2B grader's per-run assessment.

Sources: the question CSVs of databricks/officeqa (``officeqa_pro.csv``: 133 questions, ``officeqa_full.csv``:
246; columns ``uid, question, answer, source_docs, source_files, difficulty``, several files or URLs per cell
one per line); G2B-Skill's ``g2b_officeqa_pro_dataset.json`` (``bench/officeqa.py`` of
littleQ235566673333/G2B-Skill: ``{id: "oqa-N", uid_orig, instruction, answer, answer_values, tolerance_pct,
source_files, ...}``); and ``assessment_r<N>.json``, which ``OfficeQABench.assess`` writes per run
(``accuracy, match_count, total_count, is_correct, match_type, tolerance_pct, predicted, target, details``).

An OfficeQA task has one gradable item: the final answer. ``attach`` records what the G2B grader decided; the
official scorer (``score_answer``, Acc@0% and Acc@1% at tolerance 0 and 0.01) is
:mod:`rtlab.ingest.benchmarks.officeqa_scorer`, re-exported here.

Search rule for :func:`attach` (trajectories whose ``task_id`` is ``oqa-N``): the dataset file in the
trajectory's folder or up to 3 folders above it; the assessment in the run folder (round from
``meta["round"]``, else the only ``assessment_r*.json``), or in its parent when the run folder is G2B's
``evolve_<id>`` workdir; the questions CSV at ``../questions/officeqa_pro.csv`` from the dataset's folder,
used to add difficulty and source URLs and to cross-check the answer.
"""

from __future__ import annotations

import copy
import csv
import io
import re
from pathlib import Path
from typing import Any

from rtlab.errors import ReaderError
from rtlab.ingest.readers._tolerant import read_warning
from rtlab.io import cached_by_file, field, load_json, read_text
from rtlab.records import ItemResult, Judgement, RubricItem, Task, Trajectory

NAME = "officeqa"
JUDGE = "g2b-assessment"
DATASET_FILE = "g2b_officeqa_pro_dataset.json"
QUESTIONS_CSV = Path("..") / "questions" / "officeqa_pro.csv"
SEARCH_LEVELS = 3
"""How many folders above the trajectory's folder :func:`attach` looks for the dataset file."""
ANSWER_ITEM = "final answer matches the ground truth within tolerance"
CSV_COLUMNS = ("uid", "question", "answer", "source_docs", "source_files", "difficulty")

_TASK_ID = re.compile(r"^oqa-\d+$")
_ASSESSMENT = re.compile(r"^assessment_r(\d+)\.json$")


def answer_item() -> RubricItem:
    """The single rubric item of every OfficeQA task."""
    return RubricItem(index=0, text=ANSWER_ITEM, type="answer")


def split_cell(cell: str) -> list[str]:
    """A multi-valued CSV cell (one file or URL per line, CRLF in the official CSVs) as a list."""
    return [v.strip() for v in cell.splitlines() if v.strip()]


# ---------------------------------------------------------------------------------------------------------
# Loaders


def load_questions(csv_path: str | Path) -> dict[str, Task]:
    """The official OfficeQA questions (Pro or Full CSV) by ``uid``."""
    path = Path(csv_path)
    text = read_text(path)
    if not text.strip():
        raise ReaderError(path, "file is empty")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in CSV_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise ReaderError(path, f"missing column(s) {missing}", line=1, field=missing[0])
    tasks: dict[str, Task] = {}
    for row in reader:
        line = reader.line_num
        for col in CSV_COLUMNS:
            if row.get(col) is None:
                raise ReaderError(path, "row has too few cells", line=line, field=col)
        uid = row["uid"].strip()
        if not uid:
            raise ReaderError(path, "empty uid", line=line, field="uid")
        if uid in tasks:
            raise ReaderError(path, f"duplicate uid {uid!r}", line=line, field="uid")
        tasks[uid] = Task(
            id=uid,
            benchmark=NAME,
            instruction=row["question"],
            rubric=[answer_item()],
            source_files=split_cell(row["source_files"]),
            answer=row["answer"],
            meta={"uid": uid, "difficulty": row["difficulty"], "source_docs": split_cell(row["source_docs"])},
        )
    return tasks


def _string_list(entry: dict[str, Any], key: str, path: Path, pos: int) -> list[str]:
    values = field(entry, key, list, path, pos)
    if not all(isinstance(v, str) for v in values):
        raise ReaderError(path, "expected a list of strings", line=pos, field=key)
    return values


def load_g2b_dataset(json_path: str | Path) -> dict[str, Task]:
    """G2B-Skill's OfficeQA-Pro task list by ``oqa-N`` id (``line`` in errors = 1-based list position)."""
    path = Path(json_path)
    data = load_json(path)
    if not isinstance(data, list):
        raise ReaderError(path, f"expected a JSON list of tasks, got {type(data).__name__}")
    tasks: dict[str, Task] = {}
    for pos, entry in enumerate(data, 1):
        oqa = field(entry, "id", str, path, pos)
        uid = field(entry, "uid_orig", str, path, pos)
        tolerance = field(entry, "tolerance_pct", (int, float), path, pos)
        meta: dict[str, Any] = {
            "uid": uid,
            "tolerance_pct": tolerance,
            "answer_values": _string_list(entry, "answer_values", path, pos),
        }
        if isinstance(entry.get("sources_dir"), str):
            meta["sources_dir"] = entry["sources_dir"]
        tasks[oqa] = Task(
            id=oqa,
            benchmark=NAME,
            instruction=field(entry, "instruction", str, path, pos),
            rubric=[answer_item()],
            expected_outputs=["output.txt"],
            source_files=_string_list(entry, "source_files", path, pos),
            answer=field(entry, "answer", str, path, pos),
            meta=meta,
        )
    return tasks


def _evidence(data: dict[str, Any], details: dict[str, Any]) -> str:
    text = f"predicted {data.get('predicted')!r} vs target {data.get('target')!r}"
    facts = [str(data.get("match_type") or details.get("match_type") or "?")]
    if isinstance(details.get("rel_error"), int | float):
        facts.append(f"rel_error {details['rel_error']:.4g}")
    if data.get("tolerance_pct") is not None:
        facts.append(f"tolerance {data['tolerance_pct']}%")
    return f"{text} ({', '.join(facts)})"


def load_assessment(json_path: str | Path) -> Judgement:
    """The G2B grader's verdict for one run: one item (the answer), passed = ``is_correct``."""
    path = Path(json_path)
    data = load_json(path)
    if not isinstance(data, dict):
        raise ReaderError(path, f"expected a JSON object, got {type(data).__name__}")
    passed = field(data, "is_correct", bool, path, None)
    accuracy = field(data, "accuracy", (int, float), path, None)
    details = data.get("details", {})
    if not isinstance(details, dict):
        raise ReaderError(path, f"expected object, got {type(details).__name__}", field="details")
    summary = {**details, "match_type": data.get("match_type"), "tolerance_pct": data.get("tolerance_pct")}
    item = ItemResult(index=0, passed=passed, score=float(accuracy), evidence=_evidence(data, details))
    return Judgement(items=[item], judge=JUDGE, source_path=str(path), summary=summary)


# ---------------------------------------------------------------------------------------------------------
# Joining

_questions = cached_by_file(load_questions)
_dataset = cached_by_file(load_g2b_dataset)


def find_dataset(start: Path) -> Path | None:
    """``g2b_officeqa_pro_dataset.json`` in ``start`` or up to :data:`SEARCH_LEVELS` folders above it."""
    for folder in [start, *start.parents][: SEARCH_LEVELS + 1]:
        candidate = folder / DATASET_FILE
        if candidate.is_file():
            return candidate
    return None


def find_assessment(run_dir: Path, round_no: int | None) -> Path | None:
    """The run's ``assessment_r<N>.json``: the wanted round, else the only one; in the run folder or, for an
    ``evolve_<id>`` workdir, its parent."""
    folders = [run_dir, run_dir.parent] if run_dir.name.startswith("evolve_") else [run_dir]
    for folder in folders:
        found = sorted(
            p for p in folder.glob("assessment_r*.json") if _ASSESSMENT.match(p.name) and p.is_file()
        )
        if round_no is not None and (folder / f"assessment_r{round_no}.json") in found:
            return folder / f"assessment_r{round_no}.json"
        if round_no is None and len(found) == 1:
            return found[0]
    return None


def _cross_check(task: Task, csv_path: Path, warnings: list[str]) -> None:
    uid = task.meta.get("uid")
    question = _questions(csv_path).get(str(uid))
    if question is None:
        warnings.append(f"officeqa: uid {uid!r} of {task.id} not in {csv_path}")
        return
    task.meta["difficulty"] = question.meta["difficulty"]
    task.meta["source_docs"] = question.meta["source_docs"]
    if question.answer != task.answer:
        warnings.append(
            f"officeqa: answer of {task.id} ({task.answer!r}) differs from {uid} in {csv_path.name} "
            f"({question.answer!r})"
        )


def attach(trajectory: Trajectory) -> bool:
    """Join an ``oqa-N`` trajectory with its G2B task and the run's assessment; False for anything else."""
    if not trajectory.task_id or not _TASK_ID.match(trajectory.task_id):
        return False
    source = Path(trajectory.source_path)
    run_dir = source if source.is_dir() else source.parent
    dataset = find_dataset(run_dir)
    if dataset is None:
        return False
    shared = _dataset(dataset).get(trajectory.task_id)
    if shared is None:
        return False
    task = copy.deepcopy(shared)
    warnings: list[str] = []
    questions = (dataset.parent / QUESTIONS_CSV).resolve()
    if questions.is_file():
        _cross_check(task, questions, warnings)
    round_no = trajectory.meta.get("round")
    assessment = find_assessment(run_dir, round_no if isinstance(round_no, int) else None)
    trajectory.task = task
    trajectory.judgement = load_assessment(assessment) if assessment else None
    trajectory.benchmark = NAME
    trajectory.warnings += [read_warning(w, trajectory.source_path, kind="join") for w in warnings]
    return True
