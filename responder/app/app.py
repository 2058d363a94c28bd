"""The Textual application: holds the interview and routes every action to it.

The app owns one :class:`~responder.core.session.Interview` at a time (``app.interview``).
Screens show view objects built from it (:mod:`responder.core.views`) and post messages
(:mod:`responder.app.messages`) to change it; the app handles each the same way: engine,
incident database (committed durably), redraw, then ``interview_changed`` for any other
screen showing the interview.

Notifications never cover a dialog or the figures a responder decides on: on the interview
screen they sit over the answers panel, and while a dialog or another screen is up they go
to a status line instead.
"""

from __future__ import annotations

import time
from dataclasses import replace
from functools import partial
from pathlib import Path

from textual.app import App
from textual.binding import Binding
from textual.notifications import Notify
from textual.screen import ModalScreen
from textual.signal import Signal
from textual.widgets._toast import ToastRack  # its toast ids (no public name for them)

from responder.app import messages
from responder.app.widgets.notice import wrap_message
from responder.config import ConfigError, NoiseSettings
from responder.core import views
from responder.core.counted import counted
from responder.core.session import Interview
from responder.core.store import IncidentData, StoreError, set_aside
from responder.engine.state import Answer
from responder.kb.model import KnowledgeBase
from responder.settings import Settings, SettingsError, save_settings

#: How long quit waits for answers typed just before it to be recorded.
QUIT_WAIT_SECONDS = 1.0
#: Key round trips quit lets go first: the key's binding, then the answer it sent.
QUIT_ROUND_TRIPS = 2

#: What the status notice says when the answer mode changes.
MODE_SAID = {
    "evidence": "evidence mode: answers weigh for or against; none rules a chemical out",
    "strict": "strict mode: an answer that contradicts a chemical removes it",
    "noise": "noise tolerance on: up to {wrong_answers}",
}

CSS_FILE = Path(__file__).with_name("app.tcss")

#: seconds after the first question before the modules of the other screens are imported
WARM_UP_AFTER = 0.3
WARM_UP = (
    "responder.app.screens.scene",
    "responder.app.screens.symptom_search",
    "responder.app.screens.history",
    "responder.app.screens.result",
    "responder.app.screens.help",
    "responder.app.screens.browse",
    "responder.app.screens.export",
    "responder.app.screens.noise",
    "responder.app.screens.settings",
    "responder.app.screens.confirm",
    "responder.core.export",
    "responder.core.remaining",
)


def _interview_commands():
    from responder.app.commands import InterviewCommands  # noqa: PLC0415

    return InterviewCommands


def _enable_gc() -> None:
    import gc  # noqa: PLC0415

    gc.enable()


