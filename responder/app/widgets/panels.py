"""The interview screen's panels. Each shows one view object from :mod:`responder.core.views`
(never the interview itself) and keeps no interview state beyond the selection; its look is
in its ``DEFAULT_CSS``, the screen's layout in ``app.tcss``."""

from __future__ import annotations

import textwrap

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import events
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import DataTable, Static

from responder.core.counted import counted
from responder.core.percent import percent, percent_tenths
from responder.core.views import (
    ANSWER_TEXT,
    AnswersView,
    CandidateRow,
    CandidatesView,
    PromptView,
    StatusView,
    VictimView,
    question_opening,
)
from responder.engine.state import Answer, Status

ANSWER_MARK = {
    Answer.YES: ("✓", "bold green"),
    Answer.NO: ("✗", "bold red"),
    Answer.UNKNOWN: ("?", "bold yellow"),
}

DISCLAIMER_SHORT = "decision support, not a diagnosis"


def accent(widget: Widget) -> str:
    """The theme's accent colour, for Rich renderables (which know no $variables)."""
    try:
        return widget.app.current_theme.accent or "cyan"
    except Exception:  # noqa: BLE001 (no app yet)
        return "cyan"


def key_hint(*pairs: tuple[str, str], gap: str = "   ") -> Text:
    text = Text()
    for k, (key, label) in enumerate(pairs):
        if k:
            text.append(gap)
        text.append(f" {key} ", style="bold reverse")
        text.append(f" {label}")
    return text


def fitted_key_hint(width: int, *pairs: tuple[str, str]) -> Text:
    """``key_hint`` on one line of ``width``: the spacing narrows, then the last keys go
    (they are all in the footer too)."""
    pairs_left = list(pairs)
    while pairs_left:
        for gap in ("   ", "  ", " "):
            hint = key_hint(*pairs_left, gap=gap)
            if hint.cell_len <= width:
                return hint
        pairs_left.pop()
    return Text()


