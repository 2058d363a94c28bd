"""Validation on case vignettes: each case answered through an interview in each mode.

The simulated responder answers each suggested question from the case: a sign the report
states as present is "yes", one it states as absent is "no", and a sign it does not mention
is "can't tell". The interview runs until the mode stops. Then the truth's rank among the
chemicals and its class's rank among the classes are read from the mode's final
probabilities.

Ranks are pessimistic about ties: the truth ranks below every other candidate of equal or
higher probability, so a tie never counts in its favour. Chemicals with one identical
symptom profile count as one candidate (no question can part them; the simulator counts
them the same way). A chemical with probability 0 (eliminated by a strict mode) has no
rank, nor does any chemical when the interview ends with no candidate left ("no fit").

Modes are registered by name in :data:`MODES`; the evidence-weighted modes register
themselves when the engine has :mod:`responder.engine.evidence`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from responder.engine.noise import NoiseModel
from responder.engine.problem import Problem
from responder.engine.state import Answer, InterviewState, Status
from responder.kb.cases import Case
from responder.kb.model import DEFAULT_PRIOR_MODE, PRIOR_MODES, KnowledgeBase

TOP_K = 5
DEFAULT_EPS = 2  # the best persistent-noise setting of the flip study (issue 10)


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
    """

    chemical_probability: np.ndarray
    class_probability: np.ndarray
    asked: tuple[tuple[int, Answer], ...]
    status: str


# The simulated responder: the answer to query q.
Respond = Callable[[int], Answer]


@dataclass(frozen=True)
class Settings:
    """What a validation run may vary; one place for all modes.

    eps : int
        Wrong answers tolerated by the persistent-noise mode (all queries error-prone).
    sensitivity, leak : float or None
        The evidence mode's answer model (None: the engine's defaults); per-symptom leaks
        of the knowledge base override ``leak``.
    max_questions : int or None
        A cap on questions per interview (None: the number of symptoms).
    prior : {"chemical", "class"}
        The prior over chemicals (:meth:`KnowledgeBase.prior_vector`).
    long_row_exponent : float or None
        The evidence mode's long-row discount (None: the engine's default).
    """

    eps: int = DEFAULT_EPS
    sensitivity: float | None = None
    leak: float | None = None
    max_questions: int | None = None
    prior: str = DEFAULT_PRIOR_MODE
    long_row_exponent: float | None = None


@dataclass(frozen=True)
class Mode:
    """A way of running the interview: ``run(kb, problem, respond, settings) -> Outcome``."""

    name: str
    description: str
    run: Callable[[KnowledgeBase, Problem, Respond, Settings], Outcome]


MODES: dict[str, Mode] = {}


def make_settings(
    eps: int | None = None,
    sensitivity: float | None = None,
    leak: float | None = None,
    max_questions: int | None = None,
    prior: str | None = None,
    long_row_exponent: float | None = None,
) -> Settings:
    """Settings with every value checked; ValueError says which is wrong and why."""
    if prior is not None and prior not in PRIOR_MODES:
        raise ValueError(f"unknown prior {prior!r}; choose one of {', '.join(PRIOR_MODES)}")
    if eps is not None and (isinstance(eps, bool) or not isinstance(eps, int) or eps < 0):
        raise ValueError(f"eps is {eps!r}; give a whole number 0 or more")
    for name, value in (("sensitivity", sensitivity), ("leak", leak)):
        if value is not None and not 0.0 < float(value) < 1.0:
            raise ValueError(f"{name} is {value}; it must lie strictly between 0 and 1")
    try:
        from responder.engine import evidence as ev  # noqa: PLC0415
    except ImportError:
        if sensitivity is not None and leak is not None and not leak < sensitivity:
            raise ValueError(f"leak ({leak}) must be below sensitivity ({sensitivity})") from None
    else:
        ev.check_answer_model(
            ev.DEFAULT_SENSITIVITY if sensitivity is None else sensitivity,
            ev.DEFAULT_LEAK if leak is None else leak,
        )
        if long_row_exponent is not None:
            ev.check_long_row_exponent(long_row_exponent)
    return Settings(
        DEFAULT_EPS if eps is None else eps,
        sensitivity,
        leak,
        max_questions,
        prior or DEFAULT_PRIOR_MODE,
        long_row_exponent,
    )


def register_mode(mode: Mode) -> None:
    """Add ``mode`` to :data:`MODES` (a later registration of the same name replaces it)."""
    MODES[mode.name] = mode


