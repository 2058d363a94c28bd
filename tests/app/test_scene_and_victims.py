"""The scene step, several victims and one-key group answers, through the keyboard."""

from __future__ import annotations

import re

from app_helpers import notified, settle, until
from conftest import make_app
from test_snapshots import screen_text

from responder.app.screens.interview import InterviewScreen
from responder.app.screens.scene import SceneScreen
from responder.app.widgets.panels import QuestionPanel, VictimsStrip
from responder.core import views
from responder.engine.state import Answer

SIZE = (80, 24)


def rendered(widget) -> str:
    return str(widget.render())


async def test_a_new_interview_opens_with_the_scene_step_and_keys_answer_it():
    app = make_app(None, scene_first=True)  # the bundled knowledge base records the scene
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, SceneScreen))
        step = views.scene_steps(app.interview)[0]
        assert step.category.id == "odour"
        bleach = next(o for o in step.options if o.observation.id == "odour_bleach")
        await pilot.press(bleach.key)
        await settle(pilot)
        it = app.interview
        q = bleach.observation.index
        assert it.answer_of(q) is Answer.YES and it.record_of(q).volunteered
        await pilot.press(bleach.key)  # again: taken back
        await settle(pilot)
        assert it.answer_of(q) is None
        await pilot.press(bleach.key)
        await pilot.press("enter")  # next page: what was seen
        await settle(pilot)
        assert "What was seen" in str(app.screen.query_one("#scene-dialog").border_title)
        await pilot.press("escape")  # skip the rest
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        assert it.answer_of(q) is Answer.YES and len(it.records) == 1
        await pilot.press("s")  # any time again
        assert await until(pilot, lambda: isinstance(app.screen, SceneScreen))


async def test_a_scene_answer_implied_by_another_is_marked_and_not_toggled():
    app = make_app(None, scene_first=True)
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, SceneScreen))
        it = app.interview
        powder = it.knowledge.symptom_index("powder_white")
        solid = it.knowledge.symptom_index("state_solid")
        it.answer(powder, Answer.YES)  # what was seen: a white powder
        steps = views.scene_steps(it)
        option = next(o for s in steps for o in s.options if o.observation.index == solid)
        assert option.answer is Answer.YES and option.implied
        await pilot.press("enter")  # to "What was seen"
        await pilot.press("enter")  # to the form: "A solid or powder" is ticked already
        await settle(pilot)
        assert "Form of the chemical" in str(app.screen.query_one("#scene-dialog").border_title)
        await pilot.press(option.key)  # pressing it changes nothing: it follows from the powder
        await settle(pilot)
        assert it.answer_of(solid) is Answer.YES and it.record_of(solid) is None
        assert it.answer_of(powder) is Answer.YES


async def test_the_scene_step_is_off_when_the_settings_say_so():
    app = make_app(None, scene_first=False)
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await settle(pilot, 4)
        assert isinstance(app.screen, InterviewScreen)


def show_question(app, *ids: str) -> None:
    """Put a question up directly, whatever the engine suggests: the signs ``ids`` (the
    first one suggested) with their exclusive group, if any."""
    it, kn = app.interview, app.knowledge
    items = tuple(
        views.QuestionItem(q, True, 0.5, it.state.is_shared(q.index))
        for q in (kn.symptoms[kn.symptom_index(i)] for i in ids)
    )
    group = views.exclusive_group(it, kn.symptom_index(ids[0]))
    view = views.QuestionView("symptom", None, items, group=group, victim=views.asked_victim(it))
    app.interview_screen.query_one(QuestionPanel).show(views.PromptView(view, it.status, it.mode))


