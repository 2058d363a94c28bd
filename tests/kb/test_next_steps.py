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
    chemical_key,
    load_next_steps,
    parse_next_steps,
)


@pytest.fixture(scope="module")
def kb():
    return load_bundled()


@pytest.fixture(scope="module")
def bundled(kb):
    return load_next_steps(kb)


GOOD_SOURCE = """
[[source]]
id = "s1"
title = "CDC: Facts About Something"
url = "https://example.org/facts"
"""


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


def test_fire_smoke_gets_oxygen_first_and_cyanide_named_for_the_hospital(kb, bundled):
    class_of = {c.id: c.class_id for c in kb.chemicals}
    smoke = bundled.for_result(["hemoglobin_toxicants"], ["fire_smoke"], class_of=class_of)
    assert any("100% oxygen" in s.text for s in smoke.hallmarks)
    treatment = " ".join(s.text for s in smoke.by_kind["treatment"])
    assert "hydrogen cyanide" in treatment and "hospital" in treatment
    # no nitrite kit for a mixture with carbon monoxide, and the class's general
    # knockdown line gives way to the smoke's own steps
    assert "nitrite" not in treatment.lower()
    assert "Knockdown toxidrome" not in treatment
    protection = " ".join(s.text for s in smoke.by_kind["protection"])
    assert "fatal CO levels" in protection


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
    ns = parse(
        kb,
        """
[[step]]
for = ["nerve_agents", "sarin_gb"]
kind = "treatment"
text = "Give the antidote."
source = "s1"
""",
    )
    assert ns.steps[0].targets == ("nerve_agents", "sarin_gb")
    assert ns.steps[0].line == 7


@pytest.mark.parametrize(
    "body, needle, line",
    [
        (
            '[[step]]\nfor = "nerve_agentz"\nkind = "treatment"\ntext = "x"\nsource = "s1"\n',
            '"nerve_agentz" is not a class id',
            6,
        ),
        (
            '[[step]]\nfor = "nerve_agents"\nkind = "cure"\ntext = "x"\nsource = "s1"\n',
            'step kind "cure" is unknown',
            6,
        ),
        (
            '[[step]]\nfor = "nerve_agents"\nkind = "treatment"\ntext = "x"\nsource = "s9"\n',
            'source "s9" is not a [[source]] id',
            6,
        ),
        (
            '[[step]]\nfor = "nerve_agents"\nkind = "treatment"\ntext = " "\nsource = "s1"\n',
            "has no text",
            6,
        ),
        ('[[step]]\nkind = "treatment"\ntext = "x"\nsource = "s1"\n', 'has no "for"', 6),
        (
            '[[step]]\nfor = "any"\nkind = "treatment"\ntext = "'
            + "x" * 300
            + '"\nsource = "s1"\n',
            "300 characters",
            6,
        ),
        (
            '[[source]]\nid = "s2"\ntitle = "t"\nurl = "ftp://x"\n',
            'source "s2" has no web address',
            6,
        ),
        (
            '[[source]]\nid = "s1"\ntitle = "t"\nurl = "https://x"\n',
            'source id "s1" is used twice',
            6,
        ),
        ('[poison_centre]\nlabel = "x"\n', "[poison_centre] has no line", 6),
    ],
)
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
        parse(
            kb,
            '[[step]]\nfor = "nope"\nkind = "cure"\ntext = "x"\nsource = "s1"\n'
            '[[step]]\nfor = "also_nope"\nkind = "treatment"\ntext = "x"\nsource = "s1"\n',
        )
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
        GOOD_SOURCE
        + '[[step]]\nfor = "opioids"\nkind = "treatment"\ntext = "Naloxone."\nsource = "s1"\n',
        encoding="utf-8",
    )
    ns = load_next_steps(kb, tmp_path)
    assert ns.for_result(["opioids"]).by_kind["treatment"][0].text == "Naloxone."


