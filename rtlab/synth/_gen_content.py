"""What the simulated files say: subject documents (sources, their versions, distractors) and fillers.

Every builder takes a :class:`FileSpec` and a seeded ``random.Random`` and returns a :class:`Doc` whose
printed size falls in the spec's target range. Fixed cells (a source's facts, a version's stale values) are
placed as given; every other number is drawn with :func:`rtlab.synth._gen_numbers.draw`, so no reserved value
is written by accident.
"""

from __future__ import annotations

import datetime
import random
import re
from dataclasses import dataclass, field
from typing import Any

from rtlab.synth._gen_docs import Doc, Table, printed_text
from rtlab.synth._gen_numbers import Reserved, draw, make_name
from rtlab.synth._vocab import (
    GENERAL_SENTENCES,
    MONEY,
    MONTHS,
    RATE,
    STATUSES,
    WEEKDAYS,
    Metric,
    RoleVocab,
    Scope,
    Subject,
)
from rtlab.synth.world import FileKind, FileRole

MIN_SOURCE_CHARS = 1500
MAX_SOURCE_CHARS = 6000


@dataclass
class RoleCtx:
    """What every file of a role shares: its vocabulary, organisation, people and reserved values."""

    vocab: RoleVocab
    org: str
    persona_name: str
    people: tuple[str, ...]
    reserved: Reserved
    seed: int


@dataclass
class FileSpec:
    """One file to write: where, what kind, which builder, and what it must hold."""

    path: str
    kind: FileKind
    role: FileRole
    builder: str
    title: str
    target: tuple[int, int]
    """Printed size range (characters)."""
    subject: Subject | None = None
    scope: Scope | None = None
    use_period: bool = False
    status: str = "final"
    seed_key: str = ""
    """The path whose random stream writes the content (a version shares its source's)."""
    cells: dict[tuple[str, str | None, int], Any] = field(default_factory=dict)
    """(entity, period, metric index) -> the cell as stored (text or number): facts or stale values."""
    kpis: dict[int, Any] = field(default_factory=dict)
    names: dict[int, str] = field(default_factory=dict)
    facts: list[str] = field(default_factory=list)
    params: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]


class Writer:
    """Sentences and paragraphs in a role's voice, with people, teams, entities and small numbers."""

    def __init__(
        self, ctx: RoleCtx, rng: random.Random, subject: Subject | None = None, scope: Scope | None = None
    ):
        self.ctx, self.rng, self.subject, self.scope = ctx, rng, subject, scope
        self.entities = ctx.vocab.entities[subject.entity] if subject else self._all_entities()
        own = (subject.sentences if subject else ()) + ctx.vocab.sentences
        self.templates = own * 2 + GENERAL_SENTENCES
        self._queue: list[str] = []

    def _all_entities(self) -> tuple[str, ...]:
        return tuple(e for group in self.ctx.vocab.entities.values() for e in group)

    def fill(self, template: str) -> str:
        rng = self.rng
        person, person2 = rng.sample(self.ctx.people, 2)
        period = rng.choice(self.scope.periods) if self.scope else rng.choice(MONTHS)
        return template.format(
            person=person,
            person2=person2,
            team=rng.choice(self.ctx.vocab.teams),
            weekday=rng.choice(WEEKDAYS),
            month=rng.choice(MONTHS),
            n=rng.randint(2, 40),
            entity=rng.choice(self.entities),
            period=period,
            org=self.ctx.org,
        )

    def sentence(self) -> str:
        """The next sentence: templates are used in a shuffled cycle, so a file rarely repeats one."""
        if not self._queue:
            self._queue = list(self.templates)
            self.rng.shuffle(self._queue)
        return self.fill(self._queue.pop())

    def paragraph(self, lo: int = 3, hi: int = 6) -> str:
        return " ".join(self.sentence() for _ in range(self.rng.randint(lo, hi)))

    def bullets(self, lo: int = 3, hi: int = 6) -> list[str]:
        return [self.sentence() for _ in range(self.rng.randint(lo, hi))]


