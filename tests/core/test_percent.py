"""Probabilities as a responder reads them: never a certainty the evidence does not give."""

from __future__ import annotations

import pytest

from responder.core.percent import percent


@pytest.mark.parametrize(
    "p, shown",
    [
        (0.0, "0%"),
        (0.001, "<1%"),
        (0.0049, "<1%"),
        (0.005, "<1%"),  # rounds half to even, to 0%: not 0, so never printed as 0%
        (0.42, "42%"),
        (0.994, "99%"),
        (0.995, ">99%"),
        (0.99999, ">99%"),
        (1.0, ">99%"),  # even the last candidate left
    ],
)
def test_percent(p, shown):
    assert percent(p) == shown


def test_a_leading_chemical_near_certain_is_never_shown_as_certain():
    from responder.config import InterviewConfig
    from responder.core import views
    from responder.core.session import Interview
    from responder.engine.state import Answer
    from responder.kb.loader import load_bundled

    knowledge = load_bundled()
    it = Interview(knowledge, InterviewConfig(mode="evidence"))
    row = knowledge.chemicals[knowledge.chemical_index("Chlorine")].symptoms
    for s in knowledge.symptoms:  # every sign answered as chlorine's row says
        it.answer(s.index, Answer.YES if s.id in row else Answer.NO)
    leader = views.candidates(it)[0]
    assert leader.chemicals[0].name == "Chlorine" and leader.probability > 0.995
    assert views.result(it).headline == "Most likely: Chlorine (Irritant gases) >99%"
    assert views.top_candidate(it) == "Chlorine >99%"


@pytest.mark.parametrize(
    "p, shown",
    [
        (0.0, "0.0%"),
        (0.0004, "<0.1%"),
        (0.0005, "0.1%"),
        (0.174, "17.4%"),
        (0.9994, "99.9%"),
        (0.9995, ">99.9%"),
        (1.0, ">99.9%"),
    ],
)
def test_percent_in_tenths(p, shown):
    from responder.core.percent import percent_tenths

    assert percent_tenths(p) == shown


def test_the_lists_never_show_a_candidate_as_certain(tmp_path):
    """The candidates panel, the result's other candidates and the export printed their
    chances to a tenth of a percent: the last chemical left, or one near certain, read
    '100.0%' beside a headline saying '>99%'."""
    from responder.config import InterviewConfig
    from responder.core import views
    from responder.core.export import report, to_markdown
    from responder.core.session import Interview
    from responder.engine.state import Answer
    from responder.kb.loader import load_bundled

    knowledge = load_bundled()
    it = Interview(knowledge, InterviewConfig(mode="strict"))
    row = knowledge.chemicals[knowledge.chemical_index("Chlorine")].symptoms
    for s in knowledge.symptoms:
        it.answer(s.index, Answer.YES if s.id in row else Answer.NO)
    assert views.candidates(it)[0].probability == 1.0
    md = to_markdown(report(it))
    assert "100.0%" not in md and "| >99.9% |" in md
