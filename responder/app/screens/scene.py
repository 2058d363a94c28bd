"""The scene step: what was smelt, seen and going on, one key per answer, before the signs.

Each scene category (smell, what was seen, the chemical's form, where it happened, the pattern
at the scene, when signs began, how the victim was exposed) is one page: pressing an
observation's key answers it "yes" (pressing it again takes the answer back), Enter or → goes
to the next page, ← back, Esc skips the rest. Everything answered here is an ordinary answer:
it shows in the history, can be changed or undone, and the interview goes on from it.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from responder.app.messages import AnswerChanged, AnswerGiven
from responder.core import views
from responder.engine.state import Answer

#: rows the dialog leaves free: the title line, the status line's three and the keys line
SCREEN_ROWS_KEPT = 5


class SceneScreen(ModalScreen[None]):
    """The scene step; each key posts its answer to the app, and the page shows it once the
    app has recorded it."""

    DEFAULT_CSS = """
    SceneScreen {
        align: center middle;
    }
    SceneScreen > #scene-dialog {
        width: 78;
        max-width: 100%;
        height: auto;
        max-height: 100%;
        /* the title line above, the status line (up to three rows with a notice) and the
           keys below stay in sight: the figures are what a responder checks between answers */
        margin: 1 0 4 0;
        border: round $accent;
        border-title-style: bold;
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
        lines = Text()
        width = max((len(o.observation.label) for o in step.options), default=10) + 8
        # one option a line unless two fit side by side, or one a line would not fit the
        # room left between the title and the status line (the border, the check and the
        # keys line take four): then two, the longer labels cut
        room = (self.size.height or 24) - SCREEN_ROWS_KEPT
        dialog.styles.max_height = max(room, 6)
        rows = room - 4
        columns = 2 if width * 2 <= 74 or len(step.options) > rows else 1
        width = min(width, 37) if columns == 2 else width
        for k, option in enumerate(step.options):
            cell = Text()
            cell.append(f" {option.key} ", style="bold reverse")
            mark = "✓" if option.answer is Answer.YES else " "
            cell.append(
                f" {mark} {option.observation.label}", style="dim" if option.implied else ""
            )
            cell.truncate(width - 1 if columns == 2 else 74, overflow="ellipsis")
            if columns == 2 and k % 2 == 0:
                cell.pad_right(width - len(cell.plain))
            lines.append_text(cell)
            if columns == 1 or k % 2 == 1 or k == len(step.options) - 1:
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
