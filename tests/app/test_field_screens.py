"""Field use: next steps on the result and in the export, the act-now banner, `r` without a
result, where notifications sit, readable candidate names and a footer that fits."""

from __future__ import annotations

import json

import pytest
from app_helpers import answer_from_row, notified, settle, static_text, toasts, until
from conftest import SIZE, make_app

from responder.app.screens.interview import InterviewScreen
from responder.app.screens.result import ResultScreen
from responder.app.widgets.notice import NoticeLine
from responder.core import views
from responder.core.export import export_interview, report, to_markdown
from responder.engine.state import Answer
from responder.kb.next_steps import act_now_message, steps_for


def _index(app, symptom_id: str) -> int:
    return next(s.index for s in app.knowledge.symptoms if s.id == symptom_id)


async def test_result_screen_shows_next_steps_with_sources():
    app = make_app(None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await answer_from_row(pilot, app, "Sarin (GB)")
        assert isinstance(app.screen, ResultScreen)
        text = static_text(app.screen.query_one("#result-next"))
        assert "1-800-222-1222" in text
        assert "atropine" in text and "pralidoxime" in text
        assert "ATSDR Medical Management Guidelines for Nerve Agents" in text
        assert "No steps specific" not in text


async def test_a_class_without_steps_says_so_and_keeps_first_aid():
    app = make_app(None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # strychnine: the convulsants are a recorded gap and strychnine has no steps of its own
        await answer_from_row(pilot, app, "Strychnine")
        assert isinstance(app.screen, ResultScreen)
        text = static_text(app.screen.query_one("#result-next"))
        assert "No steps specific to" in text
        assert "fresh air" in text and "1-800-222-1222" in text
        # the class is a recorded gap: the screen says why, from kb/next_steps.toml
        gap = steps_for(app.knowledge).gaps["convulsants"]
        assert gap.label == "Convulsants" and "Why no steps for Convulsants:" in text
        assert gap.reason[:40] in " ".join(text.split())


async def test_export_carries_next_steps_and_names_every_chemical(home):
    app = make_app(None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await answer_from_row(pilot, app, "Hydrogen cyanide")
        it = app.interview
        result = views.result(it)
        data = report(it)
        names = [c["name"] for c in data["result"]["chemicals"]]
        assert names == [c.name for row in result.candidates for c in row.chemicals]
        ns = data["result"]["next_steps"]
        assert ns["poison_centre"]["line"] == "1-800-222-1222"
        assert any("antidote" in s["text"] for s in ns["steps"]["treatment"])
        assert {s["id"] for s in ns["sources"]} >= {"cdc_cyanide", "hrsa_poison_help"}
        md, js = export_interview(it, home / "out")
        markdown = md.read_text(encoding="utf-8")
        assert "### What to do now" in markdown and "Poison centre: 1-800-222-1222" in markdown
        assert "<https://www.cdc.gov/chemicalemergencies/factsheets/cyanide.html>" in markdown
        if len(names) > 1:
            assert all(n in markdown for n in names)
        assert json.loads(js.read_text(encoding="utf-8"))["result"]["next_steps"] == ns


def test_markdown_lists_the_chemicals_of_a_several_chemical_result():
    data = {
        "knowledge_base": {"name": "k", "chemicals": 2, "symptoms": 1, "digest": ""},
        "modes": {
            "target": "chemical",
            "suggest": "symptom",
            "policy": "gbs",
            "noise": {"enabled": False, "eps": 0, "model": 1},
        },
        "disclaimer": "d",
        "interview_id": "i",
        "started_at": "s",
        "exported_at": "e",
        "app_version": "v",
        "status": "indistinguishable",
        "questions_asked": 3,
        "answers": [],
        "candidates": [],
        "classes": [],
        "result": {
            "kind": "set",
            "title": "A, B",
            "headline": "A or B",
            "sources": [],
            "chemicals": [
                {"name": "Alpha", "cas": "1-1-1", "class": "X"},
                {"name": "Beta", "cas": "", "class": "X"},
                {"name": "Smoke", "cas": "", "mixture": True, "class": "X"},
            ],
            "next_steps": {"poison_centre": None, "specific": False, "steps": {}, "sources": []},
            "profile": [],
        },
    }
    md = to_markdown(data)
    assert "- Alpha (CAS 1-1-1; X)" in md and "- Beta (CAS —; X)" in md
    assert "- Smoke (mixture, no CAS number; X)" in md
    assert "No steps specific to A, B" in md
    assert "Why no steps" not in md  # an export written before [[gap]] existed has no gaps key
    data["result"]["next_steps"]["gaps"] = [{"class": "x_class", "reason": "nothing read"}]
    assert "- Why no steps for x_class: nothing read" in to_markdown(data)


def test_act_now_message():
    assert act_now_message([], None) is None
    msg = act_now_message(["Stopped breathing", "Stopped breathing", "Seizures (fits)"], None)
    assert msg.count("Stopped breathing") == 1 and "Seizures" in msg and "911" in msg


async def test_urgent_yes_raises_a_banner_that_never_blocks():
    app = make_app(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.interview_screen
        banner = screen.query_one("#act-now")
        assert not banner.display
        app.record_answer(_index(app, "respiratory_arrest"), Answer.YES, volunteered=True)
        await settle(pilot)
        assert banner.display
        assert "Stopped breathing" in str(banner.render())
        assert "1-800-222-1222" in str(banner.render())
        assert isinstance(app.screen, InterviewScreen)  # no dialog to dismiss
        before = app.interview.asked
        await pilot.press("n")  # the next question is answered as usual
        await settle(pilot)
        assert app.interview.asked == before + 1
        assert banner.display
        # an urgent "no" raises nothing; undoing the "yes" clears it
        app.change_answer(_index(app, "respiratory_arrest"), Answer.NO)
        await settle(pilot)
        assert not banner.display


async def test_act_now_stays_when_switching_to_another_victim_and_names_whose_it_is():
    app = make_app(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        banner = app.interview_screen.query_one("#act-now")
        app.record_answer(_index(app, "respiratory_arrest"), Answer.YES, volunteered=True)
        app.add_victim()  # the second victim is now asked
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        assert app.interview.victim == 1
        assert banner.display
        assert "Victim 1: Stopped breathing" in str(banner.render())
        await pilot.press("1")
        await settle(pilot)
        assert banner.display and "Victim 1:" not in str(banner.render())


async def test_r_without_a_result_says_why():
    app = make_app(None)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, InterviewScreen)
        assert await notified(pilot, app, "No result yet")
        assert any(m.startswith("No result yet") for m in toasts(app))


def test_bundled_next_steps_load_without_problem():
    from responder.kb.resolve import load_knowledge

    ns = steps_for(load_knowledge(None))
    assert ns.problem == "" and ns.steps


async def test_a_bad_next_steps_file_is_one_notice_not_a_crash(tmp_path):
    import shutil

    from conftest import FIXTURE_KB

    kb = tmp_path / "kb"
    shutil.copytree(FIXTURE_KB, kb)
    (kb / "next_steps.toml").write_text('[[step]]\nfor = "nowhere"\n', encoding="utf-8")
    app = make_app(str(kb))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        assert await notified(pilot, app, "next steps not shown")
        assert isinstance(app.screen, InterviewScreen)


async def _toasts_of_a_notice(pilot, app) -> list:
    """The toasts on screen once a notice long enough to wrap has been shown."""
    app.notify("hello there, a notice of some length to see where it wraps", timeout=10)
    assert await notified(pilot, app, "hello there")
    await settle(pilot, 4)
    shown = list(app.screen.query("Toast"))
    assert shown
    return shown


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_a_toast_sits_over_the_answers_panel_only(size):
    app = make_app()
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(pilot)
        shown = await _toasts_of_a_notice(pilot, app)
        answers = app.screen.query_one("#answers-box").region
        for panel in ("#question", "#candidates", "#classes-box", "#status"):
            region = app.screen.query_one(panel).region
            assert not any(t.region.overlaps(region) for t in shown), panel
        assert all(answers.contains_region(t.region) for t in shown)


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_a_toast_stays_over_the_answers_panel_when_the_status_line_has_a_note(size):
    """With a note under the figures (a class drop, a notice) the status line grows to three
    rows; the toasts stayed three rows above the bottom and covered the figures' row."""
    app = make_app()
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(pilot)
        app.interview_screen.show_notice("a note " * 30, timeout=30)  # two rows of it
        await settle(pilot, 3)
        assert app.screen.query_one("#status").region.height == 3
        shown = await _toasts_of_a_notice(pilot, app)
        status = app.screen.query_one("#status").region
        assert not any(t.region.overlaps(status) for t in shown)
        answers = app.screen.query_one("#answers-box").region
        assert all(answers.contains_region(t.region) for t in shown)


async def test_no_toast_over_a_dialog_the_status_line_says_it():
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert app.screen.is_modal
        app.notify("Settings saved somewhere", timeout=10)
        await settle(pilot, 4)
        assert not list(app.screen.query("Toast"))
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, InterviewScreen)
        assert not list(app.screen.query("Toast"))
        assert "Settings saved somewhere" in static_text(app.screen.query_one("#status"))


@pytest.mark.parametrize("key", ["h", "question_mark"])
async def test_a_toast_showing_when_another_screen_opens_moves_to_its_status_line(key):
    """A toast given on the interview screen (here the one `z` gives, "Undone: ...") stayed
    drawn over the history screen or a dialog opened while it showed, as it did over the scene
    step a new interview opens with ("New interview started.")."""
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        app.notify("Undone: something earlier", timeout=10)
        assert await notified(pilot, app, "Undone")
        await pilot.press(key)
        await settle(pilot, 4)
        assert not isinstance(app.screen, InterviewScreen)
        assert not list(app.screen.query("Toast"))
        if app.screen.is_modal:  # a dialog: the interview's status line says it
            await pilot.press("escape")
            await settle(pilot)
            assert isinstance(app.screen, InterviewScreen)
            shown = static_text(app.screen.query_one("#status"))
        else:  # a screen of its own: its notice line
            shown = static_text(app.screen.query_one(NoticeLine))
        assert "Undone: something earlier" in shown


async def test_a_long_toast_moved_to_the_status_line_is_read_in_full():
    """`+` then `/` at once: the new victim's toast went to the status line cut to one row
    ("... number ke…"); it now wraps to a second row, the figures still first."""
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("plus", "slash")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, InterviewScreen)
        rows = static_text(app.screen.query_one("#status")).splitlines()
        assert rows[0].startswith("Asked 0") and len(rows) == 3
        said = " ".join(" ".join(rows[1:]).split())
        assert "Scene answers are shared; number keys switch victims." in said


async def test_a_start_up_notice_is_not_drawn_over_the_scene_step(home):
    """A notice from start-up (here the damaged incident database set aside) was posted as
    a toast just before the scene step opened, and shown over the scene dialog when it
    arrived: the move of the toasts showing to the status line came before it."""
    from responder.app.screens.scene import SceneScreen

    (home / "data").mkdir(parents=True)
    (home / "data" / "incidents.sqlite").write_bytes(b"not a database " * 500)
    app = make_app(None, scene_first=True)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, SceneScreen))
        await settle(pilot, 6)
        assert not list(app.screen.query("Toast"))
        assert "incident database was unusable" in static_text(
            app.interview_screen.query_one("#status")
        )


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_an_identical_profile_row_names_every_chemical_in_full(size):
    """A row of chemicals with the same profile named only the first ("Tabun (GA) +1 same
    symptoms"): now every name, wrapped to the column, with the class's short label."""
    from responder.app.widgets.panels import CandidatesTable

    app = make_app(None)  # bundled knowledge base, strict mode
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for q in (_index(app, "pinpoint_pupils"), _index(app, "slow_breathing")):
            app.record_answer(q, Answer.YES)
        await settle(pilot)
        table = app.interview_screen.query_one(CandidatesTable)
        rows = views.candidates(app.interview)
        k, shared = next((k, r) for k, r in enumerate(rows) if len(r.chemicals) > 2)
        labels = [str(c.label) for c in table.ordered_columns]
        name_col = next(i for i, label in enumerate(labels) if label.startswith("Chemical"))
        cell = str(table.get_row_at(k)[name_col])
        width = table.ordered_columns[name_col].get_render_width(table) - 2
        assert table.virtual_size.width <= table.size.width  # nothing scrolls sideways
        lines = cell.split("\n")
        assert all(len(line) <= width for line in lines) and "…" not in cell
        flat = " ".join(lines)
        assert all(c.name in flat for c in shared.chemicals), flat
        short = shared.chemicals[0].class_short
        assert short in cell or short in str(table.get_row_at(k)[labels.index("Class")])


