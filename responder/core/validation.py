"""Validation on case vignettes: each case answered through an interview in each mode.

The simulated responder answers each suggested question from the case: a sign the report
states as present is "yes", one it states as absent is "no", and a sign it does not mention
is "can't tell". Scene facts (the smell, the cloud, the place, when signs began) are answered
the same way, or, for the "signs only" figures, left unanswered; as in the app, the interview
opens on the scene step (every scene fact the case states present is ticked before any
question) and a question on an exclusive group takes the case's value of the whole group in
one answer. The interview runs until the mode stops
(:func:`responder.engine.interview.run_interview` on the state
:func:`responder.core.modes.state_for` builds from the knowledge base and the mode's
:class:`~responder.config.InterviewConfig`). Then the truth's rank among the chemicals and
its class's rank among the classes are read from the mode's final probabilities.

Ranks are pessimistic about ties: the truth ranks below every other candidate of equal or
higher probability, so a tie never counts in its favour. Chemicals with one identical
symptom profile count as one candidate (no question can part them; the simulator counts
them the same way). A chemical with probability 0 (eliminated by a strict mode) has no
rank, nor does any chemical when the interview ends with no candidate left ("no fit").

Each case belongs to one half, by the parity of a hash of its file name: grades and answer
models are fitted on the ``fit`` half and checked on the ``held-out`` half, reported
separately.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from responder.config import InterviewConfig, NoiseSettings
from responder.core.counted import counted
from responder.core.modes import exclusive_groups, state_for
from responder.engine.evidence import EvidenceSettings
from responder.engine.interview import run_interview
from responder.engine.problem import Problem
from responder.engine.state import Answer
from responder.kb.cases import Case
from responder.kb.model import DEFAULT_PRIOR_MODE, PRIOR_MODES, KnowledgeBase

TOP_K = 5
DEFAULT_EPS = 2  # the best persistent-noise setting of the flip study (docs/robustness.md)
HALVES = ("fit", "held-out")
#: What the simulated responder may answer: the victims' signs only, or the scene as well.
ANSWERS_SEEN = ("signs", "scene")


def case_half(case: Case) -> str:
    """``"fit"`` or ``"held-out"``: the parity of the SHA-256 of the case's id, so a case
    keeps its half whatever else is added."""
    return HALVES[hashlib.sha256(case.id.encode()).digest()[0] % 2]


@dataclass(frozen=True)
class Outcome:
    """How one interview ended.

    Attributes
    ----------
    chemical_probability : ndarray of shape (M,)
        The mode's final probability of each chemical (all zero after "no fit").
    class_probability : ndarray of shape (m,)
        The same for each class, in classes.toml order.
    asked : tuple of (int, Answer)
        The questions asked, in order, with the simulated answers.
    status : str
        ``"identified"``, ``"indistinguishable"``, ``"no_fit"`` or another stop the mode names.
    scene_step : tuple of int
        The scene observations ticked on the scene step, before any question.
    """

    chemical_probability: np.ndarray
    class_probability: np.ndarray
    asked: tuple[tuple[int, Answer], ...]
    status: str
    scene_step: tuple[int, ...] = ()


# The simulated responder: the answer to query q.
Respond = Callable[[int], Answer]


@dataclass(frozen=True)
class Settings:
    """What a validation run may vary; one place for all modes.

    base : InterviewConfig
        The evidence mode's settings and the noise mode's eps (its target, suggestion and
        mode are each validation mode's own).
    max_questions : int or None
        A cap on questions per interview (None: the number of queries).
    prior : {"chemical", "class", "split"}
        The prior over chemicals (:meth:`KnowledgeBase.prior_vector`).
    """

    base: InterviewConfig = field(
        default_factory=lambda: InterviewConfig(noise=NoiseSettings(eps=DEFAULT_EPS))
    )
    max_questions: int | None = None
    prior: str = DEFAULT_PRIOR_MODE

    @property
    def eps(self) -> int | None:
        return self.base.noise.eps


@dataclass(frozen=True)
class Mode:
    """A way of running the interview: an interview configuration's target, suggestion and
    answer model."""

    name: str
    description: str
    target: str
    mode: str

    def config(self, settings: Settings) -> InterviewConfig:
        return replace(settings.base, target=self.target, suggest="symptom", mode=self.mode)


MODES: dict[str, Mode] = {
    m.name: m
    for m in (
        Mode(
            "evidence",
            "evidence-weighted, identify the chemical (nothing is eliminated; stops when "
            "confident)",
            "chemical",
            "evidence",
        ),
        Mode("evidence-class", "evidence-weighted, identify the class", "class", "evidence"),
        Mode(
            "strict-gbs",
            "paper's GBS, identify the chemical, answers taken as exact",
            "chemical",
            "strict",
        ),
        Mode(
            "strict-gisa",
            "paper's GISA, identify the class, answers taken as exact",
            "class",
            "strict",
        ),
        Mode(
            "noise-gbs",
            "paper's GBS under persistent noise (up to eps wrong answers)",
            "chemical",
            "noise",
        ),
    )
}


def make_settings(
    config: InterviewConfig | None = None,
    max_questions: int | None = None,
    prior: str | None = None,
) -> Settings:
    """Settings with every value checked; ValueError says which is wrong and why (the
    interview configuration is validated by :meth:`InterviewConfig.from_dict`)."""
    if prior is not None and prior not in PRIOR_MODES:
        raise ValueError(f"unknown prior {prior!r}; choose one of {', '.join(PRIOR_MODES)}")
    if max_questions is not None and (isinstance(max_questions, bool) or max_questions < 1):
        raise ValueError(f"max_questions is {max_questions!r}; give a whole number 1 or more")
    base = config or InterviewConfig()
    if base.noise.eps is None:
        base = replace(base, noise=replace(base.noise, eps=DEFAULT_EPS))
    return Settings(base, max_questions, prior or DEFAULT_PRIOR_MODE)


def run_mode(
    kb: KnowledgeBase, problem: Problem, respond: Respond, mode: Mode, settings: Settings
) -> Outcome:
    """One interview of ``mode`` answered by ``respond``."""
    state = state_for(kb, mode.config(settings), problem)
    ticked = scene_step(state, kb, respond)
    cap = settings.max_questions or problem.n_queries
    asked, _ = run_interview(state, exclusive_groups(kb).respond_to(state, respond), cap=cap)
    status = state.stop_reason or "asking"
    return Outcome(
        state.object_probabilities(),
        state.group_probabilities(),
        tuple(asked),
        status,
        ticked,
    )


def scene_step(state, kb: KnowledgeBase, respond: Respond) -> tuple[int, ...]:
    """The app's scene step: tick yes every scene observation ``respond`` says holds, before
    any question (a new interview opens on it). Returns the ticked queries."""
    ticked = tuple(
        q for q, s in enumerate(kb.symptoms) if s.kind == "scene" and respond(q) is Answer.YES
    )
    for q in ticked:
        state.answer(q, Answer.YES)
    return ticked


# --- scoring ---------------------------------------------------------------------------------


def chemical_rank(B: np.ndarray, prob: np.ndarray, truth: Sequence[int]) -> int | None:
    """Pessimistic rank (1 = first) of the best of ``truth`` by ``prob``; None if none has mass.

    Other chemicals with probability >= the truth's count against it, chemicals sharing one
    symptom profile count once, and the truth's own profile is never counted.
    """
    best = max(truth, key=lambda i: prob[i], default=None)
    if best is None or prob[best] <= 0:
        return None
    rivals = np.flatnonzero(prob >= prob[best])
    own = {B[i].tobytes() for i in truth}
    profiles = {B[i].tobytes() for i in rivals} - own
    return 1 + len(profiles)


def class_rank(prob: np.ndarray, truth: int) -> int | None:
    """Pessimistic rank of class ``truth``: 1 + classes with probability >= its own."""
    if prob.size == 0 or prob[truth] <= 0:
        return None
    return int(np.sum(prob >= prob[truth]))


@dataclass(frozen=True)
class CaseResult:
    """One case in one mode."""

    case: str
    mode: str
    rank: int | None  # None: the agent is not in the knowledge base, or it was eliminated
    class_rank: int | None
    status: str
    asked: tuple[tuple[str, str], ...]  # (symptom id, answer)
    top: tuple[str, ...]  # the first chemicals by probability (names)
    scene_step: tuple[str, ...] = ()  # scene observations ticked before any question
    half: str = "fit"  # "fit" or "held-out" (case_half)
    scene: bool = True  # the responder answered scene facts too

    @property
    def top1(self) -> bool:
        return self.rank == 1

    @property
    def top5(self) -> bool:
        return self.rank is not None and self.rank <= TOP_K

    @property
    def class_top1(self) -> bool:
        return self.class_rank == 1


@dataclass(frozen=True)
class ModeSummary:
    """Counts for one mode. Chemical accuracy is over ``chemical_cases`` (cases that name a
    chemical, in the knowledge base or not); class accuracy is over all ``cases``."""

    mode: str
    description: str
    seen: str  # "signs" or "scene" (ANSWERS_SEEN)
    half: str | None  # "fit", "held-out", or None for every case
    cases: int
    chemical_cases: int
    top1: int
    top5: int
    class_top1: int
    no_fit: int
    mean_questions: float

    def as_dict(self) -> dict:
        n, k = self.cases or 1, self.chemical_cases or 1
        return {
            "mode": self.mode,
            "description": self.description,
            "answers": self.seen,
            "half": self.half or "all",
            "cases": self.cases,
            "chemical_cases": self.chemical_cases,
            "top1": self.top1,
            "top5": self.top5,
            "class": self.class_top1,
            "top1_rate": self.top1 / k,
            "top5_rate": self.top5 / k,
            "class_rate": self.class_top1 / n,
            "no_fit": self.no_fit,
            "mean_questions": self.mean_questions,
        }


@dataclass
class Report:
    """Every case in every mode, and the per-mode summaries."""

    kb_name: str
    modes: list[str]
    cases: list[Case]
    #: (mode, "signs" or "scene") -> one result per case, in case order
    results: dict[tuple[str, str], list[CaseResult]] = field(default_factory=dict)
    settings: Settings = field(default_factory=Settings)
    coverage: dict[str, SignCoverage | None] = field(default_factory=dict)  # case -> coverage
    #: the evidence modes' settings in force: the given ones over the knowledge base's
    evidence: EvidenceSettings = field(default_factory=EvidenceSettings)
    #: where the cases were read (a folder or a file); "" when not known
    cases_from: str = ""

    def sign_totals(self) -> tuple[int, int]:
        """(present signs the agents' rows list, present signs) over cases with a row."""
        rows = [c for c in self.coverage.values() if c is not None]
        return sum(c.listed for c in rows), sum(c.present for c in rows)

    def summary(
        self,
        mode: str,
        seen: str = "scene",
        half: str | None = None,
        class_id: str | None = None,
    ) -> ModeSummary:
        """Counts for ``mode`` with the responder answering ``seen``, over every case or one
        half, and optionally one class's cases."""
        pairs = [
            (c, r)
            for c, r in zip(self.cases, self.results[mode, seen])
            if (half is None or r.half == half) and (class_id is None or c.class_id == class_id)
        ]
        rs = [r for _, r in pairs]
        asked = [len(r.asked) for r in rs]
        chemical_cases = sum(not c.class_only for c, _ in pairs)
        return ModeSummary(
            mode,
            MODES[mode].description,
            seen,
            half,
            len(rs),
            chemical_cases,
            sum(r.top1 for r in rs),
            sum(r.top5 for r in rs),
            sum(r.class_top1 for r in rs),
            sum(r.status == "no_fit" for r in rs),
            float(np.mean(asked)) if asked else 0.0,
        )


def respond_from(case: Case, kb: KnowledgeBase, scene: bool = True) -> Respond:
    """The simulated responder: present -> yes, absent -> no, not mentioned -> can't tell.
    Without ``scene``, scene facts are not mentioned either (the signs-only figures)."""
    stated = case.answers()
    ids = kb.symptom_ids
    kinds = [s.kind for s in kb.symptoms]

    def respond(query: int) -> Answer:
        present = stated.get(ids[query])
        if present is None or (not scene and kinds[query] == "scene"):
            return Answer.UNKNOWN
        return Answer.YES if present else Answer.NO

    return respond


def run_case(
    kb: KnowledgeBase,
    problem: Problem,
    case: Case,
    mode: str,
    settings: Settings,
    scene: bool = True,
) -> CaseResult:
    """Interview ``case`` in ``mode`` and score it."""
    outcome = run_mode(kb, problem, respond_from(case, kb, scene), MODES[mode], settings)
    class_index = [c.id for c in kb.classes].index(case.class_id)
    order = np.argsort(-outcome.chemical_probability, kind="stable")
    top = tuple(kb.chemicals[i].name for i in order[:TOP_K] if outcome.chemical_probability[i] > 0)
    return CaseResult(
        case=case.id,
        mode=mode,
        rank=chemical_rank(kb.matrix, outcome.chemical_probability, case.chemicals),
        class_rank=class_rank(outcome.class_probability, class_index),
        status=outcome.status,
        asked=tuple((kb.symptom_ids[q], a.value) for q, a in outcome.asked),
        top=top,
        scene_step=tuple(kb.symptom_ids[q] for q in outcome.scene_step),
        half=case_half(case),
        scene=scene,
    )


def check_modes(names: Sequence[str] | None) -> list[str]:
    """The modes to run (default: all registered); ValueError naming the valid ones."""
    if not names:
        return list(MODES)
    unknown = [n for n in names if n not in MODES]
    if unknown:
        raise ValueError(f"unknown mode {unknown[0]!r}; choose from {', '.join(MODES)}")
    return list(dict.fromkeys(names))


@dataclass(frozen=True)
class SignCoverage:
    """How well the agent's knowledge-base row matches what the report states.

    ``unlisted`` are signs the report states as present that the row lacks (a strict mode
    drops the agent on the first of them it asks); ``contradicted`` are signs the report
    states as absent that the row lists. For several agents, the row that matches best.
    """

    listed: int
    present: int
    unlisted: tuple[str, ...]
    contradicted: tuple[str, ...]


def sign_coverage(kb: KnowledgeBase, case: Case) -> SignCoverage | None:
    """The case's signs against its agent's row; None when no agent row is in the KB."""
    if not case.chemicals:
        return None
    present = [s.symptom for s in case.signs if s.present]
    absent = [s.symptom for s in case.signs if not s.present]

    def score(row: int) -> SignCoverage:
        listed = kb.chemicals[row].symptoms
        return SignCoverage(
            sum(p in listed for p in present),
            len(present),
            tuple(p for p in present if p not in listed),
            tuple(a for a in absent if a in listed),
        )

    return max((score(r) for r in case.chemicals), key=lambda c: c.listed - len(c.contradicted))


def validate(
    kb: KnowledgeBase,
    cases: Sequence[Case],
    modes: Sequence[str] | None = None,
    settings: Settings | None = None,
    cases_from: str | Path = "",
) -> Report:
    """Run every case through every mode (default: all registered modes); ``cases_from``
    says where the cases were read, for the report."""
    names = check_modes(modes)
    settings = settings or Settings()
    problem = kb.to_problem(settings.prior)
    report = Report(
        kb.name,
        names,
        list(cases),
        settings=settings,
        coverage={c.id: sign_coverage(kb, c) for c in cases},
        evidence=settings.base.resolved_evidence(kb.answer_model),
        cases_from=str(cases_from),
    )
    for mode in names:
        for seen in ANSWERS_SEEN:
            report.results[mode, seen] = [
                run_case(kb, problem, c, mode, settings, scene=seen == "scene") for c in cases
            ]
    return report


# --- output ----------------------------------------------------------------------------------


def report_json(report: Report) -> dict:
    """The report as plain JSON-ready data."""
    listed, present = report.sign_totals()
    classes = sorted({c.class_id for c in report.cases})
    return {
        "knowledge_base": report.kb_name,
        "cases_from": report.cases_from,
        "signs_listed": listed,
        "signs_present": present,
        "settings": {
            "prior": report.settings.prior,
            "max_questions": report.settings.max_questions,
            "interview": report.settings.base.to_dict(),
            "evidence": report.evidence.describe(),
        },
        "modes": [
            report.summary(m, seen, half).as_dict()
            for m in report.modes
            for seen in ANSWERS_SEEN
            for half in (None, *HALVES)
        ],
        "classes": {
            class_id: {
                m: {
                    seen: report.summary(m, seen, class_id=class_id).as_dict()
                    for seen in ANSWERS_SEEN
                }
                for m in report.modes
            }
            for class_id in classes
        },
        "cases": [
            {
                "case": c.id,
                "file": c.file,
                "agent": list(c.agents),
                "class": c.class_id,
                "half": case_half(c),
                "in_kb": bool(c.chemicals),
                "class_only": c.class_only,
                "citation": c.citation,
                "url": c.url,
                "signs": [
                    {"symptom": s.symptom, "present": s.present, "quote": s.quote} for s in c.signs
                ],
                "unlisted": list(cov.unlisted) if (cov := report.coverage.get(c.id)) else None,
                "contradicted": list(cov.contradicted) if cov else None,
                "modes": {
                    f"{m} ({seen})": {
                        "rank": r.rank,
                        "class_rank": r.class_rank,
                        "status": r.status,
                        "questions": len(r.asked),
                        "scene_step": list(r.scene_step),
                        "asked": [{"symptom": s, "answer": a} for s, a in r.asked],
                        "top": list(r.top),
                    }
                    for m in report.modes
                    for seen in ANSWERS_SEEN
                    for r in (report.results[m, seen][i],)
                },
            }
            for i, c in enumerate(report.cases)
        ],
    }


def _pct(k: int, n: int) -> str:
    return f"{k:>3}/{n:<3} {100 * k / n:3.0f}%" if n else "      -    "


def format_report(report: Report) -> str:
    """The text ``kb validate`` prints: per mode, signs only and with the scene, over every
    case and each half; the evidence mode per class; then one line per case."""
    n_cases = len(report.cases)
    missing = sum(not c.chemicals and not c.class_only for c in report.cases)
    class_only = sum(c.class_only for c in report.cases)
    halves = {h: sum(case_half(c) == h for c in report.cases) for h in HALVES}
    out = [
        f"Validation of knowledge base {report.kb_name!r} on {counted(n_cases, 'case vignette')} "
        + (f"from {report.cases_from} " if report.cases_from else "")
        + f"(prior per {report.settings.prior}; halves: fit {halves['fit']}, held-out "
        f"{halves['held-out']})"
    ]
    if class_only:
        out.append(f"  {class_only} name only a class: scored on class, left out of top-1/top-5")
    if missing:
        out.append(
            f"  {missing} name an agent the knowledge base lacks: counted as top-1/top-5 misses"
        )
    listed, present = report.sign_totals()
    if present:
        out.append(
            f"  the agents' knowledge-base rows list {listed} of the {present} signs the "
            f"reports state as present ({100 * listed / present:.0f}%)"
        )
    out += [
        "",
        f"  {'mode':<14} {'answers':<7} {'cases':<8} {'top-1':>12}  {'top-5':>12}  "
        f"{'class':>12}  {'no fit':>6}  {'questions':>9}",
    ]
    for m in report.modes:
        for seen in ANSWERS_SEEN:
            for half in (None, *HALVES):
                s = report.summary(m, seen, half)
                out.append(
                    f"  {m:<14} {seen:<7} {half or 'all':<8} {_pct(s.top1, s.chemical_cases)}  "
                    f"{_pct(s.top5, s.chemical_cases)}  {_pct(s.class_top1, s.cases)}  "
                    f"{s.no_fit:>6}  {s.mean_questions:>9.1f}"
                )
    per_class = next((m for m in report.modes if m.startswith("evidence")), report.modes[0])
    out += [
        "",
        f"Per class ({per_class}; signs only -> with the scene): top-1, top-5 of the chemical "
        "cases, class on top of all",
    ]
    for class_id in sorted({c.class_id for c in report.cases}):
        a, b = (report.summary(per_class, seen, class_id=class_id) for seen in ANSWERS_SEEN)
        out.append(
            f"  {class_id:<26} {a.cases:>3} cases  top-1 {a.top1}->{b.top1}  "
            f"top-5 {a.top5}->{b.top5}  class {a.class_top1}->{b.class_top1}"
        )
    out += [
        "",
        "Per case, with the scene: rank of the agent / rank of its class (- = eliminated or "
        "no fit; n/a = not in the knowledge base; class = the report names only the class)",
        "",
    ]
    width = max((len(c.id) for c in report.cases), default=4)
    out.append(f"  {'case':<{width}}  half      " + "  ".join(f"{m:>14}" for m in report.modes))
    for i, case in enumerate(report.cases):
        cells = []
        for m in report.modes:
            r = report.results[m, "scene"][i]
            rank = (
                "class"
                if case.class_only
                else "n/a"
                if not case.chemicals
                else str(r.rank)
                if r.rank
                else "-"
            )
            cells.append(f"{rank + ' / ' + (str(r.class_rank) if r.class_rank else '-'):>14}")
        out.append(f"  {case.id:<{width}}  {case_half(case):<8}  " + "  ".join(cells))
    gaps = [
        (c.id, cov)
        for c in report.cases
        if (cov := report.coverage.get(c.id)) and (cov.unlisted or cov.contradicted)
    ]
    if gaps:
        out += [
            "",
            "Signs the reports state that the agent's row does not match "
            "(+ present but not listed, - absent but listed):",
        ]
        out += [
            f"  {cid}: "
            + " ".join([f"+{s}" for s in cov.unlisted] + [f"-{s}" for s in cov.contradicted])
            for cid, cov in gaps
        ]
    out += ["", "Modes:"] + [f"  {m}: {MODES[m].description}" for m in report.modes]
    if "noise-gbs" in report.modes:
        out.append(f"  (noise-gbs uses eps = {report.settings.eps}, every question error-prone)")
    if any(m.startswith("evidence") for m in report.modes):
        ev = report.evidence
        model = ev.answer_model()
        out.append(
            f"  (evidence modes: sensitivity {ev.sensitivity:g}, leak {ev.leak:g}, hallmark "
            f"{model.hallmark:g}, occasional {model.occasional:g}, long-row exponent "
            f"{ev.long_row_exponent:g}, frequency leak {ev.frequency_leak:g}, class borrow "
            f"{ev.class_borrow:g}, textbook presentation {ev.textbook_share:g} (sensitivity "
            f"{ev.textbook_sensitivity:g}, leak {ev.textbook_leak:g}), several routes "
            f"{ev.several_routes_share:g}, stop at "
            f"{ev.threshold:g}; knowledge-base leaks override)"
        )
    return "\n".join(out)