@pytest.mark.parametrize(
    "key, fix",
    [
        ("source", "[[source]] table with id, title and url"),
        ("step", "[[step]] table"),
    ],
)
def test_a_table_array_written_as_a_plain_value_is_named(kb, key, fix):
    with pytest.raises(KBError) as err:
        parse_next_steps(f'{key} = "oops"\n', kb, "next_steps.toml")
    issues = [i for i in err.value.issues if f'"{key}" must be [[{key}]] tables' in i.problem]
    assert len(issues) == 1, str(err.value)
    assert issues[0].line == 1
    assert fix in issues[0].fix


# --- recorded gaps and per-class coverage ------------------------------------------------------


def test_every_bundled_class_has_its_own_steps_or_a_recorded_gap(kb, bundled):
    class_ids = [c.id for c in kb.classes]
    assert bundled.uncovered(class_ids) == []
    covered = bundled.covered()
    for cid in class_ids:
        has_steps, gap = cid in covered, bundled.gaps.get(cid)
        assert has_steps != (gap is not None), cid  # exactly one of the two
        if gap is not None:
            assert len(gap.reason) > 20 and gap.line


def test_a_class_whose_chemicals_alone_have_steps_is_not_covered(kb):
    ns = parse(
        kb,
        '[[step]]\nfor = "chlorine"\nkind = "protection"\ntext = "x"\nsource = "s1"\n'
        '[[step]]\nfor = "opioids"\nkind = "treatment"\ntext = "y"\nsource = "s1"\n',
    )
    assert ns.uncovered(["irritant_gases", "opioids", "metals"]) == ["irritant_gases", "metals"]
    with_gap = parse(
        kb,
        '[[step]]\nfor = "opioids"\nkind = "treatment"\ntext = "y"\nsource = "s1"\n'
        '[[gap]]\nfor = ["irritant_gases", "metals"]\nreason = "nothing read yet"\n',
    )
    assert with_gap.uncovered(["irritant_gases", "opioids", "metals"]) == []
    assert with_gap.gaps["metals"].reason == "nothing read yet"
    assert with_gap.gaps["metals"].line == 11


def test_a_gap_class_result_carries_the_reason_and_a_covered_one_does_not(bundled):
    metals = bundled.for_result(["metals"], ["arsenic_inorganic_compounds"])
    assert [g.class_id for g in metals.gaps] == ["metals"]
    assert metals.to_dict()["gaps"] == [
        {"class": "metals", "label": "Metals and metal fumes", "reason": metals.gaps[0].reason}
    ]
    # a chemical of a gap class with its own steps is specific, and the class gap still shows
    arsine = bundled.for_result(["metals"], ["arsine"])
    assert arsine.specific and [g.class_id for g in arsine.gaps] == ["metals"]
    nerve = bundled.for_result(["nerve_agents"], ["sarin_gb"])
    assert nerve.gaps == () and nerve.to_dict()["gaps"] == []


