"""The knowledge-base schema: synonyms, aliases, observation, leak, urgent, chemical ids,
[[chemical.evidence]], the source_checked rule and prior modes.

Every rule has a test that loads a small knowledge base breaking it, and checks the one
``file:line: problem — fix`` message; the command line turns it into exit 2, no traceback.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from kb_helpers import line_of, only_error, write_files

from responder.kb import KBError, load_bundled, load_kb
from responder.kb.loader import chemical_slug
from responder.kb.model import DEFAULT_PRIOR_MODE, PRIOR_MODES, UnknownSymptomError

SYMPTOMS = """\
[[category]]
id = "eyes"
label = "Eyes"

[[category]]
id = "breathing"
label = "Breathing"

[[symptom]]
id = "pinpoint_pupils"
label = "Pinpoint pupils"
category = "eyes"
synonyms = ["miosis", "small pupils",
            "constricted pupils"]
aliases = ["small_pupils"]
observation = "observed"

[[symptom]]
id = "eye_irritation"
label = "Burning, stinging or painful eyes"
category = "eyes"
aliases = ["eye_pain"]
observation = "reported"
leak = 0.1

[[symptom]]
id = "shortness_of_breath"
label = "Short of breath"
category = "breathing"
synonyms = ["dyspnea", "SOB", "difficulty breathing"]
observation = "observed"

[[symptom]]
id = "respiratory_arrest"
label = "Stopped breathing"
category = "breathing"
observation = "observed"
urgent = true
"""

CLASSES = """\
[[class]]
id = "nerve_agents"
label = "Nerve agents"

[[class]]
id = "irritant_gases"
label = "Irritant gases"
"""

NERVE = """\
class = "nerve_agents"

[[chemical]]
name = "Sarin (GB)"
id = "sarin"
cas = "107-44-8"
symptoms = ["pinpoint_pupils", "eye_pain", "shortness_of_breath", "respiratory_arrest"]
source_checked = true

[[chemical.evidence]]
title = "CDC: Facts About Sarin"
url = "https://emergency.cdc.gov/agent/sarin/basics/facts.asp"
symptoms = ["small_pupils", "eye_irritation", "shortness_of_breath"]

[[chemical.evidence]]
title = "CHEMM: Nerve Agents"
url = "https://chemm.hhs.gov/nerveagents.htm"
symptoms = ["respiratory_arrest"]

[[chemical]]
name = "Tabun (GA)"
cas = "77-81-6"
symptoms = ["pinpoint_pupils", "shortness_of_breath"]
sources = ["CHEMM: Nerve Agents"]

[[chemical]]
name = "Soman (GD)"
cas = "96-64-0"
symptoms = ["pinpoint_pupils"]
sources = ["CHEMM: Nerve Agents"]
prior = 2.0
"""

IRRITANTS = """\
class = "irritant_gases"

