"""Browse and search the knowledge base: chemicals and symptoms."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static, TabbedContent, TabPane

from responder.app.messages import ScreenRequested
from responder.app.widgets.panels import ActNow, clip
from responder.core import views
from responder.core.counted import counted
from responder.core.percent import percent_tenths
from responder.kb.model import KnowledgeBase

CELL_PADDING = 2  # a DataTable cell's padding, one column each side
FILL_BATCH = 25  # rows added to a table per refresh (about a screenful at 80x24)
SCROLLBAR = 2  # the table's vertical scrollbar


class BrowseScreen(Screen):
    """Type to filter; ↑↓ to move; Tab switches between chemicals and symptoms."""

    DEFAULT_CSS = """
    BrowseScreen .screen-title {
        height: auto;
        background: $primary;
        text-style: bold;
        padding: 0 1;
    }
    BrowseScreen #browse-tabs, BrowseScreen #browse-tabs TabPane,
    BrowseScreen #browse-tabs ContentSwitcher {
        height: 1fr;
    }
    BrowseScreen .browse-split {
        height: 1fr;
    }
    BrowseScreen .browse-split DataTable {
        width: 3fr;
        height: 1fr;
    }
    BrowseScreen .browse-detail {
        width: 2fr;
        border-left: solid $primary;
        padding: 0 1;
    }
    """

    BINDINGS = [
        Binding("escape", "close", "Back", id="browse.close"),
        Binding("tab", "switch_tab", "Chemicals / symptoms", priority=True, id="browse.switch"),
        Binding("up", "cursor(-1)", "Up", show=False, id="browse.up"),
        Binding("down", "cursor(1)", "Down", show=False, id="browse.down"),
        Binding("pageup", "cursor(-10)", "Page up", show=False, id="browse.page_up"),
        Binding("pagedown", "cursor(10)", "Page down", show=False, id="browse.page_down"),
        Binding("enter", "answer", "Answer this symptom", id="browse.answer", priority=True),
    ]

    def __init__(self, knowledge: KnowledgeBase, ranks: dict[int, tuple[int, float]] | None = None):
        super().__init__()
        self.knowledge = knowledge
        #: each chemical's place in the interview's candidates: index -> (rank, chance)
        self.ranks = ranks or {}
        self.chem_rows: list[int] = []
        self.sym_rows: list[int] = []

    def compose(self) -> ComposeResult:
        kn = self.knowledge
        # the interview screen's act-now line, which this screen covers
        yield ActNow(id="browse-act-now")
        yield Static(
            f"Knowledge base {kn.name}: {counted(len(kn.chemicals), 'chemical')}, "
            f"{counted(len(kn.symptoms), 'symptom')}, "
            f"{counted(len(kn.classes), 'class', 'classes')}",
            classes="screen-title",
        )
        with TabbedContent(id="browse-tabs"):
            with TabPane("Chemicals", id="chemicals"):
                yield Input(
                    placeholder="Name, short name (GB), CAS, UN or class…", id="chem-filter"
                )
                with Horizontal(classes="browse-split"):
                    yield DataTable(id="chem-table", cursor_type="row", zebra_stripes=True)
                    with VerticalScroll(classes="browse-detail"):
                        yield Static(id="chem-detail")
            with TabPane("Symptoms", id="symptoms"):
                yield Input(placeholder="Filter symptoms by name or category…", id="sym-filter")
                with Horizontal(classes="browse-split"):
                    yield DataTable(id="sym-table", cursor_type="row", zebra_stripes=True)
                    with VerticalScroll(classes="browse-detail"):
                        yield Static(id="sym-detail")
        yield Footer()

    def on_mount(self) -> None:
        it = getattr(self.app, "interview", None)
        self.query_one(ActNow).show(views.act_now(it) if it is not None else None)
        self.widths = {"chem-table": (30, 20), "sym-table": (30, 14, 9)}
        self.rank_w = max(len("Rank"), len(str(len(self.knowledge.chemicals))))
        self.filled: set[str] = set()  # tables filled once their width is known
        self._fills: dict[str, int] = {}  # each table's latest fill, so an older one stops
        self.query_one("#chem-filter", Input).focus()
        self.call_after_refresh(self.fit_columns)

    def on_resize(self) -> None:
        self.call_after_refresh(self.fit_columns)

    def on_tabbed_content_tab_activated(self) -> None:
        self.call_after_refresh(self.fit_columns)  # a hidden tab's table has no width yet

    def fit_columns(self) -> None:
        """Fit each table's columns to its panel, so nothing scrolls sideways: the counts
        and classes whole where they fit, the names get the rest (cut with "…")."""
        kn = self.knowledge
        counts = kn.problem.matrix.sum(axis=0)
        sym_fixed = max(len("Chemicals"), len(str(int(counts.max(initial=0)))))
        for table_id, fixed_need, flexible_need in (
            (
                "chem-table",
                [max((len(c.class_short) for c in kn.chemicals), default=5)],
                max((len(c.name) for c in kn.chemicals), default=8),
            ),
            (
                "sym-table",
                [max((len(s.category_label) for s in kn.symptoms), default=8), sym_fixed],
                max((len(s.label) for s in kn.symptoms), default=7),
            ),
        ):
            table = self.query_one(f"#{table_id}", DataTable)
            if not table.size.width:
                continue  # not shown yet
            ncols = 1 + len(fixed_need)
            avail = max(20, table.size.width - SCROLLBAR - CELL_PADDING * ncols)
            if table_id == "sym-table":
                cat_need, count_w = fixed_need
                cat_w = min(cat_need, max(8, (avail - count_w) // 3))
                name_w = max(10, min(flexible_need, avail - count_w - cat_w))
                widths = (name_w, cat_w, count_w)
            else:
                class_need = fixed_need[0]
                avail -= self.rank_w + CELL_PADDING  # the rank column
                class_w = min(class_need, max(8, avail * 2 // 5))
                widths = (max(10, min(flexible_need, avail - class_w)), class_w)
            if self.widths.get(table_id) != widths or table_id not in self.filled:
                self.widths[table_id] = widths
                self.filled.add(table_id)
                if table_id == "chem-table":
                    self.fill_chemicals(self.query_one("#chem-filter", Input).value)
                else:
                    self.fill_symptoms(self.query_one("#sym-filter", Input).value)

    @property
    def tab(self) -> str:
        return self.query_one(TabbedContent).active or "chemicals"

    def fill_chemicals(self, text: str) -> None:
        table = self.query_one("#chem-table", DataTable)
        name_w, class_w = self.widths["chem-table"]
        table.clear(columns=True)
        table.add_column("Rank", width=self.rank_w)
        table.add_column("Chemical", width=name_w)
        table.add_column("Class", width=class_w)
        found = self.find_chemicals(text)
        self.chem_rows = [c.index for c in found]
        rows = []
        for c in found:
            rank = self.ranks.get(c.index)
            rows.append(
                (
                    Text(str(rank[0]) if rank else "–", justify="right"),
                    Text(clip(c.name, name_w)),
                    Text(clip(c.class_short, class_w)),
                )
            )
        self._fill(table, rows)
        self.show_chemical()

    def _fill(self, table: DataTable, rows: list, start: int = 0, fill: int | None = None):
        """Add ``rows`` a screenful first, then batches as large as all the rows before them,
        one batch per refresh: a key pressed meanwhile (Esc, a letter of the filter) is
        handled between batches, not after every row, and a long list takes a few refreshes,
        not one per screenful (2,000 chemicals took 80 repaints, 5-18 s of a real terminal's
        time after every letter typed in the filter)."""
        if fill is None:
            self._fills[table.id] = fill = self._fills.get(table.id, 0) + 1
        elif fill != self._fills.get(table.id) or not table.is_attached:
            return  # a newer filter refilled the table, or the screen closed
        end = start + max(FILL_BATCH, start)
        table.add_rows(rows[start:end])
        if end < len(rows):
            self.call_after_refresh(self._fill, table, rows, end, fill)

    def find_chemicals(self, text: str) -> list:
        """The chemicals ``text`` finds, best first: the one it names exactly (an id, CAS
        number, the name without its bracket, or a bracketed short name such as "GB") before
        those whose name, CAS, UN or class merely match."""
        kn = self.knowledge
        found = kn.search_chemicals(text)
        if text.strip():
            try:
                named = kn.resolve_chemical(text)
            except KeyError:  # no chemical, or several, go by that name
                named = None
            if named is not None:
                found = [named, *(c for c in found if c.index != named.index)]
        return found

    def fill_symptoms(self, text: str) -> None:
        table = self.query_one("#sym-table", DataTable)
        name_w, cat_w, count_w = self.widths["sym-table"]
        table.clear(columns=True)
        table.add_column("Symptom", width=name_w)
        table.add_column("Category", width=cat_w)
        table.add_column("Chemicals", width=count_w)
        found = self.knowledge.search_symptoms(text)
        self.sym_rows = [s.index for s in found]
        B = self.knowledge.problem.matrix
        rows = [
            (
                Text(clip(s.label, name_w)),
                Text(clip(s.category_label, cat_w)),
                Text(str(int(B[:, s.index].sum())), justify="right"),
            )
            for s in found
        ]
        self._fill(table, rows)
        self.show_symptom()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "chem-filter":
            self.fill_chemicals(event.value)
        else:
            self.fill_symptoms(event.value)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "chem-table":
            self.show_chemical()
        else:
            self.show_symptom()

    def show_chemical(self) -> None:
        table = self.query_one("#chem-table", DataTable)
        detail = self.query_one("#chem-detail", Static)
        if not self.chem_rows:
            detail.update(Text("No chemical matches.", style="yellow"))
            return
        c = self.knowledge.chemicals[self.chem_rows[min(table.cursor_row, len(self.chem_rows) - 1)]]
        text = Text()
        text.append(c.name + "\n", style="bold")
        rank = self.ranks.get(c.index)
        if rank is not None:
            text.append(
                f"Now ranked {rank[0]} among the candidates ({percent_tenths(rank[1])})\n",
                style="bold",
            )
        elif self.ranks:
            text.append("No longer possible given the answers\n", style="dim")
        text.append(f"Class: {c.class_label}\n")
        if c.cas_label:
            text.append(c.cas_label + "   ")
        if c.un:
            text.append(f"UN {c.un}")
        text.append("\n")
        signs = [(s.label, s.category_label) for s in self.knowledge.symptoms if s.id in c.symptoms]
        sources = [(src, "") for src in c.sources]
        parts = [text, _bullets("Symptoms", signs), _bullets("Sources", sources)]
        if not c.source_checked:
            parts.append(
                Text(
                    "(source text not re-checked by the knowledge base's authors)",
                    style="dim italic",
                )
            )
        detail.update(Group(*parts))

    def show_symptom(self) -> None:
        table = self.query_one("#sym-table", DataTable)
        detail = self.query_one("#sym-detail", Static)
        if not self.sym_rows:
            detail.update(Text("No symptom matches.", style="yellow"))
            return
        s = self.knowledge.symptoms[self.sym_rows[min(table.cursor_row, len(self.sym_rows) - 1)]]
        text = Text()
        text.append(s.label + "\n", style="bold")
        text.append(f"Category: {s.category_label}\n")
        text.append(f"How to check: {s.check or '—'}\n\n")
        text.append("Enter: answer this symptom now\n\n", style="italic")
        B = self.knowledge.problem.matrix
        have = [self.knowledge.chemicals[i] for i in range(B.shape[0]) if B[i, s.index]]
        listed = [(c.name, c.class_short) for c in have]
        detail.update(Group(text, _bullets(f"Listed for {counted(len(have), 'chemical')}", listed)))

    def action_cursor(self, step: int) -> None:
        table = self.query_one(
            "#chem-table" if self.tab == "chemicals" else "#sym-table", DataTable
        )
        if table.row_count:
            table.move_cursor(row=max(0, min(table.row_count - 1, table.cursor_row + step)))

    def action_switch_tab(self) -> None:
        tabs = self.query_one(TabbedContent)
        tabs.active = "symptoms" if self.tab == "chemicals" else "chemicals"
        self.query_one(
            "#sym-filter" if tabs.active == "symptoms" else "#chem-filter", Input
        ).focus()

    def check_action(self, action: str, parameters) -> bool | None:
        if action == "answer":
            return self.tab == "symptoms" and bool(self.sym_rows)
        return True

    def action_answer(self) -> None:
        table = self.query_one("#sym-table", DataTable)
        if not self.sym_rows:
            return
        q = self.sym_rows[min(table.cursor_row, len(self.sym_rows) - 1)]
        self.app.pop_screen()
        self.app.post_message(ScreenRequested("volunteer", q))  # this screen closes

    def action_close(self) -> None:
        self._fills = {table: -1 for table in self._fills}  # the batches still due stop
        self.app.pop_screen()


def _bullets(title: str, items: list[tuple[str, str]]) -> Group:
    """A heading and its items, each wrapped under itself, with a dim note after it."""
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True)
    table.add_column(ratio=1)
    for label, note in items:
        line = Text(label)
        if note:
            line.append(f"  ({note})", style="dim")
        table.add_row(" •", line)
    return Group(Text(title, style="bold underline"), table, Text(""))
