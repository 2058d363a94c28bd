"""Scene observations, graded cells, exclusive groups and implications, and the answer model
a knowledge base carries: loaded, checked with one clear message each, and turned into the
engine's graded problem."""

from __future__ import annotations

import numpy as np
import pytest
from kb_helpers import errors_of, line_of, only_error, write_files

from responder.engine.problem import COMMON, HALLMARK, NOT_LISTED, OCCASIONAL, UNRECORDED
from responder.kb import load_kb
from responder.kb.loader import load_bundled

SYMPTOMS = """\
[[category]]
id = "breathing"
label = "Breathing"

[[category]]
id = "eyes"
label = "Eyes"

[[symptom]]
id = "cough"
label = "Cough"
category = "breathing"

[[symptom]]
id = "wheezing"
label = "Wheezing"
category = "breathing"

[[symptom]]
id = "pinpoint_pupils"
label = "Pinpoint pupils"
category = "eyes"

[[symptom]]
id = "dilated_pupils"
label = "Wide pupils"
category = "eyes"

[[symptom]]
id = "walking_talking"
label = "Walking or talking"
category = "breathing"
"""

SCENE = """\
[[category]]
id = "odour"
label = "Smell"
kind = "scene"
per = "incident"

[[category]]
id = "setting"
label = "Setting"
kind = "scene"
per = "incident"

[[observation]]
id = "odour_bleach"
label = "Smell of bleach"
category = "odour"
synonyms = ["bleach"]

[[observation]]
id = "odour_garlic"
label = "Smell of garlic"
category = "odour"

[[observation]]
id = "setting_swimming_pool"
label = "Swimming pool"
category = "setting"
synonyms = ["pool"]
"""

CLASSES = """\
[[class]]
id = "gases"
label = "Gases"

[[class]]
id = "nerve"
label = "Nerve agents"
"""

CHEMICALS = """\
class = "gases"

[[chemical]]
name = "Chlorine"
cas = "7782-50-5"
symptoms = ["cough", "wheezing"]
scene = ["odour_bleach", "setting_swimming_pool"]
sources = ["CDC: Chlorine"]

[[chemical.evidence]]
title = "CDC: Case Definition: Chlorine"
url = "https://emergency.cdc.gov/agent/chlorine/casedef.asp"
hallmark = ["cough"]
scene = ["odour_bleach"]
occasional = ["setting_swimming_pool"]

[[chemical]]
name = "Ammonia"
cas = "7664-41-7"
symptoms = ["cough"]
sources = ["ATSDR MMG: Ammonia"]
"""

NERVE = """\
class = "nerve"

[[chemical]]
name = "Sarin"
cas = "107-44-8"
symptoms = ["pinpoint_pupils", "dilated_pupils", "wheezing"]
scene = ["odour_garlic"]
sources = ["CDC: Sarin"]

[[chemical.evidence]]
title = "CDC: Facts About Sarin"
url = "https://emergency.cdc.gov/agent/sarin/basics/facts.asp"
symptoms = ["pinpoint_pupils"]
scene = ["odour_garlic"]
"""

CONSISTENCY = """\
[[exclusive]]
id = "pupil_size"
label = "Pupil size"
members = ["pinpoint_pupils", "dilated_pupils"]
none_label = "Normal size"

[[implies]]
when = "walking_talking"
answer = "yes"
then = { cough = "no" }
"""


def write_kb(root, **edits):
    files = {
        "symptoms.toml": SYMPTOMS,
        "scene.toml": SCENE,
        "classes.toml": CLASSES,
        "consistency.toml": CONSISTENCY,
        "chemicals/gases.toml": CHEMICALS,
        "chemicals/nerve.toml": NERVE,
    }
    files.update({k.replace("__", "/").replace("_toml", ".toml"): v for k, v in edits.items()})
    return write_files(root, files)


def test_scene_observations_join_the_vocabulary_with_their_kind_and_per(tmp_path):
    kb = load_kb(write_kb(tmp_path))
    bleach = kb.symptom("bleach")
    assert (bleach.id, bleach.kind, bleach.per, bleach.observation) == (
        "odour_bleach",
        "scene",
        "incident",
        "observed",
    )
    assert kb.symptom("cough").kind == "symptom" and kb.symptom("cough").per == "victim"
    assert [c.kind for c in kb.categories] == ["symptom", "symptom", "scene", "scene"]
    assert kb.chemical("Chlorine").symptoms >= {"odour_bleach", "setting_swimming_pool"}


