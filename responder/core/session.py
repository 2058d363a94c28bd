"""One interview, headless: answers, modes, noise tolerance and its record in the incident
database.

:class:`Interview` wraps the engine's :class:`~responder.engine.state.InterviewState` with the
app's vocabulary (target "chemical" or "class", suggestion "symptom" or "category", noise
tolerance) and writes every change to the incident database
(:mod:`responder.core.store`) before returning. What the screens show
is built from it by the pure functions of :mod:`responder.core.views`, so the whole
interview can be driven and tested without a terminal.
"""

from __future__ import annotations

import time
import unicodedata
from contextlib import nullcontext
from dataclasses import replace

from responder.config import ConfigError, InterviewConfig, NoiseSettings
from responder.core.answers import AnswerLog, AnswerRecord
from responder.core.counted import counted
from responder.core.modes import exclusive_groups, state_for
from responder.core.percent import percent
from responder.core.store import (
    HeldAtFileLimit,
    IncidentData,
    IncidentLog,
    StoreError,
    held_at_file_limit,
    new_incident_id,
    short_waits,
)
from responder.engine.diagnostics import auto_eps, default_eps, min_hamming_distance
from responder.engine.evidence import EvidenceSettings
from responder.engine.noise import NoiseSettingsError
from responder.engine.state import Answer, Status
from responder.kb.model import ChemicalClass, KnowledgeBase

ANSWER_WORDS = {Answer.YES: "yes", Answer.NO: "no", Answer.UNKNOWN: "can't tell"}
#: A victim's name is a short label a responder types ("driver", "child in red").
MAX_VICTIM_NAME = 40
#: Victims one incident holds: the app's + adds up to this many (keys 1-9 switch to the
#: first nine, the palette to every one), as the protocol names. Each protocol reply lists
#: every victim, so a run of N victims writes N^2 of them: 100 take about 2.5 s.
MAX_VICTIMS = 100
#: The scene observation a second victim settles: several people fell ill.
SEVERAL_VICTIMS = "pattern_several_victims"


# -- the interview ---------------------------------------------------------------------------


def clean_victim_name(name: str) -> str:
    """A victim's name with its whitespace collapsed, in one Unicode form (NFC: 'é' one
    character, however it was typed); ValueError when it is too long or holds control
    characters."""
    name = unicodedata.normalize("NFC", " ".join(str(name).split()))
    if len(name) > MAX_VICTIM_NAME or not name.isprintable():
        raise ValueError(
            f"a victim's name is a short label of at most {MAX_VICTIM_NAME} printable characters"
        )
    return name