def _fit(build: Any, spec: FileSpec, ctx: RoleCtx, n_max: int) -> Doc:
    """``build(n)`` for the smallest ``n`` in 1..n_max whose printed size reaches the target's minimum (the
    largest when none does); ``build`` must be deterministic in ``n``."""
    lo = spec.target[0]
    currency = ctx.vocab.currency

    def size(n: int) -> int:
        return len(printed_text(build(n), spec.kind, currency))

    a, b = 1, max(1, n_max)
    if size(b) < lo:
        return build(b)
    while a < b:
        m = (a + b) // 2
        if size(m) >= lo:
            b = m
        else:
            a = m + 1
    return build(a)


# ---------------------------------------------------------------------------------------------------------
# Subject documents


def _scope_title(scope: Scope) -> str:
    label = scope.label
    return label[4:].capitalize() if label.startswith("the ") else label


COMMENTS = (
    "checked against the system export", "estimate pending invoice", "includes one-off correction",
    "confirmed by the site lead", "provisional", "adjusted after the audit", "see notes", "no change",
    "awaiting sign-off", "recalculated with the new method", "carried over from the prior period",
    "reviewed in the monthly meeting",
)  # fmt: skip


def _table_rows(spec: FileSpec, ctx: RoleCtx, rng: random.Random) -> list[tuple[str, str | None]]:
    """Every candidate row (entity, period) in reading order, fixed rows first guaranteed by the caller."""
    assert spec.subject is not None and spec.scope is not None
    entities = ctx.vocab.entities[spec.subject.entity]
    periods: tuple[str | None, ...] = spec.scope.periods if spec.use_period else (None,)
    return [(e, p) for e in entities for p in periods]


def subject_doc(spec: FileSpec, ctx: RoleCtx, rng: random.Random) -> Doc:
    """A source, version or distractor: overview, key figures, a table, decisions, notes."""
    subject, scope = spec.subject, spec.scope
    assert subject is not None and scope is not None
    reserved = ctx.reserved
    writer = Writer(ctx, rng, subject, scope)
    candidates = _table_rows(spec, ctx, rng)
    fixed_rows = {(e, p) for e, p, _ in spec.cells}
    others = [r for r in candidates if r not in fixed_rows]
    rng.shuffle(others)
    values: dict[tuple[str, str | None], list[Any]] = {}
    for row in candidates:
        values[row] = [
            spec.cells.get((row[0], row[1], i), draw(rng, m, reserved)) for i, m in enumerate(subject.metrics)
        ]
    comment = spec.kind == "csv"
    comments = {row: rng.choice(COMMENTS) for row in candidates}
    kpis = [(m.header, spec.kpis.get(i, draw(rng, m, reserved))) for i, m in enumerate(subject.kpis)]
    names = []
    for i, slot in enumerate(subject.names):
        name = spec.names.get(i) or _filler_name(rng, ctx, slot.kind)
        names.append((slot.label[0].upper() + slot.label[1:], name, slot.label))
    paragraphs = [writer.paragraph() for _ in range(14)]
    overview = writer.paragraph(2, 4)
    person = rng.choice(ctx.people)
    updated = datetime.date(2025, 1, 1) + datetime.timedelta(days=rng.randint(90, 330))
    updated -= datetime.timedelta(days=23 * int(spec.params.get("age", "0")))  # older versions, earlier dates

    def build(n: int) -> Doc:
        n_rows = min(len(candidates), len(fixed_rows) + n)
        chosen = fixed_rows | set(others[: n_rows - len(fixed_rows)])
        rows = [r for r in candidates if r in chosen]
        columns = [subject.entity_header] + ([scope.period_header] if spec.use_period else [])
        columns += [m.header for m in subject.metrics] + (["Comment"] if comment else [])
        table_rows = [
            [r[0]] + ([r[1]] if spec.use_period else []) + values[r] + ([comments[r]] if comment else [])
            for r in rows
        ]
        doc = Doc(
            f"{subject.title} — {_scope_title(scope)}"
            + ("" if spec.status == "final" else f" ({spec.status})"),
            meta=[
                ("Organisation", ctx.org),
                ("Prepared by", person),
                ("Status", spec.status),
                ("Last updated", updated.isoformat()),
            ],
        )
        if spec.kind == "csv":
            return doc.add("table", Table(columns, table_rows))
        doc.add("h", "Overview").add("p", overview)
        if kpis:
            doc.add("h", "Key figures").add("kv", kpis)
        doc.add("h", f"Figures by {subject.entity_header.lower()}").add("table", Table(columns, table_rows))
        if names:
            doc.add("h", "Decisions").add("kv", [(label, name) for label, name, _ in names])
            if spec.kind in ("md", "txt"):
                doc.add("p", " ".join(f"The team confirmed {name} as the {low}." for _, name, low in names))
        extra = max(0, n - (len(candidates) - len(fixed_rows)))
        if extra or n <= 1:
            doc.add("h", "Notes")
            for p in paragraphs[: max(1, extra)]:
                doc.add("p", p)
        return doc

    n_max = len(others) + (len(paragraphs) if spec.kind != "csv" else 0)
    return _fit(build, spec, ctx, max(1, n_max))