def wrapped_key_hint(width: int, *pairs: tuple[str, str]) -> Text:
    """``key_hint`` over as many lines of ``width`` as it needs: every key stays."""
    lines: list[list[tuple[str, str]]] = [[]]
    for pair in pairs:
        if lines[-1] and key_hint(*lines[-1], pair).cell_len > width:
            lines.append([])
        lines[-1].append(pair)
    return Text("\n").join(key_hint(*line) for line in lines if line)


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, ending in "…" when cut."""
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def wrap_names(names: list[str], width: int) -> list[str]:
    """Every name, joined by " / ", wrapped to ``width`` columns at the separators (a name
    longer than the width is broken at its spaces). Nothing is dropped."""
    width = max(width, 8)
    lines: list[str] = []
    line = ""
    for k, name in enumerate(names):
        piece = name + (" /" if k < len(names) - 1 else "")
        if not line:
            candidate = piece
        else:
            candidate = f"{line} {piece}"
        if len(candidate) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        parts = textwrap.wrap(piece, width) or [piece]
        lines += parts[:-1]
        line = parts[-1]
    if line:
        lines.append(line)
    return lines


class TitleBar(Static):
    """The app's name, the disclaimer (always whole) and the knowledge base."""

    DEFAULT_CSS = """
    TitleBar {
        height: 1;
        background: $primary;
        color: $text;
        text-style: bold;
    }
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._facts: tuple[str, int, int] = ("", 0, 0)

    def show(self, name: str, chemicals: int, symptoms: int) -> None:
        self._facts = (name, chemicals, symptoms)
        self.update(self._text())

    def on_resize(self) -> None:
        self.update(self._text())

    def _text(self) -> str:
        name, chemicals, symptoms = self._facts
        width = self.size.width or 80
        head = f" responder · {DISCLAIMER_SHORT}"
        chemicals, symptoms = counted(chemicals, "chemical"), counted(symptoms, "symptom")
        for tail in (
            f" · knowledge base {name}: {chemicals}, {symptoms}",
            f" · {name}: {chemicals}, {symptoms}",
            f" · {name}: {chemicals}",
            "",
        ):
            if len(head + tail) <= width:
                return head + tail
        return head


class ActNow(Static):
    """A banner while a life-threatening finding is answered "yes"; it takes no focus and
    no key, so the interview goes on underneath."""

    DEFAULT_CSS = """
    ActNow {
        height: auto;
        background: $error;
        color: $text;
        text-style: bold;
        padding: 0 1;
        display: none;
    }
    """

    def show(self, message: str | None) -> None:
        self.display = message is not None
        self.update(message or "")


class PanelBox(VerticalScroll, can_focus=False):
    """A bordered, titled panel that scrolls its content."""

    DEFAULT_CSS = """
    PanelBox {
        border: round $primary;
        border-title-style: bold;
        padding: 0 1;
    }
    """


#: what a yes means, on the question's lower edge: the knowledge base's signs are those shown
#: since the exposure, so a cough that has stopped is still a yes
SINCE_EXPOSURE = "y = seen any time since exposure"


class QuestionPanel(Static):
    """What to ask next: one symptom, or a category with its symptoms to choose from.

    Also says plainly when the interview is over: a result is ready, or no chemical fits.
    Its content is built when it changes (and when the width does), so the first frame
    already holds the question.
    """

    DEFAULT_CSS = """
    QuestionPanel {
        height: auto;
        border: round $accent;
        border-title-style: bold;
        padding: 0 1;
    }
    """

    can_focus = False

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.prompt: PromptView | None = None
        self.selected = 0

    @property
    def view(self):
        """The question shown, if any."""
        return self.prompt.question if self.prompt is not None else None

    def show(self, prompt: PromptView, keep_selection: int | None = None) -> None:
        self.prompt = prompt
        self.selected = 0
        view = prompt.question
        if view is not None and keep_selection is not None:
            for k, item in enumerate(view.items):
                if item.symptom.index == keep_selection:
                    self.selected = k
                    break
        self.border_title = self._title()
        self._redraw()

    def _redraw(self) -> None:
        self.border_subtitle = self._subtitle()
        self.update(self._content())

    def _subtitle(self) -> str:
        """Whom the question is for, with several victims, and what a yes means for a sign
        (not for a scene fact), each as far as the edge has room."""
        view = self.prompt.question if self.prompt is not None else None
        if view is None:
            return ""
        room = (self.outer_size.width or 44) - 6  # the corners and a dash and space each side
        sign = view.items[0].symptom.kind == "symptom"
        victim = view.victim or ""
        short = victim.split(" (")[0].replace("Victim ", "V")
        choices = (
            [f"{victim} · {SINCE_EXPOSURE}", f"{short} · {SINCE_EXPOSURE}"]
            if sign and victim
            else []
        ) + ([victim] if victim else [SINCE_EXPOSURE] if sign else [])
        return next((text for text in choices if len(text) <= room), victim)

    def on_resize(self) -> None:
        if self.prompt is not None:
            self._redraw()

    def _title(self) -> str:
        prompt = self.prompt
        if prompt.status is Status.INCONSISTENT:
            return "No chemical fits"
        view = prompt.question
        if view is None:
            return "Result ready"
        if view.kind == "category" and view.category:
            label, title = view.category.label, f"Check category: {view.category.label}"
        else:
            label = view.items[0].symptom.category_label
            title = f"Ask next · {label}"
        # the category whole rather than cut after the words before it: the border's
        # corners and the blanks around the title take six columns
        return title if len(title) <= (self.size.width or 44) - 6 else label

    @property
    def selected_query(self) -> int | None:
        view = self.view
        if view is None or not view.items:
            return None
        return view.items[min(self.selected, len(view.items) - 1)].symptom.index

    def move(self, step: int) -> None:
        view = self.view
        if view is None or not view.items:
            return
        self.selected = (self.selected + step) % len(view.items)
        self._redraw()

    def select_query(self, query: int) -> bool:
        view = self.view
        if view is None:
            return False
        for k, item in enumerate(view.items):
            if item.symptom.index == query:
                self.selected = k
                self._redraw()
                return True
        return False

    def _content(self):
        prompt = self.prompt
        if prompt is None:
            return Text("…")
        # the content width: the panel's, else the left column's less border and padding
        width = self.size.width or max((self.parent.size.width if self.parent else 0) - 4, 20)
        if prompt.status is Status.INCONSISTENT and prompt.no_fit is not None:
            why = prompt.no_fit
            keys = [("z", "undo the last answer"), ("h", "change an answer")]
            if prompt.mode == "strict":
                keys.append(("e", "turn on noise tolerance"))
            elif prompt.mode == "noise":
                keys.append(("E", "tolerate more wrong answers"))
            return Group(
                Text(f"{why.headline}.", style="bold red"),
                Text(why.detail),
                wrapped_key_hint(width, *keys),
            )
        view = prompt.question
        if view is None:
            return Group(
                Text(prompt.result_headline or "The interview is complete.", style="bold green"),
                wrapped_key_hint(
                    width,
                    ("r", "show the result"),
                    ("z", "undo"),
                    ("/", "add a symptom"),
                    ("ctrl+n", "new interview"),
                ),
            )
        opening = [Text(view.invitation, style=f"italic {accent(self)}")] if view.invitation else []
        if view.kind == "symptom":
            chosen = min(self.selected, len(view.items) - 1)
            s = view.items[chosen].symptom
            asks = question_opening(s, view.items[chosen].shared, view.victim)
            keys = [("y", "yes"), ("n", "no"), ("u", "can't tell")]
            if view.group is not None and view.group.none_label:
                keys.append(("0", view.group.none_label.lower()))
            if len(view.items) > 1:
                # an exclusive group: its open members side by side, y answers the chosen one
                # (and so settles the group)
                question = Text.assemble((asks, "dim"))
                for k, item in enumerate(view.items):
                    if k:
                        question.append("  or  ", style="dim")
                    chosen_style = f"bold reverse {accent(self)}"
                    question.append(item.symptom.label, style=chosen_style if k == chosen else "")
                question.append("?")
                keys.append(("↑↓", "choose"))
            else:
                question = Text.assemble((asks, "dim"), (f"{s.label}?", f"bold {accent(self)}"))
            parts = opening + [
                question,
                Text.assemble(("How to check:  ", "dim"), s.check or "—"),
            ]
            if view.better_victim:
                parts.append(
                    Text(
                        f"{view.better_victim} can answer a better question: press its number.",
                        style="yellow",
                    )
                )
            # one line where it fits; the answer keys are never dropped ("/" is in the footer)
            hint = fitted_key_hint(width, *keys, ("/", "other"))
            if not all(f" {k} " in hint.plain for k, _ in keys):
                hint = wrapped_key_hint(width, *keys)
            parts.append(hint)
            return Group(*parts)
        rows = list(opening)
        useful = len(view.useful)
        rows.append(
            Text.assemble(
                ("Check any of these ", "dim"),
                (f"{useful}", "bold"),
                (
                    " symptom" + ("" if useful == 1 else "s") + " that can change the outcome; "
                    "↑↓ to choose",
                    "dim",
                ),
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
        s = view.items[min(self.selected, len(view.items) - 1)].symptom
        rows.append(
            Text.assemble(
                ("How to check ", "dim"), (s.label, "bold"), (":  ", "dim"), s.check or "—"
            )
        )
        rows.append(
            fitted_key_hint(
                width,
                ("y", "yes"),
                ("n", "no"),
                ("u", "can't tell"),
                ("↑↓", "choose"),
                ("/", "other"),
            )
        )
        return Group(*rows)


#: rows in the candidates table; the rest are counted on one line (b finds any chemical and
#: its rank). More rows only slow every redraw of a table that shows about ten.
MAX_ROWS = 40
MIN_NAME_WIDTH = 18  # below this a chemical's name is unreadable: stack the class under it


class CandidatesTable(DataTable):
    """Remaining chemicals with class and probability; chemicals with identical profiles
    share a row that names every one of them ("Tabun (GA) / Sarin (GB)"), wrapped."""

    DEFAULT_CSS = """
    CandidatesTable {
        border: round $primary;
        border-title-style: bold;
    }
    """

    can_focus = False

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.candidates: CandidatesView | None = None
        self._shown_width = 0
        self._columns: list | None = None

    def on_mount(self) -> None:
        self.cursor_type = "none"
        self.zebra_stripes = True

    def on_resize(self) -> None:
        if self.candidates is not None and self.size.width != self._shown_width:
            self.show(self.candidates)

    def show(self, view: CandidatesView) -> None:
        self.candidates = view
        self._shown_width = self.size.width
        inconsistent = view.no_fit
        noisy = view.mode == "noise" and not inconsistent
        weighed = view.mode == "evidence" and not inconsistent
        against_column = noisy or weighed
        rows = view.rows
        shown = rows[:MAX_ROWS]
        # Share the width between the names and the classes (short labels); nothing scrolls
        # sideways. A row grows to as many lines as its names need; when the class column
        # would leave the names too narrow, the class goes under the names.
        width = self.size.width or 70
        rank_w = len(str(min(len(rows), MAX_ROWS)))
        chance_w = 11 if inconsistent else 6
        # the ✗ column as wide as its largest count: several victims can put 10 or more
        # answers against a chemical
        against_w = max((len(str(r.mismatches)) for r in shown), default=1)
        extra_w = 6 if noisy else against_w if weighed else 0
        n_columns = 4 + against_column
        fixed = rank_w + chance_w + extra_w
        avail = max(18, width - 2 - fixed - 2 * n_columns)
        name_need = max((max(len(n) for n in _names(r)) for r in shown), default=8)
        class_need = max((len(r.class_short) for r in shown), default=5)
        stacked = False
        if name_need + class_need <= avail:
            name_w, class_w = avail - class_need, class_need
        else:
            class_w = min(class_need, max(7, avail - max(MIN_NAME_WIDTH, int(avail * 0.6))))
            name_w = avail - class_w
            if class_w < class_need or name_w < MIN_NAME_WIDTH:
                stacked = True  # the class column's room goes to the names
                name_w = max(MIN_NAME_WIDTH, width - 2 - fixed - 2 * (n_columns - 1))
        # labels and cells as Text: a plain string would be parsed as markup on every redraw
        columns = [("#", "rank", rank_w)]
        if inconsistent:
            columns.append(("Contradicts", "errors", chance_w))
        else:
            columns.append(("Chance", "prob", chance_w))
        if stacked:
            columns.append(("Chemical / class", "chemical", name_w))
        else:
            columns += [("Chemical", "chemical", name_w), ("Class", "class", class_w)]
        if noisy:
            columns.append(("Errors", "errors", extra_w))
        elif weighed:
            columns.append(("✗", "errors", extra_w))  # answers against; see the subtitle
        if columns == self._columns:
            self.clear()  # the same columns: only the rows change
        else:
            self.clear(columns=True)
            for label, key, column_width in columns:
                self.add_column(Text(label), key=key, width=column_width)
            self._columns = columns
        for k, row in enumerate(shown, start=1):
            cells: list = [Text(str(k))]
            if inconsistent:
                cells.append(Text(counted(row.mismatches, "answer"), style="red"))
            else:
                cells.append(
                    Text(percent_tenths(row.probability).rjust(6), style="bold" if k == 1 else "")
                )
            lines = wrap_names(_names(row), name_w)
            if stacked:
                cell = Text("\n".join(lines))
                cell.append("\n" + clip(row.class_short, name_w), style="dim")
                cells.append(cell)
                height = len(lines) + 1
            else:
                cells += [Text("\n".join(lines)), Text(clip(row.class_short, class_w))]
                height = len(lines)
            # answers the row contradicts (evidence mode: the answers against it)
            if against_column:
                cells.append(Text(str(row.mismatches), style="yellow" if row.mismatches else "dim"))
            self.add_row(*cells, height=height)
        if len(rows) > len(shown):
            more = sum(len(r.objects) for r in rows[len(shown) :])
            line = f"… {counted(more, 'less likely chemical')} not listed"
            if len(line) > name_w:  # narrow: the count must stay readable
                line = f"… {more} more"
            self.add_row(
                Text(""),
                Text(""),
                Text(clip(line, name_w), style="dim italic"),
                *([] if stacked else [Text("")]),
                *([Text("")] if against_column else []),
            )
        self.border_subtitle = ""
        if weighed and view.against_first:
            self.border_subtitle = clip(
                "✗ against #1: " + "; ".join(view.against_first), max(20, width - 6)
            )
        title = view.title
        self.border_title = title if len(title) <= width - 6 else view.short_title


def _names(row: CandidateRow) -> list[str]:
    return [c.name for c in row.chemicals]


class ClassBars(Widget):
    """Probability of each class as a bar, by the classes' short labels."""

    DEFAULT_CSS = """
    ClassBars {
        height: auto;
    }
    """

    can_focus = False

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.bars: tuple = ()

    def show(self, bars) -> None:
        self.bars = tuple(bars)
        self.refresh(layout=True)

    def render(self):
        if not self.bars:
            return Text("This knowledge base has no classes.", style="dim")
        width = max(self.size.width, 24)
        label_need = max(len(c.short) for c, _ in self.bars)
        label_w = min(label_need, max(10, width - 6 - 4 - 2))
        bar_w = max(4, min(16, width - label_w - 4 - 2))
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
                Text(cls.short, style=style),
                Text.assemble((bar, acc), ("·" * (bar_w - len(bar)), "dim")),
                Text(percent(p) if p > 0 else "–", style="bold" if p > 0 else "dim"),
            )
        return table

    def get_content_height(self, container, viewport, width: int) -> int:
        return max(1, len(self.bars))