async def test_plus_adds_a_victim_and_number_keys_switch():
    app = make_app(None)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        strip = app.interview_screen.query_one(VictimsStrip)
        assert not strip.display  # one victim: no strip
        show_question(app, "cough")  # a sign of the victim (a scene fact is the incident's)
        await pilot.press("y")
        await settle(pilot)
        first = app.interview.records[0].query
        await pilot.press("plus")
        await settle(pilot)
        it = app.interview
        assert len(it.victims) == 2 and it.victim == 1 and strip.display
        assert await notified(pilot, app, "Several people ill at once: yes (z takes it back)")
        assert "V2 (0)" in rendered(strip) or "Victim 2 (0)" in rendered(strip)
        show_question(app, "headache")
        await pilot.press("y")
        await settle(pilot)
        # victim 2 made it "several victims", the incident's answer (-1)
        assert [r.victim for r in it.records] == [0, -1, 1]
        # the status line counts this victim's answers (and the incident's), and all of them
        status = views.status_view(it)
        assert (status.asked, status.asked_in_all) == (2, 3)
        assert "Asked 2 · all 3" in screen_text(app)
        several = app.knowledge.symptom_index("pattern_several_victims")
        assert it.answer_of(several) is Answer.YES
        await pilot.press("1")
        await settle(pilot)
        assert it.victim == 0 and it.answer_of(first) is Answer.YES
        await pilot.press("2")
        await settle(pilot)
        assert it.victim == 1
        await pilot.press("3")  # no third victim: nothing happens
        await settle(pilot)
        assert it.victim == 1


async def test_zero_answers_an_exclusive_group_with_none_of_these():
    app = make_app(None)
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        it = app.interview
        kn = app.knowledge
        pupils = kn.symptom_index("pinpoint_pupils")
        show_question(app, "pinpoint_pupils")
        await settle(pilot)
        from test_snapshots import screen_text

        assert "normal size" in screen_text(app)
        await pilot.press("0")
        await settle(pilot)
        wide = kn.symptom_index("dilated_pupils")
        assert it.answer_of(pupils) is Answer.NO and it.answer_of(wide) is Answer.NO


async def test_an_exclusive_group_is_one_question_and_y_answers_the_chosen_value():
    app = make_app(None)
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        it = app.interview
        kn = app.knowledge
        small, wide = kn.symptom_index("pinpoint_pupils"), kn.symptom_index("dilated_pupils")
        show_question(app, "pinpoint_pupils", "dilated_pupils")
        await settle(pilot)
        from test_snapshots import screen_text

        text = screen_text(app)
        assert "Does the victim have:  Pinpoint pupils" in text  # then, wrapped:
        assert "or  Wide (dilated) pupils?" in text
        assert "↑↓  choose" in text and "0  normal size" in text
        await pilot.press("down", "y")
        await settle(pilot)
        assert it.answer_of(wide) is Answer.YES
        assert it.answer_of(small) is Answer.NO and it.state.is_implied(small)


async def test_every_scene_page_shows_all_its_options_and_the_keys_line_at_80x24():
    app = make_app(None, scene_first=True)  # the bundled knowledge base: 20 places
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, SceneScreen))
        steps = views.scene_steps(app.interview)
        assert max(len(s.options) for s in steps) >= SIZE[1] - 4  # one a line fills the height
        for k, step in enumerate(steps):
            await settle(pilot)
            text = screen_text(app)
            assert "skip the scene" in text, step.category.id
            for option in step.options:
                assert f" {option.key} " in text, (step.category.id, option.key)
            if k < len(steps) - 1:
                await pilot.press("enter")


async def test_every_scene_label_is_read_whole_at_80x24_and_the_keys_line_stays_at_60x20():
    """At 80x24 the pages of two columns cut their longer labels: "Engine, generator, heater
    or …" (the carbon monoxide clue), "Swimming pool or water treatm…", "Sweet smell (like
    ether or ch…". A long label now wraps in its column while the rows allow."""
    app = make_app(None, scene_first=True)  # the bundled knowledge base: 20 places
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, SceneScreen))
        steps = views.scene_steps(app.interview)
        for k, step in enumerate(steps):
            await settle(pilot)
            text = screen_text(app)
            words = " ".join(text.split())
            assert "…" not in text, step.category.id
            for option in step.options:
                for word in option.observation.label.split():
                    assert f" {word} " in f" {words} ", (step.category.id, word)
            if k < len(steps) - 1:
                await pilot.press("enter")
        await pilot.press("left")
        await pilot.resize_terminal(60, 20)  # the places' page: too few rows to wrap them all
        await settle(pilot)
        text = screen_text(app)
        assert "skip the scene" in text
        for option in steps[-2].options:
            assert f" {option.key} " in text


