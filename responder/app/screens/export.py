"""Choose where to export the interview, then write the Markdown report and JSON."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Static

from responder.app.screens.dialog import Dialog
from responder.app.widgets.notice import wrap_path
from responder.core.export import (
    export_interview,
    export_paths,
    exports_dir,
    not_a_folder_message,
    outside_data_dir,
    resolve_export_dir,
)
from responder.paths import UnsafePathError, file_in_the_way

#: the dialog's width (``wide``) where the screen allows, and what its border and padding take
DIALOG_WIDTH = 90
DIALOG_FRAME = 6


class ExportScreen(Dialog[tuple | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="export.cancel")]

    def __init__(self, interview, remaining=None):
        super().__init__()
        self.interview = interview
        self.remaining = remaining

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="wide"):
            yield Static("Export the interview", classes="dialog-title")
            yield Static(
                "A Markdown report and a JSON file, with every answer's time. "
                "Enter exports to this folder:",
                classes="hint",
            )
            yield Input(value=str(exports_dir()), id="export-dir")
            yield Static(id="export-target", classes="hint")
            yield Static(id="export-error", classes="error", markup=False)  # quotes a path
            with Horizontal(classes="buttons"):
                yield Button("Export (enter)", variant="primary", id="export")
                yield Button("Cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self.show_target()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.show_target()

    def on_resize(self) -> None:
        self.show_target()

    def show_target(self) -> None:
        """Show, in full, the two files Enter will write (before anything is written)."""
        folder = resolve_export_dir(self.query_one(Input).value)
        try:
            md, js = export_paths(self.interview, folder)
        except UnsafePathError as exc:
            self.query_one("#export-target", Static).update("")
            self.query_one("#export-error", Static).update(f"Cannot export: {exc}.")
            return
        where = ["(outside responder's data folder)"] if outside_data_dir(folder) else []
        shown = self.query_one("#export-target", Static)
        width = shown.size.width or min(DIALOG_WIDTH, self.app.size.width) - DIALOG_FRAME
        # the folder broken only after a separator, each file name whole on its own line
        lines = ["Writes into", *wrap_path(f"{md.parent}/", width), md.name, js.name, *where]
        shown.update(Text("\n".join(lines)))
        file = file_in_the_way(folder)
        problem = f"Cannot export: {not_a_folder_message(file)}." if file else ""
        self.query_one("#export-error", Static).update(problem)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.export()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "export":
            self.export()
        else:
            self.dismiss(None)

    def export(self) -> None:
        folder = resolve_export_dir(self.query_one(Input).value)
        try:
            md, js = export_interview(self.interview, folder, self.remaining)
        except UnsafePathError as exc:
            self.query_one("#export-error", Static).update(f"Cannot export: {exc}.")
            return
        except NotADirectoryError as exc:
            self.query_one("#export-error", Static).update(f"Cannot export: {exc.strerror}.")
            return
        except OSError as exc:
            self.query_one("#export-error", Static).update(
                f"Cannot write to {folder}: {exc.strerror or exc}. Choose another folder."
            )
            return
        self.dismiss((md, js))

    def action_cancel(self) -> None:
        self.dismiss(None)
