"""What the screens show, built by pure functions of an :class:`~responder.core.session.Interview`.

Each function reads the interview (its engine state and knowledge base) and returns small
frozen view objects; nothing here changes the interview or touches a terminal, so every
view can be tested headless and the screens stay a thin shell that renders them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from responder.core.answers import AnswerRecord
from responder.core.session import Interview
from responder.engine.state import Answer, Status
from responder.kb.model import Category, Chemical, ChemicalClass, ExclusiveGroup, Symptom

ANSWER_TEXT = {Answer.YES: "yes", Answer.NO: "no", Answer.UNKNOWN: "can't tell"}
DISCLAIMER = (
    "Decision support only, not a diagnosis. It ranks chemicals whose listed acute symptoms "
    "fit the answers given; the real agent may be missing from the knowledge base or show "
    "other signs. Confirm with detection equipment, poison control and medical direction."
)


@dataclass(frozen=True)
class QuestionItem:
    symptom: Symptom
    useful: bool  # answering it can change the outcome
    split: float  # share of the remaining probability on the smaller side (0..0.5)


@dataclass(frozen=True)
class QuestionView:
    """What to ask next: one symptom, or one category with its symptoms."""

    kind: str  # "symptom" or "category"
    category: Category | None
    items: tuple[QuestionItem, ...]
    #: before the first answer: invite the responder to enter what is obvious first
    invitation: str = ""
    #: the suggested sign's exclusive group (pupils small / large...): key 0 answers "none
    #: of these" for every member at once
    group: ExclusiveGroup | None = None
    #: whom to ask, when the incident has several victims ("Victim 2 (driver)")
    victim: str = ""
    #: another victim who can answer a better question than this one (pooled evidence),
    #: as "Victim 3"; number keys switch
    better_victim: str = ""

    @property
    def useful(self) -> tuple[QuestionItem, ...]:
        return tuple(i for i in self.items if i.useful)


@dataclass(frozen=True)
class CandidateRow:
    objects: tuple[int, ...]
    chemicals: tuple[Chemical, ...]
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
    symptom: Symptom
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
    classes: tuple[tuple[ChemicalClass, float], ...]
    profile: tuple[ProfileRow, ...]
    sources: tuple[str, ...]
    mismatches: int
    disclaimer: str = DISCLAIMER
    #: what the profile's columns leave out (several candidates: only the most probable shown)
    profile_note: str = ""


@dataclass(frozen=True)
class NoFitView:
    """Why no chemical fits the answers, in a responder's words."""

    headline: str
    detail: str
    closest: CandidateRow | None  # the chemical contradicting fewest answers (strict) or the
    # most probable one (evidence mode)


@dataclass(frozen=True)
class HistoryRow:
    record: AnswerRecord
    symptom: Symptom


# -- view functions --------------------------------------------------------------------------


INVITATION = (
    "Start with what you can already see or hear: press / to enter any sign, "
    "or answer the question below."
)


def question(it: Interview) -> QuestionView | None:
    """The suggestion, or None when the interview is over (identified, or no fit)."""
    choice = it.state.suggestion()
    if choice is None:
        return None
    invitation = INVITATION if it.asked == 0 else ""
    splits = it.state.useful_queries()
    shares = it.state.answer_split()  # chance of the less likely answer
    kn = it.knowledge
    victim = it.victim_label(it.victim) if len(it.victims) > 1 else ""
    best = it.state.victim_to_ask() if len(it.victims) > 1 else it.victim
    better = it.victim_label(best) if best != it.victim else ""
    if choice.kind == "query":
        q = int(choice.index)
        item = QuestionItem(kn.symptoms[q], True, float(shares[q]))
        return QuestionView(
            "symptom", None, (item,), invitation, exclusive_group(it, q), victim, better
        )
    category = kn.categories[int(choice.index)] if choice.kind == "category" else None
    items = [
        QuestionItem(kn.symptoms[q], bool(splits[q]), float(shares[q]))
        for q in (int(x) for x in choice.queries)
    ]
    # Symptoms that can change the outcome first, the most even split first; the others
    # (optional, shown greyed) after, in file order.
    items.sort(key=lambda i: (not i.useful, -i.split if i.useful else 0, i.symptom.index))
    return QuestionView(
        "category" if category else "symptom",
        category,
        tuple(items),
        invitation,
        None,
        victim,
        better,
    )


def exclusive_group(it: Interview, query: int) -> ExclusiveGroup | None:
    """The exclusive group ``query`` belongs to, if its "none of these" can be answered."""
    sid = it.knowledge.symptoms[query].id
    return next(
        (g for g in it.knowledge.exclusive_groups if sid in g.members and g.none_label), None
    )


@dataclass(frozen=True)
class VictimView:
    """One victim of the incident, for the victims strip."""

    index: int
    label: str  # "Victim 2 (driver)"
    answers: int  # given for this victim (the incident's scene facts not counted)
    urgent: bool  # a life-threatening sign answered yes
    current: bool