def test_a_category_of_alternatives_is_read_and_a_bad_flag_is_one_message(tmp_path):
    setting = 'id = "setting"\nlabel = "Setting"'
    text = SCENE.replace(setting, setting + "\nalternatives = true")
    kb = load_kb(write_kb(tmp_path / "good", scene_toml=text))
    assert [c.alternatives for c in kb.categories] == [False, False, False, True]
    bad = SCENE.replace(setting, setting + '\nalternatives = "yes"')
    issue = only_error(write_kb(tmp_path / "bad", scene_toml=bad))
    assert "`alternatives` must be true or false" in issue.problem
    assert issue.fix == "write alternatives = true"
    assert issue.line == line_of(bad, 'alternatives = "yes"')


def test_grades_come_from_the_evidence_and_unread_cells_are_unverified(tmp_path):
    kb = load_kb(write_kb(tmp_path))
    chlorine, ammonia = kb.chemical("Chlorine"), kb.chemical("Ammonia")
    assert chlorine.grade("cough") == "hallmark"
    assert chlorine.grade("odour_bleach") == "common"
    assert chlorine.grade("setting_swimming_pool") == "occasional"
    assert chlorine.grade("wheezing") == "unverified"  # listed, but no document read says so
    assert ammonia.grade("cough") == "unverified" and ammonia.grade("wheezing") is None
    G = kb.grades
    col = {s.id: s.index for s in kb.symptoms}
    i = kb.chemical_index
    assert G[i("Chlorine"), col["cough"]] == HALLMARK
    assert G[i("Chlorine"), col["wheezing"]] == OCCASIONAL
    assert G[i("Chlorine"), col["odour_bleach"]] == COMMON
    assert G[i("Chlorine"), col["odour_garlic"]] == NOT_LISTED  # its smell is recorded
    # Ammonia records no smell and no setting: its scene cells are unrecorded, not "no".
    assert G[i("Ammonia"), col["odour_bleach"]] == UNRECORDED
    assert G[i("Ammonia"), col["setting_swimming_pool"]] == UNRECORDED
    assert G[i("Ammonia"), col["wheezing"]] == NOT_LISTED  # symptoms are never unrecorded
    assert np.array_equal(G > 0, kb.matrix)
    assert np.array_equal(kb.problem.grades, G)


def test_a_knowledge_base_without_evidence_documents_is_ungraded(tmp_path):
    plain = (
        CHEMICALS.split("[[chemical.evidence]]")[0]
        + CHEMICALS.split("occasional = ")[1].split("\n", 1)[1]
    )
    kb = load_kb(write_kb(tmp_path, chemicals__gases_toml=plain, chemicals__nerve_toml=None))
    assert not kb.graded and kb.grades is None and kb.problem.grades is None


def test_exclusive_groups_and_implications_load(tmp_path):
    kb = load_kb(write_kb(tmp_path))
    (group,) = kb.exclusive_groups
    assert group.members == ("pinpoint_pupils", "dilated_pupils")
    assert group.none_label == "Normal size"
    (rule,) = kb.implications
    assert (rule.when, rule.answer, rule.then) == ("walking_talking", "yes", (("cough", "no"),))
    # an observation that only implies others needs no chemical: no "never narrows" warning
    assert not any("walking_talking" in w.problem for w in kb.warnings)


