"""One fuzzy ranking (Textual's matcher) for `/` and the command palette, with synonyms."""

from __future__ import annotations

import pytest
from app_helpers import settle, skip_scene_step, until
from conftest import SIZE, make_app

from responder.app.screens.interview import InterviewScreen
from responder.app.screens.symptom_search import SymptomSearchScreen
from responder.app.search import rank_symptoms


@pytest.fixture(scope="module")
def bundled():
    from responder.kb.resolve import load_knowledge

    return load_knowledge(None)


@pytest.mark.parametrize(
    "query, expected, via",
    [
        ("miosis", "pinpoint_pupils", "miosis"),  # clinical synonym
        ("fits", "seizures", None),  # lay word (also in the label)
        ("shrt brth", "shortness_of_breath", None),  # letters in order
        ("cough", "cough", None),
    ],
)
def test_synonyms_and_abbreviations_find_the_symptom(bundled, query, expected, via):
    found = rank_symptoms(bundled.symptoms, query)
    assert found[0].symptom.id == expected
    if via is not None:
        assert found[0].via == via


def test_names_in_other_scripts_are_searched_not_dropped():
    """A knowledge base imported with Chinese or Cyrillic labels: the typed name finds its
    own observation only (folding once dropped every non-Latin letter, so any text matched
    every observation)."""
    from types import SimpleNamespace

    def obs(sid, label):
        return SimpleNamespace(id=sid, label=label, synonyms=(), aliases=())

    symptoms = [obs("s1", "头痛"), obs("s2", "咳嗽"), obs("s3", "Одышка"), obs("s4", "Кашель")]
    assert [m.symptom.id for m in rank_symptoms(symptoms, "咳嗽")] == ["s2"]
    assert [m.symptom.id for m in rank_symptoms(symptoms, "одышка")] == ["s3"]


def test_label_match_beats_the_same_text_as_a_synonym(bundled):
    found = rank_symptoms(bundled.symptoms, "pupil")
    assert {m.symptom.id for m in found[:2]} == {"pinpoint_pupils", "dilated_pupils"}
    assert found[0].via is None


def test_empty_query_lists_every_symptom_in_order_and_nonsense_none(bundled):
    assert [m.symptom.id for m in rank_symptoms(bundled.symptoms, "  ")] == [
        s.id for s in bundled.symptoms
    ]
    assert rank_symptoms(bundled.symptoms, "xyzq") == []