def _strict_run(target: str, policy: str, noisy: bool):
    def run(kb: KnowledgeBase, problem: Problem, respond: Respond, settings: Settings) -> Outcome:
        noise = NoiseModel(settings.eps, np.ones(problem.n_queries, dtype=bool)) if noisy else None
        state = InterviewState(problem, target=target, policy=policy, noise=noise)
        cap = settings.max_questions or problem.n_queries
        asked: list[tuple[int, Answer]] = []
        while state.status is Status.ASKING and len(asked) < cap:
            choice = state.suggestion()
            if choice is None:
                break
            query = int(choice.queries[0])
            answer = respond(query)
            state.answer(query, answer)
            asked.append((query, answer))
        status = state.status
        chem = np.zeros(problem.n_objects)
        node = state.node
        if node.idx.size:
            chem[node.idx] = node.mass / node.total
        return Outcome(
            chem,
            state.group_probabilities(),
            tuple(asked),
            "no_fit" if status is Status.INCONSISTENT else status.value,
        )

    return run


register_mode(
    Mode(
        "strict-gbs",
        "paper's GBS, identify the chemical, answers taken as exact",
        _strict_run("object", "gbs", noisy=False),
    )
)
register_mode(
    Mode(
        "strict-gisa",
        "paper's GISA, identify the class, answers taken as exact",
        _strict_run("group", "gisa", noisy=False),
    )
)
register_mode(
    Mode(
        "noise-gbs",
        "paper's GBS under persistent noise (up to eps wrong answers)",
        _strict_run("object", "gbs", noisy=True),
    )
)


def _evidence_run(target: str):
    def run(kb: KnowledgeBase, problem: Problem, respond: Respond, settings: Settings) -> Outcome:
        from responder.engine import evidence as ev  # noqa: PLC0415

        leaks = np.array(
            [np.nan if getattr(s, "leak", None) is None else float(s.leak) for s in kb.symptoms]
        )
        answers = ev.AnswerModel(
            ev.DEFAULT_SENSITIVITY if settings.sensitivity is None else settings.sensitivity,
            ev.DEFAULT_LEAK if settings.leak is None else settings.leak,
            None if np.isnan(leaks).all() else leaks,
            ev.DEFAULT_LONG_ROW_EXPONENT
            if settings.long_row_exponent is None
            else settings.long_row_exponent,
        )
        model = ev.EvidenceModel(problem, answers, target=target)
        cap = settings.max_questions or problem.n_queries
        known: dict[int, bool] = {}
        skipped: list[int] = []
        asked: list[tuple[int, Answer]] = []
        belief = model.root()
        while len(asked) < cap and not belief.stop().stopped:
            suggestion = belief.suggest_symptom()
            if suggestion is None:
                break
            query = int(suggestion.queries[0])
            answer = respond(query)
            if answer is Answer.UNKNOWN:
                skipped.append(query)
            else:
                known[query] = answer is Answer.YES
            asked.append((query, answer))
            belief = model.belief(known, skipped)
        return Outcome(
            belief.posterior.copy(),
            belief.group_probabilities(),
            tuple(asked),
            belief.stop().reason or "asking",
        )

    return run


try:
    import responder.engine.evidence  # noqa: F401
except ImportError:  # the evidence mode is not in this build yet
    pass
else:
    register_mode(
        Mode(
            "evidence",
            "evidence-weighted, identify the chemical (nothing is "
            "eliminated; stops when confident)",
            _evidence_run("object"),
        )
    )
    register_mode(
        Mode("evidence-class", "evidence-weighted, identify the class", _evidence_run("group"))
    )


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
    results: dict[str, list[CaseResult]] = field(default_factory=dict)  # mode -> per case
    settings: Settings = field(default_factory=Settings)
    coverage: dict[str, SignCoverage | None] = field(default_factory=dict)  # case -> coverage

    def sign_totals(self) -> tuple[int, int]:
        """(present signs the agents' rows list, present signs) over cases with a row."""
        rows = [c for c in self.coverage.values() if c is not None]
        return sum(c.listed for c in rows), sum(c.present for c in rows)

    def summary(self, mode: str) -> ModeSummary:
        rs = self.results[mode]
        asked = [len(r.asked) for r in rs]
        chemical_cases = sum(not c.class_only for c in self.cases)
        return ModeSummary(
            mode,
            MODES[mode].description,
            len(rs),
            chemical_cases,
            sum(r.top1 for r in rs),
            sum(r.top5 for r in rs),
            sum(r.class_top1 for r in rs),
            sum(r.status == "no_fit" for r in rs),
            float(np.mean(asked)) if asked else 0.0,
        )