def test_a_yes_that_implies_a_yes_fills_the_row_with_the_implying_cells_grade(tmp_path):
    # Wheezing implies a cough here: Sarin's wheezing (unverified) gives it a cough cell
    # graded occasional; Chlorine keeps its own hallmark cough (never lowered); Ammonia, with
    # no wheezing, gains nothing.
    rules = (
        CONSISTENCY + '\n[[implies]]\nwhen = "wheezing"\nanswer = "yes"\nthen = { cough = "yes" }\n'
    )
    kb = load_kb(write_kb(tmp_path, consistency_toml=rules))
    col = {s.id: s.index for s in kb.symptoms}
    i = kb.chemical_index
    assert kb.implied_cells == {(i("Sarin"), col["cough"]): "occasional"}
    assert kb.grades[i("Sarin"), col["cough"]] == OCCASIONAL
    assert kb.grades[i("Chlorine"), col["cough"]] == HALLMARK
    assert kb.grades[i("Ammonia"), col["wheezing"]] == NOT_LISTED
    assert kb.matrix[i("Sarin"), col["cough"]] and np.array_equal(kb.grades > 0, kb.matrix)
    assert "cough" not in kb.chemical("Sarin").symptoms  # the sourced row is unchanged


def test_implied_cells_follow_chains_of_rules_with_the_strongest_grade(tmp_path):
    rules = (
        CONSISTENCY
        + '\n[[implies]]\nwhen = "pinpoint_pupils"\nanswer = "yes"\nthen = { wheezing = "yes" }\n'
        + '\n[[implies]]\nwhen = "wheezing"\nanswer = "yes"\nthen = { cough = "yes" }\n'
    )
    kb = load_kb(write_kb(tmp_path, consistency_toml=rules))
    col = {s.id: s.index for s in kb.symptoms}
    sarin = kb.chemical_index("Sarin")
    # pinpoint pupils is common for Sarin: wheezing (listed, unverified) is raised to common,
    # and cough follows through wheezing.
    assert kb.grades[sarin, col["wheezing"]] == COMMON
    assert kb.grades[sarin, col["cough"]] == COMMON


def test_the_bundled_rescuers_rule_gives_several_victims_wherever_rescuers_fall_ill():
    kb = load_bundled()
    rescuers, several = (
        kb.symptom_index("pattern_rescuers_affected"),
        kb.symptom_index("pattern_several_victims"),
    )
    G = kb.grades
    listed = G[:, rescuers] > NOT_LISTED
    assert listed.sum() >= 10
    assert (G[listed, several] >= G[listed, rescuers]).all()
    h2s = kb.chemical_index("Hydrogen sulfide")
    assert G[h2s, several] == G[h2s, rescuers] >= COMMON
    assert "pattern_several_victims" not in kb.chemicals[h2s].symptoms


@pytest.mark.parametrize(
    "edit, snippet, words",
    [
        (
            ('members = ["pinpoint_pupils", "dilated_pupils"]', 'members = ["pinpoint_pupils"]'),
            "members =",
            'exclusive group "pupil_size" has only one member',
        ),
        (
            (
                'members = ["pinpoint_pupils", "dilated_pupils"]',
                'members = ["pinpoint", "dilated_pupils"]',
            ),
            '"pinpoint"',
            'unknown symptom id "pinpoint"',
        ),
        (('answer = "yes"', 'answer = "maybe"'), 'answer = "maybe"', 'has answer "maybe"'),
        (('{ cough = "no" }', '{ cough = "sometimes" }'), "then =", 'gives "cough" the answer'),
        (('{ cough = "no" }', '{ walking_talking = "no" }'), "then =", "implies itself"),
        # a member written twice was 'in exclusive groups "pupil_size" and "pupil_size"',
        # whose fix ('remove it from one') named no other group
        (
            (
                'members = ["pinpoint_pupils", "dilated_pupils"]',
                'members = ["pinpoint_pupils", "dilated_pupils", "pinpoint_pupils"]',
            ),
            "members =",
            'exclusive group "pupil_size" lists "pinpoint_pupils" twice',
        ),
        # a group of a victim's sign and the incident's smell was taken: one victim's pupils
        # answered the smell "no" for every victim, and a second victim's "yes" to the smell
        # then stood beside the first victim's pinpoint pupils, the group broken
        (
            (
                'members = ["pinpoint_pupils", "dilated_pupils"]',
                'members = ["pinpoint_pupils", "odour_garlic"]',
            ),
            "members =",
            'exclusive group "pupil_size" mixes "odour_garlic", answered once for the whole '
            'incident, with "pinpoint_pupils", answered for each victim',
        ),
    ],
)
def test_bad_consistency_tables_get_one_clear_message(tmp_path, edit, snippet, words):
    text = CONSISTENCY.replace(*edit)
    issue = only_error(write_kb(tmp_path, consistency_toml=text))
    assert words in issue.problem and issue.file.endswith("consistency.toml")
    assert issue.line == line_of(text, snippet)