def victims(it: Interview) -> list[VictimView]:
    """Every victim of the incident, the one being asked marked."""
    kn = it.knowledge
    out = []
    for v in range(len(it.victims)):
        own = [r for r in it.records if r.victim == v]
        urgent = any(r.answer is Answer.YES and kn.symptoms[r.query].urgent for r in own)
        out.append(VictimView(v, it.victim_label(v), len(own), urgent, v == it.victim))
    return out


@dataclass(frozen=True)
class SceneOption:
    key: str  # the key that answers it "yes"
    observation: Symptom
    answer: Answer | None


@dataclass(frozen=True)
class SceneStep:
    """One scene category asked at the start: its observations, one key each."""

    category: Category
    options: tuple[SceneOption, ...]
    position: int  # 1-based, of ``total``
    total: int


#: Keys of the scene step's options, in order (no y, n or u: they answer symptoms).
SCENE_KEYS = "123456789abcdefghijklmopqrstvwx"


def scene_steps(it: Interview) -> list[SceneStep]:
    """The scene categories (smell, what was seen, form, setting, pattern, onset, route),
    each with its observations keyed for one-key answers."""
    kn = it.knowledge
    cats = [c for c in kn.categories if c.kind == "scene"]
    out = []
    for pos, cat in enumerate(cats, start=1):
        options = tuple(
            SceneOption(SCENE_KEYS[k], kn.symptoms[q], it.answer_of(q))
            for k, q in enumerate(cat.symptoms[: len(SCENE_KEYS)])
        )
        out.append(SceneStep(cat, options, pos, len(cats)))
    return out


@dataclass(frozen=True)
class Weighing:
    """An answer and how strongly it favours the leading candidate over the runner-up
    (log10 of the likelihood ratio: +1 = ten times likelier)."""

    symptom: Symptom
    answer: Answer
    weight: float


def weighed(it: Interview, limit: int = 3) -> tuple[list[Weighing], list[Weighing], str]:
    """The answers that weighed most for and against the leading candidate, against the
    runner-up (evidence mode; empty lists elsewhere), and the runner-up's name."""
    if it.state.evidence is None:
        return [], [], ""
    cands = candidates(it)
    if len(cands) < 2:
        return [], [], ""
    top, second = cands[0].objects[0], cands[1].objects[0]
    L = it.state.model.likelihood
    kn = it.knowledge
    rows = []
    for r in it.records:
        if r.answer is Answer.UNKNOWN:
            continue
        p_top, p_second = L[top, r.query], L[second, r.query]
        if r.answer is Answer.NO:
            p_top, p_second = 1.0 - p_top, 1.0 - p_second
        rows.append(Weighing(kn.symptoms[r.query], r.answer, float(np.log10(p_top / p_second))))
    favour = sorted((w for w in rows if w.weight > 0.05), key=lambda w: -w.weight)[:limit]
    against = sorted((w for w in rows if w.weight < -0.05), key=lambda w: w.weight)[:limit]
    return favour, against, cands[1].chemicals[0].name


def candidates(it: Interview) -> list[CandidateRow]:
    """Remaining chemicals, identical profiles merged, most probable first."""
    chems = it.knowledge.chemicals

    def compute():
        return [
            CandidateRow(c.objects, tuple(chems[i] for i in c.objects), c.probability, c.mismatches)
            for c in it.state.candidates()
        ]

    return list(it.memo("candidates", compute))


def answers_against(it: Interview, row: CandidateRow) -> list[Symptom]:
    """The yes/no answers that count against ``row``: its profile says the opposite.

    In evidence mode these lower the chemical's probability without removing it; the
    candidates panel names them for the most probable chemical.
    """
    return [it.knowledge.symptoms[q] for q in it.contradicted(row.objects)]


def closest(it: Interview, limit: int = 8) -> list[CandidateRow]:
    """When no chemical fits: those contradicting fewest answers (probability 0)."""
    chems = it.knowledge.chemicals
    B = it.problem.matrix
    groups: dict[bytes, list] = {}
    for i, m in it.state.ranked_by_mismatch(limit * 4):
        key = B[i].tobytes()
        if key not in groups and len(groups) >= limit:
            continue
        groups.setdefault(key, [m, []])[1].append(i)
    return [
        CandidateRow(tuple(objs), tuple(chems[i] for i in objs), 0.0, m)
        for m, objs in groups.values()
    ]


def class_bars(it: Interview) -> list[tuple[ChemicalClass, float]]:
    probs = it.state.group_probabilities()
    if probs.size == 0:
        return []
    order = sorted(range(len(it.knowledge.classes)), key=lambda g: (-probs[g], g))
    return [(it.knowledge.classes[g], float(probs[g])) for g in order]


