"""Answer any symptom at any time: type part of its name, Enter, then y / n / u."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from responder.app.screens.dialog import Dialog
from responder.app.search import rank_symptoms
from responder.app.widgets.panels import ANSWER_MARK, key_hint, wrapped_key_hint
from responder.core.counted import counted
from responder.core.views import ANSWER_TEXT, question_opening
from responder.engine.state import Answer
from responder.kb.model import Symptom

#: the characters of a search that "No match for" quotes
QUOTED = 40


def quoted(text: str) -> str:
    """The search as the no-match message quotes it: cut with "…" when longer, so the part
    shown is not taken for the whole search."""
    text = text.strip()
    return text if len(text) <= QUOTED else text[: QUOTED - 1] + "…"


class SymptomSearchScreen(Dialog[tuple[int, Answer] | None]):
    """Pick a symptom by typing part of its name, then answer it.

    Dismisses with ``(query, answer)``, or None when cancelled.
    """

    DEFAULT_CSS = """
    SymptomSearchScreen #search-results {
        height: auto;
        max-height: 50vh;  /* the count and the keys below stay on an 80x24 screen */
    }
    SymptomSearchScreen #search-prompt {
        height: auto;
        margin-top: 1;
    }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="search.back"),
        Binding("backspace", "back", "Back to list", show=False, id="search.list"),
        Binding("up", "cursor(-1)", "Up", show=False, id="search.up"),
        Binding("down", "cursor(1)", "Down", show=False, id="search.down"),
        Binding("y", "answer('yes')", "Yes", id="search.yes"),
        Binding("n", "answer('no')", "No", id="search.no"),
        Binding("u", "answer('unknown')", "Can't tell", id="search.unknown"),
    ]

    def __init__(
        self,
        symptoms: Sequence[Symptom],
        answers: Mapping[int, Answer],
        query: int | None = None,
        victim: str = "",
        shared: Collection[int] = (),
    ):
        super().__init__()
        self.symptoms = symptoms
        #: whom the answer goes to, with several victims ("Victim 2"); "" with one
        self.victim = victim
        #: the queries answered once for the incident (asked "On scene")
        self.shared = shared
        #: the answers given so far, by symptom (query) index
        self.answers = answers
        self.chosen: int | None = query
        self.matches: list[int] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(
                "A sign or scene fact: type part of its name, ↑↓ to pick, Enter to choose",
                id="search-title",
                classes="dialog-title",
            )
            yield Input(placeholder="e.g. cough, pupils, bleach, swimming pool…", id="search-input")
            yield OptionList(id="search-results")
            yield Static(id="search-prompt")

    def on_mount(self) -> None:
        self._fill("")
        if self.chosen is not None:
            self._choose(self.chosen)
        else:
            self.query_one(Input).focus()

    # -- list -----------------------------------------------------------------------------

    def _fill(self, text: str) -> None:
        found = rank_symptoms(self.symptoms, text)
        self.matches = [m.symptom.index for m in found]
        options = self.query_one(OptionList)
        options.clear_options()
        for m in found:
            s = m.symptom
            label = Text.assemble((s.label, "bold"), ("  ", ""), (s.category_label, "dim"))
            if m.via:
                label.append(f"  “{m.via}”", style="italic")
            ans = self.answers.get(s.index)
            if ans is not None:
                mark, style = ANSWER_MARK[ans]
                label.append(f"   {mark} answered {ANSWER_TEXT[ans]}", style=style)
            options.add_option(Option(label, id=str(s.index)))
        if found:
            options.highlighted = 0
        count = len(found)
        self.query_one("#search-prompt", Static).update(
            Text(
                counted(count, "match", "matches") if text else f"{count} signs and scene facts",
                style="dim",
            )
            if count
            else Text(
                f"No match for \u201c{quoted(text)}\u201d. Try fewer letters, or another word.",
                style="yellow",
            )
        )

    def on_input_changed(self, event: Input.Changed) -> None:
        if self.chosen is None:
            self._fill(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        # Typed ahead: the list may not show the text yet; Enter acts on the text typed.
        self._fill(event.value)
        options = self.query_one(OptionList)
        if options.highlighted is None or not self.matches:
            self.app.bell()
            return
        self._choose(self.matches[options.highlighted])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._choose(int(event.option.id))

    def action_cursor(self, step: int) -> None:
        options = self.query_one(OptionList)
        if self.chosen is not None or not self.matches:
            return
        current = options.highlighted or 0
        options.highlighted = max(0, min(len(self.matches) - 1, current + step))

    # -- answering ------------------------------------------------------------------------

    def _asks(self, symptom: Symptom) -> str:
        """The question's opening, worded as the interview's question panel words it."""
        return question_opening(symptom, symptom.index in self.shared, self.victim)

    def _choose(self, query: int) -> None:
        self.chosen = query
        s = self.symptoms[query]
        ans = self.answers.get(query)
        parts = [
            Text.assemble((self._asks(s), "dim"), (f"{s.label}?", "bold")),
            Text.assemble(("How to check:  ", "dim"), s.check or "—"),
        ]
        if ans is not None:
            parts.append(
                Text(
                    f"Already answered: {ANSWER_TEXT[ans]}. A new answer replaces it.",
                    style="yellow",
                )
            )
        keys = (
            ("y", "yes"), ("n", "no"), ("u", "can't tell"), ("⌫", "other symptom"), ("esc", "close")
        )  # fmt: skip
        # on one line, the keys closer together if need be; else a key and its word together
        width = self.query_one("#search-prompt", Static).size.width or 64
        one_line = (key_hint(*keys, gap=gap) for gap in ("   ", "  "))
        hint = next((h for h in one_line if h.cell_len <= width), None)
        hint = hint or wrapped_key_hint(width, *keys)
        text = Text("\n").join([*parts, hint])
        self.query_one("#search-prompt", Static).update(text)
        self.query_one(Input).disabled = True
        self.query_one(OptionList).display = False
        self.query_one("#search-title", Static).update("Answer this symptom")
        self.set_focus(None)

    def check_action(self, action: str, parameters) -> bool | None:
        if action == "answer":
            return self.chosen is not None
        if action == "cursor":
            return self.chosen is None
        if action == "back":
            # in the list, backspace edits the text; once chosen it returns to the list
            return self.chosen is not None
        return True

    def action_answer(self, value: str) -> None:
        if self.chosen is not None:
            self.dismiss((self.chosen, Answer(value)))

    def action_close(self) -> None:
        self.dismiss(None)

    def action_back(self) -> None:
        if self.chosen is None:
            return
        self.chosen = None
        inp = self.query_one(Input)
        inp.disabled = False
        self.query_one(OptionList).display = True
        self.query_one("#search-title", Static).update(
            "Volunteered symptom: type part of its name, ↑↓ to pick, Enter to choose"
        )
        self._fill(inp.value)
        inp.focus()