class AnswersPanel(Static):
    """The answers so far, newest first."""

    DEFAULT_CSS = """
    AnswersPanel {
        height: auto;
    }
    """

    can_focus = False

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.answers = AnswersView(())

    def show(self, view: AnswersView) -> None:
        self.answers = view
        self.update(self._content())

    @property
    def title(self) -> str:
        return f"Answers ({len(self.answers.rows)})"

    def _content(self):
        view = self.answers
        if not view.rows:
            return Text(
                "No answers yet. Answer the question on the left, or press / to enter "
                "a symptom the victim shows.",
                style="dim",
            )
        table = Table.grid(padding=(0, 1))
        table.add_column(no_wrap=True)
        table.add_column(ratio=1)
        for row in view.rows:
            mark, style = ANSWER_MARK[row.record.answer]
            label = Text(row.symptom.label)
            if row.who:  # whose answer, with several victims: a scene fact is everyone's
                label = Text.assemble((f"{row.who} ", "dim"), label)
            if row.record.volunteered:
                label.append("  volunteered", style="dim italic")
            if row.symptom.index in view.doubted:
                label.append(f"  ← contradicts {view.doubt_label}", style="yellow italic")
            table.add_row(Text(f"{mark} {ANSWER_TEXT[row.record.answer]}", style=style), label)
        return table


