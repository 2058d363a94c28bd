"""Estimating a run before it starts: measuring stops when its budget is spent (an interview
cut short gives a lower bound), a step too long to run is timed on a sample of the rows,
delta's computation is estimated from its first block, and the memory estimates cover
what the engine allocates.

Clocks are replaced where a test depends on time, so nothing here depends on the machine's
speed.
"""

from __future__ import annotations

import itertools
import tracemalloc

import numpy as np
import pytest

from responder.engine import diagnostics, workload
from responder.engine.belief import Model
from responder.engine.compare import EvidenceMode, StrictMode, Victims
from responder.engine.evaluate import monte_carlo
from responder.engine.evidence import EvidenceSettings
from responder.engine.noise import NoiseModel
from responder.engine.policies import Policy
from responder.engine.problem import Problem
from responder.engine.simulate import PersistentNoiseAnswers, PolicyInterviewer, run_simulation


def random_problem(m: int, n: int, seed: int = 0, density: float = 0.3) -> Problem:
    rng = np.random.default_rng(seed)
    return Problem.build(rng.random((m, n)) < density)


@pytest.fixture
def ticking_clock(monkeypatch):
    """process_time advances one second per call: budgets run out after a fixed number of
    answers, whatever the machine."""
    ticks = itertools.count()
    monkeypatch.setattr(workload.time, "process_time", lambda: float(next(ticks)))


def test_an_interview_cut_short_gives_a_lower_bound(ticking_clock):
    problem = random_problem(64, 40)
    model = Model(problem, "object", NoiseModel(6, np.ones(40, bool)))
    root = model.root()
    work = workload.measure_interviewer(
        PolicyInterviewer(model, Policy("gbs"), start=root, cache=False),
        PersistentNoiseAnswers(model),
        root,
        budget_seconds=3.5,  # the clock reads at start, then once per answer
        n_objects=64,
        eps_eff=6,
        least_questions=workload.min_questions(model),
    )
    assert not work.complete and work.interviews == 0
    # 3 answers given, and identifying one of 64 under 6 errors takes at least 7
    assert work.mean_questions == max(3 + 1, 7) == workload.min_questions(model)
    # 5 s elapsed (start, 4 reads, end) over 4 choices, times the 7 questions at least
    assert work.seconds_per_interview == pytest.approx(5 / 4 * 7)


def test_complete_interviews_are_measured_as_before():
    problem = random_problem(30, 40)
    model = Model(problem, "object", NoiseModel(2, np.ones(40, bool)))
    work = workload.measure_interviews(model, Policy("gbs"), seed=0, max_interviews=3)
    assert work.complete and work.interviews == 3 and work.mean_questions >= 3


def test_a_step_too_long_to_run_is_timed_on_a_sample(monkeypatch):
    problem = random_problem(400, 60)
    model = Model(problem, "object", NoiseModel(5, np.ones(60, bool)))
    monkeypatch.setattr(workload, "CALIBRATION_CELLS", 100 * 60)  # a sample of 100 rows
    sampled_rows = []
    real_choose = Policy.choose

    def choose(self, node):
        sampled_rows.append(node.model.problem.n_objects)
        return real_choose(self, node)

    def no_full_interview(*_):
        raise AssertionError("a full-size interview was started")

    monkeypatch.setattr(Policy, "choose", choose)
    monkeypatch.setattr(PolicyInterviewer, "run", no_full_interview)
    work = workload.measure_interviews(model, Policy("gbs"), seed=0, budget_seconds=0.0)
    assert sampled_rows == [100]  # one step, on the sample only
    assert not work.complete and work.interviews == 0
    assert work.mean_questions == workload.min_questions(model) == 9  # log2(400) rounded up


def test_min_questions():
    problem = random_problem(1000, 30)
    assert workload.min_questions(Model(problem)) == 10
    noisy = Model(problem, "object", NoiseModel(20, np.ones(30, bool)))
    assert workload.min_questions(noisy) == 21


# -- delta --------------------------------------------------------------------------------------