def no_fit(it: Interview) -> NoFitView | None:
    """What to say when no chemical fits the answers; None while one does.

    Strict and noise modes: no candidate is left. Evidence mode (nothing is eliminated): an
    agent not in the knowledge base explains the answers better than every listed one
    (:meth:`responder.engine.evidence.Belief.fit`).
    """
    if it.status is not Status.INCONSISTENT:
        return None
    fit = it.state.fit()
    if fit is None or fit.candidate < 0:
        rows = closest(it, 1)
        return NoFitView(
            f"No chemical in the knowledge base matches all {it.asked} answers",
            "Perhaps an answer was wrong, or the agent is not in the knowledge base. The "
            "closest chemicals are listed with how many answers each contradicts.",
            rows[0] if rows else None,
        )
    cands = candidates(it)
    row = next((c for c in cands if fit.candidate in c.objects), cands[0] if cands else None)
    name = row.chemicals[0].name if row else "the most probable chemical"
    return NoFitView(
        "No chemical in the knowledge base fits these answers well",
        f"The closest, {name}, has {fit.against} of {fit.answered} answers against it; an "
        f"agent not in the knowledge base explains them better ({fit.unlisted:.0%}). Check "
        "those answers, and consider an unlisted agent or a mixture.",
        row,
    )


def history(it: Interview) -> list[HistoryRow]:
    return [HistoryRow(r, it.knowledge.symptoms[r.query]) for r in it.records]


EVIDENCE_SHOWN = 0.01  # evidence mode: a result names candidates at least this probable
PROFILE_COLUMNS = 5  # candidates compared column by column in a result's symptom profile


def result(it: Interview) -> ResultView | None:
    """What was found, once identified or indistinguishable; None before."""
    status = it.status
    if status not in (Status.IDENTIFIED, Status.INDISTINGUISHABLE):
        return None
    cands = candidates(it)
    bars = [(c, p) for c, p in class_bars(it) if p > 0]
    if it.mode == "evidence":
        # Nothing is eliminated: the result is what reached the confidence threshold (or,
        # when no question can help, the candidates still worth naming).
        if status is Status.IDENTIFIED:
            cands, bars = (cands, bars[:1]) if it.target == "class" else (cands[:1], bars)
        else:
            cands = [c for c in cands if c.probability >= EVIDENCE_SHOWN] or cands[:1]
            bars = [(c, p) for c, p in bars if p >= EVIDENCE_SHOWN] or bars[:1]
    mism = min((c.mismatches for c in cands), default=0)
    profile_note = ""
    if it.target == "class" and len(bars) == 1:
        cls = bars[0][0]
        members = [
            i for c in cands for i in c.objects if it.knowledge.chemicals[i].class_id == cls.id
        ]
        title = cls.label
        headline = f"Class identified: {cls.label}"
        columns = (f"{cls.label} ({len(members)} chemicals left)",)
        profile = _profile(it, [members], share=True)
        kind = "class"
    elif len(cands) == 1:
        c = cands[0]
        if len(c.objects) == 1:
            kind, title = "chemical", c.chemicals[0].name
            headline = f"Identified: {title}"
        else:
            kind, title = "set", c.names
            headline = (
                f"Identified as one of {len(c.objects)} chemicals with the same "
                f"symptom profile: {', '.join(ch.name for ch in c.chemicals)}"
            )
        columns = (c.chemicals[0].name if kind == "chemical" else "This set",)
        profile = _profile(it, [list(c.objects)], share=False)
    else:
        kind = "several"
        what = "classes" if it.target == "class" else "chemicals"
        n = len(bars) if it.target == "class" else len(cands)
        title = f"{n} {what} remain"
        headline = (
            f"No further symptom can tell these {n} {what} apart "
            '(some answers were "can\'t tell" or no symptom separates them)'
        )
        shown = cands[:PROFILE_COLUMNS]
        columns = tuple(c.names for c in shown)
        profile = _profile(it, [list(c.objects) for c in shown], share=False)
        if len(cands) > len(shown):
            profile_note = (
                f"The profile shows the {len(shown)} most probable of the "
                f"{len(cands)} candidates; all {len(cands)} are listed above."
            )
    if it.mode == "evidence" and kind != "several":
        headline += f" ({it.confidence():.0%} probable given the answers)"
    sources: dict[str, None] = {}
    for c in cands:
        for ch in c.chemicals:
            for s in ch.sources:
                sources.setdefault(s)
    return ResultView(
        kind,
        title,
        headline,
        columns,
        tuple(cands),
        tuple(bars),
        tuple(profile),
        tuple(sources),
        mism,
        profile_note=profile_note,
    )


def _profile(it: Interview, columns: list[list[int]], share: bool) -> list[ProfileRow]:
    B = it.problem.matrix
    rows: list[ProfileRow] = []
    answered = {r.query for r in it.state.answers}
    kn = it.knowledge

    def expected(q: int) -> tuple[float, ...]:
        return tuple(
            float(B[objs, q].mean()) if share else float(B[objs[0], q]) for objs in columns
        )

    for r in it.state.answers:
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
            rows.append(
                ProfileRow(s, None, exp, tuple("expected" if e >= 0.5 else "" for e in exp))
            )
    return rows


# -- summary for journals list, exports ------------------------------------------------


def top_candidate(it: Interview) -> str:
    status = it.status
    if status is Status.INCONSISTENT:
        return "no chemical fits"
    cands = candidates(it)
    if not cands:
        return "—"
    c = cands[0]
    name = c.chemicals[0].name
    if len(c.objects) > 1:
        name += f" +{len(c.objects) - 1} same symptoms"
    return f"{name} {c.probability:.0%}"
