"""Every measured target of the scene and graded-knowledge work, in one run, each beside its
line. A script.

    python benchmarks/scene_targets.py                 # the whole battery, about 10 minutes
    python benchmarks/scene_targets.py --quick         # one seed, few interviews: a smoke run
    python benchmarks/scene_targets.py --json out.json

It runs the commands a user runs, each as its own process with its own temporary
RESPONDER_HOME, and reads their ``--json`` output:

- ``responder kb validate --json`` (every mode): the case vignettes of ``kb/cases/``, with the
  scene facts and signs only, the fitting and held-out halves apart;
- ``responder simulate --answers flip:0.1 --modes evidence --interviews 1000 --seed S``,
  seeds 5-12, without and with ``--scene-step``: truth first and silently wrong;
- ``responder simulate --answers flip:0 ... --interviews 300 --seed 3``, without and with the
  scene step: the median number of questions when no answer is wrong;
- ``responder simulate --victims K --interviews 1000 --seed 7`` for 1, 3 and 10 victims
  (reported, no target);

and, in this process, the three scenarios of the scene work (a pool plant leak, a family with
a heater running, a subway attack: the reported facts, then each suggestion answered from the
agent's own row, at most 12 answers) and the scene phrases every responder is expected to use.

Only totals are printed for the held-out half, as ``kb validate`` gives them. The figures in
docs/robustness.md are taken with these commands and seeds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from responder.app.search import rank_symptoms  # noqa: E402
from responder.cli.interview import Protocol  # noqa: E402
from responder.config import InterviewConfig, NoiseSettings  # noqa: E402
from responder.core.session import Interview  # noqa: E402
from responder.engine.compare import wilson  # noqa: E402
from responder.kb.loader import load_bundled  # noqa: E402

FLIP_SEEDS = tuple(range(5, 13))
MAX_ANSWERS = 12
MET = {True: "yes", False: "no", None: "-"}
#: The vignette figures signs only when the work began (top-1 2 of 41, top-5 11 of 41,
#: class 15 of 44): signs-only answers must stay at least this good.
SIGNS_ONLY_BEFORE = {"top1": 0.05, "top5": 0.27, "class": 0.34}
WHAT = {"top1": "agent first", "top5": "agent in the top 5", "class": "class on top"}
#: The three scenarios: the agent, and what the responder reports first (signs and scene).
THREE_SCENARIOS = (
    (
        "Chlorine",
        (
            "cough",
            "burning eyes",
            "sore throat",
            "chest tightness",
            "yellow-green cloud",
            "bleach",
            "swimming pool",
        ),
    ),
    (
        "Carbon monoxide",
        ("headache", "dizziness", "nausea", "confusion", "home", "heater", "several victims"),
    ),
    (
        "Sarin (GB)",
        (
            "pinpoint pupils",
            "runny nose",
            "drooling",
            "twitching",
            "SOB",
            "subway",
            "deliberate attack",
        ),
    ),
)
#: What a responder says of the scene, each to be answered as one scene observation.
SCENE_PHRASES = (
    "odorless; rotten eggs; bitter almonds; garlic; bleach; ammonia smell; pungent; fruity; "
    "sweet smell; new-mown hay; fishy; mothballs; petrol; vinegar; pepper; chemical smell; "
    "yellow-green cloud; brown or yellow fumes; white cloud; black smoke; invisible gas; "
    "oily liquid; clear liquid; white powder; crystals or pellets; plant material; "
    "aerosol spray; gas; liquid; powder; onset seconds; onset minutes; onset hours; "
    "onset delayed; inhaled; skin contact; swallowed; drug use; swimming pool; farm; "
    "fumigation; cold storage; confined space; refinery; fire; engine exhaust; factory; "
    "laboratory; mine; home; mixed cleaning products; shared meal; public place; "
    "deliberate attack; military; transport accident; police spray; metal work; "
    "several victims; rescuers affected; dead animals; dead plants; corroded metal; "
    "pesticide container"
).split("; ")


@dataclass(frozen=True)
class Target:
    """One line of the targets: what was measured, the bar, and whether it holds."""

    line: str
    measured: str
    bar: str
    met: bool | None  # None: reported, no bar


@dataclass
class Battery:
    """The raw figures of one run, as the commands printed them."""

    validate: dict = field(default_factory=dict)
    flips: dict = field(default_factory=dict)  # "scene" / "no scene" -> seed -> mode figures
    no_errors: dict = field(default_factory=dict)  # "scene" / "no scene" -> mode figures
    victims: dict = field(default_factory=dict)  # victims -> figures
    scenarios: list = field(default_factory=list)
    phrases_unresolved: list = field(default_factory=list)


def run_json(args: list[str]) -> dict:
    """``responder ARGS --json`` as its own process, in a fresh data folder."""
    with tempfile.TemporaryDirectory(prefix="scene-targets-") as home:
        done = subprocess.run(
            [sys.executable, "-m", "responder.cli", *args, "--json"],
            capture_output=True,
            text=True,
            encoding="utf-8",
            env={**os.environ, "RESPONDER_HOME": home},
            check=False,
        )
    if done.returncode != 0:
        raise RuntimeError(f"responder {' '.join(args)} failed: {done.stderr.strip()}")
    return json.loads(done.stdout)


def simulate(*args: str) -> dict:
    """The evidence mode's figures of one ``simulate`` run."""
    (mode,) = run_json(["simulate", *args])["modes"]
    return mode


