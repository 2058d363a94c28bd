"""Asked before quitting or starting a new interview while changes are not saved (a full
disk, a folder that cannot be written): retry the write, go on without them, or go back."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from responder.app.screens.dialog import Dialog
from responder.core.counted import counted


class UnsavedScreen(Dialog[str]):
    """Dismisses with ``"saved"`` (a retry wrote everything), ``"discard"`` (go on without
    the unsaved changes) or ``"back"``.

    Parameters
    ----------
    action : str
        What the responder asked for, as a verb phrase ("quit", "start a new interview").
    retry : callable
        Tries the write again; returns the error text, or None once everything is saved.
    unsaved : callable
        The count of changes not saved now.
    error : str
        Why the last write failed.
    busy : callable, optional
        Whether another program holds the database now (the advice is to close it, not
        to free disk space).
    file_limit : callable, optional
        Whether this process's file-size limit (``ulimit -f``) stopped the write (no retry
        here can pass it: the advice is to export, then start responder under a larger one).
    """

    BINDINGS = [
        Binding("r", "retry", "Retry saving", id="unsaved.retry"),
        Binding("d", "discard", "Go on without them", id="unsaved.discard"),
        Binding("escape", "back", "Go back", id="unsaved.back"),
    ]

    def __init__(
        self,
        action: str,
        retry: Callable[[], str | None],
        unsaved: Callable[[], int],
        error: str,
        busy: Callable[[], bool] = lambda: False,
        file_limit: Callable[[], bool] = lambda: False,
    ):
        super().__init__()
        self.action = action
        self.retry = retry
        self.unsaved = unsaved
        self.error = error
        self.busy = busy
        self.file_limit = file_limit
        self.tries = 0
        #: a retry is on its way (it may wait the busy timeout for another program)
        self.trying = False

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="wide"):
            # the error quotes the database's path: its brackets are no style
            yield Static(self._title(), id="unsaved-title", classes="dialog-title", markup=False)
            yield Static(self._detail(), id="unsaved-detail", classes="hint", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Retry saving (r)", variant="primary", id="retry")
                yield Button(f"{self.action.capitalize()} without them (d)", id="discard")
                yield Button("Go back (Esc)", id="back")

    def _title(self) -> str:
        return f"{counted(self.unsaved(), 'change')} NOT saved: {self.action} anyway?"

    def _detail(self) -> str:
        again = f" (tried again {counted(self.tries, 'time')})" if self.tries else ""
        if self.busy():
            fix = (
                "Close the program that holds the incident database (an sqlite3 shell, a "
                "backup), then retry"
            )
        elif self.file_limit():  # no retry in this process can pass it
            return (
                f"They could not be written to the incident database{again}: {self.error}\n"
                "They are only in this window, which cannot write past its file-size limit "
                "(ulimit -f): a retry will fail. Go back (Esc) and export the interview (x) "
                "to keep them, then start responder from a shell with a larger limit "
                "(`ulimit -f unlimited`). Going on without them loses them."
            )
        else:
            fix = "Free some disk space (or fix the folder), then retry"
        return (
            f"They could not be written to the incident database{again}: {self.error}\n"
            f"They are only in this window. {fix}: once they are saved, responder will "
            f"{self.action}. Going on without them loses them."
        )

    def on_mount(self) -> None:
        self.query_one("#retry", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        {"retry": self.action_retry, "discard": self.action_discard, "back": self.action_back}[
            event.button.id
        ]()

    def action_retry(self) -> None:
        """Try the write again off the screen's thread: while another program holds the
        database it waits up to the busy timeout (5 s), and the dialog says so meanwhile
        instead of freezing; keys pressed then start nothing."""
        if self.trying:
            self.app.bell()
            return
        self.trying = True
        self.query_one("#unsaved-title", Static).update(
            f"Trying again to save {counted(self.unsaved(), 'change')}…"
        )
        self.query_one("#unsaved-detail", Static).update(
            "Waiting for the incident database (a few seconds at most while another program "
            "holds it)."
        )
        self.run_worker(self._retry_in_thread, thread=True, exclusive=True, group="retry")

    def _retry_in_thread(self) -> None:
        try:
            error = self.retry()
        except Exception as exc:  # noqa: BLE001 (said on the dialog, never lost)
            error = str(exc) or type(exc).__name__
        self.app.call_from_thread(self._retried, error)

    def _retried(self, error: str | None) -> None:
        self.trying = False
        if error is None:
            self.dismiss("saved")
            return
        self.tries += 1
        self.error = error
        self.query_one("#unsaved-title", Static).update(self._title())
        self.query_one("#unsaved-detail", Static).update(self._detail())

    def action_discard(self) -> None:
        if self.trying:
            self.app.bell()
            return
        self.dismiss("discard")

    def action_back(self) -> None:
        if self.trying:
            self.app.bell()
            return
        self.dismiss("back")
