"""The main screen: what to ask, what is still possible, and one key per answer."""

from __future__ import annotations

import functools
from dataclasses import replace

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer
from textual.worker import get_current_worker

from responder.app.keymap import caps_lock_hint
from responder.app.messages import (
    AnswerGiven,
    ModesChangeRequested,
    NoneOfGroup,
    ScreenRequested,
    UndoRequested,
    VictimAdded,
    VictimRemoved,
    VictimSelected,
)
from responder.app.widgets.notice import NOTICE_SECONDS, STYLES
from responder.app.widgets.panels import (
    ActNow,
    AnswersPanel,
    CandidatesTable,
    ClassBars,
    PanelBox,
    QuestionPanel,
    StatusLine,
    TitleBar,
    VictimsStrip,
)
from responder.core import views
from responder.core.session import Interview
from responder.engine.state import Answer, Status

#: How long a request may wait for the app before the keys held behind it are taken anyway.
REQUEST_WAIT_SECONDS = 1.0


def in_turn(action):
    """An action that reads or changes the interview waits until the app has handled the
    request the action before it posted: keys typed in a burst are taken in order, each on
    the screen the one before produced, never two answers to the same question."""

    @functools.wraps(action)
    def run(self, *args):
        if self._request_pending:
            self._held.append((action, args))
            return
        action(self, *args)

    return run


