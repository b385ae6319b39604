"""The invented vocabulary of the simulated workspaces: roles, organisations, topics, people, prose.

Everything here is made up for :mod:`rtlab.synth.workspaces`. A role has *subjects* (the kinds of data file a
task needs: a table of entities by metrics, a few key figures, a decision naming a company or an option),
*themes* (what a task's deliverable is about and which subjects it draws on), *scopes* (the period or study
a task covers, which file names and folders carry), and prose. No number with three or more significant
digits is written in a template here: every such number in a generated file is drawn so that it cannot be
mistaken for a fact (see :mod:`rtlab.synth._gen_numbers`).
"""

from __future__ import annotations

from dataclasses import dataclass

from rtlab.synth.world import FileKind

MONEY, COUNT, PCT, RATE, SMALL = "money", "count", "pct", "rate", "small"


@dataclass(frozen=True)
class Metric:
    """A column of a subject's table (or one of its key figures)."""

    header: str
    """As written in the file (``Freight cost (EUR)``)."""
    label: str
    """The words a label and a rubric item use (``freight cost``)."""
    kind: str
    lo: float
    hi: float
    decimals: int = 2

    @property
    def fact_ok(self) -> bool:
        """Whether values of this metric can be facts (small counts never are)."""
        return self.kind != SMALL and not (self.kind == COUNT and self.hi < 1500)

    @property
    def summable(self) -> bool:
        return self.kind in (MONEY, COUNT)


@dataclass(frozen=True)
class NameSlot:
    """A decision a file names: ``selected carrier`` -> a company, ``award option`` -> an option."""

    label: str
    kind: str
    """``company``, ``option`` or ``codename``."""


@dataclass(frozen=True)
class Subject:
    """A kind of source file: a table of entities by metrics, key figures, decisions."""

    stem: str
    title: str
    """Holds every word of ``stem`` of four letters or more (the instruction names subjects by title)."""
    folder: str
    entity: str
    """Key of the role's entity list giving the table's rows."""
    entity_header: str
    metrics: tuple[Metric, ...]
    kpis: tuple[Metric, ...] = ()
    names: tuple[NameSlot, ...] = ()
    sentences: tuple[str, ...] = ()


@dataclass(frozen=True)
class Scope:
    """The period or study a task covers: ``q3`` / ``Q3 2025`` / folder ``2025/Q3``."""

    token: str
    label: str
    folder: str
    periods: tuple[str, ...]
    period_header: str = "Month"


@dataclass(frozen=True)
class Theme:
    """What a task's deliverable is: its name stem, its purpose, the subjects it draws on, its sections."""

    deliverable: str
    purpose: str
    subjects: tuple[str, ...]
    sections: tuple[str, ...]


@dataclass(frozen=True)
class FillerType:
    """A family of filler files: name patterns, the kinds it comes in, where it lives, how it reads."""

    names: tuple[str, ...]
    kinds: tuple[FileKind, ...]
    folders: tuple[str, ...]
    builder: str
    """``meeting``, ``policy``, ``template``, ``contacts``, ``budget``, ``tracker``, ``prose``, ``config``,
    ``metrics`` (a table of the role's entities)."""


@dataclass(frozen=True)
class RoleVocab:
    name: str
    persona: str
    orgs: tuple[str, ...]
    currency: str
    prefix: str
    areas: tuple[str, ...]
    entities: dict[str, tuple[str, ...]]
    subjects: tuple[Subject, ...]
    scopes: tuple[Scope, ...]
    themes: tuple[Theme, ...]
    industry: tuple[str, ...]
    options: tuple[str, ...]
    sentences: tuple[str, ...]
    fillers: tuple[FillerType, ...]
    teams: tuple[str, ...]

    def subject(self, stem: str) -> Subject:
        return next(s for s in self.subjects if s.stem == stem)


def _m(header: str, label: str, kind: str, lo: float, hi: float, decimals: int | None = None) -> Metric:
    if decimals is None:
        decimals = {MONEY: 2, COUNT: 0, PCT: 1, RATE: 2, SMALL: 0}[kind]
    return Metric(header, label, kind, lo, hi, decimals)


def _quarters(year_scopes: tuple[tuple[str, str, str, tuple[str, ...]], ...]) -> tuple[Scope, ...]:
    return tuple(Scope(token, label, folder, periods) for token, label, folder, periods in year_scopes)


_Q = {
    "q1": ("January", "February", "March"),
    "q2": ("April", "May", "June"),
    "q3": ("July", "August", "September"),
    "q4": ("October", "November", "December"),
}
_H1 = _Q["q1"] + _Q["q2"]
_H2 = _Q["q3"] + _Q["q4"]
_WEEKS = tuple(f"Week {i}" for i in range(1, 9))
_BATCHES = tuple(f"Batch {i}" for i in range(1, 7))

QUARTER_SCOPES = _quarters(
    (
        ("q1", "Q1 2025", "2025/Q1", _Q["q1"]),
        ("q2", "Q2 2025", "2025/Q2", _Q["q2"]),
        ("q3", "Q3 2025", "2025/Q3", _Q["q3"]),
        ("h1", "H1 2025", "2025/H1", _H1),
        ("q4_2024", "Q4 2024", "2024/Q4", _Q["q4"]),
        ("h2_2024", "H2 2024", "2024/H2", _H2),
    )
)

# ---------------------------------------------------------------------------------------------------------
# People, companies, options: shared pools

FIRST_NAMES = (
    "Jana", "Lukas", "Søren", "Chloé", "Wei", "Aisha", "Mateo", "Priya", "Ingrid", "Tomás", "Yuki", "Elif",
    "Noah", "Amara", "Henrik", "Lucía", "Kofi", "Marta", "Björn", "Zoë", "Rafael", "Anouk", "Dmitri",
    "Saanvi",
    "Oskar", "Leïla", "Jonas", "Mei", "Patrick", "Fatima", "Émile", "Greta", "Ravi", "Hannah", "Kenji",
    "Ayla",
)  # fmt: skip
LAST_NAMES = (
    "Novak", "Müller", "Dahl", "Martin", "Zhang", "Okafor", "García", "Raman", "Halvorsen", "Ó Briain",
    "Tanaka", "Yıldız", "Fischer", "Mensah", "Lindqvist", "Moreau", "Kowalski", "Jensen", "Rossi", "Haddad",
    "van Dijk", "Petrov", "Iyer", "Schröder", "Costa", "Nakamura", "Berg", "Duarte", "Walsh", "Laurent",
)  # fmt: skip
NAME_HEADS = (
    "Nord", "Fjell", "Brück", "Sol", "Kest", "Vant", "Hal", "Mar", "Lys", "Ost", "Grün", "Bel", "Cor", "Dra",
    "Elm", "Fal", "Gar", "Hav", "Ivr", "Jor", "Kal", "Lin", "Mor", "Nev", "Orv", "Pel", "Quar", "Ros", "Sten",
    "Tor", "Ulv", "Var", "Wes", "Yrs", "Zel", "Aur", "Bran", "Cal", "Dun", "Eir",
)  # fmt: skip
NAME_TAILS = (
    "licht", "berg", "haven", "dal", "wick", "mont", "ström", "ford", "gate", "lund", "mark", "vik", "stad",
    "borg", "ridge", "well", "field", "ton", "moor", "ness", "holm", "brook", "crest", "wald",
)  # fmt: skip
LEGAL_FORMS = ("GmbH", "AB", "AS", "BV", "Ltd", "plc", "S.A.", "Oy", "ApS", "Inc.", "LLC", "SARL", "S.r.l.")
CODENAMES = (
    "Kittiwake", "Merlin", "Osprey", "Garnet", "Lapwing", "Cormorant", "Basalt", "Heron", "Skylark", "Opal",
    "Curlew", "Gannet", "Kestrel", "Obsidian", "Plover", "Quartz", "Redshank", "Shearwater", "Tern", "Umber",
    "Wagtail", "Zircon", "Avocet", "Bittern", "Dunlin", "Eider", "Fulmar", "Goshawk", "Jasper", "Nightjar",
)  # fmt: skip
OPTION_LETTERS = ("A", "B", "C", "D", "E")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
MONTHS_FR = ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "septembre", "octobre")
STATUSES = ("open", "in progress", "done", "on hold", "waiting for input", "closed")

GENERAL_SENTENCES = (
    "{person} will circulate the updated figures before {weekday}.",
    "The team agreed to revisit the assumptions at the next review.",
    "Figures are provisional until finance signs off the period close.",
    "Please flag any discrepancies to {person} by the end of the week.",
    "{team} asked for the allocation method to be documented in the shared folder.",
    "No decision was taken on this point; it stays on the open-items list.",
    "The previous version of this document is kept in the archive for reference.",
    "Comments from {person} have been incorporated in this revision.",
    "A follow-up session with {team} is planned for {weekday} afternoon.",
    "The numbers below are taken from the system export of {month}.",
    "Some entries were corrected after the data quality check by {person}.",
    "Where values were missing, the team used the last confirmed figure.",
    "This note summarises the discussion; the detailed workings are in the linked files.",
    "{person} and {person2} will pair on the open questions.",
    "The steering group will be updated at its next meeting in {month}.",
    "Any change to the scope needs sign-off from {person}.",
    "The {team} team reported no blocking issues this period.",
    "It was noted that {n} items are still waiting for an owner.",
    "Travel for the review was kept to a minimum; most attendees joined remotely.",
    "The template was simplified to make monthly updates quicker.",
    "Several colleagues asked for a shorter summary at the top of the report.",
    "Action owners should update their status in the tracker before the next meeting.",
    "The timeline slipped by about {n} days because of holiday absences.",
    "{person} confirmed that the draft can be shared with {team}.",
    "Feedback from the last review round was broadly positive.",
    "We will keep the current reporting format until the end of the year.",
    "The budget owner asked for a clearer split between one-off and recurring items.",
    "A short retrospective is scheduled once the period is closed.",
    "Risks are tracked in the register and reviewed every {weekday}.",
    "Naming of files in the shared folder should follow the agreed convention.",
    "{person} raised a concern about the workload in {month}.",
    "The meeting ran over by {n} minutes; the last agenda item moved to next week.",
    "Colleagues new to the team should start with the onboarding checklist.",
    "Data older than two years is moved to the archive folder.",
    "There was agreement that the process works but needs clearer ownership.",
    "Open points were assigned to {person} and {person2}.",
    "Everyone is reminded to book leave in the HR system at least {n} days ahead.",
    "The document owner is {person}; questions go to the {team} channel.",
)

