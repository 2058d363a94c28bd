"""One interview, headless: answers, modes, noise tolerance and the journal.

:class:`Interview` wraps the engine's :class:`~responder.engine.state.InterviewState` with the
app's vocabulary (target "chemical" or "class", suggestion "symptom" or "category", noise
tolerance) and writes every change to its journal before returning. What the screens show
is built from it by the pure functions of :mod:`responder.core.views`, so the whole
interview can be driven and tested without a terminal.
"""

from __future__ import annotations

import time
from dataclasses import replace

from responder.core.answers import AnswerLog, AnswerRecord
from responder.core.journal import Journal, JournalData, JournalError, new_interview_id
from responder.core.modes import OBSERVED_MARGIN, POLICY, reported_mask
from responder.core.modes import TARGETS as TARGETS_TO_ENGINE
from responder.engine.diagnostics import auto_eps, default_eps, min_hamming_distance
from responder.engine.evidence import EvidenceError, EvidenceSettings
from responder.engine.noise import NoiseModel, NoiseSettingsError, prone_mask
from responder.engine.state import Answer, InterviewState, Status
from responder.kb.model import KnowledgeBase
from responder.settings import SUGGEST, TARGETS, NoiseSettings, SettingsError

ANSWER_WORDS = {Answer.YES: "yes", Answer.NO: "no", Answer.UNKNOWN: "can't tell"}
EVIDENCE_KEYS = ("sensitivity", "leak", "threshold", "gain_floor", "pick", "long_row_exponent")
ENGINE_TARGET = TARGETS_TO_ENGINE  # "chemical"/"class" -> the engine's "object"/"group"


# -- the interview ---------------------------------------------------------------------------


