"""What screens ask the app to do, as Textual messages.

Screens show view objects and post these upward; the app (:mod:`responder.app.app`) is the one
place that changes the interview, stores the change and redraws. A screen never calls the app
to change anything.
"""

from __future__ import annotations

from textual.message import Message

from responder.engine.state import Answer
from responder.kb.model import ExclusiveGroup


class AnswerGiven(Message):
    """An answer to ``query`` (volunteered: not the suggested question)."""

    def __init__(self, query: int, answer: Answer, volunteered: bool = False):
        super().__init__()
        self.query = query
        self.answer = answer
        self.volunteered = volunteered


class AnswerChanged(Message):
    """An earlier answer to ``query`` changed to ``answer``, or removed (None); ``victim``
    names whose answer it is (None: the victim being asked; a scene answer is the
    incident's either way)."""

    def __init__(self, query: int, answer: Answer | None, victim: int | None = None):
        super().__init__()
        self.query = query
        self.answer = answer
        self.victim = victim


class NoneOfGroup(Message):
    """ "None of these" for an exclusive group: no to each member not yet answered."""

    def __init__(self, group: ExclusiveGroup):
        super().__init__()
        self.group = group


class UndoRequested(Message):
    """Undo the last answer."""


class ModesChangeRequested(Message):
    """Change the interview's modes (``target``, ``suggest``, ``mode``, ``noise``)."""

    def __init__(self, **changes):
        super().__init__()
        self.changes = changes


class VictimAdded(Message):
    """A new victim of the same incident."""


class VictimRemoved(Message):
    """The victim being asked, added by mistake (no answers), taken back."""


class VictimSelected(Message):
    """Answers go to victim ``victim`` (0-based) from now on."""

    def __init__(self, victim: int):
        super().__init__()
        self.victim = victim


class ScreenRequested(Message):
    """Open a screen or dialog by name (``"history"``, ``"result"``, ``"volunteer"``...),
    with an optional argument (the symptom to volunteer)."""

    def __init__(self, name: str, argument=None):
        super().__init__()
        self.name = name
        self.argument = argument