def test_a_sign_in_two_exclusive_groups_is_refused(tmp_path):
    text = CONSISTENCY + (
        '\n[[exclusive]]\nid = "other"\nlabel = "Other"\n'
        'members = ["dilated_pupils", "cough"]\nnone_label = "Neither"\n'
    )
    issue = only_error(write_kb(tmp_path, consistency_toml=text))
    assert '"dilated_pupils" is in exclusive groups "pupil_size" and "other"' in issue.problem


def test_an_unknown_grade_is_one_message_naming_the_grades(tmp_path):
    text = CHEMICALS.replace("hallmark = [", "frequent = [")
    issue = only_error(write_kb(tmp_path, chemicals__gases_toml=text))
    assert "unknown key `frequent`" in issue.problem and "hallmark" in issue.fix
    assert issue.line == line_of(text, "frequent =")


def test_a_scene_cell_without_a_source_is_a_warning_and_counts_as_unverified(tmp_path):
    text = NERVE.replace(
        'scene = ["odour_garlic"]\nsources', 'scene = ["odour_garlic", "odour_bleach"]\nsources'
    )
    kb = load_kb(write_kb(tmp_path, chemicals__nerve_toml=text))
    (warning,) = [w for w in kb.warnings if "has no source" in w.problem]
    assert 'scene cell "odour_bleach"' in warning.problem
    assert kb.chemical("Sarin").grade("odour_bleach") == "unverified"


def test_a_missing_scene_file_is_one_message_not_one_per_reference(tmp_path):
    """The bundled folder without scene.toml gave 5,014 "unknown symptom id" lines."""
    import shutil
    from pathlib import Path

    from responder.kb.loader import bundled_root

    root = tmp_path / "kb"
    shutil.copytree(bundled_root(), root)
    (root / "scene.toml").unlink()
    issue = only_error(root, strict=False)
    assert issue.file.endswith("scene.toml") and issue.line is None
    assert issue.problem.startswith("the file is missing, and ")
    assert "onset_seconds" in issue.problem and "restore scene.toml" in issue.fix
    # a knowledge base without scene observations keeps a typo's own line and suggestion
    small = tmp_path / "small"
    shutil.copytree(Path(__file__).parents[1] / "app" / "fixtures" / "kb", small)
    gases = small / "chemicals" / "irritant_gases.toml"
    gases.write_text(gases.read_text(encoding="utf-8").replace('"cough"', '"cuogh"', 1))
    typo = only_error(small, strict=False)
    assert 'unknown symptom id "cuogh"' in typo.problem and typo.line == 8


def test_a_scene_word_shared_with_a_symptom_is_refused(tmp_path):
    scene = SCENE.replace('synonyms = ["pool"]', 'synonyms = ["pool", "Wheezing"]')
    issue = only_error(write_kb(tmp_path, scene_toml=scene))
    assert 'synonym "Wheezing" of observation "setting_swimming_pool"' in issue.problem
    assert 'already names symptom "wheezing"' in issue.problem
    assert "symptoms.toml" in issue.problem  # where the other one is


@pytest.mark.parametrize(
    "text, words",
    [
        ("leak = 0.9\n", "leak (0.9) must be below sensitivity"),
        ("class_borrow = 2\n", "class borrow is 2"),
        ("textbook_share = 1\n", "textbook share is 1"),
        ("textbook_leak = 0.99\n", "textbook leak (0.99) must be below sensitivity (0.97)"),
        ("sensitivity = true\n", "`sensitivity` must be a number"),
        ("threshold = 0.9\n", "unknown top-level key or table `threshold`"),
    ],
)
def test_a_bad_answer_model_is_one_clear_message(tmp_path, text, words):
    issues = errors_of(write_kb(tmp_path, grades_toml=text))
    assert len(issues) == 1 and words in issues[0].problem, issues
    assert issues[0].file.endswith("grades.toml")