@pytest.mark.parametrize(
    "body, needle",
    [
        ('[[gap]]\nfor = "sarin_gb"\nreason = "r"\n', 'gap "sarin_gb" is not a class id'),
        ('[[gap]]\nfor = "any"\nreason = "r"\n', 'gap "any" is not a class id'),
        ('[[gap]]\nfor = "metals"\n', "a [[gap]] has no reason"),
        ('[[gap]]\nreason = "r"\n', 'a [[gap]] has no "for"'),
        ('[[gap]]\nfor = "metals"\nreason = "' + "r" * 301 + '"\n', "gap reason is 301 characters"),
        (
            '[[gap]]\nfor = "metals"\nreason = "r"\n[[gap]]\nfor = "metals"\nreason = "s"\n',
            'class "metals" is listed as a gap twice',
        ),
        (
            '[[step]]\nfor = "opioids"\nkind = "treatment"\ntext = "x"\nsource = "s1"\n'
            '[[gap]]\nfor = "opioids"\nreason = "r"\n',
            'class "opioids" has steps and is also listed as a gap',
        ),
        (
            '[[step]]\nfor = "nerve_agents"\nkind = "treatment"\ntext = "x"\nsource = "s1"\nreplaces = true\n',
            "replaces = true on a step that is not for chemicals only",
        ),
        (
            '[[step]]\nfor = ["sarin_gb", "any"]\nkind = "treatment"\ntext = "x"\nsource = "s1"\nreplaces = true\n',
            "replaces = true on a step that is not for chemicals only",
        ),
        (
            '[[step]]\nfor = "sarin_gb"\nkind = "treatment"\ntext = "x"\nsource = "s1"\nreplaces = "yes"\n',
            "replaces must be true or false",
        ),
    ],
)
def test_bad_gaps_and_replaces_are_named_with_their_line(kb, body, needle):
    with pytest.raises(KBError) as err:
        parse(kb, body)
    issues = [i for i in err.value.issues if needle in i.problem]
    assert issues, str(err.value)
    assert issues[0].line is not None and issues[0].line >= 6
    assert issues[0].fix


REPLACING = (
    GOOD_SOURCE
    + """
[[step]]
for = "cellular_asphyxiants"
kind = "treatment"
text = "Class antidote line."
source = "s1"

[[step]]
for = "cellular_asphyxiants"
kind = "protection"
text = "Class protection line."
source = "s1"

[[step]]
for = "hydrogen_sulfide"
kind = "treatment"
text = "H2S's own treatment."
source = "s1"
replaces = true

[[step]]
for = "hydrogen_cyanide"
kind = "treatment"
text = "HCN's own treatment."
source = "s1"
"""
)


def _texts(result, kind):
    return [s.text for s in result.by_kind.get(kind, ())]


def test_a_replacing_chemical_step_hides_its_class_step_of_that_kind_only(kb):
    ns = parse_next_steps(REPLACING, kb, "next_steps.toml")
    h2s = ns.for_result(["cellular_asphyxiants"], ["hydrogen_sulfide"])
    assert _texts(h2s, "treatment") == ["H2S's own treatment."]
    assert _texts(h2s, "protection") == ["Class protection line."]  # other kinds untouched
    hcn = ns.for_result(["cellular_asphyxiants"], ["hydrogen_cyanide"])
    assert _texts(hcn, "treatment") == ["HCN's own treatment.", "Class antidote line."]
    # a class-only result has no chemical to stand in for the class
    assert _texts(ns.for_result(["cellular_asphyxiants"]), "treatment") == ["Class antidote line."]


def test_the_class_step_stays_while_any_chemical_of_that_class_lacks_a_replacement(kb):
    ns = parse_next_steps(REPLACING, kb, "next_steps.toml")
    both = ns.for_result(
        ["cellular_asphyxiants"],
        ["hydrogen_sulfide", "hydrogen_cyanide"],
        {"hydrogen_sulfide": "cellular_asphyxiants", "hydrogen_cyanide": "cellular_asphyxiants"},
    )
    assert "Class antidote line." in _texts(both, "treatment")
    # a chemical of another class does not keep the class step alive when its class is known
    mixed = ns.for_result(
        ["cellular_asphyxiants", "opioids"],
        ["hydrogen_sulfide", "fentanyl"],
        {"hydrogen_sulfide": "cellular_asphyxiants", "fentanyl": "opioids"},
    )
    assert "Class antidote line." not in _texts(mixed, "treatment")
    # without class_of every chemical of the result must have a replacing step
    unknown = ns.for_result(["cellular_asphyxiants", "opioids"], ["hydrogen_sulfide", "fentanyl"])
    assert "Class antidote line." in _texts(unknown, "treatment")


