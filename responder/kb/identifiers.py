"""What names a chemical and its sources: ids, CAS and UN numbers, the public source series,
and the id a chemical's name gives. The knowledge-base loader and the CSV importer use the same
checks; each returns (problem, fix) or None, and the caller says where the value is.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

#: Series outside the agency documents: peer-reviewed articles and named clinical references
#: (StatPearls, Medscape, the MSD Manual...). They may add a cell where they name the sign for
#: the agent, but such a cell counts as unverified (occasional), never common or hallmark.
SUPPLEMENTARY_SERIES = ("Peer-reviewed", "Clinical reference")
#: The public source series a bundled chemical's sources and evidence titles must start with
#: ("<SERIES>: <title>"): the agency documents (ICSC for facts only), then the supplementary ones.
SOURCE_SERIES = (
    "ATSDR MMG",
    "ATSDR ToxFAQs",
    "NIOSH NPG",
    "CDC ERSH-DB",
    "CDC",
    "CHEMM",
    "NRT",
    "ICSC",
    "CAMEO Chemicals",
    "EPA",
    *SUPPLEMENTARY_SERIES,
)

ID_RE = re.compile(r"^[a-z0-9][a-z0-9_]*$")
ID_FIX = 'use lower-case letters, digits and "_" only, e.g. "shortness_of_breath"'
_CAS_RE = re.compile(r"^(\d{2,7})-(\d{2})-(\d)$")
_UN_RE = re.compile(r"^\d{4}$")
_SERIES_RE = re.compile(r"^(" + "|".join(re.escape(s) for s in SOURCE_SERIES) + r"): \S")


def is_supplementary(title: str) -> bool:
    """Whether a source title names a supplementary series (its cells stay unverified)."""
    return title.startswith(tuple(f"{series}: " for series in SUPPLEMENTARY_SERIES))


def cas_check_digit(body: str) -> int:
    """Check digit of a CAS number from its digits without the check digit.

    Each digit is multiplied by its position counted from the right (1, 2, ...); the sum
    mod 10 is the check digit. ``body`` is e.g. ``"778250"`` for 7782-50-5.
    """
    return sum(int(d) * k for k, d in enumerate(reversed(body), start=1)) % 10


def cas_problem(cas: str) -> tuple[str, str] | None:
    """(problem, fix) if ``cas`` is not a well-formed CAS number with a correct check digit."""
    m = _CAS_RE.match(cas)
    if not m:
        return (
            f'CAS number "{cas}" is malformed',
            'write it as 2-7 digits, 2 digits and 1 check digit joined by "-", e.g. "7782-50-5"',
        )
    expected = cas_check_digit(m.group(1) + m.group(2))
    if expected != int(m.group(3)):
        return (
            f'CAS number "{cas}" has check digit {m.group(3)} but its digits give {expected}',
            f"check the number in the source; if the other digits are right it is "
            f'"{m.group(1)}-{m.group(2)}-{expected}"',
        )
    return None


def un_problem(un: str, csv_cell: bool = False) -> tuple[str, str] | None:
    """(problem, fix) if ``un`` is not a 4-digit UN/NA number; the fix speaks of a TOML key,
    or with ``csv_cell`` of a CSV file's cell."""
    if _UN_RE.match(un):
        return None
    digits = re.sub(r"\D", "", un)
    example = f'"{digits}"' if len(digits) == 4 else '"1017"'
    if csv_cell:
        fix = f"write the 4 digits only, e.g. {example}; leave the cell empty if there is none"
    else:
        fix = (
            f"write the 4 digits only, as a quoted string, e.g. {example}; leave the key out "
            "if there is none"
        )
    return (f'UN number "{un}" is malformed', fix)


def source_problem(source: str, strict: bool) -> tuple[str, str] | None:
    """(problem, fix) if a source text is empty, or (strict) names none of the public series."""
    if not source.strip():
        return ("a source is empty", "write the document the symptoms come from")
    if strict and not _SERIES_RE.match(source):
        series = ", ".join(f'"{s}: "' for s in SOURCE_SERIES)
        return (
            f'source "{source}" does not name one of the public source series',
            f"start it with one of {series} followed by the document title",
        )
    return None


#: British spellings and the American ones names are compared in (lower case; each is
#: replaced wherever it stands in a word, so "methaemoglobin", "disulphide" and "malodour"
#: are folded too). Only spellings no other English word holds: not "ae" or "our" alone.
BRITISH_SPELLINGS = (
    ("sulph", "sulf"),
    ("aluminium", "aluminum"),
    ("caesium", "cesium"),
    ("haem", "hem"),
    ("oedem", "edem"),
    ("diarrhoe", "diarrhe"),
    ("aemi", "emi"),  # anaemia, leukaemia, septicaemia, hypoxaemic
    ("anaesth", "anesth"),
    ("oesophag", "esophag"),
    ("ischaem", "ischem"),
    ("paediatr", "pediatr"),
    ("foetid", "fetid"),
    ("faec", "fec"),
    ("odour", "odor"),
    ("colour", "color"),
    ("vapour", "vapor"),
    ("tumour", "tumor"),
    ("paralys", "paralyz"),
)
#: Whole words spelt two ways ("grey smoke", "litre").
BRITISH_WORDS = {"grey": "gray", "litre": "liter", "litres": "liters", "centre": "center"}
_BRITISH = re.compile("|".join(b for b, _ in BRITISH_SPELLINGS))
_AMERICAN = dict(BRITISH_SPELLINGS)
_BRITISH_WORD = re.compile(r"\b(?:" + "|".join(BRITISH_WORDS) + r")\b")


def american_spelling(text: str) -> str:
    """Lower-case ``text`` with British spellings in their American form ("hydrogen
    sulphide" -> "hydrogen sulfide", "aluminium" -> "aluminum", "odour" -> "odor"), so
    a name typed either way is one name (:func:`fold_name`, :func:`chemical_key`). "paralys"
    -> "paralyz" makes "paralysed" and "paralyzed" one word ("paralysis" -> "paralyzis":
    both folded alike, so still found)."""
    text = _BRITISH.sub(lambda m: _AMERICAN[m.group(0)], text)
    return _BRITISH_WORD.sub(lambda m: BRITISH_WORDS[m.group(0)], text)


@lru_cache(maxsize=8192)  # the same names are folded at every keystroke of a search
def fold_name(text: str) -> str:
    """A name as the search and the interview protocol compare names: lower case, accents
    dropped, every run of characters other than letters and digits (of any script) one
    space, British spellings in their American form (:func:`american_spelling`). So
    "Yellow-green cloud" and "yellow green cloud" are one name, an id written as words
    ("shortness of breath") is its id, "odour of bleach" is "odor of bleach", and "头痛"
    stays "头痛"."""
    bare = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return american_spelling(" ".join(re.sub(r"[\W_]+", " ", bare.casefold()).split()))


def chemical_key(name: str) -> str:
    """A chemical's name, id or CAS number as names that a user types are looked up: its
    :func:`chemical_slug` in American spelling, so "Hydrogen sulphide", "hydrogen-sulfide"
    and "hydrogen_sulfide" are one key ("hydrogen sulfide": words apart, as
    :func:`american_spelling` reads whole words)."""
    return american_spelling(chemical_slug(name).replace("_", " "))


def chemical_slug(name: str) -> str:
    """The default chemical id: the name in lower-case ASCII, other runs of characters "_".

    ``"Sarin (GB)"`` gives ``"sarin_gb"``; accents are dropped (``"Ä"`` -> ``"a"``).
    """
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", ascii_name.casefold()).strip("_")
