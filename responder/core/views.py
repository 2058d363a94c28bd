"""What the screens show, built by pure functions of an :class:`~responder.core.session.Interview`.

Each function reads the interview (its engine state and knowledge base) and returns small
frozen view objects; nothing here changes the interview or touches a terminal, so every
view can be tested headless and the screens stay a thin shell that renders them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from responder.core.answers import AnswerRecord
from responder.core.counted import counted
from responder.core.percent import percent
from responder.core.session import SEVERAL_VICTIMS, Interview
from responder.engine.state import Answer, QueryAnswer, Status
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
    #: answered once for the whole incident (the smell, the place), not per victim
    shared: bool = False


@dataclass(frozen=True)
class QuestionView:
    """What to ask next: one symptom, or one category with its symptoms."""

    kind: str  # "symptom" or "category"
    category: Category | None
    items: tuple[QuestionItem, ...]
    #: before the first answer: invite the responder to enter what is obvious first
    invitation: str = ""
    #: the suggested sign's exclusive group (pupils small / large...): its open members are
    #: the items, the suggested one first, so one "yes" settles the group; key 0 answers
    #: "none of these" for every member at once when the group has a none label
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
        """Every name of the row: "Tabun (GA) / Sarin (GB)"."""
        return " / ".join(c.name for c in self.chemicals)

    @property
    def class_labels(self) -> str:
        seen: dict[str, None] = {}
        for c in self.chemicals:
            seen.setdefault(c.class_label)
        return ", ".join(seen)

    @property
    def class_short(self) -> str:
        """The row's classes by their short labels."""
        seen: dict[str, None] = {}
        for c in self.chemicals:
            seen.setdefault(c.class_short or c.class_label)
        return ", ".join(seen)


@dataclass(frozen=True)
class Weighing:
    """An answer and how strongly it favours the leading candidate over the runner-up
    (log10 of the likelihood ratio: +1 = ten times likelier)."""

    symptom: Symptom
    answer: Answer
    weight: float
    #: whose answer, with several victims: "V2", or "all" for the incident's scene
    who: str = ""


@dataclass(frozen=True)
class ProfileRow:
    symptom: Symptom
    answer: Answer | None  # None: not asked
    expected: tuple[float, ...]  # per result column: 1/0 for a chemical, a share for a class
    #: per column: "match", "mismatch", "implied" (an implied answer the column's profile
    #: does not fit: not counted), "uncounted" (evidence mode: an answer the profile does
    #: not fit that the answer model does not count against it, such as a "no" to an
    #: occasional sign or to another route's contact sign), "partial", "unknown", "expected"
    marks: tuple[str, ...]
    #: whose answer, with several victims: "V2", or "all" for the incident's scene
    who: str = ""


@dataclass(frozen=True)
class ResultView:
    """A result, top first: ``headline`` ("Most likely: Chlorine (Irritant gases) 99%"),
    ``class_line``, ``status`` (how sure, after how many answers), then what to do now (from
    :func:`responder.kb.next_steps.result_steps`), then what weighed, the profile and the
    disclaimer."""

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
    #: "Class: Irritant and choking gases 99% · CAS 7782-50-5 · UN 1017"
    class_line: str = ""
    #: why this is the result and how sure: "Identified after 11 answers (99% probable ...)"
    status: str = ""
    #: the candidates the result lists: "7 profiles, 10 chemicals" ("" for one chemical)
    counts: str = ""
    #: the leading candidate reached the confidence threshold (evidence mode), or is the only
    #: one left (strict and noise modes); the steps shown are then the leader's own
    confident: bool = True
    #: the classes holding most of the probability, for the steps common to them
    leading_classes: tuple[ChemicalClass, ...] = ()
    #: the leader's name(s): "Tabun (GA) / Sarin (GB)" for an identical-profile set
    leader: str = ""
    #: the answers that weighed most for and against the leader, against ``runner_up``
    #: (evidence mode)
    favour: tuple[Weighing, ...] = ()
    against: tuple[Weighing, ...] = ()
    runner_up: str = ""


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
    #: whose answer, with several victims: "V2", or "all" for the incident's scene ("" alone)
    who: str = ""


# -- view functions --------------------------------------------------------------------------


INVITATION = (
    "Start with what you can already see or hear: press / to enter any sign, "
    "or answer the question below."
)


def question_opening(symptom: Symptom, shared: bool, victim: str = "") -> str:
    """How a question opens, saying whom the answer is about: "On scene:  " for a fact
    answered once for the incident, "About Victim 2:  " for a scene fact asked of each victim
    (how they were exposed, when their signs began), "Does Victim 2 have:  " for a sign
    (``victim`` is "" with one victim)."""
    if symptom.kind == "scene":
        return "On scene:  " if shared else f"About {victim or 'the victim'}:  "
    return f"Does {victim or 'the victim'} have:  "


def shared_queries(it: Interview) -> frozenset[int]:
    """The queries answered once for the whole incident."""
    return frozenset(int(q) for q in it.state.shared.nonzero()[0])


