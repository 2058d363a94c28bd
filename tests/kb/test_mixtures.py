"""A knowledge-base entry may be a mixture (``mixture = true``): it has no CAS number, even
under the bundled rules, and every other way of saying so gets one clear message. The bundled
fire smoke entry is one."""

from __future__ import annotations

import pytest
from kb_helpers import line_of, only_error, write_files

from responder.cli.kb import chemical_entry
from responder.kb import load_bundled, load_kb

SYMPTOMS = """\
[[category]]
id = "breathing"
label = "Breathing"

[[symptom]]
id = "cough"
label = "Cough"
category = "breathing"

[[symptom]]
id = "collapse"
label = "Collapsed"
category = "breathing"
"""

CLASSES = """\
[[class]]
id = "knockdown"
label = "Knockdown"
"""

SMOKE = """\
class = "knockdown"

[[chemical]]
name = "Carbon monoxide"
cas = "630-08-0"
symptoms = ["collapse"]
sources = ["CDC: Carbon monoxide"]

[[chemical]]
name = "Fire smoke"
mixture = true
symptoms = ["cough", "collapse"]
sources = ["CDC: Wildfire smoke"]
"""


def write_kb(tmp_path, chemicals: str = SMOKE):
    return write_files(
        tmp_path,
        {
            "symptoms.toml": SYMPTOMS,
            "classes.toml": CLASSES,
            "chemicals/knockdown.toml": chemicals,
        },
    )


@pytest.mark.parametrize("strict", [True, False])
def test_a_mixture_needs_no_cas_number(tmp_path, strict):
    kb = load_kb(write_kb(tmp_path), strict=strict)
    smoke = kb.chemical("Fire smoke")
    assert smoke.mixture and smoke.cas == ""
    assert smoke.cas_label == "mixture, no CAS number"
    co = kb.chemical("Carbon monoxide")
    assert not co.mixture and co.cas_label == "CAS 630-08-0"
    assert kb.warnings == ()


def test_a_mixture_with_a_cas_number_is_refused_at_the_cas_line(tmp_path):
    text = SMOKE.replace("mixture = true\n", 'mixture = true\ncas = "630-08-0"\n')
    issue = only_error(write_kb(tmp_path, text))
    assert issue.line == line_of(text, 'cas = "630-08-0"', 2)
    assert '"Fire smoke" is a mixture (mixture = true) but gives the CAS number' in issue.problem
    assert "remove `cas`" in issue.fix


@pytest.mark.parametrize("strict", [True, False])
def test_cas_written_as_mixture_points_at_the_mixture_key(tmp_path, strict):
    text = SMOKE.replace("mixture = true", 'cas = "Mixture"')
    issue = only_error(write_kb(tmp_path, text), strict=strict)
    assert issue.line == line_of(text, 'cas = "Mixture"')
    assert '"Fire smoke": "Mixture" is not a CAS number' == issue.problem
    assert "write mixture = true" in issue.fix


def test_a_mixture_flag_that_is_not_true_or_false_is_one_message(tmp_path):
    text = SMOKE.replace("mixture = true", 'mixture = "yes"')
    issue = only_error(write_kb(tmp_path, text))  # not also "has no `cas`"
    assert issue.line == line_of(text, 'mixture = "yes"')
    assert "`mixture` must be true or false" in issue.problem


def test_mixture_false_is_a_chemical_and_needs_its_cas_under_the_bundled_rules(tmp_path):
    text = SMOKE.replace("mixture = true", "mixture = false")
    root = write_kb(tmp_path, text)
    assert "has no `cas`" in only_error(root, strict=True).problem
    assert not load_kb(root, strict=False).chemical("Fire smoke").mixture


def test_kb_info_json_says_which_entries_are_mixtures(tmp_path):
    kb = load_kb(write_kb(tmp_path), strict=True)
    smoke, co = (
        chemical_entry(kb.chemical("Fire smoke")),
        chemical_entry(kb.chemical("Carbon monoxide")),
    )
    assert (smoke["mixture"], smoke["cas"]) == (True, "")
    assert (co["mixture"], co["cas"]) == (False, "630-08-0")


def test_a_chemicals_own_name_wins_over_a_mixtures_bracketed_part(tmp_path):
    text = SMOKE.replace('"Fire smoke"', '"Fire smoke (carbon monoxide, irritants)"')
    kb = load_kb(write_kb(tmp_path, text))
    assert kb.resolve_chemical("carbon monoxide").name == "Carbon monoxide"
    assert kb.resolve_chemical("630-08-0").name == "Carbon monoxide"
    assert kb.resolve_chemical("irritants").mixture
    assert kb.resolve_chemical("fire smoke").mixture


def test_the_bundled_fire_smoke_entry_is_a_checked_mixture_with_its_scene():
    kb = load_bundled()
    smoke = kb.resolve_chemical("fire smoke")
    assert smoke.id == "fire_smoke" and smoke.mixture and smoke.cas == ""
    assert kb.resolve_chemical("carbon monoxide").id == "carbon_monoxide"
    assert smoke.class_id == "hemoglobin_toxicants" and smoke.source_checked
    # what tells it from carbon monoxide alone: the fire, and the irritant signs
    assert smoke.grade("setting_fire") == "hallmark" and smoke.grade("route_inhaled") == "hallmark"
    assert {"cough", "eye_irritation", "throat_irritation"} <= smoke.symptoms
    assert "cough" not in kb.chemical("Carbon monoxide").symptoms
    # the knockdown signs of its two gases, from a page not about smoke: occasional only
    assert smoke.grade("unconsciousness") == "occasional"
    assert all(e.url.startswith(("http://", "https://")) for e in smoke.evidence)
