"""kb/next_steps.toml: the bundled file is valid and traced; bad files get one message per problem."""

from __future__ import annotations

import tomllib

import pytest

from responder.kb import KBError, load_bundled
from responder.kb.loader import bundled_root
from responder.kb.next_steps import (
    ANY,
    MAX_STEP_CHARS,
    STEP_KINDS,
    NextSteps,
    load_next_steps,
    parse_next_steps,
)


@pytest.fixture(scope="module")
def kb():
    return load_bundled()


@pytest.fixture(scope="module")
def bundled(kb):
    return load_next_steps(kb)


GOOD_SOURCE = '''
[[source]]
id = "s1"
title = "CDC: Facts About Something"
url = "https://example.org/facts"
'''


def parse(kb, body: str) -> NextSteps:
    return parse_next_steps(GOOD_SOURCE + body, kb, "next_steps.toml")


def test_bundled_file_loads_and_every_step_names_a_read_source(kb, bundled):
    assert bundled.poison_centre is not None
    assert bundled.poison_centre.line == "1-800-222-1222"
    assert bundled.poison_centre.source is not None
    assert len(bundled.steps) >= 15
    raw = tomllib.loads(bundled_root().joinpath("next_steps.toml").read_text("utf-8"))
    assert len(raw["step"]) == len(bundled.steps)  # nothing silently dropped
    for step in bundled.steps:
        assert step.kind in STEP_KINDS
        assert step.source.url.startswith("http")
        assert len(step.text) <= MAX_STEP_CHARS


def test_bundled_covers_the_classes_where_a_source_gives_an_antidote(bundled):
    nerve = bundled.for_result(["nerve_agents"], ["sarin_gb"])
    treatment = " ".join(s.text for s in nerve.by_kind["treatment"])
    assert "atropine" in treatment and "pralidoxime" in treatment
    cyanide = bundled.for_result(["cellular_asphyxiants"], ["hydrogen_cyanide"])
    assert any("antidote" in s.text for s in cyanide.by_kind["treatment"])
    assert cyanide.specific


def test_for_result_orders_chemical_then_class_then_general(bundled):
    result = bundled.for_result(["cellular_asphyxiants"], ["hydrogen_cyanide"])
    decon = result.by_kind["decontamination"]
    general = [s for s in decon if s.targets == (ANY,)]
    specific = [s for s in decon if s.targets != (ANY,)]
    assert general and specific
    assert decon.index(specific[-1]) < decon.index(general[0])
    treatment = result.by_kind["treatment"]
    assert "hydrogen_cyanide" in treatment[0].targets
    assert "cellular_asphyxiants" in treatment[-1].targets


def test_a_class_without_its_own_steps_is_not_called_specific(bundled):
    metals = bundled.for_result(["metals"])
    assert not metals.specific
    assert metals.by_kind  # the general first aid still shows
    assert all(s.targets == (ANY,) for steps in metals.by_kind.values() for s in steps)
    assert metals.poison_centre is not None


def test_a_step_for_several_chemicals_shows_once(bundled):
    result = bundled.for_result(["cellular_asphyxiants"], ["sodium_cyanide", "potassium_cyanide"])
    texts = [s.text for s in result.by_kind["decontamination"]]
    assert len(texts) == len(set(texts))


def test_sources_of_a_result_are_listed_once(bundled):
    result = bundled.for_result(["nerve_agents"], ["sarin_gb"])
    ids = [s.id for s in result.sources]
    assert len(ids) == len(set(ids))
    assert "hrsa_poison_help" in ids


def test_good_file_parses(kb):
    ns = parse(kb, '''
[[step]]
for = ["nerve_agents", "sarin_gb"]
kind = "treatment"
text = "Give the antidote."
source = "s1"
''')
    assert ns.steps[0].targets == ("nerve_agents", "sarin_gb")
    assert ns.steps[0].line == 7


