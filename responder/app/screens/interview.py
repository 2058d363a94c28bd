"""The main screen: what to ask, what is still possible, and one key per answer."""

from __future__ import annotations

from dataclasses import replace

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from responder.app.widgets.panels import (
    AnswersPanel,
    CandidatesTable,
    ClassBars,
    QuestionPanel,
    StatusLine,
    VictimsStrip,
)
from responder.core import views
from responder.core.remaining import Remaining
from responder.core.session import Interview
from responder.engine.state import Answer, Status
from responder.kb.next_steps import act_now_message, steps_for


class InterviewScreen(Screen):
    """The interview. Every action is also in the command palette (ctrl+p)."""

    BINDINGS = [
        Binding("y", "answer('yes')", "Yes", id="answer.yes"),
        Binding("n", "answer('no')", "No", id="answer.no"),
        Binding("u", "answer('unknown')", "Can't tell", id="answer.unknown"),
        Binding("0", "answer_none", "None of these", show=False, id="answer.none"),
        Binding("s", "scene", "Scene", id="scene"),
        Binding("plus", "add_victim", "Victim", id="victim.add", key_display="+"),
        *(
            Binding(str(k), f"select_victim({k - 1})", f"Victim {k}", show=False, id=f"victim.{k}")
            for k in range(1, 10)
        ),
        Binding("z,backspace", "undo", "Undo", id="undo", key_display="z"),
        Binding("up", "move(-1)", "Previous symptom", show=False, id="choose.up"),
        Binding("down", "move(1)", "Next symptom", show=False, id="choose.down"),
        Binding("slash", "volunteer", "Symptom…", id="volunteer", key_display="/"),
        Binding("h", "history", "History", id="history"),
        Binding("t", "toggle_target", "Target", id="mode.target"),
        Binding("m", "toggle_suggest", "Suggest", id="mode.suggest"),
        Binding("v", "toggle_evidence", "Evidence/strict", id="mode.evidence"),
        Binding("e", "toggle_noise", "Noise", id="mode.noise"),
        Binding("E", "noise_settings", "Noise settings", show=False, id="mode.noise_settings"),
        Binding("r", "result", "Result", id="result"),
        Binding("b", "browse", "Browse", show=False, id="browse"),
        Binding("x", "export", "Export", show=False, id="export"),
        Binding("ctrl+n", "new_interview", "New", show=False, id="interview.new"),
        Binding("ctrl+s", "settings", "Settings", show=False, id="settings"),
        Binding(
            "pageup", "scroll_candidates(-1)", "Scroll up", show=False, id="candidates.page_up"
        ),
        Binding(
            "pagedown", "scroll_candidates(1)", "Scroll down", show=False, id="candidates.page_down"
        ),
        Binding("question_mark,f1", "help", "Help", id="help", key_display="?"),
    ]

    def __init__(self):
        super().__init__()
        self.remaining: Remaining | None = None
        self.note: str | None = None
        self._result_seen: int | None = None
        self._remaining_timer = None

    @property
    def interview(self) -> Interview:
        return self.app.interview

    def compose(self) -> ComposeResult:
        yield Static(id="titlebar")
        yield Static(id="act-now")
        yield VictimsStrip(id="victims")
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield QuestionPanel(id="question")
                yield CandidatesTable(id="candidates")
            with Vertical(id="right"):
                with VerticalScroll(id="classes-box", can_focus=False):
                    yield ClassBars(id="classes")
                with VerticalScroll(id="answers-box", can_focus=False):
                    yield AnswersPanel(id="answers")
        yield StatusLine(id="status")
        yield Footer(compact=True)

    #: Mode keys left out of the footer when it is too narrow for every key (still in help
    #: and ctrl+p), so the answer keys, undo, /, history, result and help always fit.
    PALETTE_WIDTH = 14  # the footer's "▏^p palette" at its right end
    NARROW_HIDDEN = frozenset(
        {"mode.target", "mode.suggest", "mode.noise", "mode.evidence", "scene", "victim.add"}
    )

    def on_mount(self) -> None:
        self._fit_footer(self.app.size.width)
        self.refresh_view()

    def on_resize(self, event) -> None:
        self._fit_footer(event.size.width)

    def footer_width(self) -> int:
        """Columns the compact footer needs to show every key it lists, mode keys included
        (each key is drawn as " key label ")."""
        shown = {
            b.id: b
            for bindings in self._bindings.key_to_bindings.values()
            for b in bindings
            if b.show or b.id in self.NARROW_HIDDEN
        }
        return self.PALETTE_WIDTH + sum(
            len(b.key_display or b.key) + len(b.description) + 3 for b in shown.values()
        )

    def _fit_footer(self, width: int) -> None:
        narrow = width < self.footer_width()
        changed = False
        for key, bindings in self._bindings.key_to_bindings.items():
            fitted = [
                replace(b, show=not narrow) if b.id in self.NARROW_HIDDEN else b for b in bindings
            ]
            if fitted != bindings:
                self._bindings.key_to_bindings[key] = fitted
                changed = True
        if changed:
            self.refresh_bindings()

    # -- refresh --------------------------------------------------------------------------

    def refresh_view(self, keep_selection: int | None = None, auto_result: bool = True) -> None:
        """Redraw every panel from the interview; start the expected-questions job."""
        it = self.interview
        kn = it.knowledge
        self.query_one("#titlebar", Static).update(
            f" responder · {kn.name}: {len(kn.chemicals)} chemicals, {len(kn.symptoms)} symptoms"
            " · decision support, not a diagnosis"
        )
        self._show_act_now()
        self.query_one(VictimsStrip).show(it)
        view = views.question(it)
        self.query_one(QuestionPanel).show(it, view, keep_selection)
        self.query_one(CandidatesTable).show(it)
        self.query_one(ClassBars).show(it)
        answers = self.query_one(AnswersPanel)
        answers.show(it)
        self.query_one("#classes-box").border_title = "Classes"
        box = self.query_one("#answers-box")
        box.border_title = answers.title
        box.border_subtitle = "h change · z undo"
        self.remaining = None
        self._update_status()
        self._schedule_remaining()
        self.refresh_bindings()  # the footer shows only the keys that work now
        self.app.first_question_shown()
        status = it.status
        if (
            auto_result
            and status in (Status.IDENTIFIED, Status.INDISTINGUISHABLE)
            and self._result_seen != it.generation
            and it.asked > 0
            and self.app.screen is self  # not under the scene step or a dialog
        ):
            self._result_seen = it.generation
            self.call_after_refresh(self.app.show_result)

    def _show_act_now(self) -> None:
        """A banner over the screen while a life-threatening finding is answered "yes";
        it takes no focus and no key, so the interview goes on underneath."""
        it = self.interview
        labels = [
            it.knowledge.symptoms[r.query].label
            for r in it.state.answers
            if r.answer is Answer.YES and getattr(it.knowledge.symptoms[r.query], "urgent", False)
        ]
        message = act_now_message(labels, steps_for(it.knowledge).poison_centre)
        banner = self.query_one("#act-now", Static)
        banner.display = message is not None
        banner.update(message or "")

    def _update_status(self) -> None:
        rem = self.remaining
        it = self.interview
        if it.status is Status.INCONSISTENT:
            text = "—"
        elif rem is None:
            text = "…"
        elif rem.method == "error":
            text = "?"
        else:
            # exact for yes/no answers: each "can't tell" adds a question, so the figure can rise
            text = f"{rem.text} if y/n" if rem.method == "exact" else "≈" + rem.text.lstrip("≈")

        self.query_one(StatusLine).show(it, text, self.note)

    def _schedule_remaining(self) -> None:
        """Start E[K] for the current answers once the responder pauses (0.2 s)."""
        self.app.remaining_service.cancel()  # its answers are out of date
        if self._remaining_timer is not None:
            self._remaining_timer.stop()
        self._remaining_timer = self.set_timer(0.2, self._start_remaining)

    def _start_remaining(self) -> None:
        self._remaining_timer = None
        it = self.interview
        generation, spec = it.remaining_spec()
        self.compute_remaining(generation, spec, it.remaining_is_cheap)

    @work(thread=True, exclusive=True, group="remaining")
    def compute_remaining(self, generation: int, spec, cheap: bool) -> None:
        from responder.core.remaining import Cancelled, evaluate_spec  # noqa: PLC0415

        try:
            if cheap:
                value, method = evaluate_spec(spec)
            else:
                value, method = self.app.remaining_service.compute(spec)
        except Cancelled:
            return
        except Exception:  # noqa: BLE001 (a figure we cannot compute is shown as "?")
            self.app.call_from_thread(self._set_remaining, generation, None)
            return
        if get_current_worker().is_cancelled:
            return
        self.app.call_from_thread(self._set_remaining, generation, Remaining(value, method))

    def _set_remaining(self, generation: int, remaining: Remaining | None) -> None:
        if not self.is_mounted or not self.query(StatusLine):
            return  # the figure arrived after the screen (or the app) closed
        if generation == self.interview.generation:
            self.remaining = (
                remaining if remaining is not None else Remaining(float("nan"), "error")
            )
            try:
                self._update_status()
            except NoMatches:  # the helper answered while the screen was being torn down
                pass

    # -- answers --------------------------------------------------------------------------

    def check_action(self, action: str, parameters) -> bool | None:
        it = getattr(self.app, "interview", None)
        if it is None:
            return True
        if action in ("answer", "move"):
            return self.query_one(QuestionPanel).selected_query is not None
        if action == "answer_none":
            view = self.query_one(QuestionPanel).view
            return view is not None and view.group is not None
        if action == "select_victim":
            return len(it.victims) > 1 and parameters[0] < len(it.victims)
        if action == "undo":
            return it.asked > 0
        return True

    def action_answer(self, value: str) -> None:
        q = self.query_one(QuestionPanel).selected_query
        if q is None:
            self.app.bell()
            return
        self.app.record_answer(q, Answer(value))

    def action_move(self, step: int) -> None:
        self.query_one(QuestionPanel).move(step)

    def action_answer_none(self) -> None:
        """The suggested sign's exclusive group: none of its values (pupils of normal
        size): "no" to every member at once."""
        view = self.query_one(QuestionPanel).view
        if view is None or view.group is None:
            self.app.bell()
            return
        self.app.answer_group_none(view.group)

    def action_scene(self) -> None:
        self.app.show_scene()

    def action_add_victim(self) -> None:
        self.app.add_victim()

    def action_select_victim(self, victim: int) -> None:
        self.app.select_victim(victim)

    def action_undo(self) -> None:
        self.app.undo_last()

    def action_scroll_candidates(self, direction: int) -> None:
        table = self.query_one(CandidatesTable)
        if direction < 0:
            table.scroll_page_up()
        else:
            table.scroll_page_down()

    # -- screens and modes ----------------------------------------------------------------

    def action_volunteer(self) -> None:
        self.app.action_volunteer()

    def action_history(self) -> None:
        self.app.action_history()

    def action_result(self) -> None:
        it = self.interview
        if views.result(it) is None:
            left = sum(len(r.objects) for r in views.candidates(it))
            self.app.notify(
                f"No result yet: {left} chemical(s) still possible. Keep answering; "
                "the result opens by itself.",
                timeout=4,
            )
            return
        self.app.show_result()

    def action_toggle_target(self) -> None:
        it = self.interview
        self.app.change_modes(target="class" if it.target == "chemical" else "chemical")

    def action_toggle_suggest(self) -> None:
        it = self.interview
        self.app.change_modes(suggest="category" if it.suggest == "symptom" else "symptom")

    def action_toggle_evidence(self) -> None:
        """Evidence <-> strict; from the noise mode, to the evidence mode."""
        it = self.interview
        self.app.change_modes(mode="strict" if it.mode == "evidence" else "evidence")

    def action_toggle_noise(self) -> None:
        """Strict <-> noise. The evidence mode already tolerates wrong answers: it stays,
        and the notice says how to reach the paper's noise tolerance."""
        it = self.interview
        if it.mode == "evidence":
            self.app.notify(
                "Evidence mode already tolerates wrong answers: none rules a chemical out. "
                "For the paper's noise tolerance, press v (strict), then e.",
                timeout=6,
            )
            return
        self.app.change_modes(mode="strict" if it.mode == "noise" else "noise")

    def action_noise_settings(self) -> None:
        self.app.action_noise_settings()

    def action_browse(self) -> None:
        self.app.action_browse()

    def action_export(self) -> None:
        self.app.action_export()

    def action_new_interview(self) -> None:
        self.app.action_new_interview()

    def action_settings(self) -> None:
        self.app.action_settings()

    def action_help(self) -> None:
        self.app.action_help()