class InterviewScreen(Screen):
    """The interview. Every action is also in the command palette (ctrl+p)."""

    BINDINGS = [
        Binding("y", "answer('yes')", "Yes", id="answer.yes"),
        Binding("n", "answer('no')", "No", id="answer.no"),
        Binding("u", "answer('unknown')", "Can't tell", id="answer.unknown"),
        Binding("0", "answer_none", "None of these", show=False, id="answer.none"),
        Binding("s", "scene", "Scene", id="scene"),
        Binding("plus", "add_victim", "Victim", id="victim.add", key_display="+"),
        Binding("minus", "remove_victim", "Remove victim", id="victim.remove", key_display="-"),
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
        self.remaining = None  # a responder.core.remaining.Remaining once computed
        self.remaining_generation = -1  # the interview's generation it was computed for
        self._remaining_for: tuple[str, int] | None = None  # (interview, generation) asked for
        self._note: str | None = None
        self._note_generation = -1  # the interview's generation the note was given for
        self._notice: Text | None = None
        self._notice_timer = None
        self._result_seen: tuple | None = None  # the (status, leader) it last opened for
        self._remaining_timer = None
        self.main: views.MainView | None = None
        self._shown_keys: tuple | None = None
        self._request_pending = False  # a request posted, not yet handled by the app
        self._held: list[tuple] = []  # actions of keys typed meanwhile, in order
        self._request_timer = None
        self._covered = False  # another screen is over this one

    @property
    def interview(self) -> Interview:
        return self.app.interview

    def compose(self) -> ComposeResult:
        yield TitleBar(id="titlebar")
        yield ActNow(id="act-now")
        yield VictimsStrip(id="victims")
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield QuestionPanel(id="question")
                yield CandidatesTable(id="candidates")
            with Vertical(id="right"):
                with PanelBox(id="classes-box"):
                    yield ClassBars(id="classes")
                with PanelBox(id="answers-box"):
                    yield AnswersPanel(id="answers")
        yield StatusLine(id="status")
        yield Footer(compact=True)

    #: Mode keys left out of the footer when it is too narrow for every key (still in help
    #: and ctrl+p), so the answer keys, undo, /, history, result, help and quit always fit.
    PALETTE_WIDTH = 14  # the footer's "▏^p palette" at its right end
    NARROW_HIDDEN = frozenset(
        {
            "mode.target",
            "mode.suggest",
            "mode.noise",
            "mode.evidence",
            "scene",
            "victim.add",
            "victim.remove",
        }
    )

    def on_mount(self) -> None:
        self._fit_footer(self.app.size.width)
        self.refresh_view()

    def on_resize(self, event) -> None:
        self._fit_footer(event.size.width)

    #: Left out too below the design width (80 columns), so that the answer keys, undo, /
    #: and quit still fit (all stay in ctrl+p; help is F1 or ?).
    NARROWER_HIDDEN = frozenset({"history", "result", "help"})

    def footer_width(self, with_palette: bool = True, leaving_out=frozenset(), gap=3) -> int:
        """Columns the compact footer needs to show every key it lists, mode keys and the
        app's quit included (each key is drawn as " key label "), less ``leaving_out``;
        ``gap`` 2 counts the keys as tight as the compact footer draws them."""
        shown = {
            b.id: b
            for bindings in self._bindings.key_to_bindings.values()
            for b in bindings
            if (b.show or b.id in self.NARROW_HIDDEN | self.NARROWER_HIDDEN)
            and b.id not in leaving_out
        }
        keys = sum(len(b.key_display or b.key) + len(b.description) + gap for b in shown.values())
        quit_key = len("^q Quit") + gap
        return keys + quit_key + (self.PALETTE_WIDTH if with_palette else 0)

    def _fit_footer(self, width: int) -> None:
        narrow = width < self.footer_width()
        narrower = width < self.footer_width(False, leaving_out=self.NARROW_HIDDEN, gap=2)
        changed = False
        for key, bindings in self._bindings.key_to_bindings.items():
            fitted = [
                replace(b, show=not narrow)
                if b.id in self.NARROW_HIDDEN
                else replace(b, show=not narrower)
                if b.id in self.NARROWER_HIDDEN
                else b
                for b in bindings
            ]
            if fitted != bindings:
                self._bindings.key_to_bindings[key] = fitted
                changed = True
        # the palette's hint gives way to quit on a narrow screen (ctrl+p still works)
        footer = self.query_one(Footer)
        footer.show_command_palette = not narrow
        if changed:
            self.refresh_bindings()

    # -- refresh --------------------------------------------------------------------------

    def refresh_view(self, keep_selection: int | None = None, auto_result: bool = True) -> None:
        """Redraw every panel from the interview's views; start the expected-questions job."""
        it = self.interview
        main = self.main = views.main_screen(it)
        self.query_one(TitleBar).show(main.knowledge_name, main.chemicals, main.symptoms)
        self.query_one(ActNow).show(main.act_now)
        self.query_one(VictimsStrip).show(main.victims)
        self.query_one(QuestionPanel).show(main.prompt, keep_selection)
        self.query_one(CandidatesTable).show(main.candidates)
        self.query_one(ClassBars).show(main.classes)
        answers = self.query_one(AnswersPanel)
        answers.show(main.answers)
        classes_box = self.query_one("#classes-box")
        classes_box.border_title = "Classes"
        classes_box.border_subtitle = main.classes_note
        box = self.query_one("#answers-box")
        box.border_title = answers.title
        box.border_subtitle = "h change · z undo"
        # the figure (shown or being computed) is kept while the answers and modes are the same:
        # a redraw for another reason neither discards it nor starts it again
        if self._remaining_for != (it.id, it.generation):
            self._remaining_for = (it.id, it.generation)
            self.remaining = None
            self._schedule_remaining()
        self._update_status()
        # the footer shows only the keys that work now; redrawn only when that changes
        available = self._available_keys()
        if available != self._shown_keys:
            self._shown_keys = available
            self.refresh_bindings()
        self.app.first_question_shown()
        self._request_handled()
        status = main.prompt.status
        # the result opens by itself when the interview reaches one, or names another leader:
        # not again for each further answer or victim once it has been read
        result_key = (status, main.prompt.result_leader)
        if status not in (Status.IDENTIFIED, Status.INDISTINGUISHABLE):
            self._result_seen = None
        elif (
            auto_result
            and self._result_seen != result_key
            and main.status.asked > 0
            and self.app.screen is self  # not under the scene step or a dialog
        ):
            self._result_seen = result_key
            # "auto": the result opens by itself, perhaps under the responder's typing
            self.call_after_refresh(self.post_message, ScreenRequested("result", "auto"))

    def on_key(self, event: events.Key) -> None:
        """A capital letter that is no key here while its small letter is (Y with Caps Lock
        on) did nothing without a word: a bell and a notice say so."""
        bound = {
            key: active.binding.description or active.binding.action
            for key, active in self.active_bindings.items()
            if active.enabled
        }
        hint = caps_lock_hint(event.character, bound)
        if hint is not None:
            event.stop()
            self.app.bell()
            self.show_notice(hint, "warning")

    def show_notice(self, message: str, severity: str = "information", timeout=None) -> None:
        """A message on the status line's second line (no toast over a dialog), for a while."""
        self._notice = Text(" ".join(message.split()), style=STYLES.get(severity, ""))
        if self._notice_timer is not None:
            self._notice_timer.stop()
        seconds = timeout if timeout is not None else NOTICE_SECONDS.get(severity, 6.0)
        self._notice_timer = self.set_timer(seconds, self.clear_notice)
        if self.main is not None:
            self._update_status()

    @property
    def notice_text(self) -> str | None:
        """The notice on the status line now, as :meth:`show_notice` was given it (spaces
        folded), or None."""
        return None if self._notice is None else self._notice.plain

    def clear_notice(self) -> None:
        if self._notice_timer is not None:
            self._notice_timer.stop()
        self._notice = None
        self._notice_timer = None
        if self.is_mounted and self.main is not None:
            self._update_status()

    @property
    def note(self) -> str | None:
        """The status line's note on the last change (a class the answer just given lowered
        sharply, noise tolerance past the safe eps), while the interview is as that change
        left it: an undo, a changed answer, another answer or victim would leave it speaking
        of what is no longer so."""
        it = getattr(self.app, "interview", None)
        if it is None or it.generation != self._note_generation:
            return None
        return self._note

    @note.setter
    def note(self, text: str | None) -> None:
        it = getattr(self.app, "interview", None)
        self._note = text
        self._note_generation = it.generation if it is not None else -1

    def _update_status(self) -> None:
        rem = self.remaining
        main = self.main
        if main.prompt.status is Status.INCONSISTENT:
            text = "—"
        elif rem is None:
            text = "…"
        elif rem.method == "error":
            text = "?"
        else:
            # exact for yes/no answers: each "can't tell" adds a question, so the figure can rise
            text = f"{rem.text} if y/n" if rem.method == "exact" else "≈" + rem.text.lstrip("≈")
        reads = main.status.reads_victim
        one_victim = (
            f"{main.status.mode} mode reads {reads}'s answers only; evidence (v) pools all"
            if reads
            else None
        )
        self.query_one(StatusLine).show(main.status, text, self._notice or self.note or one_victim)

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
        from responder.core.remaining import Remaining  # noqa: PLC0415

        self.app.call_from_thread(self._set_remaining, generation, Remaining(value, method))

    def _set_remaining(self, generation: int, remaining) -> None:
        if not self.is_mounted or not self.query(StatusLine):
            return  # the figure arrived after the screen (or the app) closed
        if generation == self.interview.generation:
            if remaining is None:
                from responder.core.remaining import Remaining  # noqa: PLC0415

                remaining = Remaining(float("nan"), "error")
            self.remaining = remaining
            self.remaining_generation = generation
            try:
                self._update_status()
            except NoMatches:  # the helper answered while the screen was being torn down
                pass

    # -- answers --------------------------------------------------------------------------

    def _available_keys(self) -> tuple:
        """What :meth:`check_action` depends on."""
        it = self.interview
        view = self.query_one(QuestionPanel).view
        return (
            self.query_one(QuestionPanel).selected_query is not None,
            view is not None and view.group is not None and bool(view.group.none_label),
            len(it.victims),
            it.answered > 0,
        )

    def check_action(self, action: str, parameters) -> bool | None:
        if self._covered:
            return False
        it = getattr(self.app, "interview", None)
        if it is None:
            return True
        if action in ("answer", "move"):
            return self.query_one(QuestionPanel).selected_query is not None
        if action == "answer_none":
            view = self.query_one(QuestionPanel).view
            return view is not None and view.group is not None and bool(view.group.none_label)
        if action == "remove_victim":  # says why not, once there is a victim to remove
            return len(it.victims) > 1
        if action == "select_victim":
            return len(it.victims) > 1 and parameters[0] < len(it.victims)
        if action == "undo":  # the last answer, whichever victim's
            return it.answered > 0
        return True

    # -- requests to the app, one at a time ---------------------------------------------------

    @property
    def busy(self) -> bool:
        """A request is on its way to the app, or keys typed meanwhile wait their turn."""
        return self._request_pending or bool(self._held)

    def _request(self, message: Message) -> None:
        """Post a request up to the app; the actions of keys typed before it is handled wait
        (:func:`in_turn`) until it is, or at most :data:`REQUEST_WAIT_SECONDS`."""
        self._request_pending = True
        if self._request_timer is not None:
            self._request_timer.stop()
        self._request_timer = self.set_timer(REQUEST_WAIT_SECONDS, self._request_handled)
        self.post_message(message)

    def _request_handled(self) -> None:
        """The app has redrawn this screen: take the held keys, in order, on what it shows."""
        self._request_pending = False
        if self._request_timer is not None:
            self._request_timer.stop()
            self._request_timer = None
        if self._held:
            self.call_later(self._take_held)

    def _take_held(self) -> None:
        while self._held and not self._request_pending:
            action, args = self._held.pop(0)
            action(self, *args)

    def on_screen_suspend(self) -> None:
        """Another screen opened over this one: keys typed for this screen before it opened
        are dropped (with a bell), never taken on a screen the responder has not seen."""
        if self._held:
            self._held.clear()
            self.app.bell()
        self._request_handled()
        # a dialog over this screen leaves its footer in view: list none of this screen's keys
        # there (the scene step's "h" is a smell, not the history), only the app's (quit)
        self._covered = True
        self.refresh_bindings()

    def on_screen_resume(self) -> None:
        self._covered = False
        self.refresh_bindings()

    @in_turn
    def action_answer(self, value: str) -> None:
        q = self.query_one(QuestionPanel).selected_query
        if q is None:
            self.app.bell()
            return
        self._request(AnswerGiven(q, Answer(value)))

    @in_turn
    def action_move(self, step: int) -> None:
        self.query_one(QuestionPanel).move(step)

    @in_turn
    def action_answer_none(self) -> None:
        """The suggested sign's exclusive group: none of its values (pupils of normal
        size): "no" to every member at once."""
        view = self.query_one(QuestionPanel).view
        if view is None or view.group is None or not view.group.none_label:
            self.app.bell()
            return
        self._request(NoneOfGroup(view.group))

    @in_turn
    def action_scene(self) -> None:
        self._request(ScreenRequested("scene"))

    @in_turn
    def action_add_victim(self) -> None:
        self._request(VictimAdded())

    @in_turn
    def action_remove_victim(self) -> None:
        self._request(VictimRemoved())

    @in_turn
    def action_select_victim(self, victim: int) -> None:
        self._request(VictimSelected(victim))

    @in_turn
    def action_undo(self) -> None:
        self._request(UndoRequested())

    def action_scroll_candidates(self, direction: int) -> None:
        table = self.query_one(CandidatesTable)
        if direction < 0:
            table.scroll_page_up()
        else:
            table.scroll_page_down()

    # -- screens and modes ----------------------------------------------------------------

    @in_turn
    def action_volunteer(self) -> None:
        self._request(ScreenRequested("volunteer"))

    @in_turn
    def action_history(self) -> None:
        self._request(ScreenRequested("history"))

    @in_turn
    def action_result(self) -> None:
        main = self.main
        if main is not None and not main.prompt.result_headline:
            shown, total = main.candidates.plausible, main.candidates.total
            what = "plausible (above 1%)" if main.status.mode == "evidence" else "still possible"
            self.notify(
                f"No result yet: {shown} of {total} chemicals {what}. Keep answering; "
                "the result opens by itself.",
                timeout=4,
            )
            return
        self._request(ScreenRequested("result"))

    @in_turn
    def action_toggle_target(self) -> None:
        target = self.main.status.target
        self._request(ModesChangeRequested(target="class" if target == "chemical" else "chemical"))

    @in_turn
    def action_toggle_suggest(self) -> None:
        suggest = self.main.status.suggest
        self._request(
            ModesChangeRequested(suggest="category" if suggest == "symptom" else "symptom")
        )

    @in_turn
    def action_toggle_evidence(self) -> None:
        """Evidence <-> strict; from the noise mode, to the evidence mode."""
        mode = self.main.status.mode
        self._request(ModesChangeRequested(mode="strict" if mode == "evidence" else "evidence"))

    @in_turn
    def action_toggle_noise(self) -> None:
        """Strict <-> noise. The evidence mode already tolerates wrong answers: it stays,
        and the notice says how to reach the paper's noise tolerance."""
        mode = self.main.status.mode
        if mode == "evidence":
            self.notify(
                "Evidence mode already tolerates wrong answers: none rules a chemical out. "
                "For the paper's noise tolerance, press v (strict), then e.",
                timeout=6,
            )
            return
        self._request(ModesChangeRequested(mode="strict" if mode == "noise" else "noise"))

    @in_turn
    def action_noise_settings(self) -> None:
        self._request(ScreenRequested("noise"))

    @in_turn
    def action_browse(self) -> None:
        self._request(ScreenRequested("browse"))

    @in_turn
    def action_export(self) -> None:
        self._request(ScreenRequested("export"))

    @in_turn
    def action_new_interview(self) -> None:
        self._request(ScreenRequested("new"))

    @in_turn
    def action_settings(self) -> None:
        self._request(ScreenRequested("settings"))

    @in_turn
    def action_help(self) -> None:
        self._request(ScreenRequested("help"))
