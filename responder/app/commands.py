"""Command palette (ctrl+p): every interview action by name, and every symptom to answer."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from responder.app.search import rank_symptoms

# (title, help, method name on the app or the interview screen, argument)
ACTIONS = (
    ("Answer: yes", "The victim has the suggested symptom", "screen:answer", "yes"),
    ("Answer: no", "The victim does not have the suggested symptom", "screen:answer", "no"),
    (
        "Answer: can't tell",
        "Skip the suggested symptom; nobody is ruled out",
        "screen:answer",
        "unknown",
    ),
    (
        "Answer: none of these",
        "No to every value of the suggested sign's group (pupils of normal size)",
        "screen:answer_none",
        None,
    ),
    ("Undo last answer", "Remove the most recent answer", "screen:undo", None),
    (
        "Scene step",
        "What was smelt, seen and going on: smell, cloud, form, place, pattern, onset, route",
        "screen:scene",
        None,
    ),
    (
        "Add a victim",
        "Another victim of the same incident: answers now go to them; the scene stays shared",
        "screen:add_victim",
        None,
    ),
    (
        "Remove the victim added by mistake",
        "Only the victim added last, while they have no answers of their own",
        "screen:remove_victim",
        None,
    ),
    (
        "Volunteer a symptom",
        "Answer any symptom by typing part of its name",
        "app:action_volunteer",
        None,
    ),
    ("Answer history", "Change or remove any earlier answer", "app:action_history", None),
    (
        "Toggle target: chemical / class",
        "Identify the chemical, or only its class",
        "screen:toggle_target",
        None,
    ),
    (
        "Toggle suggestion: symptom / category",
        "Suggest one symptom, or a category of symptoms",
        "screen:toggle_suggest",
        None,
    ),
    (
        "Toggle answers count: evidence / strict",
        "Evidence: no answer rules a chemical out; strict: the paper's elimination",
        "screen:toggle_evidence",
        None,
    ),
    ("Toggle noise tolerance", "Allow some answers to be wrong", "screen:toggle_noise", None),
    (
        "Noise settings",
        "How many wrong answers, which symptoms, which model",
        "app:action_noise_settings",
        None,
    ),
    ("Show result", "The identified chemical, class or set", "screen:result", None),
    ("Browse knowledge base", "Chemicals and symptoms, with search", "app:action_browse", None),
    ("Export interview", "Markdown report and JSON with timestamps", "app:action_export", None),
    (
        "New interview",
        "Start again; the current interview stays saved as an incident",
        "app:action_new_interview",
        None,
    ),
    ("Settings", "Default modes, knowledge base, theme", "app:action_settings", None),
    ("Help", "Keys and what the screen shows", "app:action_help", None),
)


class InterviewCommands(Provider):
    """Interview actions, plus "Answer symptom: <label>" for every symptom."""

    def _run(self, target: str, arg) -> None:
        where, name = target.split(":")
        app = self.app
        if where == "app":
            getattr(app, name)()
            return
        screen = app.interview_screen
        if screen is None:
            return
        method = getattr(screen, f"action_{name}")
        if arg is None:
            method()
        else:
            method(arg)

    def _available(self) -> bool:
        return getattr(self.app, "interview", None) is not None and self.screen is getattr(
            self.app, "interview_screen", None
        )

    def _actions(self) -> list[tuple[str, str, str, object]]:
        """:data:`ACTIONS`, then one entry per victim of the incident to turn to: keys 1-9
        reach the first nine, and + (or the protocol) adds up to the incident's limit."""
        it = self.app.interview
        victims = [
            (
                f"Ask victim {v + 1}" + (f" ({name})" if name else ""),
                f"Answers now go to {it.victim_label(v)}" + (f" (key {v + 1})" if v < 9 else ""),
                "screen:select_victim",
                v,
            )
            for v, name in enumerate(it.victims)
        ]
        return [*ACTIONS, *(victims if len(victims) > 1 else [])]

    async def discover(self) -> Hits:
        if not self._available():
            return
        for title, help_text, target, arg in self._actions():
            yield DiscoveryHit(title, partial(self._run, target, arg), help=help_text)

    async def search(self, query: str) -> Hits:
        if not self._available():
            return
        matcher = self.matcher(query)
        for title, help_text, target, arg in self._actions():
            score = matcher.match(title)
            if score > 0:
                yield Hit(
                    score, matcher.highlight(title), partial(self._run, target, arg), help=help_text
                )
        # the same ranking as `/` (label, synonyms and old ids), on the words after an
        # optional "answer symptom" typed to narrow the list to symptoms
        words = query.strip()
        for prefix in ("answer symptom:", "answer symptom", "answer:", "answer"):
            if words.casefold().startswith(prefix) and len(words) > len(prefix):
                words = words[len(prefix) :].strip()
                matcher = self.matcher(words)
                break
        for m in rank_symptoms(self.app.knowledge.symptoms, words, matcher=matcher):
            s = m.symptom
            title = f"Answer symptom: {s.label}"
            via = f" (matched “{m.via}”)" if m.via else ""
            yield Hit(
                m.score * 0.9,
                title,
                partial(self.app.action_volunteer, s.index),
                help=f"{s.category_label}{via}. {s.check}",
            )