def asked_victim(it: Interview) -> str:
    """Whom an answer goes to now, when the incident has several victims ("Victim 2");
    "" with one."""
    return it.victim_label(it.victim) if len(it.victims) > 1 else ""


def question(it: Interview) -> QuestionView | None:
    """The suggestion, or None when the interview is over (identified, or no fit)."""
    choice = it.state.suggestion()
    if choice is None:
        return None
    invitation = INVITATION if it.asked == 0 else ""
    splits = it.state.useful_queries()
    shares = it.state.answer_split()  # chance of the less likely answer
    kn = it.knowledge
    victim = asked_victim(it)
    best = it.state.victim_to_ask() if len(it.victims) > 1 else it.victim
    better = it.victim_label(best) if best != it.victim else ""
    shared = it.state.is_shared
    if choice.kind == "query":
        q = int(choice.index)
        group = exclusive_group(it, q)
        others = open_members(it, group, q) if group is not None else []
        items = tuple(
            QuestionItem(kn.symptoms[m], m == q or bool(splits[m]), float(shares[m]), shared(m))
            for m in [q, *others]
        )
        return QuestionView("symptom", None, items, invitation, group, victim, better)
    category = kn.categories[int(choice.index)] if choice.kind == "category" else None
    items = [
        QuestionItem(kn.symptoms[q], bool(splits[q]), float(shares[q]), shared(q))
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
    """The exclusive group ``query`` belongs to, if any."""
    sid = it.knowledge.symptoms[query].id
    return next((g for g in it.knowledge.exclusive_groups if sid in g.members), None)


def open_members(it: Interview, group: ExclusiveGroup, query: int) -> list[int]:
    """The group's other members the responder may still answer for this victim: not
    answered, not implied, and askable (an unconscious victim reports nothing)."""
    available = it.state.available()
    out = []
    for sid in group.members:
        m = it.knowledge.symptom_index(sid)
        if m is not None and m != query and available[m] and it.answer_of(m) is None:
            out.append(m)
    return out


@dataclass(frozen=True)
class VictimView:
    """One victim of the incident, for the victims strip."""

    index: int
    label: str  # "Victim 2 (driver)"
    answers: int  # given for this victim (the incident's scene facts not counted)
    urgent: bool  # a life-threatening sign answered yes
    current: bool
    #: the victim being asked can be taken back with - (added last, no answers)
    removable: bool = False


def victims(it: Interview) -> list[VictimView]:
    """Every victim of the incident, the one being asked marked."""
    kn = it.knowledge
    out = []
    removable = it.why_not_removable() is None
    for v in range(len(it.victims)):
        own = [r for r in it.records if r.victim == v]
        urgent = any(r.answer is Answer.YES and kn.symptoms[r.query].urgent for r in own)
        current = v == it.victim
        out.append(
            VictimView(v, it.victim_label(v), len(own), urgent, current, current and removable)
        )
    return out


def victim_removed_notice(it: Interview, removed: int) -> str:
    """What removing victim ``removed`` (0-based) did, and what it left: the scene's
    "several people ill" stays as answered, since a responder may have seen others ill."""
    said = (
        f"Victim {removed + 1} removed (no answers); answers now go to "
        f"{it.victim_label(it.victim)}."
    )
    several = it.knowledge.symptom_index(SEVERAL_VICTIMS)
    if len(it.victims) == 1 and several is not None and it.answer_of(several) is Answer.YES:
        label = it.knowledge.symptoms[several].label
        said += f" The scene's {label}: yes stays; if only one person is ill, change it with h."
    return said


@dataclass(frozen=True)
class SceneOption:
    key: str  # the key that answers it "yes"
    observation: Symptom
    answer: Answer | None
    #: the answer follows from another (a white powder is a solid): shown, not toggled
    implied: bool = False


@dataclass(frozen=True)
class SceneStep:
    """One scene category asked at the start: its observations, one key each."""

    category: Category
    options: tuple[SceneOption, ...]
    position: int  # 1-based, of ``total``
    total: int
    #: whom the page's answers go to when each victim answers it (how they were exposed,
    #: when their signs began) and the incident has several ("Victim 2"); "" otherwise
    victim: str = ""

    @property
    def title(self) -> str:
        title = f"Scene {self.position}/{self.total}: {self.category.label}"
        return f"{title} · {self.victim}" if self.victim else title

    @property
    def instruction(self) -> str:
        said = "Press the key of each one that applies (again to take it back)."
        if self.victim:  # kept to one line at 80 columns
            return f"For {self.victim} only: press each one's key (again to take it back)."
        return said


#: Keys of the scene step's options, in order (no y, n or u: they answer symptoms).
SCENE_KEYS = "123456789abcdefghijklmopqrstvwx"


def scene_steps(it: Interview) -> list[SceneStep]:
    """The scene categories (smell, what was seen, form, setting, pattern, onset, route),
    each with its observations keyed for one-key answers."""
    kn = it.knowledge
    cats = [c for c in kn.categories if c.kind == "scene"]
    victim = asked_victim(it)
    out = []
    for pos, cat in enumerate(cats, start=1):
        options = tuple(
            SceneOption(SCENE_KEYS[k], kn.symptoms[q], it.answer_of(q), it.state.is_implied(q))
            for k, q in enumerate(cat.symptoms[: len(SCENE_KEYS)])
        )
        per_victim = any(not it.state.is_shared(q) for q in cat.symptoms)
        out.append(SceneStep(cat, options, pos, len(cats), victim if per_victim else ""))
    return out


def weighed(it: Interview, limit: int = 3) -> tuple[list[Weighing], list[Weighing], str]:
    """The answers that weighed most for and against the leading candidate, against the
    runner-up (evidence mode; empty lists elsewhere), and the runner-up's name (every name of
    an identical-profile row)."""
    if it.state.evidence is None:
        return [], [], ""
    cands = candidates(it)
    if len(cands) < 2:
        return [], [], ""
    belief = it.state.belief
    top, second = cands[0].objects[0], cands[1].objects[0]
    log_top, log_second = belief.answer_weights([top, second])
    ratio = (log_top - log_second) / np.log(10.0)  # per answer the posterior weighs
    position = {}
    pooled = zip(belief.queries.tolist(), belief.values.tolist(), it.state.pooled_owners())
    for t, (q, yes, owner) in enumerate(pooled):
        position.setdefault((q, yes, owner), t)
    kn = it.knowledge
    rows = []
    for r in it.records:  # every victim's: the pooled posterior weighs them all
        owner = -1 if it.state.is_shared(r.query) else r.victim
        t = position.get((r.query, r.answer is Answer.YES, owner))
        if r.answer is Answer.UNKNOWN or t is None:
            continue
        rows.append(Weighing(kn.symptoms[r.query], r.answer, float(ratio[t]), whose(it, r)))
    favour = sorted((w for w in rows if w.weight > 0.05), key=lambda w: -w.weight)[:limit]
    against = sorted((w for w in rows if w.weight < -0.05), key=lambda w: w.weight)[:limit]
    return favour, against, cands[1].names


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


def against_labels(it: Interview, row: CandidateRow) -> list[str]:
    """The answers the evidence mode counts against ``row`` (its ✗), every victim's, each
    prefixed with whose it is when there are several ("V2 Cough")."""
    st = it.state
    belief = st.belief
    counted_against = belief.against()[row.objects[0]]
    out = []
    for q, victim, against in zip(belief.queries.tolist(), st.pooled_owners(), counted_against):
        if against:
            who = _whose(it, q, victim)
            out.append(
                f"{who} {it.knowledge.symptoms[q].label}" if who else it.knowledge.symptoms[q].label
            )
    return out


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
            "No chemical in the knowledge base matches "
            f"{'the' if it.ranked_on == 1 else 'all'} {counted(it.ranked_on, 'answer')}",
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
        f"agent not in the knowledge base explains them better ({percent(fit.unlisted)}). Check "
        "those answers, and consider an unlisted agent or a mixture.",
        row,
    )