@pytest.mark.parametrize("width", [80, 100, 120, 140, 184, 185, 200])
async def test_the_footer_never_overflows_and_keeps_the_essential_keys(width):
    """The footer lost keys (80 columns) and, with the evidence mode's extra key, overflowed
    at 120 ("? ▏^p palettet"): mode keys now leave it whenever all would not fit."""
    from test_snapshots import screen_text

    app = make_app(None, mode=None)  # evidence mode: every mode key is bound
    async with app.run_test(size=(width, 30)) as pilot:
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot, 3)
        footer = screen_text(app).rstrip("\n").split("\n")[-1]
        wide = width >= app.interview_screen.footer_width()
        assert len(footer) <= width and "^q Quit" in footer, footer  # quit, always
        assert footer.rstrip().endswith("^p palette") == wide, footer
        for key in (
            "y Yes",
            "n No",
            "u Can't tell",
            "z Undo",
            "/ Symptom",
            "h History",
            "r Result",
            "? Help",
        ):
            assert key in footer, (key, footer)
        # the bundled key map needs 185 columns for every key (scene, adding and removing a
        # victim, and quit included) and the palette's hint
        assert wide == (width >= 185)
        assert ("v Evidence/strict" in footer) == wide and ("t Target" in footer) == wide


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_several_toasts_at_once_stay_over_the_answers_panel(size):
    """Victims added one after another each say so: the toasts stack up, but only as far as
    the answers panel; the newest is the one in view."""
    app = make_app()
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(pilot)
        for n in range(1, 5):
            app.notify(f"notice {n}: a notice of some length to see where it wraps", timeout=10)
        assert await notified(pilot, app, "notice 4")
        await settle(pilot, 4)
        answers = app.screen.query_one("#answers-box").region
        shown = [t for t in app.screen.query("Toast") if t.region.area]  # not scrolled away
        for panel in ("#question", "#candidates", "#classes-box", "#status", "#titlebar"):
            region = app.screen.query_one(panel).region
            assert not any(t.region.overlaps(region) for t in shown), panel
        assert all(answers.contains_region(t.region) for t in shown)
        assert any("notice 4" in str(t.render()) for t in shown)


