"""The interview, headless: answers, modes, journal and everything the screens show.

:class:`Interview` wraps the engine's :class:`~responder.engine.state.InterviewState` with the
app's vocabulary (target "chemical" or "class", suggestion "symptom" or "category", noise
tolerance) and writes every change to its journal before returning. The screens only read
the small view objects built here, so the whole interview can be driven and tested without
a terminal.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

from responder.app.journal import Journal, JournalData, JournalError, new_interview_id
from responder.app.knowledge import CategoryInfo, ChemicalInfo, ClassInfo, Knowledge, SymptomInfo
from responder.engine.diagnostics import default_eps, min_hamming_distance
from responder.engine.noise import NoiseModel, NoiseSettingsError, prone_mask
from responder.engine.state import Answer, AnswerRecord, InterviewState, Status

TARGETS = ("chemical", "class")
SUGGEST = ("symptom", "category")
ENGINE_TARGET = {"chemical": "object", "class": "group"}
POLICY = {
    ("chemical", "symptom"): "gbs",
    ("class", "symptom"): "gisa",
    ("chemical", "category"): "gqsa",
    ("class", "category"): "gigqsa",
}
ANSWER_TEXT = {Answer.YES: "yes", Answer.NO: "no", Answer.UNKNOWN: "can't tell"}
DISCLAIMER = (
    "Decision support only, not a diagnosis. It ranks chemicals whose listed acute symptoms "
    "fit the answers given; the real agent may be missing from the knowledge base or show "
    "other signs. Confirm with detection equipment, poison control and medical direction."
)


@dataclass(frozen=True)
class NoiseConfig:
    """Noise tolerance as the responder sets it.

    ``eps`` None means automatic: floor((delta - 1) / 2) from the knowledge base's minimum
    Hamming distance delta, but at least 1 so that turning tolerance on always tolerates
    something. ``prone`` None means every symptom may be answered wrongly.
    """

    enabled: bool = False
    eps: int | None = None
    prone: tuple[str, ...] | None = None
    model: int = 1
    p: float = 0.25

    def to_dict(self) -> dict:
        d = asdict(self)
        d["prone"] = "all" if self.prone is None else list(self.prone)
        d["eps"] = "auto" if self.eps is None else self.eps
        return d

    @classmethod
    def from_dict(cls, d: dict | None) -> "NoiseConfig":
        d = d or {}
        eps = d.get("eps", "auto")
        prone = d.get("prone", "all")
        try:
            return cls(
                enabled=bool(d.get("enabled", False)),
                eps=None if eps in (None, "auto") else int(eps),
                prone=None if prone in (None, "all") else tuple(str(s) for s in prone),
                model=int(d.get("model", 1)),
                p=float(d.get("p", 0.25)),
            )
        except (TypeError, ValueError):
            return cls()


# -- views -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuestionItem:
    symptom: SymptomInfo
    useful: bool  # answering it can change the outcome
    split: float  # share of the remaining probability on the smaller side (0..0.5)


@dataclass(frozen=True)
class QuestionView:
    """What to ask next: one symptom, or one category with its symptoms."""

    kind: str  # "symptom" or "category"
    category: CategoryInfo | None
    items: tuple[QuestionItem, ...]

    @property
    def useful(self) -> tuple[QuestionItem, ...]:
        return tuple(i for i in self.items if i.useful)


@dataclass(frozen=True)
class CandidateRow:
    objects: tuple[int, ...]
    chemicals: tuple[ChemicalInfo, ...]
    probability: float
    mismatches: int

    @property
    def names(self) -> str:
        return " = ".join(c.name for c in self.chemicals)

    @property
    def class_labels(self) -> str:
        seen: dict[str, None] = {}
        for c in self.chemicals:
            seen.setdefault(c.class_label)
        return ", ".join(seen)


@dataclass(frozen=True)
class ProfileRow:
    symptom: SymptomInfo
    answer: Answer | None  # None: not asked
    expected: tuple[float, ...]  # per result column: 1/0 for a chemical, a share for a class
    marks: tuple[str, ...]  # per column: "match", "mismatch", "partial", "unknown", "expected"


@dataclass(frozen=True)
class ResultView:
    kind: str  # "chemical", "set", "class", "several"
    title: str
    headline: str
    columns: tuple[str, ...]
    candidates: tuple[CandidateRow, ...]
    classes: tuple[tuple[ClassInfo, float], ...]
    profile: tuple[ProfileRow, ...]
    sources: tuple[str, ...]
    mismatches: int
    disclaimer: str = DISCLAIMER


@dataclass(frozen=True)
class HistoryRow:
    record: AnswerRecord
    symptom: SymptomInfo


@dataclass
class Remaining:
    """Expected questions still to ask, once known."""

    value: float
    method: str  # "exact" or "monte-carlo"

    @property
    def text(self) -> str:
        if self.method == "exact":
            return f"{self.value:.1f}"
        return f"≈{self.value:.1f}"


# -- the interview ---------------------------------------------------------------------------


class Interview:
    """One interview: the engine state plus modes, labels and the journal.

    Parameters
    ----------
    knowledge : Knowledge
    target : {"chemical", "class"}
    suggest : {"symptom", "category"}
    noise : NoiseConfig
    journal : Journal or None
        Where every change is written; None keeps the interview in memory only (tests).
    """

    def __init__(self, knowledge: Knowledge, target: str = "chemical", suggest: str = "symptom",
                 noise: NoiseConfig | None = None, journal: Journal | None = None):
        if target not in TARGETS:
            raise ValueError(f"unknown target {target!r}")
        if suggest not in SUGGEST:
            raise ValueError(f"unknown suggestion mode {suggest!r}")
        self.knowledge = knowledge
        self.problem = knowledge.problem
        self.target = target
        self.suggest = suggest
        self.noise = noise or NoiseConfig()
        self.journal = journal
        self.journal_enabled = journal is not None
        self.journal_error: str | None = None
        self.started = time.time()
        self._id = new_interview_id(self.started)
        self._delta: int | None = None
        self.state = InterviewState(self.problem, target=ENGINE_TARGET[target],
                                    policy=POLICY[target, suggest],
                                    noise=self.build_noise(self.noise))
        self.generation = 0  # bumped on every change, to drop stale background results

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def start(cls, knowledge: Knowledge, target: str, suggest: str, noise: NoiseConfig,
              journal: bool = True) -> "Interview":
        """A new interview whose journal is created with its first answer (so starting the
        app and leaving writes nothing); journal errors are kept in ``journal_error``."""
        interview = cls(knowledge, target, suggest, noise)
        interview.journal_enabled = journal
        return interview

    @classmethod
    def resume(cls, knowledge: Knowledge, data: JournalData) -> tuple["Interview", list[str]]:
        """Rebuild an interview from its journal; returns it and warnings to show."""
        warnings: list[str] = []
        cfg = data.config
        target = cfg.get("target") if cfg.get("target") in TARGETS else "chemical"
        suggest = cfg.get("suggest") if cfg.get("suggest") in SUGGEST else "symptom"
        noise = NoiseConfig.from_dict(cfg.get("noise"))
        if noise.prone is not None:
            known = tuple(s for s in noise.prone if knowledge.symptom_index(s) is not None)
            noise = NoiseConfig(noise.enabled, noise.eps, known or None, noise.model, noise.p)
        if data.kb.get("digest") and knowledge.digest and data.kb.get("digest") != knowledge.digest:
            warnings.append(
                f"this interview was started on knowledge base {data.kb.get('name', '?')!r} "
                f"({data.kb.get('chemicals', '?')} chemicals); it is now resumed on "
                f"{knowledge.name!r} ({len(knowledge.chemicals)} chemicals), which has changed"
            )
        try:
            interview = cls(knowledge, target, suggest, noise)
        except NoiseSettingsError as exc:
            warnings.append(f"noise settings not restored ({exc}); noise tolerance is off")
            interview = cls(knowledge, target, suggest, NoiseConfig())
        made: dict[int, AnswerRecord] = {}  # id(JournalAnswer) -> engine record
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
        interview.state.restore(records)
        _restore_replaced(interview.state, data, record, records)
        interview.started = data.started
        interview.journal = Journal.reopen(data)
        interview.journal_enabled = True
        return interview, warnings

    # -- journal --------------------------------------------------------------------------

    def config(self) -> dict:
        return {"target": self.target, "suggest": self.suggest, "noise": self.noise.to_dict(),
                "policy": self.policy_name}

    def _log(self, fn, config_only: bool = False) -> None:
        """Journal one change. The journal file is created with the first answer, and then
        holds every answer so far (also after an earlier failure to create it)."""
        try:
            if self.journal is None:
                if not self.journal_enabled or config_only or not self.state.answers:
                    return  # nothing to keep yet; the start event will carry the modes
                journal = Journal.create(self.knowledge.describe(), self.config(),
                                         interview_id=self._id, started=self.started)
                for r in self.state.answers:
                    journal.answer(self.knowledge.symptoms[r.query].id, r.answer.value, r.at,
                                   r.volunteered)
                self.journal = journal
            else:
                fn()
            self.journal_error = None
        except JournalError as exc:
            self.journal_error = str(exc)

    @property
    def id(self) -> str:
        return self.journal.id if self.journal else self._id

    def end(self, reason: str) -> None:
        if self.journal is not None:
            self._log(lambda: self.journal.end(reason))

    # -- answers --------------------------------------------------------------------------

    def answer(self, query: int, answer: Answer | str, volunteered: bool = False) -> AnswerRecord:
        answer = Answer(answer)
        self.state.answer(query, answer, volunteered=volunteered)
        record = self.state.answers[-1]
        self._log(lambda: self.journal.answer(self.knowledge.symptoms[query].id, answer.value,
                                              record.at, volunteered))
        self.generation += 1
        return record

    def undo(self) -> AnswerRecord | None:
        record = self.state.undo()
        if record is not None:
            self._log(lambda: self.journal.undo(self.knowledge.symptoms[record.query].id))
            self.generation += 1
        return record

    def remove(self, query: int) -> AnswerRecord | None:
        record = self.state.remove(query)
        if record is not None:
            self._log(lambda: self.journal.remove(self.knowledge.symptoms[query].id))
            self.generation += 1
        return record

    def answer_of(self, query: int) -> Answer | None:
        return self.state.answer_of(query)

    # -- modes ----------------------------------------------------------------------------

    @property
    def policy_name(self) -> str:
        return POLICY[self.target, self.suggest]

    def set_modes(self, target: str | None = None, suggest: str | None = None,
                  noise: NoiseConfig | None = None) -> None:
        """Change target, suggestion mode or noise; the answers are kept.

        Raises
        ------
        NoiseSettingsError
            Impossible noise settings (nothing is changed then).
        """
        target = target or self.target
        suggest = suggest or self.suggest
        noise = noise or self.noise
        model = self.build_noise(noise)
        self.state.configure(target=ENGINE_TARGET[target], policy=POLICY[target, suggest],
                             noise=model)
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
        return max(1, self.safe_eps)

    def eps_for(self, noise: NoiseConfig) -> int:
        return self.auto_eps() if noise.eps is None else noise.eps

    def build_noise(self, noise: NoiseConfig) -> NoiseModel | None:
        if not noise.enabled:
            return None
        spec = "all" if noise.prone is None else ",".join(noise.prone)
        mask = prone_mask(self.problem.n_queries, spec, self.problem.query_names)
        return NoiseModel(self.eps_for(noise), mask, model=noise.model, p=noise.p)

    # -- derived views --------------------------------------------------------------------

    @property
    def status(self) -> Status:
        return self.state.status

    @property
    def asked(self) -> int:
        return self.state.asked_count

    def question(self) -> QuestionView | None:
        """The suggestion, or None when the interview is over (identified, or no fit)."""
        choice = self.state.suggestion()
        if choice is None:
            return None
        stats = self.state.node.split()
        splits = stats.splits
        total = stats.total
        kn = self.knowledge
        if choice.kind == "query":
            q = int(choice.index)
            smaller = float(min(stats.no[q], stats.yes[q]) / total) if total else 0.0
            item = QuestionItem(kn.symptoms[q], True, smaller)
            return QuestionView("symptom", None, (item,))
        category = kn.categories[int(choice.index)] if choice.kind == "category" else None
        items = []
        for q in (int(x) for x in choice.queries):
            smaller = float(min(stats.no[q], stats.yes[q]) / total) if total else 0.0
            items.append(QuestionItem(kn.symptoms[q], bool(splits[q]), smaller))
        # Symptoms that can change the outcome first, the most even split first; the others
        # (optional, shown greyed) after, in file order.
        items.sort(key=lambda i: (not i.useful, -i.split if i.useful else 0, i.symptom.index))
        return QuestionView("category" if category else "symptom", category, tuple(items))

    def _memo(self, key: str, compute):
        """Cache a view until the next change (every change bumps ``generation``)."""
        cache = self.__dict__.setdefault("_views", {})
        if cache.get("_generation") != self.generation:
            cache.clear()
            cache["_generation"] = self.generation
        if key not in cache:
            cache[key] = compute()
        return cache[key]

    def candidates(self) -> list[CandidateRow]:
        """Remaining chemicals, identical profiles merged, most probable first."""
        chems = self.knowledge.chemicals

        def compute():
            return [CandidateRow(c.objects, tuple(chems[i] for i in c.objects), c.probability,
                                 c.mismatches) for c in self.state.candidates()]

        return list(self._memo("candidates", compute))

    def closest(self, limit: int = 8) -> list[CandidateRow]:
        """When no chemical fits: those contradicting fewest answers (probability 0)."""
        chems = self.knowledge.chemicals
        B = self.problem.matrix
        groups: dict[bytes, list] = {}
        for i, m in self.state.ranked_by_mismatch(limit * 4):
            key = B[i].tobytes()
            if key not in groups and len(groups) >= limit:
                continue
            groups.setdefault(key, [m, []])[1].append(i)
        return [CandidateRow(tuple(objs), tuple(chems[i] for i in objs), 0.0, m)
                for m, objs in groups.values()]

    def class_bars(self) -> list[tuple[ClassInfo, float]]:
        probs = self.state.group_probabilities()
        if probs.size == 0:
            return []
        order = sorted(range(len(self.knowledge.classes)), key=lambda g: (-probs[g], g))
        return [(self.knowledge.classes[g], float(probs[g])) for g in order]

    def noise_budget(self) -> tuple[int, int] | None:
        """(wrong answers assumed so far by the best candidate, tolerated); None if off."""
        if self.state.noise is None:
            return None
        used = self.state.noise_budget_used()
        return (used if used is not None else 0), self.state.noise.eps_eff

    def history(self) -> list[HistoryRow]:
        return [HistoryRow(r, self.knowledge.symptoms[r.query]) for r in self.state.answers]

    def contradicted(self, objects: tuple[int, ...]) -> list[int]:
        """Queries whose yes/no answer contradicts the profile of ``objects[0]``."""
        row = self.problem.matrix[objects[0]]
        return [r.query for r in self.state.answers if r.answer is not Answer.UNKNOWN
                and bool(row[r.query]) != (r.answer is Answer.YES)]

    # -- expected questions (slow: computed away from the screen) --------------------------

    def remaining_spec(self):
        """(generation, Spec) for E[K] from the current answers; see
        :mod:`responder.app.remaining`. Compare the generation to drop stale results."""
        from responder.app.remaining import Spec  # noqa: PLC0415

        known, skipped = self.state.known_answers()
        spec = Spec(self.problem, ENGINE_TARGET[self.target], self.policy_name, self.state.noise,
                    known, tuple(skipped))
        return self.generation, spec

    @property
    def remaining_is_cheap(self) -> bool:
        """Exact single-symptom trees without noise take milliseconds."""
        return self.suggest == "symptom" and self.state.noise is None

    def remaining_now(self) -> Remaining:
        """E[K] computed here and now (blocking)."""
        from responder.app.remaining import evaluate_spec  # noqa: PLC0415

        value, method = evaluate_spec(self.remaining_spec()[1])
        return Remaining(value, method)

    # -- result ---------------------------------------------------------------------------

    def result(self) -> ResultView | None:
        """What was found, once identified or indistinguishable; None before."""
        status = self.status
        if status not in (Status.IDENTIFIED, Status.INDISTINGUISHABLE):
            return None
        cands = self.candidates()
        kn = self.knowledge
        bars = [(c, p) for c, p in self.class_bars() if p > 0]
        mism = min((c.mismatches for c in cands), default=0)
        if self.target == "class" and len(bars) == 1:
            cls = bars[0][0]
            members = [i for c in cands for i in c.objects]
            title = cls.label
            headline = f"Class identified: {cls.label}"
            columns = (f"{cls.label} ({len(members)} chemicals left)",)
            profile = self._profile([members], share=True)
            kind = "class"
        elif len(cands) == 1:
            c = cands[0]
            if len(c.objects) == 1:
                kind, title = "chemical", c.chemicals[0].name
                headline = f"Identified: {title}"
            else:
                kind, title = "set", c.names
                headline = (f"Identified as one of {len(c.objects)} chemicals with the same "
                            f"symptom profile: {', '.join(ch.name for ch in c.chemicals)}")
            columns = (c.chemicals[0].name if kind == "chemical" else "This set",)
            profile = self._profile([list(c.objects)], share=False)
        else:
            kind = "several"
            what = "classes" if self.target == "class" else "chemicals"
            n = len(bars) if self.target == "class" else len(cands)
            title = f"{n} {what} remain"
            headline = (f"No further symptom can tell these {n} {what} apart "
                        "(some answers were \"can't tell\" or no symptom separates them)")
            shown = cands[:5]
            columns = tuple(c.names for c in shown)
            profile = self._profile([list(c.objects) for c in shown], share=False)
        sources: dict[str, None] = {}
        for c in cands:
            for ch in c.chemicals:
                for s in ch.sources:
                    sources.setdefault(s)
        return ResultView(kind, title, headline, columns, tuple(cands), tuple(bars),
                          tuple(profile), tuple(sources), mism)

    def _profile(self, columns: list[list[int]], share: bool) -> list[ProfileRow]:
        B = self.problem.matrix
        rows: list[ProfileRow] = []
        answered = {r.query for r in self.state.answers}
        kn = self.knowledge

        def expected(q: int) -> tuple[float, ...]:
            return tuple(float(B[objs, q].mean()) if share else float(B[objs[0], q])
                         for objs in columns)

        for r in self.state.answers:
            exp = expected(r.query)
            marks = []
            for e in exp:
                if r.answer is Answer.UNKNOWN:
                    marks.append("unknown")
                elif e in (0.0, 1.0):
                    marks.append("match" if (e == 1.0) == (r.answer is Answer.YES) else "mismatch")
                else:
                    marks.append("partial")
            rows.append(ProfileRow(kn.symptoms[r.query], r.answer, exp, tuple(marks)))
        for s in kn.symptoms:
            if s.index in answered:
                continue
            exp = expected(s.index)
            if any(e >= 0.5 for e in exp):
                rows.append(ProfileRow(s, None, exp, tuple("expected" if e >= 0.5 else "" for e in exp)))
        return rows

    # -- summary for journals list, exports ------------------------------------------------

    def top_candidate(self) -> str:
        status = self.status
        if status is Status.INCONSISTENT:
            return "no chemical fits"
        cands = self.candidates()
        if not cands:
            return "—"
        c = cands[0]
        name = c.chemicals[0].name
        if len(c.objects) > 1:
            name += f" +{len(c.objects) - 1} same symptoms"
        return f"{name} {c.probability:.0%}"

    def describe_modes(self) -> dict:
        noise = self.noise_budget()
        return {
            "target": self.target,
            "suggest": self.suggest,
            "policy": self.policy_name,
            "noise": self.noise.to_dict() | ({"eps_effective": noise[1]} if noise else {}),
        }


def _restore_replaced(state: InterviewState, data: JournalData, record, records) -> None:
    """Give the engine back the "which answer did this one replace" memory, so that undo
    after a resume puts a changed answer back exactly as it would have before."""
    if not data.replaced:
        return
    out = []
    for new, pos, old in data.replaced:
        rn, ro = record(new), record(old)
        if rn is not None and ro is not None:
            out.append((rn, pos, ro))
    state.restore(records, replaced=out)


__all__ = [
    "ANSWER_TEXT", "Answer", "CandidateRow", "DISCLAIMER", "HistoryRow", "Interview",
    "NoiseConfig", "NoiseSettingsError", "ProfileRow", "QuestionItem", "QuestionView",
    "Remaining", "ResultView", "Status",
]