def whose(it: Interview, record: AnswerRecord) -> str:
    """Whose ``record`` is, with several victims: "V2", or "all" for the incident's scene
    facts; "" with one victim."""
    return _whose(it, record.query, record.victim)


def _whose(it: Interview, query: int, victim: int) -> str:
    if len(it.victims) < 2:
        return ""
    return "all" if it.state.is_shared(query) else f"V{victim + 1}"


def history(it: Interview) -> list[HistoryRow]:
    """Every victim's answers, oldest first, each saying whose it is when there are several."""
    return [HistoryRow(r, it.knowledge.symptoms[r.query], whose(it, r)) for r in it.records]


def ranked_answers(it: Interview) -> list[tuple[QueryAnswer, str]]:
    """The answers the ranking reads, implied ones after those they follow from, each with
    whose it is (:func:`whose`): in the evidence mode every victim's and the incident's (the
    posterior pools them); in the strict and noise modes, the paper's single-victim models,
    the victim being asked and the incident's."""
    return [(a, who) for a, who, _ in _ranked_answers_owned(it)]


def _ranked_answers_owned(it: Interview) -> list[tuple[QueryAnswer, str, int]]:
    """:func:`ranked_answers`, each with its victim's index (-1: the incident's), as
    :meth:`~responder.engine.state.InterviewState.pooled_owners` numbers them."""
    st = it.state
    victims = range(len(it.victims)) if it.mode == "evidence" else [it.victim]
    out, shared_seen = [], set()
    for v in victims:
        for a in st.victim_answers(v):
            if st.is_shared(a.query):
                if a.query in shared_seen:
                    continue  # the incident's answers count once, not once per victim
                shared_seen.add(a.query)
            out.append((a, _whose(it, a.query, v), -1 if st.is_shared(a.query) else v))
    return out