@pytest.mark.parametrize(
    "text, fix",
    [
        ("long_row_exponent = -1\n", "from 0 (no discount) to 1"),
        ("textbook_share = 1\n", "from 0 (no textbook presentation) up to (not including) 1"),
        ("class_borrow = 2\n", "from 0 (no borrowing)"),
        ("leak = 0.9\n", "below sensitivity"),
        ("hallmark = 0.5\n", "so each grade stays above the next"),
    ],
)
def test_each_grades_error_says_how_to_fix_that_key(tmp_path, text, fix):
    """Every grades.toml error ended "so each grade stays above the next", even for
    textbook_share or long_row_exponent."""
    [issue] = errors_of(write_kb(tmp_path, grades_toml=text))
    assert fix in issue.fix
    if not text.startswith("hallmark"):
        assert "each grade stays above the next" not in issue.fix


def test_the_answer_model_of_a_knowledge_base_is_read(tmp_path):
    kb = load_kb(write_kb(tmp_path, grades_toml="leak = 0.03\nclass_borrow = 0.5\n"))
    assert kb.answer_model == {"leak": 0.03, "class_borrow": 0.5}


def test_the_bundled_knowledge_base_has_scene_facts_grades_and_consistency():
    kb = load_bundled()
    scene = [s for s in kb.symptoms if s.kind == "scene"]
    assert len(scene) >= 60 and {c.id for c in kb.categories if c.kind == "scene"} == {
        "odour",
        "appearance",
        "state",
        "onset",
        "route",
        "setting",
        "pattern",
    }
    with_scene = [c for c in kb.chemicals if c.symptoms & {s.id for s in scene}]
    assert len(with_scene) >= 200
    chlorine = kb.chemical("Chlorine")
    assert chlorine.grade("state_gas") == "hallmark" and "odour_bleach" in chlorine.symptoms
    assert {g.id for g in kb.exclusive_groups} >= {"pupil_size", "pulse_rate", "onset_time"}
    assert kb.answer_model["leak"] > 0 and kb.answer_model["class_borrow"] > 0


def test_a_cell_only_a_supplementary_source_supports_stays_unverified():
    from responder.kb.model import Chemical, Evidence

    def table(title, **grades):
        cells = frozenset().union(*grades.values())
        graded = {k: frozenset(v) for k, v in grades.items() if k != "symptoms"}
        return Evidence(title, "https://example.org/", cells, **graded)

    agency = table("CDC: Facts about chlorine", symptoms={"cough"})
    review = table(
        "Clinical reference: StatPearls, Chlorine Toxicity", hallmark={"cough", "wheezing"}
    )
    chlorine = Chemical(
        "Chlorine", "7782-50-5", None, "irritant_gases",
        frozenset({"cough", "wheezing"}), ("CDC: Facts about chlorine",),
        evidence=(agency, review),
    )  # fmt: skip
    assert review.supplementary and not agency.supplementary
    assert chlorine.grade("wheezing") == "unverified"  # the review alone says so
    assert chlorine.grade("cough") == "common"  # the agency's grade, not the review's hallmark
    assert not chlorine.unsupported  # a read document still supports it


@pytest.mark.parametrize(
    "rule, clash",
    [
        # a second rule gives the opposite answer to the same observation
        ('when = "walking_talking"\nanswer = "yes"\nthen = { cough = "yes" }\n', "cough"),
        # yes to both members of one exclusive group
        (
            'when = "cough"\nanswer = "yes"\n'
            'then = { pinpoint_pupils = "yes", dilated_pupils = "yes" }\n',
            "pinpoint_pupils",
        ),
        # a chain that comes back to the answer it started from, reversed
        ('when = "cough"\nanswer = "no"\nthen = { walking_talking = "no" }\n', "walking_talking"),
    ],
)
def test_implications_that_contradict_each_other_are_refused(tmp_path, rule, clash):
    text = CONSISTENCY + "\n[[implies]]\n" + rule
    issues = errors_of(write_kb(tmp_path, consistency_toml=text))
    assert issues, "a contradicting rule must be refused"
    assert all(i.file.endswith("consistency.toml") for i in issues)
    assert any(f'both "yes" and "no" for "{clash}"' in i.problem for i in issues), issues
    assert {i.line for i in issues} <= {line_of(text, "when =", k) for k in (1, 2)}