# ---------------------------------------------------------------------------------------------------------
# Generic fillers (every role)

COMMON_AREAS = ("Admin", "HR", "Meetings", "Templates", "Shared", "Archive")

GUARANTEED_FILLERS: tuple[tuple[str, FileKind, str, str], ...] = (
    ("会议纪要_{year}", "md", "Meetings/{year}", "meeting"),
    ("Übersicht_Lieferanten", "csv", "Admin/Contacts", "contacts"),
    ("Réunion_équipe_{frmonth}", "md", "Meetings/Team", "meeting"),
    ("Søknad_ferie", "txt", "HR/Leave", "prose"),
    ("Prüfliste_Büro", "md", "Admin/Office", "template"),
)
"""Filler files every workspace has (name pattern, kind, folder, builder), so non-ASCII names always occur."""

COMMON_FILLERS = (
    FillerType(
        (
            "meeting_notes_{date}", "weekly_sync_{date}", "team_meeting_{month}_{year}",
            "standup_notes_{date}",
            "1on1_{person}_{date}", "会议纪要_{date}", "Réunion_équipe_{frmonth}", "Protokoll_Teamsitzung_{date}",
            "kickoff_notes_{entity}", "retro_{date}",
        ),
        ("md", "txt"),
        ("Meetings/{year}/{Month}", "Meetings/Team", "Shared/Notes", "Meetings/{year}",
         "Archive/{year}/Meetings"),
        "meeting",
    ),
    FillerType(
        (
            "travel_policy", "expense_policy", "remote_work_policy", "code_of_conduct",
            "data_protection_guidelines",
            "parental_leave_policy", "it_security_policy", "Urlaubsregelung", "whistleblowing_policy",
            "sick_leave_procedure", "training_policy", "Richtlinie_Dienstreisen", "politique_télétravail",
            "员工手册_摘要", "equipment_loan_policy", "overtime_policy", "flexible_hours_policy",
            "bring_your_own_device", "anti_bribery_policy", "health_and_wellbeing",
        ),
        ("md", "txt"),
        ("HR/Policies", "HR/Policies/{year}", "Admin/Guidelines", "HR/Handbook"),
        "policy",
    ),
    FillerType(
        (
            "report_template", "minutes_template", "project_brief_template", "Vorlage_Protokoll",
            "risk_register_template", "handover_template", "status_update_template",
        ),
        ("md", "txt"),
        ("Templates", "Templates/Office", "Shared/Templates"),
        "template",
    ),
    FillerType(
        (
            "expense_claim_template", "timesheet_template", "purchase_request_form", "budget_template",
            "mileage_log_template", "leave_planner_{year}",
        ),
        ("xlsx", "csv"),
        ("Templates", "Templates/Finance", "Shared/Templates"),
        "budget",
    ),
    FillerType(
        (
            "team_contacts", "Übersicht_Lieferanten", "vendor_directory", "emergency_contacts", "desk_plan",
            "phone_list_{team}", "Kontaktliste_{team}", "distribution_list_{team}", "first_aiders",
        ),
        ("csv", "xlsx", "json"),
        ("Admin/Contacts", "Shared", "Admin/Contacts/{year}"),
        "contacts",
    ),
    FillerType(
        (
            "office_supplies_{year}", "training_budget_{year}", "team_events_budget", "software_licences",
            "subscriptions_{year}", "年度预算_草稿", "Økonomi_oversikt_{year}", "travel_spend_{month}",
            "hardware_refresh_{year}", "catering_costs_{month}",
        ),
        ("xlsx", "csv"),
        ("Admin/Budgets/{year}", "Admin/Budgets", "Archive/{year}/Budgets"),
        "budget",
    ),
    FillerType(
        (
            "it_tickets_{month}", "room_bookings_{month}", "visitor_log_{month}", "canteen_menu_{week}",
            "training_attendance_{month}", "parking_permits", "key_register", "onboarding_tracker_{year}",
            "客户反馈汇总", "action_log_{team}", "leave_requests_{month}", "laptop_inventory",
        ),
        ("csv", "xlsx", "json"),
        ("Admin/Logs/{year}", "Shared/Trackers", "Admin/Logs", "Archive/{year}/Logs"),
        "tracker",
    ),
    FillerType(
        (
            "welcome", "onboarding_checklist", "reading_list", "newsletter_{month}", "kudos_board",
            "book_club", "parking_rules", "office_move_faq", "Søknad_ferie", "holiday_calendar_{year}",
            "fire_drill_{date}",
            "wifi_guest_access", "team_charter", "Présentation_résultats", "lessons_learned_{entity}",
            "brainstorm_{entity}", "todo", "notes_{person}", "ideas_backlog", "Café_Bestellung",
        ),
        ("md", "txt"),
        ("Shared", "Shared/Misc", "Archive/{year}", "Personal", "Personal/Notes"),
        "prose",
    ),
    FillerType(
        ("settings", "export_config", "dashboard_config_{team}", "sync_state", "report_schedule",
         "bookmarks"),
        ("json",),
        ("Shared/Config", "Admin/Systems", "Personal/Config"),
        "config",
    ),
)  # fmt: skip

# ---------------------------------------------------------------------------------------------------------
# Operations

_OPS_ENTITIES = {
    "lines": (
        "Bottling Line North", "Canning Line", "Sauce Kitchen", "Packing Hall East", "Labelling Cell",
        "Blending Unit", "Pasteuriser Bay", "Dry Mix Line", "Frozen Line", "Bakery Line West",
        "Palletiser Zone", "Cold Store Pack",
    ),
    "sites": (
        "Harwich Plant", "Leeds Depot", "Corby Hub", "Dundee Works", "Bristol Annex", "Wrexham Site",
        "Ipswich Store", "Hull Yard", "Derby Unit", "Norwich Park",
    ),
    "assets": (
        "Rotary filler", "Tunnel pasteuriser", "Spiral freezer", "Case packer", "Shrink wrapper",
        "Boiler house",
        "Air compressor", "Chiller plant", "Checkweigher", "Labeller", "Conveyor loop", "Forklift fleet",
        "Metal detector", "CIP skid", "Mixer vessel",
    ),
    "shifts": (
        "Early shift", "Late shift", "Night shift", "Weekend crew", "Maintenance team", "Quality lab",
        "Warehouse team", "Hygiene crew", "Engineering cover", "Dispatch team",
    ),
    "categories": (
        "Foreign body", "Labelling error", "Seal failure", "Underweight pack", "Temperature excursion",
        "Allergen control", "Packaging damage", "Date coding", "Contamination risk", "Customer complaint",
    ),
    "projects": (
        "Line automation", "Solar roof", "Cold store upgrade", "Waste heat recovery", "MES rollout",
        "LED retrofit", "Robotic palletiser", "Water recycling", "Warehouse racking", "Boiler replacement",
    ),
    "sku_groups": (
        "Ambient sauces", "Chilled ready meals", "Frozen desserts", "Soups", "Dressings", "Snack pots",
        "Bakery goods", "Beverages", "Private label", "Seasonal packs",
    ),
    "suppliers": (
        "Ashdown Packaging", "Milbrook Foods", "Tern Valley Dairy", "Corrie Glass", "Pennant Spices",
        "Westmoor Cartons", "Glenlea Oils", "Harlow Labels", "Brindle Sugar", "Oakfold Plastics",
    ),
}  # fmt: skip
_OPS_SUBJECTS = (
    Subject(
        "production_output", "Production output by line", "Production/Output", "lines", "Line",
        (
            _m("Units produced", "units produced", COUNT, 12000, 95000),
            _m("Downtime (hours)", "downtime hours", RATE, 10, 180, 1),
            _m("OEE (%)", "OEE", PCT, 55, 92),
            _m("Scrap cost (GBP)", "scrap cost", MONEY, 800, 25000),
        ),
        (_m("Total units produced", "total units produced", COUNT, 150000, 900000),
         _m("Plant OEE", "plant OEE", PCT, 60, 88)),
        (NameSlot("approved changeover option", "option"),),
        ("Output at {entity} was held back by a short stoppage in {period}.",
         "Changeover times improved after the new schedule was introduced."),
    ),
    Subject(
        "maintenance_costs", "Maintenance costs by asset", "Maintenance/Costs", "assets", "Asset",
        (
            _m("Work orders", "work orders", SMALL, 3, 60),
            _m("Labour hours", "labour hours", RATE, 20, 400, 1),
            _m("Parts cost (GBP)", "parts cost", MONEY, 500, 40000),
            _m("MTBF (hours)", "MTBF", RATE, 100, 2000, 1),
        ),
        (_m("Total maintenance spend", "total maintenance spend", MONEY, 60000, 600000),),
        (NameSlot("selected maintenance contractor", "company"),),
        ("Most unplanned work orders on the {entity} were linked to worn seals.",
         "Preventive tasks were rescheduled to reduce weekend call-outs."),
    ),
    Subject(
        "energy_usage", "Energy usage by site", "Facilities/Energy", "sites", "Site",
        (
            _m("Electricity use (kWh)", "electricity use", COUNT, 40000, 900000),
            _m("Gas use (kWh)", "gas use", COUNT, 20000, 600000),
            _m("Energy cost (GBP)", "energy cost", MONEY, 5000, 120000),
            _m("Energy cost per tonne (GBP)", "energy cost per tonne", MONEY, 8, 60),
        ),
        (_m("Total energy cost", "total energy cost", MONEY, 90000, 900000),),
        (NameSlot("chosen energy supplier", "company"),),
        ("Metering at {entity} was replaced mid-period, so the split is estimated.",
         "Heating demand was higher than planned because of a cold spell."),
    ),
    Subject(
        "supplier_scorecard", "Supplier scorecard", "Procurement/Suppliers", "suppliers", "Supplier",
        (
            _m("On-time delivery (%)", "on-time delivery", PCT, 78, 99.5),
            _m("Defects (ppm)", "defects in ppm", COUNT, 150, 4800),
            _m("Spend (GBP)", "spend", MONEY, 9000, 450000),
            _m("Audit score", "audit score", RATE, 55, 98, 1),
        ),
        (_m("Total supplier spend", "total supplier spend", MONEY, 400000, 2900000),),
        (NameSlot("preferred supplier", "company"),),
        ("{entity} missed two delivery slots after a change of haulier.",
         "Quality audits were carried out on site where possible."),
    ),
    Subject(
        "staffing_overtime", "Shift staffing and overtime", "Staffing/Overtime", "shifts", "Team",
        (
            _m("Headcount", "headcount", SMALL, 4, 60),
            _m("Overtime hours", "overtime hours", RATE, 40, 900, 1),
            _m("Labour cost (GBP)", "labour cost", MONEY, 20000, 380000),
            _m("Absence rate (%)", "absence rate", PCT, 1.5, 9.5, 2),
        ),
        (_m("Total overtime cost", "total overtime cost", MONEY, 15000, 190000),),
        (NameSlot("agreed rota option", "option"),),
        ("Overtime on the {entity} peaked during the promotion period.",
         "Agency cover was used for planned leave only."),
    ),
    Subject(
        "quality_incidents", "Quality incidents by category", "Quality/Incidents", "categories", "Category",
        (
            _m("Incidents", "incidents", SMALL, 1, 40),
            _m("Cost of poor quality (GBP)", "cost of poor quality", MONEY, 600, 48000),
            _m("Average resolution time (hours)", "average resolution time", RATE, 4, 96, 1),
            _m("Complaint rate (%)", "complaint rate", PCT, 0.2, 4.8, 2),
        ),
        (_m("Total cost of poor quality", "total cost of poor quality", MONEY, 20000, 240000),),
        (NameSlot("corrective action plan", "option"),),
        ("Root-cause analysis for {entity} incidents is still open.",
         "The lab confirmed that retained samples were within specification."),
    ),
    Subject(
        "inventory_cover", "Inventory and days of cover", "Warehouse/Inventory", "sku_groups", "SKU group",
        (
            _m("Stock value (GBP)", "stock value", MONEY, 15000, 600000),
            _m("Stock units", "stock units", COUNT, 2000, 90000),
            _m("Days of cover", "days of cover", RATE, 4, 60, 1),
            _m("Write-offs (GBP)", "write-offs", MONEY, 200, 18000),
        ),
        (_m("Total stock value", "total stock value", MONEY, 400000, 3500000),),
        (),
        ("Stock of {entity} was built ahead of the seasonal peak.",
         "Short-dated stock was offered to the staff shop first."),
    ),
    Subject(
        "capital_projects", "Capital projects tracker", "Finance/Capex", "projects", "Project",
        (
            _m("Budget (GBP)", "budget", MONEY, 20000, 900000),
            _m("Spent to date (GBP)", "spent to date", MONEY, 5000, 700000),
            _m("Payback (months)", "payback in months", RATE, 6, 60, 1),
            _m("Completion (%)", "completion", PCT, 5, 98),
        ),
        (_m("Total capital budget", "total capital budget", MONEY, 900000, 5000000),),
        (NameSlot("approved project option", "option"), NameSlot("main contractor", "company")),
        ("The {entity} project is waiting for a revised quotation.",
         "Savings are tracked against the original business case."),
    ),
    Subject(
        "safety_statistics", "Safety statistics by site", "HSE/Safety", "sites", "Site",
        (
            _m("Hours worked", "hours worked", COUNT, 20000, 400000),
            _m("Lost-time injury rate", "lost-time injury rate", RATE, 0.2, 4.5, 2),
            _m("Near misses", "near misses", SMALL, 0, 45),
            _m("Training hours", "training hours", RATE, 100, 3000, 1),
        ),
        (_m("Group lost-time rate", "group lost-time rate", RATE, 0.4, 3.9, 2),),
        (NameSlot("appointed safety auditor", "company"),),
        ("Toolbox talks at {entity} focused on manual handling.",
         "All near misses were reviewed at the weekly safety huddle."),
    ),
    Subject(
        "order_fulfilment", "Order fulfilment by product group", "Customers/Fulfilment", "sku_groups",
        "Product group", (
            _m("Orders shipped", "orders shipped", COUNT, 1500, 48000),
            _m("Fill rate (%)", "fill rate", PCT, 88, 99.8),
            _m("Backlog value (GBP)", "backlog value", MONEY, 2000, 150000),
            _m("Late orders", "late orders", SMALL, 0, 90),
        ),
        (_m("Overall fill rate", "overall fill rate", PCT, 90, 99.5, 2),),
        (NameSlot("selected 3PL partner", "company"),),
        ("Late orders for {entity} were mostly caused by missing packaging.",
         "Customer service was briefed on the revised lead times."),
    ),
)  # fmt: skip