EVIDENCE_SHOWN = 0.01  # evidence mode: a result names candidates at least this probable
PROFILE_COLUMNS = 5  # candidates compared column by column in a result's symptom profile
#: while no candidate is confident, the steps shown are those common to the classes that
#: together hold this much probability (at most LEADING_CLASSES_MAX of them)
LEADING_CLASSES_MASS = 0.95
LEADING_CLASSES_MAX = 3


def class_drop_note(it: Interview) -> str | None:
    """The status line's note on a class the last answer lowered sharply (evidence mode):
    the class and its chances first, so a line cut to fit a narrow screen keeps them."""
    drops = it.class_drops()
    if not drops:
        return None
    cls, before, after = drops[0]
    return (
        f"{cls.short} {percent(before)} \u2192 {percent(after)} after "
        f"{it.last_answer_said()}: re-check that sign if unsure"
    )


def displaced_notice(it: Interview, undo: str = "z") -> str | None:
    """What the last answer took out, contradicting it (a second look at the pupils), so
    the responder knows the earlier answer is gone; ``undo`` is how to put it back where
    the notice is read (the app's key, the protocol's line)."""
    if not it.displaced:
        return None
    kn = it.knowledge
    gone = ", ".join(
        f"\u201c{kn.symptoms[r.query].label}: {ANSWER_TEXT[r.answer]}\u201d" for r in it.displaced
    )
    return f"Taken out: {gone}, which {it.last_answer_said()} rules out ({undo} puts it back)."


def plausible(it: Interview) -> tuple[int, int]:
    """(chemicals still plausible, chemicals in all): in evidence mode, those of rows at
    least :data:`EVIDENCE_SHOWN` probable as the list prints them, to a tenth of a percent
    (nothing is eliminated there); elsewhere the remaining candidates."""
    rows = candidates(it)
    total = len(it.knowledge.chemicals)
    if it.mode == "evidence":
        rows = [r for r in rows if round(r.probability, 3) >= EVIDENCE_SHOWN]
    return sum(len(r.objects) for r in rows), total


def counts_text(rows) -> str:
    """The candidates of ``rows`` counted as the list shows them: "7 profiles, 10 chemicals"
    (chemicals of one profile share a row), or "3 chemicals"."""
    chems = sum(len(r.objects) for r in rows)
    word = "chemical" if chems == 1 else "chemicals"
    if len(rows) == chems:
        return f"{chems} {word}"
    return f"{len(rows)} profiles, {chems} {word}"


def confidence_threshold(it: Interview) -> float | None:
    """The evidence mode's confidence threshold; None in the strict and noise modes."""
    ev = it.state.evidence
    return None if ev is None else float(ev.threshold)


def leading_classes(it: Interview) -> tuple[ChemicalClass, ...]:
    """The most likely chemical's class, then the most probable others, until they hold
    :data:`LEADING_CLASSES_MASS` of the probability (at most :data:`LEADING_CLASSES_MAX`)."""
    rows = candidates(it)
    first = rows[0].chemicals[0].class_id if rows else None
    bars = sorted(class_bars(it), key=lambda bar: bar[0].id != first)  # stable otherwise
    out, mass = [], 0.0
    for cls, p in bars:
        if p <= 0 or len(out) >= LEADING_CLASSES_MAX:
            break
        out.append(cls)
        mass += p
        if mass >= LEADING_CLASSES_MASS:
            break
    return tuple(out)


#: The result's first line while no victim has a sign answered yes.
NO_SIGN_HEADLINE = "No victim has a sign of poisoning yet"


def _signs_answered_yes(it: Interview) -> list[int]:
    """The signs (not scene observations) any victim has answered yes, each once, in the
    order first given."""
    symptoms = it.knowledge.symptoms
    yes = (r.query for r in it.records if r.answer is Answer.YES)
    return list(dict.fromkeys(q for q in yes if symptoms[q].kind == "symptom"))


def exposure_routes(it: Interview) -> tuple[str, ...]:
    """The routes of exposure (:attr:`KnowledgeBase.route_observations`) any victim answered
    yes, each once, in the order first given: what puts a result's steps for the victims'
    own routes first (:meth:`responder.kb.next_steps.ResultSteps.for_routes`)."""
    routes = {s.index for s in getattr(it.knowledge, "route_observations", ())}
    yes = (r.query for r in it.records if r.answer is Answer.YES)
    return tuple(dict.fromkeys(it.knowledge.symptoms[q].id for q in yes if q in routes))


def signs_seen(it: Interview) -> bool:
    """Whether any victim's sign (not a scene observation) is answered yes."""
    return bool(_signs_answered_yes(it))


def unexplained_signs(it: Interview, row: CandidateRow) -> tuple[list[Symptom], int]:
    """The signs answered yes (any victim's) that ``row``'s profile does not list, and how
    many signs were answered yes in all. A leak lets a short profile absorb such signs, so
    a leader can be confident on answers that mostly speak against it."""
    listed = it.problem.matrix[row.objects[0]]
    yes = _signs_answered_yes(it)
    return [it.knowledge.symptoms[q] for q in yes if not listed[q]], len(yes)


