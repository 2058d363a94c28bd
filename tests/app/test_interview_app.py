"""Pilot tests of the interview app: whole interviews, the modes, undo and history, noise
settings, volunteering symptoms, help, the command palette, browse, export and the journal."""

from __future__ import annotations

import re

import pytest
from app_helpers import answer_from_row, notified, settle, static_text, suggested, until
from conftest import SIZE, make_app
from textual.binding import Binding

from responder.app.screens.history import HistoryScreen
from responder.app.screens.interview import InterviewScreen
from responder.app.screens.result import ResultScreen
from responder.app.screens.symptom_search import SymptomSearchScreen
from responder.app.widgets.panels import CandidatesTable, QuestionPanel, StatusLine
from responder.core import views
from responder.engine.state import Answer, Status

# Whole interviews for every chemical run headless (tests/core/test_views.py); here one per
# mode checks that the keys drive them and the screens show the outcome.
CHEMICALS = ["Sarin (GB)", "Hydrogen cyanide"]


def status_text(app) -> str:
    return str(app.interview_screen.query_one(StatusLine).render())


# -- a full interview -------------------------------------------------------------------------


@pytest.mark.parametrize("chemical", CHEMICALS)
async def test_full_interview_identifies_the_chemical_from_its_row(chemical):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        asked = await answer_from_row(pilot, app, chemical)
        assert app.interview.status is Status.IDENTIFIED
        assert isinstance(app.screen, ResultScreen)
        result = views.result(app.interview)
        assert result.kind == "chemical" and result.title == chemical
        assert asked == app.interview.asked
        # every answer matches the profile; the sources are the chemical's own
        assert all(m == "match" for row in result.profile if row.answer for m in row.marks)
        kn = app.knowledge
        assert result.sources == kn.chemicals[kn.chemical_index(chemical)].sources
        assert "not a diagnosis" in result.disclaimer
        text = str(app.screen.query_one("#result-headline").render())
        assert chemical in text


async def test_identical_profiles_end_as_one_set():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await answer_from_row(pilot, app, "Lewisite")
        assert app.interview.status is Status.INDISTINGUISHABLE
        result = views.result(app.interview)
        assert result.kind == "set"
        assert {c.name for c in result.candidates[0].chemicals} == {"Sulfur mustard", "Lewisite"}
        assert isinstance(app.screen, ResultScreen)


@pytest.mark.parametrize("chemical", ["Hydrogen sulfide"])
async def test_category_mode_interview(chemical):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("m")
        panel = app.interview_screen.query_one(QuestionPanel)
        # On a busy machine the panel can take a few cycles to show the category.
        await until(pilot, lambda: panel.view is not None and panel.view.kind == "category")
        assert app.interview.suggest == "category"
        assert panel.view.kind == "category"
        # the listed symptoms all belong to the suggested category; useful ones come first
        cat = panel.view.category
        assert all(i.symptom.category_id == cat.id for i in panel.view.items)
        useful = [i.useful for i in panel.view.items]
        assert useful == sorted(useful, reverse=True)
        # the first category offers several useful symptoms; the down key selects the next
        assert len(panel.view.useful) > 1
        assert suggested(app) == panel.view.items[0].symptom.index
        await pilot.press("down")
        assert suggested(app) == panel.view.items[1].symptom.index
        await answer_from_row(pilot, app, chemical)
        assert views.result(app.interview).title == chemical


async def test_class_target_identifies_the_class():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        assert app.interview.target == "class"
        await answer_from_row(pilot, app, "VX")
        result = views.result(app.interview)
        assert result.kind == "class" and result.title == "Nerve agents"
        assert isinstance(app.screen, ResultScreen)
        # from the class result, t goes on to the chemical with the answers kept
        asked = app.interview.asked
        await pilot.press("t")
        await settle(pilot)
        assert app.interview.target == "chemical" and app.interview.asked == asked
        await answer_from_row(pilot, app, "VX")
        assert views.result(app.interview).title == "VX"


