"""The simulated world generator (rtlab.synth.workspaces): determinism, sizes, facts, items, metadata."""

from __future__ import annotations

import collections
import hashlib
import json
import re
from pathlib import Path

import openpyxl
import pytest

from rtlab.analysis import referred_files
from rtlab.ingest.benchmarks.workspace_bench import load_task
from rtlab.synth.workspaces import WorldConfig, build_world, metadata_record
from rtlab.synth.world import World, world_from_dict, world_to_dict
from rtlab.text import NumberIndex, find_numbers, is_year_like, matches, name_key, tokenize

SEED = 7
SMALL = WorldConfig(roles=("logistics", "backend"), files_per_role=(120, 130))
KINDS = {"txt", "md", "csv", "json", "xlsx"}
WB_RUBRIC_TYPES = {"Basic Evaluation", "Process Evaluation", "Outcome Evaluation", "Result Evaluation"}


def printed(path: Path) -> str:
    """What reading the file prints: the text, or the brief's openpyxl one-liner for xlsx."""
    if path.suffix == ".xlsx":
        wb = openpyxl.load_workbook(path, data_only=True)
        return "".join(
            "\t".join("" if c is None else str(c) for c in row) + "\n"
            for ws in wb
            for row in ws.iter_rows(values_only=True)
        )
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, World, dict[str, dict[str, str]]]:
    """The default world of seed 7, and every file's printed text by role and path."""
    root = tmp_path_factory.mktemp("world")
    world = build_world(root, seed=SEED)
    texts = {r.name: {f.path: printed(root / r.root / f.path) for f in r.files} for r in world.roles}
    return root, world, texts