def vignette_row(validate: dict, answers: str, half: str, mode: str = "evidence") -> dict:
    """One summary row of ``kb validate --json``."""
    for row in validate["modes"]:
        if (row["mode"], row["answers"], row["half"]) == (mode, answers, half):
            return row
    raise KeyError(f"kb validate printed no row for {mode}, {answers}, {half}")


def replay_scenario(kb, agent: str, reported: tuple[str, ...], max_answers: int) -> dict:
    """Report the facts, then answer each suggestion from the agent's row; the final state."""
    config = InterviewConfig("chemical", "symptom", "evidence", NoiseSettings(enabled=False))
    protocol = Protocol(kb, Interview(kb, config))
    row = set(kb.chemical(agent).symptoms)
    for fact in reported:
        reply = protocol.handle(json.dumps({"symptom": fact, "answer": "yes"}))
        if "error" in reply:
            raise RuntimeError(f"{agent}: {fact!r} was refused: {reply['error']}")
    while reply["status"] == "asking" and reply["asked"] < max_answers:
        asked = reply["suggestion"]["symptoms"][0]
        reply = protocol.handle(
            json.dumps({"symptom": asked, "answer": "yes" if asked in row else "no"})
        )
    top = reply["candidates"][0]
    return {
        "agent": agent,
        "answers": reply["asked"],
        "first": [c["name"] for c in top["chemicals"]],
        "probability": top["probability"],
        "class": reply["classes"][0]["class"],
        "class_right": reply["classes"][0]["class"] == kb.chemical(agent).class_id,
    }


def unresolved_phrases(kb, phrases=SCENE_PHRASES) -> list[str]:
    """The phrases not taken as one scene observation both by the protocol and by the app's
    ``/`` search (its first match, alone at its score, must be the protocol's observation)."""
    config = InterviewConfig("chemical", "symptom", "evidence", NoiseSettings(enabled=False))
    scene = {s.id for s in kb.symptoms if s.kind == "scene"}
    missing = []
    for phrase in phrases:
        protocol = Protocol(kb, Interview(kb, config))
        reply = protocol.handle(json.dumps({"symptom": phrase, "answer": "yes"}))
        given = [a["symptom"] for a in reply.get("answers", ()) if not a.get("implied")]
        found = rank_symptoms(kb.symptoms, phrase, limit=2)
        resolved = "error" not in reply and len(given) == 1 and given[0] in scene
        searched = (
            resolved
            and bool(found)
            and found[0].symptom.id == given[0]
            and (len(found) == 1 or found[1].score < found[0].score)
        )
        if not searched:
            missing.append(phrase)
    return missing


def measure(quick: bool, progress=lambda text: None) -> Battery:
    """Run every command of the battery (fewer seeds and interviews when ``quick``)."""
    kb = load_bundled()
    seeds = FLIP_SEEDS[:1] if quick else FLIP_SEEDS
    flips_n, plain_n, victims_n = ("60", "40", "60") if quick else ("1000", "300", "1000")
    battery = Battery()
    progress("kb validate (every mode)")
    battery.validate = run_json(["kb", "validate"])
    for label, step in (("no scene", "--no-scene-step"), ("scene", "--scene-step")):
        battery.flips[label] = {}
        for seed in seeds:
            progress(f"10% flips, seed {seed}, {label}")
            battery.flips[label][seed] = simulate(
                "--answers", "flip:0.1", "--modes", "evidence",
                "--interviews", flips_n, "--seed", str(seed), step,
            )  # fmt: skip
        progress(f"no wrong answers, {label}")
        battery.no_errors[label] = simulate(
            "--answers", "flip:0", "--modes", "evidence",
            "--interviews", plain_n, "--seed", "3", step,
        )  # fmt: skip
    for victims in (1, 3, 10):
        progress(f"{victims} victims")
        battery.victims[victims] = run_json(
            ["simulate", "--victims", str(victims), "--interviews", victims_n, "--seed", "7"]
        )
    progress("the three scenarios and the scene phrases")
    battery.scenarios = [replay_scenario(kb, a, r, MAX_ANSWERS) for a, r in THREE_SCENARIOS]
    battery.phrases_unresolved = unresolved_phrases(kb)
    return battery