def notes_doc(spec: FileSpec, ctx: RoleCtx, rng: random.Random) -> Doc:
    """An on-topic commentary (a distractor): prose about a subject and period, no table, no facts."""
    subject, scope = spec.subject, spec.scope
    assert subject is not None and scope is not None
    writer = Writer(ctx, rng, subject, scope)
    paragraphs = [writer.paragraph() for _ in range(12)]
    bullets = writer.bullets(3, 6)
    author = rng.choice(ctx.people)

    def build(n: int) -> Doc:
        doc = Doc(spec.title, meta=[("Author", author), ("Period", scope.label)])
        doc.add("h", "Context").add("p", paragraphs[0])
        doc.add("h", "Observations")
        for p in paragraphs[1 : 1 + n]:
            doc.add("p", p)
        doc.add("h", "Follow-ups").add("ul", bullets)
        return doc

    return _fit(build, spec, ctx, len(paragraphs) - 1)


# ---------------------------------------------------------------------------------------------------------
# Fillers


def _filler_name(rng: random.Random, ctx: RoleCtx, kind: str) -> str:
    """A company or option name for ordinary content: never a reserved one."""
    v = ctx.vocab
    for _ in range(200):
        name = make_name(rng, kind, industry=v.industry, options=v.options)
        if not ctx.reserved.text_clash(name):
            return name
    raise RuntimeError("no free filler name")


def _email(person: str, ctx: RoleCtx) -> str:
    domain = re.sub(r"[^a-z]", "", ctx.org.lower())[:14] + ".example"
    local = re.sub(r"[^a-z.]", "", person.lower().replace(" ", "."))
    return f"{local}@{domain}"


def meeting_doc(spec: FileSpec, ctx: RoleCtx, rng: random.Random) -> Doc:
    writer = Writer(ctx, rng)
    attendees = ", ".join(rng.sample(ctx.people, rng.randint(3, 6)))
    paragraphs = [writer.paragraph() for _ in range(12)]
    agenda = writer.bullets(3, 5)
    actions = [
        f"{rng.choice(ctx.people)}: {writer.sentence()[:-1].lower()} (due {rng.choice(WEEKDAYS)})"
        for _ in range(rng.randint(2, 5))
    ]
    chair = rng.choice(ctx.people)

    def build(n: int) -> Doc:
        doc = Doc(spec.title, meta=[("Attendees", attendees), ("Chair", chair)])
        doc.add("h", "Agenda").add("ul", agenda).add("h", "Discussion")
        for p in paragraphs[:n]:
            doc.add("p", p)
        return doc.add("h", "Action items").add("ul", actions)

    return _fit(build, spec, ctx, len(paragraphs))


POLICY_SECTIONS = (
    "Purpose", "Scope", "Responsibilities", "Procedure", "Exceptions", "Records", "Contacts", "Review",
    "Definitions", "Related documents",
)  # fmt: skip


def policy_doc(spec: FileSpec, ctx: RoleCtx, rng: random.Random) -> Doc:
    writer = Writer(ctx, rng)
    paragraphs = [writer.paragraph(2, 5) for _ in range(len(POLICY_SECTIONS))]
    owner = rng.choice(ctx.people)

    def build(n: int) -> Doc:
        doc = Doc(spec.title, meta=[("Owner", owner), ("Applies to", f"All staff of {ctx.org}")])
        for i, (section, p) in enumerate(zip(POLICY_SECTIONS[:n], paragraphs, strict=False), 1):
            doc.add("h", f"{i}. {section}").add("p", p)
        return doc

    return _fit(build, spec, ctx, len(POLICY_SECTIONS))


