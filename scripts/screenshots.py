"""Regenerate the app's SVG screenshots in screenshots/ (used by the README).

    python scripts/screenshots.py [--kb NAME|PATH] [--out screenshots]

Drives the real app with Textual's Pilot on a private RESPONDER_HOME (your own settings and
incidents are never touched), on the bundled knowledge base by default, at the design size
80x24 (``--size 120x36`` for another). The answers come from one chemical's own symptom
profile, so the interview ends in a result.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZE = (80, 24)


async def _settle(pilot, seconds: float = 0.0) -> None:
    await pilot.pause()
    await pilot.pause(seconds) if seconds else None
    await pilot.pause()


async def _wait_remaining(pilot, app, timeout: float = 60.0) -> None:
    waited = 0.0
    while app.interview_screen.remaining is None and waited < timeout:
        await pilot.pause(0.1)
        waited += 0.1


async def _new_interview(pilot, app) -> None:
    """Settle; decline the resume offer an earlier run's interview brings up; skip the scene
    step a new interview opens with."""
    await _settle(pilot)
    if app.interview_screen is None:
        await pilot.press("n")
        await _settle(pilot, 0.2)
    if type(app.screen).__name__ == "SceneScreen":
        await pilot.press("escape")
        await _settle(pilot)


async def _volunteer(pilot, app, query: int, typed: str) -> None:
    """Answer "yes" to ``query`` through the / search, as a responder would."""
    await pilot.press("slash")
    await _settle(pilot)
    await pilot.press(*typed, "enter")
    await _settle(pilot)
    app.screen.chosen = query  # exactly this symptom, whatever the search ranked first
    await pilot.press("y")
    await _settle(pilot)


def _pick_chemical(app, wanted: str | None):
    kn = app.knowledge
    if wanted and kn.chemical_index(wanted) is not None:
        return kn.chemicals[kn.chemical_index(wanted)]
    for name in ("Sarin (GB)", "Sarin", "Hydrogen cyanide", "Chlorine"):
        if kn.chemical_index(name) is not None:
            return kn.chemicals[kn.chemical_index(name)]
    return kn.chemicals[0]


async def shoot(
    kb: str | None, out: Path, chemical: str | None, size: tuple[int, int] = SIZE
) -> list[Path]:
    from responder.app.main import prepare
    from responder.app.widgets.panels import QuestionPanel
    from responder.engine.state import Status

    written: list[Path] = []

    def save(app, name: str) -> None:
        path = app.save_screenshot(path=str(out), filename=f"{name}.svg")
        written.append(Path(path))

    app = prepare(kb)
    async with app.run_test(size=size) as pilot:
        await _settle(pilot, 0.3)
        target = _pick_chemical(app, chemical)
        kn = app.knowledge
        panel = app.interview_screen.query_one(QuestionPanel)

        # 0. the scene step a new interview opens with: one of the target's scene facts keyed
        if type(app.screen).__name__ == "SceneScreen":
            page = app.screen.steps[0]
            keyed = next((o.key for o in page.options if o.observation.id in target.symptoms), None)
            if keyed:
                await pilot.press(keyed)
                await _settle(pilot)
            await _wait_remaining(pilot, app)
            save(app, "scene")
            await pilot.press("escape")
            await _settle(pilot)

        async def answer_one() -> None:
            q = panel.selected_query
            await pilot.press("y" if kn.symptoms[q].id in target.symptoms else "n")
            await _settle(pilot)

        # 1. main screen after two answers
        for _ in range(2):
            await answer_one()
        await _wait_remaining(pilot, app)
        save(app, "main")

        # 2. a category question
        await pilot.press("m")
        await _settle(pilot)
        await _wait_remaining(pilot, app)
        save(app, "category")

        # 3. noise mode (strict answers, v; then e), with one more answer
        await pilot.press("m")
        await _settle(pilot)
        if app.interview.mode == "evidence":
            await pilot.press("v")
            await _settle(pilot)
        await pilot.press("e")
        await _settle(pilot)
        await answer_one()
        await _wait_remaining(pilot, app)
        save(app, "noise")
        await pilot.press("v")  # back to the evidence mode
        await _settle(pilot)

        # 3b. a second victim of the same incident, one answer each
        await pilot.press("plus")
        await _settle(pilot)
        await answer_one()
        await _wait_remaining(pilot, app)
        save(app, "victims")
        await pilot.press("1")
        await _settle(pilot)

        # 4. the volunteer search
        await pilot.press("slash")
        await _settle(pilot)
        await pilot.press(*"breath")
        await _settle(pilot)
        save(app, "volunteer")
        await pilot.press("escape", "escape")
        await _settle(pilot)

        # 5. the end of the interview (its result is shot in step 8)
        while app.interview.status is Status.ASKING:
            await answer_one()
        await _settle(pilot, 0.3)
        await pilot.press("escape")
        await _settle(pilot)

        # 6. history, help, browse
        await pilot.press("h")
        await _settle(pilot)
        save(app, "history")
        await pilot.press("escape")
        await _settle(pilot)
        await pilot.press("question_mark")
        await _settle(pilot)
        save(app, "help")
        await pilot.press("escape")
        await _settle(pilot)
        await pilot.press("b")
        await _settle(pilot)
        await pilot.press(*target.name.split()[0].lower())
        await _settle(pilot)
        save(app, "browse")

    # 7. the chlorine release: one honest sign chlorine's sources do not list
    # ("stomach pain"), then answers from chlorine's profile. Mid-way the candidates show the
    # answers against each chemical; the result shows what to do now and the contradiction.
    app = prepare(kb)
    async with app.run_test(size=size) as pilot:
        await _new_interview(pilot, app)
        kn = app.knowledge
        chlorine, pain = kn.chemical_index("Chlorine"), kn.symptom_index("abdominal_pain")
        if chlorine is not None and pain is not None:
            target = kn.chemicals[chlorine]
            panel = app.interview_screen.query_one(QuestionPanel)
            await _volunteer(pilot, app, pain, "stomach pain")
            asked = 1
            while app.interview.status is Status.ASKING and asked < 60:
                q = panel.selected_query
                await pilot.press("y" if kn.symptoms[q].id in target.symptoms else "n")
                await _settle(pilot)
                asked += 1
                if asked == 7:
                    await _wait_remaining(pilot, app)
                    save(app, "explain")
            await _settle(pilot, 0.3)
            save(app, "result")

    # 8. no chemical fits, in the paper's strict mode (evidence mode eliminates nobody)
    app = prepare(kb)
    async with app.run_test(size=size) as pilot:
        await _new_interview(pilot, app)
        if app.interview.mode == "evidence":
            await pilot.press("v")
            await _settle(pilot)
        kn = app.knowledge
        B = kn.problem.matrix
        # answer "yes" to the most common symptom and "yes" to one no chemical with it has
        common = int(B.sum(axis=0).argmax())
        with_it = B[:, common]
        rare = next(
            (j for j in range(B.shape[1]) if B[:, j].any() and not (B[:, j] & with_it).any()), None
        )
        if rare is not None:
            for q in (common, rare):
                await _volunteer(pilot, app, q, kn.symptoms[q].label.lower()[:12])
            await _settle(pilot, 0.3)
            if app.interview.status is Status.INCONSISTENT:
                save(app, "inconsistent")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", default=None, help="knowledge base (default: bundled)")
    parser.add_argument("--out", default=str(ROOT / "screenshots"), help="output folder")
    parser.add_argument("--chemical", default=None, help="chemical whose profile answers")
    parser.add_argument("--size", default="80x24", help="terminal size, WIDTHxHEIGHT")
    args = parser.parse_args(argv)
    size = tuple(int(n) for n in args.size.lower().split("x"))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as home:
        os.environ["RESPONDER_HOME"] = home
        written = asyncio.run(shoot(args.kb, out, args.chemical, size))
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
