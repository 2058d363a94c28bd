"""Simulated interviews under persistent noise (Section 7.3's four steps).

1. The fraction nu of queries prone to error is fixed by the noise model.
2. Draw the number of errors e in {0, ..., eps'} from the probability model.
3. Choose e of the error-prone queries uniformly.
4. Flip the true object's answers to those queries; asking again repeats the flip.

:func:`run_simulation` measures E[K] and how often the interview ends on the true object,
separately for interviews with at most eps errors and with more (errors beyond eps are drawn
when ``extra_errors`` > 0, to show what happens past the budget).
"""

from __future__ import annotations

from dataclasses import dataclass, field
import numpy as np

from responder.engine.belief import Model
from responder.engine.noise import log_binomial_coefficients
from responder.engine.policies import Policy, pick_query


def error_count_distribution(n_prone: int, eps_eff: int, model: int, p: float) -> np.ndarray:
    """Pr(e errors) for e = 0..eps' under probability model 1 or 2 (Section 6), shape (eps'+1,)."""
    p_eff = 0.5 if model == 1 else p
    log_c = log_binomial_coefficients(n_prone, eps_eff)
    k = np.arange(log_c.size, dtype=float)
    if p_eff == 0.0:  # no errors at all
        return (k == 0).astype(float)
    # In logs: C(n, k) p^k (1-p)^(n-k) overflows (or underflows to 0) for large n.
    log_w = log_c + k * np.log(p_eff) + (n_prone - k) * np.log1p(-p_eff)
    w = np.exp(log_w - log_w.max())
    return w / w.sum()


def draw_answers(
    model: Model, true: int, rng: np.random.Generator, n_errors: int | None = None
) -> np.ndarray:
    """The answers a responder would record when the true object is ``true``, shape (N,) bool.

    Without noise, the object's row. Under noise, steps 2-4 above; ``n_errors`` forces the
    number of flips (it may exceed eps, to test what happens past the budget).
    """
    row = model.matrix[true].copy()
    noise = model.noise
    if noise is None:
        return row
    prone = np.flatnonzero(noise.prone)
    if n_errors is None:
        dist = error_count_distribution(noise.n_prone, noise.eps_eff, noise.model, noise.p)
        n_errors = int(rng.choice(dist.size, p=dist))
    n_errors = min(n_errors, prone.size)
    flipped = rng.choice(prone, size=n_errors, replace=False)
    row[flipped] = ~row[flipped]
    return row


@dataclass
class SimulationResult:
    """Outcome of simulated interviews.

    Attributes
    ----------
    interviews : int
    expected_queries : float
    ci95 : (float, float)
    accuracy_within_eps : float or None
        Share of interviews with at most eps errors that ended on the true object alone.
    accuracy_beyond_eps : float or None
        The same for interviews with more than eps errors.
    inconsistent_beyond_eps : float or None
        Share of over-budget interviews where no candidate was consistent within eps (the
        engine says so and ranks candidates; it never silently picks one).
    """

    interviews: int
    expected_queries: float
    ci95: tuple[float, float]
    accuracy_within_eps: float | None
    within_count: int
    accuracy_beyond_eps: float | None
    beyond_count: int
    inconsistent_beyond_eps: float | None
    details: dict = field(default_factory=dict)


def run_interview(model: Model, policy: Policy, answers: np.ndarray, rng) -> tuple[int, object]:
    """Follow ``policy`` with fixed ``answers``; return (questions asked, final node)."""
    node = model.root()
    k = 0
    while node.idx.size:
        choice = policy.choose(node)
        if choice is None:
            break
        q = pick_query(choice, rng)
        node = node.child(q, bool(answers[q]))
        k += 1
    return k, node


def ended_on_truth(model: Model, node, true: int) -> bool:
    """Whether an interview that stopped at ``node`` identified the true object ``true``.

    Correct when the candidates are the true object alone, or the true object and objects
    whose rows equal its row (no query separates them; the interview reports them
    together); for the group target, when every remaining candidate is in the true
    object's group.
    """
    idx = node.idx
    if model.target == "group":
        groups = model.problem.object_groups
        return idx.size > 0 and bool(np.all(groups[idx] == groups[true]))
    if idx.size == 1:  # the usual end: one candidate (fast path)
        return int(idx[0]) == true
    return bool(np.any(idx == true)) and bool(np.all(model.matrix[idx] == model.matrix[true]))


def run_simulation(
    model: Model,
    policy: Policy,
    interviews: int = 1000,
    extra_errors: int = 0,
    seed: int | None = None,
) -> SimulationResult:
    """Simulate ``interviews`` interviews; with ``extra_errors`` > 0, as many again with
    eps + 1 .. eps + extra_errors flips (uniformly), to measure accuracy past the budget.

    An interview is correct when it ends on the truth (see :func:`ended_on_truth`).

    Over-budget interviews are drawn only when more than eps' queries are error-prone
    (otherwise every possible error pattern is within the budget); their flips are capped at
    the number of error-prone queries. ``details`` holds three shares:

    - ``several_candidates_within_eps``: within-budget interviews that ended on several
      target groups that no query separates (identical rows);
    - ``wrong_consistent_beyond_eps``: over-budget interviews that ended on a wrong candidate
      that fits every answer given within eps;
    - ``inconsistent_if_all_asked_beyond_eps``: over-budget interviews where no object fits
      all N answers, i.e. what asking every remaining question would reveal. A query policy
      asks only queries that split the candidates, so its interview never runs out of
      candidates by itself.
    """
    rng = np.random.default_rng(seed)
    prior = model.problem.prior
    M = model.problem.n_objects
    noise = model.noise
    counts, within, beyond, inconsistent = [], [], [], []
    plans = [None] * interviews
    if noise is not None and extra_errors > 0 and noise.n_prone > noise.eps_eff:
        flips = noise.eps_eff + 1 + rng.integers(0, extra_errors, size=interviews)
        plans += [int(f) for f in np.minimum(flips, noise.n_prone)]
    shared, wrong_consistent, caught = [], [], []
    for n_err in plans:
        true = int(rng.choice(M, p=prior))
        answers = draw_answers(model, true, rng, n_errors=n_err)
        k, node = run_interview(model, policy, answers, rng)
        ok = ended_on_truth(model, node, true)
        if n_err is None:
            counts.append(k)
            within.append(ok)
            shared.append(node.idx.size > 0 and node.n_target_groups() > 1)
        else:
            beyond.append(ok)
            inconsistent.append(node.idx.size == 0)
            wrong_consistent.append(not ok and node.idx.size > 0)
            full = model.node_from_answers(dict(enumerate(answers.tolist())))
            caught.append(full.idx.size == 0)
    counts_a = np.asarray(counts, dtype=float)
    mean = float(counts_a.mean())
    half = 1.96 * float(counts_a.std(ddof=1)) / np.sqrt(counts_a.size) if counts_a.size > 1 else 0.0
    return SimulationResult(
        interviews=interviews,
        expected_queries=mean,
        ci95=(mean - half, mean + half),
        accuracy_within_eps=float(np.mean(within)) if within else None,
        within_count=len(within),
        accuracy_beyond_eps=float(np.mean(beyond)) if beyond else None,
        beyond_count=len(beyond),
        inconsistent_beyond_eps=float(np.mean(inconsistent)) if inconsistent else None,
        details={
            "several_candidates_within_eps": float(np.mean(shared)) if shared else None,
            "wrong_consistent_beyond_eps": (
                float(np.mean(wrong_consistent)) if wrong_consistent else None
            ),
            "inconsistent_if_all_asked_beyond_eps": float(np.mean(caught)) if caught else None,
        },
    )