[[chemical]]
name = "Chlorine"
cas = "7782-50-5"
symptoms = ["eye_irritation", "shortness_of_breath"]
sources = ["NIOSH NPG: Chlorine"]
"""


def write_kb(root: Path, **edits: str) -> Path:
    return write_files(
        root,
        {
            "symptoms.toml": edits.get("symptoms", SYMPTOMS),
            "classes.toml": edits.get("classes", CLASSES),
            "chemicals/nerve_agents.toml": edits.get("nerve", NERVE),
            "chemicals/irritant_gases.toml": edits.get("irritants", IRRITANTS),
        },
    )


# --- the valid knowledge base --------------------------------------------------------------


def test_symptom_fields_load(tmp_path):
    kb = load_kb(write_kb(tmp_path), strict=True)
    assert kb.warnings == ()
    miosis = kb.symptom_by_id["pinpoint_pupils"]
    assert miosis.synonyms == ("miosis", "small pupils", "constricted pupils")
    assert miosis.aliases == ("small_pupils",)
    assert miosis.observation == "observed" and miosis.leak is None and not miosis.urgent
    eye = kb.symptom_by_id["eye_irritation"]
    assert eye.observation == "reported" and eye.leak == 0.1
    assert kb.symptom_by_id["respiratory_arrest"].urgent
    assert kb.symptom_aliases == {"small_pupils": "pinpoint_pupils", "eye_pain": "eye_irritation"}


@pytest.mark.parametrize(
    "text, sid",
    [
        ("pinpoint_pupils", "pinpoint_pupils"),  # id
        ("small_pupils", "pinpoint_pupils"),  # alias
        ("eye_pain", "eye_irritation"),  # merged id
        ("PINPOINT PUPILS", "pinpoint_pupils"),  # label, any case
        ("Miosis", "pinpoint_pupils"),  # synonym
        ("sob", "shortness_of_breath"),
        ("  difficulty   breathing ", "shortness_of_breath"),  # spaces do not matter
        ("shortness of breath", "shortness_of_breath"),  # an id written as words
        ("Difficulty-breathing!", "shortness_of_breath"),  # punctuation does not matter
        ("small pupils", "pinpoint_pupils"),
    ],
)
def test_resolve_symptom(tmp_path, text, sid):
    kb = load_kb(write_kb(tmp_path))
    j = kb.resolve_symptom(text)
    assert kb.symptom_ids[j] == sid
    assert kb.symptom(text).id == sid


def test_resolve_symptom_names_close_matches(tmp_path):
    kb = load_kb(write_kb(tmp_path))
    with pytest.raises(UnknownSymptomError) as info:
        kb.resolve_symptom("myosis")
    assert info.value.matches[0] == "pinpoint_pupils"
    assert 'did you mean "pinpoint_pupils"' in str(info.value)
    with pytest.raises(KeyError):  # still a KeyError for older callers
        kb.resolve_symptom("breath")  # a fragment is not a name...
    with pytest.raises(UnknownSymptomError) as info:
        kb.resolve_symptom("breath")
    assert "shortness_of_breath" in info.value.matches  # ...but it is suggested
    with pytest.raises(UnknownSymptomError) as info:
        kb.resolve_symptom("zzzz")
    assert info.value.matches == () and "symptoms.toml" in str(info.value)


def test_chemical_files_may_use_aliases_which_resolve_to_current_ids(tmp_path):
    kb = load_kb(write_kb(tmp_path))
    sarin = kb.chemical("sarin")
    assert sarin.symptoms == {
        "pinpoint_pupils",
        "eye_irritation",
        "shortness_of_breath",
        "respiratory_arrest",
    }
    assert sarin.evidence[0].symptoms == {
        "pinpoint_pupils",
        "eye_irritation",
        "shortness_of_breath",
    }
    assert kb.matrix[kb.chemicals.index(sarin)].sum() == 4


def test_a_merged_id_listed_with_its_new_id_is_one_cell(tmp_path):
    text = NERVE.replace(
        'symptoms = ["pinpoint_pupils"]\n', 'symptoms = ["small_pupils", "pinpoint_pupils"]\n'
    )
    kb = load_kb(write_kb(tmp_path, nerve=text))
    assert kb.chemical("Soman (GD)").symptoms == {"pinpoint_pupils"}
    assert kb.warnings == ()  # files written before a merge stay valid, silently
    # a literal repeat is still a warning
    text = text.replace('["small_pupils", "pinpoint_pupils"]', '["small_pupils", "small_pupils"]')
    [warning] = load_kb(write_kb(tmp_path, nerve=text)).warnings
    assert 'lists symptom "small_pupils" twice' in warning.problem


def test_chemical_ids(tmp_path):
    kb = load_kb(write_kb(tmp_path))
    assert [c.id for c in kb.chemicals] == ["sarin", "tabun_ga", "soman_gd", "chlorine"]
    assert kb.chemical("tabun_ga").name == "Tabun (GA)"
    assert kb.chemical("Tabun (GA)").id == "tabun_ga"


@pytest.mark.parametrize(
    "name, slug",
    [
        ("Sarin (GB)", "sarin_gb"),
        ("Hydrogen cyanide", "hydrogen_cyanide"),
        ("2,4-D", "2_4_d"),
        ("Ätznatron", "atznatron"),
        ("  Lewisite  L-1 ", "lewisite_l_1"),
    ],
)
def test_chemical_slug(name, slug):
    assert chemical_slug(name) == slug


def test_evidence_loads_and_derives_sources(tmp_path):
    kb = load_kb(write_kb(tmp_path), strict=True)
    sarin = kb.chemical("sarin")
    assert sarin.source_checked
    assert [e.title for e in sarin.evidence] == ["CDC: Facts About Sarin", "CHEMM: Nerve Agents"]
    assert sarin.evidence[1].url == "https://chemm.hhs.gov/nerveagents.htm"
    assert sarin.evidence[1].line == line_of(NERVE, "[[chemical.evidence]]", 2)
    # no `sources` key: the evidence titles are the sources
    assert sarin.sources == ("CDC: Facts About Sarin", "CHEMM: Nerve Agents")
    assert sarin.unsupported == frozenset()
    assert kb.chemical("Tabun (GA)").unsupported == {"pinpoint_pupils", "shortness_of_breath"}


def test_sources_and_evidence_titles_are_merged(tmp_path):
    text = NERVE.replace('id = "sarin"\n', 'id = "sarin"\nsources = ["CHEMM: Nerve Agents"]\n')
    sarin = load_kb(write_kb(tmp_path, nerve=text)).chemical("sarin")
    assert sarin.sources == ("CHEMM: Nerve Agents", "CDC: Facts About Sarin")


# --- the source_checked rule --------------------------------------------------------------


def test_checked_needs_every_symptom_supported(tmp_path):
    text = NERVE.replace('symptoms = ["respiratory_arrest"]', "symptoms = []")
    issue = only_error(write_kb(tmp_path, nerve=text))
    assert issue.line == line_of(text, "source_checked = true")
    assert 'no evidence document supports "respiratory_arrest"' in issue.problem
    assert "source_checked = false" in issue.fix
    # unchecked, the same gap is fine
    ok = load_kb(
        write_kb(tmp_path, nerve=text.replace("source_checked = true", "source_checked = false"))
    )
    assert not ok.chemical("sarin").source_checked


def test_checked_without_evidence_is_a_warning_and_counts_as_unchecked(tmp_path):
    text = NERVE.replace(
        'sources = ["CHEMM: Nerve Agents"]\nprior',
        'sources = ["CHEMM: Nerve Agents"]\nsource_checked = true\nprior',
    )
    kb = load_kb(write_kb(tmp_path, nerve=text))
    assert not kb.chemical("Soman (GD)").source_checked
    [warning] = kb.warnings
    assert warning.line == line_of(text, "source_checked = true", 2)
    assert "records no [[chemical.evidence]]" in warning.problem


def test_evidence_symptom_must_be_a_symptom_of_the_chemical(tmp_path):
    text = NERVE.replace(
        'symptoms = ["respiratory_arrest"]',
        'symptoms = ["respiratory_arrest",\n            "eye_irritation"]',
    )
    text = text.replace('"eye_pain", ', "").replace(
        '"small_pupils", "eye_irritation", ', '"small_pupils", '
    )
    issue = only_error(write_kb(tmp_path, nerve=text))
    assert issue.line == line_of(text, '"eye_irritation"]')
    assert (
        'evidence "CHEMM: Nerve Agents" supports "eye_irritation", which is not in the '
        "chemical's symptoms" in issue.problem
    )


def test_evidence_unknown_symptom_suggests(tmp_path):
    text = NERVE.replace('symptoms = ["respiratory_arrest"]', 'symptoms = ["respiratory_arest"]')
    with pytest.raises(KBError) as info:
        load_kb(write_kb(tmp_path, nerve=text))
    first = info.value.issues[0]
    assert first.line == line_of(text, '"respiratory_arest"')
    assert 'unknown symptom id "respiratory_arest"' in first.problem
    assert 'did you mean "respiratory_arrest"' in first.fix


@pytest.mark.parametrize(
    "edit, key, problem",
    [
        (('title = "CHEMM: Nerve Agents"\n', ""), "[[chemical.evidence]]", "has no `title`"),
        (('symptoms = ["respiratory_arrest"]\n', ""), "[[chemical.evidence]]", "supports no cell"),
        (
            ('url = "https://chemm.hhs.gov/nerveagents.htm"\n', ""),
            "[[chemical.evidence]]",
            "has no `url`",
        ),
        (
            ('"https://chemm.hhs.gov/nerveagents.htm"', '"chemm nerve agents page"'),
            "nerve agents p",
            "is not a web address",
        ),
        (
            ('title = "CHEMM: Nerve Agents"', 'title = "Wikipedia: Sarin"'),
            'title = "Wiki',
            "does not name one of the public source series",
        ),
        (('title = "CHEMM: Nerve Agents"', "title = 3"), "title = 3", "`title` must be a quoted"),
        (
            ('url = "https://chemm', 'page = "x"\nurl = "https://chemm'),
            'page = "x"',
            "unknown key `page` in this [[chemical.evidence]] table",
        ),
    ],
)
def test_malformed_evidence(tmp_path, edit, key, problem):
    text = NERVE.replace(*edit)
    issue = only_error(write_kb(tmp_path, nerve=text))
    assert issue.file.endswith("nerve_agents.toml")
    # the second evidence table is the broken one
    assert issue.line == (
        line_of(text, key, 2) if key == "[[chemical.evidence]]" else line_of(text, key)
    )
    assert problem in issue.problem


def test_url_is_optional_for_user_kbs(tmp_path):
    text = NERVE.replace('url = "https://chemm.hhs.gov/nerveagents.htm"\n', "")
    kb = load_kb(write_kb(tmp_path, nerve=text), strict=False)
    assert kb.chemical("sarin").evidence[1].url == ""


def test_evidence_written_as_a_plain_key(tmp_path):
    text = IRRITANTS + 'evidence = "CDC: Facts About Chlorine"\n'
    issue = only_error(write_kb(tmp_path, irritants=text))
    assert issue.line == line_of(text, "evidence = ")
    assert "`evidence` is not a list of [[chemical.evidence]] tables" in issue.problem


def test_sources_required_without_evidence(tmp_path):
    text = NERVE.replace('sources = ["CHEMM: Nerve Agents"]\nprior', "prior")
    issue = only_error(write_kb(tmp_path, nerve=text))
    assert "has no `sources`" in issue.problem
    assert issue.line == line_of(text, 'name = "Soman (GD)"')


def test_a_missing_cas_or_source_is_not_answered_with_another_chemicals(tmp_path):
    """Under --strict, Soman without a CAS number was told 'add cas = "7782-50-5"' (chlorine's)
    and an imported Sarin 'add cas = "7782-50-5"' too: a value to copy, not a form."""
    text = NERVE.replace('sources = ["CHEMM: Nerve Agents"]\nprior', "prior")
    text = text.replace('cas = "96-64-0"\n', "")
    fixes = [issue.fix for issue in only_errors(write_kb(tmp_path, nerve=text), strict=True)]
    (cas,) = [fix for fix in fixes if fix.startswith("add cas")]
    assert cas == (
        'add cas = "<its CAS number, as its source gives it>" (chlorine\'s is "7782-50-5")'
    )
    (sources,) = [fix for fix in fixes if fix.startswith("add sources")]
    assert "Chlorine" not in sources and "<the title of the document read>" in sources
    untitled = NERVE.replace('title = "CHEMM: Nerve Agents"\n', "")
    (title,) = [issue.fix for issue in only_errors(write_kb(tmp_path, nerve=untitled), False)]
    assert title.startswith('add title = "<source series>: <the document\'s title>"')


def only_errors(root: Path, strict: bool) -> list:
    with pytest.raises(KBError) as info:
        load_kb(root, strict=strict)
    return list(info.value.issues)


# --- ids ----------------------------------------------------------------------------------


def test_invalid_chemical_id(tmp_path):
    text = NERVE.replace('id = "sarin"', 'id = "Sarin GB"')
    issue = only_error(write_kb(tmp_path, nerve=text))
    assert issue.line == line_of(text, 'id = "Sarin GB"')
    assert 'id "Sarin GB" is not a valid id' in issue.problem


def test_duplicate_chemical_id_names_both_places(tmp_path):
    text = IRRITANTS.replace('name = "Chlorine"', 'name = "Chlorine"\nid = "tabun_ga"')
    issue = only_error(write_kb(tmp_path, irritants=text))
    assert issue.file.endswith("nerve_agents.toml")  # irritant_gases.toml is read first
    assert issue.line == line_of(NERVE, 'name = "Tabun (GA)"')
    assert 'has id "tabun_ga", the same as "Chlorine"' in issue.problem
    assert "irritant_gases.toml:" in issue.problem


def test_name_without_any_slug_character_needs_an_id(tmp_path):
    text = IRRITANTS.replace('name = "Chlorine"', 'name = "(—)"')
    issue = only_error(write_kb(tmp_path, irritants=text))
    assert "no id can be made from its name" in issue.problem
    assert (
        load_kb(
            write_kb(
                tmp_path, irritants=text.replace('name = "(—)"', 'name = "(—)"\nid = "chlorine"')
            )
        )
        .chemical("chlorine")
        .name
        == "(—)"
    )


# --- vocabulary ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "edit, snippet, problem",
    [
        (
            ('observation = "reported"', 'observation = "told"'),
            'observation = "told"',
            'has observation "told"',
        ),
        (("leak = 0.1", "leak = 1.0"), "leak = 1.0", "not a probability below 1"),
        (("leak = 0.1", "leak = -0.1"), "leak = -0.1", "not a probability below 1"),
        (("leak = 0.1", "leak = nan"), "leak = nan", "not a probability below 1"),
        (("leak = 0.1", 'leak = "low"'), 'leak = "low"', "`leak` must be a number"),
        (("urgent = true", 'urgent = "yes"'), 'urgent = "yes"', "`urgent` must be true or false"),
        (
            ('aliases = ["eye_pain"]', 'aliases = ["Eye pain"]'),
            '"Eye pain"',
            'alias "Eye pain" is not a valid id',
        ),
        (
            ('aliases = ["eye_pain"]', 'aliases = "eye_pain"'),
            'aliases = "eye_pain"',
            "`aliases` must be a list",
        ),
        (
            ('synonyms = ["dyspnea", "SOB"', 'synonyms = ["dyspnea", " "'),
            'synonyms = ["dyspnea"',
            "has an empty synonym",
        ),
    ],
)
def test_malformed_symptom_fields(tmp_path, edit, snippet, problem):
    text = SYMPTOMS.replace(*edit)
    nerve = NERVE.replace('"eye_pain", ', '"eye_irritation", ') if "alias" in problem else NERVE
    issue = only_error(write_kb(tmp_path, symptoms=text, nerve=nerve))
    assert issue.file.endswith("symptoms.toml")
    assert issue.line == line_of(text, snippet)
    assert problem in issue.problem, issue


def test_observation_error_names_the_valid_values(tmp_path):
    text = SYMPTOMS.replace('observation = "reported"', 'observation = "told"')
    issue = only_error(write_kb(tmp_path, symptoms=text))
    assert '"observed"' in issue.fix and '"reported"' in issue.fix


@pytest.mark.parametrize(
    "edit, snippet, problem",
    [
        # a synonym that is another symptom's synonym
        (
            ('"difficulty breathing"]', '"difficulty breathing", "Miosis"]'),
            '"Miosis"]',
            'synonym "Miosis" of symptom "shortness_of_breath" already names symptom '
            '"pinpoint_pupils" (its synonym',
        ),
        # a synonym that differs from another symptom's alias only in punctuation: the
        # search and the protocol would read both as one name
        (
            ('"difficulty breathing"]', '"difficulty breathing", "Eye-pain"]'),
            '"Eye-pain"]',
            'synonym "Eye-pain" of symptom "shortness_of_breath" already names symptom '
            '"eye_irritation" (its alias',
        ),
        # an alias that is a current id
        (
            ('aliases = ["eye_pain"]', 'aliases = ["respiratory_arrest"]'),
            '"respiratory_arrest"]',
            'alias "respiratory_arrest" of symptom "eye_irritation" already names symptom '
            '"respiratory_arrest" (its id',
        ),
        # two symptoms with one label
        (
            ('label = "Stopped breathing"', 'label = "short of breath"'),
            'label = "short of breath"',
            'label "short of breath" of symptom "respiratory_arrest" already names symptom '
            '"shortness_of_breath" (its label',
        ),
        # one alias on two symptoms
        (
            ('aliases = ["eye_pain"]', 'aliases = ["eye_pain", "small_pupils"]'),
            '"eye_pain", "small_pupils"]',
            'alias "small_pupils" of symptom "eye_irritation" already names symptom '
            '"pinpoint_pupils" (its alias',
        ),
    ],
)
def test_a_name_may_point_at_one_symptom_only(tmp_path, edit, snippet, problem):
    text = SYMPTOMS.replace(*edit)
    nerve = NERVE.replace('"eye_pain", ', '"eye_irritation", ')
    issue = only_error(write_kb(tmp_path, symptoms=text, nerve=nerve))
    assert issue.line == line_of(text, snippet)
    assert problem in issue.problem
    assert "merge" in issue.fix


def test_alias_repeating_its_own_id(tmp_path):
    text = SYMPTOMS.replace('aliases = ["eye_pain"]', 'aliases = ["eye_pain", "eye_irritation"]')
    issue = only_error(write_kb(tmp_path, symptoms=text))
    assert issue.line == line_of(text, '"eye_irritation"]')
    assert 'symptom "eye_irritation": alias "eye_irritation" repeats its own id' in issue.problem


def test_synonym_equal_to_own_label_is_harmless(tmp_path):
    text = SYMPTOMS.replace('"constricted pupils"]', '"constricted pupils", "pinpoint PUPILS"]')
    kb = load_kb(write_kb(tmp_path, symptoms=text))
    assert kb.symptom("pinpoint pupils").id == "pinpoint_pupils"


# --- priors ------------------------------------------------------------------------------


def test_prior_modes(tmp_path):
    kb = load_kb(write_kb(tmp_path))
    # weights 1, 1, 2 (nerve agents) and 1 (chlorine)
    np.testing.assert_allclose(kb.prior_vector("chemical"), [1 / 5, 1 / 5, 2 / 5, 1 / 5])
    # each class 1/2; inside nerve agents 1:1:2
    np.testing.assert_allclose(kb.prior_vector("class"), [1 / 8, 1 / 8, 1 / 4, 1 / 2])
    np.testing.assert_allclose(kb.to_problem("chemical").prior, kb.prior_vector("chemical"))
    np.testing.assert_allclose(kb.to_problem().prior, kb.prior_vector())
    assert kb.to_problem("class").object_prior is None
    # "split", the default: the class prior for the classes and the paper's modes, the
    # chemical prior for the evidence mode's chemical ranking
    split = kb.to_problem()
    np.testing.assert_allclose(split.prior, kb.prior_vector("class"))
    np.testing.assert_allclose(split.object_prior, kb.prior_vector("chemical"))
    np.testing.assert_allclose(split.ranking_prior("object"), kb.prior_vector("chemical"))
    np.testing.assert_allclose(split.ranking_prior("group"), kb.prior_vector("class"))
    assert PRIOR_MODES == ("chemical", "class", "split") and DEFAULT_PRIOR_MODE == "split"


@pytest.mark.parametrize("mode", ["uniform", "", "Class", None])
def test_bad_prior_mode_names_the_valid_choices(tmp_path, mode):
    kb = load_kb(write_kb(tmp_path))
    with pytest.raises(ValueError, match=r'valid choices are "chemical", "class", "split"'):
        kb.prior_vector(mode)


def test_class_prior_gives_every_populated_class_equal_mass_on_the_bundled_kb():
    kb = load_bundled()
    p = kb.prior_vector("class")
    classes = sorted({c.class_id for c in kb.chemicals})
    mass = [p[[c.class_id == g for c in kb.chemicals]].sum() for g in classes]
    np.testing.assert_allclose(mass, 1 / len(classes))
    q = kb.prior_vector("chemical")
    np.testing.assert_allclose(q, kb.weights / kb.weights.sum())


# --- the bundled knowledge base ------------------------------------------------------------


def test_bundled_chemical_ids_are_unique_slugs():
    kb = load_bundled()
    ids = [c.id for c in kb.chemicals]
    assert len(set(ids)) == len(ids)
    assert all(kb.chemical(i).id == i for i in ids)


def test_bundled_checked_chemicals_have_full_evidence():
    checked = [chem for chem in load_bundled().chemicals if chem.source_checked]
    assert len(checked) >= 60  # 63 on 24 November 2026; the count only grows
    for chem in checked:
        assert chem.evidence and not chem.unsupported, chem.name


def test_an_empty_evidence_list_still_needs_sources(tmp_path):
    text = IRRITANTS.replace('sources = ["NIOSH NPG: Chlorine"]\n', "evidence = []\n")
    issue = only_error(write_kb(tmp_path, irritants=text))
    assert "has no `sources`" in issue.problem