async def test_undo_a_new_interview_and_a_resume_go_by_every_victims_answers():
    """With a second victim who had no answers yet, z was off and ctrl+n said "This
    interview has no answers yet" although the first victim had answers; and a resumed
    incident was said to have only the first victim's answers."""
    from responder.app.screens.confirm import ConfirmScreen
    from responder.app.screens.resume import ResumeScreen

    app = make_app()  # the small knowledge base: a second victim records no scene answer
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        show_question(app, "cough")
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("plus")
        await settle(pilot)
        it = app.interview
        assert (it.victim, it.asked, it.answered) == (1, 0, 1)
        await pilot.press("ctrl+n")
        assert await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("escape")
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await pilot.press("z")  # takes back the first victim's answer
        await settle(pilot)
        assert it.records == []
        show_question(app, "cough")
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        show_question(app, "tearing")
        await pilot.press("y")
        await settle(pilot)
        assert (it.asked, it.answered) == (1, 2)
    again = make_app()
    async with again.run_test(size=SIZE, notifications=True) as pilot:
        assert await until(pilot, lambda: isinstance(again.screen, ResumeScreen))
        await pilot.press("enter")
        assert await notified(pilot, again, "with 2 answers")


async def test_the_strict_mode_names_the_one_victim_it_reads():
    app = make_app()  # the fixture knowledge base, strict mode
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await pilot.press("y")
        await settle(pilot)
        assert "reads" not in screen_text(app)
        await pilot.press("plus")
        await settle(pilot)
        assert "strict mode reads V2's answers only; evidence (v) pools all" in screen_text(app)
        await pilot.press("1")
        await settle(pilot)
        assert await notified(pilot, app, "Strict mode reads one victim, Victim 1: their answers")
        await pilot.pause()
        assert "strict mode reads V1's answers only" in screen_text(app)
        await pilot.press("v")  # the evidence mode: every victim's answers count
        await settle(pilot)
        assert "reads V1" not in screen_text(app)
        await pilot.press("v")  # back to strict: the mode-change notice names the victim
        await settle(pilot)
        assert await notified(pilot, app, "removes it. Strict mode reads one victim, Victim 1")


async def test_nine_victims_fit_the_strip_at_80_columns():
    """A busy scene at 80x24: every victim's number, the current one, a life-threatening
    sign's mark and + add stay on the strip, none cut off."""
    app = make_app(None)
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        urgent = next(s for s in app.knowledge.symptoms if s.urgent and s.kind == "symptom")
        for _ in range(8):
            await pilot.press("plus")
            await settle(pilot)
        await pilot.press("7")
        await settle(pilot)
        show_question(app, urgent.id)
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("9")
        await settle(pilot)
        assert len(app.interview.victims) == 9 and app.interview.victim == 8
        strip = rendered(app.interview_screen.query_one(VictimsStrip))
        assert "…" not in strip
        assert all(f" {n} " in strip for n in range(1, 10)), strip
        assert "!" in strip and strip.rstrip().endswith("+  add"), strip


async def test_fifty_victims_keep_the_one_being_asked_in_view_with_the_others_counted():
    """A mass-casualty scene at 80 columns: the strip was cut after victim 11, so victim 38
    being asked, and a life-threatening mark on victim 3, were out of view."""
    app = make_app(None)
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        strip = app.interview_screen.query_one(VictimsStrip)
        rows = [views.VictimView(v, f"Victim {v + 1}", 3, v == 2, v == 37) for v in range(50)]
        strip.show(rows)
        text = rendered(strip)
        shown = [int(n) for n in re.findall(r" (\d+) \(", text)]
        before = int(re.search(r"‹(\d+)!", text)[1])  # "!": victim 3 is among them
        after = int(re.search(r"(\d+)›", text)[1])
        assert 38 in shown and "…" not in text and text.rstrip().endswith("+  add"), text
        assert shown == list(range(before + 1, before + len(shown) + 1))
        assert before + len(shown) + after == 50 and len(shown) >= 7
        assert len(text.rstrip()) <= SIZE[0] - 2


async def test_undo_says_whose_answer_it_took_back():
    """z takes back the incident's last answer, whoever is being asked: on victim 1 it took
    back victim 2's drooling and said only 'Undone: Drooling, lots of saliva (yes).'"""
    app = make_app(None)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await pilot.press("plus")
        await settle(pilot)
        show_question(app, "drooling")
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        assert app.interview.victim == 0
        await pilot.press("z")
        await settle(pilot)
        assert await notified(pilot, app, "Undone: Victim 2's Drooling, lots of saliva (yes).")