async def test_an_earlier_toast_comes_back_when_the_newest_goes():
    app = make_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        app.notify("the earlier notice", timeout=10)
        app.notify("the newest notice", timeout=0.3)
        assert await notified(pilot, app, "the newest notice")
        assert await until(pilot, lambda: not any("newest" in t for t in toasts(app)))
        await settle(pilot, 4)
        shown = [t for t in app.screen.query("Toast") if t.region.area]
        assert [str(t.render()) for t in shown] == ["the earlier notice"]


async def test_a_start_up_notice_is_shown_in_full_once_the_scene_step_closes(home):
    """While the scene step that opens a new interview is up, a notice of start-up can only
    have the status line's one line: at 80 columns 'Settings not used, defaults instead:
    /…/config/settings.t…', cut before what is wrong, and gone before the seven scene pages
    are done. Once the scene step closes it is shown in full."""
    from responder.app.screens.scene import SceneScreen

    (home / "config").mkdir(parents=True)
    (home / "config" / "settings.toml").write_text('mode = "evidance"\nscene_first = true\n')
    app = make_app(None)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, SceneScreen))
        await settle(pilot, 6)
        await pilot.press("escape")
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        assert await notified(pilot, app, "mode = 'evidance' is not allowed")
        assert "Settings not used" not in static_text(app.interview_screen.query_one("#status"))


