"""The interview screen's panels. Each shows one view object from
:mod:`responder.core.session`; none holds interview state of its own beyond the selection."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widget import Widget
from textual.widgets import DataTable, Static

from responder.core import views
from responder.core.session import Interview
from responder.core.views import ANSWER_TEXT, CandidateRow, QuestionView
from responder.engine.state import Answer, Status

ANSWER_MARK = {
    Answer.YES: ("✓", "bold green"),
    Answer.NO: ("✗", "bold red"),
    Answer.UNKNOWN: ("?", "bold yellow"),
}


def accent(widget: Widget) -> str:
    """The theme's accent colour, for Rich renderables (which know no $variables)."""
    try:
        return widget.app.current_theme.accent or "cyan"
    except Exception:  # noqa: BLE001 (no app yet)
        return "cyan"


def key_hint(*pairs: tuple[str, str]) -> Text:
    text = Text()
    for k, (key, label) in enumerate(pairs):
        if k:
            text.append("   ")
        text.append(f" {key} ", style="bold reverse")
        text.append(f" {label}")
    return text


class QuestionPanel(Widget):
    """What to ask next: one symptom, or a category with its symptoms to choose from.

    Also says plainly when the interview is over: a result is ready, or no chemical fits.
    """

    can_focus = False

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.view: QuestionView | None = None
        self.selected = 0
        self.interview: Interview | None = None
        self.status: Status = Status.ASKING

    def show(
        self, interview: Interview, view: QuestionView | None, keep_selection: int | None = None
    ) -> None:
        self.interview = interview
        self.view = view
        self.status = interview.status
        self.selected = 0
        if view is not None and keep_selection is not None:
            for k, item in enumerate(view.items):
                if item.symptom.index == keep_selection:
                    self.selected = k
                    break
        self.border_title = self._title()
        self.refresh(layout=True)

    def _title(self) -> str:
        if self.status is Status.INCONSISTENT:
            return "No chemical fits"
        if self.view is None:
            return "Result ready"
        if self.view.kind == "category" and self.view.category:
            return f"Check category: {self.view.category.label}"
        return "Ask next"

    @property
    def selected_query(self) -> int | None:
        if self.view is None or not self.view.items:
            return None
        return self.view.items[min(self.selected, len(self.view.items) - 1)].symptom.index

    def move(self, step: int) -> None:
        if self.view is None or not self.view.items:
            return
        self.selected = (self.selected + step) % len(self.view.items)
        self.refresh()

    def select_query(self, query: int) -> bool:
        if self.view is None:
            return False
        for k, item in enumerate(self.view.items):
            if item.symptom.index == query:
                self.selected = k
                self.refresh()
                return True
        return False

    def render(self):
        it = self.interview
        if it is None:
            return Text("…")
        if self.status is Status.INCONSISTENT:
            why = views.no_fit(it)
            return Group(
                Text(f"{why.headline}.", style="bold red"),
                Text(why.detail),
                Text(""),
                key_hint(
                    ("z", "undo the last answer"),
                    ("h", "change an answer"),
                    ("e", "turn on noise tolerance"),
                ),
            )
        if self.view is None:
            result = views.result(it)
            title = result.headline if result else "The interview is complete."
            return Group(
                Text(title, style="bold green"),
                Text(""),
                key_hint(
                    ("r", "show the result"),
                    ("z", "undo the last answer"),
                    ("/", "add a symptom"),
                    ("ctrl+n", "new interview"),
                ),
            )
        view = self.view
        opening = [Text(view.invitation, style=f"italic {accent(self)}")] if view.invitation else []
        if view.kind == "symptom":
            s = view.items[0].symptom
            who = view.victim or "the victim"
            asks = "On scene:  " if s.kind == "scene" else f"Does {who} have:  "
            keys = [("y", "yes"), ("n", "no"), ("u", "can't tell")]
            if view.group is not None:
                keys.append(("0", view.group.none_label.lower()))
            parts = opening + [
                Text.assemble((asks, "dim"), (f"{s.label}?", f"bold {accent(self)}")),
                Text.assemble(("How to check:  ", "dim"), s.check or "—"),
                Text.assemble(("Category:  ", "dim"), s.category_label),
            ]
            if view.better_victim:
                parts.append(
                    Text(
                        f"{view.better_victim} can answer a better question: press its number.",
                        style="yellow",
                    )
                )
            parts += [Text(""), key_hint(*keys, ("/", "other"))]
            return Group(*parts)
        rows = list(opening)
        useful = len(view.useful)
        rows.append(
            Text.assemble(
                ("Check any of these ", "dim"),
                (f"{useful}", "bold"),
                (" symptom(s) that can change the outcome; ↑↓ to choose", "dim"),
            )
        )
        items = list(enumerate(view.items))
        # Room under the panel's max-height (60% of the left column, less the border), not its
        # current height: that follows the content and would keep a small window small.
        column = self.parent.size.height if self.parent is not None else 0
        room = (int(column * 0.6) - 2 if column else 99) - 5  # intro, check (2), keys, spare
        if room > 2 and len(items) > room:
            # keep the selection in view: a window of the list with counts of the rest
            start = max(0, min(self.selected - room // 2, len(items) - room + 2))
            above, window = start, items[start : start + room - 2]
            below = len(items) - start - len(window)
            items = window
            if above:
                rows.append(Text(f"   ↑ {above} more", style="dim"))
        else:
            below = 0
        for k, item in items:
            sel = k == self.selected
            pointer = "▶ " if sel else "  "
            line = Text(pointer)
            style = "bold" if item.useful else "dim"
            if sel:
                style += " reverse"
            line.append(f" {item.symptom.label} ", style=style)
            if not item.useful:
                line.append("  optional: does not change the outcome", style="dim italic")
            rows.append(line)
        if below:
            rows.append(Text(f"   ↓ {below} more", style="dim"))
        q = self.selected_query
        s = it.knowledge.symptoms[q]
        rows.append(
            Text.assemble(
                ("How to check ", "dim"), (s.label, "bold"), (":  ", "dim"), s.check or "—"
            )
        )
        rows.append(
            key_hint(
                ("y", "yes"),
                ("n", "no"),
                ("u", "can't tell"),
                ("↑↓", "choose"),
                ("/", "other symptom"),
            )
        )
        return Group(*rows)


MAX_ROWS = 100  # rows in the candidates table; the rest are counted on one line


MIN_NAME_WIDTH = 18  # below this a chemical's name is unreadable: stack the class under it


class CandidatesTable(DataTable):
    """Remaining chemicals with class and probability; identical profiles on one row."""

    can_focus = False

    def on_mount(self) -> None:
        self.cursor_type = "none"
        self.zebra_stripes = True

    _interview: Interview | None = None
    _shown_width = 0

    def on_resize(self) -> None:
        if self._interview is not None and self.size.width != self._shown_width:
            self.show(self._interview)

    def show(self, interview: Interview) -> None:
        self._interview = interview
        self._shown_width = self.size.width
        noisy = interview.noise_tolerated
        inconsistent = interview.status is Status.INCONSISTENT
        rows: list[CandidateRow] = (
            views.closest(interview) if inconsistent else views.candidates(interview)
        )
        # Evidence mode removes nobody, so each chemical shows how many answers count
        # against it, and the subtitle names them for the most probable one.
        weighed = interview.mode == "evidence" and not inconsistent
        counted = (noisy or weighed) and not inconsistent
        shown = rows[:MAX_ROWS]
        # Share the width between the names and the classes; nothing scrolls sideways
        # (at 80 columns the panel is about 40 wide). Clip only what does not fit: the names
        # keep about 60% when both are too long; when even that leaves a name too short to
        # read, each row takes two lines, the class under the name.
        width = self.size.width or 70
        fixed = (
            len(str(min(len(rows), MAX_ROWS)))
            + (11 if inconsistent else 6)
            + (6 if noisy and not inconsistent else 2 if weighed else 0)
        )
        n_columns = 4 + counted
        avail = max(18, width - 2 - fixed - 2 * n_columns)
        name_need = max(
            (
                len(r.chemicals[0].name)
                + (len(f" +{len(r.chemicals) - 1} same symptoms") if len(r.chemicals) > 1 else 0)
                for r in shown
            ),
            default=8,
        )
        class_need = max((len(r.class_labels) for r in shown), default=5)
        stacked = False
        if name_need + class_need <= avail:
            name_w, class_w = name_need, class_need
        else:
            class_w = max(7, min(class_need, avail - max(10, int(avail * 0.6))))
            name_w = max(10, avail - class_w)
            if name_w < MIN_NAME_WIDTH:
                stacked = True  # the class column's room goes to the name
                name_w = class_w = max(18, width - 2 - fixed - 2 * (n_columns - 1))
        self.clear(columns=True)
        self.add_column("#", key="rank")
        if inconsistent:
            self.add_column("Contradicts", key="errors")
        else:
            self.add_column("Chance", key="prob")
        if stacked:
            self.add_column("Chemical / class", key="chemical")
        else:
            self.add_column("Chemical", key="chemical")
            self.add_column("Class", key="class")
        if noisy and not inconsistent:
            self.add_column("Errors", key="errors")
        elif weighed:
            self.add_column("✗", key="errors")  # answers against; the subtitle says so
        for k, row in enumerate(shown, start=1):
            cells = [str(k)]
            if inconsistent:
                cells.append(Text(f"{row.mismatches} answer(s)", style="red"))
            else:
                cells.append(Text(f"{row.probability:6.1%}", style="bold" if k == 1 else ""))
            if stacked:
                cells.append(
                    Text.assemble(
                        set_name(row, name_w), "\n", (_clip(row.class_labels, class_w), "dim")
                    )
                )
            else:
                cells += [set_name(row, name_w), _clip(row.class_labels, class_w)]
            if counted:  # answers the row contradicts (evidence mode: the answers against it)
                cells.append(Text(str(row.mismatches), style="yellow" if row.mismatches else "dim"))
            self.add_row(*cells, height=2 if stacked else 1)
        if len(rows) > len(shown):
            more = sum(len(r.objects) for r in rows[len(shown) :])
            line = f"… {more} less likely chemical(s) not listed"
            if len(line) > name_w:  # narrow: the count must stay readable
                line = f"… {more} more"
            self.add_row(
                "",
                "",
                Text(_clip(line, name_w), style="dim italic"),
                *([] if stacked else [""]),
                *([""] if counted else []),
            )
        self.border_subtitle = ""
        if weighed and rows:
            labels = [s.label for s in views.answers_against(interview, rows[0])]
            if labels:
                self.border_subtitle = _clip(
                    "✗ against #1: " + "; ".join(labels), max(20, (self.size.width or 70) - 6)
                )
        chems = sum(len(r.objects) for r in rows)
        if inconsistent:
            self.border_title = "Closest chemicals (none fits every answer)"
        else:
            sets = len(rows)
            extra = f" in {sets} profiles" if sets != chems else ""
            title = f"Candidates: {chems} chemical(s){extra}"
            if len(title) > width - 6:  # narrow: the counts must stay readable
                title = f"{chems} chemicals" + (f", {sets} profiles" if sets != chems else "")
            self.border_title = title


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, ending in "…" when cut."""
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


_clip = clip


def set_name(row: CandidateRow, width: int = 44) -> Text:
    """One chemical, or a set of same-profile chemicals as "A, B + 3 same symptoms"."""
    names = [c.name for c in row.chemicals]
    if len(names) == 1:
        return Text(_clip(names[0], width))
    shown, rest = names[0], names[1:]
    while rest and len(shown) + len(rest[0]) + 2 + 18 <= width:
        shown += ", " + rest.pop(0)
    suffix = f" +{len(rest)} same symptoms" if rest else " (same symptoms)"
    if len(shown) + len(suffix) > width:
        suffix = f" +{len(rest)} same" if rest else " (same)"
    return Text.assemble((_clip(shown, width - len(suffix)), ""), (suffix, "italic dim"))


def _prob(p: float, acc: str) -> Text:
    width = 6
    filled = int(round(p * width))
    return Text.assemble(
        (f"{p:6.1%} ", "bold"), ("█" * filled, acc), ("░" * (width - filled), "dim")
    )


class ClassBars(Widget):
    """Probability of each class as a bar."""

    can_focus = False

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.bars: list = []

    def show(self, interview: Interview) -> None:
        self.bars = views.class_bars(interview)
        self.border_title = "Classes"
        self.refresh(layout=True)

    def render(self):
        if not self.bars:
            return Text("This knowledge base has no classes.", style="dim")
        width = max(self.size.width, 30)
        bar_w = max(6, min(16, width - 34))
        label_w = max(10, width - bar_w - 8)
        table = Table.grid(padding=(0, 1))
        table.add_column(width=label_w, no_wrap=True, overflow="ellipsis")
        table.add_column(width=bar_w, no_wrap=True)
        table.add_column(justify="right", width=4, no_wrap=True)
        acc = accent(self)
        for cls, p in self.bars:
            filled = p * bar_w
            full = int(filled)
            bar = "█" * full + ("▌" if filled - full >= 0.5 else "")
            style = "" if p > 0 else "dim"
            table.add_row(
                Text(cls.label, style=style),
                Text.assemble((bar, acc), ("·" * (bar_w - len(bar)), "dim")),
                Text(f"{p:.0%}" if p > 0 else "–", style="bold" if p > 0 else "dim"),
            )
        return table

    def get_content_height(self, container, viewport, width: int) -> int:
        return max(1, len(self.bars))


class AnswersPanel(Static):
    """The answers so far, newest first."""

    can_focus = False

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.rows: list = []
        self.contradicted: set[int] = set()

    def show(self, interview: Interview) -> None:
        self.rows = list(reversed(views.history(interview)))
        self.contradicted = set()
        self.doubt_label = "doubted"
        if interview.status is Status.INCONSISTENT:
            closest = views.closest(interview, 1)
            if closest:
                self.contradicted = set(interview.contradicted(closest[0].objects))
                self.doubt_label = f"contradicts {closest[0].chemicals[0].name}"
        else:
            cands = views.candidates(interview)
            if cands and interview.noise_tolerated:
                self.contradicted = set(interview.contradicted(cands[0].objects))
                self.doubt_label = f"contradicts {cands[0].chemicals[0].name}"
        self.update(self._content())

    @property
    def title(self) -> str:
        return f"Answers ({len(self.rows)})"

    def _content(self):
        if not self.rows:
            return Text(
                "No answers yet. Answer the question on the left, or press / to enter "
                "a symptom the victim shows.",
                style="dim",
            )
        lines = []
        for row in self.rows:
            mark, style = ANSWER_MARK[row.record.answer]
            line = Text.assemble(
                (f"{mark} ", style),
                (f"{ANSWER_TEXT[row.record.answer]:<10} ", style),
                row.symptom.label,
            )
            if row.record.volunteered:
                line.append("  volunteered", style="dim italic")
            if row.symptom.index in self.contradicted:
                line.append(f"  ← {self.doubt_label}", style="yellow italic")
            lines.append(line)
        return Group(*lines)


class StatusLine(Static):
    """Questions asked, expected questions left, mode and the noise budget.

    The figures come first so a narrow terminal never loses them; labels shorten below 110
    columns, and a note that does not fit goes on a second line instead of being cut.
    """

    can_focus = False

    def show(self, interview: Interview, remaining_text: str, note: str | None = None) -> None:
        width = self.size.width or (self.app.size.width if self.is_attached else 120)
        short = width < 110
        target = "chemical" if interview.target == "chemical" else "class"
        suggest = "one symptom" if interview.suggest == "symptom" else "a category"
        budget = interview.noise_budget()
        mode = interview.mode
        parts = [
            Text.assemble(("Asked ", "dim"), (str(interview.asked), "bold")),
            Text.assemble(
                ("Left " if short else "Expected left ", "dim"), (remaining_text, "bold")
            ),
            Text.assemble(
                ("" if short else "Mode ", "dim"),
                (mode, "bold yellow" if mode == "noise" else "bold"),
                (" " if short else " │ Confidence ", "dim"),
                (f"{interview.confidence():.0%}", "bold"),
            ),
            Text.assemble(("" if short else "Target ", "dim"), (target, "bold")),
            Text.assemble(
                ("" if short else "Suggest ", "dim"),
                ("" if short else suggest, "bold"),
                (
                    f"{' ' if not short else ''}{interview.policy_name.upper()}",
                    "bold" if short else "dim",
                ),
            ),
        ]
        if budget is None:
            parts.append(Text.assemble(("Noise ", "dim"), ("off", "bold")))
        else:
            used, eps = budget
            parts.append(
                Text.assemble(
                    ("Noise ", "dim"),
                    ("on", "bold yellow"),
                    (" errors " if not short else " ", "dim"),
                    (f"{used}/{eps}", "bold red" if used >= eps and eps else "bold"),
                )
            )
        line = Text(" │ ").join(parts)
        extra = None
        if interview.unsaved:
            extra = Text(
                f"NOT SAVED ({interview.unsaved} change(s) waiting, retried on "
                f"the next answer): {interview.journal_error}",
                style="bold red",
            )
        elif note:
            extra = Text(note, style="yellow")
        if extra is not None:
            if line.cell_len + 3 + extra.cell_len <= width - 2:
                line = Text(" │ ").join([line, extra])
            else:
                line = Text("\n").join([line, extra])
        self.update(line)


class VictimsStrip(Static):
    """The incident's victims on one line: number keys switch, + adds one; each with its
    answers and a red mark when a life-threatening sign was answered yes. Hidden while
    there is one victim."""

    DEFAULT_CSS = """
    VictimsStrip {
        height: 1;
        background: $boost;
        padding: 0 1;
    }
    """

    can_focus = False

    def show(self, interview: Interview) -> None:
        rows = views.victims(interview)
        self.display = len(rows) > 1
        if not self.display:
            return
        width = self.size.width or (self.app.size.width if self.is_attached else 80)
        line = Text("Victims ", style="dim")
        for row in rows:
            cell = Text()
            cell.append(f" {row.index + 1} ", style="bold reverse" if row.current else "bold")
            name = row.label if width >= 100 else row.label.replace("Victim ", "V")
            cell.append(f" {name} ({row.answers})", style="bold" if row.current else "")
            if row.urgent:
                cell.append(" !", style="bold red")
            line.append_text(cell)
            line.append("  ")
        line.append(" + ", style="bold reverse")
        line.append(" add", style="dim")
        line.truncate(max(width - 2, 10), overflow="ellipsis")
        self.update(line)
