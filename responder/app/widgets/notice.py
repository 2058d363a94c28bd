"""A one-line notice above the footer of a full screen: what a toast would say, without
covering the result or the history."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

#: how long a notice stays, by severity (seconds)
NOTICE_SECONDS = {"information": 6.0, "warning": 12.0, "error": 20.0}
STYLES = {"error": "bold red", "warning": "yellow"}


class NoticeLine(Static):
    """Hidden until it has something to say; says it for a while, on one or two lines."""

    DEFAULT_CSS = """
    NoticeLine {
        height: auto;
        max-height: 2;
        background: $boost;
        padding: 0 1;
        display: none;
    }
    """

    can_focus = False

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._timer = None
        self.message = ""

    def say(self, message: str, severity: str = "information", timeout=None) -> None:
        self.message = " ".join(message.split())
        text = Text(self.message, style=STYLES.get(severity, ""))
        self.update(text)
        self.display = True
        if self._timer is not None:
            self._timer.stop()
        seconds = timeout if timeout is not None else NOTICE_SECONDS.get(severity, 6.0)
        self._timer = self.set_timer(seconds, self.clear)

    def clear(self) -> None:
        self._timer = None
        self.message = ""
        self.display = False
