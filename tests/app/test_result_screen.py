"""The result at the design size: the leader on the first line and what to do now on the
first screen; the panels count what is plausible; browse finds any chemical and its rank;
the status line keeps to two lines."""

from __future__ import annotations

import pytest
from app_helpers import answer_from_row, settle, skip_scene_step, static_text, until
from conftest import make_app
from test_snapshots import screen_text

from responder.app.screens.browse import BrowseScreen
from responder.app.screens.interview import InterviewScreen
from responder.app.screens.result import ResultScreen
from responder.app.widgets.panels import CandidatesTable, StatusLine
from responder.core import views
from responder.engine.state import Answer


async def test_the_result_names_the_leader_first_and_what_to_do_on_the_first_screen():
    app = make_app(None, mode=None)  # bundled knowledge base, evidence mode
    async with app.run_test(size=(80, 24)) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await answer_from_row(pilot, app, "Chlorine")
        assert isinstance(app.screen, ResultScreen)
        lines = [line.strip() for line in screen_text(app).split("\n") if line.strip()]
        assert lines[0].startswith("Most likely: Chlorine (Irritant gases) ")
        assert lines[1].startswith("Class: Irritant and choking gases")
        first_screen = "\n".join(lines)
        assert "What to do now" in first_screen and "Warning for Chlorine" in first_screen
        assert "delayed" in static_text(app.screen.query_one("#result-next"))


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_the_result_says_it_is_decision_support_on_its_first_screen(size):
    """QA round 13: the result screen covers the interview screen's top line, and said
    'Decision support only, not a diagnosis' only in a box at its very end, six pages down
    at 80x24 after a chlorine interview. The first screen now says it, on the heading of
    what to do now, taking no line from the steps."""
    app = make_app(None, mode=None)
    async with app.run_test(size=size) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await answer_from_row(pilot, app, "Chlorine")
        assert isinstance(app.screen, ResultScreen)
        rows = [row.strip() for row in screen_text(app).split("\n")]
        heading = "What to do now · decision support, not a diagnosis"
        assert any(row.startswith(heading) for row in rows[:6]), rows[:6]


async def test_a_result_without_steps_says_it_is_decision_support_under_its_headline():
    app = make_app(mode=None)  # the fixture knowledge base: no next steps of its own
    async with app.run_test(size=(80, 24)) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await answer_from_row(pilot, app, app.knowledge.chemicals[0].name)
        if not isinstance(app.screen, ResultScreen):
            await pilot.press("r")
            assert await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        text = screen_text(app)
        assert "decision support, not a diagnosis" in text.lower(), text


async def test_the_act_now_line_stays_over_the_result_while_a_victim_has_a_lethal_sign(
    monkeypatch, tmp_path
):
    """QA round 13: the act-now line ("ACT NOW: Stopped breathing. Start life support...")
    is on the interview screen while any victim has such a sign, but the result screen
    covered it: a victim who had stopped breathing read, on the result of a fentanyl
    interview, only the general "Not breathing or unconscious: call 911 first". The
    result now carries it at its top, outside its scrolling; without such a sign, none."""
    from responder.app.widgets.panels import ActNow  # noqa: PLC0415

    app = make_app(None, mode=None)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        kn = app.knowledge
        app.interview.answer(kn.symptom_index("respiratory_arrest"), Answer.YES)
        await answer_from_row(pilot, app, "Chlorine")
        assert isinstance(app.screen, ResultScreen)
        rows = screen_text(app).split("\n")
        assert rows[0].startswith(" ACT NOW: Stopped breathing"), rows[0]
        app.screen.query_one("#result-body").scroll_end(animate=False)
        await settle(pilot)
        assert screen_text(app).split("\n")[0].startswith(" ACT NOW: Stopped breathing")
        await pilot.press("escape")  # the history covers the interview screen too
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await pilot.press("h")
        assert await until(pilot, lambda: type(app.screen).__name__ == "HistoryScreen")
        assert screen_text(app).split("\n")[0].startswith(" ACT NOW: Stopped breathing")
        await pilot.press("escape")  # and so does the browse screen (left by QA round 13)
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await pilot.press("b")
        assert await until(pilot, lambda: type(app.screen).__name__ == "BrowseScreen")
        await settle(pilot)
        assert screen_text(app).split("\n")[0].startswith(" ACT NOW: Stopped breathing")
    monkeypatch.setenv("RESPONDER_HOME", str(tmp_path / "another"))  # no interview to resume
    app = make_app(None, mode=None)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await answer_from_row(pilot, app, "Chlorine")
        assert isinstance(app.screen, ResultScreen)
        assert not app.screen.query_one(ActNow).display