def test_for_chemicals_passes_each_chemicals_class(kb):
    ns = parse_next_steps(REPLACING, kb, "next_steps.toml")
    by_key = {c.id: c for c in kb.chemicals if getattr(c, "id", "")}
    h2s, fent = by_key["hydrogen_sulfide"], by_key["fentanyl"]
    result = ns.for_chemicals([h2s, fent])
    assert "Class antidote line." not in _texts(result, "treatment")
    assert "H2S's own treatment." in _texts(result, "treatment")


def test_bundled_hydrogen_sulfide_replaces_the_knockdown_antidote_line(bundled):
    h2s = bundled.for_result(["cellular_asphyxiants"], ["hydrogen_sulfide"])
    assert not any("cellular_asphyxiants" in s.targets for s in h2s.by_kind["treatment"])
    assert any(s.replaces for s in h2s.by_kind["treatment"])
    hcn = bundled.for_result(["cellular_asphyxiants"], ["hydrogen_cyanide"])
    assert any("cellular_asphyxiants" in s.targets for s in hcn.by_kind["treatment"])


@pytest.mark.parametrize(
    "class_id, kind, words",
    [
        ("cholinesterase_pesticides", "treatment", ("atropine", "pralidoxime")),
        ("cholinesterase_pesticides", "protection", ("secondary exposure",)),
        ("opioids", "treatment", ("Naloxone",)),
        ("riot_control", "decontamination", ("get clean", "medical care")),
        ("simple_asphyxiants", "protection", ("19.5%", "SCBA")),
        ("irritant_gases", "first_aid", ("phosgene",)),
    ],
)
def test_bundled_class_steps_name_their_key_facts(bundled, class_id, kind, words):
    result = bundled.for_result([class_id])
    assert result.specific and not result.gaps
    # a hallmark warning counts: it is shown first
    text = " ".join(s.text for s in result.all_by_kind()[kind] if class_id in s.targets)
    assert all(w in text for w in words), text


@pytest.mark.parametrize("key", ["step", "gap"])
def test_a_list_of_non_tables_is_named_not_skipped(kb, key):
    with pytest.raises(KBError) as err:
        parse_next_steps(f"{key} = [1, 2]\n", kb, "next_steps.toml")
    assert sum(f"a {key} is not a table" in i.problem for i in err.value.issues) == 2


# --- what the bundled steps must say (source-read safety facts) ---------------------------------

RESPIRATORY = ("SCBA", "self-contained breathing apparatus", "respirator")


def _chemical_steps(kb, ns, chem_id):
    """The steps the result screen shows for one chemical of the bundled knowledge base."""
    return ns.for_chemicals([kb.chemical(chem_id)])


def _text(result, kind, *, own_only=False):
    """The steps of ``kind`` shown, the hallmark warnings (shown first) included."""
    steps = [s for s in result.hallmarks if s.kind == kind] + list(result.by_kind.get(kind, ()))
    if own_only:
        steps = [s for s in steps if ANY not in s.targets]
    return " ".join(s.text for s in steps)


@pytest.mark.parametrize(
    "chem_id", ["chlorine", "hydrogen_cyanide", "hydrogen_sulfide", "carbon_monoxide"]
)
def test_own_protection_steps_name_respiratory_protection(kb, bundled, chem_id):
    text = _text(_chemical_steps(kb, bundled, chem_id), "protection", own_only=True)
    assert any(word in text for word in RESPIRATORY), text


def test_sarin_protection_names_scba_and_the_protection_level(kb, bundled):
    # the sarin card's equipment section could not be read: the general CBRN line covers it
    text = _text(_chemical_steps(kb, bundled, "sarin_gb"), "protection")
    assert "SCBA" in text and "Level A" in text


@pytest.mark.parametrize("chem_id", ["chlorine", "hydrogen_cyanide", "adamsite_dm"])
def test_agent_cards_name_the_level_a_suit(kb, bundled, chem_id):
    text = _text(_chemical_steps(kb, bundled, chem_id), "protection", own_only=True)
    assert "Level A" in text and "SCBA" in text


