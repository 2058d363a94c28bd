"""Every answer given, in order, each of which can be changed or removed."""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from responder.app.messages import AnswerChanged
from responder.app.widgets.footer import fit_footer
from responder.app.widgets.notice import NoticeLine
from responder.app.widgets.panels import ANSWER_MARK, ActNow, clip
from responder.core import views
from responder.core.counted import counted
from responder.core.views import ANSWER_TEXT, HistoryRow
from responder.engine.state import Answer

CELL_PADDING = 2  # a DataTable cell's padding, one column each side
SCROLLBAR = 2


class HistoryScreen(Screen):
    """The answer history: ↑↓ to pick an answer, y / n / u to change it, d to remove it."""

    DEFAULT_CSS = """
    HistoryScreen #history-title {
        height: auto;
        background: $primary;
        text-style: bold;
        padding: 0 1;
    }
    HistoryScreen #history-table {
        height: 1fr;
    }
    HistoryScreen #history-help {
        height: auto;
        color: $text-muted;
        padding: 0 1;
    }
    """

    BINDINGS = [
        Binding("escape,h", "close", "Back", id="history.close"),
        Binding("y", "change('yes')", "Yes", id="history.yes"),
        Binding("n", "change('no')", "No", id="history.no"),
        Binding("u", "change('unknown')", "Can't tell", id="history.unknown"),
        Binding("d,delete", "remove", "Remove", id="history.remove"),
    ]

    def __init__(self):
        super().__init__()
        self.rows: list[HistoryRow] = []
        self.doubted: frozenset[int] = frozenset()
        self._cursor: int | None = None
        self._filled_width = 0

    def compose(self) -> ComposeResult:
        # the interview screen's act-now line, which this screen covers: changing the answer
        # that raised it here takes it away
        yield ActNow(id="history-act-now")
        yield Static(id="history-title")
        yield DataTable(id="history-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="history-help")
        yield NoticeLine()
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.app.interview_changed.subscribe(self, self._interview_changed)
        self.load()
        self.query_one(DataTable).focus()

    def on_resize(self) -> None:
        fit_footer(self, self.app.size.width, ())
        table = self.query_one(DataTable)
        if (table.size.width or self.app.size.width) != self._filled_width:
            self.fill(table.cursor_row)  # its first layout gives the width of the first fill

    def _interview_changed(self, _generation: int) -> None:
        self.load(self._cursor)

    def show_notice(self, message: str, severity: str = "information", timeout=None) -> None:
        self.query_one(NoticeLine).say(message, severity, timeout)

    def load(self, cursor: int | None = None) -> None:
        """Read the answers (and those the leader contradicts, with noise on) and show them."""
        it = self.app.interview
        self.rows = views.history(it)
        self.doubted = views.answers_view(it).doubted
        self.query_one(ActNow).show(views.act_now(it))
        self.fill(cursor)

    def fill(self, cursor: int | None = None) -> None:
        rows = self.rows
        table = self.query_one(DataTable)
        # the answer comes right after the number so a narrow terminal never hides it; the
        # symptom takes what the number, answer, time and category leave, and wraps in it
        width = table.size.width or self.app.size.width
        self._filled_width = width
        n_w = len(str(max(len(rows), 1)))
        answer_w = max([len("Answer"), *(len(self._answer(r).plain) for r in rows)])
        time_w = len("HH:MM:SS")
        cat_need = max((len(r.symptom.category_label) for r in rows), default=8)
        note_need = max((len(self._note(r)) for r in rows), default=0)
        fixed = n_w + answer_w + time_w + CELL_PADDING * (5 + bool(note_need)) + SCROLLBAR
        room = max(20, width - fixed)
        cat_w = min(cat_need, max(8, room // 3))
        note_w = min(note_need, max(0, room - cat_w - 24))
        sym_w = max(12, room - cat_w - note_w)
        table.clear(columns=True)
        table.add_column("#", width=n_w)
        table.add_column("Answer", width=answer_w)
        table.add_column("Symptom", width=sym_w)
        table.add_column("Time", width=time_w)
        table.add_column("Category", width=cat_w)
        if note_need:
            table.add_column("", width=max(note_w, 1))
        for k, row in enumerate(rows, start=1):
            cells = [
                str(k),
                self._answer(row),
                Text(self._named(row)),  # whole, over as many lines as it needs
                datetime.fromtimestamp(row.record.at).strftime("%H:%M:%S"),
                clip(row.symptom.category_label, cat_w),
            ]
            if note_need:
                cells.append(Text(clip(self._note(row), max(note_w, 1)), style="dim italic"))
            table.add_row(*cells, key=f"{row.record.victim}:{row.symptom.index}", height=None)
        if rows:
            target = len(rows) - 1 if cursor is None else min(cursor, len(rows) - 1)
            table.move_cursor(row=target)
        self.query_one("#history-title", Static).update(
            f"Answer history: {counted(len(rows), 'answer')}, oldest first"
        )
        self.query_one("#history-help", Static).update(
            "↑↓ pick · y / n / u change · d remove · Esc back"
            if rows
            else "No answers yet. Esc goes back to the interview."
        )

    @staticmethod
    def _answer(row: HistoryRow) -> Text:
        mark, style = ANSWER_MARK[row.record.answer]
        return Text(f"{mark} {ANSWER_TEXT[row.record.answer]}", style=style)

    def _note(self, row: HistoryRow) -> str:
        note = []
        if row.record.volunteered:
            note.append("volunteered")
        if row.symptom.index in self.doubted:
            note.append("contradicts the top candidate")
        return ", ".join(note)

    def _selected(self) -> HistoryRow | None:
        """The row under the cursor (a symptom may be answered once per victim)."""
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        victim, query = (int(part) for part in key.value.split(":"))
        return next(r for r in self.rows if r.symptom.index == query and r.record.victim == victim)

    @staticmethod
    def _named(row: HistoryRow) -> str:
        return f"{row.who} {row.symptom.label}" if row.who else row.symptom.label

    def action_change(self, value: str) -> None:
        row = self._selected()
        if row is None:
            self.app.bell()
            return
        self._cursor = None  # the changed answer moves to the end: follow it
        self.post_message(AnswerChanged(row.symptom.index, Answer(value), row.record.victim))
        self.show_notice(
            f"{self._named(row)}: now {ANSWER_TEXT[Answer(value)]} (moved to the end)."
        )

    def action_remove(self) -> None:
        row = self._selected()
        if row is None:
            self.app.bell()
            return
        self._cursor = self.query_one(DataTable).cursor_row
        self.post_message(AnswerChanged(row.symptom.index, None, row.record.victim))
        self.show_notice(f"Removed: {self._named(row)}.")

    def action_close(self) -> None:
        self.app.pop_screen()
