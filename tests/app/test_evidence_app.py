"""The app's default answer mode is the evidence mode; strict and noise stay selectable."""

from __future__ import annotations

import re

from app_helpers import (
    all_notifications_shown,
    answer_from_row,
    notified,
    settle,
    suggested,
    toasts,
    until,
)
from conftest import SIZE, make_app

from responder.app.screens.interview import InterviewScreen
from responder.app.widgets.panels import StatusLine
from responder.core import views
from responder.core.percent import percent
from responder.engine.state import Answer, Status


def status_text(app) -> str:
    return str(app.interview_screen.query_one(StatusLine).render())


async def test_a_fresh_app_weighs_evidence_and_says_so():
    app = make_app(mode=None)  # no settings file: the app's own default
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        assert app.interview.mode == "evidence"
        assert "Mode evidence" in status_text(app) and "Confidence" in status_text(app)
        await answer_from_row(pilot, app, "Chlorine")
        assert app.interview.status is Status.IDENTIFIED
        result = views.result(app.interview)
        assert result.title == "Chlorine"
        assert app.interview.confidence() >= 0.95
        # the incident records the mode with the answers
        from responder.core.store import find_incident  # noqa: PLC0415

        data, _ = find_incident(app.interview.id)
        assert data.config["mode"] == "evidence" and len(data.answers) == app.interview.asked


async def test_v_switches_evidence_and_strict_and_e_noise_keeping_answers():
    app = make_app(mode=None)
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        q = suggested(app)
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        assert app.interview.mode == "strict" and re.search(r"(Mode )?strict", status_text(app))
        assert app.interview.state.answer_of(q) is Answer.YES
        await pilot.press("e")
        await settle(pilot)
        assert app.interview.mode == "noise" and re.search(r"(Mode )?noise", status_text(app))
        await pilot.press("v")  # from noise mode: evidence, noise tolerance off
        await settle(pilot)
        assert app.interview.mode == "evidence" and not app.interview.noise.enabled
        assert app.interview.asked == 1


async def test_an_answer_against_the_truth_does_not_remove_it():
    """Strict mode drops a chemical on one contradicting answer; the evidence mode keeps
    it and can still end on it."""
    app = make_app(mode=None)
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        kn = app.knowledge
        vx = kn.chemicals[kn.chemical_index("VX")]
        wrong = next(s.index for s in kn.symptoms if s.id not in vx.symptoms)
        app.record_answer(wrong, Answer.YES)
        await settle(pilot)
        names = [c.chemicals[0].name for c in views.candidates(app.interview)]
        assert "VX" in names
        await answer_from_row(pilot, app, "VX")
        assert views.result(app.interview).title == "VX"


async def test_no_fit_in_evidence_mode_is_said_on_the_question_panel():
    from responder.app.widgets.panels import QuestionPanel

    app = make_app(mode=None)
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        for s in app.knowledge.symptoms:  # every sign: no listed chemical has them all
            app.interview.answer(s.index, Answer.YES)
        app.interview_screen.refresh_view(auto_result=False)
        await settle(pilot)
        assert app.interview.mode == "evidence" and app.interview.status is Status.INCONSISTENT
        panel = app.interview_screen.query_one(QuestionPanel)
        lines = [t.plain for t in panel.content.renderables if hasattr(t, "plain")]
        why = views.no_fit(app.interview)
        assert panel.border_title == "No chemical fits"
        assert lines[0] == why.headline + "." and lines[1] == why.detail
        assert "fits these answers well" in lines[0] and "answers against it" in lines[1]


async def test_candidates_show_the_answers_against_each_chemical(monkeypatch):
    """Evidence mode: each candidate counts the answers against it, and the panel names
    them for the most probable chemical."""
    from responder.app.widgets.panels import CandidatesTable

    app = make_app(mode=None)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        kn = app.knowledge
        vx = kn.chemicals[kn.chemical_index("VX")]
        listed = [s.index for s in kn.symptoms if s.id in vx.symptoms]
        wrong = next(s for s in kn.symptoms if s.id not in vx.symptoms)
        for q in listed:
            app.record_answer(q, Answer.YES)
        app.record_answer(wrong.index, Answer.YES)
        app.interview_screen.refresh_view(auto_result=False)
        await settle(pilot)
        rows = views.candidates(app.interview)
        top = rows[0]
        assert "VX" in [c.name for c in top.chemicals]
        assert [s.label for s in views.answers_against(app.interview, top)] == [wrong.label]
        table = app.interview_screen.query_one(CandidatesTable)
        assert [str(c.label) for c in table.columns.values()][-1] == "✗"
        against_cells = [
            str(table.get_row_at(k)[-1]) for k in range(min(len(rows), table.row_count))
        ]
        expected = [
            str(len(app.interview.contradicted(r.objects))) for r in rows[: len(against_cells)]
        ]
        assert against_cells == expected and against_cells[0] == "1"
        assert table.border_subtitle == f"✗ against #1: {wrong.label}"
        # At 80 columns every column stays in view: nothing scrolls sideways, also when the
        # list ends with the line counting the chemicals not shown (the bundled knowledge
        # base lists 40 of 271).
        assert table.virtual_size.width <= table.scrollable_content_region.width
        import responder.app.widgets.panels as panels

        monkeypatch.setattr(panels, "MAX_ROWS", 3)
        table.show(views.candidates_view(app.interview))
        await settle(pilot)
        hidden = sum(len(r.objects) for r in views.candidates(app.interview)[3:])
        assert str(table.get_row_at(table.row_count - 1)[2]).startswith(f"… {hidden} ")
        assert table.virtual_size.width <= table.scrollable_content_region.width


