"""The result, top first: the most likely chemical and its class, what to do now, then what
weighed for and against it, the other candidates, its profile against the answers, sources,
and the reminder that this is decision support."""

from __future__ import annotations

import functools
import time

from rich.cells import cell_len
from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from responder.app.messages import ModesChangeRequested, ScreenRequested, UndoRequested
from responder.app.widgets.footer import fit_footer
from responder.app.widgets.notice import NoticeLine
from responder.app.widgets.panels import DISCLAIMER_SHORT, ActNow
from responder.core import views
from responder.core.percent import percent, percent_tenths
from responder.core.views import ANSWER_TEXT, ResultView
from responder.kb.next_steps import (
    FIRST_LABELS,
    KIND_LABELS,
    ResultSteps,
    common_heading,
    hallmark_heading,
    result_steps,
)

MARKS = {
    "match": ("✓ match", "bold green"),
    "mismatch": ("✗ contradicts", "bold red"),
    "implied": ("implied, not counted", "dim"),
    "uncounted": ("– occasional, not counted", "yellow"),
    "partial": ("~ some", "yellow"),
    "unknown": ("? can't tell", "yellow"),
    "expected": ("expected, not checked", "cyan"),
    "": ("", ""),
}


def _lines(rows) -> Table:
    """Rows of (indent and bullet, text): wrapped text keeps its indent."""
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True)
    table.add_column(ratio=1)
    for bullet, text in rows:
        table.add_row(bullet, text)
    return table


def next_steps_text(steps: ResultSteps, what: str) -> Group:
    """What to do now, so the first screen at 80x24 holds what keeps people alive: the
    poison-centre line, the hallmark warnings, then one step of each kind (protect yourself,
    first aid, antidote, decontaminate), then the rest kind by kind and why a class has no
    steps. Each step is tagged with its source number."""
    rows: list[tuple[Text | str, Text]] = []
    pc = steps.poison_centre
    if pc is not None:
        line = Text.assemble(("Poison centre: ", "bold"), (pc.line, "bold reverse"))
        if pc.label:
            line.append(f"  {pc.label}", style="dim")
        rows.append(("☎", line))
        if pc.note:
            rows.append(("", Text(pc.note, style="bold yellow")))
    numbers = {s.id: k for k, s in enumerate(steps.sources, start=1)}

    def step_line(step, style: str = "") -> Text:
        return Text.assemble((step.text, style), " ", (f"[{numbers[step.source.id]}]", "dim"))

    if steps.hallmarks:
        rows.append(("⚠", Text(hallmark_heading(steps, what), style="bold red")))
        rows += [("  •", step_line(step, "bold")) for step in steps.hallmarks]
    if steps.common_to:
        rows.append(("!", Text(common_heading(steps), style="bold yellow")))
    elif not steps.specific:
        rows.append(
            (
                "!",
                Text(
                    f"No steps specific to {what} are recorded in this knowledge base; "
                    "general first aid only.",
                    style="yellow",
                ),
            )
        )
    for step in steps.first:
        rows.append(
            ("  ▸", Text.assemble((f"{FIRST_LABELS[step.kind]}: ", "bold"), step_line(step)))
        )
    rest = steps.rest_by_kind()
    if rest:
        rows.append(("", Text("More steps, kind by kind (↓ or PgDn):", style="bold")))
    for kind, items in rest.items():
        rows.append(("", Text(KIND_LABELS[kind], style="bold")))
        rows += [("  •", step_line(step)) for step in items]
    for gap in steps.gaps:
        rows.append(
            ("", Text(f"Why no steps for {gap.label or gap.class_id}: {gap.reason}", style="dim"))
        )
    # the result covers the interview screen's top line: the first screen says what this is
    heading = Text.assemble(
        ("What to do now", "bold underline"), (f" · {DISCLAIMER_SHORT}", "bold")
    )
    parts: list = [heading, _lines(rows)]
    if steps.sources:
        parts.append(
            Text(
                "Sources: " + "; ".join(f"[{numbers[s.id]}] {s.title}" for s in steps.sources),
                style="dim",
            )
        )
    return Group(*parts)