def _doubtful_status(row: CandidateRow, unexplained: list[Symptom], signs: int) -> str:
    shown = ", ".join(s.label for s in unexplained[:3]) + (", …" if len(unexplained) > 3 else "")
    return (
        f"Doubtful: {len(unexplained)} of the {signs} signs answered yes ({shown}) are not "
        f"among {row.names}'s known signs. Check them: the agent may be one the knowledge "
        "base lacks. "
    )


def _no_sign_status(top: CandidateRow) -> str:
    return (
        f"{top.names} leads at {percent(top.probability)} with no sign answered yes: "
        "not an identification"
    )


def result(it: Interview) -> ResultView | None:
    """What was found, once identified or indistinguishable; None before."""
    status = it.status
    if status not in (Status.IDENTIFIED, Status.INDISTINGUISHABLE):
        return None
    all_rows = candidates(it)
    cands = list(all_rows)
    bars = [(c, p) for c, p in class_bars(it) if p > 0]
    evidence = it.mode == "evidence"
    if evidence:
        # Nothing is eliminated: the result is what reached the confidence threshold (or,
        # when no question can help, the candidates still worth naming).
        if status is Status.IDENTIFIED:
            cands, bars = (cands, bars[:1]) if it.target == "class" else (cands[:1], bars)
        else:
            cands = [c for c in cands if c.probability >= EVIDENCE_SHOWN] or cands[:1]
            bars = [(c, p) for c, p in bars if p >= EVIDENCE_SHOWN] or bars[:1]
    mism = min((c.mismatches for c in cands), default=0)
    asked = counted(it.ranked_on, "answer")
    if it.reads_one_victim:
        asked += (
            f" ({it.victim_label(it.victim)}'s and the scene's: {it.mode} mode reads one victim)"
        )
    profile_note = ""
    top = cands[0] if cands else None
    sure = f"{percent(it.confidence())} probable given the answers" if evidence else ""
    if it.target == "class" and len(bars) == 1:
        cls, p_cls = bars[0]
        members = [
            i for c in cands for i in c.objects if it.knowledge.chemicals[i].class_id == cls.id
        ]
        title = cls.label
        kind = "class"
        headline = f"Most likely: {cls.label} (class) {percent(p_cls)}"
        status_text = f"Class identified after {asked}" + (f" ({sure})" if sure else "")
        columns = (f"{cls.label} ({counted(len(members), 'chemical')} left)",)
        profile = _profile(it, [members], share=True)
        confident = True
    elif len(cands) == 1:
        c = cands[0]
        if len(c.objects) == 1:
            kind, title = "chemical", c.chemicals[0].name
            status_text = f"Identified after {asked}"
        else:
            kind, title = "set", c.names
            status_text = (
                f"Identified after {asked} as one of {len(c.objects)} chemicals with the same "
                "symptom profile: no symptom in the knowledge base tells them apart"
            )
        if sure:
            status_text += f" ({sure})"
        headline = f"Most likely: {c.names} ({c.class_short}) {percent(c.probability)}"
        columns = (c.chemicals[0].name if kind == "chemical" else "This set",)
        profile = _profile(it, [list(c.objects)], share=False)
        confident = not evidence or status is Status.IDENTIFIED
    else:
        kind = "several"
        what = "classes" if it.target == "class" else "chemicals"
        n = len(bars) if it.target == "class" else len(cands)
        title = f"{n} {what} remain"
        headline = f"Most likely: {top.names} ({top.class_short}) {percent(top.probability)}"
        listed = (
            counted(len(bars), "class", "classes") if it.target == "class" else counts_text(cands)
        )
        if any(r.answer is Answer.UNKNOWN for r in it.records):
            why = '(some answers were "can\'t tell", or no symptom separates them)'
        elif _an_answer_separates(it, cands):
            # the answers weigh them apart (the profile below), only not far enough
            why = "(the symptoms that do are answered already)"
        else:
            why = "(no symptom in the knowledge base separates them)"
        status_text = (
            f"Not confident: after {asked} no further symptom tells these {listed} apart {why}"
        )
        shown = cands[:PROFILE_COLUMNS]
        columns = tuple(c.names for c in shown)
        profile = _profile(it, [list(c.objects) for c in shown], share=False)
        if len(cands) > len(shown):
            profile_note = (
                f"The profile shows the {len(shown)} most probable of the "
                f"{len(cands)} candidates; all {len(cands)} are listed above."
            )
        confident = False
    if top is not None and kind in ("chemical", "set"):
        unexplained, signs = unexplained_signs(it, top)
        if len(unexplained) >= 2 and 2 * len(unexplained) > signs:
            status_text = _doubtful_status(top, unexplained, signs) + status_text
            confident = False
    no_sign = top is not None and not signs_seen(it)
    if no_sign:
        # every sign answered no or can't tell: the chemical that lists fewest signs rises,
        # which identifies nothing (an unharmed person, a white powder of unknown nature)
        headline = NO_SIGN_HEADLINE
        status_text = _no_sign_status(top)
        confident = False
    leading = () if confident else leading_classes(it)
    class_line = _class_line(kind, top, bars, leading, identifiers=not no_sign)
    sources: dict[str, None] = {}
    for c in cands:
        for ch in c.chemicals:
            for s in ch.sources:
                sources.setdefault(s)
    favour, against, runner_up = weighed(it)
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
        class_line=class_line,
        status=status_text,
        counts=counts_text(cands) if kind == "several" or len(cands) > 1 else "",
        confident=confident,
        leading_classes=leading,
        leader=top.names if top else title,
        favour=tuple(favour),
        against=tuple(against),
        runner_up=runner_up,
    )