async def test_the_scene_step_leaves_the_status_figures_in_sight_with_a_notice_below():
    """A bad settings.toml puts a notice on the status line (two rows): the scene dialog of
    the bundled knowledge base (17 smells) covered its first row, Asked/Left/mode."""
    from responder.settings import settings_path

    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text("theme = 5\n[[[", encoding="utf-8")
    app = make_app(None, mode=None)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await until(pilot, lambda: type(app.screen).__name__ == "SceneScreen")
        await settle(pilot)
        lines = screen_text(app).splitlines()
        status = [line.strip() for line in lines[-4:-1]]  # above the keys line
        assert status[0].startswith("Asked 0") and status[1].startswith("Settings not used")
        assert "Scene 1/7" in "\n".join(lines) and "h  " in "\n".join(lines)  # every smell


async def test_plus_adds_victims_past_the_ninth_up_to_the_incidents_limit(monkeypatch):
    """A subway attack, victims added one after another: the tenth "+" said "No victim
    added: + adds nine victims at most", while an incident holds 100 (the protocol names
    that many, the palette turns to each). + now adds up to the incident's limit at 80x24:
    a victim past the ninth is asked at once, the notice says ctrl+p "Ask victim 10" turns
    back to them (keys 1-9 reach the first nine), the victims bar keeps them in view, and
    only the incident's limit refuses one, in words that say it was not added."""
    from app_helpers import all_notifications_shown, toasts

    from responder.app.commands import InterviewCommands
    from responder.core import session

    monkeypatch.setattr(session, "MAX_VICTIMS", 12)  # the limit, reached in fewer presses
    app = make_app(None, mode=None)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        it = app.interview
        for _ in range(8):
            await pilot.press("plus")
            await settle(pilot, 3)
        assert len(it.victims) == 9
        await pilot.press("plus")
        await settle(pilot, 3)
        await all_notifications_shown(pilot, app)
        assert len(it.victims) == 10 and it.victim == 9
        said = " ".join(toasts(app))
        assert "Victim 10 added" in said and "Ask victim 10" in said, said
        strip = app.screen.query_one(VictimsStrip)
        assert re.search(r"\b10\b", rendered(strip)), rendered(strip)
        await pilot.press("1")  # the number keys still reach the first nine
        await settle(pilot)
        assert it.victim == 0
        provider = InterviewCommands(app.interview_screen)
        hits = [h async for h in provider.search("ask victim 10")]
        assert str(hits[0].text) == "Ask victim 10"
        hits[0].command()
        await settle(pilot)
        assert it.victim == 9
        for _ in range(2):
            await pilot.press("plus")
            await settle(pilot, 3)
        assert len(it.victims) == 12
        app.screen.query("Toast").remove()
        await pilot.press("plus")
        await settle(pilot, 3)
        await all_notifications_shown(pilot, app)
        assert len(it.victims) == 12
        said = " ".join(toasts(app))
        assert "No victim added" in said and "holds 12 victims at most" in said, said
        assert "nine" not in said


def test_the_help_and_the_readme_say_what_plus_and_the_number_keys_reach():
    """The help and the README said + adds nine; both now say it adds up to the incident's
    limit, and that keys 1-9 reach the first nine and ctrl+p every victim."""
    from pathlib import Path

    from responder.app.screens import help as help_screen
    from responder.core.session import MAX_VICTIMS

    about = {term: text for _, entries in help_screen.ABOUT for term, text in entries}
    assert f"+ adds one (up to {MAX_VICTIMS}), 1-9 switch to the first nine" in about["Victims"]
    assert "ctrl+p 'Ask victim 12' to any" in about["Victims"]
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert f"`+` adds victims up to the incident's limit of {MAX_VICTIMS}" in readme
    assert "adds nine" not in readme


