"""A hand-made miniature simulated world (one role, one task) for the simulated agents' tests."""

from __future__ import annotations

from pathlib import Path

import openpyxl

from rtlab.synth.world import Fact, Item, Role, SynthTask, WorkspaceFile, World

CSV_FINAL = (
    "Route,Quarter,Freight cost (EUR)\nRoute North,Q3,48213.50\nRoute South,Q3,31877.25\nRoute East,Q3,-\n"
)
CSV_V1 = "Route,Quarter,Freight cost (EUR)\nRoute North,Q3,47990.00\nRoute South,Q3,30012.75\n"
CARRIER = (
    "# Carrier selection\n\nAfter the tender, the selected carrier is Nordlicht Logistik GmbH.\n"
    "The framework contract value is 1,284,500 EUR over three years.\n" + "Background paragraph. " * 40 + "\n"
)


def build_mini_world(root: Path) -> World:
    ws = root / "workspaces" / "ops"
    (ws / "finance").mkdir(parents=True)
    (ws / "reports" / "2025").mkdir(parents=True)
    (ws / "misc").mkdir(parents=True)
    (ws / "finance" / "freight_costs_q3_final.csv").write_text(CSV_FINAL, encoding="utf-8")
    (ws / "finance" / "freight_costs_q3_v1.csv").write_text(CSV_V1, encoding="utf-8")
    (ws / "reports" / "2025" / "carrier_selection.md").write_text(CARRIER, encoding="utf-8")
    wb = openpyxl.Workbook()
    sheet = wb.active
    sheet.append(["Warehouse", "Pallets shipped"])
    sheet.append(["Hamburg", 18342])
    sheet.append(["Rotterdam", 9731])
    wb.save(ws / "finance" / "pallet_volumes.xlsx")
    files = [
        WorkspaceFile("finance/freight_costs_q3_final.csv", "csv", "source", ("f1", "f2"), len(CSV_FINAL)),
        WorkspaceFile("finance/freight_costs_q3_v1.csv", "csv", "version", (), len(CSV_V1)),
        WorkspaceFile("reports/2025/carrier_selection.md", "md", "source", ("f3", "f4"), len(CARRIER)),
        WorkspaceFile("finance/pallet_volumes.xlsx", "xlsx", "source", ("f5",), 60),
    ]
    for i in range(12):
        text = f"Meeting note {i}: nothing about freight here. " * 20 + "\n"
        (ws / "misc" / f"note_{i:02d}.txt").write_text(text, encoding="utf-8")
        files.append(WorkspaceFile(f"misc/note_{i:02d}.txt", "txt", "filler", (), len(text)))
    (ws / "misc" / "freight_faq.md").write_text("# Freight FAQ\nAsk the carrier desk.\n", encoding="utf-8")
    files.append(WorkspaceFile("misc/freight_faq.md", "md", "distractor", (), 37))
    facts = {
        "f1": Fact(
            "f1", "Route North freight cost", "48213.50", "finance/freight_costs_q3_final.csv", "48231.50"
        ),
        "f2": Fact(
            "f2", "Route South freight cost", "31877.25", "finance/freight_costs_q3_final.csv", "38177.25"
        ),
        "f3": Fact(
            "f3",
            "selected carrier",
            "Nordlicht Logistik GmbH",
            "reports/2025/carrier_selection.md",
            "Nordwind Spedition AG",
            numeric=False,
        ),
        "f4": Fact(
            "f4", "framework contract value", "1,284,500", "reports/2025/carrier_selection.md", "1,248,500"
        ),
        "f5": Fact("f5", "Hamburg pallets shipped", "18342", "finance/pallet_volumes.xlsx", "13842"),
    }
    items = (
        Item(
            0,
            "States the Route North freight cost for Q3 (freight_costs_q3_final.csv): 48213.50.",
            "value",
            "Data Accuracy",
            ("f1",),
            ("48213.50",),
        ),
        Item(
            1,
            "States the Route South freight cost for Q3 (freight_costs_q3_final.csv): 31877.25.",
            "value",
            "Data Accuracy",
            ("f2",),
            ("31877.25",),
        ),
        Item(
            2,
            'Names "Nordlicht Logistik GmbH" as the selected carrier (carrier_selection.md).',
            "statement",
            "Content Completeness",
            ("f3",),
            ("Nordlicht Logistik GmbH",),
        ),
        Item(
            3,
            "States the framework contract value (carrier_selection.md): 1,284,500.",
            "value",
            "Data Accuracy",
            ("f4",),
            ("1,284,500",),
        ),
        Item(
            4,
            "States the Hamburg pallets shipped (pallet_volumes.xlsx): 18342.",
            "value",
            "Data Accuracy",
            ("f5",),
            ("18342",),
        ),
        Item(
            5,
            "Gives the total Q3 freight cost calculated over both routes (freight_costs_q3_final.csv): "
            "80,090.75.",
            "computed",
            "Data Accuracy",
            ("f1", "f2"),
            ("80,090.75",),
        ),
        Item(6, 'The deliverable has a section titled "Risks".', "format", "Format", (), ("Risks",)),
    )
    task = SynthTask(
        id="sim-ops-01",
        role="ops",
        instruction=(
            "You are the operations manager. Write q3_freight_review.md reviewing Q3 freight costs per route, the "
            "carrier selection and pallet volumes, with the total freight cost and a Risks section."
        ),
        deliverable="q3_freight_review.md",
        sources=(
            "finance/freight_costs_q3_final.csv",
            "reports/2025/carrier_selection.md",
            "finance/pallet_volumes.xlsx",
        ),
        items=items,
        dependency_graph=(("finance/freight_costs_q3_final.csv", "q3_freight_review.md"),),
    )
    role = Role("ops", "Operations manager at a simulated freight company", "workspaces/ops", tuple(files))
    return World(seed=0, roles=(role,), tasks=(task,), facts=facts)