@pytest.mark.parametrize("size", [(80, 24), (140, 30)])
async def test_the_title_and_browse_count_a_small_knowledge_base_in_words(tmp_path, size):
    """A knowledge base of one chemical read 'one: 1 chemicals, 1 symptoms' on the top line
    and '1 chemicals, 1 symptoms, 1 classes' in browse."""
    from test_snapshots import screen_text

    from responder.app.screens.browse import BrowseScreen
    from responder.app.widgets.panels import TitleBar

    path = tmp_path / "one.csv"
    path.write_text("name,class,Cough\nChlorine,Irritants,1\n", encoding="utf-8")
    app = make_app(str(path))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        top = str(app.interview_screen.query_one(TitleBar).render())
        assert "1 chemical" in top and "1 chemicals" not in top and "1 symptoms" not in top
        await pilot.press("b")
        assert await until(pilot, lambda: isinstance(app.screen, BrowseScreen))
        text = screen_text(app)
        assert "1 chemical, 1 symptom, 1 class" in text


async def test_the_status_line_is_redrawn_when_the_terminal_is_resized():
    """Narrowed to 60 columns and widened back to 80, the status line kept the figures it had
    cut for 60 ("GBS │ …"), and at 60 showed those drawn for 80, wrapped ("Noise" / "off"):
    it is redrawn for each new width."""
    from test_snapshots import screen_text

    app = make_app(None, mode=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot, 3)

        def status_rows() -> list[str]:
            rows = screen_text(app).rstrip("\n").split("\n")
            return [r for r in rows if "Asked" in r or r.strip() == "off"]

        assert "Noise off" in status_rows()[0]
        await pilot.resize_terminal(60, 20)
        await settle(pilot, 3)
        narrow = status_rows()
        assert len(narrow) == 1 and narrow[0].rstrip().endswith("…"), narrow
        await pilot.resize_terminal(80, 24)
        await settle(pilot, 3)
        assert "Noise off" in status_rows()[0], status_rows()


