"""Replay the textbook incident scenarios of benchmarks/scenarios/ through the JSON-lines protocol.

Each scenario is one TOML answer sheet, written without reading the knowledge base's rows
(benchmarks/scenarios/README.md). For each one and each answer mode, this starts
``responder interview --jsonl --mode MODE`` as a separate process, as a trainer's script
would, enters the sheet's ``reported`` facts (all "yes"), then answers the app's suggestions
from the sheet: "yes" or "no" where the sheet says so, "unknown" (can't tell) otherwise,
until the interview stops or ``--max-answers`` answers are given (the reported ones count).
A suggested sign of an exclusive group (pupil size, pulse rate...) is one question: the
member the sheet says "yes" to, or "no" to every open member when the sheet rules them all
out. It then records where the true agent stands.

    python benchmarks/textbook_scenarios.py                    # evidence, strict, noise
    python benchmarks/textbook_scenarios.py --modes evidence --json results.json

No network; deterministic (the interview has no randomness). Each process gets its own
temporary RESPONDER_HOME.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
MODES = ("evidence", "strict", "noise")
MAX_ANSWERS = 12
SHEET_KEYS = {"title", "agent", "class", "scene", "sources", "judgement", "reported", "yes", "no"}
LIST_KEYS = ("sources", "judgement", "reported", "yes", "no")


class ScenarioError(ValueError):
    """A scenario file that cannot be used, named with what is wrong."""


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    agent: str
    class_id: str
    reported: tuple[str, ...]
    yes: tuple[str, ...]
    no: tuple[str, ...]
    sources: tuple[str, ...]
    judgement: tuple[str, ...]

    def observations(self) -> tuple[str, ...]:
        return self.reported + self.yes + self.no


def load_scenario(path: Path) -> Scenario:
    try:
        sheet = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ScenarioError(f"{path.name}: cannot read it ({exc})") from exc
    missing = SHEET_KEYS - set(sheet)
    extra = set(sheet) - SHEET_KEYS
    if missing or extra:
        raise ScenarioError(
            f"{path.name}: missing {sorted(missing)}, unexpected {sorted(extra)} "
            f"(keys are {sorted(SHEET_KEYS)})"
        )
    for key in LIST_KEYS:
        if not isinstance(sheet[key], list) or not all(isinstance(x, str) for x in sheet[key]):
            raise ScenarioError(f"{path.name}: {key} must be a list of strings")
    for key in ("title", "agent", "class", "scene"):
        if not isinstance(sheet[key], str) or not sheet[key].strip():
            raise ScenarioError(f"{path.name}: {key} must be a non-empty string")
    if not sheet["reported"]:
        raise ScenarioError(f"{path.name}: reported is empty; the replay starts from it")
    return Scenario(
        name=path.stem,
        title=sheet["title"],
        agent=sheet["agent"],
        class_id=sheet["class"],
        reported=tuple(sheet["reported"]),
        yes=tuple(sheet["yes"]),
        no=tuple(sheet["no"]),
        sources=tuple(sheet["sources"]),
        judgement=tuple(sheet["judgement"]),
    )


def load_scenarios(folder: Path = SCENARIOS) -> list[Scenario]:
    paths = sorted(folder.glob("*.toml"))
    if not paths:
        raise ScenarioError(f"no scenario files (*.toml) in {folder}")
    return [load_scenario(p) for p in paths]


class Sheet:
    """A scenario's answers by canonical observation id: "yes", "no", else "unknown"."""

    def __init__(self, scenario: Scenario, canonical) -> None:
        self.answers: dict[str, str] = {}
        for value, ids in (("yes", scenario.reported + scenario.yes), ("no", scenario.no)):
            for given in ids:
                sid = canonical(given)
                if self.answers.get(sid, value) != value:
                    raise ScenarioError(f"{scenario.name}: {given} is both yes and no")
                self.answers[sid] = value

    def answer(self, sid: str) -> str:
        return self.answers.get(sid, "unknown")


