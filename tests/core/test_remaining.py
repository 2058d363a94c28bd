"""Expected questions left: computed in a helper process, tagged, cancellable."""

from __future__ import annotations

import os
import threading
import time

from core_fixtures import home, knowledge  # noqa: F401 (pytest fixtures)

from responder.config import InterviewConfig, NoiseSettings
from responder.core.remaining import Cancelled, RemainingService, evaluate_spec
from responder.core.session import Interview
from responder.engine.state import Answer


def test_remaining_spec_is_tagged_with_its_generation(knowledge):
    it = Interview(
        knowledge, InterviewConfig("chemical", "category", "noise", NoiseSettings(enabled=True))
    )
    generation, spec = it.remaining_spec()
    it.answer(0, Answer.YES)  # the responder goes on while the job runs
    assert generation == 0 != it.generation
    value, method = evaluate_spec(spec)
    assert value > 0 and method in ("exact", "monte-carlo")
    service = RemainingService()
    try:
        assert service.compute(spec) == (value, method)  # same figure from the helper process
    finally:
        service.close()


def test_remaining_service_can_be_cancelled(knowledge):
    it = Interview(
        knowledge, InterviewConfig("class", "category", "noise", NoiseSettings(enabled=True))
    )
    service = RemainingService()
    outcome = []

    def run():
        try:
            outcome.append(service.compute(it.remaining_spec()[1]))
        except Cancelled:
            outcome.append("cancelled")

    try:
        thread = threading.Thread(target=run)
        thread.start()
        for _ in range(500):
            if service.busy:
                break
            time.sleep(0.01)
        assert service.busy  # the helper is working on it (it takes seconds)
        first = service._proc.pid
        assert first != os.getpid()
        service.cancel()
        thread.join(10)
        assert not thread.is_alive() and outcome == ["cancelled"]
        # the next computation starts a fresh helper and answers normally
        assert (
            service.compute(
                Interview(
                    knowledge, InterviewConfig("chemical", "symptom", "strict")
                ).remaining_spec()[1]
            )[1]
            == "exact"
        )
        assert service._proc.pid not in (first, os.getpid())
    finally:
        service.close()


def test_the_helper_runs_below_the_app_s_priority(knowledge):
    """An estimate may wait; a key must not: the helper lowers its own priority."""
    import pytest

    from responder.core.remaining import HELPER_NICENESS

    if not hasattr(os, "nice") or not os.path.exists(f"/proc/{os.getpid()}/stat"):
        pytest.skip("niceness is read from /proc (Linux)")

    def niceness(pid: int) -> int:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[16])

    service = RemainingService()
    try:
        spec = Interview(
            knowledge, InterviewConfig("chemical", "symptom", "strict")
        ).remaining_spec()
        assert service.compute(spec[1])[1] == "exact"  # the helper has answered: it is set up
        assert niceness(service._proc.pid) == min(19, niceness(os.getpid()) + HELPER_NICENESS)
    finally:
        service.close()


def test_the_evidence_estimate_runs_on_a_fork_of_the_interview_itself(knowledge):
    """Evidence mode: the helper gets the interview's own state (a fork, so the responder's
    later answers do not touch it) and its exclusive groups, and the estimate falls as the
    answers narrow the candidates."""
    it = Interview(knowledge, InterviewConfig("chemical", "symptom", "evidence"))
    _, start = it.remaining_spec()
    assert start.interview is not it.state and start.groups is not None
    best = int(it.state.suggestion().queries[0])
    it.answer(best, Answer.YES)
    assert start.interview.answers == []  # taken before the answer, and kept so
    _, later = it.remaining_spec()
    assert [a.query for a in later.interview.answers if not a.implied] == [best]
    before, method = evaluate_spec(start)
    after, _ = evaluate_spec(later)
    assert method == "monte-carlo" and 0 < after < before