OPERATIONS = RoleVocab(
    name="operations",
    persona="Operations Manager",
    orgs=("Harbourline Foods", "Kestrel Provisions", "Brackenridge Preserves"),
    currency="£",
    prefix="ops",
    areas=("Production", "Maintenance", "Facilities", "Procurement", "Staffing", "Quality", "Warehouse",
           "Finance", "HSE", "Customers"),
    entities=_OPS_ENTITIES,
    subjects=_OPS_SUBJECTS,
    scopes=QUARTER_SCOPES,
    themes=(
        Theme("plant_performance_review", "a plant performance review for the site leadership team",
              ("production_output", "maintenance_costs", "quality_incidents", "energy_usage",
               "staffing_overtime", "safety_statistics", "inventory_cover", "order_fulfilment"),
              ("Summary", "Performance by Line", "Risks", "Next Steps")),
        Theme("operations_cost_review", "an operations cost review for the finance business partner",
              ("energy_usage", "maintenance_costs", "staffing_overtime", "capital_projects",
               "supplier_scorecard", "inventory_cover", "quality_incidents", "production_output"),
              ("Summary", "Cost Drivers", "Savings Opportunities", "Risks")),
        Theme("supplier_review", "a supplier and supply review for the procurement committee",
              ("supplier_scorecard", "inventory_cover", "order_fulfilment", "quality_incidents",
               "production_output", "capital_projects", "energy_usage", "maintenance_costs"),
              ("Summary", "Supplier Performance", "Decisions", "Open Questions")),
        Theme("hse_quality_report", "a health, safety and quality report for the board pack",
              ("safety_statistics", "quality_incidents", "staffing_overtime", "maintenance_costs",
               "order_fulfilment", "production_output", "energy_usage", "capital_projects"),
              ("Summary", "Safety", "Quality", "Actions")),
        Theme("capex_update", "a capital investment update for the management meeting",
              ("capital_projects", "energy_usage", "production_output", "maintenance_costs",
               "safety_statistics", "supplier_scorecard", "staffing_overtime", "inventory_cover"),
              ("Summary", "Project Status", "Decisions", "Risks")),
    ),
    industry=("Engineering", "Services", "Facilities", "Packaging", "Energy", "Maintenance"),
    options=("staggered changeover schedule", "supplier audit programme", "four-on four-off rota",
             "single-shift weekend cover", "predictive maintenance pilot", "phased line upgrade",
             "shared hygiene crew", "dedicated allergen line", "centralised spare parts store",
             "extended night shift", "annualised hours model", "combined heat and power retrofit",
             "outsourced sanitation", "second-source packaging"),
    sentences=(
        "The {entity} ran below plan for part of {period} because of staffing gaps.",
        "Engineering completed the planned shutdown work on schedule.",
        "Hygiene audits found no critical non-conformities this period.",
        "The night shift trial will continue until the end of the quarter.",
        "{person} is coordinating the spare parts review with the stores team.",
        "Customer complaints were reviewed at the weekly quality meeting.",
        "The site continues to track energy use per tonne as its headline measure.",
    ),
    fillers=(
        FillerType(("shift_handover_{date}", "line_changeover_sop_{entity}", "gmp_audit_checklist",
                    "Qualitätsbericht_Entwurf", "hygiene_schedule_{week}", "kaizen_ideas",
                    "visitor_induction", "allergen_matrix_notes", "toolbox_talk_{date}"),
                   ("md", "txt"), ("Production/Shift Notes", "Quality/Procedures", "HSE/Toolbox",
                                   "Production/SOPs"),
                   "prose"),
        FillerType(("spare_parts_list_{entity}", "downtime_log_{week}", "cleaning_log_{month}",
                    "temperature_checks_{week}", "pallet_count_{date}"),
                   ("csv", "xlsx"), ("Maintenance/Logs", "Production/Logs/{year}", "Warehouse/Counts"),
                   "metrics"),
    ),
    teams=("Production", "Engineering", "Quality", "Warehouse", "Finance", "HR", "Planning"),
)  # fmt: skip

# ---------------------------------------------------------------------------------------------------------
# Logistics

