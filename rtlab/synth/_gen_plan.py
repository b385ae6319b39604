"""Planning a role's workspace: tasks, their sources and facts, rubric items, versions, distractors, fillers.

The plan fixes everything a rubric depends on before any file is written: which files a task needs, which
values they hold (:class:`rtlab.synth._gen_numbers.Reserved`), the distorted and stale twins of those values,
the items and the instruction. Files are then written from the plan (:mod:`rtlab.synth.workspaces`).
"""

from __future__ import annotations

import hashlib
import math
import random
import re
from dataclasses import dataclass, field
from typing import Any

from rtlab.synth._gen_content import MAX_SOURCE_CHARS, MIN_SOURCE_CHARS, FileSpec, RoleCtx
from rtlab.synth._gen_numbers import (
    Num,
    Reserved,
    cell,
    distort,
    draw_fact,
    draw_stale,
    fact_shape_ok,
    fresh_name,
    single_number,
)
from rtlab.synth._vocab import (
    COMMON_FILLERS,
    FIRST_NAMES,
    GUARANTEED_FILLERS,
    LAST_NAMES,
    MONEY,
    MONTHS,
    MONTHS_FR,
    FillerType,
    Metric,
    RoleVocab,
    Scope,
    Subject,
    Theme,
)
from rtlab.synth.world import Fact, FileKind, Item, ItemKind
from rtlab.text import name_key

CSV_ROW_CHARS = 55
"""A conservative printed size of one row of a source CSV."""
MAX_LEVELS = 6
"""Deepest file: five folders and the file."""
RUBRIC_TYPES = {
    "value": "Outcome Evaluation",
    "statement": "Outcome Evaluation",
    "computed": "Process Evaluation",
    "format": "Basic Evaluation",
}
"""Workspace-Bench's rubric types (Basic / Process / Outcome / Result Evaluation) by item kind."""
SOURCE_KINDS: tuple[tuple[FileKind, float], ...] = (
    ("xlsx", 0.32),
    ("md", 0.24),
    ("csv", 0.18),
    ("json", 0.14),
    ("txt", 0.12),
)
EXTRA_FOLDERS = ("Reports", "Final", "Working", "Exports", "Shared")
FILLER_SUBFOLDERS = (
    "old",
    "misc",
    "2024",
    "team",
    "Ältere Dateien",
    "共享文件",
    "Réunions",
    "to sort",
    "backup",
)


@dataclass(frozen=True)
class Profile:
    """How heavy a task is to read: number of sources, their printed size, number of rubric items."""

    name: str
    sources: tuple[int, int]
    chars: tuple[int, int]
    items: tuple[int, int]


PROFILES = {
    "light": Profile("light", (3, 3), (1500, 2400), (8, 9)),
    "medium": Profile("medium", (4, 6), (2000, 4200), (10, 12)),
    "heavy": Profile("heavy", (7, 8), (4000, 5200), (13, 14)),
}
_PROFILE_CYCLE = ("light", "heavy", "medium", "medium", "heavy")


def derive(seed: int, *parts: Any) -> random.Random:
    """A random stream determined by the seed and the parts (SHA-256, never ``hash()``)."""
    digest = hashlib.sha256(repr((seed, *parts)).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def levels(path: str) -> int:
    return path.count("/") + 1


def _slug(text: str) -> str:
    return re.sub(r"[^0-9a-zA-Z\u00c0-\u024f\u4e00-\u9fff]+", "_", text).strip("_").lower()


@dataclass
class FactPlan:
    key: str
    spec: FileSpec
    where: str
    """``table``, ``kv`` or ``name``."""
    loc: Any
    label: str
    text: str
    metric: Metric | None = None
    num: Num | None = None
    distorted: str = ""


@dataclass
class TaskPlan:
    id: str
    theme: Theme
    scope: Scope
    profile: Profile
    sources: list[FileSpec]
    items: list[Item] = field(default_factory=list)
    instruction: str = ""
    deliverable: str = ""
    graph: list[tuple[str, str]] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)


@dataclass
class RolePlan:
    vocab: RoleVocab
    ctx: RoleCtx
    files: list[FileSpec]
    tasks: list[TaskPlan]
    facts: dict[str, FactPlan]

    def fact(self, key: str) -> Fact:
        f = self.facts[key]
        return Fact(
            key=f.key,
            label=f.label,
            value=f.text,
            file=f.spec.path,
            distorted=f.distorted,
            numeric=f.where != "name",
        )


