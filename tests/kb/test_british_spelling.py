"""British and American spellings name the same chemical and observation wherever a user
types a name: `kb steps`, `kb gaps --chemical`, the browse screen, `/` and the palette, and
the JSON-lines protocol all compare names through kb/identifiers.py."""

from __future__ import annotations

import pytest

from responder.kb.identifiers import american_spelling, chemical_key, fold_name


@pytest.fixture(scope="module")
def kb():
    from responder.kb.resolve import load_knowledge

    return load_knowledge(None)


@pytest.mark.parametrize(
    "british, american",
    [
        ("Hydrogen sulphide", "hydrogen sulfide"),
        ("sulphur mustard", "sulfur mustard"),
        ("Aluminium phosphide", "aluminum phosphide"),
        ("caesium", "cesium"),
        ("methaemoglobinaemia", "methemoglobinemia"),
        ("pulmonary oedema", "pulmonary edema"),
        ("diarrhoea", "diarrhea"),
        ("colourless vapour", "colorless vapor"),
        ("malodour", "malodor"),
        ("grey skin", "gray skin"),
        ("shopping centre", "shopping center"),
    ],
)
def test_british_spellings_fold_to_the_american_ones(british, american):
    assert fold_name(british) == fold_name(american) == american_spelling(american)
    assert chemical_key(british) == chemical_key(american)


@pytest.mark.parametrize("word", ["aerosol", "four", "hour", "grey-green", "haze", "sulfur"])
def test_words_that_only_look_british_keep_their_spelling(word):
    folded = fold_name(word)
    assert folded == " ".join(word.replace("grey", "gray").replace("-", " ").split())


@pytest.mark.parametrize(
    "typed, name",
    [
        ("hydrogen sulphide", "Hydrogen sulfide"),
        ("Sulphur dioxide", "Sulfur dioxide"),
        ("sulphuryl fluoride", "Sulfuryl fluoride"),
    ],
)
def test_a_chemical_in_british_spelling_resolves_and_is_found_first(kb, typed, name):
    assert kb.resolve_chemical(typed).name == name
    assert kb.search_chemicals(typed)[0].name == name


@pytest.mark.parametrize(
    "typed, expected",
    [
        ("shopping center", "setting_public_place"),  # only "shopping centre" is listed
        ("discolored leaves", "pattern_dead_plants"),  # listed as "discoloured leaves"
        ("odor rotten eggs", "odour_rotten_eggs"),  # the id, in American spelling
    ],
)
def test_an_observation_in_the_other_spelling_is_the_same_observation(kb, typed, expected):
    """The protocol's symptom names (and the app's exact matches) go through
    resolve_symptom: "shopping center" was 'unknown symptom' while "shopping centre" was
    taken."""
    from responder.app.search import rank_symptoms

    assert kb.symptoms[kb.resolve_symptom(typed)].id == expected
    assert rank_symptoms(kb.symptoms, typed)[0].symptom.id == expected