@dataclass(frozen=True)
class Outcome:
    scenario: str
    mode: str
    agent: str
    class_id: str
    status: str
    answers: int  # responder answers, the reported facts included
    reported: int
    rank: int | None  # 1-based row of the candidates list, as listed; None when the agent is out
    probability: float | None
    tied: int  # other rows listed at exactly the agent's probability
    leader: str
    leader_probability: float
    top_class: str
    top_class_probability: float
    against: tuple[str, ...]  # the answers the protocol counts against the agent
    transcript: tuple[str, ...]  # every protocol line sent, "id=answer"

    @property
    def possible(self) -> bool:
        """Listed with some probability: strict and noise list every chemical at 0 once none
        fits (status no_fit), which is no identification whatever the order."""
        return self.rank is not None and self.probability > 0

    @property
    def first(self) -> bool:
        return self.possible and self.rank == 1

    @property
    def top5(self) -> bool:
        return self.possible and self.rank <= 5

    @property
    def class_right(self) -> bool:
        return self.top_class == self.class_id and self.top_class_probability > 0


class Protocol:
    """One ``responder interview --jsonl`` process, one request and one reply at a time."""

    def __init__(self, mode: str, home: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "responder.cli", "interview", "--jsonl", "--mode", mode],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            env={**os.environ, "RESPONDER_HOME": home, "PYTHONIOENCODING": "utf-8"},
        )
        self.reply = self._read()

    def _read(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the protocol process ended: {self.proc.stderr.read().strip()}")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"the protocol refused a line: {reply['error']}")
        return reply

    def answer(self, symptom: str, value: str) -> dict:
        self.proc.stdin.write(json.dumps({"symptom": symptom, "answer": value}) + "\n")
        self.proc.stdin.flush()
        self.reply = self._read()
        return self.reply

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)
        self.proc.stdout.close()
        self.proc.stderr.close()


def next_question(reply: dict, sheet: Sheet, asked: set[str]) -> list[tuple[str, str]]:
    """The protocol lines that answer the app's suggestion as one responder answer."""
    suggestion = reply.get("suggestion")
    if not suggestion or not suggestion.get("symptoms"):
        return []
    fresh = [s for s in suggestion["symptoms"] if s not in asked]
    if not fresh:
        return []
    sid = fresh[0]
    group = suggestion.get("group")
    if group and sid == suggestion["symptoms"][0]:
        members = group["members"]
        held = [m for m in members if sheet.answer(m) == "yes"]
        if held:
            return [(held[0], "yes")]
        if all(sheet.answer(m) == "no" for m in members):
            return [(m, "no") for m in members]
    return [(sid, sheet.answer(sid))]


def replay(scenario: Scenario, mode: str, canonical, max_answers: int = MAX_ANSWERS) -> Outcome:
    sheet = Sheet(scenario, canonical)
    asked: set[str] = set()
    sent: list[str] = []
    answers = 0
    with tempfile.TemporaryDirectory(prefix="responder-scenario-") as home:
        proto = Protocol(mode, home)
        try:
            reply = proto.reply
            for fact in scenario.reported:
                reply = proto.answer(fact, "yes")
                asked.add(canonical(fact))
                sent.append(f"{fact}=yes")
                answers += 1
            while reply["status"] == "asking" and answers < max_answers:
                lines = next_question(reply, sheet, asked)
                if not lines:
                    break
                for sid, value in lines:
                    reply = proto.answer(sid, value)
                    asked.add(sid)
                    sent.append(f"{sid}={value}")
                answers += 1
        finally:
            proto.close()
    return outcome(scenario, mode, reply, answers, tuple(sent))


def outcome(
    scenario: Scenario, mode: str, reply: dict, answers: int, transcript: tuple[str, ...]
) -> Outcome:
    rows = reply["candidates"]
    rank = probability = None
    tied = 0
    against: tuple[str, ...] = ()
    for i, row in enumerate(rows, start=1):
        if scenario.agent in [c["id"] for c in row["chemicals"]]:
            rank, probability = i, row["probability"]
            against = tuple(row.get("answers_against") or ())
            tied = sum(r["probability"] == probability for r in rows) - 1
            break
    lead = rows[0] if rows else {"chemicals": [], "probability": 0.0}
    names = [c["name"] for c in lead["chemicals"]]
    leader = names[0] + (f" (+{len(names) - 1} same profile)" if len(names) > 1 else "")
    top_class = reply["classes"][0] if reply["classes"] else {"class": "", "probability": 0.0}
    return Outcome(
        scenario=scenario.name,
        mode=mode,
        agent=scenario.agent,
        class_id=scenario.class_id,
        status=reply["status"],
        answers=answers,
        reported=len(scenario.reported),
        rank=rank,
        probability=probability,
        tied=tied,
        leader=leader if names else "(none)",
        leader_probability=lead["probability"],
        top_class=top_class["class"],
        top_class_probability=top_class["probability"],
        against=against,
        transcript=transcript,
    )


