"""The result: what was identified, its profile against the answers, sources, and the
reminder that this is decision support."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from responder.core import views
from responder.core.views import ANSWER_TEXT, ResultView
from responder.kb.next_steps import KIND_LABELS, ResultSteps, result_steps

MARKS = {
    "match": ("✓ match", "bold green"),
    "mismatch": ("✗ contradicts", "bold red"),
    "partial": ("~ some", "yellow"),
    "unknown": ("? can't tell", "yellow"),
    "expected": ("expected, not checked", "cyan"),
    "": ("", ""),
}


def next_steps_text(steps: ResultSteps, what: str) -> Text:
    """What to do now, kind by kind, each step tagged with its source number."""
    text = Text()
    text.append("What to do now\n", style="bold underline")
    pc = steps.poison_centre
    if pc is not None:
        text.append("  ☎ Poison centre: ", style="bold")
        text.append(pc.line, style="bold reverse")
        text.append(f"  {pc.label}\n" if pc.label else "\n", style="dim")
        if pc.note:
            text.append(f"    {pc.note}\n", style="bold yellow")
    if not steps.specific:
        text.append(
            f"  No steps specific to {what} are recorded in this knowledge base; "
            "general first aid only.\n",
            style="yellow",
        )
    for gap in steps.gaps:
        text.append(
            f"  Why no steps for {gap.label or gap.class_id}: {gap.reason}\n", style="dim yellow"
        )
    numbers = {s.id: k for k, s in enumerate(steps.sources, start=1)}
    for kind, items in steps.by_kind.items():
        text.append(f"  {KIND_LABELS[kind]}\n", style="bold")
        for step in items:
            text.append(f"    • {step.text} ")
            text.append(f"[{numbers[step.source.id]}]\n", style="dim")
    if steps.sources:
        text.append("  Sources: ", style="dim")
        text.append(
            "; ".join(f"[{numbers[s.id]}] {s.title}" for s in steps.sources) + "\n", style="dim"
        )
    return text


def _expected(value: float, share: bool) -> Text:
    if share:
        return Text(f"{value:.0%}", style="bold" if value >= 0.5 else "dim")
    return Text("yes" if value >= 1 else "no", style="bold" if value >= 1 else "dim")


class ResultScreen(Screen):
    """Shown when the target is identified, or when nothing can narrow the list further."""

    BINDINGS = [
        Binding("escape,enter", "back", "Back", id="result.back"),
        Binding("z,backspace", "undo", "Undo", id="result.undo", key_display="z"),
        Binding("t", "chemical", "To the chemical", id="result.chemical"),
        Binding("x", "export", "Export", id="result.export"),
        Binding("ctrl+n", "new", "New", id="result.new"),
        Binding("question_mark,f1", "help", "Help", id="result.help", key_display="?"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="result-body"):
            yield Static(id="result-headline")
            yield Static(id="result-next")
            yield Static(id="result-disclaimer", classes="disclaimer")
            yield Static(id="result-summary")
            yield Static(id="result-profile")
            yield Static(id="result-sources")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.refresh_view()
        self.query_one("#result-body").focus()

    def check_action(self, action: str, parameters) -> bool | None:
        if action == "chemical":
            it = self.app.interview
            return it is not None and it.target == "class"
        return True

    def refresh_view(self) -> None:
        it = self.app.interview
        result = views.result(it)
        if result is None:
            self.app.pop_screen()
            return
        self.query_one("#result-headline", Static).update(self._headline(result))
        steps = result_steps(it.knowledge, result)
        nxt = self.query_one("#result-next", Static)
        nxt.display = bool(steps)
        nxt.update(next_steps_text(steps, result.title))
        self.query_one("#result-disclaimer", Static).update(Text(result.disclaimer, style="bold"))
        self.query_one("#result-summary", Static).update(self._summary(result))
        self.query_one("#result-profile", Static).update(self._profile(result))
        src = Text()
        src.append("Sources\n", style="bold underline")
        for s in result.sources:
            src.append(f"  • {s}\n")
        if not result.sources:
            src.append("  none given in the knowledge base\n", style="dim")
        self.query_one("#result-sources", Static).update(src)

    def _headline(self, r: ResultView) -> Text:
        it = self.app.interview
        text = Text()
        style = "bold green" if r.kind in ("chemical", "set", "class") else "bold yellow"
        text.append(r.headline + "\n", style=style)
        details = [f"after {it.asked} answer(s)"]
        if it.noise_tolerated:
            details.append(f"noise tolerance on: contradicts {r.mismatches} answer(s)")
        text.append(", ".join(details), style="dim")
        if r.kind == "chemical":
            c = r.candidates[0].chemicals[0]
            ids = [f"class: {c.class_label}"]
            if c.cas_label:
                ids.append(c.cas_label)
            if c.un:
                ids.append(f"UN {c.un}")
            text.append("\n" + " · ".join(ids))
        elif r.kind == "set":
            classes = r.candidates[0].class_labels
            text.append(f"\nclass: {classes} · no symptom in the knowledge base tells these apart")
        elif r.kind == "class":
            cls = r.classes[0][0]
            if cls.description:
                text.append("\n" + cls.description)
            if it.target == "class":
                text.append(
                    "\nPress t to go on and identify the chemical itself; answers are kept.",
                    style="italic",
                )
        return text

    def _summary(self, r: ResultView) -> Table | Text:
        self.query_one("#result-summary").display = r.kind != "chemical"
        if r.kind == "chemical":
            return Text("")
        table = Table(
            title="Still possible",
            title_justify="left",
            expand=False,
            box=None,
            padding=(0, 2),
            header_style="bold",
        )
        table.add_column("Chemical(s)")
        table.add_column("Class")
        table.add_column("Probability", justify="right")
        for c in r.candidates[:20]:
            table.add_row(c.names, c.class_labels, f"{c.probability:.1%}")
        if len(r.candidates) > 20:
            table.add_row(f"… {len(r.candidates) - 20} more", "", "")
        return table

    def _profile(self, r: ResultView) -> Table:
        share = r.kind == "class"
        single = len(r.columns) == 1
        table = Table(
            title="Symptom profile against the answers given",
            title_justify="left",
            box=None,
            padding=(0, 2),
            header_style="bold",
            expand=False,
            caption=r.profile_note or None,
            caption_justify="left",
        )
        table.add_column("Symptom")
        table.add_column("Your answer")
        if single:
            if share:
                table.add_column("Chemicals of the class listing it")
            else:
                what = "this chemical" if r.kind == "chemical" else "this set"
                table.add_column(f"Listed for {what}?")
            table.add_column("Fit")
        else:
            for col in r.columns:
                table.add_column(col[:30])
        for row in r.profile:
            cells = [
                Text(row.symptom.label),
                Text(
                    ANSWER_TEXT[row.answer] if row.answer else "not asked",
                    style="" if row.answer else "dim",
                ),
            ]
            for e, m in zip(row.expected, row.marks):
                label, style = MARKS.get(m, (m, ""))
                if single:
                    cells += [_expected(e, share), Text(label, style=style)]
                else:
                    cell = _expected(e, share)
                    if label:
                        cell.append("  " + label.split(",")[0], style=style)
                    cells.append(cell)
            table.add_row(*cells)
        return table

    # -- actions --------------------------------------------------------------------------

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_undo(self) -> None:
        self.app.pop_screen()
        self.app.undo_last()

    def action_chemical(self) -> None:
        self.app.pop_screen()
        self.app.change_modes(target="chemical")

    def action_export(self) -> None:
        self.app.action_export()

    def action_new(self) -> None:
        self.app.action_new_interview()

    def action_help(self) -> None:
        self.app.action_help()
