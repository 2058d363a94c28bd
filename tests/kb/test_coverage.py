"""Every agent listed here is in the bundled knowledge base with its CAS number."""

from __future__ import annotations

import pytest

from responder.kb import load_bundled

#: Agent -> CAS number as CDC / NIOSH give it (paraquat is listed as its dichloride salt).
AGENTS = {
    "brodifacoum": "56073-10-0",
    "sodium monofluoroacetate (compound 1080)": "62-74-8",
    "colchicine": "64-86-8",
    "osmium tetroxide": "20816-12-0",
    "paraquat": "1910-42-5",
    "nicotine": "54-11-5",
    "stibine": "7803-52-3",
    "white phosphorus": "7723-14-0",
    "phosgene oxime": "1794-86-1",
    "sulfuryl fluoride": "2699-79-8",
    "chloropicrin": "76-06-2",
    "bromine": "7726-95-6",
    "mercury": "7439-97-6",
    "adamsite": "578-94-9",
    "ricin": "9009-86-3",
    "abrin": "1393-62-0",
}


@pytest.fixture(scope="module")
def by_cas():
    return {c.cas: c for c in load_bundled().chemicals}


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_agent_is_present_with_its_cas(by_cas, agent):
    chem = by_cas.get(AGENTS[agent])
    assert chem is not None, f"{agent} ({AGENTS[agent]}) is missing"
    first_word = agent.split()[0].replace("monofluoroacetate", "fluoroacetate")
    assert first_word.split("(")[0] in chem.name.lower()


def test_new_agents_record_what_was_read(by_cas):
    for cas in ("56073-10-0", "64-86-8", "7723-14-0"):
        chem = by_cas[cas]
        assert chem.evidence and all(e.url.startswith("https://") for e in chem.evidence)
    # brodifacoum and colchicine: every cell read in CDC's case definitions
    assert by_cas["56073-10-0"].source_checked and by_cas["64-86-8"].source_checked
    assert by_cas["64-86-8"].class_id == "cytotoxic_agents"
    assert "vomiting_blood" in by_cas["56073-10-0"].symptoms


def test_ricin_and_abrin_join_colchicine_and_are_found_by_their_plants(by_cas):
    kb = load_bundled()
    for cas, plant in (("9009-86-3", "castor bean"), ("1393-62-0", "rosary pea")):
        chem = by_cas[cas]
        assert chem.class_id == "cytotoxic_agents" and chem.source_checked
        assert kb.resolve_chemical(plant).cas == cas
        assert {"route_swallowed", "route_inhaled", "plant_material"} <= chem.symptoms
