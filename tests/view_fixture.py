"""A hand-made run for the viewer's tests: a listing, a read of a CSV whose value the deliverable drops, an
output holding markup and ``</script>``, a clipped output, and a judge that failed the item on that value."""

from __future__ import annotations

from rtlab.records import (
    Action,
    Deliverable,
    Frame,
    ItemResult,
    Judgement,
    RubricItem,
    Step,
    Task,
    Trajectory,
)

CSV = "Route,Quarter,Freight cost (EUR)\nRoute North,Q3,48213.50\nRoute South,Q3,31877.25\n"
HOSTILE = '</script><script>alert(1)</script><img src=x onerror="alert(2)"> & <b>bold</b>'
CLIP = "\n[... 5000 characters truncated ...]\n"


def hand_run(n_filler: int = 0, filler_chars: int = 200) -> Trajectory:
    """The run; ``n_filler`` more shell steps of ``filler_chars`` characters each make it long."""
    listing = "finance/freight_costs_q3.csv\nreports/carrier_selection.md\nnotes/todo.txt\n"
    long_out = "x" * 300 + CLIP + "y" * 300
    clip_at = long_out.index(CLIP)
    steps = [
        Step(0, "shell", "ls -R", output=listing, shown=listing, action=Action.shell("ls -R")),
        Step(
            1,
            "shell",
            "cat finance/freight_costs_q3.csv",
            output=CSV,
            shown=CSV,
            exit_code=0,
            action=Action.shell("cat finance/freight_costs_q3.csv"),
        ),
        Step(
            2, "shell", "echo '<html>'", output=HOSTILE, shown=HOSTILE, action=Action.shell("echo '<html>'")
        ),
        Step(
            3,
            "shell",
            "cat big.log",
            output="x" * 300 + "z" * 5000 + "y" * 300,
            shown=long_out,
            clipped=True,
            action=Action.shell("cat big.log"),
            frames=(Frame(clip_at, clip_at + len(CLIP), "clip"),),
        ),
    ]
    for k in range(n_filler):
        i = len(steps)
        text = (f"line {k} " * (filler_chars // 7 + 1))[:filler_chars]
        steps.append(Step(i, "shell", f"echo {k}", output=text, shown=text, action=Action.shell(f"echo {k}")))
    for k, s in enumerate(steps):
        s.seq = k
    rubric = [
        RubricItem(
            0, "The report gives the Q3 freight cost of Route North, 48213.50 EUR, from freight_costs_q3.csv"
        ),
        RubricItem(1, "The report is a markdown file"),
    ]
    return Trajectory(
        id="hand:view",
        format="rtlab",
        source_path="hand.jsonl",
        steps=steps,
        cwd="/w",
        task_id="t1",
        benchmark="workspace-bench",
        model="hand-model",
        instruction="Report the Q3 freight cost of Route North from the finance folder.",
        deliverable=Deliverable(final_message="The Q3 freight cost of Route North is 47990.00 EUR."),
        task=Task("t1", "workspace-bench", "Report the Q3 freight cost of Route North.", rubric=rubric),
        judgement=Judgement(items=[ItemResult(0, False, evidence="wrong value"), ItemResult(1, True)]),
    )