def test_carbon_monoxide_gets_oxygen_and_removal_from_the_source(kb, bundled):
    co = _chemical_steps(kb, bundled, "carbon_monoxide")
    assert "100% oxygen" in _text(co, "treatment", own_only=True)
    assert "fresh air" in _text(co, "first_aid", own_only=True)


def test_hydrogen_cyanide_gets_oxygen_and_antidotes(kb, bundled):
    text = _text(_chemical_steps(kb, bundled, "hydrogen_cyanide"), "treatment", own_only=True)
    assert "100% oxygen" in text and "antidote" in text


@pytest.mark.parametrize("chem_id", ["chlorine", "phosgene", "nitrogen_dioxide"])
def test_lung_damaging_gases_warn_that_effects_may_be_delayed(kb, bundled, chem_id):
    result = _chemical_steps(kb, bundled, chem_id)
    text = " ".join(_text(result, kind, own_only=True) for kind in STEP_KINDS)
    assert "delayed" in text, text


def test_phosgene_warns_of_fluid_in_the_lungs_for_up_to_two_days(kb, bundled):
    text = _text(_chemical_steps(kb, bundled, "phosgene"), "treatment", own_only=True)
    assert "48 hours" in text and "fluid in the lungs" in text


def test_fifteen_to_thirty_minutes_only_for_the_agents_it_is_true_of(kb, bundled):
    short_lived = {
        "cs_chlorobenzylidenemalononitrile",
        "cn_chloroacetophenone",
        "oleoresin_capsicum_oc_pepper_spray",
    }
    members = {chemical_key(c) for c in kb.chemicals_in_class("riot_control")}
    assert short_lived < members and {"adamsite_dm", "cr_dibenzoxazepine"} < members
    for chem_id in members:
        result = _chemical_steps(kb, bundled, chem_id)
        texts = " ".join(_text(result, kind) for kind in STEP_KINDS)
        assert ("15-30 minutes" in texts) == (chem_id in short_lived), chem_id
    adamsite = _chemical_steps(kb, bundled, "adamsite_dm")
    assert "death" in _text(adamsite, "first_aid", own_only=True)


def test_oxime_timing_keeps_depending_on_the_agent(bundled):
    nerve = bundled.for_result(["nerve_agents"])
    assert "depending on the agent" in _text(nerve, "treatment")


def test_naloxone_is_instructed_not_just_described(bundled):
    opioids = bundled.for_result(["opioids"])
    text = _text(opioids, "first_aid") + " " + _text(opioids, "treatment")
    assert "call 911" in text and "Give naloxone" in text and "more than one dose" in text


def test_fentanyl_protection_is_tiered_by_what_is_seen(bundled):
    text = _text(bundled.for_result(["opioids"]), "protection")
    assert "nitrile gloves" in text and "P100" in text and "do not enter" in text


def test_cyanogenic_acrylonitrile_names_its_cyanide(kb, bundled):
    text = _text(_chemical_steps(kb, bundled, "acrylonitrile"), "treatment", own_only=True)
    assert "cyanide" in text


def test_lewisite_names_its_antidote(kb, bundled):
    text = _text(_chemical_steps(kb, bundled, "lewisite_l"), "treatment", own_only=True)
    assert "dimercaprol" in text


def test_ricin_warns_of_the_delay_and_that_there_is_no_antidote(kb, bundled):
    result = _chemical_steps(kb, bundled, "ricin")
    warnings = " ".join(s.text for s in result.hallmarks)
    assert "4-12 hours" in warnings and "no antidote" in warnings
    assert "soap and water" in _text(result, "decontamination", own_only=True)
    assert any(word in _text(result, "protection", own_only=True) for word in RESPIRATORY)
    # the class has no step of its own: its recorded gap still shows
    assert [g.class_id for g in result.gaps] == ["cytotoxic_agents"]