@dataclass(frozen=True)
class ProvisionalLead:
    """An interview in progress: its leading candidate and classes, which the steps of
    :func:`responder.kb.next_steps.result_steps` read as they read an unsure result (the
    steps common to the leading classes, the leader's hallmark warnings first)."""

    headline: str  # "Leading so far: Sarin (GB) (Nerve) 42%"
    class_line: str  # its class and the leading classes, with their chances
    leader: str
    candidates: tuple[CandidateRow, ...]
    classes: tuple[tuple[ChemicalClass, float], ...]
    leading_classes: tuple[ChemicalClass, ...]
    kind: str = "several"
    confident: bool = False


def provisional_lead(it: Interview) -> ProvisionalLead | None:
    """The leader so far, while there is no result; None once there is one, or when no
    candidate is left (no chemical fits in the strict and noise modes)."""
    if result(it) is not None:
        return None
    rows = candidates(it)
    if not rows:
        return None
    top = rows[0]
    bars = tuple((c, p) for c, p in class_bars(it) if p > 0)
    headline = f"Leading so far: {top.names} ({top.class_short}) {percent(top.probability)}"
    no_sign = bool(it.records) and not signs_seen(it)
    if no_sign:
        headline = f"{NO_SIGN_HEADLINE}. {_no_sign_status(top)}"
    leading = leading_classes(it)
    line = _class_line("several", top, bars, leading or bars[:1], identifiers=not no_sign)
    return ProvisionalLead(headline, line, top.names, tuple(rows), bars, leading)


def _class_line(
    kind: str, top: CandidateRow | None, bars, leading, identifiers: bool = True
) -> str:
    """The class and identifiers of the result's leader: "Class: Nerve agents · CAS
    107-44-8 · UN 2810"; while unsure (``leading`` classes given), with the chances. Without
    ``identifiers`` (no sign seen: the leader is named as no identification) no CAS or UN
    number, which would read as the chemical found."""
    confident = not leading
    if kind == "class":
        cls = bars[0][0]
        line = f"Class: {cls.label}"
        if cls.description:
            line += f" · {cls.description}"
        if top is not None:
            line += f" · leading chemical {top.names} {percent(top.probability)}"
        return line
    if top is None:
        return ""
    p_of = {c.id: p for c, p in bars}
    chem = top.chemicals[0]
    parts = [f"Class: {top.class_labels}"]
    if chem.class_id in p_of and (not confident or p_of[chem.class_id] < 0.995):
        parts[0] += f" {percent(p_of[chem.class_id])}"
    if len(leading) > 1:
        ranked = sorted(leading, key=lambda c: -p_of.get(c.id, 0.0))
        shown = ", ".join(f"{c.short} {percent(p_of.get(c.id, 0.0))}" for c in ranked)
        parts[0] += f" (leading classes: {shown})"
    if identifiers and len(top.chemicals) == 1:
        if chem.cas_label:
            parts.append(chem.cas_label)
        if chem.un:
            parts.append(f"UN {chem.un}")
    return " · ".join(parts)


def _counted_against(it: Interview, objects: list[int]) -> list[dict] | None:
    """Per object, whether each (query, yes, victim) answer counts against it under the
    evidence mode's answer model (:meth:`Belief.against`; victim -1: the incident's); None
    in the other modes. With route views the victim's own route decides, so each victim's
    answer has its entry."""
    if it.state.evidence is None:
        return None
    belief = it.state.belief
    against = belief.against()
    keys = list(zip(belief.queries.tolist(), belief.values.tolist(), it.state.pooled_owners()))
    return [
        {(q, bool(yes), owner): bool(against[obj, t]) for t, (q, yes, owner) in enumerate(keys)}
        for obj in objects
    ]