class StatusLine(Static):
    """Questions asked, expected questions left, mode and the noise budget.

    The figures come first so a narrow terminal never loses them, on one line (the labels
    shorten when the long ones do not fit); a note or a notice goes below them, on two
    lines at most (a toast moved here by a dialog is read in full), the rest cut: the status
    line never grows past three.
    """

    DEFAULT_CSS = """
    StatusLine {
        height: auto;
        max-height: 3;
        background: $boost;
        padding: 0 1;
    }
    """

    can_focus = False

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._shown: tuple | None = None  # what show() was given, to draw again on a resize

    def on_resize(self, event: events.Resize) -> None:
        # toasts sit over the answers panel: above its lower edge, this line (one to three
        # rows) and the keys, never over the figures
        for rack in self.screen.query("ToastRack"):
            rack.styles.margin = (0, 0, event.size.height + 2, 0)
        # the figures are cut and the note wrapped for one width: a new width draws them anew
        if self._shown is not None:
            self.show(*self._shown)

    def show(self, view: StatusView, remaining_text: str, note: Text | str | None = None) -> None:
        self._shown = (view, remaining_text, note)
        width = self.size.width or (self.app.size.width if self.is_attached else 120)
        room = max(width - 2, 20)
        line = self._figures(view, remaining_text, short=False)
        if line.cell_len > room:
            line = self._figures(view, remaining_text, short=True)
        line.truncate(room, overflow="ellipsis")
        extra = None
        if view.unsaved:
            extra = Text(
                f"NOT SAVED ({counted(view.unsaved, 'change')} waiting, retried on "
                f"the next answer): {view.save_error}",
                style="bold red",
            )
        elif note:
            extra = note if isinstance(note, Text) else Text(note, style="yellow")
        if extra is not None:
            if line.cell_len + 3 + extra.cell_len <= room:
                line = Text(" │ ").join([line, extra])
            else:
                rows = list(extra.wrap(self.app.console, room)) if self.is_attached else [extra]
                for row in rows:  # a wrapped row keeps the space it broke at
                    row.rstrip()
                if len(rows) > 2:
                    rows = [rows[0], Text(" ").join(rows[1:])]
                for row in rows:
                    row.truncate(room, overflow="ellipsis")
                line = Text("\n").join([line, *rows])
        self.update(line)

    @staticmethod
    def _figures(view: StatusView, remaining_text: str, short: bool) -> Text:
        target = "chemical" if view.target == "chemical" else "class"
        suggest = "one symptom" if view.suggest == "symptom" else "a category"
        mode = view.mode
        parts = [
            Text.assemble(
                ("Asked ", "dim"),
                (str(view.asked), "bold"),
                *(
                    ()
                    if view.asked_in_all is None
                    else ((" · all ", "dim"), (str(view.asked_in_all), "bold"))
                ),
            ),
            Text.assemble(
                ("Left " if short else "Expected left ", "dim"), (remaining_text, "bold")
            ),
            Text.assemble(
                ("" if short else "Mode ", "dim"),
                (mode, "bold yellow" if mode == "noise" else "bold"),
                (" " if short else " │ Confidence ", "dim"),
                (percent(view.confidence), "bold"),
            ),
            Text.assemble(("" if short else "Target ", "dim"), (target, "bold")),
            Text.assemble(
                ("" if short else "Suggest ", "dim"),
                ("" if short else suggest, "bold"),
                (f"{' ' if not short else ''}{view.policy.upper()}", "bold" if short else "dim"),
            ),
        ]
        if view.noise is None:
            parts.append(Text.assemble(("Noise ", "dim"), ("off", "bold")))
        else:
            used, eps = view.noise
            parts.append(
                Text.assemble(
                    ("Noise ", "dim"),
                    ("on", "bold yellow"),
                    (" errors " if not short else " ", "dim"),
                    (f"{used}/{eps}", "bold red" if used >= eps and eps else "bold"),
                )
            )
        return Text(" │ ").join(parts)