def keep_parts(line: str, width: int, sep: str = " · ") -> str:
    """``line``'s ``sep``-separated parts filled into rows of ``width``, a part moved whole to
    the next row rather than split ("UN" at a row's end, "1016" on the next); a part wider than
    a row is left to wrap."""
    rows: list[str] = []
    for part in line.split(sep):
        if rows and cell_len(rows[-1] + sep + part) <= width:
            rows[-1] += sep + part
        else:
            rows.append(part)
    return "\n".join(rows)


def _expected(value: float, share: bool) -> Text:
    if share:
        return Text(percent(value), style="bold" if value >= 0.5 else "dim")
    return Text("yes" if value >= 1 else "no", style="bold" if value >= 1 else "dim")


def _who(who: str) -> str:
    """Whose answer as a prefix ("V2 "), or nothing with one victim."""
    return f"{who} " if who else ""


def _ratio(weight: float) -> str:
    ratio = 10 ** abs(weight)
    return f"{ratio:.0f}x" if ratio >= 10 else f"{ratio:.1f}x"


#: After the result opens by itself, keys for this long are taken as typed for the question
#: before it (the responder cannot have read the result yet): a bell, nothing done.
SETTLE_SECONDS = 0.5


def settled(action):
    """An action of the result screen, taken only once the responder can have seen it."""

    @functools.wraps(action)
    def run(self, *args):
        if not self.taking_keys:
            self.app.bell()
            return
        action(self, *args)

    return run


#: the profile's columns: the symptom (24) and the answer ("not asked"), each with its
#: padding, and the scroll bar; then each candidate's ("yes expected" and its padding)
PROFILE_FIXED = 26 + 11 + 2
PROFILE_COLUMN = 14


