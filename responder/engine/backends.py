"""One backend per answer model, behind one interface.

An interview's answers are read by one of two answer models:

- **elimination** (:class:`EliminationBackend`): the paper's algorithms. Each object's row
  is an exact fingerprint; an answer that contradicts it removes the object (``strict``),
  or, under persistent noise, after more than eps contradictions (``noise``, Section 6,
  ``sec:QL with persistent noise``). Suggestions are the paper's policies on the node
  (:mod:`responder.engine.policies`).
- **evidence** (:class:`EvidenceBackend`): graded likelihoods
  (:mod:`responder.engine.evidence`); nothing is eliminated, suggestions maximise the
  expected information gain, and answers from several victims of one agent are pooled.

A backend turns what the interview knows (:class:`Answers`) into a :class:`View`, which
answers every question the interview asks of it (status, candidates, classes, the next
suggestion, what is still useful). :class:`~responder.engine.state.InterviewState` holds the
answers and delegates to its backend's view, so it has no branch on the mode.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np

from responder.engine.belief import Model, Node
from responder.engine.evidence import Belief, EvidenceSettings, Fit, sharp_group_drops
from responder.engine.noise import NoiseModel
from responder.engine.policies import Choice, Policy
from responder.engine.problem import Problem


class Status(str, Enum):
    ASKING = "asking"  # more than one target group possible and some query splits them
    IDENTIFIED = "identified"  # one object (or one group) left
    INDISTINGUISHABLE = "indistinguishable"  # several left that no query can separate
    INCONSISTENT = "inconsistent"  # no candidate fits the answers (within eps under noise;
    # in evidence mode, an unlisted agent explains them better: evidence.Belief.fit)


@dataclass(frozen=True)
class Candidate:
    """Objects still possible that no query separates, with their combined probability.

    Attributes
    ----------
    objects : tuple of int
        One object, or several with identical rows (reported together, never one picked).
    probability : float
        Their share of the remaining mass.
    mismatches : int
        Answers the objects contradict (0 without noise; up to eps under noise; in
        evidence mode the answers that count against them).
    """

    objects: tuple[int, ...]
    probability: float
    mismatches: int


@dataclass(frozen=True)
class Answers:
    """What an interview knows, as a backend reads it.

    Attributes
    ----------
    known : dict of int -> bool
        The yes/no answers of the victim being asked (and of the incident), query -> yes.
    skipped : tuple of int
        Queries that victim skipped ("can't tell") or whose answer an earlier one implies:
        asked, but no evidence.
    pooled_queries, pooled_values : ndarray of shape (k,)
        Every victim's yes/no answers together (a query repeats when two victims answered
        it); the evidence model pools them, the elimination model reads ``known`` only.
    asked : ndarray of shape (N,), bool
        Queries the victim being asked has answered, skipped or has implied.
    available : ndarray of shape (N,), bool
        Queries that may be suggested to that victim (not those only a conscious victim
        can report, once the victim is unconscious).
    last : tuple of (int, bool) or None
        The last yes/no answer given, for the class-drop notice.
    pooled_owners : ndarray of shape (k,), int, or None
        Whose each pooled answer is: a victim's index, or -1 for the incident's.
    current : int
        The victim being asked.
    """

    known: dict[int, bool]
    skipped: tuple[int, ...]
    pooled_queries: np.ndarray
    pooled_values: np.ndarray
    asked: np.ndarray
    available: np.ndarray
    last: tuple[int, bool] | None = None
    pooled_owners: np.ndarray | None = None
    current: int = 0


class View:
    """What a backend says about one set of answers. Every method is cheap to call twice:
    the first call computes and caches."""

    #: ``"strict"``, ``"noise"`` or ``"evidence"``
    mode: str

    def status(self) -> Status:
        raise NotImplementedError

    def stop_reason(self) -> str | None:
        raise NotImplementedError

    def candidates(self) -> list[Candidate]:
        raise NotImplementedError

    def group_probabilities(self) -> np.ndarray:
        raise NotImplementedError

    def object_probabilities(self) -> np.ndarray:
        """Probability of each object, shape (M,) (all zero when none is possible)."""
        raise NotImplementedError

    def confidence(self) -> float:
        raise NotImplementedError

    def suggestion(self, reported: np.ndarray, margin: float) -> Choice | None:
        """What to ask next; None when the interview has stopped. ``reported`` (N,) marks
        queries only a conscious victim can report: an observable one within ``margin`` of
        the best gain is preferred (evidence mode, one symptom at a time)."""
        raise NotImplementedError

    def useful(self) -> np.ndarray:
        """Queries whose answer can change the outcome now, shape (N,) bool."""
        raise NotImplementedError

    def answer_split(self) -> np.ndarray:
        raise NotImplementedError

    def suggestion_scores(self) -> np.ndarray:
        """How good each query is to ask now, higher is better, shape (N,): the expected
        gain (evidence), or the evenness of the split (elimination)."""
        raise NotImplementedError

    def fit(self) -> Fit | None:
        raise NotImplementedError

    def mismatches(self) -> np.ndarray:
        raise NotImplementedError

    def answers_against(self, obj: int) -> list[int]:
        raise NotImplementedError

    def group_drops(self) -> list[tuple[int, float, float]]:
        raise NotImplementedError

    def noise_budget_used(self) -> int | None:
        raise NotImplementedError


def prefer_observed(queries: np.ndarray, gains: np.ndarray, reported: np.ndarray, margin: float):
    """The best query, or the best one a responder can observe when its gain is within
    ``margin`` of the best (``queries`` best first, ``gains`` theirs, ``reported`` (N,) the
    queries only a conscious victim can report)."""
    best = int(queries[0])
    if margin == 0.0 or not reported[best]:
        return best
    close = gains >= gains[0] * (1.0 - margin)
    observed = np.flatnonzero(close & ~reported[queries])
    return int(queries[observed[0]]) if observed.size else best


def identical_row_groups(matrix: np.ndarray) -> np.ndarray:
    """Code of each row's group of identical rows, shape (M,) (codes in sorted row order):
    objects no question can tell apart, reported together."""
    _, inverse = np.unique(matrix, axis=0, return_inverse=True)
    return inverse.reshape(-1)


# -- elimination: the paper's strict and noise modes ----------------------------------------


class EliminationBackend:
    """The paper's model: objects are eliminated by contradicting answers (Sections 2-6).

    Parameters
    ----------
    problem : Problem
    target : {"object", "group"}
    policy : Policy
    noise : NoiseModel or None
        Persistent noise (Section 6); None for the strict mode.
    """

    def __init__(self, problem: Problem, target: str, policy: Policy, noise: NoiseModel | None):
        self.problem = problem
        self.model = Model(problem, target, noise)
        self.policy = policy
        self.noise = noise
        self.mode = "strict" if noise is None else "noise"

    def view(self, answers: Answers) -> EliminationView:
        return EliminationView(self, answers)


class EliminationView(View):
    def __init__(self, backend: EliminationBackend, answers: Answers):
        self.backend = backend
        self.mode = backend.mode
        self.answers = answers
        self._node: Node | None = None
        self._choice: Choice | None | bool = False

    @property
    def node(self) -> Node:
        if self._node is None:
            self._node = self.backend.model.node_from_answers(
                self.answers.known, self.answers.skipped
            )
        return self._node

    def status(self) -> Status:
        node = self.node
        if node.idx.size == 0:
            return Status.INCONSISTENT
        if node.n_target_groups() <= 1:
            return Status.IDENTIFIED
        if node.is_resolved():
            return Status.INDISTINGUISHABLE
        return Status.ASKING

    def stop_reason(self) -> str | None:
        return {
            Status.ASKING: None,
            Status.IDENTIFIED: "identified",
            Status.INDISTINGUISHABLE: "no_split",
            Status.INCONSISTENT: "no_fit",
        }[self.status()]

    def suggestion(self, reported, margin):
        if self._choice is False:
            node = self.node
            self._choice = None if node.idx.size == 0 else self.backend.policy.choose(node)
        return self._choice

    def useful(self):
        return self.node.split().splits

    def answer_split(self):
        stats = self.node.split()
        if not stats.total:
            return np.zeros(self.backend.problem.n_queries)
        return np.minimum(stats.no, stats.yes) / stats.total

    def suggestion_scores(self):
        return -np.abs(0.5 - self.answer_split())

    def fit(self):
        return None  # "no fit" here means no candidate is left: status() says so

    def mismatches(self):
        known = self.answers.known
        if not known:
            return np.zeros(self.backend.problem.n_objects, dtype=int)
        return self.backend.model.mismatch_counts(known)

    def answers_against(self, obj):
        row = self.backend.problem.matrix[obj]
        return [q for q, yes in self.answers.known.items() if bool(row[q]) != yes]

    def group_drops(self):
        return []  # a class drops to 0 by elimination, which the candidates already show

    def noise_budget_used(self):
        node = self.node
        if self.backend.noise is None or node.delta is None or node.idx.size == 0:
            return None
        return int(node.delta.min())

    def candidates(self):
        node = self.node
        if node.idx.size == 0:
            return []
        mism = self.mismatches()
        codes = identical_row_groups(self.backend.problem.matrix[node.idx])
        mass = np.bincount(codes, weights=node.mass) / node.total
        first = np.full(mass.size, node.idx.size)
        np.minimum.at(first, codes, np.arange(codes.size))
        out = [
            Candidate(
                tuple(int(i) for i in node.idx[codes == k]),
                float(mass[k]),
                int(mism[node.idx[first[k]]]),
            )
            for k in range(mass.size)
        ]
        out.sort(key=lambda c: (-c.probability, c.objects[0]))
        return out

    def object_probabilities(self):
        node = self.node
        out = np.zeros(self.backend.problem.n_objects)
        if node.idx.size:
            out[node.idx] = node.mass / node.total
        return out

    def group_probabilities(self):
        problem = self.backend.problem
        if problem.object_groups is None:
            return np.zeros(0)
        node = self.node
        masses = np.bincount(
            problem.object_groups[node.idx], weights=node.mass, minlength=problem.n_groups
        )
        total = masses.sum()
        return masses / total if total > 0 else masses

    def confidence(self):
        if self.backend.model.target == "group":
            g = self.group_probabilities()
            return float(g.max()) if g.size else 0.0
        cands = self.candidates()
        return cands[0].probability if cands else 0.0


# -- evidence: graded likelihoods, pooled over victims ---------------------------------------


class EvidenceBackend:
    """The evidence model (:mod:`responder.engine.evidence`) behind the interview interface.

    Parameters
    ----------
    problem : Problem
    target : {"object", "group"}
    policy : Policy
        Only whether it suggests categories matters: the gain replaces its cost.
    settings : EvidenceSettings
    """

    mode = "evidence"

    def __init__(self, problem: Problem, target: str, policy: Policy, settings: EvidenceSettings):
        self.problem = problem
        self.settings = settings
        self.model = settings.model(problem, target)
        self.policy = policy
        self.target = target

    def view(self, answers: Answers) -> EvidenceView:
        return EvidenceView(self, answers)


class EvidenceView(View):
    mode = "evidence"

    def __init__(self, backend: EvidenceBackend, answers: Answers):
        self.backend = backend
        self.answers = answers
        self.belief: Belief = backend.model.pooled(
            answers.pooled_queries,
            answers.pooled_values,
            answers.asked,
            answers.pooled_owners,
            answers.current,
        )

    def stop_reason(self):
        return self.belief.stop(self.answers.available).reason

    def status(self) -> Status:
        reason = self.stop_reason()
        if reason is None:
            return Status.ASKING
        if reason == "no_fit":
            return Status.INCONSISTENT
        if reason == "confident" and (
            self.backend.target == "group" or len(self.candidates()[0].objects) == 1
        ):
            return Status.IDENTIFIED
        return Status.INDISTINGUISHABLE

    def suggestion(self, reported, margin):
        """The evidence suggestion as a :class:`Choice`; costs are 1 - gain (bits), which is
        the strict policy's cost C_a when answers are exact."""
        if self.status() is not Status.ASKING:
            return None
        available = self.answers.available
        belief = self.belief
        problem = self.backend.problem
        if not self.backend.policy.uses_categories:
            sug = belief.suggest_symptom(available)
            if sug is None:
                return None
            costs = np.where(belief.useful(available), 1.0 - belief.gains(), np.inf)
            q = prefer_observed(sug.queries, sug.gains, reported, margin)
            return Choice("query", q, np.array([q]), np.ones(1), costs)
        pick = self.backend.settings.pick
        sug = belief.suggest_category(pick, available)
        if sug is None:
            return None
        P = belief.pick_matrix(pick, available)
        j = sug.category
        # Every unasked symptom of the category, useful ones first (best first); with the
        # informed pick model the others have pick chance 0 and are shown greyed.
        inside = np.flatnonzero((problem.query_groups == j) & ~belief.asked & available)
        useful = list(sug.queries)
        rest = [int(q) for q in inside if q not in set(useful)]
        qs = np.array(useful + rest, dtype=np.int64)
        costs = 1.0 - belief.category_gains(pick, available)
        return Choice("category", j, qs, P[j, qs], costs)

    def useful(self):
        return self.belief.useful(self.answers.available)

    def answer_split(self):
        """The predicted chance of the less likely answer under the answer model."""
        b = self.belief
        p_yes = b.yes_probability()
        return np.where(b.asked, 0.0, np.minimum(p_yes, 1.0 - p_yes))

    def suggestion_scores(self):
        return self.belief.gains()

    def fit(self):
        return self.belief.fit()

    def mismatches(self):
        return self.belief.against().sum(axis=1)

    def answers_against(self, obj):
        return [int(q) for q in self.belief.answers_against(obj)]

    def group_drops(self):
        """Classes the last answer lowered sharply: (class, before, after), largest first."""
        problem = self.backend.problem
        last = self.answers.last
        if problem.object_groups is None or last is None:
            return []
        queries, values = self.answers.pooled_queries, self.answers.pooled_values
        drop = np.flatnonzero((queries == last[0]) & (values == last[1]))
        if not drop.size:
            return []
        keep = np.ones(queries.size, dtype=bool)
        keep[drop[-1]] = False
        owners = self.answers.pooled_owners
        before = self.backend.model.pooled(
            queries[keep],
            values[keep],
            self.answers.asked,
            None if owners is None else owners[keep],
            self.answers.current,
        )
        b, a = before.group_probabilities(), self.belief.group_probabilities()
        return [(int(g), float(b[g]), float(a[g])) for g in sharp_group_drops(b, a)]

    def noise_budget_used(self):
        return None

    def candidates(self):
        belief = self.belief
        order, probs = belief.candidate_probabilities()
        against = belief.against().sum(axis=1)
        out = []
        for g, p in zip(order.tolist(), probs.tolist()):
            members = belief.members(g)
            out.append(Candidate(tuple(int(i) for i in members), p, int(against[members[0]])))
        return out

    def object_probabilities(self):
        return self.belief.posterior.copy()

    def group_probabilities(self):
        if self.backend.problem.object_groups is None:
            return np.zeros(0)
        return self.belief.group_probabilities()

    def confidence(self):
        return self.belief.confidence()


def make_backend(
    problem: Problem,
    target: str,
    policy: Policy,
    noise: NoiseModel | None = None,
    evidence: EvidenceSettings | None = None,
):
    """The backend of an answer model: evidence when ``evidence`` is given, else
    elimination (noise when ``noise`` is given, else strict)."""
    if evidence is not None and noise is not None:
        raise ValueError("choose noise mode or evidence mode, not both")
    if evidence is not None:
        return EvidenceBackend(problem, target, policy, evidence)
    return EliminationBackend(problem, target, policy, noise)
