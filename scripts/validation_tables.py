"""Print the markdown tables of docs/knowledge-base.md, "Measured figures", from `responder kb
validate --json` (so the documented figures are generated, not retyped). A script.

    responder kb validate --json | python scripts/validation_tables.py
"""

from __future__ import annotations

import json
import sys


def cell(mode_result: dict, case: dict) -> str:
    if case["class_only"]:
        chemical = "class"
    elif not case["in_kb"]:
        chemical = "n/a"
    else:
        chemical = "-" if mode_result["rank"] is None else str(mode_result["rank"])
    klass = "-" if mode_result["class_rank"] is None else str(mode_result["class_rank"])
    return f"{chemical} / {klass}"


def main() -> int:
    report = json.load(sys.stdin)
    modes = [m["mode"] for m in report["modes"]]
    print(
        "| mode | top-1 (of {n}) | top-5 (of {n}) | class top-1 (of {c}) | mean questions |".format(
            n=report["modes"][0]["chemical_cases"], c=report["modes"][0]["cases"]
        )
    )
    print("|---|---|---|---|---|")
    for m in report["modes"]:
        print(
            f"| `{m['mode']}` | {m['top1']} ({m['top1_rate']:.0%}) | {m['top5']} "
            f"({m['top5_rate']:.0%}) | {m['class']} ({m['class_rate']:.0%}) | "
            f"{m['mean_questions']:.1f} |"
        )
    print()
    print("| case | agent | " + " | ".join(f"`{m}`" for m in modes) + " |")
    print("|---|---|" + "---|" * len(modes))
    for case in report["cases"]:
        agent = case["class"] if case["class_only"] else case["agent"]
        if isinstance(agent, list):
            agent = ", ".join(agent)
        print(
            f"| {case['case']} | {agent} | "
            + " | ".join(cell(case["modes"][m], case) for m in modes)
            + " |"
        )
    print(
        f"\nsigns listed: {report['signs_listed']} of {report['signs_present']} stated present",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