def _pooled_first(label: str, runs: dict) -> Target:
    """Truth first over every seed's interviews at once, with its 95% interval: one seed's
    1,000 interviews pin a share only to about two points either way. Reported, not judged."""
    n = sum(run["interviews"] for run in runs.values())
    first = round(sum(run["top1"]["share"] * run["interviews"] for run in runs.values()))
    low, high = wilson(first, n)
    return Target(
        f"10% flips, {label} step, {_seeds(runs)} pooled: truth first",
        f"{first / n:.1%} ({low:.1%}-{high:.1%}, {n:,} interviews)",
        "reported",
        None,
    )


def _seeds(runs: dict) -> str:
    return f"seed {min(runs)}" if len(runs) == 1 else f"seeds {min(runs)}-{max(runs)}"


def _vignette_target(row: dict, key: str, line: str, floor: float, bar: str) -> Target:
    """``row[key]`` (a count of cases) as a share of its cases, held against ``floor``."""
    total = row["cases"] if key == "class" else row["chemical_cases"]
    share = row[key] / total if total else 0.0
    return Target(line, f"{row[key]}/{total} ({share:.0%})", bar, share >= floor)


def targets(battery: Battery) -> list[Target]:
    """Each target line of the scene work, judged on ``battery``."""
    found = []
    for half in ("fit", "held-out"):
        row = vignette_row(battery.validate, "scene", half)
        for key, floor in (("class", 0.85), ("top5", 0.75), ("top1", 0.50)):
            line = f"vignettes with the scene, {half} half: {WHAT[key]}"
            found.append(_vignette_target(row, key, line, floor, f">= {floor:.0%}"))
    signs = vignette_row(battery.validate, "signs", "all")
    for key, floor in SIGNS_ONLY_BEFORE.items():
        line = f"vignettes signs only, all cases: {WHAT[key]}"
        found.append(_vignette_target(signs, key, line, floor, f"no worse than {floor:.0%}"))
    for label, runs in battery.flips.items():
        first = [runs[s]["top1"]["share"] for s in sorted(runs)]
        wrong = [runs[s]["silently_wrong"]["share"] for s in sorted(runs)]
        found.append(
            Target(
                f"10% flips, {label} step, {_seeds(runs)}: truth first",
                f"{min(first):.1%}-{max(first):.1%}",
                ">= 90% every seed",
                min(first) >= 0.90,
            )
        )
        found.append(_pooled_first(label, runs))
        found.append(
            Target(
                f"10% flips, {label} step: silently wrong",
                f"{min(wrong):.1%}-{max(wrong):.1%}",
                "<= 2% every seed",
                max(wrong) <= 0.02,
            )
        )
    for label, run in battery.no_errors.items():
        found.append(
            Target(
                f"no wrong answers, {label} step: median questions",
                f"{run['median_questions']:g} ({run['top1']['share']:.1%} first)",
                "<= 8" if label == "scene" else "reported",
                run["median_questions"] <= 8 if label == "scene" else None,
            )
        )
    for s in battery.scenarios:
        found.append(
            Target(
                f"scenario {s['agent']}: first, class right, within {MAX_ANSWERS} answers",
                f"{', '.join(s['first'])} {s['probability']:.1%} after {s['answers']}",
                s["agent"],
                s["agent"] in s["first"] and s["class_right"] and s["answers"] <= MAX_ANSWERS,
            )
        )
    found.append(
        Target(
            f"the {len(SCENE_PHRASES)} scene phrases resolve in the protocol and in /",
            "all" if not battery.phrases_unresolved else ", ".join(battery.phrases_unresolved),
            "all",
            not battery.phrases_unresolved,
        )
    )
    return found


def report(battery: Battery, found: list[Target]) -> str:
    """The targets as a Markdown table, then every mode's vignette figures and the victims."""
    lines = ["| target | measured | bar | met |", "|---|---|---|---|"]
    lines += [f"| {t.line} | {t.measured} | {t.bar} | {MET[t.met]} |" for t in found]
    lines += ["", "Vignettes, every mode (top-1, top-5 of the cases naming a chemical; class):"]
    for row in battery.validate["modes"]:
        lines.append(
            f"  {row['mode']:14s} {row['answers']:6s} {row['half']:9s} "
            f"{row['top1']}, {row['top5']} of {row['chemical_cases']}; "
            f"{row['class']} of {row['cases']}"
        )
    lines += ["", "Several victims (seed 7): truth first, questions per victim"]
    for victims, run in battery.victims.items():
        lines.append(
            f"  {victims:2d} victims, {run['incidents']} incidents: {run['top1']['share']:.1%} "
            f"at {run['questions_per_victim']['mean']:.2f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one seed and few interviews")
    parser.add_argument("--json", type=Path, help="also write the raw figures to this file")
    args = parser.parse_args(argv)
    battery = measure(args.quick, lambda text: print(f"... {text}", file=sys.stderr))
    found = targets(battery)
    print(report(battery, found))
    if args.json:
        payload = {"battery": asdict(battery), "targets": [asdict(t) for t in found]}
        args.json.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
