"""The scene step: what was smelt, seen and going on, one key per answer, before the signs.

Each scene category (smell, what was seen, the chemical's form, where it happened, the pattern
at the scene, when signs began, how the victim was exposed) is one page: pressing an
observation's key answers it "yes" (pressing it again takes the answer back), Enter or → goes
to the next page, ← back, Esc skips the rest. Everything answered here is an ordinary answer:
it shows in the history, can be changed or undone, and the interview goes on from it.
"""

from __future__ import annotations

import textwrap

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from responder.app.keymap import caps_lock_hint
from responder.app.messages import AnswerChanged, AnswerGiven
from responder.core import views
from responder.engine.state import Answer

#: rows the dialog leaves free: the title line, the status line's three and the keys line
SCREEN_ROWS_KEPT = 5
#: the dialog's width where the screen allows: two columns of 32-character labels
DIALOG_WIDTH = 80
#: an option's key and its mark before its label: " 1 " and " ✓ "
KEY_CELL = 6


def option_lines(option: views.SceneOption, column: int, wrap: bool = True) -> list[Text]:
    """One option in a column ``column`` characters wide (its last one left blank): the key,
    the mark and the label, wrapped at its words under the label's start, or cut to a line."""
    room = column - KEY_CELL - 1
    style = "dim" if option.implied else ""
    label = option.observation.label
    parts = textwrap.wrap(label, room) if wrap else [label]
    lines = []
    for n, part in enumerate(parts or [""]):
        cell = Text()
        if n == 0:
            cell.append(f" {option.key} ", style="bold reverse")
            cell.append(f" {'✓' if option.answer is Answer.YES else ' '} ", style=style)
        else:
            cell.append(" " * KEY_CELL)
        cell.append(part, style=style)
        if not wrap:
            cell.truncate(column - 1, overflow="ellipsis")
        lines.append(cell)
    return lines


class SceneScreen(ModalScreen[None]):
    """The scene step; each key posts its answer to the app, and the page shows it once the
    app has recorded it."""

    DEFAULT_CSS = """
    SceneScreen {
        align: center middle;
    }
    SceneScreen > #scene-dialog {
        width: 80;
        max-width: 100%;
        height: auto;
        max-height: 100%;
        /* the title line above, the status line (up to three rows with a notice) and the
           keys below stay in sight: the figures are what a responder checks between answers */
        margin: 1 0 4 0;
        border: round $accent;
        border-title-style: bold;
    }
    SceneScreen #scene-check {
        padding: 0 1;
    }
    SceneScreen #scene-options {
        height: auto;
    }
    SceneScreen #scene-keys {
        height: auto;
        color: $text-muted;
    }
    """

    BINDINGS = [
        Binding("escape", "skip", "Skip the scene", id="scene.skip"),
        Binding("enter,right", "page(1)", "Next", id="scene.next"),
        Binding("left", "page(-1)", "Back", id="scene.back"),
    ]

    def __init__(self, page: int = 0):
        super().__init__()
        self.page = page
        self.steps: list[views.SceneStep] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="scene-dialog"):
            yield Static(id="scene-check")
            yield Static(id="scene-options")
            yield Static(id="scene-keys")

    def on_mount(self) -> None:
        self.app.interview_changed.subscribe(self, lambda _generation: self.refresh_page())
        self.refresh_page()

    def refresh_page(self) -> None:
        self.steps = steps = views.scene_steps(self.app.interview)
        if not steps:
            self.dismiss(None)
            return
        step = steps[min(self.page, len(steps) - 1)]
        dialog = self.query_one("#scene-dialog")
        dialog.border_title = step.title
        dialog.border_subtitle = "never sniff to find out: ask witnesses"
        self.query_one("#scene-check", Static).update(Text(step.instruction, style="italic"))
        # one option a line unless two fit side by side, or one a line would not fit the
        # room left between the title and the status line (besides the border, the check
        # and the keys line): then two, a long label wrapped in its column while the rows
        # allow, cut only past them
        room = (self.size.height or 24) - SCREEN_ROWS_KEPT
        dialog.styles.max_height = max(room, 6)
        inside = min(DIALOG_WIDTH, self.size.width or DIALOG_WIDTH) - 2  # the border
        check = len(textwrap.wrap(step.instruction, inside - 2))  # its padding
        free = room - 3 - check  # the border's two lines and the keys line
        longest = max((len(o.observation.label) for o in step.options), default=10)
        columns = 2 if (longest + KEY_CELL + 1) * 2 <= inside else 1
        if len(step.options) > free:
            columns = 2
        column = inside // columns
        options = [step.options[k : k + columns] for k in range(0, len(step.options), columns)]
        rows = [[option_lines(o, column) for o in row] for row in options]
        while sum(max(map(len, row)) for row in rows) > free:
            tallest = max(range(len(rows)), key=lambda r: max(map(len, rows[r])))
            if max(map(len, rows[tallest])) == 1:
                break
            rows[tallest] = [option_lines(o, column, wrap=False) for o in options[tallest]]
        lines = Text()
        for row in rows:
            for n in range(max(map(len, row))):
                for k, cell in enumerate(row):
                    part = cell[n].copy() if n < len(cell) else Text()
                    if k < len(row) - 1:
                        part.pad_right(column - len(part.plain))
                    lines.append_text(part)
                lines.append("\n")
        lines.rstrip()  # the last option's line break would take a line of its own
        self.query_one("#scene-options", Static).update(lines)
        last = step.position == step.total
        self.query_one("#scene-keys", Static).update(
            Text.assemble(
                (" enter ", "bold reverse"),
                (" done" if last else " next", ""),
                "   ",
                (" ← ", "bold reverse"),
                (" back", ""),
                "   ",
                (" esc ", "bold reverse"),
                (" skip the scene", ""),
            )
        )

    def on_resize(self) -> None:
        if self.steps:
            self.refresh_page()

    def on_key(self, event: events.Key) -> None:
        steps = self.steps
        if not steps or event.character is None:
            return
        step = steps[min(self.page, len(steps) - 1)]
        option = next((o for o in step.options if o.key == event.character), None)
        if option is None:
            hint = caps_lock_hint(
                event.character, {o.key: o.observation.label for o in step.options}
            )
            if hint is not None:  # "A" with Caps Lock on, where a is an option: say so
                event.stop()
                self.app.bell()
                self.notify(hint, severity="warning", timeout=6)
            return
        event.stop()
        q = option.observation.index
        if option.implied:
            self.notify(
                f"{option.observation.label}: follows from another answer; change that one.",
                timeout=4,
            )
            return
        if option.answer is Answer.YES:
            self.post_message(AnswerChanged(q, None))
        else:
            self.post_message(AnswerGiven(q, Answer.YES, volunteered=True))

    def action_page(self, step: int) -> None:
        steps = self.steps
        self.page += step
        if self.page >= len(steps):
            self.dismiss(None)
            return
        self.page = max(0, self.page)
        self.refresh_page()

    def action_skip(self) -> None:
        self.dismiss(None)
