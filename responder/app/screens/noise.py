"""Noise tolerance settings: on/off, how many wrong answers, which symptoms, which model."""

from __future__ import annotations

from dataclasses import replace

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, RadioSet, SelectionList, Static, Switch

from responder.app.screens.dialog import Dialog
from responder.app.widgets.toggles import MarkedRadioButton
from responder.config import ConfigError, NoiseSettings
from responder.core.counted import counted
from responder.core.session import Interview
from responder.engine.noise import NoiseSettingsError


class NoiseScreen(Dialog[NoiseSettings | None]):
    """Edit the noise settings; dismisses with the new :class:`NoiseSettings` or None."""

    DEFAULT_CSS = """
    NoiseScreen #noise-form {
        height: 1fr;
    }
    NoiseScreen #noise-prone {
        height: 12;
    }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="noise.cancel"),
        Binding("ctrl+s", "apply", "Apply", id="noise.apply"),
    ]

    def __init__(self, interview: Interview):
        super().__init__()
        self.interview = interview

    def compose(self) -> ComposeResult:
        it = self.interview
        n = it.noise
        with Vertical(id="dialog", classes="wide form"):
            yield Static("Noise tolerance", classes="dialog-title")
            with VerticalScroll(id="noise-form"):
                yield Static(
                    "When on, a chemical stays possible while it contradicts at most eps answers "
                    "(an answer may be wrong: a symptom missed, or reported by mistake). "
                    f"The knowledge base's closest two profiles differ in {counted(it.delta, 'symptom')}, so "
                    f"up to {counted(it.safe_eps, 'wrong answer')} can be tolerated with a unique answer; "
                    "more keeps several chemicals possible.",
                    classes="hint",
                )
                with Horizontal(classes="field"):
                    yield Label("Tolerate wrong answers", classes="field-label")
                    yield Switch(value=n.enabled, id="noise-enabled")
                with Horizontal(classes="field"):
                    yield Label("eps: wrong answers", classes="field-label")
                    yield Input(
                        value="" if n.eps is None else str(n.eps),
                        placeholder=f"auto ({it.eps_for(replace(n, eps=None))})",
                        id="noise-eps",
                        restrict=r"[0-9]*",
                    )
                with Horizontal(classes="field"):
                    yield Label("Model", classes="field-label")
                    with RadioSet(id="noise-model"):
                        yield MarkedRadioButton(
                            "1: every error pattern equally likely", value=n.model == 1
                        )
                        yield MarkedRadioButton(
                            "2: each answer wrong with chance p", value=n.model == 2
                        )
                with Horizontal(classes="field"):
                    yield Label("p (model 2)", classes="field-label")
                    yield Input(value=f"{n.p:g}", id="noise-p", restrict=r"[0-9.]*")
                yield Label("Symptoms that may be answered wrongly (space toggles):")
                with Horizontal(classes="buttons"):
                    yield Button("All symptoms", id="prone-all")
                    yield Button("None", id="prone-none")
                prone = set(n.prone) if n.prone is not None else None
                yield SelectionList[str](
                    *[
                        (f"{s.category_label} · {s.label}", s.id, prone is None or s.id in prone)
                        for s in it.knowledge.symptoms
                    ],
                    id="noise-prone",
                )
            yield Static(id="noise-error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("Apply (ctrl+s)", variant="primary", id="apply")
                yield Button("Cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        self.query_one(Switch).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        sel = self.query_one(SelectionList)
        if event.button.id == "apply":
            self.action_apply()
        elif event.button.id == "cancel":
            self.action_cancel()
        elif event.button.id == "prone-all":
            sel.select_all()
        elif event.button.id == "prone-none":
            sel.deselect_all()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_apply()

    def read(self) -> NoiseSettings:
        """The form as a config; raises NoiseSettingsError with a message to show."""
        enabled = self.query_one("#noise-enabled", Switch).value
        eps_text = self.query_one("#noise-eps", Input).value.strip()
        n_symptoms = len(self.interview.knowledge.symptoms)
        if eps_text in ("", "auto"):
            eps = None
        elif (
            eps_text.isascii()  # "²" is a digit to isdigit(), not to int()
            and eps_text.isdigit()
            and len(eps_text) <= 6
            and int(eps_text) <= n_symptoms
        ):
            eps = int(eps_text)
        else:  # e.g. 5000 digits: int() would raise, and more errors than symptoms mean nothing
            shown = eps_text if len(eps_text) <= 12 else eps_text[:12] + "…"
            raise NoiseSettingsError(
                f"eps {shown!r} is not a whole number from 0 to "
                f"{n_symptoms} (the number of symptoms), nor auto"
            )
        model = 2 if self.query_one(RadioSet).pressed_index == 1 else 1
        p_text = self.query_one("#noise-p", Input).value.strip() or "0.25"
        try:
            p = float(p_text)
        except ValueError:
            raise NoiseSettingsError(f"p {p_text!r} is not a number; give e.g. 0.25") from None
        chosen = list(self.query_one(SelectionList).selected)
        if not chosen:
            raise NoiseSettingsError(
                "no symptom is marked as error-prone; mark at least one, or choose All symptoms"
            )
        prone = (
            None
            if len(chosen) == len(self.interview.knowledge.symptoms)
            else tuple(s.id for s in self.interview.knowledge.symptoms if s.id in set(chosen))
        )
        config = NoiseSettings(enabled, eps, prone, model, p)
        try:  # the one validation, as for the settings file and the command line
            self.interview.config.with_changes(mode="noise", noise=config).noise_model(
                self.interview.problem
            )
        except ConfigError as exc:
            raise NoiseSettingsError(str(exc)) from None
        return config

    def action_apply(self) -> None:
        try:
            config = self.read()
        except NoiseSettingsError as exc:
            self.query_one("#noise-error", Static).update(str(exc))
            return
        self.dismiss(config)

    def action_cancel(self) -> None:
        self.dismiss(None)