async def test_minus_takes_back_a_victim_added_by_mistake_and_keeps_one_with_answers():
    """+ pressed once too often left an empty victim that was stored, shown and exported:
    - takes them back (stored, so the incident reads back with the same victims); a victim
    with answers stays, and one message says why and how to take the answers back."""
    from app_helpers import all_notifications_shown, toasts

    from responder.core.store import find_incident

    app = make_app(None, mode=None)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        it = app.interview
        show_question(app, "cough")
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("plus")
        await settle(pilot)
        show_question(app, "headache")
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("plus")  # once too often
        await settle(pilot)
        strip = app.interview_screen.query_one(VictimsStrip)
        assert len(it.victims) == 3 and "-  remove" in rendered(strip), rendered(strip)
        await pilot.press("minus")
        await settle(pilot)
        assert len(it.victims) == 2 and it.victim == 1
        assert "3 (" not in rendered(strip) and "V3" not in rendered(strip)
        assert "-  remove" not in rendered(strip)  # victim 2 has an answer
        await pilot.press("minus")
        await settle(pilot)
        await all_notifications_shown(pilot, app)
        said = " ".join(toasts(app))
        assert "Victim 3 removed (no answers); answers now go to Victim 2." in said, said
        assert (
            "Victim 2 has 1 answer and is not removed: only a victim with no answers can be. "
            "To take answers back, press z (the last answer) or h (any answer; d removes it)."
        ) in said, said
        assert len(it.victims) == 2 and [r.victim for r in it.records] == [0, -1, 1]
        data, _ = find_incident(it.id)
        assert data.victim_names() == ["", ""] and data.current_victim == 1


async def test_the_help_and_a_wide_footer_list_the_key_that_removes_a_victim():
    from responder.app.screens.help import HelpScreen

    app = make_app(None, mode=None)
    async with app.run_test(size=(200, 90)) as pilot:
        await settle(pilot)
        await pilot.press("plus")
        await settle(pilot)
        assert "- Remove victim" in screen_text(app).splitlines()[-1]
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        text = " ".join(screen_text(app).split())
        assert "Remove a victim added by mistake: the last one, while they have no answers" in text
        # the help's text column (between its scrollbars), read across its wrapped lines
        lines = [line.split("█")[1] for line in screen_text(app).splitlines() if "█" in line]
        assert "- takes back the last one added by mistake" in " ".join(" ".join(lines).split())


async def test_the_scene_pages_answered_per_victim_name_the_victim_they_go_to():
    """Four victims at a pool, Victim 2 being asked, `s`: "Scene 4/7: When the signs began"
    and "How the victim was exposed" recorded their keys for Victim 2 alone without saying
    so, beside pages (the smell, the place) answered once for everyone."""
    from app_helpers import static_text

    app = make_app(None, mode=None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("plus")
        await settle(pilot, 3)
        await pilot.press("s")
        assert await until(pilot, lambda: isinstance(app.screen, SceneScreen))
        dialog = app.screen.query_one("#scene-dialog")
        seen = {}
        for _ in views.scene_steps(app.interview):
            check = static_text(app.screen.query_one("#scene-check"))
            seen[str(dialog.border_title)] = " ".join(check.split())
            await pilot.press("right")
            await settle(pilot)
        kn, state = app.knowledge, app.interview.state
        for step in views.scene_steps(app.interview):
            title = next(t for t in seen if f": {step.category.label}" in t)
            per_victim = not state.is_shared(step.options[0].observation.index)
            assert ("Victim 2" in title) is per_victim, title
            assert ("Victim 2" in seen[title]) is per_victim, seen[title]
        assert any("Victim 2" in t for t in seen) and not all("Victim 2" in t for t in seen)
        onset = kn.symptom_index("onset_minutes")
        assert not state.is_shared(onset)


async def test_the_question_panels_title_names_a_long_category_whole_at_80x24():
    """At 80x24 the question panel's title read "Ask next · Ears, nose, throat and mou…" and
    "Ask next · Where, and what was going …": the category, whole, is the title then."""
    app = make_app(None)
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        for symptom, category in [
            ("runny_nose", "Ears, nose, throat and mouth"),
            ("setting_factory", "Where, and what was going on"),
        ]:
            show_question(app, symptom)
            await settle(pilot)
            title = app.interview_screen.query_one(QuestionPanel).border_title
            assert title == category, title
            assert f"─ {category} ─" in screen_text(app)
        show_question(app, "cough")
        await settle(pilot)
        assert app.interview_screen.query_one(QuestionPanel).border_title == "Ask next · Breathing"
