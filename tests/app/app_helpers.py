"""Helpers for driving the app like a responder would."""

from __future__ import annotations

from responder.app.screens.interview import InterviewScreen
from responder.app.widgets.panels import QuestionPanel
from responder.engine.state import Status


async def settle(pilot, times: int = 2) -> None:
    """Let the app handle every message the last key caused, and the messages those caused.

    ``pilot.pause()`` would also sleep until the process idles (20 ms or more each time); a
    pause of 0 handles the screen's pending messages and yields, which is all a key needs.
    Work done in threads is waited for with :func:`until`."""
    for _ in range(times + 1):
        await pilot.pause(0)


async def skip_scene_step(pilot, app) -> None:
    """Wait for the first screen and leave the scene step with Esc where it opens."""
    await settle(pilot)
    if type(app.screen).__name__ == "SceneScreen":
        await pilot.press("escape")
        await settle(pilot)


def suggested(app) -> int | None:
    """The symptom (query index) the question panel has selected now."""
    panel = app.interview_screen.query_one(QuestionPanel)
    return panel.selected_query


async def answer_from_row(pilot, app, chemical: str, limit: int = 50) -> int:
    """Answer every suggested question as ``chemical`` would; returns questions asked."""
    kn = app.knowledge
    row = kn.chemicals[kn.chemical_index(chemical)].symptoms
    asked = 0
    while app.interview.status is Status.ASKING and asked < limit:
        assert isinstance(app.screen, InterviewScreen), type(app.screen).__name__
        q = suggested(app)
        assert q is not None
        await pilot.press("y" if kn.symptoms[q].id in row else "n")
        await settle(pilot)
        asked += 1
    if app.interview.status in (Status.IDENTIFIED, Status.INDISTINGUISHABLE):
        from responder.app.screens.result import ResultScreen

        await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        # a result that opened by itself takes keys after a moment (ResultScreen.taking_keys)
        await until(
            pilot, lambda: not isinstance(app.screen, ResultScreen) or app.screen.taking_keys
        )
    return asked


async def answer_as_until_result(pilot, app, chemical: str, limit: int = 50) -> None:
    """Answer as ``chemical`` until the result screen opens by itself; return as it opens,
    before it takes keys (:attr:`ResultScreen.taking_keys`)."""
    from responder.app.screens.result import ResultScreen

    kn = app.knowledge
    row = kn.chemicals[kn.chemical_index(chemical)].symptoms
    for _ in range(limit):
        if isinstance(app.screen, ResultScreen):
            return
        q = suggested(app)
        if q is None:  # the answer ended the interview: the result is on its way
            await until(pilot, lambda: isinstance(app.screen, ResultScreen))
            continue
        await pilot.press("y" if kn.symptoms[q].id in row else "n")
        await settle(pilot)
    raise AssertionError(f"no result after {limit} answers as {chemical}")


async def until(pilot, condition, timeout: float = 10.0) -> bool:
    """Pause until ``condition()`` holds (screen changes can take a few cycles on a busy
    machine); returns whether it did."""
    waited = 0.0
    while not condition():
        if waited >= timeout:
            return False
        await pilot.pause(0.02)
        waited += 0.02
    await pilot.pause()
    return True


def static_text(widget) -> str:
    """The plain text a Static shows (its content drawn at its width), whatever the content
    is: a string, a Rich Text, or a group of tables."""
    import io

    from rich.console import Console

    console = Console(
        width=max(widget.size.width, 40), file=io.StringIO(), record=True, legacy_windows=False
    )
    console.print(widget.content)
    return console.export_text()


def toasts(app) -> list[str]:
    """The text of every notification on the screen now (Textual's ``Toast`` widgets; the
    app must run with ``run_test(notifications=True)``), its line breaks (the app wraps a
    toast's text itself, a path after its separators) read as spaces."""
    return [" ".join(str(toast.render()).split()) for toast in app.screen.query("Toast")]


async def notified(pilot, app, words: str) -> bool:
    """Pause until a notification containing ``words`` is on the screen; returns whether
    one came."""
    return await until(pilot, lambda: any(words in text for text in toasts(app)), 5.0)


async def all_notifications_shown(pilot, app) -> None:
    """Pause until every notification sent so far is on the screen: a marker sent now shows
    after them (notifications are shown in order), so a check that one is absent is not
    made too early."""
    app.notify("(marker)", timeout=30)
    assert await notified(pilot, app, "(marker)")
