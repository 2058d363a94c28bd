"""An interview in progress: answers so far, candidates, suggestion and status.

Answers may come in any order (a victim volunteers a symptom) and be changed or withdrawn; the
target, policy and noise settings may change mid-interview; the candidates are always
recomputed from the full answer list, so nothing the responder entered is lost.
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


class Answer(str, Enum):
    """A responder's answer to one query."""

    YES = "yes"
    NO = "no"
    UNKNOWN = "unknown"  # "can't tell": the query is spent, nobody is eliminated


MODES = ("evidence", "strict", "noise")


class Status(str, Enum):
    ASKING = "asking"  # more than one target group possible and some query splits them
    IDENTIFIED = "identified"  # one object (or one group) left
    INDISTINGUISHABLE = "indistinguishable"  # several left that no query can separate
    INCONSISTENT = "inconsistent"  # no candidate fits the answers (within eps under noise;
    # in evidence mode, an unlisted agent explains them better: evidence.Belief.fit)


@dataclass(frozen=True)
class QueryAnswer:
    """The current answer to one query. (When and how it was given, and undo, are the
    session's concern: :mod:`responder.core.answers`.)"""

    query: int
    answer: Answer


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
        Answers the objects contradict (0 without noise; up to eps under noise).
    """

    objects: tuple[int, ...]
    probability: float
    mismatches: int


class InterviewState:
    """Answers and derived state of one interview.

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
        Symptoms only a conscious victim can report.
    observed_margin : float
        Evidence mode, one symptom at a time: a symptom that is not ``reported`` (one a
        responder can see on any victim) is suggested before a ``reported`` one whose
        expected gain is larger by less than this fraction of it (0 = gain alone decides).
    unconscious : int, optional
        The query "victim unconscious": once answered yes, ``reported`` symptoms are not
        suggested in evidence mode.
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
    ):
        self.problem = problem
        self._answers: dict[int, Answer] = {}  # query -> answer, in the order given
        self._ties, self._seed = ties, seed
        self._reported = (
            np.zeros(problem.n_queries, dtype=bool)
            if reported is None
            else np.asarray(reported, dtype=bool)
        )
        self._unconscious = unconscious
        if not 0.0 <= observed_margin < 1.0:
            raise ValueError(f"observed_margin must lie in [0, 1), got {observed_margin}")
        self._observed_margin = float(observed_margin)
        self.configure(target=target, policy=policy, noise=noise, evidence=evidence)

    # -- settings ----------------------------------------------------------------------------

    def configure(
        self, target: str | None = None, policy: str | None = None, noise="keep", evidence="keep"
    ):
        """Change target, policy, noise or evidence settings (``None`` turns either off);
        answers are kept. Noise and evidence exclude each other: setting one clears the other.
        """
        target = target or getattr(self, "target", "object")
        policy_name = policy or getattr(self, "policy", None) and self.policy.name or "gbs"
        new_noise, new_evidence = noise, evidence
        noise = getattr(self, "noise", None) if noise == "keep" else noise
        evidence = getattr(self, "evidence", None) if evidence == "keep" else evidence
        if evidence is not None and noise is not None:
            if new_evidence == "keep":
                evidence = None  # noise mode was just chosen
            elif new_noise == "keep":
                noise = None  # evidence mode was just chosen
            else:
                raise ValueError("choose noise mode or evidence mode, not both")
        model = Model(self.problem, target, noise)
        pol = Policy(policy_name, ties=self._ties, seed=self._seed)
        pol.check(self.problem)
        ev_model = evidence.model(self.problem, target) if evidence is not None else None
        self.model, self.policy, self.target, self.noise = model, pol, target, noise
        self.evidence, self._evidence_model = evidence, ev_model
        self._invalidate()

    @property
    def mode(self) -> str:
        """``"evidence"``, ``"strict"`` (the paper's elimination) or ``"noise"``."""
        if self.evidence is not None:
            return "evidence"
        return "noise" if self.noise is not None else "strict"

    def _invalidate(self) -> None:
        self._belief: Belief | None = None
        self._node: Node | None = None
        self._choice: Choice | None | bool = False

    # -- answers -----------------------------------------------------------------------------

    @property
    def answers(self) -> list[QueryAnswer]:
        """The current answers in the order given (a changed answer moves to the end)."""
        return [QueryAnswer(q, a) for q, a in self._answers.items()]

    def _check_query(self, query: int) -> None:
        if not 0 <= query < self.problem.n_queries:
            raise IndexError(f"query {query} is out of range")

    def answer(self, query: int, answer: Answer | str) -> None:
        """Record ``answer`` to ``query``; an earlier answer to the same query is replaced
        and the query moves to the end of the order."""
        answer = Answer(answer)
        self._check_query(query)
        self._answers.pop(query, None)
        self._answers[query] = answer
        self._invalidate()

    def remove(self, query: int) -> Answer | None:
        """Forget the answer to ``query``; returns it (None if it had none)."""
        answer = self._answers.pop(query, None)
        if answer is not None:
            self._invalidate()
        return answer

    def set_answers(self, answers) -> None:
        """Replace all answers by ``answers``, (query, answer) pairs in order (a later pair
        for the same query replaces an earlier one)."""
        new: dict[int, Answer] = {}
        for query, answer in answers:
            answer = Answer(answer)
            self._check_query(query)
            new.pop(query, None)
            new[query] = answer
        self._answers = new
        self._invalidate()

    def known_answers(self) -> tuple[dict[int, bool], list[int]]:
        """The yes/no answers as {query: is_yes}, and the skipped ("can't tell") queries."""
        return self._answer_dict()

    def answer_of(self, query: int) -> Answer | None:
        return self._answers.get(query)

    @property
    def asked_count(self) -> int:
        return len(self._answers)

    def _answer_dict(self) -> tuple[dict[int, bool], list[int]]:
        known = {q: a is Answer.YES for q, a in self._answers.items() if a is not Answer.UNKNOWN}
        skipped = [q for q, a in self._answers.items() if a is Answer.UNKNOWN]
        return known, skipped

    # -- derived -----------------------------------------------------------------------------

    @property
    def node(self) -> Node:
        if self._node is None:
            known, skipped = self._answer_dict()
            self._node = self.model.node_from_answers(known, skipped)
        return self._node

    @property
    def belief(self) -> Belief:
        """The evidence posterior (evidence mode only)."""
        if self._evidence_model is None:
            raise RuntimeError("the evidence posterior exists only in evidence mode")
        if self._belief is None:
            known, skipped = self._answer_dict()
            self._belief = self._evidence_model.belief(known, skipped)
        return self._belief

    def available(self) -> np.ndarray:
        """Queries that may be suggested, shape (N,) bool: once the victim is answered
        unconscious, not those only a conscious victim can report (evidence mode)."""
        ok = np.ones(self.problem.n_queries, dtype=bool)
        if self._unconscious is not None and self.answer_of(self._unconscious) is Answer.YES:
            ok &= ~self._reported
        return ok

    @property
    def stop_reason(self) -> str | None:
        """Why the interview stopped: evidence mode ``"confident"``, ``"no_gain"`` or
        ``"no_fit"``; strict and noise modes ``"identified"``, ``"no_split"`` or
        ``"no_fit"``; None while asking."""
        if self.mode == "evidence":
            return self.belief.stop(self.available()).reason
        return {
            Status.ASKING: None,
            Status.IDENTIFIED: "identified",
            Status.INDISTINGUISHABLE: "no_split",
            Status.INCONSISTENT: "no_fit",
        }[self.status]

    def fit(self) -> Fit | None:
        """Evidence mode: whether the answers fit a listed chemical (the probability that
        the agent is not in the knowledge base); None in strict and noise modes, where
        "no fit" means no candidate is left (:attr:`status`)."""
        return self.belief.fit() if self.mode == "evidence" else None

    def confidence(self) -> float:
        """Probability of the top candidate (chemical target) or top class (class target)."""
        if self.mode == "evidence":
            return self.belief.confidence()
        if self.target == "group":
            g = self.group_probabilities()
            return float(g.max()) if g.size else 0.0
        cands = self.candidates()
        return cands[0].probability if cands else 0.0

    @property
    def status(self) -> Status:
        if self.mode == "evidence":
            return self._evidence_status()
        node = self.node
        if node.idx.size == 0:
            return Status.INCONSISTENT
        if node.n_target_groups() <= 1:
            return Status.IDENTIFIED
        if node.is_resolved():
            return Status.INDISTINGUISHABLE
        return Status.ASKING

    def _evidence_status(self) -> Status:
        reason = self.stop_reason
        if reason is None:
            return Status.ASKING
        if reason == "no_fit":
            return Status.INCONSISTENT
        if reason == "confident" and (
            self.target == "group" or len(self.candidates()[0].objects) == 1
        ):
            return Status.IDENTIFIED
        return Status.INDISTINGUISHABLE

    def suggestion(self) -> Choice | None:
        """What the policy suggests now (None when resolved or inconsistent)."""
        if self._choice is False:
            if self.mode == "evidence":
                self._choice = self._evidence_choice()
            else:
                node = self.node
                self._choice = None if node.idx.size == 0 else self.policy.choose(node)
        return self._choice  # type: ignore[return-value]

    def _evidence_choice(self) -> Choice | None:
        """The evidence suggestion as a :class:`Choice`; costs are 1 - gain (bits), which is
        the strict policy's cost C_a when answers are exact."""
        if self.status is not Status.ASKING:
            return None
        belief, available = self.belief, self.available()
        if not self.policy.uses_categories:
            sug = belief.suggest_symptom(available)
            if sug is None:
                return None
            costs = np.where(belief.useful(available), 1.0 - belief.gains(), np.inf)
            q = int(self._prefer_observed(sug.queries, sug.gains))
            return Choice("query", q, np.array([q]), np.ones(1), costs)
        pick = self.evidence.pick
        sug = belief.suggest_category(pick, available)
        if sug is None:
            return None
        P = belief.pick_matrix(pick, available)
        j = sug.category
        # Every unasked symptom of the category, useful ones first (best first); with the
        # informed pick model the others have pick chance 0 and are shown greyed.
        inside = np.flatnonzero((self.problem.query_groups == j) & ~belief.asked & available)
        useful = list(sug.queries)
        rest = [int(q) for q in inside if q not in set(useful)]
        qs = np.array(useful + rest, dtype=np.int64)
        costs = 1.0 - belief.category_gains(pick, available)
        return Choice("category", j, qs, P[j, qs], costs)

    def _prefer_observed(self, queries: np.ndarray, gains: np.ndarray) -> int:
        """The best query, or the best one a responder can observe when its gain is within
        ``observed_margin`` of the best (``queries`` best first, ``gains`` theirs)."""
        best = int(queries[0])
        if self._observed_margin == 0.0 or not self._reported[best]:
            return best
        close = gains >= gains[0] * (1.0 - self._observed_margin)
        observed = np.flatnonzero(close & ~self._reported[queries])
        return int(queries[observed[0]]) if observed.size else best

    def useful_queries(self) -> np.ndarray:
        """Queries whose answer can change the outcome now, shape (N,) bool."""
        if self.mode == "evidence":
            return self.belief.useful(self.available())
        return self.node.split().splits

    def answer_split(self) -> np.ndarray:
        """Chance of the less likely answer to each query, shape (N,) (0..0.5).

        Strict and noise modes: the smaller child's share of the mass; evidence mode: the
        predicted chance of the less likely answer under the answer model.
        """
        if self.mode == "evidence":
            b = self.belief
            m = b.model
            p_yes = m.yes_probability(b.posterior)
            return np.where(b.asked, 0.0, np.minimum(p_yes, 1.0 - p_yes))
        stats = self.node.split()
        if not stats.total:
            return np.zeros(self.problem.n_queries)
        return np.minimum(stats.no, stats.yes) / stats.total

    def answers_against(self, obj: int) -> list[int]:
        """Answered queries that count against object ``obj`` (contradict its row)."""
        known, _ = self._answer_dict()
        row = self.problem.matrix[obj]
        return [
            r.query
            for r in self.answers
            if r.query in known and bool(row[r.query]) != known[r.query]
        ]

    def group_drops(self) -> list[tuple[int, float, float]]:
        """Classes the last answer lowered sharply: (class, before, after), largest first.

        Evidence mode only (elsewhere a class drops to 0 by elimination, which the
        candidates already show); empty before any yes/no answer.
        """
        if self.mode != "evidence" or self.problem.object_groups is None:
            return []
        last = self.answers[-1] if self.answers else None
        if last is None or last.answer is Answer.UNKNOWN:
            return []
        known, skipped = self._answer_dict()
        known.pop(last.query)
        before = self._evidence_model.belief(known, skipped).group_probabilities()
        after = self.belief.group_probabilities()
        return [
            (int(g), float(before[g]), float(after[g])) for g in sharp_group_drops(before, after)
        ]

    def mismatches(self) -> np.ndarray:
        """Answers each object contradicts, shape (M,)."""
        known, _ = self._answer_dict()
        if not known:
            return np.zeros(self.problem.n_objects, dtype=int)
        return self.model.mismatch_counts(known)

    def candidates(self) -> list[Candidate]:
        """Remaining candidates, objects with identical rows merged, most probable first.

        In evidence mode every chemical is a candidate (nothing is eliminated).
        """
        if self.mode == "evidence":
            return self._evidence_candidates()
        node = self.node
        if node.idx.size == 0:
            return []
        mism = self.mismatches()
        rows = self.problem.matrix[node.idx]
        _, inverse = np.unique(rows, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        total = node.total
        out = []
        for k in range(int(inverse.max()) + 1):
            members = node.idx[inverse == k]
            mass = float(node.mass[inverse == k].sum())
            out.append(
                Candidate(tuple(int(i) for i in members), mass / total, int(mism[members[0]]))
            )
        out.sort(key=lambda c: (-c.probability, c.objects[0]))
        return out

    def _evidence_candidates(self) -> list[Candidate]:
        belief = self.belief
        order, probs = belief.candidate_probabilities()
        against = belief.against().sum(axis=1)
        out = []
        for g, p in zip(order.tolist(), probs.tolist()):
            members = belief.members(g)
            out.append(Candidate(tuple(int(i) for i in members), p, int(against[members[0]])))
        return out

    def ranked_by_mismatch(self, limit: int = 10) -> list[tuple[int, int]]:
        """(object, mismatches) for the objects contradicting fewest answers: shown when no
        candidate is consistent, so the engine never silently picks one."""
        mism = self.mismatches()
        order = np.lexsort((-self.problem.prior, mism))
        return [(int(i), int(mism[i])) for i in order[:limit]]

    def group_probabilities(self) -> np.ndarray:
        """Probability of each object group (class), shape (m,); zeros if no labels."""
        if self.problem.object_groups is None:
            return np.zeros(0)
        if self.mode == "evidence":
            return self.belief.group_probabilities()
        node = self.node
        masses = np.bincount(
            self.problem.object_groups[node.idx], weights=node.mass, minlength=self.problem.n_groups
        )
        total = masses.sum()
        return masses / total if total > 0 else masses

    def noise_budget_used(self) -> int | None:
        """Fewest contradicted answers among candidates (out of eps); None without noise."""
        if self.noise is None:
            return None
        node = self.node
        if node.delta is None or node.idx.size == 0:
            return None
        return int(node.delta.min())