async def test_the_victims_bar_is_redrawn_when_the_terminal_is_resized():
    """The victims bar chose names or bare numbers for the width it was drawn at, and kept
    them after a resize: widened from 60 to 120 columns it still read "1 (0)  2 (0)"."""
    from test_snapshots import screen_text

    app = make_app(None, mode=None)
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        for _ in range(3):
            await pilot.press("plus")
            await settle(pilot, 3)
        bar = next(r for r in screen_text(app).split("\n") if "+  add" in r)
        assert "Victim 1" not in bar and "V1" not in bar, bar
        await pilot.resize_terminal(120, 36)
        await settle(pilot, 3)
        bar = next(r for r in screen_text(app).split("\n") if "+  add" in r)
        assert "Victim 1 (0)" in bar and "Victim 4 (0)" in bar, bar


@pytest.mark.parametrize("key", ["s", "question_mark", "x", "slash"])
async def test_a_dialog_over_the_interview_does_not_show_the_interviews_keys(key):
    """Under the scene step the footer still read "y Yes n No … h History r Result", keys
    of the interview screen behind it: in the scene step "h" is "Smell of smoke or burning",
    and in help, export or the search "y" or "r" do something else or nothing. The
    interview's footer is hidden while a dialog is over it and back when it closes."""
    from test_snapshots import screen_text

    app = make_app(None, mode=None, scene_first=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot, 3)
        assert "h History" in screen_text(app).rstrip("\n").split("\n")[-1]
        await pilot.press(key)
        assert await until(pilot, lambda: not isinstance(app.screen, InterviewScreen))
        await settle(pilot, 3)
        last = screen_text(app).rstrip("\n").split("\n")[-1]
        assert "History" not in last and "y Yes" not in last and "r Result" not in last, last
        await pilot.press("escape")
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await settle(pilot, 3)
        assert "h History" in screen_text(app).rstrip("\n").split("\n")[-1]


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
@pytest.mark.parametrize("key", ["question_mark", "x", "slash", "ctrl+s", "E", "ctrl+n"])
async def test_quit_stays_in_sight_under_every_dialog(key, size):
    """At 80x24 the symptom search opened on its full list of signs, and the export dialog
    with a data folder of some length, ran over the keys line: "^q Qu" or nothing was left
    of the quit the footer always shows. A dialog now stops above the keys line."""
    from test_snapshots import screen_text

    app = make_app(None, mode=None, scene_first=False)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot, 3)
        await pilot.press(key)
        assert await until(pilot, lambda: not isinstance(app.screen, InterviewScreen))
        await settle(pilot, 3)
        last = screen_text(app).rstrip("\n").split("\n")[-1]
        assert last.strip() == "^q Quit", last