def test_rules_that_agree_through_a_chain_are_accepted(tmp_path):
    text = (
        CONSISTENCY + '\n[[implies]]\nwhen = "wheezing"\nanswer = "yes"\nthen = { cough = "yes" }\n'
    )
    load_kb(write_kb(tmp_path, consistency_toml=text))


ROUTE_SCENE = (
    SCENE
    + """
[[category]]
id = "route"
label = "How the victim was exposed"
kind = "scene"
per = "victim"
alternatives = true

[[observation]]
id = "route_inhaled"
label = "Breathed it in"
category = "route"

[[observation]]
id = "route_skin"
label = "On the skin"
category = "route"

[[observation]]
id = "route_drug_use"
label = "Drug use"
category = "route"
"""
)

CONTACT = (
    CONSISTENCY
    + """
[[contact_signs]]
route = "route_inhaled"
signs = ["cough", "wheezing"]
why = "The gas touches the airways."

[[contact_signs]]
route = "route_skin"
signs = ["dilated_pupils"]
"""
)


def test_contact_signs_make_each_route_a_view_of_the_rows(tmp_path):
    kb = load_kb(write_kb(tmp_path, scene_toml=ROUTE_SCENE, consistency_toml=CONTACT))
    assert [(c.route, c.signs) for c in kb.contact_signs] == [
        ("route_inhaled", ("cough", "wheezing")),
        ("route_skin", ("dilated_pupils",)),
    ]
    problem = kb.to_problem()
    routes = [kb.symptom_index(r) for r in ("route_inhaled", "route_skin", "route_drug_use")]
    assert list(problem.route_queries) == routes
    off = {
        kb.symptoms[q].id: set(np.array(kb.symptom_ids)[problem.off_route[r]])
        for r, q in enumerate(routes)
    }
    # a sign of one route's contact is off every other route that has a table; drug use has none
    assert off == {
        "route_inhaled": {"dilated_pupils"},
        "route_skin": {"cough", "wheezing"},
        "route_drug_use": set(),
    }


@pytest.mark.parametrize(
    "edit, snippet, words",
    [
        (('route = "route_skin"', 'route = "route_sea"'), 'route = "route_sea"', "unknown"),
        (
            ('route = "route_skin"', 'route = "cough"'),
            'route = "cough"',
            'contact signs name "cough", which is not a route of exposure',
        ),
        (
            ('signs = ["dilated_pupils"]', 'signs = ["route_inhaled"]'),
            'signs = ["route_inhaled"]',
            'contact signs of "route_skin" list the route "route_inhaled"',
        ),
        (
            ('route = "route_skin"', 'route = "route_inhaled"'),
            'route = "route_inhaled"\nsigns = ["dilated',
            'contact signs of "route_inhaled" are given twice',
        ),
        (('signs = ["dilated_pupils"]', 'sign = ["dilated_pupils"]'), "sign =", "sign"),
        # QA round 12: a scene observation answered once for the incident was accepted as a
        # contact sign (and then weighed as occasional for a victim of another route)
        (
            ('signs = ["dilated_pupils"]', 'signs = ["odour_bleach"]'),
            'signs = ["odour_bleach"]',
            'contact signs of "route_skin" list "odour_bleach", a scene observation answered '
            "once for the incident",
        ),
    ],
)
def test_bad_contact_signs_get_one_clear_message(tmp_path, edit, snippet, words):
    text = CONTACT.replace(*edit)
    issue = only_error(write_kb(tmp_path, scene_toml=ROUTE_SCENE, consistency_toml=text))
    assert words in issue.problem and issue.file.endswith("consistency.toml")
    assert issue.line == line_of(text, snippet)