_LOG_ENTITIES = {
    "routes": (
        "Route North", "Route South", "Baltic Corridor", "Rhine Shuttle", "Alpine Link", "Iberia Express",
        "Nordic Loop", "Danube Line", "Atlantic Feeder", "Channel Bridge", "Benelux Run", "Po Valley Run",
        "Vistula Line", "Elbe Shuttle",
    ),
    "warehouses": (
        "DC Hamburg-Billbrook", "DC Duisburg", "DC Poznań", "DC Malmö", "DC Venlo", "DC Lyon-Saint-Priest",
        "DC Brno", "DC Aarhus", "DC Graz", "DC Gdańsk",
    ),
    "carriers": (
        "Kranich Spedition", "Bolt Freight Lines", "Meridian Haulage", "Vistra Cargo", "Polar Road",
        "Transalpina", "Iberlog", "Dunmore Transport", "Weserland Trucking", "Oder Express",
    ),
    "ports": (
        "Port of Hamburg", "Port of Rotterdam", "Port of Antwerp", "Port of Gdańsk", "Port of Gothenburg",
        "Port of Le Havre", "Port of Bremerhaven", "Port of Koper", "Port of Valencia", "Port of Felixstowe",
    ),
    "vehicles": (
        "Tractor units", "Reefer trailers", "Swap bodies", "Urban vans", "LNG tractors", "Electric vans",
        "Curtainsiders", "Flatbeds", "Tank trailers", "Mega trailers",
    ),
    "product_groups": (
        "Consumer electronics", "Garden furniture", "Chilled dairy", "Pharma cold chain", "Spare parts",
        "Apparel", "Household goods", "Beverages", "Pet food", "DIY tools",
    ),
    "regions": (
        "Nordics", "DACH", "Benelux", "Iberia", "Baltics", "Central Europe", "France", "Italy",
        "UK and Ireland", "Balkans",
    ),
}  # fmt: skip
_LOG_SUBJECTS = (
    Subject(
        "freight_costs", "Freight costs by route", "Transport/Freight", "routes", "Route",
        (
            _m("Shipments", "shipments", COUNT, 800, 9000),
            _m("Freight cost (EUR)", "freight cost", MONEY, 8000, 95000),
            _m("Cost per pallet (EUR)", "cost per pallet", MONEY, 18, 95),
            _m("On-time rate (%)", "on-time rate", PCT, 82, 99.5),
        ),
        (_m("Total freight spend", "total freight spend", MONEY, 150000, 900000),
         _m("Average transit time (days)", "average transit time in days", RATE, 1.5, 6.5)),
        (NameSlot("selected carrier", "company"),),
        ("Fuel surcharges on the {entity} were renegotiated in {period}.",
         "Spot-market loads were used only when contract capacity ran out."),
    ),
    Subject(
        "carrier_scorecard", "Carrier scorecard", "Carriers/Scorecards", "carriers", "Carrier",
        (
            _m("Loads handled", "loads handled", COUNT, 400, 6000),
            _m("On-time delivery (%)", "on-time delivery", PCT, 80, 99.5),
            _m("Damage claims (EUR)", "damage claims", MONEY, 500, 30000),
            _m("Tender acceptance (%)", "tender acceptance", PCT, 60, 99),
        ),
        (_m("Weighted carrier score", "weighted carrier score", RATE, 60, 98, 1),),
        (NameSlot("preferred carrier", "company"),),
        ("{entity} rejected several tenders during the peak weeks.",
         "Scores are weighted 50/30/20 for service, cost and claims."),
    ),
    Subject(
        "warehouse_utilisation", "Warehouse utilisation", "Warehousing/Utilisation", "warehouses",
        "Warehouse", (
            _m("Pallet positions", "pallet positions", COUNT, 2000, 40000),
            _m("Utilisation (%)", "utilisation", PCT, 55, 98),
            _m("Picks per hour", "picks per hour", RATE, 60, 240, 1),
            _m("Storage cost (EUR)", "storage cost", MONEY, 20000, 250000),
        ),
        (_m("Network utilisation", "network utilisation", PCT, 60, 95, 2),),
        (NameSlot("chosen capacity option", "option"),),
        ("{entity} ran above target occupancy for most of {period}.",
         "Overflow stock was moved to a bonded partner site."),
    ),
    Subject(
        "customs_clearance", "Customs clearance times", "Customs/Clearance", "ports", "Port",
        (
            _m("Declarations", "declarations", COUNT, 1000, 20000),
            _m("Average clearance time (hours)", "average clearance time", RATE, 3, 48),
            _m("Duties paid (EUR)", "duties paid", MONEY, 50000, 900000),
            _m("Inspection rate (%)", "inspection rate", PCT, 1.5, 12, 2),
        ),
        (_m("Total duties paid", "total duties paid", MONEY, 900000, 6000000),),
        (NameSlot("appointed customs broker", "company"),),
        ("Physical inspections at {entity} rose after the new risk profile.",
         "Pre-lodged declarations shortened the average dwell time."),
    ),
    Subject(
        "fleet_fuel", "Fleet fuel consumption", "Fleet/Fuel", "vehicles", "Vehicle group",
        (
            _m("Kilometres driven", "kilometres driven", COUNT, 50000, 900000),
            _m("Fuel used (litres)", "fuel used", COUNT, 10000, 300000),
            _m("Fuel cost (EUR)", "fuel cost", MONEY, 12000, 400000),
            _m("Consumption (l/100 km)", "consumption per 100 km", RATE, 9, 38),
        ),
        (_m("Fleet CO2 emissions (tonnes)", "fleet CO2 emissions", RATE, 200, 4000, 1),),
        (NameSlot("fuel card provider", "company"),),
        ("Eco-driving training for the {entity} drivers started in {period}.",
         "Idle time was reduced after telematics alerts were switched on."),
    ),
    Subject(
        "returns_processing", "Returns processing", "Returns/Processing", "product_groups", "Product group",
        (
            _m("Returns received", "returns received", COUNT, 1000, 25000),
            _m("Return rate (%)", "return rate", PCT, 1.2, 18, 2),
            _m("Refurbishment cost (EUR)", "refurbishment cost", MONEY, 3000, 180000),
            _m("Processing time (days)", "processing time in days", RATE, 1.2, 9),
        ),
        (_m("Total refurbishment cost", "total refurbishment cost", MONEY, 100000, 900000),),
        (NameSlot("returns policy option", "option"),),
        ("Returns of {entity} were graded within two working days.",
         "Items that could not be refurbished were sent to recycling."),
    ),
    Subject(
        "delivery_performance", "Delivery performance by region", "Distribution/Performance", "regions",
        "Region", (
            _m("Deliveries", "deliveries", COUNT, 5000, 90000),
            _m("First-attempt success (%)", "first-attempt success", PCT, 80, 98.5),
            _m("Late deliveries", "late deliveries", COUNT, 100, 3000),
            _m("Cost per drop (EUR)", "cost per drop", MONEY, 4, 30),
        ),
        (_m("Network on-time rate", "network on-time rate", PCT, 85, 98, 2),),
        (NameSlot("last-mile partner", "company"),),
        ("Failed first attempts in {entity} were mostly due to missing access codes.",
         "Evening delivery slots were piloted in two cities."),
    ),
    Subject(
        "packaging_costs", "Packaging materials costs", "Procurement/Packaging", "product_groups",
        "Product group", (
            _m("Units packed", "units packed", COUNT, 5000, 300000),
            _m("Packaging material cost (EUR)", "packaging material cost", MONEY, 2000, 120000),
            _m("Packaging cost per unit (EUR)", "packaging cost per unit", MONEY, 1.05, 4.5),
            _m("Recycled share (%)", "recycled share", PCT, 20, 95),
        ),
        (_m("Total packaging spend", "total packaging spend", MONEY, 150000, 900000),),
        (NameSlot("packaging supplier", "company"),),
        ("Void fill for {entity} was switched to paper in {period}.",
         "Carton sizes were rationalised from eleven to seven."),
    ),
    Subject(
        "inbound_receipts", "Inbound receipts and dock times", "Warehousing/Inbound", "warehouses",
        "Warehouse", (
            _m("Trucks received", "trucks received", COUNT, 1000, 12000),
            _m("Dock-to-stock time (hours)", "dock-to-stock time", RATE, 2, 40),
            _m("Receiving errors", "receiving errors", SMALL, 0, 80),
            _m("Unloading cost (EUR)", "unloading cost", MONEY, 4000, 160000),
        ),
        (_m("Average dock-to-stock time", "average dock-to-stock time", RATE, 4, 30),),
        (NameSlot("dock scheduling option", "option"),),
        ("Booking compliance at {entity} improved after slot reminders were added.",
         "Unplanned arrivals were unloaded in the afternoon window."),
    ),
    Subject(
        "transport_tender", "Transport tender evaluation", "Procurement/Tenders", "routes", "Lane",
        (
            _m("Bid price (EUR)", "bid price", MONEY, 20000, 400000),
            _m("Volume (loads)", "volume in loads", COUNT, 1000, 12000),
            _m("Tender score (points)", "tender score", RATE, 40, 99, 1),
            _m("Savings vs baseline (%)", "savings vs baseline", PCT, 2, 25),
        ),
        (_m("Total tendered value", "total tendered value", MONEY, 900000, 6000000),),
        (NameSlot("tender winner", "company"), NameSlot("award option", "option")),
        ("Bids for the {entity} lane were close, so service scores decided.",
         "Incumbent carriers were invited to a second round."),
    ),
)  # fmt: skip

LOGISTICS = RoleVocab(
    name="logistics",
    persona="Logistics Manager",
    orgs=("Nordwind Distribution", "Baltic Crane Logistics", "Fjordline Cargo"),
    currency="€",
    prefix="log",
    areas=("Transport", "Carriers", "Warehousing", "Customs", "Fleet", "Returns", "Distribution",
           "Procurement"),
    entities=_LOG_ENTITIES,
    subjects=_LOG_SUBJECTS,
    scopes=QUARTER_SCOPES,
    themes=(
        Theme("freight_review", "a freight review for the quarterly business review",
              ("freight_costs", "carrier_scorecard", "transport_tender", "fleet_fuel", "delivery_performance",
               "customs_clearance", "packaging_costs", "returns_processing"),
              ("Summary", "Cost Drivers", "Risks", "Recommendations")),
        Theme("warehouse_review", "a warehouse network review for the operations director",
              ("warehouse_utilisation", "inbound_receipts", "returns_processing", "packaging_costs",
               "delivery_performance", "freight_costs", "customs_clearance", "fleet_fuel"),
              ("Summary", "Capacity", "Service Levels", "Next Steps")),
        Theme("carrier_review", "a carrier performance review ahead of contract renewals",
              ("carrier_scorecard", "transport_tender", "freight_costs", "delivery_performance",
               "customs_clearance", "fleet_fuel", "inbound_receipts", "returns_processing"),
              ("Summary", "Carrier Performance", "Decisions", "Risks")),
        Theme("network_cost_report", "a logistics network cost report for the finance team",
              ("fleet_fuel", "customs_clearance", "packaging_costs", "warehouse_utilisation", "freight_costs",
               "inbound_receipts", "transport_tender", "carrier_scorecard"),
              ("Summary", "Cost Breakdown", "Savings", "Open Questions")),
        Theme("service_level_report", "a customer service level report for the account managers",
              ("delivery_performance", "returns_processing", "inbound_receipts", "carrier_scorecard",
               "warehouse_utilisation", "freight_costs", "fleet_fuel", "packaging_costs"),
              ("Summary", "Delivery Performance", "Returns", "Actions")),
    ),
    industry=("Logistik", "Freight", "Transport", "Cargo", "Spedition", "Haulage"),
    options=("regional hub consolidation", "cross-dock pilot", "dual-carrier split", "night-time slotting",
             "bonded overflow store", "returns pre-grading", "two-tier tender award", "dedicated fleet lease",
             "milk-run consolidation", "vendor-managed replenishment", "flexible dock windows",
             "nearshore returns centre", "seasonal overflow lease", "single-carrier lane award"),
    sentences=(
        "Transit times on the {entity} stayed within the agreed service window.",
        "The transport planning team rebalanced loads after the strike days.",
        "Peak season capacity was secured with two additional carriers.",
        "{person} is reviewing the accessorial charges billed in {period}.",
        "Cross-docking volumes grew as more suppliers shipped full pallets.",
        "Customs brokers flagged a change in the documentation rules.",
        "Yard congestion eased once booking slots were enforced.",
    ),
    fillers=(
        FillerType(("pallet_labelling_guide", "forklift_training_{person}", "incoterms_cheatsheet",
                    "hazmat_checklist", "Straßenplan_Lager", "yard_map_notes", "driver_briefing_{date}",
                    "dock_safety_rules"),
                   ("md", "txt"), ("Warehousing/Guides", "Fleet/Drivers", "Transport/Guides",
                                   "Shared/Guides"),
                   "prose"),
        FillerType(("dock_schedule_{week}", "driver_rota_{week}", "seal_register_{month}",
                    "trailer_checks_{week}", "pallet_exchange_{month}"),
                   ("csv", "xlsx"), ("Warehousing/Schedules", "Fleet/Rota", "Transport/Logs/{year}"),
                   "metrics"),
    ),
    teams=("Transport", "Warehouse", "Customs", "Fleet", "Customer Service", "Finance", "Planning"),
)  # fmt: skip