class Interview:
    """One incident's interview: the engine state plus modes, victims, labels and its record
    in the incident database.

    Parameters
    ----------
    knowledge : KnowledgeBase
    config : InterviewConfig, optional
        Target, suggestion mode and answer model (evidence by default).
    incident : IncidentLog or None
        Where every change is written; None keeps the interview in memory only (tests).
    """

    def __init__(
        self,
        knowledge: KnowledgeBase,
        config: InterviewConfig | None = None,
        incident: IncidentLog | None = None,
    ):
        self.knowledge = knowledge
        self.problem = knowledge.problem
        self.config = config or InterviewConfig()
        self.incident = incident
        self.journal_enabled = incident is not None  # whether changes are stored at all
        self.journal_error: str | None = None  # why the last write failed, if it did
        # another program held the database at the last write: later automatic writes
        # only glance at it (store.short_waits) until one succeeds or the user retries
        self._store_busy = False
        # the file-size limit (ulimit -f) stopped the last write: no retry here can pass it
        self._store_file_limit = False
        self.started = time.time()
        self._id = new_incident_id(self.started)
        self._delta: int | None = None
        self.state = state_for(knowledge, self.config)
        self.log = AnswerLog(self.state)  # the answers with their times, and undo
        self.victims: list[str] = [""]  # names by index; the first victim needs none
        self.generation = 0  # bumped on every change, to drop stale background results
        #: the earlier answers the last answer took out, contradicting them
        self.displaced: list[AnswerRecord] = []
        #: id of an answer -> (it, the answers it took out), put back when it is undone
        self._took_out: dict[int, tuple[AnswerRecord, list[AnswerRecord]]] = {}
        # the "several victims" answer the last added victim recorded, for the screens to say
        self.several_victims_noted: AnswerRecord | None = None
        # the responder took "several victims" back (z or removing it): no victim added later
        # answers it again
        self.several_victims_taken_back = False

    # -- construction ---------------------------------------------------------------------

    @property
    def target(self) -> str:
        return self.config.target

    @property
    def suggest(self) -> str:
        return self.config.suggest

    @property
    def noise(self) -> NoiseSettings:
        return self.config.noise

    @property
    def evidence(self) -> EvidenceSettings:
        """The evidence settings in force (given, else the knowledge base's fitted ones)."""
        return self.config.resolved_evidence(self.knowledge.answer_model, self.state_leaks())

    @property
    def mode(self) -> str:
        """The answer mode: ``"evidence"``, ``"strict"`` or ``"noise"``."""
        return self.state.mode

    @classmethod
    def start(
        cls, knowledge: KnowledgeBase, config: InterviewConfig, journal: bool = True
    ) -> Interview:
        """A new interview, stored as an incident from its first answer on (so starting the
        app and leaving writes nothing); write errors are kept in ``journal_error``."""
        interview = cls(knowledge, config)
        interview.journal_enabled = journal
        return interview

    @classmethod
    def resume(
        cls, knowledge: KnowledgeBase, data: IncidentData, write: bool = True
    ) -> tuple[Interview, list[str]]:
        """Rebuild an interview from a stored incident; returns it and warnings to show.

        ``write`` False gives a read-only preview (nothing written, no lock).

        Raises
        ------
        StoreError
            The incident is live in another responder window.
        """
        warnings: list[str] = []
        config = _stored_config(data.config, warnings, from_journal=data.imported_from is not None)
        if config.noise.prone is not None:
            known = tuple(s for s in config.noise.prone if knowledge.symptom_index(s) is not None)
            config = replace(config, noise=replace(config.noise, prone=known or None))
        if data.kb.get("digest") and knowledge.digest and data.kb.get("digest") != knowledge.digest:
            warnings.append(
                f"this interview was started on knowledge base {data.kb.get('name', '?')!r} "
                f"({data.kb.get('chemicals', '?')} chemicals); it is now resumed on "
                f"{knowledge.name!r} ({len(knowledge.chemicals)} chemicals), which has changed"
            )
        try:
            interview = cls(knowledge, config)
        except (ConfigError, NoiseSettingsError) as exc:
            warnings.append(f"the saved noise settings do not fit ({exc}); the noise mode is off")
            interview = cls(knowledge, replace(config, mode="strict", noise=NoiseSettings()))
        made: dict[int, AnswerRecord] = {}  # id(StoredAnswer) -> its record
        lost: list[str] = []

        def record(a) -> AnswerRecord | None:
            if id(a) not in made:
                j = knowledge.symptom_index(a.symptom)
                if j is None:
                    return None
                made[id(a)] = AnswerRecord(j, Answer(a.answer), a.at, a.volunteered, a.victim)
            return made[id(a)]

        records = []
        for a in data.answers:
            r = record(a)
            if r is None:
                lost.append(a.symptom)
            else:
                records.append(r)
        if lost:
            warnings.append(
                f"{counted(len(lost), 'answer')} {'names a symptom' if len(lost) == 1 else 'name symptoms'} this knowledge base lacks "
                f"({', '.join(lost)}); they stay stored with the incident but cannot be used"
            )
        n_victims = max([0, *data.victims, *(r.victim for r in records)]) + 1
        interview.victims = [data.victims.get(v, "") for v in range(n_victims)]
        while interview.state.n_victims < n_victims:
            interview.state.add_victim()
        interview.state.select_victim(min(data.current_victim, n_victims - 1))
        interview.log.restore(records, _replacements(data, record))
        for new, taken in data.took_out:  # so that z after the resume puts them back too
            rn, olds = record(new), [r for old in taken if (r := record(old)) is not None]
            if rn is not None and olds:
                interview._took_out[id(rn)] = (rn, olds)
        several = knowledge.symptom_index(SEVERAL_VICTIMS)
        # a second victim answered it when added: unanswered and not implied, it was taken back
        interview.several_victims_taken_back = (
            several is not None
            and n_victims > 1
            and interview.answer_of(several) is None
            and not interview.state.is_implied(several)
        )
        interview.started = data.started
        interview._id = data.id
        interview.incident = IncidentLog.reopen(data) if write else None
        interview.journal_enabled = write
        return interview, warnings

    # -- storage --------------------------------------------------------------------------

    def stored_config(self) -> dict:
        """The modes as the incident database keeps them (:meth:`InterviewConfig.to_dict`)."""
        return self.config.to_dict()

    def _log(self, fn, config_only: bool = False, patient: bool = False) -> None:
        """Store one change. The incident is created with the first answer, and then holds
        every answer so far (also after an earlier failure to create it). While another
        program holds the database, a change is kept in memory at once rather than waited
        for on every answer; ``patient`` (the user's retry, the end of input) waits the
        full busy timeout again."""
        quick = self._store_busy and not patient
        # the file-size limit stopped the last write: later automatic writes are not tried
        # while the database's files still stand at it (each would try every change waiting,
        # to fail again), only once they no longer do, or by the user's retry
        hold = self._store_file_limit and not patient
        try:
            with (
                short_waits() if quick else nullcontext(),
                held_at_file_limit() if hold else nullcontext(),
            ):
                self._write(fn, config_only)
            self.journal_error = None
            self._store_busy = self._store_file_limit = False
        except StoreError as exc:
            if isinstance(exc, HeldAtFileLimit) and self.journal_error:
                return  # not tried: the first try's message stands
            if not (quick and exc.busy and self.journal_error):
                self.journal_error = str(exc)  # else the first try's message, its full wait
            self._store_busy = exc.busy
            self._store_file_limit = exc.file_limit

    def _write(self, fn, config_only: bool) -> None:
        """Create the incident (with every answer so far) or write one change."""
        if self.incident is None:
            if not self.journal_enabled or config_only or not self.records:
                return  # nothing to keep yet; the incident will carry the modes
            self.incident = IncidentLog.create(
                self.knowledge.describe(),
                self.stored_config(),
                self._id,
                self.started,
                victims=self.victims,
                current_victim=self.victim,
                answers=[
                    (
                        self.knowledge.symptoms[r.query].id,
                        r.answer.value,
                        r.at,
                        r.volunteered,
                        r.victim,
                    )
                    for r in self.records
                ],
            )
        else:
            fn()

    def save(self) -> bool:
        """Try again to write what is not saved yet, waiting the full busy timeout (the
        user's retry, the end of input); True when nothing is left unsaved."""
        self._log(lambda: self.incident.flush(), patient=True)
        return self.unsaved == 0

    @property
    def store_busy(self) -> bool:
        """The last write failed because another program held the incident database (an
        sqlite3 shell, a backup): closing it, not freeing disk space, lets a retry work."""
        return self._store_busy and self.unsaved > 0

    @property
    def store_file_limit(self) -> bool:
        """The last write failed because this process's file-size limit (``ulimit -f``)
        stopped it: no retry in this process can write the changes; an export keeps them,
        and responder started under a larger limit can store them."""
        return self._store_file_limit and self.unsaved > 0

    @property
    def unsaved(self) -> int:
        """Changes not yet on disk: pending events, or every answer while the incident could
        not be created. 0 means everything shown is saved."""
        if not self.journal_enabled:
            return 0
        if self.incident is None:
            return len(self.records)
        return len(self.incident.pending)

    @property
    def id(self) -> str:
        return self.incident.id if self.incident else self._id

    def end(self, reason: str, patient: bool = True) -> None:
        """Mark the incident ended (``completed``, ``new``); once that is saved, its lock and
        connection are released. The last write of an interview, so it waits the full busy
        timeout as the user's retry does, also after an answer found the file held; not
        ``patient`` when the responder chose to go on without the unsaved changes."""
        if self.incident is not None:
            self._log(lambda: self.incident.end(reason), patient=patient)
            if not self.unsaved:
                self.incident.close()

    # -- victims --------------------------------------------------------------------------

    @property
    def victim(self) -> int:
        """The victim being asked (0 for the first)."""
        return self.state.current_victim

    def victim_label(self, victim: int) -> str:
        """``"Victim 2"``, or ``"Victim 2 (driver)"`` when named."""
        name = self.victims[victim]
        return f"Victim {victim + 1}" + (f" ({name})" if name else "")

    def add_victim(self, name: str = "") -> int:
        """Add a victim (with an optional short name) and ask them from now on; returns
        their index. The incident's answers (the scene) stay shared.

        Raises
        ------
        ValueError
            A name that is too long or holds control characters, or an incident that
            already holds MAX_VICTIMS victims.
        """
        name = clean_victim_name(name)
        if len(self.victims) >= MAX_VICTIMS:
            raise ValueError(f"not added: an incident holds {MAX_VICTIMS} victims at most")
        index = self.state.add_victim()
        self.victims.append(name)
        self._log(lambda: self.incident.victim(index, name), config_only=not self.records)
        self.generation += 1
        self.several_victims_noted = self._note_several_victims()
        return index

    def own_answers(self, victim: int) -> int:
        """How many answers ``victim`` has of their own (the scene's not counted)."""
        return sum(1 for r in self.records if r.victim == victim)

    def why_not_removable(self) -> str | None:
        """Why the victim being asked cannot be taken back as added by mistake; None when
        they can. Only the victim added last, with no answers of their own, can be: so no
        other victim's number changes, and nothing entered is deleted."""
        v, last = self.victim, len(self.victims) - 1
        if last == 0:
            return f"{self.victim_label(v)} is the only victim: there is no victim to remove."
        own = self.own_answers(v)
        if own:
            return (
                f"{self.victim_label(v)} has {counted(own, 'answer')} and is not removed: only "
                "a victim with no answers can be. To take answers back, press z (the last "
                "answer) or h (any answer; d removes it)."
            )
        if v != last:
            return (
                f"{self.victim_label(v)} is not removed: only the victim added last, "
                f"{self.victim_label(last)}, can be, so that no other victim's number changes."
            )
        return None

    def remove_victim(self) -> int:
        """Take back the victim being asked, added last and with no answers of their own
        (``+`` pressed once too often); the victim before them is asked from now on.
        Stored, so a resume shows the same victims. Returns the removed index.

        Raises
        ------
        ValueError
            The victim cannot be removed; the message says why (:meth:`why_not_removable`).
        """
        why = self.why_not_removable()
        if why is not None:
            raise ValueError(why)
        removed = self.victim
        self.victims.pop()
        self._rebuild_state(asking=removed - 1)
        self._log(lambda: self.incident.remove_victim(removed), config_only=True)
        self._log_current_victim()
        self.several_victims_noted = None
        self.generation += 1
        return removed

    def _rebuild_state(self, asking: int) -> None:
        """A fresh engine state for :attr:`victims` with every answer (the engine adds
        victims but never takes one back), asking ``asking``."""
        state = state_for(self.knowledge, self.config)
        while state.n_victims < len(self.victims):
            state.add_victim()
        state.select_victim(asking)
        log = AnswerLog(state)
        log.restore(list(self.records), self.log.replacements())
        self.state, self.log = state, log

    def _note_several_victims(self) -> AnswerRecord | None:
        """A second victim means several fell ill: the incident's "several victims" is
        answered yes, as evidence like any answer (undo takes it back), unless the
        knowledge base has no such observation, or it is answered already, or implied by
        another answer (rescuers fell ill), which already counts for it."""
        query = self.knowledge.symptom_index(SEVERAL_VICTIMS)
        if query is None or self.several_victims_taken_back or self.answer_of(query) is not None:
            return None
        return self.answer(query, Answer.YES)

    def name_victim(self, victim: int, name: str) -> None:
        """Give ``victim`` a short name (or change it); stored like a new victim's.

        Raises
        ------
        ValueError
            A name that is too long or holds control characters.
        IndexError
            A victim that does not exist.
        """
        name = clean_victim_name(name)
        self.victims[victim] = name
        self._log(lambda: self.incident.victim(victim, name), config_only=not self.records)
        if victim != self.victim:  # the last victim event stored names the one being asked
            self._log_current_victim()
        self.generation += 1

    def select_victim(self, victim: int) -> None:
        """Ask ``victim`` from now on, and store it so that a resume comes back to them.
        Raises IndexError for a victim that does not exist."""
        if victim == self.victim:
            return
        self.state.select_victim(victim)
        self._log_current_victim()
        self.generation += 1

    def _log_current_victim(self) -> None:
        v = self.victim
        self._log(lambda: self.incident.victim(v, self.victims[v]), config_only=True)

    # -- answers --------------------------------------------------------------------------

    @property
    def records(self) -> list[AnswerRecord]:
        """Every victim's answers in the order given, with their times (a changed answer
        moves to the end)."""
        return self.log.records

    def victim_records(self, victim: int | None = None) -> list[AnswerRecord]:
        """The answers of ``victim`` (default: the current one) and the incident's."""
        v = self.victim if victim is None else victim
        return [r for r in self.log.records if r.victim in (v, -1)]

    def answer(
        self,
        query: int,
        answer: Answer | str,
        volunteered: bool = False,
        at: float | None = None,
        victim: int | None = None,
    ) -> AnswerRecord:
        """Record an answer for ``victim`` (default: the current one; a query answered once
        per incident is the incident's), now or at ``at``, and store it before returning; the
        answer it already has is not recorded again (its record is returned)."""
        answer = Answer(answer)
        if victim is None:
            victim = self.victim
        if self.state.is_shared(query):
            victim = -1
        previous = self.log.record_of(query, victim=victim)
        if previous is not None and previous.answer is answer:
            self.displaced = []
            return previous  # the same answer again changes nothing, and logs no change
        # the newer answer wins over one it contradicts (a second look at the pupils), which
        # is taken out: it now follows from this one, as if asked together
        contradicted = self.state.contradicted_by(
            query, answer, victim=self.state.current_victim if victim < 0 else victim
        )
        if victim < 0:  # the incident's answer takes out only the incident's
            contradicted = [q for q in contradicted if self.state.is_shared(q)]
        self.displaced = [
            r for q in contradicted if (r := self._remove(q, victim, contradicted=True))
        ]
        record = self.log.answer(query, answer, volunteered=volunteered, at=at, victim=victim)
        self._log_answer(record)
        if self.displaced:
            self._took_out[id(record)] = (record, self.displaced)
        self.generation += 1
        return record

    def _log_answer(self, record: AnswerRecord) -> None:
        """Store ``record``, an answer just given or put back."""
        self._log(
            lambda: self.incident.answer(
                self.knowledge.symptoms[record.query].id,
                record.answer.value,
                record.at,
                record.volunteered,
                record.victim,
            )
        )

    def undo(self) -> AnswerRecord | None:
        """Take back the last answer given, whichever victim it was for."""
        self.displaced = []
        record = self.log.undo()
        if record is not None:
            self._note_taken_back(record)
            self._log(
                lambda: self.incident.undo(self.knowledge.symptoms[record.query].id, record.victim)
            )
            took, taken = self._took_out.pop(id(record), (None, []))
            for old in taken if took is record else []:  # what it took out comes back
                back = self.log.answer(
                    old.query, old.answer, volunteered=old.volunteered, at=old.at, victim=old.victim
                )
                self._log_answer(back)
            self.generation += 1
        return record

    def remove(self, query: int, victim: int | None = None) -> AnswerRecord | None:
        self.displaced = []
        record = self._remove(query, victim)
        if record is not None:
            self._note_taken_back(record)
        return record

    def _remove(
        self, query: int, victim: int | None, contradicted: bool = False
    ) -> AnswerRecord | None:
        v = -1 if self.state.is_shared(query) else (self.victim if victim is None else victim)
        record = self.log.remove(query, victim=v)
        if record is not None:
            sid = self.knowledge.symptoms[query].id
            self._log(lambda: self.incident.remove(sid, v, contradicted=contradicted))
            self.generation += 1
        return record

    def _note_taken_back(self, record: AnswerRecord) -> None:
        if record.query == self.knowledge.symptom_index(SEVERAL_VICTIMS):
            self.several_victims_taken_back = True

    def answer_none_of(self, members) -> list[AnswerRecord]:
        """ "None of these" for an exclusive group (pupils of normal size): "no" to each of
        ``members`` (symptom ids) the current victim has not answered; returns the records."""
        records = []
        for sid in members:
            q = self.knowledge.symptom_index(sid)
            if self.record_of(q) is None:
                records.append(self.answer(q, Answer.NO))
        return records

    def record_of(self, query: int, victim: int | None = None) -> AnswerRecord | None:
        """The answer given to ``query`` (with its time and volunteered flag), or None."""
        v = -1 if self.state.is_shared(query) else (self.victim if victim is None else victim)
        return self.log.record_of(query, victim=v)

    def answer_of(self, query: int) -> Answer | None:
        """The current victim's answer to ``query``, given or implied."""
        return self.state.answer_of(query)

    # -- modes ----------------------------------------------------------------------------

    @property
    def policy_name(self) -> str:
        return self.config.policy

    def set_config(self, config: InterviewConfig) -> None:
        """Change the modes; every answer is kept.

        Raises
        ------
        ConfigError
            Settings this knowledge base cannot take (nothing is changed then).
        """
        self.state.configure(
            target=config.engine_target,
            policy=config.policy,
            noise=config.noise_model(self.problem),
            evidence=config.evidence_settings(self.knowledge.answer_model, self.state_leaks()),
        )
        self.config = config
        self._log(lambda: self.incident.config(self.stored_config()), config_only=True)
        self.generation += 1

    def set_modes(self, **changes) -> None:
        """:meth:`set_config` with some fields changed (``target``, ``suggest``, ``mode``,
        ``noise``, ``evidence``)."""
        self.set_config(self.config.with_changes(**changes))

    def state_leaks(self):
        from responder.config import symptom_leaks  # noqa: PLC0415

        return symptom_leaks(self.knowledge)

    @property
    def delta(self) -> int:
        """Minimum Hamming distance between distinct chemical profiles."""
        if self._delta is None:
            self._delta = min_hamming_distance(self.problem.matrix)
        return self._delta

    @property
    def safe_eps(self) -> int:
        """floor((delta - 1) / 2): wrong answers the data can always absorb uniquely."""
        return default_eps(self.delta)

    def eps_for(self, noise: NoiseSettings) -> int:
        """Wrong answers ``noise`` tolerates on this knowledge base ("auto" resolved)."""
        return auto_eps(self.delta) if noise.eps is None else noise.eps

    # -- state the views read -------------------------------------------------------------

    @property
    def status(self) -> Status:
        return self.state.status

    @property
    def asked(self) -> int:
        """Answers of the victim being asked, the incident's (the scene) included: the
        status line's "Asked"; :attr:`answered` counts the whole incident's."""
        return self.state.asked_count

    @property
    def answered(self) -> int:
        """Every answer of the incident, every victim's and the incident's: what undo, a new
        interview and a resumed one go by."""
        return len(self.records)

    @property
    def reached_result(self) -> bool:
        """True once answers have led to a result (one chemical or group, or several no
        question separates): only then is the incident stored as completed; otherwise it
        stays unfinished and can be resumed."""
        return bool(self.answered) and self.status in (
            Status.IDENTIFIED,
            Status.INDISTINGUISHABLE,
        )

    @property
    def ranked_on(self) -> int:
        """The answers the ranking rests on, as the result and the export count them: every
        victim's in the evidence mode, which pools them; in the strict and noise modes, which
        read the victim being asked (the paper's models), that victim's and the incident's."""
        return self.answered if self.mode == "evidence" else self.asked

    @property
    def reads_one_victim(self) -> bool:
        """Whether the ranking reads one victim of several: the strict and noise modes are
        the paper's single-victim models, and read the victim being asked and the incident's
        answers; the other victims' answers are kept but not used."""
        return self.mode != "evidence" and len(self.victims) > 1

    def one_victim_notice(
        self, label: str | None = None, pooled_by: str = "the evidence mode"
    ) -> str:
        """What :attr:`reads_one_victim` means, naming the victim read (``label``, default
        the victim being asked's label) and what pools every victim (``pooled_by``); ""
        when every victim's answers count."""
        if not self.reads_one_victim:
            return ""
        mode = "Strict mode" if self.mode == "strict" else "Noise tolerance"
        label = label or self.victim_label(self.victim)
        return (
            f"{mode} reads one victim, {label}: their answers and the scene's count; the "
            f"other victims' answers are kept but not used ({pooled_by} pools them all)"
        )

    def memo(self, key: str, compute):
        """Cache a view until the next change (every change bumps ``generation``)."""
        cache = self.__dict__.setdefault("_views", {})
        if cache.get("_generation") != self.generation:
            cache.clear()
            cache["_generation"] = self.generation
        if key not in cache:
            cache[key] = compute()
        return cache[key]

    @property
    def noise_tolerated(self) -> bool:
        """Whether wrong answers are tolerated now (noise mode on)."""
        return self.state.noise is not None

    def noise_budget(self) -> tuple[int, int] | None:
        """(wrong answers assumed so far by the best candidate, tolerated); None if off."""
        if self.state.noise is None:
            return None
        used = self.state.noise_budget_used()
        return (used if used is not None else 0), self.state.noise.eps_eff

    def contradicted(self, objects: tuple[int, ...]) -> list[int]:
        """Queries whose yes/no answer contradicts the profile of ``objects[0]``."""
        row = self.problem.matrix[objects[0]]
        return [
            r.query
            for r in self.state.answers
            if not r.implied
            and r.answer is not Answer.UNKNOWN
            and bool(row[r.query]) != (r.answer is Answer.YES)
        ]

    def describe_modes(self) -> dict:
        noise = self.noise_budget()
        return {
            "target": self.target,
            "suggest": self.suggest,
            "policy": self.policy_name,
            "mode": self.mode,
            "evidence": None if self.state.evidence is None else self.state.evidence.describe(),
            "noise": self.noise.to_dict() | ({"eps_effective": noise[1]} if noise else {}),
        }

    def confidence(self) -> float:
        """Probability of the top candidate (chemical target) or class (class target)."""
        return self.state.confidence()

    def class_drops(self) -> list[tuple[ChemicalClass, float, float]]:
        """(class, chance before, chance after) for each class the last answer lowered
        sharply (evidence mode)."""
        return [(self.knowledge.classes[g], b, a) for g, b, a in self.state.group_drops()]

    def class_notices(self) -> list[str]:
        """One line per class the last answer lowered sharply (evidence mode)."""
        drops = self.class_drops()
        if not drops:
            return []
        said = self.last_answer_said()
        return [
            f"{said} lowered {cls.label} from {percent(b)} to {percent(a)}" for cls, b, a in drops
        ]

    def last_answer_said(self) -> str:
        """The last answer as the notices quote it: “Drooling: yes”."""
        r = self.records[-1]
        return f"\u201c{self.knowledge.symptoms[r.query].label}: {ANSWER_WORDS[r.answer]}\u201d"

    # -- expected questions (slow: computed away from the screen) --------------------------

    def remaining_spec(self):
        """(generation, Spec) for E[K] from the current answers; see
        :mod:`responder.core.remaining`. Compare the generation to drop stale results."""
        from responder.core.remaining import Spec  # noqa: PLC0415

        known, skipped = self.state.known_answers()
        evidence = self.mode == "evidence"
        spec = Spec(
            self.problem,
            self.config.engine_target,
            self.policy_name,
            self.state.noise,
            known,
            tuple(skipped),
            self.state.fork() if evidence else None,
            exclusive_groups(self.knowledge) if evidence else None,
        )
        return self.generation, spec

    @property
    def remaining_is_cheap(self) -> bool:
        """Exact single-symptom trees without noise take milliseconds."""
        return self.suggest == "symptom" and self.mode == "strict"


