"""Browse and search the knowledge base: chemicals and symptoms."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static, TabbedContent, TabPane

from responder.app.widgets.panels import clip
from responder.kb.model import KnowledgeBase

CELL_PADDING = 2  # a DataTable cell's padding, one column each side
SCROLLBAR = 2  # the table's vertical scrollbar


class BrowseScreen(Screen):
    """Type to filter; ↑↓ to move; Tab switches between chemicals and symptoms."""

    BINDINGS = [
        Binding("escape", "close", "Back", id="browse.close"),
        Binding("tab", "switch_tab", "Chemicals / symptoms", priority=True, id="browse.switch"),
        Binding("up", "cursor(-1)", "Up", show=False, id="browse.up"),
        Binding("down", "cursor(1)", "Down", show=False, id="browse.down"),
        Binding("pageup", "cursor(-10)", "Page up", show=False, id="browse.page_up"),
        Binding("pagedown", "cursor(10)", "Page down", show=False, id="browse.page_down"),
        Binding("enter", "answer", "Answer this symptom", id="browse.answer", priority=True),
    ]

    def __init__(self, knowledge: KnowledgeBase):
        super().__init__()
        self.knowledge = knowledge
        self.chem_rows: list[int] = []
        self.sym_rows: list[int] = []

    def compose(self) -> ComposeResult:
        kn = self.knowledge
        yield Static(
            f" Knowledge base {kn.name}: {len(kn.chemicals)} chemicals, "
            f"{len(kn.symptoms)} symptoms, {len(kn.classes)} classes · {kn.origin}",
            classes="screen-title",
        )
        with TabbedContent(id="browse-tabs"):
            with TabPane("Chemicals", id="chemicals"):
                yield Input(
                    placeholder="Filter chemicals by name, CAS, UN or class…", id="chem-filter"
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
        self.widths = {"chem-table": (30, 20), "sym-table": (30, 14, 9)}
        self.fill_chemicals("")
        self.fill_symptoms("")
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
                [max((len(c.class_label) for c in kn.chemicals), default=5)],
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
                class_w = min(class_need, max(8, avail * 2 // 5))
                widths = (max(10, min(flexible_need, avail - class_w)), class_w)
            if self.widths.get(table_id) != widths or not table.columns:
                self.widths[table_id] = widths
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
        table.add_column("Chemical", width=name_w)
        table.add_column("Class", width=class_w)
        found = self.knowledge.search_chemicals(text)
        self.chem_rows = [c.index for c in found]
        for c in found:
            table.add_row(clip(c.name, name_w), clip(c.class_label, class_w))
        self.show_chemical()

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
        for s in found:
            table.add_row(
                clip(s.label, name_w),
                clip(s.category_label, cat_w),
                Text(str(int(B[:, s.index].sum())), justify="right"),
            )
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
        text.append(f"Class: {c.class_label}\n")
        if c.cas_label:
            text.append(c.cas_label + "   ")
        if c.un:
            text.append(f"UN {c.un}")
        text.append("\n\nSymptoms\n", style="bold underline")
        for s in self.knowledge.symptoms:
            if s.id in c.symptoms:
                text.append(f"  • {s.label}", style="")
                text.append(f"  ({s.category_label})\n", style="dim")
        text.append("\nSources\n", style="bold underline")
        for src in c.sources:
            text.append(f"  • {src}\n")
        if not c.source_checked:
            text.append(
                "  (source text not re-checked by the knowledge base's authors)\n",
                style="dim italic",
            )
        detail.update(text)

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
        text.append(f"Listed for {len(have)} chemical(s)\n", style="bold underline")
        for c in have:
            text.append(f"  • {c.name}", style="")
            text.append(f"  ({c.class_label})\n", style="dim")
        detail.update(text)

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
        self.app.action_volunteer(q)

    def action_close(self) -> None:
        self.app.pop_screen()
