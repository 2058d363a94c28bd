"""Keys typed in a burst, faster than the app handles each request (pasted, or a fast
typist): each is taken on the screen the key before produced, in order, never twice on the
same question, and never on a screen the responder has not seen."""

from __future__ import annotations

from app_helpers import answer_as_until_result, settle, suggested, until
from conftest import make_app
from textual import events

from responder.app.screens.interview import InterviewScreen
from responder.app.screens.result import ResultScreen
from responder.app.screens.symptom_search import SymptomSearchScreen


def burst(app, *keys: str) -> None:
    """Post the keys at once, as a terminal delivers pasted or very fast typing."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


async def test_two_answers_typed_at_once_answer_two_questions_in_turn():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        first = suggested(app)
        burst(app, "y", "n")
        await until(pilot, lambda: len(app.interview.records) == 2)
        records = [(r.query, r.answer.value) for r in app.interview.records]
        assert records[0] == (first, "yes")  # the first key is not replaced by the second
        assert records[1][0] != first and records[1][1] == "no"


async def test_keys_typed_while_the_search_opens_undo_nothing():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for key in ("y", "n"):
            await pilot.press(key)
            await settle(pilot)
        assert len(app.interview.records) == 2
        burst(app, "slash", "z", "z")
        await until(pilot, lambda: isinstance(app.screen, SymptomSearchScreen))
        await settle(pilot, 4)
        # "z" is undo on the interview screen: taken there, it would undo both answers
        assert len(app.interview.records) == 2
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, InterviewScreen) and len(app.interview.records) == 2


async def test_keys_typed_as_the_result_opens_by_itself_change_no_answer(monkeypatch):
    # a longer settling time than the app's half second: a loaded test machine stays in it
    monkeypatch.setattr("responder.app.screens.result.SETTLE_SECONDS", 3.0)
    app = make_app(None, mode=None)  # bundled knowledge base, evidence mode
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await answer_as_until_result(pilot, app, "Chlorine")  # stops as the result opens
        assert isinstance(app.screen, ResultScreen) and not app.screen.taking_keys
        answers = len(app.interview.records)
        burst(app, "z", "z", "escape")  # typed for the question before: not taken here
        await settle(pilot, 4)
        assert isinstance(app.screen, ResultScreen) and len(app.interview.records) == answers
        assert await until(pilot, lambda: app.screen.taking_keys)
        await pilot.press("slash")  # once seen: / adds another sign from the result
        assert await until(pilot, lambda: isinstance(app.screen, SymptomSearchScreen))


async def test_an_answer_typed_just_before_quit_is_saved():
    """A "y" and ctrl+q arriving together (typed within a few milliseconds) quit before the
    answer reached the app: the incident reopened without it. Quit now waits for the answer
    the screen has already sent."""
    from responder.core.store import list_incidents

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        first = suggested(app)
        assert first is not None
        burst(app, "y", "ctrl+q")
        await until(pilot, lambda: not app.is_running, 5.0)
    incidents, _ = list_incidents()
    assert [(a.symptom, a.answer) for a in incidents[0].answers] == [
        (app.knowledge.symptoms[first].id, "yes")
    ]


async def test_answers_typed_in_a_burst_before_quit_are_all_saved():
    from responder.core.store import list_incidents

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        burst(app, "y", "n", "u", "ctrl+q")
        await until(pilot, lambda: not app.is_running, 5.0)
    incidents, _ = list_incidents()
    assert [a.answer for a in incidents[0].answers] == ["yes", "no", "unknown"]


async def test_a_change_typed_in_the_history_just_before_quit_is_saved():
    """In the history, "n" on an answer and ctrl+q together: the key passes through the
    focused table and the screen before its binding runs, and the change it sends goes up
    the same way; quit left before it and the answer stayed "yes"."""
    from responder.app.screens.history import HistoryScreen
    from responder.core.store import list_incidents

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("h")
        assert await until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        assert app.focused is not None  # the answers table: keys go to it first
        burst(app, "n", "ctrl+q")
        await until(pilot, lambda: not app.is_running, 5.0)
    incidents, _ = list_incidents()
    assert [a.answer for a in incidents[0].answers] == ["no"]
