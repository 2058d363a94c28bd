"""The bundled vocabulary (kb/symptoms.toml): every id keeps working, every symptom has
synonyms and says whether it is observed or reported, the words people type find the right
symptom, and labels that overlapped are merged."""

from __future__ import annotations

import pytest

from responder.kb import load_bundled
from responder.kb.model import OBSERVATION_KINDS

#: The 86 symptom ids of the first vocabulary (the contract: they must keep working).
FIRST_VOCABULARY_IDS = """
pinpoint_pupils dilated_pupils eye_irritation tearing red_eyes eye_pain blurred_vision
double_vision vision_loss eyelid_spasm runny_nose nose_irritation throat_irritation sneezing
drooling dry_mouth mouth_burns hoarseness metallic_taste garlic_breath nosebleed cough wheezing
shortness_of_breath chest_tightness rapid_breathing slow_breathing respiratory_arrest
frothy_sputum choking fast_pulse slow_pulse irregular_pulse low_blood_pressure
high_blood_pressure chest_pain cardiac_arrest palpitations nausea vomiting diarrhea
abdominal_pain bloody_stool loss_of_appetite difficulty_swallowing headache dizziness seizures
tremor numbness_tingling unsteady_gait slurred_speech collapse weakness confusion drowsiness
unconsciousness agitation hallucinations drunken_behaviour anxiety irritability muscle_twitching
muscle_weakness paralysis muscle_cramps muscle_rigidity muscle_pain skin_irritation skin_redness
skin_burns blisters sweating dry_hot_skin flushed_skin bluish_skin pale_skin yellow_skin
frostbite hair_loss reduced_urine dark_urine fever chills bleeding fatigue
""".split()

MERGED = {"eye_pain": "eye_irritation", "chest_tightness": "chest_pain", "weakness": "fatigue"}


@pytest.fixture(scope="module")
def kb():
    return load_bundled()


def test_every_old_id_still_resolves(kb):
    assert len(FIRST_VOCABULARY_IDS) == 86
    for sid in FIRST_VOCABULARY_IDS:
        assert kb.symptom(sid).id == MERGED.get(sid, sid)
    assert kb.symptom_aliases == MERGED


def test_merged_ids_in_old_chemical_files_become_the_new_cells(kb):
    # the 42 chemicals that listed both "Eye pain" and "Burning or stinging eyes" now have
    # one cell; none lists a retired id any more in the loaded model
    retired = set(MERGED)
    assert all(not (c.symptoms & retired) for c in kb.chemicals)


def test_every_symptom_has_synonyms_and_an_observation_kind(kb):
    for s in kb.symptoms:
        assert s.observation in OBSERVATION_KINDS, s.id
        assert len(s.synonyms) >= 2, s.id


@pytest.mark.parametrize(
    "word, sid",
    [
        ("miosis", "pinpoint_pupils"),
        ("dyspnea", "shortness_of_breath"),
        ("SOB", "shortness_of_breath"),
        ("convulsions", "seizures"),
        ("fits", "seizures"),
        ("difficulty breathing", "shortness_of_breath"),
        ("coughing blood", "frothy_sputum"),
        ("eye pain", "eye_irritation"),
        ("tight chest", "chest_pain"),
        ("tired", "fatigue"),
        ("epistaxis", "nosebleed"),
        ("hematemesis", "vomiting_blood"),
        ("cyanosis", "bluish_skin"),
        ("fasciculations", "muscle_twitching"),
        ("unresponsive", "unconsciousness"),
        ("can't breathe", "shortness_of_breath"),
        ("collapsed", "collapse"),
        ("light sensitivity", "eye_irritation"),
        ("walking and talking", "walking_talking"),
        # scene words a responder types
        ("grain bin", "setting_confined_space"),
        ("car running", "setting_engine_exhaust"),
        ("crop duster", "setting_farm"),
        ("drain cleaner", "setting_cleaning_products"),
        ("right away", "onset_seconds"),
        ("fish smell", "odour_fishy"),
    ],
)
def test_words_people_type_resolve(kb, word, sid):
    assert kb.symptom(word).id == sid


@pytest.mark.parametrize(
    "word, sid",
    [
        ("convulsions", "seizures"),
        ("difficulty breathing", "shortness_of_breath"),
        ("miosis", "pinpoint_pupils"),
        ("coughing blood", "frothy_sputum"),
        ("eye pain", "eye_irritation"),
        ("chest tightness", "chest_pain"),
    ],
)
def test_the_app_search_finds_synonyms_first(kb, word, sid):
    assert kb.search_symptoms(word, 1)[0].id == sid


def test_overlapping_labels_are_gone(kb):
    labels = {s.label for s in kb.symptoms}
    assert not {"Eye pain", "Burning or stinging eyes"} <= labels
    assert not {"Tight chest", "Chest pain"} <= labels
    assert not {"General weakness", "Tiredness, exhaustion"} <= labels


def test_urgent_findings(kb):
    urgent = {s.id for s in kb.symptoms if s.urgent}
    assert urgent == {
        "respiratory_arrest",
        "cardiac_arrest",
        "seizures",
        "unconsciousness",
        "slow_breathing",
        "bluish_skin",
    }
    # an act-now finding can be seen on a victim who cannot talk
    assert all(kb.symptom_by_id[s].observation == "observed" for s in urgent)


def test_reported_symptoms_need_a_conscious_victim(kb):
    reported = {s.id for s in kb.symptoms if s.observation == "reported"}
    assert {"headache", "nausea", "blurred_vision", "fatigue", "eye_irritation"} <= reported
    assert not reported & {"seizures", "vomiting", "pinpoint_pupils", "cough", "sweating"}
