"""Every answer given, in order, each of which can be changed or removed."""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from responder.app.widgets.panels import ANSWER_MARK
from responder.core import views
from responder.core.views import ANSWER_TEXT
from responder.engine.state import Answer


class HistoryScreen(Screen):
    """The answer history: ↑↓ to pick an answer, y / n / u to change it, d to remove it."""

    BINDINGS = [
        Binding("escape,h", "close", "Back", id="history.close"),
        Binding("y", "change('yes')", "Yes", id="history.yes"),
        Binding("n", "change('no')", "No", id="history.no"),
        Binding("u", "change('unknown')", "Can't tell", id="history.unknown"),
        Binding("d,delete", "remove", "Remove", id="history.remove"),
    ]

    def compose(self) -> ComposeResult:
        yield Static(id="history-title", classes="screen-title")
        yield DataTable(id="history-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="history-help", classes="hint")
        yield Footer()

    def on_mount(self) -> None:
        self.fill()
        self.query_one(DataTable).focus()

    @property
    def interview(self):
        return self.app.interview

    def fill(self, cursor: int | None = None) -> None:
        it = self.interview
        rows = views.history(it)
        table = self.query_one(DataTable)
        table.clear(columns=True)
        # the answer comes right after the number so a narrow terminal never hides it
        table.add_columns("#", "Answer", "Symptom", "Time", "Category", "")
        cands = views.candidates(it)
        doubted = set(it.contradicted(cands[0].objects)) if cands else set()
        for k, row in enumerate(rows, start=1):
            mark, style = ANSWER_MARK[row.record.answer]
            note = []
            if row.record.volunteered:
                note.append("volunteered")
            if row.symptom.index in doubted and it.noise_tolerated:
                note.append("contradicts the top candidate")
            table.add_row(
                str(k),
                Text(f"{mark} {ANSWER_TEXT[row.record.answer]}", style=style),
                row.symptom.label,
                datetime.fromtimestamp(row.record.at).strftime("%H:%M:%S"),
                row.symptom.category_label,
                Text(", ".join(note), style="dim italic"),
                key=str(row.symptom.index),
            )
        if rows:
            target = len(rows) - 1 if cursor is None else min(cursor, len(rows) - 1)
            table.move_cursor(row=target)
        self.query_one("#history-title", Static).update(
            f" Answer history: {len(rows)} answer(s), oldest first"
        )
        self.query_one("#history-help", Static).update(
            "↑↓ pick · y / n / u change · d remove · Esc back"
            if rows
            else "No answers yet. Esc goes back to the interview."
        )

    def _selected(self) -> int | None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        return int(key.value)

    def action_change(self, value: str) -> None:
        q = self._selected()
        if q is None:
            self.app.bell()
            return
        self.app.change_answer(q, Answer(value))
        label = self.interview.knowledge.symptoms[q].label
        self.notify(f"{label}: now {ANSWER_TEXT[Answer(value)]} (moved to the end).", timeout=3)
        self.fill()

    def action_remove(self) -> None:
        q = self._selected()
        if q is None:
            self.app.bell()
            return
        row = self.query_one(DataTable).cursor_row
        self.app.change_answer(q, None)
        self.notify(f"Removed: {self.interview.knowledge.symptoms[q].label}.", timeout=3)
        self.fill(cursor=row)

    def action_close(self) -> None:
        self.app.pop_screen()
        self.app.interview_screen.refresh_view()