# -- undo and can't tell ----------------------------------------------------------------------


async def test_cant_tell_eliminates_no_one_and_undo_takes_answers_back():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        it = app.interview
        before = len(views.candidates(it))
        first = suggested(app)
        await pilot.press("u")
        await settle(pilot)
        assert it.state.answers[-1].query == first
        assert it.state.answers[-1].answer is Answer.UNKNOWN
        assert len(views.candidates(it)) == before  # nobody eliminated
        assert suggested(app) != first  # a spent symptom is not suggested again
        await pilot.press("y")
        await settle(pilot)
        assert it.asked == 2
        narrowed = len(views.candidates(it))
        assert narrowed < before
        await pilot.press("z")
        await settle(pilot)
        assert it.asked == 1 and len(views.candidates(it)) == before
        await pilot.press("backspace")
        await settle(pilot)
        assert it.asked == 0
        assert suggested(app) == first
        # undo with nothing to undo does nothing
        await pilot.press("z")
        await settle(pilot)
        assert it.asked == 0


async def test_undo_from_the_result_screen():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await answer_from_row(pilot, app, "Chlorine")
        assert isinstance(app.screen, ResultScreen)
        n = app.interview.asked
        await pilot.press("z")
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        assert app.interview.asked == n - 1
        assert app.interview.status is Status.ASKING


# -- switching modes --------------------------------------------------------------------------


async def test_switching_modes_keeps_every_answer():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _volunteer(pilot, "cough", "y")  # three classes stay possible
        await pilot.press("u")
        await settle(pilot)
        it = app.interview
        answers = list(it.state.answers)
        assert len(answers) == 2
        assert it.policy_name == "gbs"
        for key, policy in (("t", "gisa"), ("m", "gigqsa"), ("t", "gqsa"), ("m", "gbs")):
            await pilot.press(key)
            await settle(pilot)
            assert it.policy_name == policy
            assert it.state.answers == answers
            assert policy.upper() in status_text(app)
        await pilot.press("e")
        await settle(pilot)
        assert it.state.noise is not None
        assert re.search(r"Noise on (errors )?0/1", status_text(app))
        table = app.interview_screen.query_one(CandidatesTable)
        assert "errors" in [str(c.value) for c in table.columns]
        assert it.state.answers == answers
        await pilot.press("e")
        await settle(pilot)
        assert it.state.noise is None and "Noise off" in status_text(app)
        assert it.state.answers == answers


async def test_noise_settings_screen_changes_eps_and_model():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("E")
        await settle(pilot)
        from textual.widgets import Input, RadioSet, Switch

        from responder.app.screens.noise import NoiseScreen

        assert isinstance(app.screen, NoiseScreen)
        app.screen.query_one(Switch).value = True
        app.screen.query_one("#noise-eps", Input).value = "2"
        app.screen.query_one(RadioSet).query("RadioButton").last().value = True
        app.screen.query_one("#noise-p", Input).value = "0.1"
        await pilot.press("ctrl+s")
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        noise = app.interview.state.noise
        assert noise is not None and noise.eps == 2 and noise.model == 2 and noise.p == 0.1
        assert re.search(r"Noise on (errors )?0/2", status_text(app))


async def test_noise_settings_reject_a_bad_value_with_a_message():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("E")
        await settle(pilot)
        from textual.widgets import Input, SelectionList

        app.screen.query_one(SelectionList).deselect_all()
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "no symptom is marked" in str(app.screen.query_one("#noise-error").render())
        app.screen.query_one(SelectionList).select_all()
        app.screen.query_one("#noise-p", Input).value = "0.9"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "[0, 0.5]" in str(app.screen.query_one("#noise-error").render())
        await pilot.press("escape")
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        assert app.interview.state.noise is None