class Interview:
    """One interview: the engine state plus modes, labels and the journal.

    Parameters
    ----------
    knowledge : KnowledgeBase
    target : {"chemical", "class"}
    suggest : {"symptom", "category"}
    noise : NoiseSettings
    journal : Journal or None
        Where every change is written; None keeps the interview in memory only (tests).
    weighted : bool
        Weigh evidence (the evidence mode) while noise tolerance is off; otherwise strict
        elimination, the paper's model. The app's default (its ``mode`` setting) is
        evidence.
    evidence : EvidenceSettings, optional
        Sensitivity, leak and confidence threshold of the evidence mode.
    """

    def __init__(
        self,
        knowledge: KnowledgeBase,
        target: str = "chemical",
        suggest: str = "symptom",
        noise: NoiseSettings | None = None,
        journal: Journal | None = None,
        weighted: bool = False,
        evidence: EvidenceSettings | None = None,
    ):
        if target not in TARGETS:
            raise ValueError(f"unknown target {target!r}")
        if suggest not in SUGGEST:
            raise ValueError(f"unknown suggestion mode {suggest!r}")
        self.knowledge = knowledge
        self.problem = knowledge.problem
        self.target = target
        self.suggest = suggest
        self.noise = noise or NoiseSettings()
        self.journal = journal
        self.journal_enabled = journal is not None
        self.journal_error: str | None = None
        self.started = time.time()
        self._id = new_interview_id(self.started)
        self._delta: int | None = None
        self.weighted = weighted
        self.evidence = evidence or EvidenceSettings()
        reported, unconscious = reported_mask(knowledge)
        noise_model = self.build_noise(self.noise)
        self.state = InterviewState(
            self.problem,
            target=ENGINE_TARGET[target],
            policy=POLICY[target, suggest],
            noise=noise_model,
            evidence=self._evidence_for(noise_model),
            reported=reported,
            unconscious=unconscious,
            observed_margin=OBSERVED_MARGIN,
        )
        self.log = AnswerLog(self.state)  # the answers with their times, and undo
        self.generation = 0  # bumped on every change, to drop stale background results

    # -- construction ---------------------------------------------------------------------

    def _evidence_for(self, noise_model) -> EvidenceSettings | None:
        """Evidence weighting applies unless noise tolerance is on (the three answer modes)."""
        return self.evidence if self.weighted and noise_model is None else None

    @property
    def mode(self) -> str:
        """The answer mode: ``"evidence"``, ``"strict"`` or ``"noise"``."""
        return self.state.mode

    @classmethod
    def start(
        cls,
        knowledge: KnowledgeBase,
        target: str,
        suggest: str,
        noise: NoiseSettings,
        journal: bool = True,
        weighted: bool = False,
        evidence: EvidenceSettings | None = None,
    ) -> Interview:
        """A new interview whose journal is created with its first answer (so starting the
        app and leaving writes nothing); journal errors are kept in ``journal_error``. It
        weighs evidence when ``weighted`` (the app passes its ``mode`` setting, evidence by
        default) and noise tolerance is off."""
        interview = cls(knowledge, target, suggest, noise, weighted=weighted, evidence=evidence)
        interview.journal_enabled = journal
        return interview

    @classmethod
    def resume(
        cls, knowledge: KnowledgeBase, data: JournalData, write: bool = True
    ) -> tuple[Interview, list[str]]:
        """Rebuild an interview from its journal; returns it and warnings to show.

        ``write`` False gives a read-only preview (no journal, no lock).

        Raises
        ------
        JournalError
            The journal is live in another responder window.
        """
        warnings: list[str] = []
        cfg = data.config
        target = cfg.get("target") if cfg.get("target") in TARGETS else "chemical"
        suggest = cfg.get("suggest") if cfg.get("suggest") in SUGGEST else "symptom"
        try:
            noise = NoiseSettings.from_dict(cfg.get("noise"), "the journal's noise settings")
        except SettingsError as exc:
            warnings.append(f"noise settings not restored ({exc}); noise tolerance is off")
            noise = NoiseSettings()
        if noise.prone is not None:
            known = tuple(s for s in noise.prone if knowledge.symptom_index(s) is not None)
            noise = replace(noise, prone=known or None)
        if data.kb.get("digest") and knowledge.digest and data.kb.get("digest") != knowledge.digest:
            warnings.append(
                f"this interview was started on knowledge base {data.kb.get('name', '?')!r} "
                f"({data.kb.get('chemicals', '?')} chemicals); it is now resumed on "
                f"{knowledge.name!r} ({len(knowledge.chemicals)} chemicals), which has changed"
            )
        # Journals from before the evidence mode were strict (or noise): keep their meaning.
        weighted = cfg.get("mode") == "evidence"
        evidence = None
        if weighted:
            ev = cfg.get("evidence") if isinstance(cfg.get("evidence"), dict) else {}
            try:
                kept = {k: ev[k] for k in EVIDENCE_KEYS if k in ev}
                # Journals from before the long-row discount ran without it: keep their meaning.
                kept.setdefault("long_row_exponent", 0.0)
                evidence = EvidenceSettings(**kept)
            except (EvidenceError, TypeError) as exc:
                warnings.append(f"evidence settings not restored ({exc}); defaults used")
        try:
            interview = cls(knowledge, target, suggest, noise, weighted=weighted, evidence=evidence)
        except NoiseSettingsError as exc:
            warnings.append(f"noise settings not restored ({exc}); noise tolerance is off")
            interview = cls(
                knowledge, target, suggest, NoiseSettings(), weighted=weighted, evidence=evidence
            )
        made: dict[int, AnswerRecord] = {}  # id(JournalAnswer) -> its record
        lost: list[str] = []

        def record(a) -> AnswerRecord | None:
            if id(a) not in made:
                j = knowledge.symptom_index(a.symptom)
                if j is None:
                    return None
                made[id(a)] = AnswerRecord(j, Answer(a.answer), at=a.at, volunteered=a.volunteered)
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
                f"{len(lost)} answer(s) name symptoms this knowledge base lacks "
                f"({', '.join(lost)}); they stay in the journal but cannot be used"
            )
        interview.log.restore(records, _replacements(data, record))
        interview.started = data.started
        interview.journal = Journal.reopen(data) if write else None
        interview.journal_enabled = write
        return interview, warnings

    # -- journal --------------------------------------------------------------------------

    def config(self) -> dict:
        return {
            "target": self.target,
            "suggest": self.suggest,
            "noise": self.noise.to_dict(),
            "policy": self.policy_name,
            "mode": self.mode,
            "evidence": self.evidence.describe(),
        }

    def _log(self, fn, config_only: bool = False) -> None:
        """Journal one change. The journal file is created with the first answer, and then
        holds every answer so far (also after an earlier failure to create it)."""
        try:
            if self.journal is None:
                if not self.journal_enabled or config_only or not self.records:
                    return  # nothing to keep yet; the start event will carry the modes
                journal = Journal.create(
                    self.knowledge.describe(),
                    self.config(),
                    interview_id=self._id,
                    started=self.started,
                )
                for r in self.records:
                    journal.answer(
                        self.knowledge.symptoms[r.query].id, r.answer.value, r.at, r.volunteered
                    )
                self.journal = journal
            else:
                fn()
            self.journal_error = None
        except JournalError as exc:
            self.journal_error = str(exc)

    @property
    def unsaved(self) -> int:
        """Changes not yet on disk: pending journal lines, or every answer while the journal
        file could not be created. 0 means everything shown is saved."""
        if not self.journal_enabled:
            return 0
        if self.journal is None:
            return len(self.records)
        return len(self.journal.pending)

    @property
    def id(self) -> str:
        return self.journal.id if self.journal else self._id

    def end(self, reason: str) -> None:
        if self.journal is not None:
            self._log(lambda: self.journal.end(reason))

    # -- answers --------------------------------------------------------------------------

    @property
    def records(self) -> list[AnswerRecord]:
        """The answers in the order given, with their times (a changed answer moves to the end)."""
        return self.log.records

    def answer(
        self, query: int, answer: Answer | str, volunteered: bool = False, at: float | None = None
    ) -> AnswerRecord:
        """Record an answer (now, or at ``at``) and journal it before returning."""
        answer = Answer(answer)
        record = self.log.answer(query, answer, volunteered=volunteered, at=at)
        self._log(
            lambda: self.journal.answer(
                self.knowledge.symptoms[query].id, answer.value, record.at, volunteered
            )
        )
        self.generation += 1
        return record

    def undo(self) -> AnswerRecord | None:
        record = self.log.undo()
        if record is not None:
            self._log(lambda: self.journal.undo(self.knowledge.symptoms[record.query].id))
            self.generation += 1
        return record

    def remove(self, query: int) -> AnswerRecord | None:
        record = self.log.remove(query)
        if record is not None:
            self._log(lambda: self.journal.remove(self.knowledge.symptoms[query].id))
            self.generation += 1
        return record

    def record_of(self, query: int) -> AnswerRecord | None:
        """The answer given to ``query`` (with its time and volunteered flag), or None."""
        return self.log.record_of(query)

    def answer_of(self, query: int) -> Answer | None:
        return self.state.answer_of(query)

    # -- modes ----------------------------------------------------------------------------

    @property
    def policy_name(self) -> str:
        return POLICY[self.target, self.suggest]

    def set_modes(
        self,
        target: str | None = None,
        suggest: str | None = None,
        noise: NoiseSettings | None = None,
        weighted: bool | None = None,
    ) -> None:
        """Change target, suggestion mode, noise tolerance or evidence weighting; the
        answers are kept. With noise tolerance on the mode is noise; off, evidence if
        ``weighted`` else strict.

        Raises
        ------
        NoiseSettingsError
            Impossible noise settings (nothing is changed then).
        """
        target = target or self.target
        suggest = suggest or self.suggest
        noise = noise or self.noise
        model = self.build_noise(noise)
        previous = self.weighted
        if weighted is not None:
            self.weighted = weighted
        try:
            self.state.configure(
                target=ENGINE_TARGET[target],
                policy=POLICY[target, suggest],
                noise=model,
                evidence=self._evidence_for(model),
            )
        except Exception:
            self.weighted = previous
            raise
        self.target, self.suggest, self.noise = target, suggest, noise
        self._log(lambda: self.journal.config(self.config()), config_only=True)
        self.generation += 1

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

    def auto_eps(self) -> int:
        return auto_eps(self.delta)

    def eps_for(self, noise: NoiseSettings) -> int:
        return self.auto_eps() if noise.eps is None else noise.eps

    def build_noise(self, noise: NoiseSettings) -> NoiseModel | None:
        if not noise.enabled:
            return None
        spec = "all" if noise.prone is None else ",".join(noise.prone)
        mask = prone_mask(self.problem.n_queries, spec, self.problem.query_names)
        return NoiseModel(self.eps_for(noise), mask, model=noise.model, p=noise.p)

    # -- state the views read -------------------------------------------------------------

    @property
    def status(self) -> Status:
        return self.state.status

    @property
    def asked(self) -> int:
        return self.state.asked_count

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
            if r.answer is not Answer.UNKNOWN and bool(row[r.query]) != (r.answer is Answer.YES)
        ]

    def describe_modes(self) -> dict:
        noise = self.noise_budget()
        return {
            "target": self.target,
            "suggest": self.suggest,
            "policy": self.policy_name,
            "mode": self.mode,
            "evidence": self.evidence.describe() if self.mode == "evidence" else None,
            "noise": self.noise.to_dict() | ({"eps_effective": noise[1]} if noise else {}),
        }

    def confidence(self) -> float:
        """Probability of the top candidate (chemical target) or class (class target)."""
        return self.state.confidence()

    def class_notices(self) -> list[str]:
        """One line per class the last answer lowered sharply (evidence mode)."""
        drops = self.state.group_drops()
        if not drops:
            return []
        r = self.records[-1]
        said = f"\u201c{self.knowledge.symptoms[r.query].label}: {ANSWER_WORDS[r.answer]}\u201d"
        return [
            f"{said} lowered {self.knowledge.classes[g].label} from {b:.0%} to {a:.0%}"
            for g, b, a in drops
        ]

    # -- expected questions (slow: computed away from the screen) --------------------------

    def remaining_spec(self):
        """(generation, Spec) for E[K] from the current answers; see
        :mod:`responder.core.remaining`. Compare the generation to drop stale results."""
        from responder.core.remaining import Spec  # noqa: PLC0415

        known, skipped = self.state.known_answers()
        spec = Spec(
            self.problem,
            ENGINE_TARGET[self.target],
            self.policy_name,
            self.state.noise,
            known,
            tuple(skipped),
            self.state.evidence,
            tuple(int(q) for q in (~self.state.available()).nonzero()[0]),
        )
        return self.generation, spec

    @property
    def remaining_is_cheap(self) -> bool:
        """Exact single-symptom trees without noise take milliseconds."""
        return self.suggest == "symptom" and self.mode == "strict"


def _replacements(data: JournalData, record) -> list[tuple[AnswerRecord, int, AnswerRecord]]:
    """The journal's "which answer did this one replace" memory as records, so that undo
    after a resume puts a changed answer back exactly as it would have before."""
    out = []
    for new, pos, old in data.replaced:
        rn, ro = record(new), record(old)
        if rn is not None and ro is not None:
            out.append((rn, pos, ro))
    return out


__all__ = ["Answer", "Interview", "NoiseSettings", "NoiseSettingsError", "Status"]
