"""At start-up: unfinished incidents, offered for resume."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from responder.core import views
from responder.core.session import Interview
from responder.core.store import IncidentData, time_text


def last_answer_at(data: IncidentData) -> float | None:
    """When the last kept answer was given (a later mode change or undo is not an answer)."""
    return max((a.at for a in data.answers), default=None)


class ResumeScreen(Screen[IncidentData | None]):
    """Enter resumes the highlighted interview; n starts a new one."""

    BINDINGS = [
        Binding("enter,r", "resume", "Resume", id="resume.resume", priority=True),
        Binding("n", "new", "New interview", id="resume.new"),
        Binding("ctrl+q", "app.quit", "Quit", id="resume.quit"),
    ]

    def __init__(self, unfinished: list[IncidentData]):
        super().__init__()
        self.unfinished = unfinished[:20]

    def compose(self) -> ComposeResult:
        n = len(self.unfinished)
        yield Static(
            f" {'An unfinished interview was' if n == 1 else f'{n} unfinished interviews were'} "
            "found. Its answers below were read back from the incident database on disk.",
            classes="screen-title",
        )
        yield DataTable(id="resume-table", cursor_type="row", zebra_stripes=True)
        yield Static(
            "Enter resume the highlighted interview · n start a new one (the "
            "unfinished ones are set aside; they stay in the incident database)",
            classes="hint",
        )
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(
            "Started", "Last answer", "Answers", "Target", "Knowledge base", "Most likely now"
        )
        kn = self.app.knowledge
        for k, data in enumerate(self.unfinished):
            try:
                interview, _ = Interview.resume(kn, data, write=False)  # read only
                top = views.top_candidate(interview)
            except Exception:  # noqa: BLE001 (a damaged incident must not stop start-up)
                top = "?"
            cfg = data.config
            last_answer = last_answer_at(data)
            table.add_row(
                data.started_text,
                time_text(last_answer, "%H:%M:%S") if last_answer else "—",
                str(len(data.answers)),
                f"{cfg.get('target', '?')} / {cfg.get('suggest', '?')}",
                str(data.kb.get("name", "?")),
                top,
                key=str(k),
            )
        table.focus()

    def action_resume(self) -> None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            self.dismiss(None)
            return
        self.dismiss(self.unfinished[table.cursor_row])

    def action_new(self) -> None:
        self.dismiss(None)
