"""Settings: defaults for new interviews, knowledge base and theme."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Checkbox, Label, RadioSet, Select, Static

from responder.app.screens.dialog import Dialog
from responder.app.widgets.toggles import MarkedCheckbox, MarkedRadioButton
from responder.config import NoiseSettings
from responder.settings import Settings, settings_path

#: The answer modes in the order the settings form shows them.
MODES_SHOWN = ("evidence", "strict", "noise")


class SettingsScreen(Dialog[Settings | None]):
    DEFAULT_CSS = """
    SettingsScreen #settings-form {
        height: 1fr;
    }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="settings.cancel"),
        Binding("ctrl+s", "save", "Save", id="settings.save"),
    ]

    def __init__(self, settings: Settings, current_noise: NoiseSettings | None = None):
        super().__init__()
        self.settings = settings
        #: the open interview's noise settings, offered as the new defaults
        self.current_noise = current_noise

    def compose(self) -> ComposeResult:
        s = self.settings
        try:
            from responder.kb.resolve import available_kbs  # noqa: PLC0415

            kbs = available_kbs()
        except Exception:  # noqa: BLE001
            kbs = ["bundled"]
        current_kb = s.kb or "bundled"
        if current_kb not in kbs:
            kbs.append(current_kb)
        themes = sorted(self.app.available_themes)
        with Vertical(id="dialog", classes="wide form"):
            yield Static("Settings", classes="dialog-title")
            with VerticalScroll(id="settings-form"):
                yield Static(
                    f"Saved in {settings_path()}. Defaults apply to new interviews; a "
                    "knowledge base change applies when responder next starts.",
                    classes="hint",
                    markup=False,  # a path: its brackets are no style
                )
                with Horizontal(classes="field"):
                    yield Label("Identify", classes="field-label")
                    with RadioSet(id="set-target"):
                        yield MarkedRadioButton("the chemical", value=s.target == "chemical")
                        yield MarkedRadioButton("its class only", value=s.target == "class")
                with Horizontal(classes="field"):
                    yield Label("Suggest", classes="field-label")
                    with RadioSet(id="set-suggest"):
                        yield MarkedRadioButton("one symptom", value=s.suggest == "symptom")
                        yield MarkedRadioButton(
                            "a category of symptoms", value=s.suggest == "category"
                        )
                with Horizontal(classes="field"):
                    yield Label("Answers count", classes="field-label")
                    with RadioSet(id="set-mode"):
                        yield MarkedRadioButton(
                            "as evidence (none rules out)", value=s.mode == "evidence"
                        )
                        yield MarkedRadioButton("strictly (the paper)", value=s.mode == "strict")
                        yield MarkedRadioButton(
                            "strictly, tolerating wrong answers", value=s.mode == "noise"
                        )
                if self.current_noise is not None:
                    with Horizontal(classes="field"):
                        yield Label("", classes="field-label")
                        yield MarkedCheckbox(
                            "use this interview's noise as defaults",
                            value=False,
                            id="set-noise-current",
                        )
                with Horizontal(classes="field"):
                    yield Label("Knowledge base", classes="field-label")
                    yield Select(
                        [(k, k) for k in kbs], value=current_kb, allow_blank=False, id="set-kb"
                    )
                with Horizontal(classes="field"):
                    yield Label("Theme", classes="field-label")
                    yield Select(
                        [(t, t) for t in themes],
                        value=self.app.theme if self.app.theme in themes else themes[0],
                        allow_blank=False,
                        id="set-theme",
                    )
            with Horizontal(classes="buttons"):
                yield Button("Save (ctrl+s)", variant="primary", id="save")
                yield Button("Cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#set-target", RadioSet).focus()
        #: the form as it opened, to tell an edit from none (:meth:`changed`)
        self._opened_as = self.read()

    def changed(self) -> bool:
        """Whether the form now says something else than when it opened (not yet saved)."""
        opened = getattr(self, "_opened_as", None)
        return opened is not None and self.read() != opened

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "save":
            self.action_save()
        else:
            self.action_cancel()

    def read(self) -> Settings:
        s = self.settings
        target = (
            "class" if self.query_one("#set-target", RadioSet).pressed_index == 1 else "chemical"
        )
        suggest = (
            "category" if self.query_one("#set-suggest", RadioSet).pressed_index == 1 else "symptom"
        )
        kb = str(self.query_one("#set-kb", Select).value)
        theme = str(self.query_one("#set-theme", Select).value)
        mode = MODES_SHOWN[max(0, self.query_one("#set-mode", RadioSet).pressed_index)]
        noise = s.noise
        current = self.query("#set-noise-current")
        if current and current.first(Checkbox).value and self.current_noise is not None:
            noise = self.current_noise
        return s.with_changes(
            target=target,
            suggest=suggest,
            mode=mode,
            kb=None if kb == "bundled" else kb,
            theme=theme,
            noise=noise,
        )

    def action_save(self) -> None:
        self.dismiss(self.read())  # the app saves them, and says where or why not

    def action_cancel(self) -> None:
        self.dismiss(None)
