"""At start-up: unfinished incidents, offered for resume."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from responder.app.widgets.panels import wrap_names
from responder.core import views
from responder.core.session import Interview
from responder.core.store import IncidentData, time_text


def last_answer_at(data: IncidentData) -> float | None:
    """When the last kept answer was given (a later mode change or undo is not an answer)."""
    return max((a.at for a in data.answers), default=None)


class ResumeScreen(Screen[IncidentData | None]):
    """Enter resumes the highlighted interview; n starts a new one."""

    DEFAULT_CSS = """
    ResumeScreen .screen-title {
        height: auto;
        background: $primary;
        text-style: bold;
        padding: 0 1;
    }
    ResumeScreen #resume-table {
        height: 1fr;
    }
    ResumeScreen .hint {
        color: $text-muted;
        margin-bottom: 1;
    }
    """

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
            f"{'An unfinished interview was' if n == 1 else f'{n} unfinished interviews were'} "
            "found. Its answers below were read back from the incident database on disk.",
            classes="screen-title",
        )
        yield DataTable(id="resume-table", cursor_type="row", zebra_stripes=True)
        yield Static(
            "Enter resume the highlighted interview · n start a new one (the "
            "unfinished ones are set aside; they stay in the incident database)",
            classes="hint",
        )
        yield Footer(compact=True)

    def on_mount(self) -> None:
        kn = self.app.knowledge
        self.rows = []
        for data in self.unfinished:
            try:
                interview, _ = Interview.resume(kn, data, write=False)  # read only
                top = views.top_candidate(interview)
            except Exception:  # noqa: BLE001 (a damaged incident must not stop start-up)
                top = "?"
            cfg = data.config
            last_answer = last_answer_at(data)
            self.rows.append(
                (
                    data.started_text,
                    time_text(last_answer, "%H:%M:%S") if last_answer else "—",
                    str(len(data.answers)),
                    str(len(data.victim_names())),
                    top,
                    f"{cfg.get('target', '?')} / {cfg.get('suggest', '?')}",
                    str(data.kb.get("name", "?")),
                )
            )
        self.fill()
        self.query_one(DataTable).focus()

    def on_resize(self) -> None:
        if getattr(self, "rows", None) is not None:
            self.fill()

    HEADINGS = (
        "Started",
        "Last answer",
        "Answers",
        "Victims",
        "Most likely now",
        "Target",
        "Knowledge base",
    )
    TOP = HEADINGS.index("Most likely now")

    def fill(self) -> None:
        """The columns that fit, most likely chemical first among the optional ones; it
        wraps rather than being cut. The victims' count always shows: an incident of three
        victims is not the one-victim interview of the same hour."""
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        width = (table.size.width or self.app.size.width) - 2  # the scrollbar
        needs = [
            max([len(h), *(len(r[k]) for r in self.rows)]) for k, h in enumerate(self.HEADINGS)
        ]
        top = self.TOP
        used = sum(needs[:top]) + 2 * (top + 1)  # the columns before and the most likely's padding
        least = min(needs[top], 24)
        extra = []
        for k in (top + 1, top + 2):  # target, knowledge base: where the most likely keeps room
            if used + needs[k] + 2 + least <= width:
                extra.append(k)
                used += needs[k] + 2
        top_w = max(16, min(needs[top], width - used))
        table.clear(columns=True)
        columns = [*range(top + 1), *extra]
        for k in columns:
            table.add_column(self.HEADINGS[k], width=top_w if k == top else needs[k])
        for n, row in enumerate(self.rows):
            lines = wrap_names(row[top].split(" / "), top_w)
            cells = [Text("\n".join(lines)) if k == top else row[k] for k in columns]
            table.add_row(*cells, key=str(n), height=len(lines))
        if self.rows:
            table.move_cursor(row=min(max(cursor, 0), len(self.rows) - 1))

    def action_resume(self) -> None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            self.dismiss(None)
            return
        self.dismiss(self.unfinished[table.cursor_row])

    def action_new(self) -> None:
        self.dismiss(None)