def _profile(it: Interview, columns: list[list[int]], share: bool) -> list[ProfileRow]:
    B = it.problem.matrix
    rows: list[ProfileRow] = []
    given = _ranked_answers_owned(it)
    answered = {r.query for r, _, _ in given}
    kn = it.knowledge
    counted = _counted_against(it, [objs[0] for objs in columns]) if not share else None

    def expected(q: int) -> tuple[float, ...]:
        return tuple(
            float(B[objs, q].mean()) if share else float(B[objs[0], q]) for objs in columns
        )

    for r, who, owner in given:
        exp = expected(r.query)
        marks = []
        for c, e in enumerate(exp):
            if r.answer is Answer.UNKNOWN:
                marks.append("unknown")
            elif e in (0.0, 1.0):
                fits = (e == 1.0) == (r.answer is Answer.YES)
                # an implied answer (another answer's consequence) counts against nobody,
                # as in the candidates' count (Interview.contradicted); in the evidence mode
                # an answer the model does not count against the column's chemical (a "no"
                # to an occasional sign, or to another route's contact sign) is not a ✗
                # either, as in the candidates' ✗ (against_labels)
                key = (r.query, r.answer is Answer.YES, owner)
                uncounted = counted is not None and key in counted[c] and not counted[c][key]
                marks.append(
                    "match"
                    if fits
                    else "implied"
                    if r.implied
                    else "uncounted"
                    if uncounted
                    else "mismatch"
                )
            else:
                marks.append("partial")
        rows.append(ProfileRow(kn.symptoms[r.query], r.answer, exp, tuple(marks), who))
    for s in kn.symptoms:
        if s.index in answered:
            continue
        exp = expected(s.index)
        if any(e >= 0.5 for e in exp):
            rows.append(
                ProfileRow(s, None, exp, tuple("expected" if e >= 0.5 else "" for e in exp))
            )
    return rows


# -- the main screen, one view per panel ------------------------------------------------------


@dataclass(frozen=True)
class PromptView:
    """The question panel: what to ask, or why the interview stopped."""

    question: QuestionView | None
    status: Status
    mode: str
    #: when no chemical fits
    no_fit: NoFitView | None = None
    #: when a result is ready: its first line ("Most likely: ...")
    result_headline: str = ""
    #: and whom it names ("Chlorine"): the same result, whatever its chance, names the same
    result_leader: str = ""


def prompt(it: Interview) -> PromptView:
    status = it.status
    if status is Status.INCONSISTENT:
        return PromptView(None, status, it.mode, no_fit=no_fit(it))
    view = question(it)
    if view is not None:
        return PromptView(view, status, it.mode)
    found = result(it)
    if found is None:
        return PromptView(None, status, it.mode)
    return PromptView(
        None, status, it.mode, result_headline=found.headline, result_leader=found.leader
    )


@dataclass(frozen=True)
class CandidatesView:
    """The candidates panel: the rows and how to count them."""

    rows: tuple[CandidateRow, ...]
    mode: str  # "evidence", "strict" or "noise"
    no_fit: bool  # the rows are the closest chemicals, none fitting every answer
    #: chemicals still plausible (evidence mode: in rows at least EVIDENCE_SHOWN probable;
    #: elsewhere: remaining) and in the knowledge base
    plausible: int
    total: int
    #: evidence mode: the answers that count against the first row
    against_first: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        """The panel's title; :attr:`short_title` where it would not fit."""
        if self.no_fit:
            return "Closest chemicals (none fits every answer)"
        if self.mode == "evidence":
            if not self.plausible:  # nothing is ruled out: every chemical is just less likely
                return f"Candidates: none above {EVIDENCE_SHOWN:.0%} yet, of {self.total}"
            return (
                f"Candidates: {self.plausible} plausible (above {EVIDENCE_SHOWN:.0%}) "
                f"of {self.total}"
            )
        return "Candidates: " + counts_text(self.rows)

    @property
    def short_title(self) -> str:
        if self.no_fit:
            return "Closest (none fits)"
        if self.mode == "evidence":
            if not self.plausible:
                return f"None above {EVIDENCE_SHOWN:.0%} yet"
            return f"{self.plausible} plausible (>{EVIDENCE_SHOWN:.0%}) of {self.total}"
        return counts_text(self.rows)


def candidates_view(it: Interview) -> CandidatesView:
    inconsistent = it.status is Status.INCONSISTENT
    rows = closest(it) if inconsistent else candidates(it)
    shown, total = plausible(it)
    against: tuple[str, ...] = ()
    if it.mode == "evidence" and not inconsistent and rows:
        against = tuple(against_labels(it, rows[0]))
    return CandidatesView(tuple(rows), it.mode, inconsistent, shown, total, against)


@dataclass(frozen=True)
class AnswersView:
    """The answers panel: newest first, with those the leading chemical contradicts."""

    rows: tuple[HistoryRow, ...]
    doubted: frozenset[int] = frozenset()
    doubt_label: str = ""