async def test_palette_and_slash_rank_symptoms_the_same_way():
    from responder.app.commands import InterviewCommands

    app = make_app(None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        provider = InterviewCommands(app.screen)
        hits = [h async for h in provider.search("miosis")]
        palette = [
            h.text.removeprefix("Answer symptom: ")
            for h in hits
            if str(h.text).startswith("Answer symptom")
        ]
        slash = [m.symptom.label for m in rank_symptoms(app.knowledge.symptoms, "miosis")]
        assert palette == slash
        assert palette[0] == "Pinpoint pupils"
        assert "miosis" in hits[0].help


async def test_slash_search_shows_the_matching_synonym():
    app = make_app(None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        assert await until(pilot, lambda: isinstance(app.screen, SymptomSearchScreen))
        await pilot.press(*"miosis")
        await settle(pilot)
        assert app.knowledge.symptoms[app.screen.matches[0]].id == "pinpoint_pupils"
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("escape")
        assert await until(pilot, lambda: isinstance(app.screen, InterviewScreen))


async def test_the_search_counts_its_matches_in_words():
    app = make_app(None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        assert await until(pilot, lambda: isinstance(app.screen, SymptomSearchScreen))
        await pilot.press(*"fits")
        await settle(pilot)
        count = len(app.screen.matches)
        assert count > 1
        prompt = str(app.screen.query_one("#search-prompt").render())
        assert prompt == f"{count} matches"  # it read "4 match"


@pytest.mark.parametrize(
    "typed, expected",
    [
        ("vommiting", "vomiting"),  # a letter doubled
        ("siezure", "seizures"),  # two letters swapped
        ("nausia", "nausea"),  # a letter changed
        ("unconsious", "unconsciousness"),  # a letter dropped
        ("blurd vision", "blurred_vision"),  # a word abbreviated, the other misspelt
    ],
)
def test_a_misspelt_sign_is_still_found(bundled, typed, expected):
    """ "vommiting", "siezure" and "nausia" said "No match": the search took only letters in
    order. When nothing matches as typed, a word a letter or two off finds its sign."""
    found = rank_symptoms(bundled.symptoms, typed)
    assert found, typed
    assert found[0].symptom.id == expected, [m.symptom.id for m in found[:5]]


def test_seizing_finds_seizures_not_the_words_a_slip_away(bundled):
    # "seizing" was no word of any sign: the slip fallback offered "seeing things" and
    # "sneezing"
    assert rank_symptoms(bundled.symptoms, "seizing")[0].symptom.id == "seizures"


def test_a_misspelling_never_outranks_what_was_typed_right_and_nonsense_stays_unmatched(bundled):
    # "vomit" is found as typed: no slip-of-the-keys guesses are mixed in
    assert all(
        "vomit" in m.symptom.label.casefold() or m.via
        for m in rank_symptoms(bundled.symptoms, "vomit")
    )
    assert rank_symptoms(bundled.symptoms, "xqzzv") == []
    assert rank_symptoms(bundled.symptoms, "abc") == []  # too short to call a misspelling


async def test_slash_finds_a_misspelt_sign_and_answers_it():
    app = make_app(None, mode=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await skip_scene_step(pilot, app)
        await pilot.press("slash", *"siezure", "enter")
        await settle(pilot)
        await pilot.press("y")
        await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        [record] = app.interview.records
        assert app.knowledge.symptoms[record.query].id == "seizures"


async def test_the_answer_step_names_the_victim_it_goes_to_and_says_on_scene_for_the_scene():
    """With three victims, `/` then "cough" asked "Does the victim have: Cough?", not saying
    that the answer goes to Victim 3, and a scene fact read "Does the victim have: Swimming
    pool or water treatment?". It now names the victim being asked, as the question panel
    does, and says "On scene" for what the scene shows."""
    from app_helpers import static_text

    app = make_app(None, mode=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for _ in range(2):
            await pilot.press("plus")
            await settle(pilot, 3)
        await pilot.press("slash", *"cough", "enter")
        await settle(pilot)
        prompt = static_text(app.screen.query_one("#search-prompt"))
        assert "Does Victim 3 have:  Cough?" in prompt, prompt
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        await pilot.press("slash", *"swimming", "enter")
        await settle(pilot)
        prompt = static_text(app.screen.query_one("#search-prompt"))
        assert "On scene:  Swimming pool or water treatment?" in prompt, prompt
        assert "Does" not in prompt


async def test_with_one_victim_the_answer_step_asks_about_the_victim():
    from app_helpers import static_text

    app = make_app(None, mode=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"cough", "enter")
        await settle(pilot)
        prompt = static_text(app.screen.query_one("#search-prompt"))
        assert "Does the victim have:  Cough?" in prompt, prompt


async def test_a_scene_fact_asked_of_each_victim_names_the_victim_not_the_scene():
    """A fentanyl cluster, two victims: the panel asked "On scene:  Drug use?" with Victim 2
    being asked, and the answer went to Victim 2 alone (how each victim was exposed, and when
    their signs began, are answered per victim). A crew reading "On scene" answers for
    everyone. The panel and the `/` step now say whom it is about; scene facts answered once
    for the incident still say "On scene"."""
    from app_helpers import static_text
    from test_scene_and_victims import show_question

    from responder.app.widgets.panels import QuestionPanel

    app = make_app(None, mode=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("plus")
        await settle(pilot, 3)
        it, kn = app.interview, app.knowledge
        drug = kn.symptom_index("route_drug_use")
        assert not it.state.is_shared(drug)  # the knowledge base asks it of each victim
        show_question(app, "route_drug_use")
        await settle(pilot)
        panel = static_text(app.interview_screen.query_one(QuestionPanel))
        assert "About Victim 2:  Drug use?" in " ".join(panel.split()).replace(":", ": "), panel
        assert "On scene" not in panel
        await pilot.press("slash", *"drug use", "enter")
        await settle(pilot)
        prompt = static_text(app.screen.query_one("#search-prompt"))
        assert "About Victim 2:  Drug use?" in prompt, prompt
        await pilot.press("y")
        await until(pilot, lambda: isinstance(app.screen, InterviewScreen))
        assert it.record_of(drug, victim=1) is not None
        await pilot.press("slash", *"public place", "enter")
        await settle(pilot)
        prompt = static_text(app.screen.query_one("#search-prompt"))
        assert "On scene:  Public place or transport?" in prompt, prompt


async def test_a_long_search_without_a_match_is_quoted_cut_with_an_ellipsis():
    """240 characters with no match read 'No match for “cough cough … coug”': the first 40
    characters quoted as if they were the whole search."""
    from app_helpers import static_text

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        assert await until(pilot, lambda: isinstance(app.screen, SymptomSearchScreen))
        app.screen.query_one("Input").value = "cough " * 40
        await settle(pilot)
        said = " ".join(static_text(app.screen.query_one("#search-prompt")).split())
        assert said == (
            "No match for \u201ccough cough cough cough cough cough cou…\u201d. "
            "Try fewer letters, or another word."
        )
        app.screen.query_one("Input").value = "xqzzv"
        await settle(pilot)
        said = " ".join(static_text(app.screen.query_one("#search-prompt")).split())
        assert said.startswith("No match for \u201cxqzzv\u201d.")


@pytest.mark.parametrize("width", [80, 60])
async def test_the_answer_steps_keys_keep_each_key_beside_its_word(width):
    """At 80x24 the answer step's keys ended 'esc' on one line and 'close' on the next."""
    from app_helpers import static_text

    app = make_app()
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"cough", "enter")
        assert await until(pilot, lambda: isinstance(app.screen, SymptomSearchScreen))
        await settle(pilot)
        lines = static_text(app.screen.query_one("#search-prompt")).splitlines()
        for key, word in [
            ("y", "yes"),
            ("u", "can't tell"),
            ("⌫", "other symptom"),
            ("esc", "close"),
        ]:
            assert any(f" {key}  {word}" in line for line in lines), (key, lines)


async def test_every_interview_action_is_in_the_palette():
    """The interview screen says every action is also in the palette, and the README that
    the mode keys a narrow footer leaves out stay there; yet it had no evidence/strict (v),
    no scene step (s), no adding (+), removing (-) or turning between victims (1-9) and no
    'none of these' (0). Each binding's action is now there, and runs from it."""
    from responder.app.commands import ACTIONS, InterviewCommands

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await skip_scene_step(pilot, app)
        screen = app.interview_screen
        provider = InterviewCommands(screen)
        found = {h.text: h for h in [h async for h in provider.discover()]}
        actions = {b.action.split("(")[0] for b in screen.BINDINGS}
        positional = {"move", "scroll_candidates"}  # keys of the list in view, not actions
        offered = {target.split(":")[1].removeprefix("action_") for _, _, target, _ in ACTIONS}
        offered.add("select_victim")  # one entry per victim there is, run below
        assert actions - positional - offered == set()

        async def run(query: str) -> None:
            hits = [h async for h in provider.search(query)]
            hits[0].command()
            await settle(pilot)

        await run("add a victim")
        assert len(app.interview.victims) == 2 and app.interview.victim == 1
        await run("ask victim 1")
        assert app.interview.victim == 0
        await run("ask victim 2")
        await run("remove the victim added by mistake")
        assert len(app.interview.victims) == 1
        mode = app.interview.mode
        await run("answers count: evidence / strict")
        assert app.interview.mode != mode
        assert "Ask victim 2" not in found  # only the victims there are


async def test_a_victim_past_the_ninth_is_reached_from_the_palette():
    """An incident saved by 'interview --jsonl --save' may hold more than nine victims (the
    protocol adds one per name); resumed in the app, the tenth and later had no number key
    and no other way to be asked. The palette lists every victim."""
    from responder.app.commands import InterviewCommands

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await skip_scene_step(pilot, app)
        for k in range(2, 13):
            app.interview.add_victim(f"p{k}")
        app.interview.select_victim(0)
        provider = InterviewCommands(app.interview_screen)
        hits = [h async for h in provider.search("ask victim 12")]
        assert str(hits[0].text) == "Ask victim 12 (p12)"
        hits[0].command()
        await settle(pilot)
        assert app.interview.victim == 11