class ResultScreen(Screen):
    """Shown when the target is identified, or when nothing can narrow the list further."""

    DEFAULT_CSS = """
    ResultScreen #result-body {
        padding: 0 1;
    }
    ResultScreen #result-body > Static {
        height: auto;
        margin-bottom: 1;
    }
    ResultScreen #result-headline {
        background: $boost;
        padding: 0 1;
    }
    ResultScreen #result-body > #result-headline {
        /* its own background sets it apart: the row goes to what to do now */
        margin-bottom: 0;
    }
    ResultScreen .disclaimer {
        border: round $warning;
        padding: 0 1;
    }
    """

    BINDINGS = [
        Binding("escape,enter", "back", "Back", id="result.back"),
        Binding("slash", "volunteer", "Symptom…", id="result.volunteer", key_display="/"),
        Binding("z,backspace", "undo", "Undo", id="result.undo", key_display="z"),
        Binding("t", "chemical", "To the chemical", id="result.chemical"),
        Binding("x", "export", "Export", id="result.export"),
        Binding("ctrl+n", "new", "New", id="result.new"),
        Binding("question_mark,f1", "help", "Help", id="result.help", key_display="?"),
    ]

    def __init__(self, opened_by_itself: bool = False):
        super().__init__()
        self.result: ResultView | None = None
        # keys typed before the responder can have seen a result that opened by itself were
        # meant for the question before it: not taken here (see `settled`)
        self._settled_at = time.monotonic() + (SETTLE_SECONDS if opened_by_itself else 0.0)

    def compose(self) -> ComposeResult:
        # the act-now line of the interview screen, which the result covers: it stays while
        # any victim has a life-threatening sign, above the result and its scrolling
        yield ActNow(id="result-act-now")
        with VerticalScroll(id="result-body"):
            yield Static(id="result-headline")
            yield Static(id="result-next")
            yield Static(id="result-weighed")
            yield Static(id="result-summary")
            yield Static(id="result-profile")
            yield Static(id="result-sources")
            yield Static(id="result-disclaimer", classes="disclaimer")
        yield NoticeLine()
        yield Footer(compact=True)

    @property
    def taking_keys(self) -> bool:
        """Whether keys are taken yet (a result that opened by itself waits a moment)."""
        return time.monotonic() >= self._settled_at

    def on_mount(self) -> None:
        self.app.interview_changed.subscribe(self, self._interview_changed)
        self.refresh_view()
        self.query_one("#result-body").focus()

    def _interview_changed(self, _generation: int) -> None:
        if self.app.screen is self:
            self.refresh_view()

    def on_resize(self) -> None:
        if self.result is not None:
            self._show(self.result)

    def show_notice(self, message: str, severity: str = "information", timeout=None) -> None:
        self.query_one(NoticeLine).say(message, severity, timeout)

    def check_action(self, action: str, parameters) -> bool | None:
        if action == "chemical":
            return self.result is not None and self.result.kind == "class"
        return True

    def refresh_view(self) -> None:
        it = self.app.interview
        result = views.result(it)
        if result is None:
            self.app.pop_screen()
            return
        self.result = result
        self.query_one(ActNow).show(views.act_now(it))
        self.steps = result_steps(it.knowledge, result, views.exposure_routes(it))
        self.asked = it.asked
        self.class_target = it.target == "class"
        self._show(result)
        self.refresh_bindings()

    #: keys that leave the footer, in this order, when quit would not fit (F1, ctrl+p)
    GIVE_WAY = ("result.help", "result.new", "result.export")

    def _show(self, result: ResultView) -> None:
        fit_footer(self, self.app.size.width, self.GIVE_WAY)
        width = max((self.size.width or 80) - 4, 40)
        self.query_one("#result-headline", Static).update(self._headline(result))
        nxt = self.query_one("#result-next", Static)
        nxt.display = bool(self.steps)
        nxt.update(next_steps_text(self.steps, result.leader or result.title))
        weighed = self.query_one("#result-weighed", Static)
        weighed.display = bool(result.favour or result.against)
        weighed.update(self._weighed(result))
        summary = self.query_one("#result-summary", Static)
        summary.display = len(result.candidates) > 1
        summary.update(self._summary(result, width))
        self.query_one("#result-profile", Static).update(self._profile(result, width))
        # each source a row whose wrapped rest keeps its indent, as the steps' rows do
        src: list = [Text("Sources of the symptom profiles", style="bold underline")]
        if result.sources:
            src.append(_lines(("  •", Text(s)) for s in result.sources))
        else:
            src.append(Text("  none given in the knowledge base", style="dim"))
        self.query_one("#result-sources", Static).update(Group(*src))
        self.query_one("#result-disclaimer", Static).update(Text(result.disclaimer, style="bold"))

    def _headline(self, r: ResultView) -> Text:
        text = Text()
        style = "bold green" if r.confident else "bold yellow"
        text.append(r.headline + "\n", style=style)
        class_line = r.class_line
        if r.kind != "class":  # a chemical's CAS and UN numbers: each kept whole on a row
            # the headline's width: the screen less the body's and the headline's padding and
            # a scrollbar
            class_line = keep_parts(class_line, max((self.size.width or 80) - 6, 20))
        text.append(class_line + "\n")
        text.append(r.status, style="dim")
        if not self.steps:  # no "What to do now" heading to say it
            text.append(f"\n{DISCLAIMER_SHORT[0].upper()}{DISCLAIMER_SHORT[1:]}.", style="bold")
        if r.kind == "class" and self.class_target:
            text.append(
                "\nPress t to go on and identify the chemical itself; answers are kept.",
                style="italic",
            )
        return text

    def _weighed(self, r: ResultView) -> Group:
        rows = []
        for label, found, style in (("for", r.favour, "green"), ("against", r.against, "red")):
            if found:
                rows.append(
                    (
                        Text(f"Most {label}:", style=f"bold {style}"),
                        Text(
                            "; ".join(
                                f"{_who(w.who)}{w.symptom.label} {ANSWER_TEXT[w.answer]} "
                                f"({_ratio(w.weight)})"
                                for w in found
                            )
                        ),
                    )
                )
        return Group(
            Text(
                f"The answers that weighed most, {r.leader} against {r.runner_up}",
                style="bold underline",
            ),
            _lines(rows),
        )

    def _summary(self, r: ResultView, width: int) -> Table:
        title = "Still possible" + (f": {r.counts}" if r.counts else "")
        table = Table(
            title=title,
            title_justify="left",
            title_style="bold underline",
            expand=False,
            box=None,
            padding=(0, 1),
            header_style="bold",
        )
        table.add_column("Chemical(s)", ratio=3, overflow="fold")
        table.add_column("Class", ratio=2, overflow="fold")
        table.add_column("Chance", justify="right", no_wrap=True)
        for c in r.candidates[:20]:
            table.add_row(
                c.names,
                c.class_short if width < 100 else c.class_labels,
                percent_tenths(c.probability),
            )
        if len(r.candidates) > 20:
            rest = r.candidates[20:]
            table.add_row(f"… {views.counts_text(rest)} more", "", "")
        return table

    def _profile(self, r: ResultView, width: int) -> Table:
        share = r.kind == "class"
        # as many candidate columns as are read whole ("yes expected" and its padding), beside
        # the symptom's 24 columns, the answer's ("not asked") and the scroll bar
        fit = max(1, min(len(r.columns), (width - PROFILE_FIXED) // PROFILE_COLUMN))
        columns = r.columns[:fit]
        single = len(columns) == 1 and len(r.columns) == 1
        caption = r.profile_note
        if len(columns) < len(r.columns):
            caption = (
                f"The profile compares the {len(columns)} most probable; a wider window shows "
                f"up to {len(r.columns)}."
            )
        table = Table(
            title="Symptom profile against the answers given",
            title_justify="left",
            title_style="bold underline",
            box=None,
            padding=(0, 1),
            header_style="bold",
            expand=False,
            caption=caption or None,
            caption_justify="left",
        )
        table.add_column("Symptom", min_width=min(24, width // 3), ratio=3)
        table.add_column("Answer", no_wrap=True)
        if single:
            if share:
                table.add_column("Chemicals listing it", no_wrap=True)
            else:
                table.add_column("Listed?", no_wrap=True)
            table.add_column("Fit", no_wrap=True)
        else:
            for col in columns:
                table.add_column(col, ratio=2, overflow="fold")
        for row in r.profile:
            cells = [
                # whose answer, with several victims: a scene fact is everyone's
                Text.assemble((_who(row.who), "dim"), row.symptom.label),
                Text(
                    ANSWER_TEXT[row.answer] if row.answer else "not asked",
                    style="" if row.answer else "dim",
                ),
            ]
            for e, m in list(zip(row.expected, row.marks))[: len(columns)]:
                label, style = MARKS.get(m, (m, ""))
                if single:
                    cells += [_expected(e, share), Text(label, style=style)]
                else:
                    cell = _expected(e, share)
                    if label:
                        cell.append(" " + label.split(",")[0].split(" ")[0], style=style)
                    cells.append(cell)
            table.add_row(*cells)
        return table

    # -- actions --------------------------------------------------------------------------

    @settled
    def action_back(self) -> None:
        self.app.pop_screen()

    # Closing the screen drops its message queue: what follows a close goes to the app.
    @settled
    def action_undo(self) -> None:
        self.app.pop_screen()
        self.app.post_message(UndoRequested())

    @settled
    def action_chemical(self) -> None:
        self.app.pop_screen()
        self.app.post_message(ModesChangeRequested(target="chemical"))

    @settled
    def action_export(self) -> None:
        self.post_message(ScreenRequested("export"))

    @settled
    def action_new(self) -> None:
        self.post_message(ScreenRequested("new"))

    @settled
    def action_help(self) -> None:
        self.post_message(ScreenRequested("help"))

    @settled
    def action_volunteer(self) -> None:
        """Another sign after the result: the symptom search, as on the interview screen."""
        self.post_message(ScreenRequested("volunteer"))