@pytest.mark.parametrize("body, needle, line", [
    ('[[step]]\nfor = "nerve_agentz"\nkind = "treatment"\ntext = "x"\nsource = "s1"\n',
     '"nerve_agentz" is not a class id', 6),
    ('[[step]]\nfor = "nerve_agents"\nkind = "cure"\ntext = "x"\nsource = "s1"\n',
     'step kind "cure" is unknown', 6),
    ('[[step]]\nfor = "nerve_agents"\nkind = "treatment"\ntext = "x"\nsource = "s9"\n',
     'source "s9" is not a [[source]] id', 6),
    ('[[step]]\nfor = "nerve_agents"\nkind = "treatment"\ntext = " "\nsource = "s1"\n',
     "has no text", 6),
    ('[[step]]\nkind = "treatment"\ntext = "x"\nsource = "s1"\n', 'has no "for"', 6),
    ('[[step]]\nfor = "any"\nkind = "treatment"\ntext = "' + "x" * 300 + '"\nsource = "s1"\n',
     "300 characters", 6),
    ('[[source]]\nid = "s2"\ntitle = "t"\nurl = "ftp://x"\n', 'source "s2" has no web address', 6),
    ('[[source]]\nid = "s1"\ntitle = "t"\nurl = "https://x"\n', 'source id "s1" is used twice', 6),
    ('[poison_centre]\nlabel = "x"\n', "[poison_centre] has no line", 6),
])
def test_bad_files_name_the_problem_and_line(kb, body, needle, line):
    with pytest.raises(KBError) as err:
        parse(kb, body)
    issues = [i for i in err.value.issues if needle in i.problem]
    assert issues, str(err.value)
    assert issues[0].line == line
    assert issues[0].fix


def test_unknown_top_level_key_is_named(kb):
    with pytest.raises(KBError, match='unknown key "colour"'):
        parse_next_steps('colour = "red"\n' + GOOD_SOURCE, kb, "next_steps.toml")


def test_every_problem_is_reported_not_just_the_first(kb):
    with pytest.raises(KBError) as err:
        parse(kb, '[[step]]\nfor = "nope"\nkind = "cure"\ntext = "x"\nsource = "s1"\n'
                  '[[step]]\nfor = "also_nope"\nkind = "treatment"\ntext = "x"\nsource = "s1"\n')
    assert len(err.value.issues) == 3


def test_duplicate_step_is_refused(kb):
    step = '[[step]]\nfor = "any"\nkind = "first_aid"\ntext = "Fresh air."\nsource = "s1"\n'
    with pytest.raises(KBError, match="repeats an earlier one"):
        parse(kb, step + step)


def test_syntax_error_is_one_clear_message(kb):
    with pytest.raises(KBError) as err:
        parse_next_steps("[[step]\n", kb, "next_steps.toml")
    assert len(err.value.issues) == 1
    assert err.value.issues[0].line == 1


def test_folder_without_file_has_no_steps(kb, tmp_path):
    ns = load_next_steps(kb, tmp_path)
    assert ns.steps == () and ns.poison_centre is None
    assert not ns.for_result(["nerve_agents"])


def test_folder_file_that_is_not_utf8_is_reported(kb, tmp_path):
    (tmp_path / "next_steps.toml").write_bytes(b"\xff\xfe[[step]]")
    with pytest.raises(KBError, match="UTF-16"):
        load_next_steps(kb, tmp_path)


def test_folder_file_is_read(kb, tmp_path):
    (tmp_path / "next_steps.toml").write_text(
        GOOD_SOURCE + '[[step]]\nfor = "opioids"\nkind = "treatment"\ntext = "Naloxone."\nsource = "s1"\n',
        encoding="utf-8")
    ns = load_next_steps(kb, tmp_path)
    assert ns.for_result(["opioids"]).by_kind["treatment"][0].text == "Naloxone."


@pytest.mark.parametrize("key, fix", [
    ("source", "[[source]] table with id, title and url"),
    ("step", "[[step]] table"),
])
def test_a_table_array_written_as_a_plain_value_is_named(kb, key, fix):
    with pytest.raises(KBError) as err:
        parse_next_steps(f'{key} = "oops"\n', kb, "next_steps.toml")
    issues = [i for i in err.value.issues if f'"{key}" must be [[{key}]] tables' in i.problem]
    assert len(issues) == 1, str(err.value)
    assert issues[0].line == 1
    assert fix in issues[0].fix