def _digests(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_same_seed_same_bytes_other_seed_differs(tmp_path: Path) -> None:
    a = build_world(tmp_path / "a", seed=3, config=SMALL)
    b = build_world(tmp_path / "b", seed=3, config=SMALL)
    c = build_world(tmp_path / "c", seed=4, config=SMALL)
    da, db, dc = _digests(tmp_path / "a"), _digests(tmp_path / "b"), _digests(tmp_path / "c")
    assert da == db
    assert a == b
    assert any(p.endswith(".xlsx") for p in da)  # the zip normalisation is exercised
    assert da != dc and a != c


def test_roles_counts_kinds_and_depth(built) -> None:
    root, world, _ = built
    assert [r.name for r in world.roles] == ["operations", "logistics", "research", "backend", "product"]
    assert len(world.tasks) == 20
    for role in world.roles:
        assert role.root == f"workspaces/{role.name}"
        assert " at " in role.title
        assert 250 <= len(role.files) <= 450
        kinds = collections.Counter(f.kind for f in role.files)
        assert set(kinds) == KINDS
        assert 0.15 <= kinds["xlsx"] / len(role.files) <= 0.20
        assert {f.role for f in role.files} == {"source", "version", "distractor", "filler"}
        depth = max(f.path.count("/") + 1 for f in role.files)
        assert depth == 6
        readme = world.file(role.name, "README_SIMULATED.txt")
        assert readme.role == "filler"
        assert f"seed {SEED}" in (root / role.root / readme.path).read_text(encoding="utf-8")
        assert len([t for t in world.tasks if t.role == role.name]) == 4
        on_disk = sorted(
            p.relative_to(root / role.root).as_posix() for p in (root / role.root).rglob("*") if p.is_file()
        )
        assert on_disk == sorted(f.path for f in role.files)


def test_non_ascii_names(built) -> None:
    _, world, _ = built
    paths = [f.path for r in world.roles for f in r.files]
    for role in world.roles:
        assert any(not f.path.isascii() for f in role.files)
    joined = "".join(paths)
    for ch in "éüø":
        assert ch in joined
    assert re.search("[\u4e00-\u9fff]", joined)


def test_chars_are_printed_sizes(built) -> None:
    _, world, texts = built
    for role in world.roles:
        for f in role.files:
            assert f.chars == len(texts[role.name][f.path]), f.path
    sources = [f for r in world.roles for f in r.files if f.role == "source"]
    assert all(1500 <= f.chars <= 6000 for f in sources)
    assert all(2 <= len(f.facts) <= 8 for f in sources)
    assert all(not f.facts for r in world.roles for f in r.files if f.role != "source")


def test_facts_stated_once_and_distortions_nowhere(built) -> None:
    _, world, texts = built
    for role in world.roles:
        files = texts[role.name]
        indexes = {p: NumberIndex(t) for p, t in files.items()}
        facts = [f for f in world.facts.values() if f.file in files]
        assert {k for f in role.files for k in f.facts} == {f.key for f in facts}
        for fact in facts:
            assert world.file(role.name, fact.file).role == "source"
            assert fact.value in files[fact.file], fact
            assert set(tokenize(fact.label)) <= set(tokenize(files[fact.file])), fact
            assert [p for p, t in files.items() if p != fact.file and fact.value in t] == [], fact
            assert [p for p, t in files.items() if fact.distorted in t] == [], fact
            assert fact.distorted != fact.value
            if not fact.numeric:
                continue
            (value,) = find_numbers(fact.value)
            (distorted,) = find_numbers(fact.distorted)
            assert value.significant >= 3 and not is_year_like(value), fact
            assert value.decimals > 0 or value.percent or abs(value.value) >= 1000, fact
            assert not matches(value, distorted) and not matches(distorted, value), fact
            assert indexes[fact.file].find(value) is not None, fact
            for path, index in indexes.items():
                assert path == fact.file or index.find(value) is None, (fact, path)
                assert index.find(distorted) is None, (fact, path)
        assert any(not f.numeric for f in facts) and any(f.numeric for f in facts)


def test_names_unique_and_versions_beside_their_source(built) -> None:
    _, world, texts = built
    for role in world.roles:
        keys = collections.Counter(name_key(f.path) for f in role.files)
        assert [k for k, n in keys.items() if n > 1] == []
        versions = [f for f in role.files if f.role == "version"]
        assert versions
        sources = {f.path: f for f in role.files if f.role == "source"}
        for v in versions:
            folder, name = v.path.rsplit("/", 1)
            stem = re.sub(r"_(final|v\d+|draft|old)$", "", name.rsplit(".", 1)[0])
            owners = [s for s in sources if s.rsplit("/", 1)[0] == folder and stem in s]
            assert owners, v.path
            facts = [world.facts[k] for s in owners for k in sources[s].facts]
            assert not any(f.value in texts[role.name][v.path] for f in facts)


def test_tasks_sources_and_items(built) -> None:
    _, world, _ = built
    kinds: collections.Counter[str] = collections.Counter()
    for task in world.tasks:
        role = world.role(task.role)
        assert 3 <= len(task.sources) <= 8
        assert 8 <= len(task.items) <= 14
        assert [i.index for i in task.items] == list(range(len(task.items)))
        assert len({s.rsplit("/", 1)[0] for s in task.sources}) == len(task.sources)  # spread over folders
        assert all(world.file(role.name, s).role == "source" for s in task.sources)
        assert task.deliverable.endswith(".md") and task.deliverable in task.instruction
        assert {a for a, _ in task.dependency_graph} <= set(task.sources)
        assert {(s, task.deliverable) for s in task.sources} <= set(task.dependency_graph)
        assert any(b in task.sources for _, b in task.dependency_graph)
        for item in task.items:
            kinds[item.kind] += 1
            assert item.rubric_type in WB_RUBRIC_TYPES
            facts = [world.facts[k] for k in item.facts]
            assert all(f.file in task.sources for f in facts)
            if item.kind == "value":
                assert 1 <= len(facts) <= 2
                assert item.expected == tuple(f.value for f in facts)
                assert all(v in item.text for v in item.expected)
                assert all(f.file.rsplit("/", 1)[-1] in item.text for f in facts)
            elif item.kind == "statement":
                assert len(facts) == 1 and not facts[0].numeric
                assert item.expected == (facts[0].value,)
                assert f'"{facts[0].value}"' in item.text
            elif item.kind == "computed":
                assert 2 <= len(facts) <= 3 and all(f.numeric for f in facts)
                assert re.search(r"\b(total|calculated|sum)\b", item.text)
                (expected,) = item.expected
                values = [find_numbers(f.value)[0].value for f in facts]
                total = abs(values[0] - values[1]) if "difference" in item.text else sum(values)
                assert abs(float(expected) - total) < 0.006, item
                assert item.text.endswith(f": {expected}.")
            else:
                assert item.kind == "format" and not item.facts
                (title,) = item.expected
                assert f'"{title}"' in item.text and f'"{title}"' in task.instruction
                assert re.search(r"\b(titled|section|heading|format)", item.text)
                assert not re.search(r"\d", item.text)
    total = sum(kinds.values())
    assert 0.55 <= kinds["value"] / total <= 0.67
    assert 0.12 <= kinds["statement"] / total <= 0.20
    assert 0.07 <= kinds["computed"] / total <= 0.13
    assert 0.07 <= kinds["format"] / total <= 0.13


def test_computed_values_written_nowhere(built) -> None:
    _, world, texts = built
    for role in world.roles:
        files = texts[role.name]
        indexes = [NumberIndex(t) for t in files.values()]
        for task in world.tasks:
            if task.role != role.name:
                continue
            for item in task.items:
                if item.kind != "computed":
                    continue
                (number,) = find_numbers(item.expected[0])
                assert not any(item.expected[0] in text for text in files.values())
                assert all(index.find(number) is None for index in indexes)


def test_items_refer_to_exactly_their_sources(built) -> None:
    _, world, _ = built
    for task in world.tasks:
        for item in task.items:
            names = [s.rsplit("/", 1)[-1] for s in task.sources]  # as a data manifest lists them
            for sources in (list(task.sources), names):
                referred, mode = referred_files(item.text, sources, format_item=item.kind == "format")
                if item.kind == "format":
                    assert (referred, mode) == ([], "format"), item.text
                    continue
                want = {world.facts[k].file for k in item.facts}
                if sources is names:
                    want = {w.rsplit("/", 1)[-1] for w in want}
                assert mode == "named" and set(referred) == want and len(referred) == len(want), item.text


def test_instruction_names_topics_not_values_or_paths(built) -> None:
    _, world, _ = built
    for task in world.tasks:
        words = set(tokenize(task.instruction))
        assert world.role(task.role).title in task.instruction
        for source in task.sources:
            assert source.rsplit("/", 1)[-1] not in task.instruction
            stem = source.rsplit("/", 1)[-1].rsplit(".", 1)[0]
            topic = [w for w in re.split(r"[^A-Za-z]+", stem) if len(w) >= 4 and w not in ("final",)]
            assert topic and all(w.lower() in words for w in topic), (task.id, stem)
        for key in {k for i in task.items for k in i.facts}:
            assert world.facts[key].value not in task.instruction


def test_reading_volume_spans_light_to_heavy(built) -> None:
    _, world, _ = built
    volume = [sum(world.file(t.role, s).chars for s in t.sources) for t in world.tasks]
    assert min(volume) < 8000 and max(volume) > 25000


def test_metadata_record_loads_as_workspace_bench_task(built, tmp_path: Path) -> None:
    _, world, _ = built
    for task in world.tasks[::3]:
        record = metadata_record(world, task)
        assert record["simulated"] is True and record["language"] == "en"
        path = tmp_path / task.id / "metadata.json"
        path.parent.mkdir()
        path.write_text(json.dumps(record, ensure_ascii=False, indent=2), encoding="utf-8")
        loaded = load_task(path)
        assert loaded.id == task.id and loaded.benchmark == "workspace-bench"
        assert loaded.instruction == task.instruction
        assert [r.text for r in loaded.rubric] == [i.text for i in task.items]
        assert [r.type for r in loaded.rubric] == [i.rubric_type for i in task.items]
        assert loaded.source_files == [s.rsplit("/", 1)[-1] for s in task.sources]
        assert loaded.meta["stored_relpaths"] == list(task.sources)
        assert loaded.expected_outputs == [task.deliverable]
        assert loaded.meta["persona"] == world.role(task.role).title.split(" at ")[0]
        assert loaded.dependency_graph[0] == (task.sources[0].rsplit("/", 1)[-1], task.deliverable)


def test_world_json_round_trip(built) -> None:
    _, world, _ = built
    data = json.loads(json.dumps(world_to_dict(world), ensure_ascii=False))
    assert world_from_dict(data) == world


def test_refuses_a_folder_that_holds_files(tmp_path: Path) -> None:
    old = tmp_path / "workspaces" / "logistics"
    old.mkdir(parents=True)
    (old / "left_over.txt").write_text("x", encoding="utf-8")
    with pytest.raises(FileExistsError):
        build_world(tmp_path, seed=1, config=SMALL)


@pytest.mark.parametrize(
    "bad",
    [
        {"roles": ("operations", "sales")},
        {"tasks_per_role": 6},
        {"sources_per_task": (2, 8)},
        {"files_per_role": (400, 300)},
        {"items_per_task": (8, 10)},
    ],
)
def test_config_is_checked(bad: dict) -> None:
    with pytest.raises(ValueError):
        WorldConfig(**bad)
