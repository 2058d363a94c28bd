"""An interview in progress: answers so far, for one or several victims of one incident.

Answers may come in any order (a victim volunteers a symptom) and be changed or withdrawn; the
target, policy and answer model may change mid-interview; everything shown is recomputed from
the full answer lists, so nothing the responder entered is lost.

Several victims of one agent can be interviewed together: each has their own answers, and
queries marked as answered once per incident (the smell, the cloud, the place) are shared by
all. The evidence model pools every victim's answers (victims independent given the agent);
the elimination models (strict and noise, the paper's) read the victim being asked.

An answer can imply others (:class:`Implications`: "walking" implies "not unconscious"; one
value of an exclusive group rules out the rest). Implied answers are never suggested, and
carry no evidence of their own: the answer that implies them already does.

What each answer model makes of the answers is its backend's business
(:mod:`responder.engine.backends`): this class holds the answers and delegates.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import Enum

import numpy as np

from responder.engine.backends import (
    Answers,
    Candidate,
    Status,
    View,
    make_backend,
)
from responder.engine.evidence import EvidenceSettings, Fit
from responder.engine.noise import NoiseModel
from responder.engine.policies import Choice, Policy, pick_query
from responder.engine.problem import Problem


class Answer(str, Enum):
    """A responder's answer to one query."""

    YES = "yes"
    NO = "no"
    UNKNOWN = "unknown"  # "can't tell": the query is spent, nobody is eliminated


MODES = ("evidence", "strict", "noise")

__all__ = [
    "MODES",
    "Answer",
    "Candidate",
    "ExclusiveGroups",
    "Implications",
    "InterviewState",
    "QueryAnswer",
    "Status",
]


@dataclass(frozen=True)
class QueryAnswer:
    """The current answer to one query. (When and how it was given, and undo, are the
    session's concern: :mod:`responder.core.answers`.)"""

    query: int
    answer: Answer
    implied: bool = False  # follows from another answer; never asked


@dataclass(frozen=True)
class Implications:
    """What one answer says about others.

    ``rules`` maps (query, answered yes) to the (query, answer) pairs that answer implies,
    e.g. (walking, yes) -> [(unconscious, no), (no pulse, no)]; a yes to one member of an
    exclusive group implies no to the others.
    """

    rules: Mapping[tuple[int, bool], tuple[tuple[int, Answer], ...]]

    @classmethod
    def none(cls) -> Implications:
        return cls({})

    def implied_by(self, answers: Mapping[int, Answer]) -> dict[int, Answer]:
        """The answers implied by ``answers`` (query -> answer) that were not given
        themselves; the first implication of a query wins."""
        out: dict[int, Answer] = {}
        for q, a in answers.items():
            if a is Answer.UNKNOWN:
                continue
            for q2, a2 in self.rules.get((q, a is Answer.YES), ()):
                if q2 not in answers:
                    out.setdefault(q2, a2)
        return out


@dataclass(frozen=True)
class ExclusiveGroups:
    """Exclusive groups as one question puts them (pupils small, normal or large): the
    group's open values side by side, answered with one key, as the app and the protocol
    show them.

    ``members[k]`` are the queries of group k; ``has_none[k]`` whether it offers "none of
    these" (no to every open member at once; the onset bins do not: one of them holds).
    """

    members: tuple[tuple[int, ...], ...] = ()
    has_none: tuple[bool, ...] = ()

    def group_of(self, query: int) -> int | None:
        """The group ``query`` belongs to, or None."""
        return next((k for k, m in enumerate(self.members) if query in m), None)

    def one_question(
        self,
        query: int,
        answer_of: Callable[[int], Answer],
        is_open: Callable[[int], bool],
    ) -> tuple[tuple[int, Answer], ...]:
        """What a responder enters for one question on ``query``, knowing the victim's answer
        to each query (``answer_of``); ``is_open`` tells which members are still unanswered.

        Outside a group, the answer to ``query``. In a group: yes to ``query`` if it holds;
        otherwise yes to the first open member that holds (the responder picks that value,
        and ``query`` follows as no); otherwise, where the group has "none of these" and
        every open member is a no, no to them all; otherwise the answer to ``query`` alone.
        """
        answer = answer_of(query)
        k = self.group_of(query)
        if k is None or answer is Answer.YES:
            return ((query, answer),)
        others = [m for m in self.members[k] if m != query and is_open(m)]
        holds = next((m for m in others if answer_of(m) is Answer.YES), None)
        if holds is not None:
            return ((holds, Answer.YES),)
        if self.has_none[k] and answer is Answer.NO:
            if all(answer_of(m) is Answer.NO for m in others):
                return ((query, Answer.NO), *((m, Answer.NO) for m in others))
        return ((query, answer),)

    def respond_to(
        self,
        state: InterviewState,
        answer_of: Callable[[int], Answer],
        victim: int | None = None,
    ) -> Callable[[int], tuple[tuple[int, Answer], ...]]:
        """The responder :func:`responder.engine.interview.run_interview` needs for
        ``state``: each question answered as :meth:`one_question` answers it, the open members
        being those ``victim`` (default: the current one) has no answer to yet."""

        def respond(query: int) -> tuple[tuple[int, Answer], ...]:
            return self.one_question(query, answer_of, lambda m: state.answer_of(m, victim) is None)

        return respond


