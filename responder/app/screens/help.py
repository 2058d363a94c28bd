"""Keys, modes and what the screen shows."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from responder.app.screens.dialog import Dialog
from responder.core.session import MAX_VICTIMS
from responder.core.views import DISCLAIMER
from responder.engine.evidence import DEFAULT_THRESHOLD

# (binding id, what it does), in the order shown.
KEY_HELP = (
    ("answer.yes", "Yes: seen at any time since the exposure, even if gone now"),
    ("answer.no", "No: not seen at any time since the exposure"),
    ("answer.unknown", "Can't tell: skip it; nobody is ruled out"),
    ("answer.none", "None of these: e.g. pupils of normal size (no to small and to large)"),
    ("scene", "Scene step: smell, cloud, form, place, pattern, onset, route; one key each"),
    ("victim.add", "Add a victim of the same incident (the scene stays shared)"),
    ("victim.remove", "Remove a victim added by mistake: the last one, while they have no answers"),
    ("victim.1", "Switch to that victim (1-9): answers and suggestions are theirs"),
    # victims 2-9: the line above explains the number keys
    *((f"victim.{k}", None) for k in range(2, 10)),
    ("choose.up", "Category questions: previous symptom"),
    ("choose.down", "Category questions: next symptom"),
    ("undo", "Undo the last answer"),
    ("volunteer", "Answer any symptom: type part of its name"),
    ("history", "Answer history: change or remove any answer"),
    ("mode.target", "Target: identify the chemical, or only its class"),
    ("mode.suggest", "Suggest one symptom, or a whole category to check"),
    ("mode.evidence", "How answers count: evidence (default) or strict elimination"),
    ("mode.noise", "Noise tolerance on/off (some answers may be wrong)"),
    ("mode.noise_settings", "Noise settings: how many errors, which symptoms, model"),
    ("result", "Show the result, once there is one"),
    ("browse", "Browse the knowledge base's chemicals and symptoms"),
    ("export", "Export the interview as Markdown and JSON"),
    ("interview.new", "Start a new interview (the current one stays saved as an incident)"),
    ("settings", "Settings: defaults, knowledge base, theme"),
    ("candidates.page_up", "Scroll the candidates up"),
    ("candidates.page_down", "Scroll the candidates down"),
    ("help", "This help"),
)

# (heading, [(term, explanation)]): a grid wraps each explanation in its own column, so
# nothing is hard-wrapped for one width and no word is left alone on a line.
ABOUT = (
    (
        "What the screen shows",
        (
            (
                "Ask next",
                "The symptom (or category of symptoms) that narrows the list fastest. "
                "You never have to follow it: press / to enter any symptom a victim shows.",
            ),
            (
                "Candidates",
                "Chemicals ranked by how well they fit, most likely first. Chemicals "
                "with exactly the same symptom profile share a row: no question can "
                "tell them apart. ✗ counts the answers against each; the panel's lower "
                "edge names them for the first.",
            ),
            (
                "Classes",
                "How likely each class of chemical is. In the evidence mode the classes "
                "start equally likely, as the chemicals in the list do, so a class can "
                "show less than its own leading chemical.",
            ),
            (
                "Scene",
                "What was smelt, seen and going on (the cloud, the place, when signs began): "
                "press s, then one key per answer. Never sniff to find out: ask witnesses.",
            ),
            (
                "Victims",
                f"Several victims of one incident: + adds one (up to {MAX_VICTIMS}), 1-9 switch to the "
                "first nine, ctrl+p 'Ask victim 12' to any; - takes back "
                "the last one added by mistake (while they have no answers). Each answers for "
                "themself; the scene is shared; the evidence mode weighs every victim "
                "together, strict and noise read only the victim being asked.",
            ),
            (
                "Status line",
                "Questions asked, expected questions left ('if y/n': exact when every "
                "answer is yes or no, so each can't-tell adds to it; '≈' an estimate), "
                "the mode and the top candidate's probability, target, suggestion "
                "mode, and noise tolerance with the wrong answers assumed so far "
                "('1/2').",
            ),
            (
                "ACT NOW",
                "A red line when a life-threatening sign is answered yes: start life "
                "support at once. It never stops the interview, and stays while any "
                "victim has such a sign, naming them when another victim is asked.",
            ),
        ),
    ),
    (
        "Modes (all keep your answers)",
        (
            (
                "Answers",
                "Evidence (default): each answer shifts the odds, none rules a chemical "
                f"out; the interview stops at {DEFAULT_THRESHOLD:.0%} or when no question can help, or says "
                "no chemical fits. Strict: the paper's elimination, an answer against a "
                "chemical removes it.",
            ),
            ("Target", "The chemical, or its class only."),
            (
                "Suggest",
                "One symptom at a time, or a category (e.g. Eyes) with the symptoms in it "
                "that can still change the outcome; optional ones are greyed.",
            ),
            (
                "Noise",
                "Off: every answer is trusted. On: a chemical stays possible while it "
                "contradicts at most eps answers; each candidate shows how many it does.",
            ),
        ),
    ),
    (
        "Safety",
        (
            (
                "Journal",
                "Every answer is saved at once. If the app or the laptop dies, start "
                "responder again: it offers to resume with every answer kept, on the "
                "victim you were asking.",
            ),
        ),
    ),
)


def about_table() -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(ratio=1)
    for heading, rows in ABOUT:
        table.add_row(Text(heading, style="bold underline"), "")
        for term, text in rows:
            table.add_row(term, text)
        table.add_row("", "")
    return table


def keys_for(screen, binding_id: str) -> str:
    """Keys bound to ``binding_id`` on ``screen`` now (after any remapping)."""
    app = screen.app
    seen: dict[str, None] = {}
    for key, bindings in screen._bindings.key_to_bindings.items():  # noqa: SLF001
        if any(b.id == binding_id for b in bindings):
            seen.setdefault(app.get_key_display(Binding(key, "")))
    return " / ".join(seen) or "—"


class HelpScreen(Dialog[None]):
    BINDINGS = [Binding("escape,question_mark,f1,q", "close", "Close", id="help.close")]

    def compose(self) -> ComposeResult:
        screen = self.app.interview_screen
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for binding_id, text in KEY_HELP:
            if text is None:
                continue
            keys = "1-9" if binding_id == "victim.1" else keys_for(screen, binding_id)
            table.add_row(keys if screen else "", text)
        table.add_row("ctrl+p", "Command palette: every action by name")
        table.add_row("ctrl+q", "Quit (the interview stays saved, to resume at the next start)")
        with Vertical(id="dialog", classes="wide tall"):
            yield Static("Help · Esc to close", classes="dialog-title")
            with VerticalScroll():
                yield Static(Text(DISCLAIMER, style="bold yellow"), classes="disclaimer")
                yield Static(Text("Keys", style="bold underline"))
                yield Static(table)
                yield Static(about_table())

    def action_close(self) -> None:
        self.dismiss(None)