async def test_the_export_dialogs_buttons_are_reached_at_60x20():
    """At 60x20 the export dialog was taller than the screen and its buttons were cut off
    below it, out of reach; a dialog too tall scrolls, and a button Tab reaches is shown."""
    from textual.widgets import Button

    app = make_app(None, mode=None, scene_first=False)
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot, 3)
        await pilot.press("x")
        assert await until(pilot, lambda: not isinstance(app.screen, InterviewScreen))
        await settle(pilot, 3)
        dialog = app.screen.query_one("#dialog")
        for button in app.screen.query(Button):
            button.focus()
            await settle(pilot, 3)
            assert dialog.region.contains_region(button.region), button.id


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_the_result_and_history_footers_keep_quit(size):
    """The result of a class target at 80x24 listed "t To the chemical" and lost "^q Quit"
    behind the palette's hint, and the history at 60x20 read "^q Qui▏^p palette": the
    hint, then help, new and export give way (F1, ctrl+p, ctrl+n and x still work)."""
    from test_snapshots import screen_text

    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("t")  # the class as the target
        await settle(pilot)
        await answer_from_row(pilot, app, "VX")
        assert isinstance(app.screen, ResultScreen)
        await settle(pilot, 3)
        footer = screen_text(app).rstrip("\n").split("\n")[-1]
        assert "t To the chemical" in footer and "^q Quit" in footer, footer
        assert "esc Back" in footer and "/ Symptom" in footer and "z Undo" in footer, footer
        await pilot.press("escape")
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await pilot.press("h")
        assert await until(pilot, lambda: type(app.screen).__name__ == "HistoryScreen")
        await settle(pilot, 3)
        footer = screen_text(app).rstrip("\n").split("\n")[-1]
        assert "d Remove" in footer and "^q Quit" in footer, footer


@pytest.mark.parametrize("width", [52, 60, 70])
async def test_below_80_columns_the_footer_still_shows_quit_and_the_answer_keys(width):
    """At 60 columns the footer ended "h History r Result" and "^q Quit" fell off it; below
    the design width history, result and help leave the footer (ctrl+p and F1 still work),
    never the answer keys, undo, / or quit."""
    from test_snapshots import screen_text

    app = make_app(None, mode=None)
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot, 3)
        footer = screen_text(app).rstrip("\n").split("\n")[-1]
        for key in ("y Yes", "n No", "u Can't tell", "z Undo", "/ Symptom", "^q Quit"):
            assert key in footer, (key, footer)
        await pilot.press("h")  # still works, though not listed
        assert await until(pilot, lambda: type(app.screen).__name__ == "HistoryScreen")