class VictimsStrip(Static):
    """The incident's victims on one line: number keys switch, + adds one (- takes back
    one added by mistake, when the victim being asked can be); each with its
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

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._rows: tuple[VictimView, ...] | list[VictimView] | None = None

    def on_resize(self) -> None:
        # names or numbers are chosen for one width: a new width chooses again
        if self._rows is not None:
            self.show(self._rows)

    def show(self, rows: tuple[VictimView, ...] | list[VictimView]) -> None:
        self._rows = rows
        self.display = len(rows) > 1
        if not self.display:
            return
        width = self.size.width or (self.app.size.width if self.is_attached else 80)
        room = max(width - 2, 10)
        # names while they fit; then numbers and answer counts only, so that on a busy scene
        # every victim, the current one and a life-threatening sign's mark stay in view
        for style in ("names", "numbers", "bare"):
            line = self._line(rows, width, style)
            if line.cell_len <= room:
                break
        else:  # dozens of victims: those around the one being asked, and how many beside
            line = self._around_current(list(rows), width, room)
        line.truncate(room, overflow="ellipsis")
        self.update(line)

    @classmethod
    def _around_current(cls, rows: list[VictimView], width: int, room: int) -> Text:
        """The bare line of the victims nearest the current one that fits, with the number
        left out on each side ("‹12", "37›"), red with "!" when a life-threatening sign was
        answered yes for one of them."""
        at = next((k for k, row in enumerate(rows) if row.current), 0)
        start, end = at, at + 1

        def line(first: int, last: int) -> Text:
            out = cls._hidden(rows[:first], f"‹{first} ") if first else Text()
            out += cls._line(rows[first:last], width, "bare", add=False)
            if last < len(rows):
                out += cls._hidden(rows[last:], f"{len(rows) - last}› ")
            return out + cls._line([], width, "bare")

        wider = True  # on the later victims' side, then the earlier's, in turn
        while True:
            sides = [(start, end + 1), (start - 1, end)]
            for first, last in sides if wider else sides[::-1]:
                if 0 <= first and last <= len(rows) and line(first, last).cell_len <= room:
                    start, end, wider = first, last, not wider
                    break
            else:
                return line(start, end)

    @staticmethod
    def _hidden(rows: list[VictimView], text: str) -> Text:
        if any(row.urgent for row in rows):
            return Text(text.strip() + "! ", style="bold red")
        return Text(text, style="dim")

    @staticmethod
    def _line(rows, width: int, style: str, add: bool = True) -> Text:
        line = Text("" if style == "bare" else "Victims ", style="dim")
        for row in rows:
            cell = Text()
            cell.append(f" {row.index + 1} ", style="bold reverse" if row.current else "bold")
            if style == "names":
                name = row.label if width >= 100 else row.label.replace("Victim ", "V")
                cell.append(f" {name} ({row.answers})", style="bold" if row.current else "")
                if row.urgent:
                    cell.append(" !", style="bold red")
            else:
                cell.append(f"({row.answers})", style="bold" if row.current else "")
                if row.urgent:
                    cell.append("!", style="bold red")
            line.append_text(cell)
            line.append("  " if style == "names" else " ")
        if add:
            if any(row.removable for row in rows):
                line.append(" - ", style="bold reverse")
                line.append(" remove  ", style="dim")
            line.append(" + ", style="bold reverse")
            line.append(" add", style="dim")
        return line