def test_a_contact_sign_of_another_per_victim_scene_category_is_not_called_a_route(tmp_path):
    """QA round 12: a contact sign naming an onset ("within minutes") was refused as "the
    route", which it is not; it is a scene observation answered per victim."""
    scene = (
        ROUTE_SCENE
        + """
[[category]]
id = "onset"
label = "When the signs began"
kind = "scene"
per = "victim"
alternatives = true

[[observation]]
id = "onset_minutes"
label = "Within minutes"
category = "onset"

[[observation]]
id = "onset_hours"
label = "After hours"
category = "onset"
"""
    )
    text = CONTACT.replace('signs = ["dilated_pupils"]', 'signs = ["onset_minutes"]')
    issue = only_error(write_kb(tmp_path, scene_toml=scene, consistency_toml=text))
    assert issue.problem == (
        'contact signs of "route_skin" list "onset_minutes", a scene observation of "onset" '
        "answered per victim"
    )
    assert issue.line == line_of(text, 'signs = ["onset_minutes"]')


def test_an_empty_list_of_contact_signs_and_a_contact_sign_no_chemical_lists_are_warnings(
    tmp_path,
):
    """QA round 13: `[[contact_signs]]` with `signs = []` was accepted without a word, yet
    it weighs every other route's contact signs as occasional for that route's victims; and
    a contact sign no chemical lists ("walking_talking" among the airways' signs) changed
    no route view unseen. One warning each, on its line; the rest of the table is used."""
    text = CONTACT.replace('signs = ["dilated_pupils"]', "signs = []").replace(
        '"cough", "wheezing"]', '"cough", "wheezing",\n         "walking_talking"]'
    )
    kb = load_kb(write_kb(tmp_path, scene_toml=ROUTE_SCENE, consistency_toml=text))
    said = [w for w in kb.warnings if w.file.endswith("consistency.toml")]
    assert [(w.line, w.problem) for w in said] == [
        (
            line_of(text, "signs = []"),
            'contact signs of "route_skin" list no sign: for a victim exposed this way every '
            "other route's contact signs count as occasional, and no sign as this route's own",
        ),
        (
            line_of(text, '"walking_talking"]'),
            'contact signs of "route_inhaled" list "walking_talking", which no chemical '
            "lists: it changes no chemical's route views",
        ),
    ]
    assert "remove the table" in said[0].fix
    assert [(c.route, c.signs) for c in kb.contact_signs] == [
        ("route_inhaled", ("cough", "wheezing", "walking_talking")),
        ("route_skin", ()),
    ]
    sound = load_kb(write_kb(tmp_path / "sound", scene_toml=ROUTE_SCENE, consistency_toml=CONTACT))
    assert not [w for w in sound.warnings if w.file.endswith("consistency.toml")]


def test_a_several_routes_share_without_contact_signs_is_a_warning(tmp_path):
    """QA round 12: grades.toml's several_routes_share = 0.7 on a knowledge base whose
    consistency.toml lists no [[contact_signs]] was accepted without a word (0 warnings),
    and every evidence setting shown said 0.7 although no route view was weighed."""
    grades = "several_routes_share = 0.7\n"
    kb = load_kb(write_kb(tmp_path / "none", scene_toml=ROUTE_SCENE, grades_toml=grades))
    (warning,) = [w for w in kb.warnings if "several_routes_share" in w.problem]
    assert warning.file.endswith("grades.toml") and warning.line == 1
    assert "lists no route's contact signs" in warning.problem
    with_signs = load_kb(
        write_kb(
            tmp_path / "signs",
            scene_toml=ROUTE_SCENE,
            consistency_toml=CONTACT,
            grades_toml=grades,
        )
    )
    assert not [w for w in with_signs.warnings if "several_routes_share" in w.problem]


def test_the_bundled_contact_signs_keep_a_skin_splash_from_expecting_a_cough():
    kb = load_bundled()
    problem = kb.to_problem()
    route = {kb.symptoms[q].id: r for r, q in enumerate(problem.route_queries)}
    cough, burns = kb.symptom_index("cough"), kb.symptom_index("skin_burns")
    assert problem.off_route[route["route_skin"], cough]
    assert problem.off_route[route["route_swallowed"], cough]
    assert not problem.off_route[route["route_inhaled"], cough]
    assert problem.off_route[route["route_inhaled"], burns]
    assert not problem.off_route[route["route_drug_use"]].any()
    # signs absorbed from any route are nobody's contact sign
    for systemic in ("shortness_of_breath", "vomiting", "pinpoint_pupils", "seizures"):
        assert not problem.off_route[:, kb.symptom_index(systemic)].any()
    assert kb.answer_model["several_routes_share"] < 1