async def test_r_before_a_result_counts_the_plausible_candidates():
    app = make_app(None, mode=None)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await pilot.press("y")
        await settle(pilot)
        shown, total = views.plausible(app.interview)
        assert 0 < shown < total
        table = app.screen.query_one(CandidatesTable)
        assert table.border_title in (
            f"Candidates: {shown} plausible (above 1%) of {total}",
            f"{shown} plausible (>1%) of {total}",
        )
        said: list[str] = []
        notify = app.notify
        app.notify = lambda message, **kw: (said.append(message), notify(message, **kw))
        await pilot.press("r")
        await settle(pilot, 3)
        assert any(f"{shown} of {total} chemicals plausible (above 1%)" in m for m in said)
        assert list(app.screen.query("Toast"))  # shown over the answers panel


@pytest.mark.parametrize(
    ("typed", "found"),
    [
        ("GB", "Sarin (GB)"),
        ("107-44-8", "Sarin (GB)"),
        ("HD", "Sulfur mustard (HD)"),
        ("pepper spray", "Oleoresin capsicum (OC, pepper spray)"),
    ],
)
async def test_browse_finds_a_chemical_by_any_of_its_names_with_its_rank(typed, found):
    app = make_app(None, mode=None)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await pilot.press("y")
        await settle(pilot)
        rank = views.ranks(app.interview)[app.knowledge.chemical_index(found)][0]
        await pilot.press("b")
        assert await until(pilot, lambda: isinstance(app.screen, BrowseScreen))
        await pilot.press(*typed)
        await settle(pilot, 3)
        text = screen_text(app)
        table_line = next(
            line.split("│")[0] for line in text.split("\n") if found[:16] in line.split("│")[0]
        )
        assert table_line.split()[0] == str(rank)  # its rank, first
        detail = " ".join(static_text(app.screen.query_one("#chem-detail")).split())
        assert f"Now ranked {rank} among the candidates" in detail


async def test_the_status_line_keeps_to_three_lines_with_noise_on_and_a_notice():
    app = make_app()  # strict mode: e turns noise tolerance on
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        app.interview_screen.show_notice("a long notice " * 12, "warning")
        await settle(pilot)
        status = app.screen.query_one(StatusLine)
        assert status.region.height == 3  # the figures, then the notice on two rows
        text = static_text(status)
        assert "Noise on" in text.splitlines()[0] and "a long notice" in text
        assert text.rstrip().endswith("…")  # the rest cut


async def test_a_pooled_result_lists_each_victims_answers_with_whose_they_are():
    app = make_app(mode=None)  # the fixture knowledge base, evidence mode
    async with app.run_test(size=(100, 40)) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        it = app.interview
        it.set_modes(evidence={"threshold": 0.75})
        ix = it.knowledge.symptom_index
        for sid, a in [("pinpoint_pupils", "yes"), ("headache", "yes"), ("confusion", "no")]:
            it.answer(ix(sid), a)
        it.add_victim()
        for sid, a in [("wheezing", "yes"), ("shortness_of_breath", "no"), ("sweating", "yes")]:
            it.answer(ix(sid), a)
        await pilot.press("1")  # back to the first victim: the result is still the incident's
        await settle(pilot)
        await pilot.press("r")
        assert await until(pilot, lambda: isinstance(app.screen, ResultScreen))
        await pilot.pause()
        profile = static_text(app.screen.query_one("#result-profile"))
        assert "V1 Pinpoint pupils" in profile and "V2 Wheezing" in profile
        assert "V2 Shortness of breath" in profile
        weighed = static_text(app.screen.query_one("#result-weighed"))
        assert "V2 Shortness of breath no" in weighed


def first_screen_words(app) -> str:
    """The result screen's first 80x24 screen as one line of words (no scrollbar, no
    footer): a step wrapped over several rows reads as its own text."""
    rows = screen_text(app).split("\n")[:-1]
    return " ".join(" ".join(row[:77].split()) for row in rows)


@pytest.mark.parametrize(
    ("chemical", "must_show"),
    [
        # the antidote, protecting yourself and getting out of the vapour
        ("Sarin (GB)", ("atropine", "exposes others", "fresh air")),
        # rescuers have died: the one line that keeps the next one alive
        ("Hydrogen sulfide", ("positive-pressure SCBA", "No proven antidote")),
        ("Hydrogen cyanide", ("100% oxygen", "Level A", "Leave the area")),
        ("Carbon monoxide", ("100% oxygen", "fresh air", "trained and equipped", "UN 1016")),
        ("Chlorine", ("half-upright", "Level A", "15 minutes")),
        # not confident (the analogues share a profile): the class's naloxone still shows
        ("Carfentanil", ("naloxone", "nitrile gloves")),
        # not confident either (three nerve agents share its profile), two warnings
        ("Soman (GD)", ("antidote at once", "atropine", "traps vapour")),
    ],
)
async def test_the_first_screen_holds_a_line_of_each_kind_and_every_warning(chemical, must_show):
    app = make_app(None, mode=None)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await answer_from_row(pilot, app, chemical)
        assert isinstance(app.screen, ResultScreen)
        seen = first_screen_words(app)
        steps = app.screen.steps
        # the poison-centre line, its label on the same row
        rows = screen_text(app).split("\n")
        assert any("Poison centre: 1-800-222-1222" in r and "24 hours" in r for r in rows)
        shown = [*steps.hallmarks, *steps.first]
        assert {s.kind for s in steps.first} == {k for k in steps.by_kind}  # one of each kind
        for step in shown:
            assert " ".join(step.text.split()) in seen, step.text
        for words in must_show:
            assert words in seen, words
        # an identifier is never split from its label at the end of a row
        assert not any(r[:77].rstrip().endswith((" UN", " CAS", "·")) for r in rows)
        # the rest is one key away, as the screen says ("↓ or PgDn")
        assert steps.rest_by_kind()  # the general steps at least
        assert "More steps, kind by kind (↓ or PgDn)" in static_text(
            app.screen.query_one("#result-next")
        )
        body = app.screen.query_one("#result-body")
        await pilot.press("pagedown")
        assert await until(pilot, lambda: body.scroll_y > 0)  # scrolling is animated