# ---------------------------------------------------------------------------------------------------------
# Research

_RES_ENTITIES = {
    "materials": (
        "Borosilicate glass", "Alumina ceramic", "Zirconia coating", "Graphene oxide film", "PEEK composite",
        "Silicon carbide", "Basalt fibre", "Magnesium alloy", "Bioglass scaffold", "Copper foam",
        "Perovskite film", "Titanium mesh",
    ),
    "budget_lines": (
        "Personnel", "Consumables", "Equipment", "Travel", "Publication fees", "Subcontracting", "Computing",
        "Workshops", "Overheads", "Sample shipping",
    ),
    "instruments": (
        "SEM", "XRD diffractometer", "Raman spectrometer", "TGA analyser", "Tensile tester",
        "Confocal microscope", "DSC calorimeter", "Nanoindenter", "FTIR spectrometer", "Autoclave",
    ),
    "groups": (
        "Undergraduates", "Doctoral researchers", "Postdocs", "Lab technicians", "Group leaders",
        "Industry partners", "Visiting scholars", "Administrative staff",
    ),
    "runs": (
        "Fine mesh", "Coarse mesh", "Thermal load case", "Cyclic load case", "Baseline geometry",
        "Porous geometry", "Coupled flow model", "Reduced order model", "Sensitivity sweep",
        "Validation case",
    ),
    "themes": (
        "Corrosion", "Thin films", "Biomaterials", "Additive manufacturing", "Glass science", "Tribology",
        "Catalysis", "Energy storage", "Polymers", "Ceramics",
    ),
    "sites": (
        "Site Tromsø", "Site Bergen", "Site Lyon", "Site Graz", "Site Turku", "Site Delft", "Site Aveiro",
        "Site Kraków", "Site Bilbao", "Site Lund",
    ),
    "partners": (
        "University of Vestmark", "Aldmoor Polytechnic", "Kessin Materials Lab", "Rivenhall College",
        "Ostrava Surface Centre", "Lagoa Research Institute", "Tarn Valley University", "Fenwick Institute",
    ),
}  # fmt: skip
_RES_SCOPES = (
    Scope("cohort_a", "Cohort A", "Studies/Cohort_A", _BATCHES, "Batch"),
    Scope("cohort_b", "Cohort B", "Studies/Cohort_B", _BATCHES, "Batch"),
    Scope("pilot", "the pilot study", "Studies/Pilot", _BATCHES, "Batch"),
    Scope("phase2", "Phase 2", "Studies/Phase_2", _BATCHES, "Batch"),
    Scope("baseline", "the baseline campaign", "Campaigns/Baseline", _WEEKS, "Week"),
    Scope("winter", "the winter campaign", "Campaigns/Winter", _WEEKS, "Week"),
)
_RES_SUBJECTS = (
    Subject(
        "experiment_results", "Experiment results by material", "Lab/Experiments", "materials", "Material",
        (
            _m("Tensile strength (MPa)", "tensile strength", RATE, 120, 1400, 1),
            _m("Elongation (%)", "elongation", PCT, 1.2, 45, 2),
            _m("Density (kg/m³)", "density", RATE, 1200, 8900, 1),
            _m("Hardness (HV)", "hardness", RATE, 80, 900, 1),
        ),
        (_m("Mean tensile strength", "mean tensile strength", RATE, 300, 900, 2),),
        (NameSlot("lead formulation", "codename"),),
        ("Specimens of {entity} were conditioned for two days before testing.",
         "Outliers were kept in the table but flagged in the notes."),
    ),
    Subject(
        "grant_budget", "Grant budget by cost line", "Admin/Grants", "budget_lines", "Cost line",
        (
            _m("Budget (EUR)", "budget", MONEY, 5000, 400000),
            _m("Spent (EUR)", "spent", MONEY, 2000, 300000),
            _m("Committed (EUR)", "committed", MONEY, 1000, 90000),
            _m("Burn rate (%)", "burn rate", PCT, 10, 98),
        ),
        (_m("Total grant award", "total grant award", MONEY, 900000, 4000000),),
        (NameSlot("approved budget option", "option"),),
        ("The {entity} line was re-profiled after the mid-term review.",
         "Unspent funds can be carried over with the funder's agreement."),
    ),
    Subject(
        "instrument_usage", "Instrument usage and booking hours", "Lab/Instruments", "instruments",
        "Instrument", (
            _m("Booked hours", "booked hours", RATE, 20, 600, 1),
            _m("Utilisation (%)", "utilisation", PCT, 15, 95),
            _m("Maintenance cost (EUR)", "maintenance cost", MONEY, 400, 35000),
            _m("Samples run", "samples run", COUNT, 100, 6000),
        ),
        (_m("Total booked hours", "total booked hours", RATE, 900, 5000, 1),),
        (NameSlot("selected service provider", "company"),),
        ("The {entity} was out of service for a detector replacement.",
         "External users are charged at the published hourly rate."),
    ),
    Subject(
        "survey_responses", "Survey responses by group", "Surveys/Responses", "groups", "Group",
        (
            _m("People invited", "people invited", COUNT, 200, 5000),
            _m("Response rate (%)", "response rate", PCT, 12, 88),
            _m("Mean satisfaction score", "mean satisfaction score", RATE, 2.5, 4.9),
            _m("Completion time (minutes)", "completion time in minutes", RATE, 8, 45, 1),
        ),
        (_m("Overall response rate", "overall response rate", PCT, 20, 75, 2),),
        (NameSlot("recommended follow-up design", "option"),),
        ("Reminders to {entity} were sent after one week.",
         "Free-text answers were coded by two researchers independently."),
    ),
    Subject(
        "simulation_runs", "Simulation runs", "Computing/Simulations", "runs", "Run",
        (
            _m("Runtime (core-hours)", "runtime in core-hours", RATE, 100, 9000, 1),
            _m("Peak memory (GB)", "peak memory", RATE, 8, 900, 1),
            _m("Maximum error (%)", "maximum error", PCT, 1.1, 9.5, 2),
            _m("Compute cost (EUR)", "compute cost", MONEY, 40, 4000),
        ),
        (_m("Total compute cost", "total compute cost", MONEY, 2000, 40000),),
        (NameSlot("chosen solver configuration", "codename"),),
        ("The {entity} run was restarted from a checkpoint after a node failure.",
         "Mesh convergence was checked against the reference solution."),
    ),
    Subject(
        "sample_inventory", "Sample inventory", "Lab/Samples", "materials", "Material",
        (
            _m("Stock (grams)", "stock in grams", RATE, 100, 5000, 1),
            _m("Unit cost per gram (EUR)", "unit cost per gram", MONEY, 1.2, 90),
            _m("Reorder level (g)", "reorder level", RATE, 50, 900, 1),
            _m("Shelf life (days)", "shelf life", SMALL, 30, 99),
        ),
        (_m("Total inventory value", "total inventory value", MONEY, 20000, 400000),),
        (NameSlot("preferred chemicals supplier", "company"),),
        ("Stock of {entity} is kept in the dry cabinet in room B.",
         "Expired samples are logged before disposal."),
    ),
    Subject(
        "publication_metrics", "Publication and citation metrics", "Outputs/Publications", "themes",
        "Research theme", (
            _m("Papers", "papers", SMALL, 1, 30),
            _m("Citations", "citations", COUNT, 1000, 20000),
            _m("Open-access share (%)", "open-access share", PCT, 40, 99),
            _m("APC spend (EUR)", "APC spend", MONEY, 2000, 60000),
        ),
        (_m("Total citations", "total citations", COUNT, 9000, 90000),),
        (NameSlot("target journal strategy", "option"),),
        ("Work on {entity} was presented at two international conferences.",
         "Preprints are posted before journal submission."),
    ),
    Subject(
        "field_measurements", "Field measurements by site", "Fieldwork/Measurements", "sites", "Site",
        (
            _m("Mean temperature (°C)", "mean temperature", RATE, 4, 29),
            _m("Humidity (%)", "humidity", PCT, 35, 95),
            _m("Corrosion rate (µm/yr)", "corrosion rate", RATE, 1, 95),
            _m("Readings logged", "readings logged", COUNT, 1000, 60000),
        ),
        (_m("Network mean corrosion rate", "network mean corrosion rate", RATE, 10, 60),),
        (NameSlot("selected logger vendor", "company"),),
        ("The logger at {entity} lost power for three days.",
         "Readings were cleaned with the agreed outlier filter."),
    ),
    Subject(
        "collaboration_costs", "Collaboration and travel costs", "Admin/Travel", "partners", "Partner",
        (
            _m("Travel cost (EUR)", "travel cost", MONEY, 900, 40000),
            _m("Days on site", "days on site", SMALL, 2, 60),
            _m("Per diem (EUR)", "per diem", MONEY, 300, 12000),
            _m("Share of budget (%)", "share of budget", PCT, 2, 40),
        ),
        (_m("Total collaboration cost", "total collaboration cost", MONEY, 20000, 150000),),
        (NameSlot("host partner for the secondment", "option"),),
        ("The exchange with {entity} was extended by one week.",
         "Economy travel was booked through the institute's agency."),
    ),
    Subject(
        "equipment_quotes", "Equipment purchase quotes", "Procurement/Equipment", "instruments", "Instrument",
        (
            _m("Quoted price (EUR)", "quoted price", MONEY, 8000, 600000),
            _m("Delivery (weeks)", "delivery in weeks", SMALL, 2, 40),
            _m("Service contract cost (EUR/yr)", "service contract cost", MONEY, 900, 60000),
            _m("Evaluation score", "evaluation score", RATE, 40, 99, 1),
        ),
        (_m("Total capital request", "total capital request", MONEY, 300000, 2000000),),
        (NameSlot("selected vendor", "company"),),
        ("The {entity} quote includes installation and training.",
         "Two vendors offered an extended warranty at no cost."),
    ),
)  # fmt: skip

