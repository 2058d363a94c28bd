"""The look every dialog shares: a bordered box in the middle of the screen, its title, hints,
errors, form fields and buttons."""

from __future__ import annotations

from textual.screen import ModalScreen, ScreenResultType


class Dialog(ModalScreen[ScreenResultType]):
    """A modal dialog; its content goes in a ``Vertical(id="dialog")`` (classes ``wide``,
    ``tall``, ``form``)."""

    DEFAULT_CSS = """
    Dialog {
        align: center middle;
    }
    Dialog #dialog {
        width: 70;
        max-width: 100%;
        height: auto;
        max-height: 100%;
        /* the keys line below stays in sight: quit is always shown */
        margin-bottom: 1;
        /* on a short screen the dialog scrolls: its buttons are reached, never cut off */
        overflow-y: auto;
        border: thick $accent;
        background: $surface;
        padding: 1 2;
    }
    Dialog #dialog.wide {
        width: 90;
    }
    Dialog #dialog.tall, Dialog #dialog.form {
        height: 90%;
        max-height: 100%;
    }
    Dialog .dialog-title {
        text-style: bold;
        margin-bottom: 1;
    }
    Dialog .hint {
        color: $text-muted;
        margin-bottom: 1;
    }
    Dialog .error {
        color: $error;
        height: auto;
    }
    Dialog .disclaimer {
        border: round $warning;
        padding: 0 1;
        margin: 1 0;
        height: auto;
    }
    Dialog .buttons {
        height: auto;
        margin-top: 1;
    }
    Dialog .buttons Button {
        margin-right: 2;
    }
    Dialog .field {
        height: auto;
        margin-bottom: 1;
    }
    Dialog .field-label {
        width: 24;
        padding-top: 1;
    }
    Dialog .field Input {
        width: 20;
    }
    Dialog .field Select {
        width: 40;
    }
    """