def test_keep_parts_moves_a_part_whole_to_the_next_row():
    from responder.app.screens.result import keep_parts

    line = "Class: Carbon monoxide and methaemoglobin formers 99% · CAS 630-08-0 · UN 1016"
    assert keep_parts(line, 74) == (
        "Class: Carbon monoxide and methaemoglobin formers 99% · CAS 630-08-0\nUN 1016"
    )
    assert keep_parts(line, 120) == line
    # a part wider than a row is left whole for the screen to wrap
    assert keep_parts("a" * 30 + " · UN 1", 20) == "a" * 30 + "\nUN 1"


async def test_a_result_seen_and_left_does_not_reopen_for_each_further_victim_or_answer():
    """Chlorine identified at a pool, the result read and left with Esc to examine the
    other victims: "+" and each answer of victim 2 opened the same result again over the
    interview (and dropped the keys typed in its first half second). The result now opens by
    itself when the interview reaches one, or when its leader changes, not again for the
    same leader."""
    app = make_app(None, mode=None)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await answer_from_row(pilot, app, "Chlorine")
        assert isinstance(app.screen, ResultScreen)
        leader = views.result(app.interview).leader
        await pilot.press("escape")
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await pilot.press("plus")
        await settle(pilot, 4)
        await pilot.pause(0.2)
        assert len(app.interview.victims) == 2
        assert isinstance(app.screen, InterviewScreen), type(app.screen).__name__
        cough = next(s.index for s in app.knowledge.symptoms if s.id == "cough")
        app.action_volunteer(cough)
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot, 4)
        await pilot.pause(0.2)
        assert views.result(app.interview).leader == leader
        assert isinstance(app.screen, InterviewScreen), type(app.screen).__name__
        # r still opens it
        await pilot.press("r")
        assert await until(pilot, lambda: isinstance(app.screen, ResultScreen))


async def test_a_result_reached_again_after_an_undo_opens_by_itself():
    app = make_app(None, mode=None)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await answer_from_row(pilot, app, "Chlorine")
        assert isinstance(app.screen, ResultScreen)
        last = app.interview.records[-1]
        await pilot.press("z")
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        assert app.interview.status.value == "asking"
        app.action_volunteer(last.query)
        await settle(pilot)
        await pilot.press(last.answer.value[0])
        assert await until(pilot, lambda: isinstance(app.screen, ResultScreen))


async def test_the_profiles_columns_are_read_whole_at_80x24():
    """A nerve agent result at 80x24 compared three nerve agents and drew the third one's column
    past the scroll bar: "yes implie", "yes expect". The profile compares as many as fit whole."""
    import re

    from test_snapshots import screen_text

    app = make_app(None, mode=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await skip_scene_step(pilot, app)
        await answer_from_row(pilot, app, "Tabun (GA)", limit=60)
        assert isinstance(app.screen, ResultScreen)
        assert len(app.screen.result.columns) >= 3, app.screen.result.columns
        pages = []
        for _ in range(12):
            pages.append(screen_text(app))
            await pilot.press("pagedown")
            await settle(pilot)
        lines = [line for page in pages for line in page.splitlines()]
        assert any("yes expected" in line for line in lines), "the profile was not reached"
        cut = [line for line in lines if re.search(r"\bexpect(?!ed)|\bimplie(?!d)", line)]
        assert cut == []


async def test_a_long_source_title_wraps_under_its_own_text_not_at_the_margin():
    """At 80x24 a source of the symptom profiles longer than a row went on at the screen's
    margin (' Toxidrome)' under '  • CHEMM: Choking/Lung/...'), so its rest read as a source of
    its own; the rows after the first keep the title's indent, as the steps' do."""
    app = make_app(None, mode=None)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await answer_from_row(pilot, app, "Chlorine")
        assert isinstance(app.screen, ResultScreen)
        rows = static_text(app.screen.query_one("#result-sources")).rstrip().split("\n")
        assert rows[0].strip() == "Sources of the symptom profiles"
        assert len(rows) > len(app.screen.result.sources) + 1  # some title wraps
        for row in rows[1:]:
            assert row.startswith(("  • ", "    ")), row