def respond_from(case: Case, kb: KnowledgeBase) -> Respond:
    """The simulated responder: present -> yes, absent -> no, not mentioned -> can't tell."""
    stated = case.answers()
    ids = kb.symptom_ids

    def respond(query: int) -> Answer:
        present = stated.get(ids[query])
        if present is None:
            return Answer.UNKNOWN
        return Answer.YES if present else Answer.NO

    return respond


def run_case(
    kb: KnowledgeBase, problem: Problem, case: Case, mode: str, settings: Settings
) -> CaseResult:
    """Interview ``case`` in ``mode`` and score it."""
    outcome = MODES[mode].run(kb, problem, respond_from(case, kb), settings)
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
) -> Report:
    """Run every case through every mode (default: all registered modes)."""
    names = check_modes(modes)
    settings = settings or Settings()
    problem = kb.to_problem(settings.prior)
    report = Report(
        kb.name,
        names,
        list(cases),
        settings=settings,
        coverage={c.id: sign_coverage(kb, c) for c in cases},
    )
    for mode in names:
        report.results[mode] = [run_case(kb, problem, c, mode, settings) for c in cases]
    return report


# --- output ----------------------------------------------------------------------------------


def report_json(report: Report) -> dict:
    """The report as plain JSON-ready data."""
    by_case = {c.id: c for c in report.cases}
    listed, present = report.sign_totals()
    return {
        "knowledge_base": report.kb_name,
        "signs_listed": listed,
        "signs_present": present,
        "settings": {
            "prior": report.settings.prior,
            "eps": report.settings.eps,
            "sensitivity": report.settings.sensitivity,
            "leak": report.settings.leak,
            "long_row_exponent": report.settings.long_row_exponent,
            "max_questions": report.settings.max_questions,
        },
        "modes": [report.summary(m).as_dict() for m in report.modes],
        "cases": [
            {
                "case": c.id,
                "file": c.file,
                "agent": list(c.agents),
                "class": c.class_id,
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
                    m: {
                        "rank": r.rank,
                        "class_rank": r.class_rank,
                        "status": r.status,
                        "questions": len(r.asked),
                        "asked": [{"symptom": s, "answer": a} for s, a in r.asked],
                        "top": list(r.top),
                    }
                    for m in report.modes
                    for r in report.results[m]
                    if r.case == c.id
                },
            }
            for c in by_case.values()
        ],
    }


def _pct(k: int, n: int) -> str:
    return f"{k:>3}/{n:<3} {100 * k / n:5.1f}%" if n else "  -"


def format_report(report: Report) -> str:
    """The text ``kb validate`` prints: one line per mode, then one line per case."""
    n_cases = len(report.cases)
    missing = sum(not c.chemicals and not c.class_only for c in report.cases)
    class_only = sum(c.class_only for c in report.cases)
    out = [
        f"Validation of knowledge base {report.kb_name!r} on {n_cases} case vignettes "
        f"(prior per {report.settings.prior})"
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
        f"  {'mode':<14} {'top-1':>12}  {'top-5':>12}  {'class':>12}  {'no fit':>6}  "
        f"{'questions':>9}",
    ]
    for m in report.modes:
        s = report.summary(m)
        out.append(
            f"  {m:<14} {_pct(s.top1, s.chemical_cases)}  {_pct(s.top5, s.chemical_cases)}  "
            f"{_pct(s.class_top1, s.cases)}  {s.no_fit:>6}  {s.mean_questions:>9.1f}"
        )
    out += [
        "",
        "Per case: rank of the agent / rank of its class (- = eliminated or no fit; "
        "n/a = not in the knowledge base; class = the report names only the class)",
        "",
    ]
    width = max((len(c.id) for c in report.cases), default=4)
    out.append(f"  {'case':<{width}}  " + "  ".join(f"{m:>12}" for m in report.modes))
    for i, case in enumerate(report.cases):
        cells = []
        for m in report.modes:
            r = report.results[m][i]
            rank = (
                "class"
                if case.class_only
                else "n/a"
                if not case.chemicals
                else str(r.rank)
                if r.rank
                else "-"
            )
            cells.append(f"{rank + ' / ' + (str(r.class_rank) if r.class_rank else '-'):>12}")
        out.append(f"  {case.id:<{width}}  " + "  ".join(cells))
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
        s, l_ = report.settings.sensitivity, report.settings.leak
        a = report.settings.long_row_exponent
        out.append(
            "  (evidence modes use sensitivity = "
            f"{'the default' if s is None else s}, leak = "
            f"{'the default' if l_ is None else l_}, long-row exponent = "
            f"{'the default' if a is None else a}; knowledge-base leaks override)"
        )
    return "\n".join(out)