class InterviewState:
    """Answers and derived state of one interview (one incident, one or more victims).

    Parameters
    ----------
    problem : Problem
    target : {"object", "group"}
    policy : str
        A policy name from :data:`responder.engine.policies.POLICIES` (not random).
    noise : NoiseModel or None
        Persistent noise (``mode == "noise"``); exclusive with ``evidence``.
    ties : {"first", "random"}
    seed : int or None
    evidence : EvidenceSettings or None
        Evidence-weighted mode (:mod:`responder.engine.evidence`): nothing is eliminated,
        suggestions maximise the expected information gain, and the interview stops at a
        confidence threshold. None for the paper's strict (or noise) mode.
    reported : ndarray of shape (N,), bool, optional
        Queries only a conscious victim can report.
    observed_margin : float
        Evidence mode, one symptom at a time: a query that is not ``reported`` (one a
        responder can see on any victim) is suggested before a ``reported`` one whose
        expected gain is larger by less than this fraction of it (0 = gain alone decides).
    unconscious : int, optional
        The query "victim unconscious": once answered (or implied) yes, ``reported``
        queries are not suggested for that victim.
    shared : ndarray of shape (N,), bool, optional
        Queries answered once per incident rather than per victim (the scene).
    implications : Implications, optional
    """

    def __init__(
        self,
        problem: Problem,
        target: str = "object",
        policy: str = "gbs",
        noise: NoiseModel | None = None,
        ties: str = "first",
        seed: int | None = None,
        evidence: EvidenceSettings | None = None,
        reported: np.ndarray | None = None,
        unconscious: int | None = None,
        observed_margin: float = 0.0,
        shared: np.ndarray | None = None,
        implications: Implications | None = None,
    ):
        self.problem = problem
        N = problem.n_queries
        self._ties, self._seed = ties, seed
        self._reported = np.zeros(N, dtype=bool) if reported is None else np.asarray(reported, bool)
        self._shared = np.zeros(N, dtype=bool) if shared is None else np.asarray(shared, bool)
        self._unconscious = unconscious
        self._implications = implications or Implications.none()
        if not 0.0 <= observed_margin < 1.0:
            raise ValueError(f"observed_margin must lie in [0, 1), got {observed_margin}")
        self._observed_margin = float(observed_margin)
        # Per victim: query -> answer, in the order given; shared queries live in _incident.
        self._victims: list[dict[int, Answer]] = [{}]
        self._incident: dict[int, Answer] = {}
        self._current = 0
        self._last: tuple[int, bool] | None = None
        self.target = self.noise = self.evidence = None
        self.policy: Policy | None = None
        self.configure(target=target, policy=policy, noise=noise, evidence=evidence)

    # -- settings ----------------------------------------------------------------------------

    def configure(
        self, target: str | None = None, policy: str | None = None, noise="keep", evidence="keep"
    ):
        """Change target, policy, noise or evidence settings (``None`` turns either off);
        answers are kept. Noise and evidence exclude each other: setting one clears the other.
        """
        target = target or self.target or "object"
        policy_name = policy or (self.policy.name if self.policy else "gbs")
        new_noise, new_evidence = noise, evidence
        noise = self.noise if noise == "keep" else noise
        evidence = self.evidence if evidence == "keep" else evidence
        if evidence is not None and noise is not None:
            if new_evidence == "keep":
                evidence = None  # noise mode was just chosen
            elif new_noise == "keep":
                noise = None  # evidence mode was just chosen
            else:
                raise ValueError("choose noise mode or evidence mode, not both")
        pol = Policy(policy_name, ties=self._ties, seed=self._seed)
        pol.check(self.problem)
        backend = make_backend(self.problem, target, pol, noise, evidence)
        self.backend, self.policy, self.target = backend, pol, target
        self.noise, self.evidence = noise, evidence
        self._invalidate()

    @property
    def mode(self) -> str:
        """``"evidence"``, ``"strict"`` (the paper's elimination) or ``"noise"``."""
        return self.backend.mode

    @property
    def model(self):
        """The backend's model of the problem (``belief.Model`` or ``EvidenceModel``)."""
        return self.backend.model

    def _invalidate(self) -> None:
        self._view_cache: View | None = None

    def fork(self) -> InterviewState:
        """A copy to go on answering alone (a simulated rest of this interview): the answers
        are its own; the problem, the answer model and the settings, which no answer changes,
        are shared, and so is the view of the answers so far."""
        twin = type(self).__new__(type(self))  # not copy.copy: pickling drops the view
        twin.__dict__.update(self.__dict__)
        twin._victims = [dict(answers) for answers in self._victims]
        twin._incident = dict(self._incident)
        return twin

    def __getstate__(self) -> dict:
        # the view is derived from the answers: sent to another process, it is recomputed
        return {**self.__dict__, "_view_cache": None}

    # -- victims -----------------------------------------------------------------------------

    @property
    def n_victims(self) -> int:
        return len(self._victims)

    @property
    def current_victim(self) -> int:
        return self._current

    def add_victim(self) -> int:
        """A new victim with no answers of their own; returns their index (now current)."""
        self._victims.append({})
        self._current = len(self._victims) - 1
        self._invalidate()
        return self._current

    def select_victim(self, victim: int) -> None:
        """Ask ``victim`` from now on (their answers, suggestions and availability)."""
        if not 0 <= victim < len(self._victims):
            raise IndexError(f"victim {victim} does not exist (0..{len(self._victims) - 1})")
        if victim != self._current:
            self._current = victim
            self._invalidate()

    def _victim(self, victim: int | None) -> int:
        v = self._current if victim is None else victim
        if not 0 <= v < len(self._victims):
            raise IndexError(f"victim {v} does not exist (0..{len(self._victims) - 1})")
        return v

    def _store(self, query: int, victim: int | None) -> dict[int, Answer]:
        """Where the answer to ``query`` lives: the incident's, or the victim's."""
        return self._incident if self._shared[query] else self._victims[self._victim(victim)]

    def given(self, victim: int | None = None) -> dict[int, Answer]:
        """Answers given for ``victim`` (default: current), the incident's included, in order."""
        return {**self._incident, **self._victims[self._victim(victim)]}

    # -- answers -----------------------------------------------------------------------------

    @property
    def answers(self) -> list[QueryAnswer]:
        """The current victim's answers in the order given (a changed answer moves to the
        end), then those implied by them."""
        return self.victim_answers()

    def victim_answers(self, victim: int | None = None) -> list[QueryAnswer]:
        """:attr:`answers` of ``victim`` (default: the current one), the incident's
        included."""
        given = self.given(victim)
        out = [QueryAnswer(q, a) for q, a in given.items()]
        out += [QueryAnswer(q, a, True) for q, a in self._implications.implied_by(given).items()]
        return out

    def _check_query(self, query: int) -> None:
        if not 0 <= query < self.problem.n_queries:
            raise IndexError(f"query {query} is out of range")

    def answer(self, query: int, answer: Answer | str, victim: int | None = None) -> None:
        """Record ``answer`` to ``query``; an earlier answer to the same query is replaced
        and the query moves to the end of the order."""
        answer = Answer(answer)
        self._check_query(query)
        store = self._store(query, victim)
        store.pop(query, None)
        store[query] = answer
        self._last = None if answer is Answer.UNKNOWN else (query, answer is Answer.YES)
        self._invalidate()

    def remove(self, query: int, victim: int | None = None) -> Answer | None:
        """Forget the answer to ``query``; returns it (None if it had none)."""
        self._check_query(query)
        answer = self._store(query, victim).pop(query, None)
        if answer is not None:
            self._last = None
            self._invalidate()
        return answer

    def set_answers(self, answers, victim: int | None = None) -> None:
        """Replace all answers of ``victim`` (and the incident's) by ``answers``, (query,
        answer) pairs in order (a later pair for the same query replaces an earlier one)."""
        v = self._victim(victim)
        own: dict[int, Answer] = {}
        incident: dict[int, Answer] = {}
        for query, answer in answers:
            answer = Answer(answer)
            self._check_query(query)
            store = incident if self._shared[query] else own
            store.pop(query, None)
            store[query] = answer
        self._victims[v], self._incident = own, incident
        self._last = None
        self._invalidate()

    def set_all_answers(self, answers) -> None:
        """Replace every victim's answers and the incident's by ``answers``, (victim, query,
        answer) triples in order; victims are added as needed (a later triple for the same
        victim and query, or the same shared query, replaces an earlier one). A query
        answered once per incident is the incident's whoever gives it (victim -1 or any)."""
        victims: list[dict[int, Answer]] = [{} for _ in self._victims]
        incident: dict[int, Answer] = {}
        for victim, query, answer in answers:
            answer = Answer(answer)
            self._check_query(query)
            if self._shared[query]:
                store = incident
            elif victim < 0:
                raise IndexError(f"victim {victim} does not exist for query {query}")
            else:
                while victim >= len(victims):
                    victims.append({})
                store = victims[victim]
            store.pop(query, None)
            store[query] = answer
        self._victims, self._incident = victims, incident
        self._current = min(self._current, len(victims) - 1)
        self._last = None
        self._invalidate()

    def is_shared(self, query: int) -> bool:
        """Whether ``query`` is answered once for the whole incident."""
        return bool(self._shared[query])

    @property
    def shared(self) -> np.ndarray:
        """Queries answered once for the whole incident, shape (N,) bool, read-only."""
        view = self._shared.view()
        view.flags.writeable = False
        return view

    def known_answers(self) -> tuple[dict[int, bool], list[int]]:
        """The current victim's yes/no answers as {query: is_yes}, and the queries skipped
        ("can't tell") or implied."""
        given = self.given()
        known = {q: a is Answer.YES for q, a in given.items() if a is not Answer.UNKNOWN}
        skipped = [q for q, a in given.items() if a is Answer.UNKNOWN]
        skipped += list(self._implications.implied_by(given))
        return known, skipped

    def answer_of(self, query: int, victim: int | None = None) -> Answer | None:
        """The answer given to ``query``, or implied by the answers given; None if neither."""
        given = self.given(victim)
        if query in given:
            return given[query]
        return self._implications.implied_by(given).get(query)

    def implied_answers(self, victim: int | None = None) -> dict[int, Answer]:
        """The answers implied by ``victim``'s answers (default: the current one), query ->
        answer, for queries not answered themselves."""
        return self._implications.implied_by(self.given(victim))

    def contradicted_by(self, query: int, answer: Answer, victim: int | None = None) -> list[int]:
        """The queries answered for ``victim`` (default: current; the incident's included)
        whose answers ``answer`` to ``query`` contradicts through the consistency rules, one
        way or the other: a yes to one pupil size against a yes to the other; a victim
        walking and talking against one answered unconscious."""
        answer = Answer(answer)
        if answer is Answer.UNKNOWN:
            return []
        says = self._implications.implied_by({query: answer})
        out = []
        for q, a in self.given(victim).items():
            if q == query or a is Answer.UNKNOWN:
                continue
            said_back = self._implications.implied_by({q: a}).get(query, answer)
            if says.get(q, a) is not a or said_back is not answer:
                out.append(q)
        return out

    def is_implied(self, query: int, victim: int | None = None) -> bool:
        given = self.given(victim)
        return query not in given and query in self._implications.implied_by(given)

    @property
    def asked_count(self) -> int:
        """Answers given for the current victim (and the incident); implied ones not counted."""
        return len(self.given())

    def pooled_answers(self) -> tuple[np.ndarray, np.ndarray]:
        """Every victim's yes/no answers and the incident's, as (queries, values): the
        evidence the pooled posterior is built on."""
        pairs = [(q, a is Answer.YES) for q, a, _ in self._pooled()]
        queries = np.fromiter((q for q, _ in pairs), dtype=np.int64, count=len(pairs))
        values = np.fromiter((v for _, v in pairs), dtype=bool, count=len(pairs))
        return queries, values

    def pooled_owners(self) -> list[int]:
        """Whose each of :meth:`pooled_answers` is, in their order: a victim's index, or -1
        for the incident's."""
        return [v for _, _, v in self._pooled()]

    def _pooled(self) -> list[tuple[int, Answer, int]]:
        out = [(q, a, -1) for q, a in self._incident.items() if a is not Answer.UNKNOWN]
        for v, own in enumerate(self._victims):
            out += [(q, a, v) for q, a in own.items() if a is not Answer.UNKNOWN]
        return out

    # -- derived -----------------------------------------------------------------------------

    def _answers_for_backend(self) -> Answers:
        known, skipped = self.known_answers()
        asked = np.zeros(self.problem.n_queries, dtype=bool)
        asked[list(known)] = True
        asked[skipped] = True
        queries, values = self.pooled_answers()
        owners = np.array(self.pooled_owners(), dtype=np.int64)
        return Answers(
            known,
            tuple(skipped),
            queries,
            values,
            asked,
            self.available(),
            self._last,
            owners,
            self._current,
        )

    def view(self) -> View:
        """The backend's view of the answers now (cached until the next change)."""
        if self._view_cache is None:
            self._view_cache = self.backend.view(self._answers_for_backend())
        return self._view_cache

    @property
    def node(self):
        """The elimination models' node (strict and noise modes)."""
        view = self.view()
        if not hasattr(view, "node"):
            raise RuntimeError("the node exists only in the strict and noise modes")
        return view.node

    @property
    def belief(self):
        """The evidence posterior (evidence mode only)."""
        view = self.view()
        if not hasattr(view, "belief"):
            raise RuntimeError("the evidence posterior exists only in evidence mode")
        return view.belief

    def available(self, victim: int | None = None) -> np.ndarray:
        """Queries that may be suggested to ``victim`` (default: current), shape (N,) bool:
        once the victim is answered (or implied) unconscious, not those only a conscious
        victim can report; once one query of a category of alternatives
        (``Problem.alternatives``: one place, one smell) is answered or implied yes, not
        the rest of that category."""
        ok = np.ones(self.problem.n_queries, dtype=bool)
        if self._unconscious is not None:
            if self.answer_of(self._unconscious, victim) is Answer.YES:
                ok &= ~self._reported
        if self.problem.alternatives is not None:
            given = self.given(victim)
            answers = {**self._implications.implied_by(given), **given}
            ok &= ~self.problem.settled_by_yes(q for q, a in answers.items() if a is Answer.YES)
        return ok

    @property
    def stop_reason(self) -> str | None:
        """Why the interview stopped: evidence mode ``"confident"``, ``"no_gain"`` or
        ``"no_fit"``; strict and noise modes ``"identified"``, ``"no_split"`` or
        ``"no_fit"``; None while asking."""
        return self.view().stop_reason()

    def fit(self) -> Fit | None:
        """Evidence mode: whether the answers fit a listed chemical (the probability that
        the agent is not in the knowledge base); None in strict and noise modes, where
        "no fit" means no candidate is left (:attr:`status`)."""
        return self.view().fit()

    def confidence(self) -> float:
        """Probability of the top candidate (chemical target) or top class (class target)."""
        return self.view().confidence()

    @property
    def status(self) -> Status:
        return self.view().status()

    def suggestion(self) -> Choice | None:
        """What to ask the current victim now (None when the interview has stopped)."""
        return self.view().suggestion(self._reported, self._observed_margin)

    def useful_queries(self) -> np.ndarray:
        """Queries whose answer can change the outcome now, shape (N,) bool."""
        return self.view().useful()

    def answer_split(self) -> np.ndarray:
        """Chance of the less likely answer to each query, shape (N,) (0..0.5).

        Strict and noise modes: the smaller child's share of the mass; evidence mode: the
        predicted chance of the less likely answer under the answer model.
        """
        return self.view().answer_split()

    def answers_against(self, obj: int) -> list[int]:
        """Answered queries that count against object ``obj``."""
        return self.view().answers_against(obj)

    def group_drops(self) -> list[tuple[int, float, float]]:
        """Classes the last answer lowered sharply: (class, before, after), largest first.

        Evidence mode only (elsewhere a class drops to 0 by elimination, which the
        candidates already show); empty before any yes/no answer.
        """
        return self.view().group_drops()

    def mismatches(self) -> np.ndarray:
        """Answers each object contradicts (evidence mode: counts against), shape (M,)."""
        return self.view().mismatches()

    def candidates(self) -> list[Candidate]:
        """Remaining candidates, objects with identical rows merged, most probable first.

        In evidence mode every chemical is a candidate (nothing is eliminated).
        """
        return self.view().candidates()

    def ranked_by_mismatch(self, limit: int = 10) -> list[tuple[int, int]]:
        """(object, mismatches) for the objects contradicting fewest answers: shown when no
        candidate is consistent, so the engine never silently picks one."""
        mism = self.mismatches()
        order = np.lexsort((-self.problem.prior, mism))
        return [(int(i), int(mism[i])) for i in order[:limit]]

    def object_probabilities(self) -> np.ndarray:
        """Probability of each object, shape (M,): the candidates' mass (strict, noise) or the
        posterior (evidence); all zero when none is possible."""
        return self.view().object_probabilities()

    def group_probabilities(self) -> np.ndarray:
        """Probability of each object group (class), shape (m,); zeros if no labels."""
        return self.view().group_probabilities()

    def noise_budget_used(self) -> int | None:
        """Fewest contradicted answers among candidates (out of eps); None without noise."""
        return self.view().noise_budget_used()

    def victim_to_ask(self, among: Iterable[int] | None = None) -> int:
        """The victim whose next question gains most (evidence mode, several victims): each
        victim's best open query under the pooled posterior (with route views, as that
        victim's own route makes it likely), so the victim who can still answer the best
        query; the current victim on a tie. Elsewhere (one victim, or the strict and noise
        modes, which read one victim) the current one. ``among`` limits the choice to some
        victims (default: all)."""
        if len(self._victims) == 1 or self.evidence is None:
            return self._current
        allowed = set(range(len(self._victims)) if among is None else among)
        order = [self._current, *(k for k in range(len(self._victims)) if k != self._current)]
        order = [v for v in order if v in allowed]
        best, who = -1.0, (order[0] if order else self._current)
        gains_of: dict[tuple, np.ndarray] = {}
        for v in order:
            given = self.given(v)
            open_ = self.available(v)
            open_[list(given)] = False
            open_[list(self._implications.implied_by(given))] = False
            # victims with the same own answers (none yet, say) have the same gains
            key = (v == 0, tuple(self._victims[v].items()))
            if key not in gains_of:
                # the current victim's are the view's (zero only where open_ is False)
                gains_of[key] = self.belief.gains() if v == self._current else self._pooled_gains(v)
            gains = gains_of[key]
            score = float(gains[open_].max()) if open_.any() else 0.0
            if score > best + 1e-9:
                best, who = score, v
        return who

    def _pooled_gains(self, victim: int) -> np.ndarray:
        """Expected gain of each query for ``victim`` under the pooled posterior, nothing
        marked asked."""
        return self.belief.as_victim(victim, np.zeros(self.problem.n_queries, bool)).gains()

    # -- stepping, for run_interview --------------------------------------------------------

    def next_query(self, rng: np.random.Generator | None = None) -> int | None:
        """The query to ask now: the suggested one, or, for a category, one drawn from its
        pick chances (the first when ``rng`` is None); None once the interview stops."""
        if self.status is not Status.ASKING:
            return None
        choice = self.suggestion()
        if choice is None:
            return None
        return int(choice.queries[0]) if rng is None else pick_query(choice, rng)

    def after(self, query: int, answer: Answer) -> InterviewState:
        """Record the answer and return this state (the stepping protocol of
        :func:`responder.engine.interview.run_interview`)."""
        self.answer(query, answer)
        return self


def answers_from(known: Mapping[int, bool], skipped: Iterable[int] = ()) -> list[tuple]:
    """(query, Answer) pairs from a yes/no map and skipped queries."""
    pairs = [(q, Answer.YES if yes else Answer.NO) for q, yes in known.items()]
    return pairs + [(q, Answer.UNKNOWN) for q in skipped]