def _stored_config(stored: dict, warnings: list[str], from_journal: bool) -> InterviewConfig:
    """The modes an incident recorded, validated; impossible ones are reported in
    ``warnings`` and replaced by the defaults, never taken as something else silently.
    An incident the database recorded keeps only the settings the user gave, so it resumes
    on the knowledge base's defaults like a new interview; ``from_journal`` marks one
    imported from an older journal file, read as the version that wrote it ran."""
    data = {k: stored[k] for k in InterviewConfig.KEYS if k in stored}
    # interviews from before the evidence mode were strict (or noise): keep their meaning
    data.setdefault("mode", "strict")
    evidence = data.get("evidence")
    if evidence is None and from_journal and data.get("mode") == "evidence":
        evidence = {}  # a journal on the knowledge base's settings: pinned below all the same
    if isinstance(evidence, dict):
        evidence = {k: v for k, v in evidence.items() if k in EvidenceSettings.KEYS}
        if from_journal and data.get("mode") == "evidence":
            # journals from before the long-row discount, the textbook presentation and the
            # route views ran without them: keep their meaning
            evidence.setdefault("long_row_exponent", 0.0)
            evidence.setdefault("textbook_share", 0.0)
            evidence.setdefault("several_routes_share", 1.0)
        data["evidence"] = evidence
    try:
        return InterviewConfig.from_dict(data)
    except ConfigError as exc:
        default = InterviewConfig()
        warnings.append(
            f"the saved modes could not be restored ({exc}); the interview resumes with the "
            f"defaults: {default.target}, {default.mode} mode"
        )
        return default


def _replacements(data: IncidentData, record) -> list[tuple[AnswerRecord, int, AnswerRecord]]:
    """The stored "which answer did this one replace" memory as records, so that undo
    after a resume puts a changed answer back exactly as it would have before."""
    out = []
    for new, pos, old in data.replaced:
        rn, ro = record(new), record(old)
        if rn is not None and ro is not None:
            out.append((rn, pos, ro))
    return out


__all__ = ["Answer", "ConfigError", "Interview", "NoiseSettings", "NoiseSettingsError", "Status"]