def answers_view(it: Interview) -> AnswersView:
    rows = tuple(reversed(history(it)))
    if it.status is Status.INCONSISTENT:
        near = closest(it, 1)
        if near:
            name = near[0].chemicals[0].name
            return AnswersView(rows, frozenset(it.contradicted(near[0].objects)), name)
    elif it.noise_tolerated:
        cands = candidates(it)
        if cands:
            name = cands[0].chemicals[0].name
            return AnswersView(rows, frozenset(it.contradicted(cands[0].objects)), name)
    return AnswersView(rows)


@dataclass(frozen=True)
class StatusView:
    """The status line's figures (the expected questions left come from a helper)."""

    asked: int
    mode: str
    confidence: float
    target: str
    suggest: str
    policy: str
    #: (wrong answers assumed, tolerated) with noise tolerance on
    noise: tuple[int, int] | None
    unsaved: int = 0
    save_error: str = ""
    #: with several victims, every victim's answers and the incident's (``asked`` counts the
    #: current victim's and the incident's); None with one victim
    asked_in_all: int | None = None
    #: the strict and noise modes with several victims: the one victim whose answers they
    #: read ("V2"); "" when the ranking reads every victim
    reads_victim: str = ""


def status_view(it: Interview) -> StatusView:
    return StatusView(
        it.asked,
        it.mode,
        it.confidence(),
        it.target,
        it.suggest,
        it.policy_name,
        it.noise_budget(),
        it.unsaved,
        it.journal_error or "",
        it.answered if len(it.victims) > 1 else None,
        f"V{it.victim + 1}" if it.reads_one_victim else "",
    )


def act_now(it: Interview) -> str | None:
    """The act-now line while any victim has a life-threatening sign answered yes (the one
    being asked first, others by name); None otherwise."""
    kn = it.knowledge

    def urgent_of(victim: int, shared: bool) -> list[str]:
        return [
            kn.symptoms[r.query].label
            for r in it.state.victim_answers(victim)
            if r.answer is Answer.YES
            and kn.symptoms[r.query].urgent
            and (shared or not it.state.is_shared(r.query))  # the incident's: named once
        ]

    labels = urgent_of(it.victim, shared=True)
    others = [
        (it.victim_label(v), urgent_of(v, shared=False))
        for v in range(len(it.victims))
        if v != it.victim
    ]
    if not labels and not any(signs for _, signs in others):
        return None
    from responder.kb.next_steps import act_now_message, steps_for  # noqa: PLC0415

    return act_now_message(labels, steps_for(kn).poison_centre, others)


@dataclass(frozen=True)
class MainView:
    """Everything the interview screen shows, panel by panel."""

    knowledge_name: str
    chemicals: int
    symptoms: int
    prompt: PromptView
    candidates: CandidatesView
    classes: tuple[tuple[ChemicalClass, float], ...]
    answers: AnswersView
    status: StatusView
    victims: tuple[VictimView, ...]
    act_now: str | None
    generation: int
    classes_note: str = ""


#: The classes panel's note when the classes are weighed under another prior than the
#: chemicals (the split prior), so a class may show less than its own leading chemical.
CLASSES_WEIGHED_ALIKE = "each class alike at start"


def classes_note(it: Interview) -> str:
    """:data:`CLASSES_WEIGHED_ALIKE` while the evidence mode ranks the chemicals under their
    own prior and the classes under the classes' (:meth:`Problem.ranking_prior`); else ""."""
    problem = it.problem
    split = problem.ranking_prior("object") is not problem.prior
    return CLASSES_WEIGHED_ALIKE if split and it.mode == "evidence" and it.target != "class" else ""


def _an_answer_separates(it: Interview, cands) -> bool:
    """Whether a symptom answered so far is listed for some of ``cands`` and not others: then
    the knowledge base does separate them, by an answer already given."""
    answered = sorted({r.query for r in it.records})
    if not answered or len(cands) < 2:
        return False
    rows = it.problem.matrix[[c.objects[0] for c in cands]][:, answered]
    return bool((rows != rows[0]).any())


def main_screen(it: Interview) -> MainView:
    kn = it.knowledge
    return MainView(
        kn.name,
        len(kn.chemicals),
        len(kn.symptoms),
        prompt(it),
        candidates_view(it),
        tuple(class_bars(it)),
        answers_view(it),
        status_view(it),
        tuple(victims(it)),
        act_now(it),
        it.generation,
        classes_note(it),
    )


def ranks(it: Interview) -> dict[int, tuple[int, float]]:
    """Each chemical's place in the candidates list now: chemical index -> (rank, row
    probability); chemicals no longer possible (strict and noise modes) are left out."""
    out: dict[int, tuple[int, float]] = {}
    if it.status is Status.INCONSISTENT:
        return out
    for rank, row in enumerate(candidates(it), start=1):
        for i in row.objects:
            out[i] = (rank, row.probability)
    return out


# -- summary for journals list, exports ------------------------------------------------


def top_candidate(it: Interview) -> str:
    status = it.status
    if status is Status.INCONSISTENT:
        return "no chemical fits"
    cands = candidates(it)
    if not cands:
        return "—"
    c = cands[0]
    return f"{c.names} {percent(c.probability)}"