async def test_the_question_says_a_yes_means_seen_since_the_exposure_without_a_line_more():
    """A victim who coughed and no longer does: "y" read as "now" or "since the exposure"?
    The knowledge base's signs are those seen since the exposure; the question's lower edge
    now says so, on the border (no line taken from the candidates at 80x24), the victim
    still named there; a scene fact gets no such note; the help says it of y and n."""
    from dataclasses import replace

    from test_scene_and_victims import show_question
    from test_snapshots import screen_text

    from responder.app.widgets.panels import QuestionPanel

    app = make_app(None, mode=None)  # the bundled knowledge base, with its scene
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        show_question(app, "cough")
        await settle(pilot)
        panel = app.interview_screen.query_one(QuestionPanel)
        assert panel.border_subtitle == "y = seen any time since exposure"
        lines = screen_text(app).splitlines()
        edge = next(k for k, line in enumerate(lines) if line.startswith("╰"))
        assert "y = seen any time since exposure" in lines[edge]
        assert (
            lines[edge + 1].startswith("╭─") and "plausible" in lines[edge + 1]
        )  # next: candidates
        await pilot.press("plus")
        await settle(pilot)

        def ask_victim_2(symptom_id: str) -> None:
            show_question(app, symptom_id)
            view = replace(panel.view, victim="Victim 2")
            panel.show(replace(panel.prompt, question=view))

        ask_victim_2("cough")
        await settle(pilot)
        assert panel.border_subtitle == "V2 · y = seen any time since exposure"
        ask_victim_2("odour_bleach")
        await settle(pilot)
        assert panel.border_subtitle == "Victim 2"  # a scene fact: no "since exposure"
        await pilot.press("question_mark")
        await settle(pilot)
        text = " ".join(screen_text(app).split())
        assert "Yes: seen at any time since the exposure, even if gone now" in text
        assert "No: not seen at any time since the exposure" in text


@pytest.mark.parametrize("size", [(80, 24), (120, 36), (200, 50)])
async def test_the_export_toast_breaks_the_path_only_at_its_separators(home, size):
    """At 80x24 the toast after an export broke both paths in the middle of a word
    ('…/exports/i' / 'nterview-…'): the folder is wrapped after its separators and each file
    name is whole on its own line, so a crew can read and copy them."""
    from test_snapshots import screen_text

    app = make_app()
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("enter")
        assert await notified(pilot, app, "Exported to")
        await settle(pilot)
        (toast,) = app.screen.query("Toast")
        region = toast.content_region
        screen = screen_text(app).splitlines()
        # the toast's rows as drawn, with the home and the id screen_text masks put back
        rows = [
            screen[y][region.x : region.right]
            .rstrip()
            .replace("$RESPONDER_HOME", str(home))
            .replace("INCIDENT-ID", app.interview.id)
            for y in range(region.y, region.bottom)
        ]
    folder = str(home / "data" / "exports") + "/"
    stem = f"interview-{app.interview.id}"
    assert rows[0] == "Exported to"
    names = rows.index(stem if stem in rows else f"{stem}.md")
    assert all(row.endswith("/") for row in rows[1:names])
    assert "".join(rows[1:names]) == folder
    assert rows[names:] in ([f"{stem}.md", f"{stem}.json"], [stem, ".md and .json"])
    if size[0] >= 120:
        assert rows[names:] == [f"{stem}.md", f"{stem}.json"]


def test_a_path_is_wrapped_after_its_separators_and_a_status_line_gets_one_line():
    from pathlib import Path

    from responder.app.widgets.notice import exported_notice, wrap_path

    assert wrap_path("/home/crew/.local/share/responder/exports/", 20) == [
        "/home/crew/.local/",
        "share/responder/",
        "exports/",
    ]
    # a folder name longer than a line is cut where it must be, nothing lost
    assert "".join(wrap_path("/a/" + "x" * 25 + "/b/", 10)) == "/a/" + "x" * 25 + "/b/"
    assert max(map(len, wrap_path("/a/" + "x" * 25 + "/b/", 10))) <= 10
    md = Path("/srv/exports/interview-20261128-050809-e1d3d1.md")
    js = md.with_suffix(".json")
    assert exported_notice(md, js) == (
        "Exported to /srv/exports/: interview-20261128-050809-e1d3d1.md and "
        "interview-20261128-050809-e1d3d1.json"
    )
    assert exported_notice(md, js, 33).split("\n") == [
        "Exported to",
        "/srv/exports/",
        "interview-20261128-050809-e1d3d1",
        ".md and .json",
    ]