class ResponderApp(App):
    """Identify an unknown chemical, or its class, from victims' symptoms.

    Parameters
    ----------
    knowledge : KnowledgeBase
    settings : Settings
    unfinished : list of IncidentData
        Incidents to offer for resume before starting a new one.
    notices : list of (message, severity)
        Shown once the app is up (bad settings file, knowledge base fallback...).
    journal : bool
        Store incidents (always, except in a few unit tests).
    started_at : float or None
        ``time.perf_counter()`` when the command started, for the start-up benchmark.
    """

    CSS_PATH = str(CSS_FILE)
    COMMANDS = App.COMMANDS | {_interview_commands}
    TITLE = "responder"
    SUB_TITLE = "decision support, not a diagnosis"
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True, id="app.quit"),
    ]

    def __init__(
        self,
        knowledge: KnowledgeBase,
        settings: Settings | None = None,
        *,
        unfinished: list[IncidentData] | None = None,
        notices: list[tuple[str, str]] | None = None,
        journal: bool = True,
        started_at: float | None = None,
    ):
        super().__init__()
        self.knowledge = knowledge
        self.settings = settings or Settings()
        self.unfinished = list(unfinished or [])
        self.notices = list(notices or [])
        self.use_journal = journal
        self.interview: Interview | None = None
        self.started_at = started_at
        self.first_question_at: float | None = None
        self.interview_screen = None
        self._remaining_service = None
        #: published after every change to the interview, for screens that show it
        self.interview_changed: Signal[int] = Signal(self, "interview-changed")
        self._pending_notices: list[tuple[str, str]] = []
        #: the toasts shown over the answers panel: (message, severity, when it goes)
        self._toasts: list[tuple[str, str, float]] = []
        #: the "NOT saved" notices shown, taken down once everything is written, and the
        #: most changes they said were waiting
        self._unsaved_said: list[str] = []
        self._unsaved_most = 0
        #: the scene step opening a new interview is on its way or up
        self._scene_opening = False
        #: the notices of start-up, shown again in full once that scene step closes
        self._start_notices: list[tuple[str, str]] = []

    @property
    def remaining_service(self):
        """The helper process computing expected questions left (started on first use)."""
        if self._remaining_service is None:
            from responder.core.remaining import RemainingService  # noqa: PLC0415

            self._remaining_service = RemainingService()
        return self._remaining_service

    def on_unmount(self) -> None:
        if self._remaining_service is not None:
            self._remaining_service.close()

    # -- notices --------------------------------------------------------------------------

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: str = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A toast on the interview screen (over the answers panel); anywhere else (a
        dialog, the result, history or browse screen) the screen's status line says it.
        Plain text unless ``markup``: messages quote paths, error texts and names, whose
        brackets are no style ('[old]' vanished, '[/]' stopped the app)."""
        screen = self.screen if self.screen_stack else None
        if screen is not None and screen is self.interview_screen:
            seconds = self.NOTIFICATION_TIMEOUT if timeout is None else timeout
            self._toasts.append((message, severity, time.monotonic() + seconds))
            # broken at spaces as the toast would, a path only after a separator
            shown = wrap_message(message, self.toast_text_width())
            super().notify(shown, title=title, severity=severity, timeout=timeout, markup=markup)
            return
        here = screen if hasattr(screen, "show_notice") else None
        if isinstance(screen, ModalScreen) or here is None:
            here = self.interview_screen
        if here is None or not here.is_mounted:
            self._pending_notices.append((message, severity))  # once the interview is up
            return
        here.show_notice(message, severity, timeout)

    def toast_text_width(self) -> int:
        """The characters a line of a toast holds: app.tcss makes a toast 40% of the screen,
        36 to 60 columns, and Textual's toast takes a border and two padding columns."""
        return min(max(int(self.size.width * 0.4), 36), 60) - 3

    def _toasts_follow_the_screen(self, screen) -> None:
        """Another screen or a dialog opened: the toasts still showing over the interview's
        answers panel would be drawn over it (Textual shows every notification on the
        current screen), so they move to where that screen's notices go, for what is left of
        their time."""
        now = time.monotonic()
        live = [(m, sev, end - now) for m, sev, end in self._toasts if end > now]
        if screen is self.interview_screen:
            self._toasts = [(m, sev, now + left) for m, sev, left in live]
            return
        self._toasts = []
        if not live:
            return
        self.clear_notifications()

        def move() -> None:  # once the new screen is up to show them
            for message, severity, left in live:
                self.notify(message, severity=severity, timeout=left)

        self.call_after_refresh(move)

    def on_notify(self, event: Notify) -> None:
        """A toast is drawn when its message arrives, a moment after :meth:`notify` posted
        it on the interview screen. Should another screen or a dialog have opened meanwhile
        (the scene step, right after the notices of start-up), :meth:`_toasts_follow_the_screen`
        has moved it to where that screen's notices go already: it is not drawn over it too."""
        if self.screen_stack and self.screen is not self.interview_screen:
            event.prevent_default()  # Textual's own handler would draw it

    def _refresh_notifications(self) -> None:
        super()._refresh_notifications()
        self.call_later(self._show_newest_toast)  # once the toast rack has shown them

    def _unnotify(self, notification, refresh: bool = True) -> None:
        super()._unnotify(notification, refresh)
        self.call_later(self._show_newest_toast)  # the one before it shows again

    def _show_newest_toast(self) -> None:
        """Toasts that arrive together show one at a time, the newest, the others coming back
        as it goes: stacked, they would spill over the classes and the title above the
        answers panel."""
        if not self.screen_stack:
            return
        showing = {ToastRack._toast_id(n) for n in self._notifications}
        live = [holder for holder in self.screen.query("ToastHolder") if holder.id in showing]
        for holder in live:
            holder.display = holder is live[-1]

    # -- messages from the screens ---------------------------------------------------------

    def on_answer_given(self, message: messages.AnswerGiven) -> None:
        self.record_answer(message.query, message.answer, volunteered=message.volunteered)

    def on_answer_changed(self, message: messages.AnswerChanged) -> None:
        self.change_answer(message.query, message.answer, message.victim)

    def on_none_of_group(self, message: messages.NoneOfGroup) -> None:
        self.answer_group_none(message.group)

    def on_undo_requested(self, message: messages.UndoRequested) -> None:
        self.undo_last()

    def on_modes_change_requested(self, message: messages.ModesChangeRequested) -> None:
        self.change_modes(**message.changes)

    def on_victim_added(self, message: messages.VictimAdded) -> None:
        self.add_victim()

    def on_victim_removed(self, message: messages.VictimRemoved) -> None:
        self.remove_victim()

    def on_victim_selected(self, message: messages.VictimSelected) -> None:
        self.select_victim(message.victim)

    def on_screen_requested(self, message: messages.ScreenRequested) -> None:
        opener = {
            "scene": self.show_scene,
            "result": lambda: self.show_result(by_itself=message.argument == "auto"),
            "volunteer": lambda: self.action_volunteer(message.argument),
            "history": self.action_history,
            "noise": self.action_noise_settings,
            "browse": self.action_browse,
            "export": self.action_export,
            "new": self.action_new_interview,
            "settings": self.action_settings,
            "help": self.action_help,
        }[message.name]
        opener()

    # -- start-up -------------------------------------------------------------------------

    def on_mount(self) -> None:
        theme = self.settings.theme
        if theme in self.available_themes:
            self.theme = theme
        else:
            self.notices.append(
                (
                    f"theme {theme!r} is unknown; using textual-dark. Pick one "
                    "with ctrl+p → Theme.",
                    "warning",
                )
            )
        if self.settings.keys:
            from responder.app.keymap import check_keymap  # noqa: PLC0415
            from responder.app.screens.interview import InterviewScreen  # noqa: PLC0415

            keymap, problems = check_keymap(
                dict(self.settings.keys), [*self.BINDINGS, *InterviewScreen.BINDINGS]
            )
            for problem in problems:
                self.notices.append((f"[keys] setting not applied: {problem}", "error"))
            try:
                self.set_keymap(keymap)
            except Exception as exc:  # noqa: BLE001 (a bad keymap must not stop the app)
                self.notices.append((f"the [keys] settings were not applied: {exc}", "error"))
        self.theme_changed_signal.subscribe(self, self._on_theme_changed)
        self.screen_change_signal.subscribe(self, self._toasts_follow_the_screen, immediate=True)
        # the collector, off during start-up, comes back after the warm-up; at the latest here
        self.set_timer(WARM_UP_AFTER + 10, _enable_gc)
        if self.unfinished:
            from responder.app.screens.resume import ResumeScreen  # noqa: PLC0415

            self.push_screen(ResumeScreen(self.unfinished), self._after_resume_choice)
        else:
            self.start_new()

    def _show_notices(self) -> None:
        """The notices gathered before the interview screen was up, once it is; then whether
        the knowledge base's next steps can be shown (read after the first question)."""
        from responder.kb.next_steps import steps_for  # noqa: PLC0415

        problem = steps_for(self.knowledge).problem
        if problem:
            self.notices.append((problem, "warning"))
        waiting, self._pending_notices = [*self.notices, *self._pending_notices], []
        if self._scene_opening:
            self._start_notices = list(waiting)
        for message, severity in waiting:
            self._notify_start(message, severity)
        self.set_timer(WARM_UP_AFTER, self._warm_up)

    def _warm_up(self, left: tuple[str, ...] = WARM_UP) -> None:
        """Import what the other screens need, one module per idle moment, so that the first
        opening of each is as quick as the next; then keep the objects made so far out of
        the garbage collector's way (no long pauses between keys)."""
        if left:
            import importlib  # noqa: PLC0415

            importlib.import_module(left[0])
            self.set_timer(0.05, lambda: self._warm_up(left[1:]))
            return
        import gc  # noqa: PLC0415

        # No full collection first: over everything start-up made, it would hold a key back
        # for a tenth of a second or more; what little garbage there is stays.
        gc.freeze()
        gc.enable()  # off during start-up when started as the responder command

    def _reached_result(self, data: IncidentData) -> bool:
        try:
            interview, _ = Interview.resume(self.knowledge, data, write=False)  # read only
        except Exception:  # noqa: BLE001 (an incident that cannot be replayed is set aside)
            return False
        return interview.reached_result

    def _after_resume_choice(self, choice: IncidentData | None) -> None:
        if choice is None:
            # one that had reached a result is finished as completed, as ctrl+n would
            completed = {data.number for data in self.unfinished if self._reached_result(data)}
            try:
                set_aside(self.unfinished, completed=completed)  # one transaction for all
            except StoreError as exc:  # nothing is lost: offered again next time, as said
                n = len(self.unfinished)
                what = (
                    "The unfinished interview was"
                    if n == 1
                    else f"The {n} unfinished interviews were"
                )
                self.notices.append(
                    (f"{what} not set aside ({exc}); offered again at the next start.", "warning")
                )
            self.start_new()
            return
        try:
            interview, warnings = Interview.resume(self.knowledge, choice)
        except StoreError as exc:  # it went live in another window meanwhile
            self.notify(
                f"Not resumed: {exc}. A new interview starts here.", severity="error", timeout=15
            )
            self.start_new()
            return
        self._install(interview)
        asking = (
            f"; asking {interview.victim_label(interview.victim)}"
            if len(interview.victims) > 1
            else ""
        )
        self.notify(
            f"Resumed the interview of {choice.started_text} with "
            f"{counted(interview.answered, 'answer')}{asking}.",
            timeout=6,
        )
        for w in warnings:
            self.notify(w, severity="warning", timeout=15)

    def start_new(self) -> None:
        config = self.settings.interview
        try:
            interview = Interview.start(self.knowledge, config, journal=self.use_journal)
        except ConfigError as exc:
            self.notify(
                f"noise settings not used: {exc}; strict mode instead", severity="error", timeout=12
            )
            config = replace(config, mode="strict", noise=NoiseSettings())
            interview = Interview.start(self.knowledge, config, journal=self.use_journal)
        self._install(interview)
        if self.settings.scene_first and any(c.kind == "scene" for c in self.knowledge.categories):
            # A new incident starts with what was smelt, seen and going on (skippable).
            self._scene_opening = True
            self.call_after_refresh(self.show_scene)

    def _install(self, interview: Interview) -> None:
        from responder.app.screens.interview import InterviewScreen  # noqa: PLC0415

        self.interview = interview
        if self.interview_screen is None:
            self.interview_screen = InterviewScreen()
            self.push_screen(self.interview_screen)
            self.call_after_refresh(self._show_notices)
        else:
            while self.screen is not self.interview_screen and len(self.screen_stack) > 1:
                self.pop_screen()
            self.interview_screen._result_seen = None
            self.interview_screen.note = None
            self.interview_screen.refresh_view()
        if interview.journal_error:
            self.notify(
                f"Answers are NOT being saved: {interview.journal_error}",
                severity="error",
                timeout=30,
            )

    def first_question_shown(self) -> None:
        if self.first_question_at is None:
            self.first_question_at = time.perf_counter()

    # -- changes to the interview ---------------------------------------------------------

    def notify_unsaved(self, message: str, timeout: float) -> None:
        """An error notice that changes are not saved, taken down by :meth:`_said_saved`
        once they are."""
        self._unsaved_said.append(message)
        self._unsaved_most = max(self._unsaved_most, self.interview.unsaved)
        self.notify(message, severity="error", timeout=timeout)

    def _said_saved(self) -> None:
        """Everything is written again: the "NOT saved" notices still showing would say the
        opposite of what is so for the rest of their time; they go, and one line says the
        changes that were waiting are saved now."""
        it = self.interview
        if not self._unsaved_said or it is None or it.unsaved:
            return
        said, self._unsaved_said = set(self._unsaved_said), []
        unspaced = {"".join(m.split()) for m in said}  # as a toast shows it, wrapped
        for notification in list(self._notifications):
            if "".join(notification.message.split()) in unspaced:
                self._unnotify(notification)
        self._toasts = [t for t in self._toasts if t[0] not in said]
        screen = self.interview_screen
        if screen is not None and screen.notice_text in {" ".join(m.split()) for m in said}:
            screen.clear_notice()
        waiting, self._unsaved_most = self._unsaved_most, 0
        were, are = ("was", "is") if waiting == 1 else ("were", "are")
        self.notify(
            f"Saved: the {counted(waiting, 'change')} that {were} waiting {are} written now.",
            timeout=4,
        )

    def _redraw(self, **kwargs) -> None:
        self._said_saved()
        if self.interview_screen is not None and self.interview_screen.is_mounted:
            self.interview_screen.refresh_view(**kwargs)
        if self.interview is not None:
            self.interview_changed.publish(self.interview.generation)

    def record_answer(self, query: int, answer: Answer, volunteered: bool = False) -> None:
        it = self.interview
        it.answer(query, answer, volunteered=volunteered)
        self._say_displaced()
        if it.unsaved:
            self.notify_unsaved(
                f"Answer kept on screen but NOT saved ({counted(it.unsaved, 'change')} waiting; "
                f"retried with the next answer): {it.journal_error}",
                timeout=30,
            )
        # A class the answer lowered sharply is said on the status line, not in a
        # notification: those sit over the class bars, the very thing that changed.
        self.interview_screen.note = views.class_drop_note(it)
        self._redraw()

    def answer_group_none(self, group) -> None:
        """ "None of these" for an exclusive group: no to each member not yet answered."""
        self.interview.answer_none_of(group.members)
        self._redraw()

    def show_scene(self) -> None:
        """The scene step (smell, cloud, place...), one key per answer."""
        from responder.app.screens.scene import SceneScreen  # noqa: PLC0415

        if any(c.kind == "scene" for c in self.knowledge.categories):
            self.push_screen(SceneScreen(), lambda _: self._after_scene())
        else:
            self.notify("This knowledge base records no scene observations.", timeout=4)

    def _notify_start(self, message: str, severity: str) -> None:
        """A notice of start-up: a warning stays longer than information."""
        self.notify(message, severity=severity, timeout=12 if severity != "information" else 6)

    def _after_scene(self) -> None:
        self._redraw()
        self._scene_opening = False
        # Under the scene step the notices of start-up had the status line's one line, cut
        # at 80 columns and perhaps gone before the scene pages were: now they show in full.
        held, self._start_notices = self._start_notices, []
        if held:
            self.interview_screen.clear_notice()
        for message, severity in held:
            self._notify_start(message, severity)

    def add_victim(self) -> None:
        """A new victim of the same incident, up to the incident's limit; the scene stays
        shared. Keys 1-9 reach the first nine, the palette ("Ask victim 12") every one."""
        it = self.interview
        try:
            index = it.add_victim()
        except ValueError as exc:  # the incident holds as many victims as it can
            self.notify(
                f"No victim added: {str(exc).removeprefix('not added: ')}.",
                severity="warning",
                timeout=6,
            )
            return
        noted = ""
        if it.several_victims_noted is not None:
            label = it.knowledge.symptoms[it.several_victims_noted.query].label
            noted = f" {label}: yes (z takes it back)."
        switch = (
            "number keys switch victims"
            if index < 9
            else f'keys 1-9 reach the first nine, ctrl+p "Ask victim {index + 1}" this one'
        )
        self.notify(
            f"Victim {index + 1} added (- takes back one added by mistake): answers now go "
            f"to them. Scene answers are shared; {switch}.{noted}",
            timeout=5,
        )
        self._redraw()

    def remove_victim(self) -> None:
        """Take back the victim being asked, added by mistake; one message says why not
        when they have answers or another victim came after them."""
        it = self.interview
        try:
            removed = it.remove_victim()
        except ValueError as exc:
            self.notify(str(exc), severity="warning", timeout=10)
            self._redraw(auto_result=False)
            return
        self.notify(views.victim_removed_notice(it, removed), timeout=6)
        self._redraw(auto_result=False)

    def select_victim(self, victim: int) -> None:
        it = self.interview
        if victim >= len(it.victims):
            self.bell()
            return
        switched = victim != it.victim
        it.select_victim(victim)
        if switched and it.reads_one_victim:
            self.notify(f"{it.one_victim_notice(pooled_by='the evidence mode, v,')}.", timeout=5)
        self._redraw()

    def undo_last(self) -> None:
        record = self.interview.undo()
        if record is None:
            self.notify("There is no answer to undo.", timeout=3)
            return
        label = self.knowledge.symptoms[record.query].label
        it = self.interview
        whose = ""  # z takes back the incident's last answer, not always this victim's
        if len(it.victims) > 1:
            whose = "the scene's " if record.victim < 0 else f"{it.victim_label(record.victim)}'s "
        said = views.ANSWER_TEXT[record.answer]
        self.notify(f"Undone: {whose}{label} ({said}).", timeout=3)
        self._redraw(keep_selection=record.query, auto_result=False)

    def change_answer(self, query: int, answer: Answer | None, victim: int | None = None) -> None:
        """From the history: a new answer to ``query`` for ``victim`` (default: the one
        being asked), or None to remove it."""
        if answer is None:
            self.interview.remove(query, victim=victim)
        else:
            previous = self.interview.record_of(query, victim=victim)
            self.interview.answer(
                query,
                answer,
                volunteered=previous.volunteered if previous else False,
                victim=victim,
            )
            self._say_displaced()
        self._redraw(auto_result=False)

    def _say_displaced(self) -> None:
        notice = views.displaced_notice(self.interview)
        if notice:
            self.notify(notice, severity="warning", timeout=10)

    def change_modes(self, **changes) -> bool:
        """Change the interview's modes (``target``, ``suggest``, ``mode``, ``noise``);
        every answer is kept. Says what changed; False when the change is impossible."""
        it = self.interview
        before = it.config
        try:
            it.set_modes(**changes)
        except ConfigError as exc:
            self.notify(str(exc), severity="error", timeout=10)
            return False
        now = it.config
        parts = []
        if now.target != before.target:
            parts.append(f"target: {now.target}")
        if now.suggest != before.suggest:
            parts.append(f"suggest: one {now.suggest}")
        if now.mode != before.mode or (now.mode == "noise" and now.noise != before.noise):
            wrong = counted(it.eps_for(now.noise), "wrong answer")
            parts.append(MODE_SAID[now.mode].format(wrong_answers=wrong))
        message = "; ".join(parts) or "no change"
        if now.mode != before.mode and it.reads_one_victim:
            message += f". {it.one_victim_notice(pooled_by='the evidence mode, v,')}"
        n = it.answered
        saved = (
            ("All " if n > 1 else "")
            + f"{counted(n, 'answer')} kept"
            + (
                ""
                if not it.unsaved
                else f", but {counted(it.unsaved, 'change')} {'is' if it.unsaved == 1 else 'are'} NOT "
                f"saved ({it.journal_error}); retried "
                "with the next change"
            )
        )
        said = f"{message[0].upper()}{message[1:]}. {saved}."
        if it.unsaved:
            self.notify_unsaved(said, timeout=15)
        else:
            self.notify(said, timeout=4)
        if self.interview_screen is not None:
            self.interview_screen.note = None
            if now.mode == "noise" and it.eps_for(now.noise) > it.safe_eps:
                self.interview_screen.note = (
                    f"{counted(it.eps_for(now.noise), 'error')} > {it.safe_eps} safe: may end "
                    "with several"
                )
        self._redraw()
        return True

    # -- screens --------------------------------------------------------------------------

    def show_result(self, by_itself: bool = False) -> None:
        """The result screen; ``by_itself`` when it opens because the interview ended, not
        because the responder asked (keys typed just then are not taken on it)."""
        from responder.app.screens.result import ResultScreen  # noqa: PLC0415

        if views.result(self.interview) is None:
            return
        if isinstance(self.screen, ResultScreen):
            self.screen.refresh_view()
            return
        if self.screen is not self.interview_screen:
            return  # a dialog is open: the question panel says "result ready"
        self.push_screen(ResultScreen(opened_by_itself=by_itself))

    def action_volunteer(self, query: int | None = None) -> None:
        from responder.app.screens.symptom_search import SymptomSearchScreen  # noqa: PLC0415

        def done(result) -> None:
            if result:
                q, answer = result
                self.record_answer(q, answer, volunteered=True)  # the Answers panel shows it

        it = self.interview
        answers = {
            q: a for q in range(len(it.knowledge.symptoms)) if (a := it.answer_of(q)) is not None
        }
        search = SymptomSearchScreen(
            it.knowledge.symptoms,
            answers,
            query,
            victim=views.asked_victim(it),
            shared=views.shared_queries(it),
        )
        self.push_screen(search, done)

    def action_history(self) -> None:
        from responder.app.screens.history import HistoryScreen  # noqa: PLC0415

        self.push_screen(HistoryScreen())

    def action_noise_settings(self) -> None:
        from responder.app.screens.noise import NoiseScreen  # noqa: PLC0415

        def done(config: NoiseSettings | None) -> None:
            if config is not None:
                self.change_modes(noise=config, mode="noise" if config.enabled else "strict")

        self.push_screen(NoiseScreen(self.interview), done)

    def action_browse(self) -> None:
        from responder.app.screens.browse import BrowseScreen  # noqa: PLC0415

        self.push_screen(BrowseScreen(self.knowledge, views.ranks(self.interview)))

    def action_export(self) -> None:
        from responder.app.screens.export import ExportScreen  # noqa: PLC0415

        remaining = self.interview_screen.remaining if self.interview_screen else None

        def done(written) -> None:
            if written:
                from responder.app.widgets.notice import exported_notice  # noqa: PLC0415

                md, js = written
                # a toast over the interview, else the screen's status line
                width = self.toast_text_width() if self.screen is self.interview_screen else None
                self.notify(exported_notice(md, js, width), timeout=10)

        self.push_screen(ExportScreen(self.interview, remaining), done)

    def action_help(self) -> None:
        from responder.app.screens.help import HelpScreen  # noqa: PLC0415

        self.push_screen(HelpScreen())

    def action_settings(self) -> None:
        from responder.app.screens.settings import SettingsScreen  # noqa: PLC0415

        def done(settings: Settings | None) -> None:
            if settings is not None and self.save_settings(settings):
                if settings.theme != self.theme and settings.theme in self.available_themes:
                    self.theme = settings.theme

        current = self.interview.noise if self.interview is not None else None
        self.push_screen(SettingsScreen(self.settings, current), done)

    def action_new_interview(self) -> None:
        from responder.app.screens.confirm import ConfirmScreen  # noqa: PLC0415

        it = self.interview
        if it.answered == 0:
            self.notify("This interview has no answers yet.", timeout=3)
            return
        if it.unsaved:  # the dialog asks instead, offering to retry the write first
            self.ask_unsaved("start a new interview", self.new_interview)
            return

        def done(yes: bool | None) -> None:
            if yes:
                self.new_interview()

        self.push_screen(
            ConfirmScreen(
                "Start a new interview?",
                f"The current interview ({counted(it.answered, 'answer')}) stays saved as incident "
                f"{it.id}, finished: it is no longer offered to resume. Export it first with x "
                "if you need a report.",
            ),
            done,
        )

    def new_interview(self) -> None:
        it = self.interview
        # changes left unsaved were given up (the dialog's d): the end is not waited for
        it.end("completed" if it.reached_result else "new", patient=not it.unsaved)
        self.start_new()
        self.notify("New interview started.", timeout=3)

    def ask_unsaved(self, action: str, go_on) -> None:
        """Changes are not saved: ask before ``go_on()`` (quit, new interview), offering to
        retry the write; a retry that saves everything goes on at once."""
        from responder.app.screens.unsaved import UnsavedScreen  # noqa: PLC0415

        if isinstance(self.screen, UnsavedScreen):
            return  # already asking
        it = self.interview

        def retry() -> str | None:
            return None if it.save() else (it.journal_error or "not saved")

        def done(choice: str | None) -> None:
            if choice in ("saved", "discard"):
                go_on()
            else:
                self._redraw()

        self.push_screen(
            UnsavedScreen(
                action,
                retry,
                lambda: it.unsaved,
                it.journal_error or "",
                lambda: it.store_busy,
                lambda: it.store_file_limit,
            ),
            done,
        )

    # -- settings -------------------------------------------------------------------------

    def save_settings(self, settings: Settings) -> bool:
        try:
            path = save_settings(settings)
        except (OSError, SettingsError) as exc:
            self.notify(f"Settings not saved: {exc}", severity="error", timeout=10)
            return False
        self.settings = settings
        self.notify(f"Settings saved to {path}.", timeout=4)
        return True

    def _on_theme_changed(self, theme) -> None:
        name = getattr(theme, "name", None) or self.theme
        if name and name != self.settings.theme:
            try:
                save_settings(self.settings.with_changes(theme=name))
                self.settings = self.settings.with_changes(theme=name)
            except (OSError, SettingsError):
                pass

    # -- quitting -------------------------------------------------------------------------

    def _after_keys_in_flight(self, then) -> None:
        """Call ``then`` after the messages now waiting on the way a key takes: from the
        focused widget up through its containers to the screen, then the app."""
        hops = [self.screen]
        if self.focused is not None:
            hops = [n for n in self.focused.ancestors_with_self if n is not self][::-1]
        step = partial(self.call_later, then)
        for node in hops:  # the screen's turn, its containers', the focused widget's first
            step = partial(node.call_later, step)
        step()

    async def action_quit(self) -> None:
        # ctrl+q, a priority key, is taken before keys typed just ahead of it, which pass
        # through the focused widget and the screen and back to the app for their bindings,
        # and whose actions send their answers up the same way: quit after such round trips,
        # once those answers are recorded (waiting at most a second)
        self._quit_after_keys(time.monotonic() + QUIT_WAIT_SECONDS, rounds=QUIT_ROUND_TRIPS)

    def hang_up(self, signum: int) -> None:
        """The terminal closed (SIGHUP, or its input ended) or the system asked the app to
        stop (SIGTERM): no one is there to answer a dialog, so changes not yet written are
        tried once more and the app exits, putting the terminal back as ctrl+q does (the
        default ending left a terminal it was killed in without its screen, echo or cursor).
        Every answer shown was written when given; the incident stays open for a resume."""
        it = self.interview
        if it is not None and it.unsaved:
            it.save()
        self.exit(return_code=128 + signum)

    def _quit_after_keys(self, deadline: float, rounds: int = 0) -> None:
        if rounds:
            self._after_keys_in_flight(lambda: self._quit_after_keys(deadline, rounds - 1))
            return
        screen = self.interview_screen
        if screen is not None and screen.busy and time.monotonic() < deadline:
            self.set_timer(0.02, lambda: self._quit_after_keys(deadline))
            return
        form = self._settings_form_changed()
        if form is not None:
            self._ask_settings_before_quitting(form)
            return
        self._quit_unless_unsaved()

    def _quit_unless_unsaved(self) -> None:
        it = self.interview
        # quitting never finishes an incident, even on its result: a victim found later is
        # added to it after a resume; ctrl+n is how a responder finishes one
        if it is not None and it.unsaved:
            self.ask_unsaved("quit", lambda: self.exit(0))
            return
        self.exit(0)

    def _settings_form_changed(self):
        """The open settings form, when it holds changes not yet saved; else None."""
        from responder.app.screens.settings import SettingsScreen  # noqa: PLC0415

        for screen in reversed(self.screen_stack):
            if isinstance(screen, SettingsScreen) and screen.changed():
                return screen
        return None

    def _ask_settings_before_quitting(self, form) -> None:
        """Quitting over a settings form with changes: ask whether to save them first, so a
        change typed in is never dropped without a word (y saves, n quits without it)."""
        from responder.app.screens.confirm import ConfirmScreen  # noqa: PLC0415

        if isinstance(self.screen, ConfirmScreen):
            return  # already asking
        changed = form.read()

        def done(save: bool | None) -> None:
            if save:
                self.save_settings(changed)
            self._quit_unless_unsaved()

        self.push_screen(
            ConfirmScreen(
                "Save the settings you changed before quitting?",
                "y saves them for new interviews; n quits without them.",
            ),
            done,
        )