def template_doc(spec: FileSpec, ctx: RoleCtx, rng: random.Random) -> Doc:
    writer = Writer(ctx, rng)
    sections = ["Purpose", "Background", "Details", "Decisions needed", "Risks", "Next steps", "Sign-off"]
    hints = [writer.sentence() for _ in sections]
    owner = rng.choice(ctx.people)

    def build(n: int) -> Doc:
        doc = Doc(spec.title, meta=[("Template owner", owner)])
        doc.add("p", "Copy this template and replace the text in square brackets.")
        for section, hint in zip(sections[: n + 2], hints, strict=False):
            doc.add("h", section).add("p", f"[{section}: {hint}]")
        return doc

    return _fit(build, spec, ctx, len(sections) - 2)


def _table_doc(spec: FileSpec, ctx: RoleCtx, columns: list[str], rows: list[list[Any]], intro: str) -> Doc:
    def build(n: int) -> Doc:
        doc = Doc(spec.title, meta=[("Maintained by", ctx.people[len(spec.path) % len(ctx.people)])])
        if spec.kind in ("md", "txt", "json"):
            doc.add("p", intro)
        return doc.add("table", Table(columns, rows[:n]))

    return _fit(build, spec, ctx, len(rows))


def _row_budget(spec: FileSpec, row_chars: int) -> int:
    """Rows worth generating for a table file: enough to reach the top of its target size."""
    return max(4, min(60, spec.target[1] // row_chars + 2))


def contacts_doc(spec: FileSpec, ctx: RoleCtx, rng: random.Random) -> Doc:
    roles = ("Coordinator", "Analyst", "Lead", "Specialist", "Assistant", "Manager", "Engineer", "Officer")
    places = ("Head office", "Remote", "Site office", "Second floor", "Annex", "Warehouse office")
    rows = []
    for _ in range(_row_budget(spec, 60)):
        person = rng.choice(ctx.people)
        rows.append(
            [person, rng.choice(roles), rng.choice(ctx.vocab.teams), _email(person, ctx), rng.choice(places)]
        )
    intro = "Please keep this list up to date; changes go to the office manager."
    return _table_doc(spec, ctx, ["Name", "Role", "Team", "Email", "Location"], rows, intro)


_BUDGET_ITEMS = (
    "Printer paper", "Toner", "Team lunch", "Conference fee", "Laptop stand", "Software seat", "Courier",
    "Taxi", "Hotel", "Train ticket", "Training course", "Books", "Desk chairs", "Headsets", "Coffee beans",
    "Cloud storage", "Flipcharts", "Catering", "Venue hire", "Subscriptions",
)  # fmt: skip
_BUDGET_CATEGORIES = ("Office", "Travel", "Training", "IT", "Events", "Facilities")


def budget_doc(spec: FileSpec, ctx: RoleCtx, rng: random.Random) -> Doc:
    amount = Metric("Amount", "amount", MONEY, 40, 9000)
    rows = []
    for _ in range(_row_budget(spec, 40)):
        budget = draw(rng, amount, ctx.reserved)
        actual = draw(rng, amount, ctx.reserved)
        rows.append(
            [
                rng.choice(_BUDGET_ITEMS),
                rng.choice(_BUDGET_CATEGORIES),
                rng.choice(ctx.people),
                budget,
                actual,
            ]
        )
    intro = "Amounts in local currency, excluding VAT."
    return _table_doc(spec, ctx, ["Item", "Category", "Owner", "Budget", "Actual"], rows, intro)


def tracker_doc(spec: FileSpec, ctx: RoleCtx, rng: random.Random) -> Doc:
    writer = Writer(ctx, rng)
    hours = Metric("Hours", "hours", RATE, 0.5, 12, 1)
    rows = []
    for _ in range(_row_budget(spec, 80)):
        date = f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        item = writer.sentence()[:-1]
        rows.append(
            [date, item[:70], rng.choice(ctx.people), rng.choice(STATUSES), draw(rng, hours, ctx.reserved)]
        )
    intro = "Entries are added by whoever picks up the item."
    return _table_doc(spec, ctx, ["Date", "Item", "Owner", "Status", "Hours"], rows, intro)


def metrics_doc(spec: FileSpec, ctx: RoleCtx, rng: random.Random) -> Doc:
    """A table of the role's entities with a few of its subjects' metrics: an export, a log."""
    subject = rng.choice(ctx.vocab.subjects)
    metrics = rng.sample(subject.metrics, 3)
    entities = ctx.vocab.entities[subject.entity]
    rows = []
    for _ in range(_row_budget(spec, 40)):
        date = f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        rows.append([date, rng.choice(entities)] + [draw(rng, m, ctx.reserved, scale=0.5) for m in metrics])
    intro = "Raw export; figures are not reconciled."
    return _table_doc(spec, ctx, ["Date", subject.entity_header] + [m.header for m in metrics], rows, intro)


def prose_doc(spec: FileSpec, ctx: RoleCtx, rng: random.Random) -> Doc:
    writer = Writer(ctx, rng)
    paragraphs = [writer.paragraph() for _ in range(12)]
    bullets = writer.bullets()
    author = rng.choice(ctx.people)
    headings = [rng.choice(("Notes", "Background", "Points to remember", "Details")) for _ in paragraphs]

    def build(n: int) -> Doc:
        doc = Doc(spec.title, meta=[("Author", author)])
        for i, p in enumerate(paragraphs[:n]):
            if i % 3 == 0:
                doc.add("h", headings[i])
            doc.add("p", p)
        return doc.add("ul", bullets)

    return _fit(build, spec, ctx, len(paragraphs))


def config_doc(spec: FileSpec, ctx: RoleCtx, rng: random.Random) -> Doc:
    settings = [
        ("refresh_minutes", str(rng.choice((5, 10, 15, 30, 60)))),
        ("timezone", rng.choice(("Europe/Berlin", "Europe/London", "UTC", "America/New_York"))),
        ("notify", rng.choice(("email", "chat", "none"))),
        ("owner", rng.choice(ctx.people)),
        ("retention_days", str(rng.choice((7, 14, 30, 90)))),
        ("enabled", rng.choice(("true", "false"))),
    ]
    writer = Writer(ctx, rng)
    rows = [
        [
            f"{rng.choice(ctx.vocab.teams).lower()}_{i}",
            rng.choice(("daily", "weekly", "monthly")),
            writer.sentence(),
        ]
        for i in range(40)
    ]

    def build(n: int) -> Doc:
        doc = Doc(spec.title, meta=[("Format", "settings export")])
        doc.add("kv", settings)
        return doc.add("table", Table(["job", "schedule", "description"], rows[:n]))

    return _fit(build, spec, ctx, len(rows))


def readme_doc(spec: FileSpec, ctx: RoleCtx, rng: random.Random) -> Doc:
    text = (
        f"This folder is a SIMULATED workspace: invented data generated by rtlab.synth (seed {ctx.seed}) for "
        f"{'an' if ctx.vocab.persona[:1].lower() in 'aeiou' else 'a'} {ctx.vocab.persona} at {ctx.org}, an invented organisation. No file here describes a real "
        "organisation, person, product or value; names and numbers were drawn at random for testing "
        "workspace agents and the analyses of rtlab."
    )
    return Doc("README (simulated data)").add("p", text)


BUILDERS = {
    "subject": subject_doc,
    "notes": notes_doc,
    "meeting": meeting_doc,
    "policy": policy_doc,
    "template": template_doc,
    "contacts": contacts_doc,
    "budget": budget_doc,
    "tracker": tracker_doc,
    "metrics": metrics_doc,
    "prose": prose_doc,
    "config": config_doc,
    "readme": readme_doc,
}


def build_doc(spec: FileSpec, ctx: RoleCtx, rng: random.Random) -> Doc:
    """The content of ``spec``'s file."""
    return BUILDERS[spec.builder](spec, ctx, rng)