def test_abrin_has_no_steps_of_its_own_and_says_why(kb, bundled):
    result = _chemical_steps(kb, bundled, "abrin")
    assert not result.specific and not result.hallmarks
    assert "abrin" in result.gaps[0].reason


def test_the_bundled_steps_are_read_beside_the_bundled_knowledge_base(kb, tmp_path, monkeypatch):
    """The bundled file comes from where the bundled knowledge base is read (a checkout's
    kb/), not from whatever an editable install elsewhere maps as the package's data."""
    import responder.kb.loader as loader

    (tmp_path / "next_steps.toml").write_text(
        GOOD_SOURCE
        + '[[step]]\nfor = "any"\nkind = "first_aid"\ntext = "From this folder."\nsource = "s1"\n',
        encoding="utf-8",
    )
    monkeypatch.setattr(loader, "bundled_root", lambda: tmp_path)
    assert [s.text for s in load_next_steps(kb).steps] == ["From this folder."]


def test_every_nerve_agent_opens_with_a_warning_that_it_can_kill_fast(kb, bundled):
    members = [chemical_key(c) for c in kb.chemicals_in_class("nerve_agents")]
    assert {"sarin_gb", "vx"} <= set(members)
    for chem_id in members:
        first = _chemical_steps(kb, bundled, chem_id).hallmarks
        assert any("rapidly fatal" in s.text and "skin" in s.text for s in first), chem_id
    # the class alone (a class result) warns too
    assert any("rapidly fatal" in s.text for s in bundled.for_result(["nerve_agents"]).hallmarks)


def test_sarin_warns_that_liquid_acts_later_than_vapour(kb, bundled):
    warnings = " ".join(s.text for s in _chemical_steps(kb, bundled, "sarin_gb").hallmarks)
    assert "seconds" in warnings and "vapour" in warnings and "hours" in warnings


def test_hydrogen_sulfide_warns_that_rescuers_have_died_even_before_it_is_confident(kb, bundled):
    # ATSDR: rescuers entering the hot zone have died; a warning, so it leads every result
    # hydrogen sulfide leads, also while no candidate is confident
    confident = _chemical_steps(kb, bundled, "hydrogen_sulfide").hallmarks
    assert any("rescuers" in s.text.lower() and "SCBA" in s.text for s in confident)
    unsure = bundled.common_to(
        ["cellular_asphyxiants", "irritant_gases"],
        leader=["hydrogen_sulfide"],
        leader_class="cellular_asphyxiants",
    )
    assert any("SCBA" in s.text for s in unsure.hallmarks)


def test_first_holds_one_step_of_each_kind_protection_first_and_the_rest_follow(kb, bundled):
    steps = _chemical_steps(kb, bundled, "sarin_gb")
    first = steps.first
    assert [s.kind for s in first] == ["protection", "first_aid", "treatment", "decontamination"]
    # each kind's first step: the chemical's own before its class's before the general one
    assert first[0].targets == ("sarin_gb",)
    assert "atropine" in first[2].text
    rest = steps.rest_by_kind()
    shown = [*first, *(s for v in rest.values() for s in v)]
    assert sorted(map(id, shown)) == sorted(id(s) for v in steps.by_kind.values() for s in v)


@pytest.mark.parametrize("chem_id", [None, "sulfur_dioxide", "hydrogen_chloride"])
def test_an_irritant_gas_result_opens_its_first_aid_with_getting_to_fresh_air(kb, bundled, chem_id):
    # the class's "little irritation does not rule out exposure" is a warning, shown first,
    # and must not stand in front of the action: get out of the gas
    steps = (
        bundled.for_result(["irritant_gases"])
        if chem_id is None
        else _chemical_steps(kb, bundled, chem_id)
    )
    first_aid = next(s for s in steps.first if s.kind == "first_aid")
    assert "fresh air" in first_aid.text
    assert any("does not rule out exposure" in s.text for s in steps.hallmarks)