@pytest.mark.parametrize("eps", ["²", "١"])
async def test_an_eps_of_another_scripts_digit_is_a_message_not_a_crash(eps):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("E")
        await settle(pilot)
        from textual.widgets import Input, Switch

        app.screen.query_one(Switch).value = True
        app.screen.query_one("#noise-eps", Input).value = eps
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "is not a whole number from 0 to" in str(
            app.screen.query_one("#noise-error").render()
        )
        await pilot.press("escape")
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        assert app.interview.state.noise is None


async def test_expected_questions_left_appears():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(50):
            await pilot.pause(0.05)
            if app.interview_screen.remaining is not None:
                break
        assert app.interview_screen.remaining is not None
        assert "if y/n" in status_text(app)  # exact for yes/no answers, not "(exact)"


async def test_a_redraw_that_changes_nothing_keeps_the_expected_questions_left():
    """Closing a dialog redraws the screen; the figure for the same answers stays (it is
    neither discarded nor computed again), and the next answer replaces it."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = app.interview_screen
        assert await until(pilot, lambda: screen.remaining is not None, 20)
        shown = screen.remaining
        app._redraw()
        await settle(pilot)
        assert screen.remaining is shown and "if y/n" in status_text(app)
        await pilot.press("y")
        assert await until(pilot, lambda: app.interview.asked == 1)
        assert await until(
            pilot,
            lambda: screen.remaining is not None and screen.remaining is not shown,
            20,
        )
        assert screen.remaining_generation == app.interview.generation


async def test_expected_questions_left_from_the_helper_process(monkeypatch):
    """Category policies under noise are estimated in a separate process."""
    import os

    from responder.core.remaining import RemainingService

    helpers = []
    real_compute = RemainingService.compute

    def compute(self, spec):
        out = real_compute(self, spec)
        helpers.append(self._proc.pid if self._proc is not None else None)
        return out

    monkeypatch.setattr(RemainingService, "compute", compute)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("m", "e")
        for _ in range(200):
            await pilot.pause(0.05)
            if app.interview_screen.remaining is not None:
                break
        remaining = app.interview_screen.remaining
        assert remaining is not None and remaining.method in ("exact", "monte-carlo")
        assert "?" not in re.split("[Ll]eft", status_text(app))[1]
        # the figure came from the helper process, not from the app's own
        assert helpers and all(pid not in (None, os.getpid()) for pid in helpers)


# -- no candidate consistent ------------------------------------------------------------------


async def _volunteer(pilot, text: str, key: str) -> None:
    """Volunteer the symptom found by ``text`` (typed into the search at once: the typing
    itself is tested in test_volunteer_a_symptom_by_typing_its_name) and answer ``key``."""
    from textual.widgets import Input

    app = pilot.app
    await pilot.press("slash")
    assert await until(pilot, lambda: isinstance(app.screen, SymptomSearchScreen))
    app.screen.query_one(Input).value = text
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)
    await pilot.press(key)
    await settle(pilot)


async def test_no_candidate_consistent_offers_undo_and_noise_tolerance():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # Pinpoint pupils (nerve agents only) with skin burns (no nerve agent): nobody fits.
        await _volunteer(pilot, "pinpoint", "y")
        await _volunteer(pilot, "skin burns", "y")
        it = app.interview
        assert it.status is Status.INCONSISTENT
        panel = app.interview_screen.query_one(QuestionPanel)
        assert panel.border_title == "No chemical fits"
        text = " ".join(static_text(panel).split())
        assert "No chemical in the knowledge base matches all 2 answers" in text
        table = app.interview_screen.query_one(CandidatesTable)
        assert table.row_count > 0  # the closest ones, by contradicted answers
        assert "none fits" in str(table.border_title)
        assert "—" in status_text(app)
        # answering is not possible, undo is
        await pilot.press("y")
        await settle(pilot)
        assert it.asked == 2
        # noise tolerance makes the one-off contradiction acceptable
        await pilot.press("e")
        await settle(pilot)
        assert it.status is not Status.INCONSISTENT
        names = [c.names for c in views.candidates(it)]
        assert "Sarin (GB)" in names
        assert all(c.mismatches <= 1 for c in views.candidates(it))
        await pilot.press("e")
        await settle(pilot)
        assert it.status is Status.INCONSISTENT
        await pilot.press("z")
        await settle(pilot)
        assert it.status is Status.ASKING and it.asked == 1


# -- volunteering by typing -------------------------------------------------------------------


async def test_volunteer_a_symptom_by_typing_its_name():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        assert await until(pilot, lambda: isinstance(app.screen, SymptomSearchScreen))
        await pilot.press(*"wheez")
        await settle(pilot)
        assert app.knowledge.symptoms[app.screen.matches[0]].id == "wheezing"
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("y")
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        record = app.interview.records[-1]
        assert app.knowledge.symptoms[record.query].id == "wheezing"
        assert record.answer is Answer.YES and record.volunteered
        names = {c.names for c in views.candidates(app.interview)}
        assert names == {"Sarin (GB)", "Tabun (GA)", "Chlorine"}


async def test_volunteer_search_is_forgiving_and_escape_cancels():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await settle(pilot)
        await pilot.press(*"shrt brth")
        await settle(pilot)
        assert app.knowledge.symptoms[app.screen.matches[0]].id == "shortness_of_breath"
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.screen.chosen == app.screen.matches[1] if len(app.screen.matches) > 1 else True
        await pilot.press("backspace")  # back to the list
        await settle(pilot)
        assert app.screen.chosen is None
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.screen.chosen is not None
        await pilot.press("escape")  # one press closes, even from the answer step
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        assert app.interview.asked == 0


# -- history ----------------------------------------------------------------------------------


async def test_history_changes_and_removes_any_answer():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = suggested(app)
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("h")
        assert await until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await pilot.press("up")  # the first answer
        await pilot.press("n")
        await settle(pilot)
        it = app.interview
        assert it.answer_of(first) is Answer.NO
        assert it.asked == 2
        await pilot.press("d")
        await settle(pilot)
        assert it.asked == 1
        await pilot.press("escape")
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))


async def test_history_fills_its_table_once_when_it_opens_and_again_on_a_resize(monkeypatch):
    """Its first layout refilled the table at the width it already had: every answer's row
    built and measured twice (500 answers of a mass-casualty incident: 0.6 s to open)."""
    fills: list[int] = []
    real_fill = HistoryScreen.fill

    def counted_fill(screen, cursor=None):
        fills.append(len(screen.rows))
        real_fill(screen, cursor)

    monkeypatch.setattr(HistoryScreen, "fill", counted_fill)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key in ("y", "n"):
            await pilot.press(key)
            await settle(pilot)
        await pilot.press("h")
        assert await until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await settle(pilot)
        assert fills == [2]
        table = app.screen.query_one("#history-table")
        before = sum(c.width for c in table.columns.values())
        await pilot.resize_terminal(SIZE[0] + 40, SIZE[1])
        await settle(pilot)
        assert fills == [2, 2]  # the columns follow the new width
        assert sum(c.width for c in table.columns.values()) > before


async def test_history_with_two_victims_changes_the_answer_of_the_row_picked():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        it = app.interview
        cough = app.knowledge.symptom_index("cough")
        it.answer(cough, Answer.YES)  # victim 1 coughs
        it.add_victim()
        it.answer(cough, Answer.NO)  # victim 2 does not
        it.select_victim(0)  # the history is opened while victim 1 is asked
        await pilot.press("h")
        assert await until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        rows = app.screen.rows
        assert [(r.who, r.symptom.id) for r in rows if r.symptom.id == "cough"] == [
            ("V1", "cough"),
            ("V2", "cough"),
        ]
        last = len(rows) - 1  # victim 2's cough, the newest answer
        assert rows[last].record.victim == 1
        app.screen.query_one("DataTable").move_cursor(row=last)
        await pilot.press("y")
        await settle(pilot)
        # victim 2's answer changed; victim 1's stayed
        assert it.record_of(cough, victim=1).answer is Answer.YES
        assert it.record_of(cough, victim=0).answer is Answer.YES
        assert it.victim == 0
        victim_two = next(
            k
            for k, r in enumerate(app.screen.rows)
            if r.record.victim == 1 and r.symptom.id == "cough"
        )
        app.screen.query_one("DataTable").move_cursor(row=victim_two)
        await pilot.press("d")
        await settle(pilot)
        assert it.record_of(cough, victim=1) is None
        assert it.record_of(cough, victim=0).answer is Answer.YES


# -- help, palette, browse, export ------------------------------------------------------------


async def test_help_lists_the_keys():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        from test_snapshots import screen_text

        from responder.app.screens.help import HelpScreen, keys_for

        assert isinstance(app.screen, HelpScreen)
        text = " ".join(str(s.render()) for s in app.screen.query("Static"))
        assert "not a diagnosis" in text
        await pilot.press("end")
        await settle(pilot)
        # the explanations render in the dialog
        assert await until(pilot, lambda: "resume" in screen_text(app)), screen_text(app)
        screen = app.interview_screen
        assert keys_for(screen, "answer.yes") == "y"
        assert keys_for(screen, "answer.unknown") == "u"
        assert keys_for(screen, "undo") == "z / ⌫"
        assert keys_for(screen, "mode.evidence") == "v"  # every mode key is explained
        from responder.app.screens.help import KEY_HELP

        listed = {binding_id for binding_id, _ in KEY_HELP}
        shown = {  # every binding the interview screen declares or inherits
            b.id
            for cls in type(screen).__mro__
            for b in Binding.make_bindings(vars(cls).get("BINDINGS", []))
            if b.id
        }
        assert "answer.yes" in shown and shown <= listed, shown - listed
        await pilot.press("escape")
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))


def palette_offers(app, words: str) -> bool:
    """Whether the command palette is open with its first command, highlighted, naming
    ``words`` (its search runs in the background)."""
    from textual.command import CommandPalette
    from textual.widgets import OptionList

    if not isinstance(app.screen, CommandPalette):
        return False
    commands = app.screen.query_one(OptionList)
    return (
        commands.option_count > 0
        and commands.highlighted == 0
        and words in str(commands.get_option_at_index(0).prompt).lower()
    )


def search_for(app, words: str) -> None:
    """Type ``words`` into the open command palette's search box (at once: a key press
    each would restart the search once per letter)."""
    from textual.widgets import Input

    app.screen.query_one(Input).value = words


async def test_command_palette_runs_interview_actions():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        search_for(app, "toggle target")
        assert await until(pilot, lambda: palette_offers(app, "toggle target"))
        await pilot.press("enter")
        await settle(pilot, 4)
        assert app.interview.target == "class"
        # every symptom can be answered from the palette too
        await pilot.press("ctrl+p")
        await settle(pilot)
        search_for(app, "answer symptom wheezing")
        assert await until(pilot, lambda: palette_offers(app, "wheezing"))
        await pilot.press("enter")
        await settle(pilot, 4)
        assert isinstance(app.screen, SymptomSearchScreen)
        await pilot.press("n")
        await settle(pilot)
        assert app.knowledge.symptoms[app.interview.state.answers[-1].query].id == "wheezing"


async def test_browse_filters_and_answers_a_symptom():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        from responder.app.screens.browse import BrowseScreen

        screen = app.screen
        assert isinstance(screen, BrowseScreen)
        await pilot.press(*"7782")
        await settle(pilot)
        assert [app.knowledge.chemicals[i].name for i in screen.chem_rows] == ["Chlorine"]
        assert "Fixture source C" in static_text(screen.query_one("#chem-detail"))
        await pilot.press("tab")
        await settle(pilot)
        await pilot.press(*"blister")
        await settle(pilot)
        assert app.knowledge.symptoms[screen.sym_rows[0]].id == "blisters"
        await pilot.press("enter")
        assert await until(pilot, lambda: isinstance(app.screen, SymptomSearchScreen))
        await pilot.press("y")
        await settle(pilot)
        assert {c.names for c in views.candidates(app.interview)} == {"Sulfur mustard / Lewisite"}


async def test_export_writes_markdown_and_json(home):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await answer_from_row(pilot, app, "Phosgene")
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
    exports = home / "data" / "exports"
    md = list(exports.glob("*.md"))
    js = list(exports.glob("*.json"))
    assert len(md) == 1 and len(js) == 1
    text = md[0].read_text()
    assert "**Most likely: Phosgene (Irritant gases) >99%**" in text and "not a diagnosis" in text


async def open_export_after_one_answer(pilot, app):
    """Answer the first question yes, open the export dialog (x); its folder field."""
    from responder.app.screens.export import ExportScreen  # noqa: PLC0415

    await settle(pilot)
    await pilot.press("y")
    await settle(pilot)
    await pilot.press("x")
    assert await until(pilot, lambda: isinstance(app.screen, ExportScreen))
    return app.screen.query_one("Input")


async def test_export_to_a_path_that_is_a_file_says_it_is_a_file_not_a_folder(tmp_path):
    """The export dialog said "Cannot write to X: File exists" for a path that is a file."""
    from responder.app.screens.export import ExportScreen

    file = tmp_path / "notes.txt"
    file.write_text("mine", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        field = await open_export_after_one_answer(pilot, app)
        field.value = str(file / "inside")  # a folder under the file: the same file in the way
        await settle(pilot)
        said = static_text(app.screen.query_one("#export-error"))
        expected = (
            f"Cannot export: {file} is a file, not a folder; give a folder (it is created if "
            "needed)."
        )
        assert "".join(said.split()) == "".join(expected.split())  # wrapped anywhere
        field.value = str(file)
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ExportScreen)  # nothing written, the dialog stays
        said = "".join(static_text(app.screen.query_one("#export-error")).split())
        assert f"{file}isafile,notafolder" in said and "Fileexists" not in said
        assert file.read_text(encoding="utf-8") == "mine"


async def test_a_folder_name_too_long_in_the_export_dialog_is_an_error_not_a_crash(tmp_path):
    """QA round 13: pasting a long name into the export dialog's folder (over 255 characters
    in one part, a stray paste) stopped the app with a traceback (OSError: File name too
    long, from the check for a file standing in the folder's way, run at every change).
    The dialog now stays, says what is wrong on Enter, and the interview goes on."""
    from responder.app.screens.export import ExportScreen  # noqa: PLC0415

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        field = await open_export_after_one_answer(pilot, app)
        field.value = str(tmp_path / ("x" * 300))
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ExportScreen)  # nothing written, the dialog stays
        said = " ".join(static_text(app.screen.query_one("#export-error")).split())
        assert "File name too long" in said and "Choose another folder" in said, said
        await pilot.press("escape")
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        assert app.interview.asked == 1


async def test_new_interview_asks_first_and_ends_the_old_incident(home):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        old = app.interview
        await pilot.press("ctrl+n")
        await settle(pilot)
        await pilot.press("n")  # no: keep going
        await settle(pilot)
        assert app.interview is old
        await pilot.press("ctrl+n")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert app.interview is not old and app.interview.asked == 0
    from responder.core.store import find_incident

    assert find_incident(old.id)[0].end_reason == "new"


async def test_arrow_keys_always_reach_the_question(knowledge):
    """No panel takes the focus, even when the classes overflow a small terminal."""
    app = make_app()
    async with app.run_test(size=(80, 16)) as pilot:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        assert app.focused is None
        panel = app.interview_screen.query_one(QuestionPanel)
        await pilot.press("down")
        assert panel.selected == 1


async def test_small_terminal_still_works():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await answer_from_row(pilot, app, "VX")
        assert views.result(app.interview).title == "VX"


async def test_undo_names_a_cant_tell_answer_as_the_keys_do():
    """'u' is "can't tell" everywhere on screen; taking it back said '(unknown)'."""
    app = make_app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        label = app.knowledge.symptoms[app.interview.records[-1].query].label
        await pilot.press("z")
        await settle(pilot)
        assert await notified(pilot, app, f"Undone: {label} (can't tell).")


def test_help_says_where_a_new_interview_leaves_the_current_one():
    """ctrl+n's help said the interview 'stays in the journal': there is no journal any more
    (the incident database took its place); the README says it stays saved as an incident."""
    from responder.app.screens.help import KEY_HELP

    text = dict(KEY_HELP)["interview.new"]
    assert "journal" not in text
    assert text == "Start a new interview (the current one stays saved as an incident)"


async def test_the_history_shows_each_symptom_whole_at_80x24():
    """At 80x24 the history cut the signs a crew re-checks: "all Engine, generator, …",
    "all Several people ill …", "V1 Dizziness or light-h…", beside an answer column as wide
    as "? can't tell" with no can't-tell in it. The answer column is as wide as its answers
    and a long sign wraps in its row."""
    from test_snapshots import screen_text

    app = make_app(None, mode=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for typed in ("engine", "several", "dizziness", "nausea"):
            await pilot.press("slash")
            assert await until(pilot, lambda: isinstance(app.screen, SymptomSearchScreen))
            await pilot.press(*typed, "enter")
            await settle(pilot)
            await pilot.press("y")
            assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await pilot.press("h")
        assert await until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await settle(pilot, 3)
        shown = screen_text(app).split()
        assert len(app.screen.rows) == 4
        for row in app.screen.rows:
            for word in f"{row.who} {row.symptom.label}".split():
                assert word in shown, (word, row.symptom.label)


async def test_a_capital_letter_with_caps_lock_on_is_said_not_ignored_without_a_word():
    """QA round 13: with Caps Lock on, Y, N and U on the interview screen and A on the scene
    step (whose a is an option) did nothing at all: no answer, no bell, no word, so a
    responder in gloves could believe the answer taken. Now a bell and a notice say the
    key did nothing and which key to press; a capital that is a key of its own (E, the
    noise settings) still opens its screen, and the small letters answer as before."""
    from responder.app.screens.noise import NoiseScreen  # noqa: PLC0415
    from responder.app.screens.scene import SceneScreen  # noqa: PLC0415

    app = make_app(None, mode=None, scene_first=True)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, SceneScreen))
        bells: list[int] = []
        app.bell = lambda: bells.append(1)
        said: list[str] = []
        notify = app.notify
        app.notify = lambda message, **kw: (said.append(message), notify(message, **kw))
        await pilot.press("A")
        await settle(pilot)
        assert app.interview.asked == 0 and bells == [1]
        assert said and said[-1].startswith("A does nothing here: is Caps Lock on? The key is a")
        await pilot.press("a")
        await settle(pilot)
        assert app.interview.asked == 1
        await pilot.press("escape")
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        for capital in ("Y", "N", "U"):
            await pilot.press(capital)
            await settle(pilot)
            assert app.interview.asked == 1
            notice = " ".join(static_text(app.screen.query_one(StatusLine)).split())
            assert f"{capital} does nothing here: is Caps Lock on?" in notice, notice
        assert len(bells) == 4
        await pilot.press("y")
        await settle(pilot)
        assert app.interview.asked == 2
        await pilot.press("E")
        assert await until(pilot, lambda: isinstance(app.screen, NoiseScreen))