class Planner:
    """Plans one role (a single pass; see :func:`plan_role`)."""

    def __init__(self, vocab: RoleVocab, seed: int, config: Any) -> None:
        self.vocab, self.seed, self.config = vocab, seed, config
        self.rng = derive(seed, vocab.name, "plan")
        self.reserved = Reserved()
        people = [f"{f} {last}" for f in FIRST_NAMES for last in LAST_NAMES]
        chosen = self.rng.sample(people, 16)
        self.ctx = RoleCtx(vocab, self.rng.choice(vocab.orgs), chosen[0], tuple(chosen), self.reserved, seed)
        self.files: list[FileSpec] = []
        self.keys: set[str] = set()
        self.names_taken: set[str] = set()
        self.facts: dict[str, FactPlan] = {}
        self.twins: set[tuple[str, str]] = set()

    # -- files ------------------------------------------------------------------------------------------
    def add(self, spec: FileSpec) -> bool:
        key = name_key(spec.path)
        if key in self.keys or levels(spec.path) > MAX_LEVELS:
            return False
        self.keys.add(key)
        self.files.append(spec)
        return True

    def _folder(self, subject: Subject, scope: Scope) -> str:
        folder = f"{subject.folder}/{scope.folder}"
        if levels(folder) + 2 <= MAX_LEVELS and self.rng.random() < 0.4:
            folder += "/" + self.rng.choice(EXTRA_FOLDERS)
        return folder

    def _kind(self, exclude: tuple[str, ...] = ()) -> FileKind:
        kinds = [k for k, _ in SOURCE_KINDS if k not in exclude]
        weights = [w for k, w in SOURCE_KINDS if k not in exclude]
        return self.rng.choices(kinds, weights)[0]

    # -- tasks --------------------------------------------------------------------------------------------
    def plan(self) -> RolePlan:
        rng, n_tasks = self.rng, self.config.tasks_per_role
        scopes = list(self.vocab.scopes)
        rng.shuffle(scopes)
        themes = list(self.vocab.themes)
        rng.shuffle(themes)
        names = [_PROFILE_CYCLE[i % len(_PROFILE_CYCLE)] for i in range(n_tasks)]
        rng.shuffle(names)
        tasks = []
        for t in range(n_tasks):
            task = self._task(t, themes[t], scopes[t], PROFILES[names[t]])
            tasks.append(task)
        for task in tasks:
            self._items(task)
        self._distort_all()
        for task in tasks:
            self._versions(task)
        for task in tasks:
            self._distractors(task, scopes[n_tasks:])
        self._fillers()
        self.files.sort(key=lambda s: s.path)
        return RolePlan(self.vocab, self.ctx, self.files, tasks, self.facts)

    def _task(self, t: int, theme: Theme, scope: Scope, profile: Profile) -> TaskPlan:
        rng = self.rng
        n_src = rng.randint(*_clamp(profile.sources, self.config.sources_per_task))
        pool = list(theme.subjects)
        chosen = set(pool[:2]) | set(rng.sample(pool[2:], max(0, n_src - 2)))
        subjects = [self.vocab.subject(s) for s in pool if s in chosen]
        avoid = ("csv",) if profile.name == "heavy" and rng.random() < 0.7 else ()
        kinds = [self._kind(avoid) for _ in subjects]
        named = [i for i, s in enumerate(subjects) if s.names]
        if named and all(kinds[i] == "csv" for i in named):
            kinds[named[0]] = self._kind(("csv",))
        sources = []
        for subject, kind in zip(subjects, kinds, strict=True):
            target = rng.randint(*profile.chars)
            rows = len(self.vocab.entities[subject.entity]) * len(scope.periods)
            if kind == "csv" and rows * CSV_ROW_CHARS < target:
                kind = self._kind(("csv",))  # too few rows to reach the size a CSV of it should have
            spec = FileSpec(
                path="",
                kind=kind,
                role="source",
                builder="subject",
                title=subject.title,
                target=(max(MIN_SOURCE_CHARS, target), min(MAX_SOURCE_CHARS - 400, target + 900)),
                subject=subject,
                scope=scope,
                use_period=kind == "csv" or rng.random() < 0.45,
            )
            n_versions = rng.choices((0, 1, 2, 3), (0.45, 0.3, 0.2, 0.05))[0]
            suffix = (
                ""
                if not n_versions
                else rng.choice(("_final", "_final", "_final", "", f"_v{n_versions + 1}"))
            )
            spec.params["versions"] = str(n_versions)
            spec.params["suffix"] = suffix
            spec.path = f"{self._folder(subject, scope)}/{subject.stem}_{scope.token}{suffix}.{kind}"
            spec.seed_key = spec.path
            if not self.add(spec):
                raise RuntimeError(f"source name taken: {spec.path}")
            sources.append(spec)
        deliverable = f"{scope.token}_{theme.deliverable}.md"
        graph = [(s.path, deliverable) for s in sources]
        for _ in range(rng.randint(1, 2)):
            a, b = rng.sample(range(len(sources)), 2)
            edge = (sources[min(a, b)].path, sources[max(a, b)].path)
            if edge not in graph:
                graph.append(edge)
        return TaskPlan(
            id=f"sim-{self.vocab.name}-{t + 1:02d}",
            theme=theme,
            scope=scope,
            profile=profile,
            sources=sources,
            deliverable=deliverable,
            graph=graph,
        )

    # -- facts ------------------------------------------------------------------------------------------
    def _next_key(self) -> str:
        return f"{self.vocab.prefix}-f{len(self.facts) + 1:03d}"

    def _free_cells(self, spec: FileSpec, metric_ok: Any) -> list[tuple[str, str | None, int]]:
        assert spec.subject is not None and spec.scope is not None
        used = {(f.loc if f.where == "table" else None) for f in self.facts.values() if f.spec is spec}
        entities = self.vocab.entities[spec.subject.entity]
        periods: tuple[str | None, ...] = spec.scope.periods if spec.use_period else (None,)
        return [
            (e, p, i)
            for e in entities
            for p in periods
            for i, m in enumerate(spec.subject.metrics)
            if metric_ok(m) and (e, p, i) not in used
        ]

    def _table_fact(self, spec: FileSpec, loc: tuple[str, str | None, int], num: Num, text: str) -> FactPlan:
        assert spec.subject is not None
        entity, period, i = loc
        metric = spec.subject.metrics[i]
        label = f"{entity} {metric.label}" + (f" in {period}" if period else "")
        fact = FactPlan(self._next_key(), spec, "table", loc, label, text, metric, num)
        spec.cells[loc] = cell(num, spec.kind, where="table", currency=self.vocab.currency)
        return self._keep(fact)

    def _keep(self, fact: FactPlan) -> FactPlan:
        self.facts[fact.key] = fact
        fact.spec.facts.append(fact.key)
        self.reserved.add(
            fact.text, owner=fact.spec.path, what="fact" if fact.where != "name" else "name", key=fact.key
        )
        return fact

    def _draw_table_fact(self, spec: FileSpec, loc: tuple[str, str | None, int]) -> FactPlan:
        assert spec.subject is not None
        metric = spec.subject.metrics[loc[2]]
        num, text = draw_fact(
            self.rng, metric, self.reserved, file_kind=spec.kind, where="table", currency=self.vocab.currency
        )
        return self._table_fact(spec, loc, num, text)

    def _value_facts(self, spec: FileSpec, n: int) -> list[FactPlan]:
        """``n`` (1 or 2) facts of one source for one value item: table cells sharing a row or a metric, or
        key figures."""
        rng = self.rng
        assert spec.subject is not None
        kpis = [i for i, m in enumerate(spec.subject.kpis) if m.fact_ok and i not in spec.kpis]
        if spec.kind != "csv" and kpis and rng.random() < 0.25 and len(kpis) >= n:
            out = []
            for i in rng.sample(kpis, n):
                metric = spec.subject.kpis[i]
                num, text = draw_fact(
                    rng, metric, self.reserved, file_kind=spec.kind, where="kv", currency=self.vocab.currency
                )
                spec.kpis[i] = cell(num, spec.kind, where="kv", currency=self.vocab.currency)
                out.append(
                    self._keep(FactPlan(self._next_key(), spec, "kv", i, metric.label, text, metric, num))
                )
            return out
        free = self._free_cells(spec, lambda m: m.fact_ok)
        first = rng.choice(free)
        locs = [first]
        if n == 2:
            same_row = [c for c in free if c[:2] == first[:2] and c != first]
            same_metric = [c for c in free if c[2] == first[2] and c != first]
            pick = same_row if same_row and (rng.random() < 0.5 or not same_metric) else same_metric
            locs.append(rng.choice(pick))
        return [self._draw_table_fact(spec, loc) for loc in locs]

    def _name_fact(self, spec: FileSpec) -> FactPlan | None:
        assert spec.subject is not None
        free = [i for i in range(len(spec.subject.names)) if i not in spec.names]
        if spec.kind == "csv" or not free:
            return None
        i = self.rng.choice(free)
        slot = spec.subject.names[i]
        v = self.vocab
        name = fresh_name(
            self.rng, slot.kind, self.reserved, self.names_taken, industry=v.industry, options=v.options
        )
        spec.names[i] = name
        return self._keep(FactPlan(self._next_key(), spec, "name", i, slot.label, name))

    def _computed(self, task: TaskPlan) -> tuple[list[FactPlan], str, str] | None:
        """Facts, value and wording of one computed item (a sum or difference no file states)."""
        rng = self.rng
        sums = [s for s in task.sources if _summable(s)]
        money = [
            (s, i)
            for s in task.sources
            for i, m in enumerate(_subject(s).metrics)
            if m.kind == MONEY and m.fact_ok
        ]
        for _ in range(60):
            mode = rng.choice(("sum_rows", "sum_rows", "diff_rows", "sum_files"))
            if mode == "sum_files":
                pairs = [(a, b) for a in money for b in money if a[0] is not b[0]]
                if not pairs:
                    continue
                (sa, ia), (sb, ib) = rng.choice(pairs)
                ca = [c for c in self._free_cells(sa, lambda m: True) if c[2] == ia]
                cb = [c for c in self._free_cells(sb, lambda m: True) if c[2] == ib]
                group = [(sa, rng.choice(ca)), (sb, rng.choice(cb))]
            else:
                if not sums:
                    return None
                spec = rng.choice(sums)
                metric_ids = _summable(spec)
                i = rng.choice(metric_ids)
                cells = [c for c in self._free_cells(spec, lambda m: True) if c[2] == i]
                k = 2 if mode == "diff_rows" else rng.choice((2, 2, 3))
                if len(cells) < k:
                    continue
                group = [(spec, c) for c in rng.sample(cells, k)]
            drawn = self._draw_group(group, mode)
            if drawn is None:
                continue
            nums, texts, value = drawn
            facts = [
                self._table_fact(s, loc, n, t) for (s, loc), n, t in zip(group, nums, texts, strict=True)
            ]
            self.reserved.add(value, owner=None, what="computed", key=f"{task.id}-computed")
            return facts, value, mode
        return None

    def _draw_group(
        self, group: list[tuple[FileSpec, Any]], mode: str
    ) -> tuple[list[Num], list[str], str] | None:
        """Values for a computed item's facts and the computed value, all clear of reserved values."""
        rng, cur = self.rng, self.vocab.currency
        nums: list[Num] = []
        texts: list[str] = []
        values: list[float] = []
        probe = Reserved()
        for spec, loc in group:
            metric = _subject(spec).metrics[loc[2]]
            num, text = draw_fact(
                rng, metric, self.reserved, file_kind=spec.kind, where="table", currency=cur
            )
            n = single_number(text)
            if n is None or any(probe.near(v) for v in (n.value,)) or probe.text_clash(text):
                return None
            probe.add(text, owner=None, what="fact", key="")
            nums.append(num)
            texts.append(text)
            values.append(n.value)
        total = abs(values[0] - values[1]) if mode == "diff_rows" else sum(values)
        decimals = max(n.decimals if n.kind == MONEY else 0 for n in nums)
        value = f"{total:.{decimals}f}"
        if not fact_shape_ok(value) or self.reserved.near(total) or probe.near(total):
            return None
        if self.reserved.text_clash(value) or probe.text_clash(value):
            return None
        return nums, texts, value

    # -- items ------------------------------------------------------------------------------------------
    def _items(self, task: TaskPlan) -> None:
        rng = self.rng
        n_src = len(task.sources)
        lo, hi = _clamp(task.profile.items, self.config.items_per_task)
        # enough items that every source gets a value item of its own
        n = min(max(rng.randint(lo, hi), n_src + 4), self.config.items_per_task[1])
        n_stat = round(0.17 * n)
        n_comp = round(0.11 * n)
        n_fmt = 2 if n >= 13 and rng.random() < 0.5 else 1
        n_val = n - n_stat - n_comp - n_fmt
        while n_val < n_src and n_fmt > 1:
            n_fmt, n_val = n_fmt - 1, n_val + 1
        while n_val < n_src and n_stat > 1:
            n_stat, n_val = n_stat - 1, n_val + 1
        cur_scope = task.scope.label
        items: list[tuple[ItemKind, list[FactPlan], tuple[str, ...], str]] = []  # kind, facts, expected, text

        # statements: names from sources that can hold one
        capable = [s for s in task.sources if s.kind != "csv" and _subject(s).names]
        for k in range(n_stat):
            fact = None
            for spec in capable[k % max(1, len(capable)) :] + capable[: k % max(1, len(capable))]:
                fact = self._name_fact(spec)
                if fact is not None:
                    break
            if fact is None:
                n_val += 1
                continue
            text = f'Names "{fact.text}" as the {fact.label} for {cur_scope} (source: {fact.spec.name}).'
            items.append(("statement", [fact], (fact.text,), text))

        # computed
        for _ in range(n_comp):
            made = self._computed(task)
            if made is None:
                n_val += 1
                continue
            facts, value, mode = made
            items.append(("computed", facts, (value,), self._computed_text(facts, value, mode, cur_scope)))

        # values: every source at least once, then the rest at random
        value_items: list[list[Any]] = []
        for i in range(n_val):
            if i < n_src:
                spec = task.sources[i]
            else:
                planned = {
                    id(s): len(s.facts) + sum(v[1] for v in value_items if v[0] is s) for s in task.sources
                }
                spec = rng.choice([s for s in task.sources if planned[id(s)] <= 5] or task.sources)
            value_items.append([spec, 2 if rng.random() < 0.35 else 1])
        for spec in task.sources:  # at least two facts in every source
            mine = [v for v in value_items if v[0] is spec]
            held = len(spec.facts) + sum(v[1] for v in mine)
            if held < 2 and mine:
                mine[0][1] = 2
        for spec, k in value_items:
            facts = self._value_facts(spec, k)
            verb = rng.choice(("States", "Reports", "Gives"))
            labels = " and the ".join(f.label for f in facts)
            values = " and ".join(f.text for f in facts)
            text = f"{verb} the {labels} for {cur_scope} from {spec.name}: {values}."
            items.append(("value", facts, tuple(f.text for f in facts), text))

        # format
        sections = list(task.theme.sections)
        first, rest = sections[0], sections[1:]
        rng.shuffle(rest)
        task.sections = [first] + rest[:2]
        for title in rng.sample(task.sections, n_fmt):
            pattern = rng.choice(
                (
                    'The deliverable has a section titled "{t}".',
                    'The deliverable uses a heading titled "{t}" for its own section.',
                    'The deliverable is formatted with a section headed "{t}".',
                )
            )
            items.append(("format", [], (title,), pattern.format(t=title)))

        order = [i for i in range(len(items))]
        rng.shuffle(order)
        order.sort(key=lambda i: {"format": 0, "value": 1, "statement": 1, "computed": 2}[items[i][0]])
        task.items = [
            Item(
                index=pos,
                text=items[i][3],
                kind=items[i][0],
                rubric_type=RUBRIC_TYPES[items[i][0]],
                facts=tuple(f.key for f in items[i][1]),
                expected=items[i][2],
            )
            for pos, i in enumerate(order)
        ]
        task.instruction = self._instruction(task, [items[i] for i in order])

    def _computed_text(self, facts: list[FactPlan], value: str, mode: str, scope: str) -> str:
        metric = facts[0].metric
        assert metric is not None
        rows = [_row(f) for f in facts]
        if mode == "sum_files":
            a, b = facts
            return (
                f"States the calculated total of the {a.label} in {a.spec.name} and the {b.label} in "
                f"{b.spec.name} for {scope}: {value}."
            )
        if mode == "diff_rows":
            return (
                f"States the calculated difference in {metric.label} between {rows[0]} and {rows[1]} "
                f"for {scope}, from {facts[0].spec.name}: {value}."
            )
        joined = ", ".join(rows[:-1]) + " and " + rows[-1]
        return (
            f"States the total {metric.label} of {joined} for {scope}, calculated as the sum of the values "
            f"in {facts[0].spec.name}: {value}."
        )

    def _instruction(
        self, task: TaskPlan, items: list[tuple[ItemKind, list[FactPlan], tuple[str, ...], str]]
    ) -> str:
        v, rng = self.vocab, self.rng
        topics = [_subject(s).title.lower() for s in task.sources]
        topic_text = ", ".join(topics[:-1]) + " and " + topics[-1]
        metrics: list[str] = []
        for kind, facts, _, _ in items:
            for f in facts:
                if kind == "value" and f.metric is not None and f.metric.label not in metrics:
                    metrics.append(f.metric.label)
        asks = []
        for kind, facts, _, text in items:
            if kind == "statement":
                asks.append(f"name the {facts[0].label}")
            elif kind == "computed":
                m = facts[0].metric
                assert m is not None
                rows = [_row(f) for f in facts]
                if facts[0].spec is not facts[-1].spec:
                    asks.append(f"give the combined total of the {facts[0].label} and the {facts[1].label}")
                elif "difference" in text:
                    asks.append(f"give the difference in {m.label} between {rows[0]} and {rows[1]}")
                else:
                    asks.append(f"give the total {m.label} of {', '.join(rows[:-1])} and {rows[-1]}")
        sections = task.sections
        section_text = ", ".join(f'"{s}"' for s in sections[:-1]) + f' and "{sections[-1]}"'
        opener = rng.choice(
            (
                f"I'm the {v.persona} at {self.ctx.org} and I need {task.theme.purpose}.",
                f"As {v.persona} at {self.ctx.org}, I have to prepare {task.theme.purpose}.",
                f"I work as {v.persona} at {self.ctx.org}; next week I present {task.theme.purpose}.",
            )
        )
        text = (
            f"{opener} Using the files in the workspace, write {task.deliverable} for {task.scope.label}. "
            f"It should cover {topic_text}. For each area, report the key figures the files give "
            f"(for example {', '.join(metrics[:6])})"
        )
        text += (", and " + "; ".join(asks) + ".") if asks else "."
        text += " Use the latest version of each file."
        text += f" Organise the document with sections titled {section_text}."
        return text

    # -- distortions, versions, distractors, fillers -------------------------------------------------------
    def _distort_all(self) -> None:
        v = self.vocab
        entries = {e.key: e for e in self.reserved.entries if e.what in ("fact", "name")}
        for key, fact in self.facts.items():
            if fact.where == "name":
                kind = _subject(fact.spec).names[fact.loc].kind
                fact.distorted = fresh_name(
                    self.rng, kind, self.reserved, self.names_taken, industry=v.industry, options=v.options
                )
                self.reserved.add(fact.distorted, owner=None, what="name", key=f"{key}-distorted")
                continue
            assert fact.num is not None and fact.metric is not None
            fact.distorted = distort(
                self.rng,
                fact.num,
                fact.text,
                fact.metric,
                self.reserved,
                entries[key],
                file_kind=fact.spec.kind,
                where=fact.where,
                currency=v.currency,
            )
            self.reserved.add(fact.distorted, owner=None, what="distorted", key=f"{key}-distorted")

    def _versions(self, task: TaskPlan) -> None:
        rng, v = self.rng, self.vocab
        swap: dict[FileKind, FileKind] = {
            "csv": "xlsx",
            "xlsx": "csv",
            "md": "txt",
            "txt": "md",
            "json": "json",
        }
        for spec in task.sources:
            n = int(spec.params["versions"])
            if not n:
                continue
            suffix = spec.params["suffix"]
            if suffix.startswith("_v"):
                tags = [f"_v{i}" for i in range(1, n + 1)]
            elif suffix == "_final":
                tags = rng.sample(["_v1", "_v2", "_draft", "_old"], n)
            else:  # an unmarked latest file: only a draft and an old copy beside it, never a _v2
                tags = rng.sample(["_draft", "_old"], min(n, 2))
            folder, name = spec.path.rsplit("/", 1)
            stem = name.rsplit(".", 1)[0]
            base = stem[: len(stem) - len(suffix)] if suffix else stem
            for tag in tags:
                kind = spec.kind if rng.random() < 0.6 else swap[spec.kind]
                version = FileSpec(
                    path=f"{folder}/{base}{tag}.{kind}",
                    kind=kind,
                    role="version",
                    builder="subject",
                    title=spec.title,
                    target=spec.target,
                    subject=spec.subject,
                    scope=spec.scope,
                    use_period=spec.use_period or kind == "csv",
                    status={"_draft": "draft", "_old": "superseded"}.get(tag, f"version {tag[2:]}"),
                    seed_key=spec.seed_key,
                    params={"age": str(_age(tag, tags))},
                )
                for key in spec.facts:
                    fact = self.facts[key]
                    if fact.where == "name":
                        kind_name = _subject(spec).names[fact.loc].kind
                        version.names[fact.loc] = fresh_name(
                            rng,
                            kind_name,
                            self.reserved,
                            self.names_taken,
                            industry=v.industry,
                            options=v.options,
                        )
                        continue
                    assert fact.num is not None
                    where = fact.where
                    if where == "kv" and kind == "csv":
                        continue  # a CSV holds no key figures
                    stale = draw_stale(
                        rng, fact.num, self.reserved, file_kind=kind, where=where, currency=v.currency
                    )
                    value = _stored(stale, kind)
                    if where == "table":
                        version.cells[fact.loc] = value
                    else:
                        version.kpis[fact.loc] = value
                if version.use_period and not spec.use_period:
                    assert spec.scope is not None
                    version.cells = {
                        (e, spec.scope.periods[0], i): c for (e, _, i), c in version.cells.items()
                    }
                self.add(version)

    def _distractors(self, task: TaskPlan, other_scopes: list[Scope]) -> None:
        rng = self.rng
        used = {_subject(s).stem for s in task.sources}
        for spec in task.sources:
            subject = spec.subject
            assert subject is not None and spec.scope is not None
            for scope in other_scopes:
                if (subject.stem, scope.token) in self.twins:
                    continue
                self.twins.add((subject.stem, scope.token))
                if rng.random() < 0.7:
                    kind = self._kind()
                    suffix = rng.choice(("", "", "_final"))
                    path = f"{self._folder(subject, scope)}/{subject.stem}_{scope.token}{suffix}.{kind}"
                    self._distractor(path, kind, subject, scope, "subject")
            if rng.random() < 0.5:
                kind = rng.choice(("md", "txt"))
                folder = spec.path.rsplit("/", 1)[0]
                tag = rng.choice(("notes", "comments", "discussion"))
                path = f"{folder}/{subject.stem}_{spec.scope.token}_{tag}.{kind}"
                self._distractor(path, kind, subject, spec.scope, "notes")
        for subject in self.vocab.subjects:
            if subject.stem not in used and rng.random() < 0.4:
                kind = self._kind()
                path = f"{self._folder(subject, task.scope)}/{subject.stem}_{task.scope.token}.{kind}"
                self._distractor(path, kind, subject, task.scope, "subject")

    def _distractor(self, path: str, kind: FileKind, subject: Subject, scope: Scope, builder: str) -> None:
        target = self.rng.randint(1200, 4800)
        title = subject.title if builder == "subject" else f"Notes on {subject.title.lower()}, {scope.label}"
        spec = FileSpec(
            path=path,
            kind=kind,
            role="distractor",
            builder=builder,
            title=title,
            target=(target, target + 1000),
            subject=subject,
            scope=scope,
            use_period=kind == "csv" or self.rng.random() < 0.45,
            seed_key=path,
        )
        self.add(spec)

    def _fillers(self) -> None:
        rng, cfg = self.rng, self.config
        total = rng.randint(*cfg.files_per_role)
        share = rng.uniform(*cfg.xlsx_share)
        readme = FileSpec(
            "README_SIMULATED.txt", "txt", "filler", "readme", "README", (0, 0), seed_key="readme"
        )
        self.add(readme)
        for pattern, kind, folder, builder in GUARANTEED_FILLERS:
            path = f"{self._fill(folder)}/{self._fill(pattern)}.{kind}"
            low = rng.randint(800, 3000)
            self.add(
                FileSpec(
                    path,
                    kind,
                    "filler",
                    builder,
                    _title(path.rsplit("/", 1)[-1][: -len(kind) - 1]),
                    (low, low + 1500),
                    seed_key=path,
                )
            )
        need = total - len(self.files)
        xlsx_need = max(0, math.ceil(total * share) - sum(1 for f in self.files if f.kind == "xlsx"))
        types: list[FillerType] = list(COMMON_FILLERS) + list(self.vocab.fillers)
        xlsx_types = [t for t in types if "xlsx" in t.kinds]
        made = 0
        guard = 0
        while made < need and guard < need * 50:
            guard += 1
            want_xlsx = made < xlsx_need
            ftype = rng.choice(xlsx_types if want_xlsx else types)
            kinds: list[FileKind] = ["xlsx"] if want_xlsx else [k for k in ftype.kinds if k != "xlsx"]
            if not kinds:
                continue
            kind = rng.choice(kinds)
            stem = self._fill(rng.choice(ftype.names))
            folder = self._fill(rng.choice(ftype.folders))
            if rng.random() < 0.3:
                folder += "/" + rng.choice(FILLER_SUBFOLDERS)
            if rng.random() < 0.15 and not folder.startswith(("Archive", "Personal")):
                folder = "Archive/" + folder
            elif rng.random() < 0.2 and ftype in self.vocab.fillers:
                folder = rng.choice(self.vocab.areas) + "/" + folder
            path = f"{folder}/{stem}.{kind}"
            low = rng.randint(400, 1800) if kind == "xlsx" else rng.randint(500, 3800)
            spec = FileSpec(
                path=path,
                kind=kind,
                role="filler",
                builder=ftype.builder,
                title=_title(stem),
                target=(low, low + 1500),
                seed_key=path,
            )
            if self.add(spec):
                made += 1
        if made < need:
            raise RuntimeError(f"could not name {need} filler files for {self.vocab.name}")

    def _fill(self, pattern: str) -> str:
        rng = self.rng
        year = rng.choice((2024, 2025))
        month = rng.randint(1, 12)
        entities = [e for group in self.vocab.entities.values() for e in group]
        values = {
            "date": f"{year}-{month:02d}-{rng.randint(1, 28):02d}",
            "month": MONTHS[month - 1].lower(),
            "Month": MONTHS[month - 1],
            "frmonth": rng.choice(MONTHS_FR),
            "year": str(year),
            "week": f"wk{rng.randint(1, 52):02d}",
            "person": _slug(rng.choice(self.ctx.people).split(" ")[0]),
            "team": _slug(rng.choice(self.vocab.teams)),
            "entity": _slug(rng.choice(entities)),
            "n": f"{rng.randint(1, 60):03d}",
        }
        return re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], pattern)