def test_lithium_hydride_is_brushed_off_before_any_water_rinse(kb, bundled):
    # it reacts with water (hydrogen and caustic lithium hydroxide): the NIOSH Pocket Guide
    # says brush, do not wash, so the general water rinse must not be its first skin step
    steps = _chemical_steps(kb, bundled, "lithium_hydride")
    decon = next(s for s in steps.first if s.kind == "decontamination")
    assert "brush" in decon.text.lower() and "lithium_hydride" in decon.targets
    texts = [s.text for s in steps.by_kind["decontamination"]]
    rinse = next(k for k, t in enumerate(texts) if "running water" in t)
    assert texts.index(decon.text) < rinse


def test_soman_warns_that_even_a_low_dose_kills_and_the_antidote_cannot_wait(kb, bundled):
    # the NRT guide's onset section, a warning of soman's own above the class's antidote line
    warnings = " ".join(s.text for s in _chemical_steps(kb, bundled, "soman_gd").hallmarks)
    assert "low dose" in warnings and "antidote at once" in warnings
    sarin = " ".join(s.text for s in _chemical_steps(kb, bundled, "sarin_gb").hallmarks)
    assert "soman" not in sarin


def test_phosphine_warns_that_phosphide_on_victims_and_in_vomit_gives_off_the_gas(kb, bundled):
    # aluminium phosphide swallowed: the vomit and any solid on the victim release phosphine
    # with water or moisture (ATSDR); the gas alone is little risk to others
    steps = _chemical_steps(kb, bundled, "phosphine")
    protect = next(s for s in steps.first if s.kind == "protection")
    assert "phosphine" in protect.targets
    assert "vomit" in protect.text and "water" in protect.text
    assert "odour" in _text(steps, "protection", own_only=True)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("garbage [[[\n", "next_steps.toml:1: not valid TOML"),
        ("[[x]]\n", 'next_steps.toml: unknown key "x"'),
    ],
)
def test_kb_check_reports_a_next_steps_file_the_result_screen_would_refuse(
    tmp_path, monkeypatch, capsys, text, problem
):
    """'kb check' said OK while 'kb steps' and the result screen said 'next steps not
    shown': the file was checked only when a result was shown."""
    import shutil  # noqa: PLC0415

    from responder.cli import main  # noqa: PLC0415

    monkeypatch.setenv("RESPONDER_HOME", str(tmp_path / "home"))
    folder = tmp_path / "kb"
    shutil.copytree(bundled_root(), folder, ignore=shutil.ignore_patterns("cases", "__pycache__"))
    assert main(["kb", "check", str(folder)]) == 0
    capsys.readouterr()
    (folder / "next_steps.toml").write_text(text, encoding="utf-8")
    assert main(["kb", "check", str(folder)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and problem in err


def test_a_step_for_a_route_that_is_not_one_is_named_with_its_line(kb):
    for route in ('"route_sea"', '"cough"', '["route_skin"]'):
        body = (
            f'[[step]]\nfor = "any"\nkind = "first_aid"\ntext = "x"\nroute = {route}\n'
            'source = "s1"\n'
        )
        with pytest.raises(KBError) as err:
            parse(kb, body)
        (issue,) = [i for i in err.value.issues if "is not a route of exposure" in i.problem]
        assert issue.line == 6 and "route_inhaled" in issue.fix
    ok = parse(
        kb,
        '[[step]]\nfor = "any"\nkind = "first_aid"\ntext = "x"\nroute = "route_skin"\n'
        'source = "s1"\n',
    )
    assert ok.steps[0].route == "route_skin"


def test_the_victims_routes_put_their_own_steps_first_and_drop_none(kb, bundled):
    """Hydrofluoric acid splashed on the hand: the general first-aid step is for a victim who
    breathed it in, so it leaves the steps to act on first; rinsing the skin leads the
    decontamination. Breathed in, the reverse. Without a route, as before."""
    plain = bundled.for_chemicals([kb.chemical("Hydrogen fluoride")])
    fresh_air = next(s for s in plain.by_kind["first_aid"] if s.route == "route_inhaled")
    rinse_skin = next(s for s in plain.by_kind["decontamination"] if s.route == "route_skin")
    assert fresh_air in plain.first

    def first_of(steps, kind):
        return next(s for s in steps.first if s.kind == kind)

    splashed = plain.for_routes(["route_skin"])
    assert fresh_air not in splashed.first and fresh_air in splashed.rest_by_kind()["first_aid"]
    assert first_of(splashed, "decontamination") == rinse_skin
    every = lambda steps: sorted(s.text for v in steps.by_kind.values() for s in v)  # noqa: E731
    assert every(splashed) == every(plain)

    breathed = plain.for_routes(["route_inhaled"])
    assert fresh_air in breathed.first
    assert first_of(breathed, "decontamination").route != "route_skin"
    assert breathed.by_kind["decontamination"][-1].route == "route_skin"
    assert plain.for_routes([]) is plain


def test_a_victim_splashed_with_hydrofluoric_acid_reads_the_acids_own_warning_first(bundled):
    """QA round 13: the irritant gases' warning (little eye or throat irritation does not
    rule out a deep-lung agent) is about gases breathed in; for a victim splashed on the
    skin it came before the acid's own warning."""
    hf = bundled.for_result(["irritant_gases"], ["hydrogen_fluoride"])
    lung = next(s for s in hf.hallmarks if "deep-lung" in s.text)
    assert lung.route == "route_inhaled"
    splashed = hf.for_routes(["route_skin"])
    assert splashed.hallmarks[0] is not lung and splashed.hallmarks[-1] is lung
    assert hf.for_routes(["route_inhaled"]).hallmarks.index(lung) == hf.hallmarks.index(lung)


def test_tear_gas_first_aid_is_an_action_and_warns_of_an_enclosed_space(kb, bundled):
    """QA round 13: CS's first first-aid line was a prognosis ("effects usually last only
    15-30 minutes"), and no step warned of a large dose in an enclosed space (CDC: airway and
    lung oedema, possibly respiratory arrest), which the page says of CN, CS, CA and CR."""
    by_id = {c.id: c for c in kb.chemicals}
    for chem_id in ("cs_chlorobenzylidenemalononitrile", "cr_dibenzoxazepine"):
        steps = bundled.for_chemicals([by_id[chem_id]])
        first_aid = [s.text for s in steps.by_kind["first_aid"]]
        assert any("enclosed space" in t and "stop breathing" in t for t in first_aid)
    cs = bundled.for_chemicals([by_id["cs_chlorobenzylidenemalononitrile"]])
    assert cs.first[[s.kind for s in cs.first].index("first_aid")].text.startswith("Get away")
    pepper = bundled.for_chemicals([by_id["oleoresin_capsicum_oc_pepper_spray"]])
    assert not any("enclosed space" in s.text for s in pepper.by_kind["first_aid"])


@pytest.mark.parametrize("chem_id, delay", [("chlorine", "4 hours"), ("phosgene", "72 hours")])
def test_the_lung_agents_get_oxygen_for_breathing_trouble(kb, bundled, chem_id, delay):
    """The next-steps audit: no step gave oxygen for chlorine or phosgene. Their NRT quick
    reference guides do (first aid for the gas: keep the airway clear, oxygen if breathing
    becomes difficult; effects may be delayed), for victims who breathed the gas in."""
    by_id = {c.id: c for c in kb.chemicals}
    steps = bundled.for_chemicals([by_id[chem_id]])
    (oxygen,) = [s for s in steps.by_kind["treatment"] if "oxygen" in s.text]
    assert delay in oxygen.text and "no antidote" in oxygen.text
    assert oxygen.route == "route_inhaled" and oxygen.source.id.startswith("nrt_qrg_")