def test_delta_is_refused_from_its_first_block_when_the_whole_would_exceed_the_budget(
    ticking_clock,
):
    B = random_problem(3000, 40).matrix
    k = np.unique(B, axis=0).shape[0]
    blocks = [(min(s + 1000, k) - s) * (k - s) for s in range(0, k, 1000)]
    with pytest.raises(workload.DeltaTooSlow) as info:
        workload.min_hamming_within(B, budget_seconds=1.5, block=1000)
    # the first block is measured as 1 s by the ticking clock, and scaled to the whole
    assert info.value.seconds == pytest.approx(sum(blocks) / blocks[0])
    assert diagnostics.known_delta(B) is None  # nothing remembered from a refusal


def test_delta_is_exact_and_remembered_for_the_same_array(monkeypatch):
    B = random_problem(300, 25, seed=4).matrix
    rows = B.astype(int)
    brute = min(
        int((rows[i] != rows[j]).sum())
        for i in range(len(rows))
        for j in range(i + 1, len(rows))
        if (rows[i] != rows[j]).any()
    )
    assert diagnostics.min_hamming_distance(B, block=64) == brute
    calls = []
    monkeypatch.setattr(diagnostics, "hamming_scan", lambda *_: calls.append(1) or [(-1, 1.0)])
    assert diagnostics.min_hamming_distance(B) == brute and calls == []
    assert workload.min_hamming_within(B, budget_seconds=0) == brute and calls == []
    assert diagnostics.min_hamming_distance(B.copy()) == -1 and calls == [1]  # another array


# -- memory ------------------------------------------------------------------------------------


def peak_bytes(run) -> int:
    """Peak bytes numpy and Python allocate while ``run()`` runs (tracemalloc)."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        run()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def estimate_without_base(m: int, n: int, **kw) -> int:
    return workload.run_bytes(m, n, **kw) - workload.BASE_BYTES


@pytest.mark.parametrize(("m", "n"), [(1500, 300), (3000, 150)])
def test_the_noise_step_estimate_covers_a_step(m, n):
    problem = random_problem(m, n)

    def step():
        model = Model(problem, "object", NoiseModel(10, np.ones(n, bool)))
        node = model.root()
        Policy("gbs").choose(node)
        Policy("gbs").choose(node.child(0, True))

    measured = peak_bytes(step)
    estimate = estimate_without_base(m, n, noise=True)
    assert measured <= estimate <= 3 * measured


def test_the_batch_estimate_covers_interviews_run_together():
    problem = random_problem(800, 150)  # under BATCH_MAX_CELLS: run together
    model = Model(problem, "object", NoiseModel(3, np.ones(150, bool)))
    measured = peak_bytes(
        lambda: run_simulation(model, Policy("gbs"), interviews=300, extra_errors=0, seed=0)
    )
    estimate = estimate_without_base(800, 150, batch=300)
    assert measured <= estimate <= 4 * measured


def test_the_evidence_and_strict_estimates_cover_their_setup_and_interviews():
    problem = random_problem(2000, 200)
    answers = Victims("flip", flip=0.1).answers_for(problem)

    def compare():
        modes = [EvidenceMode(EvidenceSettings().model(problem, "object")), StrictMode(problem)]
        for mode in modes:
            mode.run(answers.draw(5, np.random.default_rng(0)), np.random.default_rng(1))

    measured = peak_bytes(compare)
    estimate = estimate_without_base(2000, 200, models=1, evidence=1)
    assert measured <= estimate <= 3 * measured


@pytest.mark.parametrize(("m", "n"), [(1000, 200), (300, 600)])
def test_the_monte_carlo_estimate_covers_noise_free_interviews(m, n):
    """``eval --method monte-carlo --trials 100000000`` took 15 GB in 30 s with nothing
    estimated: noise-free Monte Carlo had no memory estimate at all."""
    model = Model(random_problem(m, n), "object")
    measured = peak_bytes(lambda: monte_carlo(model, Policy("gbs"), trials=4000, seed=0))
    estimate = workload.monte_carlo_bytes(m, n, 4000) - workload.BASE_BYTES
    assert measured <= estimate <= 6 * measured