async def test_a_sharp_class_drop_is_said_on_the_status_line_not_over_the_class_bars():
    """The notice that one answer lowered a class sharply used to be a notification, drawn
    over the Classes panel for 8 seconds; it now stays on the status line."""
    app = make_app(mode=None)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        notices = []
        for s in app.knowledge.symptoms:  # yes to everything until a class drops sharply
            app.record_answer(s.index, Answer.YES)
            await settle(pilot)
            notices = app.interview.class_notices()
            if notices:
                break
        assert notices, "no answer lowered a class sharply"
        assert views.class_drop_note(app.interview) in status_text(app)
        assert "re-check that sign" in status_text(app)
        await all_notifications_shown(pilot, app)
        assert not [text for text in toasts(app) if "lowered" in text]
        app.record_answer(app.knowledge.symptoms[-1].index, Answer.UNKNOWN)
        await settle(pilot)
        assert "re-check" not in status_text(app)  # the next answer clears it


async def test_the_class_drop_note_goes_when_its_answer_is_undone_or_the_interview_changes():
    """ "“Drooling: yes” lowered Opioids from 27% to 4%" stayed on the status line after z
    took that answer back (Opioids back at 27%), and after an answer changed in the history
    or a victim added: it spoke of an answer no longer given."""
    app = make_app(mode=None)  # the evidence mode, on the small knowledge base
    async with app.run_test(size=SIZE) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        kn = app.knowledge
        drop = None
        for s in kn.symptoms:  # yes to everything until a class drops sharply
            app.record_answer(s.index, Answer.YES)
            await settle(pilot)
            if app.interview.class_notices():
                drop = s.index
                break
        assert drop is not None, "no answer lowered a class sharply"
        assert "re-check" in status_text(app)
        await pilot.press("z")
        await settle(pilot)
        assert app.interview.record_of(drop) is None
        assert "re-check" not in status_text(app)
        app.record_answer(drop, Answer.YES)
        await settle(pilot)
        assert "re-check" in status_text(app)
        app.change_answer(kn.symptoms[0].index, Answer.NO)  # from the history
        await settle(pilot)
        assert "re-check" not in status_text(app)
        app.undo_last()  # the change
        app.undo_last()  # the answer that lowered the class
        app.record_answer(drop, Answer.YES)
        await settle(pilot)
        assert "re-check" in status_text(app)
        app.add_victim()
        await settle(pilot)
        assert "re-check" not in status_text(app)


async def test_a_class_drop_note_keeps_the_class_and_its_chances_at_80_columns():
    """At 80 columns the note, cut to one line, lost what it was for: '“Burns or sores in
    the mouth or lips: yes” lowered Organophosphate and carbamate pesticides from 2…'. A
    longer label (weak muscles) makes the same drop on the riot-control class."""
    app = make_app(None, mode=None)  # the bundled knowledge base, evidence mode
    async with app.run_test(size=(80, 24)) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        kn = app.knowledge
        for sid, answer in (("state_gas", "no"), ("drooling", "yes"), ("muscle_weakness", "yes")):
            app.record_answer(kn.symptom_index(sid), Answer(answer))
            await settle(pilot)
        drops = app.interview.class_drops()
        assert drops, "no answer lowered a class sharply"
        cls, before, after = drops[0]
        line = status_text(app).split("\n")[1]
        assert line.startswith(f"{cls.short} {percent(before)} → {percent(after)}"), line
        assert "Weak muscles" in line


async def test_a_second_look_at_the_pupils_replaces_the_first_and_says_so():
    app = make_app(None, mode=None)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        kn = app.knowledge
        pinpoint, wide = kn.symptom_index("pinpoint_pupils"), kn.symptom_index("dilated_pupils")
        app.record_answer(pinpoint, Answer.YES, volunteered=True)
        app.record_answer(wide, Answer.YES, volunteered=True)
        await settle(pilot)
        assert app.interview.record_of(pinpoint) is None
        assert await notified(pilot, app, "Taken out: “Pinpoint pupils: yes”")


async def test_ten_or_more_answers_against_a_chemical_show_whole_in_the_against_column():
    """Three victims and fifty answers: a chemical with 10 answers against it showed "1" on
    its row and "0" on the line below, at 80 columns, the column being one character wide."""
    import dataclasses

    from test_snapshots import screen_text

    from responder.app.widgets.panels import CandidatesTable

    app = make_app(mode=None)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        view = views.candidates_view(app.interview)
        counts = [3, 10, 123]
        rows = tuple(dataclasses.replace(row, mismatches=n) for row, n in zip(view.rows, counts))
        table = app.interview_screen.query_one(CandidatesTable)
        table.show(dataclasses.replace(view, rows=rows))
        await settle(pilot)
        cells = [str(table.get_row_at(k)[-1]) for k in range(3)]
        assert cells == ["3", "10", "123"]
        assert table.columns["errors"].width >= 3
        screen = screen_text(app)
        for row, n in zip(rows, counts):
            first_name = row.chemicals[0].name[:6]
            line = next(ln for ln in screen.splitlines() if first_name in ln)
            assert re.search(rf"\s{n}\s", line), (n, line)
        assert table.virtual_size.width <= table.scrollable_content_region.width