RESEARCH = RoleVocab(
    name="research",
    persona="Researcher",
    orgs=("Halden Institute for Applied Materials", "Marrow Lake Research Centre", "Institut Lumière-Verre"),
    currency="€",
    prefix="res",
    areas=("Lab", "Studies", "Surveys", "Computing", "Outputs", "Fieldwork", "Procurement", "Campaigns"),
    entities=_RES_ENTITIES,
    subjects=_RES_SUBJECTS,
    scopes=_RES_SCOPES,
    themes=(
        Theme("progress_report", "a progress report for the funder's mid-term review",
              ("grant_budget", "experiment_results", "publication_metrics", "collaboration_costs",
               "instrument_usage", "simulation_runs", "sample_inventory", "equipment_quotes"),
              ("Summary", "Results", "Budget", "Next Steps")),
        Theme("lab_review", "a laboratory resources review for the head of department",
              ("instrument_usage", "sample_inventory", "equipment_quotes", "experiment_results",
               "grant_budget", "simulation_runs", "field_measurements", "collaboration_costs"),
              ("Summary", "Instruments", "Consumables", "Decisions")),
        Theme("survey_analysis", "a survey and study analysis for the research group meeting",
              ("survey_responses", "field_measurements", "experiment_results", "publication_metrics",
               "simulation_runs", "collaboration_costs", "grant_budget", "instrument_usage"),
              ("Summary", "Method", "Findings", "Limitations")),
        Theme("annual_research_summary", "an annual research summary for the institute's board",
              ("publication_metrics", "grant_budget", "simulation_runs", "field_measurements",
               "experiment_results", "collaboration_costs", "equipment_quotes", "survey_responses"),
              ("Summary", "Highlights", "Resources", "Outlook")),
        Theme("procurement_case", "a procurement case for new laboratory equipment",
              ("equipment_quotes", "instrument_usage", "grant_budget", "sample_inventory",
               "experiment_results", "simulation_runs", "field_measurements", "publication_metrics"),
              ("Summary", "Options", "Recommendation", "Risks")),
    ),
    industry=("Instruments", "Scientific", "Analytics", "Laboratories", "Labware", "Sensors"),
    options=("two-arm follow-up survey", "phased equipment purchase", "shared-facility booking model",
             "open-access first publication plan", "extended secondment at the partner lab",
             "re-profiled personnel budget", "stratified resampling design",
             "joint procurement with partners",
             "staggered sample shipping", "hybrid field campaign", "mixed-methods follow-up",
             "targeted journal pipeline", "pooled consumables budget", "remote instrument access"),
    sentences=(
        "Samples from {entity} were prepared following the revised protocol.",
        "The group meeting discussed the draft figures for the next paper.",
        "Calibration of the instruments was repeated after the firmware update.",
        "{person} is preparing the ethics amendment for the follow-up study.",
        "Raw data are stored on the institute server with nightly backups.",
        "The analysis scripts were reviewed by a second researcher.",
        "Results for {period} are preliminary and may change after validation.",
    ),
    fillers=(
        FillerType(("protocol_{entity}", "reading_notes_{person}", "lab_safety_rules", "Förderantrag_Notizen",
                    "conference_abstract_draft", "reviewer_comments_{n}", "data_management_plan",
                    "lab_meeting_{date}", "ethics_checklist"),
                   ("md", "txt"), ("Lab/Protocols", "Outputs/Drafts", "Admin/Ethics", "Lab/Meetings/{year}"),
                   "prose"),
        FillerType(("calibration_log_{month}", "freezer_temperatures_{week}", "booking_export_{month}",
                    "consumables_order_{date}", "sample_labels_{entity}"),
                   ("csv", "xlsx"), ("Lab/Logs", "Lab/Instruments/Logs", "Procurement/Orders/{year}"),
                   "metrics"),
    ),
    teams=("Materials", "Surfaces", "Modelling", "Field Team", "Admin", "Workshop", "Data"),
)  # fmt: skip

# ---------------------------------------------------------------------------------------------------------
# Backend

_BE_ENTITIES = {
    "services": (
        "checkout-api", "auth-service", "search-indexer", "billing-worker", "notification-hub", "catalog-api",
        "order-service", "payments-gateway", "inventory-sync", "user-profile", "media-resizer", "audit-log",
    ),
    "cost_centres": (
        "Compute", "Managed Postgres", "Object storage", "CDN egress", "Kubernetes control plane", "Logging",
        "Monitoring", "NAT gateway", "Backups", "Message queues",
    ),
    "tables": (
        "orders", "order_items", "users", "sessions", "payments", "invoices", "audit_events", "products",
        "carts", "webhooks",
    ),
    "endpoints": (
        "POST /orders", "GET /catalog/items", "POST /auth/token", "GET /users/me", "PUT /cart",
        "POST /payments", "GET /search", "DELETE /sessions", "GET /invoices", "POST /webhooks",
    ),
    "scenarios": (
        "Checkout burst", "Search soak", "Login storm", "Catalog browse", "Payment retry", "Bulk import",
        "Cart churn", "Webhook fan-out",
    ),
    "queues": (
        "email-outbound", "payment-events", "search-updates", "image-jobs", "audit-stream", "invoice-render",
        "webhook-retry", "stock-sync",
    ),
    "packages": (
        "fastjson", "pgbouncer", "redis-client", "grpc-core", "jwt-lib", "orm-core", "http-client",
        "yaml-parser", "metrics-sdk", "log-shipper",
    ),
    "buckets": (
        "media-originals", "media-thumbs", "backups-daily", "logs-archive", "exports", "invoices-pdf",
        "ml-features", "static-assets",
    ),
}  # fmt: skip
_BE_SCOPES = (
    Scope("march", "March 2025", "2025/March", _WEEKS[:4], "Week"),
    Scope("april", "April 2025", "2025/April", _WEEKS[:4], "Week"),
    Scope("may", "May 2025", "2025/May", _WEEKS[:4], "Week"),
    Scope("june", "June 2025", "2025/June", _WEEKS[:4], "Week"),
    Scope("q4_2024", "Q4 2024", "2024/Q4", _Q["q4"]),
    Scope("jan", "January 2025", "2025/January", _WEEKS[:4], "Week"),
)
_BE_SUBJECTS = (
    Subject(
        "service_latency", "Service latency and error rates", "Monitoring/Latency", "services", "Service",
        (
            _m("Requests", "requests", COUNT, 100000, 9000000),
            _m("p50 latency (ms)", "p50 latency", RATE, 8, 120, 1),
            _m("p95 latency (ms)", "p95 latency", RATE, 40, 900, 1),
            _m("Error rate (%)", "error rate", PCT, 1.05, 4.9, 2),
        ),
        (_m("Error budget used (%)", "error budget used", PCT, 12, 95),),
        (NameSlot("chosen mitigation option", "option"),),
        ("Latency on {entity} rose during the database failover.",
         "Error budgets were reviewed in the reliability sync."),
    ),
    Subject(
        "cloud_costs", "Cloud costs by cost centre", "Finance/Cloud", "cost_centres", "Cost centre",
        (
            _m("Monthly cost (USD)", "monthly cost", MONEY, 800, 90000),
            _m("Change vs prior (%)", "change vs prior", PCT, 1.5, 35),
            _m("Reserved coverage (%)", "reserved coverage", PCT, 10, 90),
            _m("Forecast (USD)", "forecast", MONEY, 800, 95000),
        ),
        (_m("Total cloud spend", "total cloud spend", MONEY, 90000, 600000),),
        (NameSlot("committed-use plan", "option"),),
        ("Spend on {entity} grew with the new region rollout.",
         "Idle development clusters are now stopped overnight."),
    ),
    Subject(
        "database_capacity", "Database capacity", "Infrastructure/Databases", "tables", "Table",
        (
            _m("Rows", "rows", COUNT, 100000, 90000000),
            _m("Table size (GB)", "table size", RATE, 1.5, 900),
            _m("Growth per month (%)", "growth per month", PCT, 1.2, 25, 2),
            _m("Index size (GB)", "index size", RATE, 1.1, 300),
        ),
        (_m("Total database size (GB)", "total database size", RATE, 900, 4000, 1),),
        (NameSlot("chosen sharding option", "option"),),
        ("The {entity} table needs a new partition before the end of {period}.",
         "Vacuum settings were tuned after the bloat report."),
    ),
    Subject(
        "api_usage", "API usage by endpoint", "Monitoring/API", "endpoints", "Endpoint",
        (
            _m("Calls", "calls", COUNT, 50000, 9000000),
            _m("Unique clients", "unique clients", COUNT, 1000, 90000),
            _m("Client error rate (%)", "client error rate", PCT, 1.1, 9.5, 2),
            _m("Average payload (KB)", "average payload", RATE, 1.2, 95, 1),
        ),
        (_m("Total API calls", "total API calls", COUNT, 9000000, 90000000),),
        (NameSlot("rate-limit policy", "option"),),
        ("Traffic to {entity} doubled after the partner integration went live.",
         "Deprecated fields are still requested by a few old clients."),
    ),
    Subject(
        "incident_review", "Incident review", "Incidents/Postmortems", "services", "Service",
        (
            _m("Incidents", "incidents", SMALL, 0, 12),
            _m("Downtime (minutes)", "downtime minutes", RATE, 12, 900, 1),
            _m("Affected users", "affected users", COUNT, 1000, 90000),
            _m("Credits issued (USD)", "credits issued", MONEY, 200, 40000),
        ),
        (_m("Total downtime (minutes)", "total downtime", RATE, 300, 3000, 1),),
        (NameSlot("remediation plan", "option"),),
        ("The {entity} outage was traced to an expired certificate.",
         "Every postmortem has an owner and a due date for its actions."),
    ),
    Subject(
        "load_test_results", "Load test results", "Performance/Load Tests", "scenarios", "Scenario",
        (
            _m("Throughput (req/s)", "throughput", RATE, 200, 9000, 1),
            _m("p99 latency (ms)", "p99 latency", RATE, 90, 2500, 1),
            _m("Error rate (%)", "error rate", PCT, 1.02, 6.5, 2),
            _m("CPU peak (%)", "peak CPU", PCT, 35, 98),
        ),
        (_m("Maximum sustained throughput (req/s)", "maximum sustained throughput", RATE, 2000, 9000, 1),),
        (NameSlot("recommended instance profile", "codename"),),
        ("The {entity} scenario saturated the connection pool first.",
         "Tests ran against a production-sized staging dataset."),
    ),
    Subject(
        "queue_metrics", "Queue backlog metrics", "Monitoring/Queues", "queues", "Queue",
        (
            _m("Messages processed", "messages processed", COUNT, 100000, 9000000),
            _m("Maximum backlog", "maximum backlog", COUNT, 1000, 90000),
            _m("Average message age (s)", "average message age", RATE, 1.1, 95, 1),
            _m("Dead letters", "dead letters", SMALL, 0, 90),
        ),
        (_m("Total messages processed", "total messages processed", COUNT, 9000000, 90000000),),
        (),
        ("Consumers of {entity} were scaled out during the sale.",
         "Dead-lettered messages are replayed after a fix is deployed."),
    ),
    Subject(
        "dependency_audit", "Dependency audit", "Security/Dependencies", "packages", "Package",
        (
            _m("Services using", "services using it", SMALL, 1, 12),
            _m("Open CVEs", "open CVEs", SMALL, 0, 9),
            _m("Upgrade effort (hours)", "upgrade effort", RATE, 2, 120, 1),
            _m("Licence cost (USD)", "licence cost", MONEY, 1000, 50000),
        ),
        (_m("Total upgrade effort (hours)", "total upgrade effort", RATE, 150, 900, 1),),
        (NameSlot("replacement library project", "codename"),),
        ("The {entity} upgrade is blocked by a breaking API change.",
         "Licences are reviewed once a year with procurement."),
    ),
    Subject(
        "deployment_metrics", "Deployment metrics for frequency and lead time", "Engineering/Deployments",
        "services", "Service",
        (
            _m("Deploys", "deploys", SMALL, 2, 90),
            _m("Lead time (hours)", "lead time", RATE, 2, 190, 1),
            _m("Change failure rate (%)", "change failure rate", PCT, 1.5, 25, 2),
            _m("MTTR (minutes)", "MTTR in minutes", RATE, 10, 400, 1),
        ),
        (_m("Median lead time (hours)", "median lead time", RATE, 10, 90, 1),),
        (NameSlot("branching strategy", "option"),),
        ("{entity} moved to trunk-based development in {period}.",
         "Release trains were replaced by continuous deployment."),
    ),
    Subject(
        "storage_usage", "Object storage usage", "Infrastructure/Storage", "buckets", "Bucket",
        (
            _m("Objects stored", "objects stored", COUNT, 100000, 90000000),
            _m("Data stored (TB)", "data stored", RATE, 1.5, 90),
            _m("Egress (TB)", "egress", RATE, 1.1, 40),
            _m("Storage cost (USD)", "storage cost", MONEY, 300, 30000),
        ),
        (_m("Total storage cost", "total storage cost", MONEY, 9000, 90000),),
        (NameSlot("storage tier option", "option"),),
        ("Lifecycle rules for {entity} move old objects to cold storage.",
         "Public buckets are audited every quarter."),
    ),
)  # fmt: skip