def canonicalizer():
    """Observation id, alias, label or synonym -> its current id, as the bundled KB names it."""
    from responder.kb import load_bundled

    kb = load_bundled()
    return lambda text: kb.symptom(text).id


def place(o: Outcome) -> str:
    if o.rank is None:
        return "out"
    if not o.possible:
        return "no fit"
    tie = f", tied with {o.tied}" if o.tied else ""
    return f"{o.rank} ({100 * o.probability:.0f}%{tie})"


def cell(o: Outcome) -> str:
    if o.class_right:
        top = "class ok"
    elif o.top_class_probability > 0:
        top = o.top_class
    else:
        top = "no class"
    return f"{place(o)}, {top}, {o.answers}"


def table(outcomes: list[Outcome], modes: tuple[str, ...]) -> str:
    by = {(o.scenario, o.mode): o for o in outcomes}
    names = list(dict.fromkeys(o.scenario for o in outcomes))
    head = "| scenario | agent | " + " | ".join(modes) + " |"
    lines = [head, "|---|---|" + "---|" * len(modes)]
    for name in names:
        first = by[(name, modes[0])]
        cells = " | ".join(cell(by[(name, m)]) for m in modes)
        lines.append(f"| {name} | {first.agent} | {cells} |")
    return "\n".join(lines)


def summary(outcomes: list[Outcome], modes: tuple[str, ...]) -> str:
    lines = []
    for mode in modes:
        rows = [o for o in outcomes if o.mode == mode]
        n = len(rows)
        lines.append(
            f"{mode}: first {sum(o.first for o in rows)}/{n}, "
            f"top 5 {sum(o.top5 for o in rows)}/{n}, "
            f"class on top {sum(o.class_right for o in rows)}/{n}, "
            f"agent ruled out or no fit {sum(not o.possible for o in rows)}/{n}, "
            f"stopped before the limit {sum(o.status != 'asking' for o in rows)}/{n}; "
            f"questions after the reported facts {sum(o.answers - o.reported for o in rows)}, "
            f"answered can't tell {sum(t.endswith('=unknown') for o in rows for t in o.transcript)}"
        )
    return "\n".join(lines)


def misses(outcomes: list[Outcome]) -> str:
    lines = []
    for o in outcomes:
        if o.first:
            continue
        if o.rank is None:
            where = "ruled out"
        elif not o.possible:
            where = f"no chemical fits ({o.status}); the agent listed {o.rank}"
        else:
            where = f"rank {o.rank} at {100 * o.probability:.1f}%"
        against = f"; against it: {', '.join(o.against)}" if o.against else ""
        lines.append(
            f"- {o.scenario} ({o.mode}, {o.status}): {o.agent} {where}; led by {o.leader} "
            f"{100 * o.leader_probability:.1f}%, class {o.top_class} "
            f"{100 * o.top_class_probability:.1f}%{against}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated answer modes")
    parser.add_argument("--scenarios", type=Path, default=SCENARIOS, help="folder of TOML sheets")
    parser.add_argument("--max-answers", type=int, default=MAX_ANSWERS)
    parser.add_argument("--json", type=Path, help="also write every outcome to this file")
    args = parser.parse_args(argv)
    modes = tuple(m.strip() for m in args.modes.split(",") if m.strip())
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        parser.error(f"--modes takes some of {', '.join(MODES)}, got {args.modes!r}")
    if args.max_answers < 1:
        parser.error("--max-answers must be at least 1")
    try:
        scenarios = load_scenarios(args.scenarios)
        canonical = canonicalizer()
        outcomes = [replay(s, m, canonical, args.max_answers) for s in scenarios for m in modes]
    except (ScenarioError, KeyError) as exc:
        print(f"textbook_scenarios: error: {exc}", file=sys.stderr)
        return 2
    print("Each cell: rank of the true agent (its probability), top class, answers given.\n")
    print(table(outcomes, modes))
    print()
    print(summary(outcomes, modes))
    print("\nNot first:")
    print(misses(outcomes))
    if args.json:
        args.json.write_text(
            json.dumps([asdict(o) for o in outcomes], indent=1) + "\n", encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