def _age(tag: str, tags: list[str]) -> int:
    """How many steps older than the latest file a version is: ``_v1`` of three is 3, drafts and old copies
    older than every numbered version."""
    numbered = sorted(t for t in tags if t.startswith("_v"))
    if tag in numbered:
        return len(numbered) - numbered.index(tag)
    return len(numbered) + (2 if tag == "_old" else 1)


def _subject(spec: FileSpec) -> Subject:
    """The subject of a task's source or of its version (those files always have one)."""
    assert spec.subject is not None
    return spec.subject


def _summable(spec: FileSpec) -> list[int]:
    """Indices of a source's metrics whose values can be facts and be added up (money, counts)."""
    assert spec.subject is not None
    return [i for i, m in enumerate(spec.subject.metrics) if m.summable and m.fact_ok]


def _clamp(want: tuple[int, int], allowed: tuple[int, int]) -> tuple[int, int]:
    """``want`` moved inside ``allowed`` (a profile's range under the configuration's)."""
    lo = min(max(want[0], allowed[0]), allowed[1])
    return lo, max(lo, min(want[1], allowed[1]))


def _row(fact: FactPlan) -> str:
    """A table fact's row as a rubric names it: the entity, and its period when the table has one."""
    entity, period, _ = fact.loc
    return entity + (f" in {period}" if period else "")


def _stored(text: str, kind: str) -> Any:
    """A cell as the file kind stores it, from its written text (numbers for json and xlsx)."""
    if kind in ("json", "xlsx"):
        return float(text) if "." in text else int(text)
    return text


def _title(stem: str) -> str:
    words = stem.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def plan_role(vocab: RoleVocab, seed: int, config: Any) -> RolePlan:
    """The plan of one role's workspace for ``seed``."""
    return Planner(vocab, seed, config).plan()