BACKEND = RoleVocab(
    name="backend",
    persona="Backend Developer",
    orgs=("Quillstack", "Ferrowave Systems", "Larkspur Cloud"),
    currency="$",
    prefix="be",
    areas=("Monitoring", "Finance", "Infrastructure", "Incidents", "Performance", "Security", "Engineering",
           "Services"),
    entities=_BE_ENTITIES,
    subjects=_BE_SUBJECTS,
    scopes=_BE_SCOPES,
    themes=(
        Theme("reliability_report", "a reliability report for the engineering leads",
              ("service_latency", "incident_review", "queue_metrics", "deployment_metrics",
               "load_test_results", "api_usage", "database_capacity", "dependency_audit"),
              ("Summary", "Incidents", "Risks", "Action Items")),
        Theme("infrastructure_cost_review", "an infrastructure cost review for the CTO",
              ("cloud_costs", "storage_usage", "database_capacity", "api_usage", "service_latency",
               "queue_metrics", "dependency_audit", "load_test_results"),
              ("Summary", "Cost Breakdown", "Savings", "Decisions")),
        Theme("capacity_plan", "a capacity plan for the coming quarter",
              ("database_capacity", "load_test_results", "queue_metrics", "storage_usage", "api_usage",
               "service_latency", "cloud_costs", "deployment_metrics"),
              ("Summary", "Current Capacity", "Forecast", "Risks")),
        Theme("platform_health_report", "a platform health report for the monthly engineering review",
              ("api_usage", "service_latency", "dependency_audit", "deployment_metrics", "incident_review",
               "queue_metrics", "storage_usage", "cloud_costs"),
              ("Summary", "Health Indicators", "Security", "Next Steps")),
        Theme("engineering_review", "an engineering delivery review for the product leads",
              ("deployment_metrics", "incident_review", "dependency_audit", "service_latency",
               "load_test_results", "cloud_costs", "api_usage", "database_capacity"),
              ("Summary", "Delivery", "Quality", "Open Questions")),
    ),
    industry=("Cloud", "Systems", "Data", "Networks", "Software", "Analytics"),
    options=("read-replica fan-out", "tenant-based sharding", "token-bucket limits per client",
             "blue-green deploys", "trunk-based development", "three-year committed use",
             "spot-heavy node pools",
             "cold-tier lifecycle rules", "circuit-breaker rollout", "queue partitioning by tenant",
             "regional failover drill", "connection pool resizing", "cache-aside layer",
             "archive-first retention"),
    sentences=(
        "The {entity} dashboards were updated with the new SLO targets.",
        "On-call load was lower after the noisy alerts were removed.",
        "A canary release caught the regression before full rollout.",
        "{person} is pairing with the platform team on the migration.",
        "Feature flags for the old endpoint will be removed in {period}.",
        "The staging environment was refreshed from an anonymised snapshot.",
        "Runbooks were reviewed during the last game day.",
    ),
    fillers=(
        FillerType(("runbook_{entity}", "adr_{n}_{entity}", "postmortem_template", "oncall_handover_{date}",
                    "api_style_guide", "README", "CHANGELOG_{entity}", "migration_plan_{entity}", "架构说明",
                    "code_review_checklist"),
                   ("md", "txt"), ("Services/Docs", "Engineering/ADRs", "Incidents/Handover",
                                   "Services/{entity}"),
                   "prose"),
        FillerType(("service_config_{entity}", "alert_rules_{entity}", "feature_flags_{month}"),
                   ("json",), ("Services/Config", "Monitoring/Alerts", "Engineering/Flags"), "config"),
        FillerType(("error_sample_{date}", "slow_queries_{week}", "build_times_{month}", "pager_log_{month}"),
                   ("csv", "xlsx"), ("Monitoring/Exports", "Engineering/CI", "Incidents/Logs/{year}"),
                   "metrics"),
    ),
    teams=("Platform", "Payments", "Search", "Identity", "Data", "SRE", "Mobile API"),
)  # fmt: skip

# ---------------------------------------------------------------------------------------------------------
# Product

_PROD_ENTITIES = {
    "features": (
        "Smart reminders", "Shared lists", "Dark mode", "Offline sync", "Voice notes", "Calendar import",
        "Habit streaks", "Home widgets", "Family plan", "PDF export", "Quick capture", "Templates gallery",
    ),
    "segments": (
        "Free users", "Trial users", "Pro monthly", "Pro annual", "Teams", "Education", "Enterprise pilot",
        "Lapsed users",
    ),
    "variants": ("Control", "Variant A", "Variant B", "Variant C", "Annual-first", "Trial-extended"),
    "competitors": (
        "Notely", "Taskmoor", "Planwise", "Listbird", "Cobalt Tasks", "Memo Forge", "Brightlist", "DayGrid",
    ),
    "funnel_steps": (
        "Landing visit", "Sign-up started", "Account created", "Onboarding done", "First list", "Invite sent",
        "Trial started", "Paid conversion",
    ),
    "ticket_categories": (
        "Billing", "Sync issues", "Login", "Feature request", "Bug report", "Data export", "Notifications",
        "Account deletion", "Performance", "Other",
    ),
    "markets": (
        "United States", "Germany", "United Kingdom", "France", "Brazil", "Japan", "India", "Canada", "Spain",
        "Netherlands",
    ),
    "usability_tasks": (
        "Create a list", "Share a list", "Set a reminder", "Import calendar", "Upgrade plan", "Export data",
        "Invite a member", "Restore an item",
    ),
}  # fmt: skip
_PROD_SCOPES = (
    Scope("q2", "Q2 2025", "2025/Q2", _Q["q2"]),
    Scope("q3", "Q3 2025", "2025/Q3", _Q["q3"]),
    Scope("h1", "H1 2025", "2025/H1", _H1),
    Scope("march", "March 2025", "2025/March", _WEEKS[:4], "Week"),
    Scope("q4_2024", "Q4 2024", "2024/Q4", _Q["q4"]),
    Scope("april", "April 2025", "2025/April", _WEEKS[:4], "Week"),
)
_PROD_SUBJECTS = (
    Subject(
        "feature_adoption", "Feature adoption", "Analytics/Adoption", "features", "Feature",
        (
            _m("Weekly active users", "weekly active users", COUNT, 1000, 90000),
            _m("Adoption (%)", "adoption", PCT, 3, 75),
            _m("Day-30 retention (%)", "day-30 retention", PCT, 12, 68),
            _m("Sessions per user", "sessions per user", RATE, 1.2, 9.9),
        ),
        (_m("Total weekly active users", "total weekly active users", COUNT, 90000, 900000),),
        (NameSlot("feature to sunset", "option"),),
        ("Adoption of {entity} grew after the in-app tour was added.",
         "Power users asked for keyboard shortcuts."),
    ),
    Subject(
        "nps_survey", "NPS survey results", "Research/NPS", "segments", "Segment",
        (
            _m("Responses", "responses", COUNT, 200, 9000),
            _m("NPS", "NPS", RATE, 11, 65, 1),
            _m("Promoters (%)", "promoters", PCT, 20, 70),
            _m("Detractors (%)", "detractors", PCT, 5, 40),
        ),
        (_m("Overall NPS", "overall NPS", RATE, 15, 55, 1),),
        (NameSlot("top requested improvement", "option"),),
        ("Detractors in {entity} mostly mentioned sync delays.",
         "Verbatim comments were tagged by theme."),
    ),
    Subject(
        "pricing_experiment", "Pricing experiment", "Experiments/Pricing", "variants", "Variant",
        (
            _m("Visitors", "visitors", COUNT, 10000, 90000),
            _m("Conversion (%)", "conversion", PCT, 1.1, 9.9, 2),
            _m("ARPU (USD)", "ARPU", MONEY, 3, 40),
            _m("Revenue (USD)", "revenue", MONEY, 5000, 180000),
        ),
        (_m("Incremental revenue (USD)", "incremental revenue", MONEY, 5000, 90000),),
        (NameSlot("winning pricing option", "option"),),
        ("{entity} was shown to a random half of new visitors.",
         "The test ran until the planned sample size was reached."),
    ),
    Subject(
        "churn_analysis", "Churn analysis by segment", "Analytics/Churn", "segments", "Segment",
        (
            _m("Subscribers", "subscribers", COUNT, 1000, 90000),
            _m("Churn rate (%)", "churn rate", PCT, 1.1, 12, 2),
            _m("MRR lost (USD)", "MRR lost", MONEY, 900, 90000),
            _m("Win-back rate (%)", "win-back rate", PCT, 2, 30),
        ),
        (_m("Total MRR lost", "total MRR lost", MONEY, 20000, 300000),),
        (NameSlot("retention programme", "option"),),
        ("Churn in {entity} rose after the price change.",
         "Exit survey answers point to missing integrations."),
    ),
    Subject(
        "roadmap_priorities", "Roadmap priorities", "Planning/Roadmap", "features", "Initiative",
        (
            _m("RICE score", "RICE score", RATE, 10, 900, 1),
            _m("Effort (person-weeks)", "effort in person-weeks", RATE, 1.5, 40, 1),
            _m("Reach (users)", "reach", COUNT, 1000, 90000),
            _m("Confidence (%)", "confidence", PCT, 30, 95),
        ),
        (),
        (NameSlot("top priority initiative", "codename"),),
        ("Work on {entity} depends on the sync engine rewrite.",
         "Scores were reviewed with engineering before the planning meeting."),
    ),
    Subject(
        "support_tickets", "Support tickets by category", "Support/Tickets", "ticket_categories", "Category",
        (
            _m("Tickets", "tickets", COUNT, 1000, 20000),
            _m("CSAT (%)", "CSAT", PCT, 60, 97),
            _m("Median first response time (hours)", "median first response time", RATE, 1.1, 30),
            _m("Escalations", "escalations", SMALL, 0, 90),
        ),
        (_m("Total tickets", "total tickets", COUNT, 9000, 90000),),
        (NameSlot("support tooling option", "option"),),
        ("Tickets about {entity} spiked after the app update.",
         "Macros were rewritten to shorten first responses."),
    ),
    Subject(
        "onboarding_funnel", "Onboarding funnel", "Analytics/Funnel", "funnel_steps", "Step",
        (
            _m("Users", "users", COUNT, 1000, 900000),
            _m("Step conversion (%)", "step conversion", PCT, 15, 95),
            _m("Median time (min)", "median time", RATE, 1.1, 60, 1),
            _m("Drop-off (%)", "drop-off", PCT, 5, 85),
        ),
        (_m("Activation rate", "activation rate", PCT, 15, 60, 2),),
        (NameSlot("onboarding redesign option", "option"),),
        ("Users dropped at {entity} when asked for calendar access.",
         "A shorter welcome flow is being tested."),
    ),
    Subject(
        "competitor_pricing", "Competitor pricing", "Market/Competitors", "competitors", "Competitor",
        (
            _m("Monthly price (USD)", "monthly price", MONEY, 2.01, 19.99),
            _m("Annual price (USD)", "annual price", MONEY, 20, 180),
            _m("Store rating", "store rating", RATE, 3.1, 4.9),
            _m("Downloads", "downloads", COUNT, 10000, 900000),
        ),
        (_m("Median annual price", "median annual price", MONEY, 30, 120),),
        (NameSlot("positioning option", "option"),),
        ("{entity} introduced a family tier in {period}.",
         "Prices were collected from the public app stores."),
    ),
    Subject(
        "market_revenue", "Revenue by market", "Finance/Revenue", "markets", "Market",
        (
            _m("Revenue (USD)", "revenue", MONEY, 20000, 900000),
            _m("Paying users", "paying users", COUNT, 1000, 90000),
            _m("ARPPU (USD)", "ARPPU", MONEY, 3, 30),
            _m("Growth (%)", "growth", PCT, 1.5, 45),
        ),
        (_m("Total revenue", "total revenue", MONEY, 900000, 6000000),),
        (NameSlot("next market to localise", "option"),),
        ("Revenue in {entity} benefited from the localised store listing.",
         "Currency effects are excluded from the growth figures."),
    ),
    Subject(
        "usability_study", "Usability study findings", "Research/Usability", "usability_tasks", "Task",
        (
            _m("Task success rate (%)", "task success rate", PCT, 40, 98),
            _m("Time on task (s)", "time on task", RATE, 20, 400, 1),
            _m("SUS score", "SUS score", RATE, 40, 92, 1),
            _m("Errors", "errors", SMALL, 0, 30),
        ),
        (_m("Mean SUS score", "mean SUS score", RATE, 55, 85, 1),),
        (NameSlot("recommended design option", "option"),),
        ("Participants hesitated at {entity} because the button label was unclear.",
         "Sessions were recorded with consent and transcribed."),
    ),
)  # fmt: skip

PRODUCT = RoleVocab(
    name="product",
    persona="Product Manager",
    orgs=("Lumora Apps", "Pinewick Software", "Tessellate Health"),
    currency="$",
    prefix="prod",
    areas=("Analytics", "Research", "Experiments", "Planning", "Support", "Market", "Finance", "Releases"),
    entities=_PROD_ENTITIES,
    subjects=_PROD_SUBJECTS,
    scopes=_PROD_SCOPES,
    themes=(
        Theme("product_review", "a quarterly product review for the leadership team",
              ("feature_adoption", "market_revenue", "churn_analysis", "nps_survey", "support_tickets",
               "onboarding_funnel", "roadmap_priorities", "pricing_experiment"),
              ("Summary", "Growth", "Customer Voice", "Next Steps")),
        Theme("pricing_recommendation", "a pricing recommendation for the executive team",
              ("pricing_experiment", "competitor_pricing", "market_revenue", "churn_analysis",
               "feature_adoption", "nps_survey", "onboarding_funnel", "support_tickets"),
              ("Summary", "Experiment Results", "Recommendation", "Risks")),
        Theme("retention_report", "a retention report for the growth squad",
              ("churn_analysis", "onboarding_funnel", "support_tickets", "nps_survey", "feature_adoption",
               "usability_study", "market_revenue", "pricing_experiment"),
              ("Summary", "Where Users Leave", "Actions", "Open Questions")),
        Theme("roadmap_brief", "a roadmap brief for the planning offsite",
              ("roadmap_priorities", "usability_study", "feature_adoption", "nps_survey",
               "competitor_pricing", "support_tickets", "onboarding_funnel", "market_revenue"),
              ("Summary", "Priorities", "Evidence", "Decisions")),
        Theme("launch_readiness", "a launch readiness review for the release committee",
              ("usability_study", "onboarding_funnel", "support_tickets", "feature_adoption",
               "pricing_experiment", "competitor_pricing", "roadmap_priorities", "churn_analysis"),
              ("Summary", "Readiness", "Risks", "Go/No-Go")),
    ),
    industry=("Apps", "Software", "Digital", "Labs", "Interactive", "Media"),
    options=("annual-first paywall", "seven-day trial with reminder", "guided first list", "team plan bundle",
             "usage-based upsell", "in-app win-back offer", "contextual upgrade prompts",
             "lighter onboarding",
             "regional price points", "premium support tier", "sunset legacy widgets", "calendar-first setup",
             "self-serve help centre", "student discount tier"),
    sentences=(
        "The {entity} squad shipped two small improvements in {period}.",
        "Customer interviews confirmed that setup takes too long.",
        "The design team shared new mock-ups for the settings page.",
        "{person} will present the experiment readout at the product sync.",
        "Marketing asked for the release notes a week before launch.",
        "Data for the dashboard is refreshed every night.",
        "Accessibility fixes were prioritised after the audit.",
    ),
    fillers=(
        FillerType(("persona_{person}", "interview_{n}_{person}", "prd_{entity}", "release_notes_{month}",
                    "user_quotes_{month}", "design_review_{date}", "Roadmap_Überblick",
                    "beta_feedback_{entity}", "go_to_market_checklist"),
                   ("md", "txt"), ("Research/Interviews", "Planning/PRDs", "Releases/{year}",
                                   "Research/Personas"),
                   "prose"),
        FillerType(("experiment_backlog", "event_taxonomy_{month}", "app_store_reviews_{week}",
                    "beta_signups_{date}", "feature_requests_{month}"),
                   ("csv", "xlsx", "json"), ("Analytics/Exports", "Research/Raw", "Support/Exports/{year}"),
                   "metrics"),
    ),
    teams=("Growth", "Core App", "Design", "Data", "Support", "Marketing", "Engineering"),
)  # fmt: skip

ROLES: dict[str, RoleVocab] = {r.name: r for r in (OPERATIONS, LOGISTICS, RESEARCH, BACKEND, PRODUCT)}
"""Every role the generator knows, in the world's order."""
