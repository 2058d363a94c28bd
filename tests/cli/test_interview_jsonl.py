"""The headless JSON-lines interview protocol on the bundled knowledge base."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from responder.cli.interview import Protocol, serve
from responder.config import InterviewConfig, NoiseSettings
from responder.core.session import Interview
from responder.kb.resolve import resolve_kb

# the scene issue's phrases and scenarios, kept once, in the script that measures its targets
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import scene_targets  # noqa: E402

KB = resolve_kb(None)
TOP_KEYS = {"status", "asked", "confidence", "suggestion", "candidates", "classes"}


def protocol(mode="evidence", target="chemical", suggest="symptom", eps=None):
    config = InterviewConfig(target, suggest, mode, NoiseSettings(enabled=mode == "noise", eps=eps))
    return Protocol(KB, Interview(KB, config))


def run_lines(lines, mode="evidence", target="chemical", suggest="symptom", eps=None):
    out = io.StringIO()
    serve(
        protocol(mode, target, suggest, eps),
        io.StringIO("".join(line + "\n" for line in lines)),
        out,
    )
    return [json.loads(x) for x in out.getvalue().splitlines()]


def answer(symptom, value):
    return json.dumps({"symptom": symptom, "answer": value})


def test_one_object_at_start_and_one_per_line():
    lines = [answer("cough", "yes"), "oops", "", answer("tearing", "no"), '{"undo": true}']
    replies = run_lines(lines)
    assert len(replies) == 1 + len(lines)
    assert [("error" in r) for r in replies] == [False, False, True, True, False, False]
    assert replies[-1] == replies[1]  # undo restores the state after the first answer


def test_a_byte_order_mark_before_the_first_line_is_accepted():
    """Windows tools start UTF-8 text with a BOM: the first line was an error in Python's
    words ("Unexpected UTF-8 BOM (decode using utf-8-sig)")."""
    replies = run_lines(["\ufeff" + answer("cough", "yes"), answer("tearing", "no")])
    assert not [r for r in replies if "error" in r] and replies[-1]["asked"] == 2
    # one inside the input is still refused, in the protocol's words
    [*_, later] = run_lines([answer("cough", "yes"), "\ufeff" + answer("tearing", "no")])
    assert "error" in later and "utf-8-sig" not in later["error"]


def test_a_byte_order_mark_on_real_stdin_is_accepted():
    done = subprocess.run(
        [sys.executable, "-m", "responder.cli", "interview", "--jsonl"],
        input=b"\xef\xbb\xbf" + answer("cough", "yes").encode() + b"\n",
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    last = json.loads(done.stdout.decode().splitlines()[-1])
    assert "error" not in last and last["asked"] == 1


def test_snapshot_shape_and_order():
    first, after = run_lines([answer("cough", "yes")])
    for r in (first, after):
        assert TOP_KEYS <= set(r)
        assert r["status"] == "asking"
        probs = [c["probability"] for c in r["candidates"]]
        assert probs == sorted(probs, reverse=True)
        # each is rounded to 6 decimals: the sum is 1 to within half a unit per candidate
        assert sum(probs) == pytest.approx(1.0, abs=len(probs) * 5e-7 + 1e-9)
        # Evidence mode lists every chemical: nothing is eliminated.
        assert sum(len(c["chemicals"]) for c in r["candidates"]) == len(KB.chemicals)
        cls = [c["probability"] for c in r["classes"]]
        assert cls == sorted(cls, reverse=True) and len(cls) == len(KB.classes)
        assert r["confidence"] == pytest.approx(probs[0], abs=1e-6)
        chem = r["candidates"][0]["chemicals"][0]
        assert set(chem) == {"id", "name", "cas"}
    assert after["asked"] == 1
    s = after["suggestion"]
    assert s["kind"] == "symptom" and s["category"] is None and "cough" not in s["symptoms"]
    against = {c["chemicals"][0]["name"]: c["answers_against"] for c in after["candidates"]}
    lists_cough = {c.name for c in KB.chemicals if "cough" in c.symptoms}
    for name, ids in against.items():
        assert ids == ([] if name in lists_cough else ["cough"])


def test_labels_and_case_resolve_and_unknown_symptoms_are_errors():
    label = KB.symptoms[0].label
    replies = run_lines(
        [
            answer(label.upper(), "yes"),
            answer("glowing_ears", "yes"),
            answer(KB.symptoms[0].id, "maybe"),
            json.dumps({"symptom": 3, "answer": "yes"}),
            '{"undo": true, "x": 1}',
            "[1, 2]",
            "{" * 100000,
        ]
    )
    assert replies[1]["asked"] == 1
    assert 'no symptom is called "glowing_ears"' in replies[2]["error"]
    assert "yes" in replies[3]["error"] and "must be a string" in replies[4]["error"]
    assert "undo" in replies[5]["error"] and "JSON object" in replies[6]["error"]
    assert "error" in replies[7]
    for r in replies[2:]:
        assert list(r) == ["error"] and "\n" not in r["error"]


def test_undo_with_nothing_to_undo():
    replies = run_lines(['{"undo": true}'])
    assert replies[1] == {"error": "nothing to undo: no answer has been given"}


def chemical_row(name):
    return KB.chemical(name).symptoms


def follow(name, mode, first=None, limit=40, **kw):
    """Answer the suggestions from the chemical's listed signs; optional wrong first answer."""
    proto = protocol(mode, kw.get("target", "chemical"), kw.get("suggest", "symptom"))
    reply = proto.snapshot()
    if first:
        reply = proto.handle(answer(*first))
    listed = chemical_row(name)
    while reply["status"] == "asking" and reply["asked"] < limit:
        sym = reply["suggestion"]["symptoms"][0]
        reply = proto.handle(answer(sym, "yes" if sym in listed else "no"))
    return reply


def test_one_honest_unlisted_sign_does_not_remove_chlorine():
    """A chlorine release: a victim shows a sign chlorine's sources do not list
    (here: the commonest such sign among the other irritant gases). Strict mode removes
    chlorine on that answer; the evidence mode still ends on chlorine."""
    chlorine = KB.chemical("Chlorine")
    others = [c for c in KB.chemicals if c.class_id == chlorine.class_id and c is not chlorine]
    counts = {}
    for c in others:
        for sid in c.symptoms - chlorine.symptoms:
            counts[sid] = counts.get(sid, 0) + 1
    sign = max(sorted(counts), key=counts.get)
    strict = follow("Chlorine", "strict", first=(sign, "yes"))
    assert "Chlorine" not in [ch["name"] for c in strict["candidates"] for ch in c["chemicals"]]
    ev = follow("Chlorine", "evidence", first=(sign, "yes"))
    # ... identified, not "no_fit": one unlisted sign among a dozen listed ones is not a
    # sign of an agent missing from the knowledge base.
    assert ev["status"] == "identified" and ev["stop_reason"] == "confident"
    assert ev["unlisted"] < 0.05
    assert ev["candidates"][0]["chemicals"][0]["name"] == "Chlorine"
    assert ev["candidates"][0]["answers_against"] == [sign]
    assert ev["confidence"] >= 0.95


def test_strict_and_noise_modes_and_class_target_and_categories():
    strict = follow("Chlorine", "strict")
    assert strict["mode"] == "strict" and strict["status"] == "identified"
    assert strict["candidates"][0]["probability"] == 1.0 and len(strict["candidates"]) == 1
    noise = follow("Chlorine", "noise")
    assert noise["mode"] == "noise" and noise["candidates"][0]["chemicals"][0]["name"] == "Chlorine"
    cls = follow("Sarin (GB)", "evidence", target="class")
    assert cls["status"] == "identified" and cls["classes"][0]["class"] == "nerve_agents"
    assert cls["classes"][0]["probability"] >= 0.95
    cat = follow("Chlorine", "evidence", suggest="category")
    assert cat["candidates"][0]["chemicals"][0]["name"] == "Chlorine"
    first = run_lines([], suggest="category")[0]["suggestion"]
    assert first["kind"] == "category" and first["category"] in {c.id for c in KB.categories}
    in_cat = {s.id for s in KB.symptoms if s.category == first["category"]}
    assert set(first["symptoms"]) <= in_cat


def test_strict_no_fit_lists_closest():
    row = chemical_row("Chlorine")
    lines = [answer(s.id, "no" if s.id in row else "yes") for s in KB.symptoms[:12]]
    replies = run_lines(lines, mode="strict")
    last = replies[-1]
    assert last["status"] == "no_fit" and last["suggestion"] is None
    assert last["candidates"] and all(c["probability"] == 0 for c in last["candidates"])


def test_replies_are_flushed_one_per_line():
    proc = subprocess.Popen(
        [sys.executable, "-m", "responder.cli", "interview", "--jsonl"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        start = json.loads(proc.stdout.readline())
        assert start["asked"] == 0
        proc.stdin.write(answer("cough", "yes") + "\n")
        proc.stdin.flush()
        # The reply arrives while stdin is still open.
        assert json.loads(proc.stdout.readline())["asked"] == 1
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
        assert proc.stdout.read() == ""
    finally:
        proc.kill()


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--sensitivity", "1.5"], "--sensitivity: sensitivity is 1.5"),
        (["--leak", "0"], "--leak: leak is 0"),
        (["--threshold", "0.5"], "--threshold: threshold is 0.5"),
        (["--threshold", "1"], "strictly between 0.5 and 1"),
        (["--sensitivity", "abc"], "sensitivity must be a number"),
        # it said "--eps: --eps applies only to --mode noise", and not what to do
        (
            ["--mode", "strict", "--eps", "2"],
            "--eps: it applies only to --mode noise, not --mode strict; leave --eps out, or "
            "give --mode noise",
        ),
        (["--mode", "noise", "--eps", "-1"], "eps is -1"),
        (["--mode", "noise", "--eps", "\u00b2"], "--eps: eps is \u00b2; give a whole number"),
    ],
)
def test_bad_options_exit_2_with_one_message(args, fragment):
    proc = subprocess.run(
        [sys.executable, "-m", "responder.cli", "interview", "--jsonl", *args],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert fragment in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert proc.stdout == ""


def test_synonyms_and_retired_ids_are_accepted():
    with_alias = next(s for s in KB.symptoms if s.aliases)
    with_synonym = next(s for s in KB.symptoms if s.synonyms and s is not with_alias)
    replies = run_lines(
        [answer(with_alias.aliases[0], "yes"), answer(with_synonym.synonyms[0].upper(), "no")]
    )
    assert replies[2]["asked"] == 2 and "error" not in replies[1]
    against = {c["chemicals"][0]["id"]: c["answers_against"] for c in replies[2]["candidates"]}
    # Answers are reported under the current ids.
    assert any(with_alias.id in ids for ids in against.values())
    assert all(with_alias.aliases[0] not in ids for ids in against.values())


def test_an_id_written_as_words_is_the_id_as_in_the_app_search():
    """A responder types "shortness of breath" or "blurred vision", not the id: the protocol
    reads a name as `/` does (case, punctuation and "_" against spaces ignored)."""
    replies = run_lines([answer("shortness of breath", "yes"), answer("Blurred-Vision", "no")])
    assert "error" not in replies[1] and "error" not in replies[2]
    assert [a["symptom"] for a in replies[2]["answers"]] == [
        "shortness_of_breath",
        "blurred_vision",
    ]
    assert [a["answer"] for a in replies[2]["answers"]] == ["yes", "no"]


def test_no_reported_symptom_is_suggested_once_the_victim_is_unconscious():
    reported = {s.id for s in KB.symptoms if s.observation == "reported"}
    assert reported
    before = run_lines([])[0]["suggestion"]["symptoms"]
    assert set(before) & reported  # a conscious victim may be asked about them
    for suggest in ("symptom", "category"):
        replies = run_lines([answer("unconscious", "yes")], suggest=suggest)
        after = replies[1]["suggestion"]["symptoms"]
        assert after and not set(after) & reported


def test_answers_no_listed_chemical_explains_end_as_no_fit():
    """Yes to every symptom: no chemical lists them all, an unlisted agent explains them
    better, so the interview ends "no_fit" (never "identified") and still ranks everything.
    (A yes takes out an earlier one it contradicts, one pupil size for another; unconscious
    takes out walking and talking, which reopens the arrests it had settled.)"""
    reopened = ("cardiac_arrest", "respiratory_arrest")
    replies = run_lines(
        [answer(s.id, "yes") for s in KB.symptoms] + [answer(s, "yes") for s in reopened]
    )
    assert all(r["status"] != "identified" for r in replies)
    last = replies[-1]
    assert last["status"] == "no_fit" and last["stop_reason"] == "no_fit"
    assert last["suggestion"] is None and last["unlisted"] > 0.5
    probs = [c["probability"] for c in last["candidates"]]
    assert sum(probs) == pytest.approx(1.0, abs=1e-4) and probs == sorted(probs, reverse=True)
    assert len(last["candidates"][0]["answers_against"]) > 0
    assert replies[0]["unlisted"] == pytest.approx(0.1)  # the prior, before any answer
    strict = run_lines([answer(s.id, "yes") for s in KB.symptoms[:3]], mode="strict")
    assert strict[-1]["unlisted"] is None


# -- scene observations, implied answers, several victims ------------------------------------


def test_every_scene_phrase_is_answered_as_a_scene_observation():
    """The scene phrases a responder uses: each names one scene observation."""
    phrases = scene_targets.SCENE_PHRASES
    assert len(phrases) == 64
    lines = []
    for phrase in phrases:
        lines += [answer(phrase, "yes"), '{"undo": true}']
    replies = run_lines(lines)[1:]
    scene_ids = {s.id for s in KB.symptoms if s.kind == "scene"}
    for phrase, reply in zip(phrases, replies[0::2]):
        assert "error" not in reply, (phrase, reply)
        (given,) = [a for a in reply["answers"] if not a.get("implied")]
        assert given["symptom"] in scene_ids, (phrase, given)


def test_every_state_lists_the_answers_in_order_with_the_implied_ones_marked():
    replies = run_lines([answer("cough", "yes"), answer("walking", "yes"), answer("miosis", "yes")])
    last = replies[-1]
    given = [a for a in last["answers"] if not a.get("implied")]
    assert given == [
        {"symptom": "cough", "answer": "yes"},
        {"symptom": "walking_talking", "answer": "yes"},
        {"symptom": "pinpoint_pupils", "answer": "yes"},
    ]
    implied = {a["symptom"]: a["answer"] for a in last["answers"] if a.get("implied")}
    # walking implies conscious, breathing, with a pulse; small pupils are not wide ones
    assert implied == {
        "unconsciousness": "no",
        "cardiac_arrest": "no",
        "respiratory_arrest": "no",
        "dilated_pupils": "no",
    }
    # an implied answer is never suggested
    assert not set(implied) & set(last["suggestion"]["symptoms"])


def test_a_scene_answer_settles_what_it_implies():
    last = run_lines([answer("white powder", "yes"), answer("rescuers affected", "yes")])[-1]
    implied = {a["symptom"]: a["answer"] for a in last["answers"] if a.get("implied")}
    # a powder is a solid; rescuers who fall ill make several victims
    assert implied == {"state_solid": "yes", "pattern_several_victims": "yes"}
    assert not set(implied) & set(last["suggestion"]["symptoms"])


def test_two_victims_are_pooled_and_the_scene_is_shared():
    alone = run_lines([answer("miosis", "yes"), answer("subway", "yes")])[-1]
    two = run_lines(
        [
            answer("miosis", "yes"),
            json.dumps({"symptom": "drooling", "answer": "yes", "victim": "driver"}),
            json.dumps({"symptom": "subway", "answer": "yes", "victim": "driver"}),
        ]
    )[-1]
    assert [v["name"] for v in two["victims"]] == ["victim 1", "driver"]
    first, driver = two["victims"]
    # the scene fact belongs to the incident: both victims show it
    assert {"symptom": "setting_public_place", "answer": "yes"} in first["answers"]
    assert {"symptom": "setting_public_place", "answer": "yes"} in driver["answers"]
    assert {"symptom": "drooling", "answer": "yes"} in driver["answers"]
    assert {"symptom": "drooling", "answer": "yes"} not in first["answers"]
    # adding the driver answered "several victims" for the incident, counted as an answer
    assert {"symptom": "pattern_several_victims", "answer": "yes"} in first["answers"]
    assert two["asked"] == 4
    # the driver's drooling is evidence about the one agent: the cholinergic classes gain
    cholinergic = {"nerve_agents", "cholinesterase_pesticides"}

    def share(reply):
        return sum(c["probability"] for c in reply["classes"] if c["class"] in cholinergic)

    assert share(two) > share(alone)
    assert two["classes"][0]["class"] in cholinergic


def test_a_line_without_a_victim_goes_to_the_first_victim_once_it_is_named():
    """The first name given names the first victim; a later line without "victim" then
    went to a third victim called "victim 1" (the first victim's default name, no longer
    theirs) instead of the first victim, as the protocol documents."""
    replies = run_lines(
        [
            json.dumps({"symptom": "pinpoint pupils", "answer": "yes", "victim": "driver"}),
            json.dumps({"symptom": "drooling", "answer": "yes", "victim": "passenger"}),
            answer("sweating", "yes"),
        ]
    )
    last = replies[-1]
    assert [v["name"] for v in last["victims"]] == ["driver", "passenger"]
    driver = [a["symptom"] for a in last["victims"][0]["answers"] if not a.get("implied")]
    assert "pinpoint_pupils" in driver and "sweating" in driver
    assert last["asked"] == 4  # the two signs of the driver, the passenger's, "several ill"


def test_a_victim_name_that_is_not_text_is_one_error():
    (reply,) = run_lines([json.dumps({"symptom": "cough", "answer": "yes", "victim": 3})])[1:]
    assert "victim must be a name" in reply["error"]


def test_a_key_given_twice_in_one_line_is_one_error_and_answers_nothing():
    """{"symptom": "runny nose", ..., "symptom": "cough"} silently answered cough (JSON
    readers keep the last), as the interchange JSON refuses such an object."""
    line = '{"symptom": "runny nose", "answer": "yes", "symptom": "cough"}'
    _, reply, after = run_lines([line, answer("drooling", "yes")])
    assert "symptom" in reply["error"] and "twice" in reply["error"]
    assert [a["symptom"] for a in after["answers"]] == ["drooling"]


@pytest.mark.parametrize("name", ["", "   "])
def test_a_blank_victim_name_is_one_error_and_adds_no_victim(name):
    """A blank name was taken as a new victim, listed with the name "" (and its answer
    counted as a second victim's, with "several people ill" answered yes for the incident)."""
    line = json.dumps({"symptom": "drooling", "answer": "yes", "victim": name})
    _, _, reply, after = run_lines([answer("cough", "yes"), line, answer("runny nose", "yes")])
    assert "victim" in reply["error"] and "empty" in reply["error"]
    assert [v["name"] for v in after["victims"]] == ["victim 1"]
    assert after["asked"] == 2


@pytest.mark.parametrize("agent, facts", scene_targets.THREE_SCENARIOS)
def test_the_three_scenarios_end_on_their_agent_within_12_answers(agent, facts):
    """A pool plant leak, a family with a heater running and a subway attack: the signs and
    scene facts the responder reports, then each suggestion answered as the agent's
    knowledge-base row says, until the interview stops or 12 answers are given."""
    proto = protocol()
    for fact in facts:
        reply = proto.handle(answer(fact, "yes"))
        assert "error" not in reply, (fact, reply)
    row = chemical_row(agent)
    while reply["status"] == "asking" and reply["asked"] < 12:
        sym = reply["suggestion"]["symptoms"][0]
        reply = proto.handle(answer(sym, "yes" if sym in row else "no"))
    assert reply["asked"] <= 12
    top = reply["candidates"][0]
    assert agent in [c["name"] for c in top["chemicals"]], top
    assert reply["classes"][0]["class"] == KB.chemical(agent).class_id


def run_process(stdin: bytes, *args: str) -> subprocess.CompletedProcess:
    """The protocol as a real process: its stdout is a UTF-8 byte stream, unlike StringIO."""
    return subprocess.run(
        [sys.executable, "-m", "responder.cli", "interview", "--jsonl", *args],
        input=stdin,
        capture_output=True,
        timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )


@pytest.mark.parametrize(
    ("line", "error"),
    [
        (b'{"symptom": "\\ud800", "answer": "yes"}', "holds a lone surrogate (U+D800)"),
        (b'{"symptom": "cough", "answer": "\\udfff"}', "holds a lone surrogate (U+DFFF)"),
        (b'{"\\ud83d": 1}', "holds a lone surrogate (U+D83D)"),
        (b'{"symptom": "\xff\xfe", "answer": "yes"}', "the line is not UTF-8 text"),
        # outside a string: JSON's own words blamed the syntax ("Expecting value")
        (b'{"symptom": "cough", "answer": \xe9"yes"}', "the line is not UTF-8 text"),
        (b'{"symptom": "\\u009b2J", "answer": "yes"}', "holds a control character (U+009B)"),
        (b'{"symptom": "\\u001b[2J", "answer": "yes"}', "holds a control character (U+001B)"),
    ],
    ids=[
        "lone surrogate",
        "surrogate answer",
        "surrogate key",
        "not UTF-8",
        "not UTF-8 outside a string",
        "C1",
        "escape",
    ],
)
def test_a_line_that_is_not_text_gets_one_error_and_the_interview_goes_on(line, error):
    proc = run_process(line + b"\n" + answer("cough", "yes").encode() + b"\n")
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr
    replies = [json.loads(x) for x in proc.stdout.decode("utf-8").splitlines()]
    assert len(replies) == 3
    assert error in replies[1]["error"] and set(replies[1]) == {"error"}
    assert "\x1b" not in replies[1]["error"] and "\x9b" not in replies[1]["error"]
    assert replies[2]["asked"] == 1


def test_utf16_input_is_named_as_such_not_called_invalid_json():
    """Notepad's 'Unicode' and Windows PowerShell write UTF-16: each piece of the line was
    'not valid JSON (Expecting value)'."""
    line = answer("cough", "yes") + "\n"
    # the newline's second byte (NUL) starts a line of its own, ended here
    proc = run_process(line.encode("utf-16") + b"\n" + answer("cough", "yes").encode() + b"\n")
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr
    replies = [json.loads(x) for x in proc.stdout.decode("utf-8").splitlines()]
    errors = [r["error"] for r in replies[1:-1]]
    assert errors and all(
        e == "the line is UTF-16 text, not UTF-8; send one JSON object per line in UTF-8"
        for e in errors
    ), errors
    assert replies[-1]["asked"] == 1


def test_top_limits_the_candidates_of_every_reply():
    out = io.StringIO()
    lines = "".join(x + "\n" for x in [answer("cough", "yes"), answer("headache", "no")])
    serve(Protocol(KB, Interview(KB, InterviewConfig()), top=3), io.StringIO(lines), out)
    limited = [json.loads(x) for x in out.getvalue().splitlines()]
    full = run_lines([answer("cough", "yes"), answer("headache", "no")])
    assert len(limited) == len(full) == 3
    for few, every in zip(limited, full, strict=True):
        assert len(every["candidates"]) > 3
        assert few["candidates"] == every["candidates"][:3]
        assert {k: v for k, v in few.items() if k != "candidates"} == {
            k: v for k, v in every.items() if k != "candidates"
        }


def test_top_on_the_command_line_and_its_bounds():
    proc = run_process(answer("cough", "yes").encode() + b"\n", "--top", "1")
    replies = [json.loads(x) for x in proc.stdout.decode("utf-8").splitlines()]
    assert proc.returncode == 0 and [len(r["candidates"]) for r in replies] == [1, 1]
    proc = run_process(b"", "--top", "0")
    assert proc.returncode == 2 and b"--top must be at least 1" in proc.stderr
    assert proc.stdout == b""


def test_a_suggested_sign_of_an_exclusive_group_names_the_group_and_its_open_values():
    proto = protocol()
    small, wide = KB.symptom_index("pinpoint_pupils"), KB.symptom_index("dilated_pupils")
    reply = proto.snapshot()
    first = KB.symptom_index(reply["suggestion"]["symptoms"][0])
    expected = proto._group(first)
    assert reply["suggestion"]["group"] == expected  # null unless the sign has a group
    assert proto._group(small) == {
        "id": "pupil_size",
        "label": "Pupil size in ordinary light",
        "members": ["pinpoint_pupils", "dilated_pupils"],
        "none": "Normal size",
    }
    assert proto._group(wide)["members"] == ["dilated_pupils", "pinpoint_pupils"]
    assert proto._group(KB.symptom_index("cough")) is None
    reply = proto.handle(answer("dilated pupils", "yes"))  # one answer settles the group
    assert {"symptom": "pinpoint_pupils", "answer": "no", "implied": True} in reply["answers"]
    assert proto._group(small)["members"] == ["pinpoint_pupils"]  # no other value is open


@pytest.mark.parametrize("mode", ["strict", "noise"])
def test_the_strict_and_noise_modes_say_they_read_the_first_victim_only(mode):
    lines = [
        json.dumps({"symptom": "pinpoint pupils", "answer": "yes", "victim": "driver"}),
        json.dumps({"symptom": "cough", "answer": "yes", "victim": "passenger"}),
    ]
    replies = run_lines(lines, mode=mode, eps=1 if mode == "noise" else None)
    assert [len(r["notices"]) for r in replies] == [0, 0, 1]
    assert replies[-1]["notices"][0].startswith(
        ("Strict mode" if mode == "strict" else "Noise tolerance")
        + " reads one victim, 'driver': their answers and the scene's count; the other "
        "victims' answers are kept but not used (--mode evidence pools them all)"
    )
    assert run_lines(lines)[-1]["notices"] == []  # the evidence mode pools every victim


def test_an_answer_taken_out_says_how_the_protocol_puts_it_back():
    """The notice told a script '(z puts it back)': z is the app's key; here it is a line."""
    replies = run_lines([answer("pinpoint pupils", "yes"), answer("dilated pupils", "yes")])
    (notice,) = replies[2]["notices"]
    assert notice.startswith("Taken out: \u201cPinpoint pupils: yes\u201d")
    assert notice.endswith('rules out ({"undo": true} puts it back).')
    after_undo = run_lines(
        [answer("pinpoint pupils", "yes"), answer("dilated pupils", "yes"), '{"undo": true}']
    )
    assert after_undo[3]["answers"][0] == {"symptom": "pinpoint_pupils", "answer": "yes"}


@pytest.mark.parametrize(
    "options, words",
    [
        (
            ["--mode", "strict", "--sensitivity", "0.5"],
            "--sensitivity applies only to the evidence mode, and this interview is in the "
            "strict mode; leave it out, or use --mode evidence",
        ),
        (
            ["--eps", "2", "--threshold", "0.9", "--leak", "0.01"],
            "--leak and --threshold apply only to the evidence mode, and this interview is in "
            "the noise mode; leave them out, or use --mode evidence",
        ),
    ],
)
def test_evidence_settings_in_a_strict_or_noise_interview_are_refused(options, words):
    """They were accepted and never read: the protocol cannot switch to the evidence mode."""
    proc = run_process(b"", *options)
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr.decode().splitlines() == [f"responder: error: {words}"]


def test_pick_without_category_suggestions_is_refused():
    """'interview --jsonl --pick any' suggested one symptom at a time, --pick unread."""
    proc = run_process(b"", "--pick", "any")
    assert proc.returncode == 2 and proc.stdout == b""
    assert b"add --suggest category, or leave --pick out" in proc.stderr
    proc = run_process(b"", "--pick", "any", "--suggest", "category")
    assert proc.returncode == 0 and json.loads(proc.stdout)["suggestion"]["kind"] == "category"


def test_a_nul_byte_in_a_utf8_line_is_named_not_taken_for_utf16():
    """One NUL in an otherwise UTF-8 line was reported as 'the line is UTF-16 text', sending
    the client after its encoding when one byte was stray."""
    proc = run_process(
        b'{"symptom": "cough\x00", "answer": "yes"}\n' + answer("cough", "yes").encode() + b"\n"
    )
    _, stray, fine = (json.loads(x) for x in proc.stdout.decode("utf-8").splitlines())
    assert stray == {
        "error": "the line holds a NUL byte (U+0000) at character 19, which is not text; "
        "send printable UTF-8 text"
    }
    assert fine["asked"] == 1
    utf16 = run_process(answer("cough", "yes").encode("utf-16-le") + b"\n")
    assert "UTF-16" in json.loads(utf16.stdout.decode("utf-8").splitlines()[1])["error"]


def test_a_line_of_exactly_the_longest_length_is_taken():
    """A line of 65,536 characters (the limit) was refused as 'line too long (65537
    characters; at most 65536)': its newline was counted."""
    from responder.cli.interview import MAX_LINE  # noqa: PLC0415

    head = '{"symptom": "cough", "answer": "yes"}'
    longest = head + " " * (MAX_LINE - len(head))
    for ending in ("\n", "\r\n"):
        out = io.StringIO()
        serve(protocol(), io.StringIO(longest + ending + longest + " " + ending), out)
        _, taken, refused = (json.loads(x) for x in out.getvalue().splitlines())
        assert taken["asked"] == 1
        assert refused["error"].startswith("line too long (")


def test_a_victims_name_in_either_unicode_form_is_the_same_victim():
    """'José' typed with its accent as one character and as 'e' and a combining accent (as
    macOS tools and some keyboards send it) were two victims, both shown 'José': the second
    answer went to a third victim and the pooled result counted an extra person."""
    out = run_lines(
        [
            json.dumps({"symptom": "cough", "answer": "yes", "victim": "driver"}),
            json.dumps({"symptom": "cough", "answer": "yes", "victim": "Jos\u00e9"}),
            json.dumps({"symptom": "nausea", "answer": "yes", "victim": "Jose\u0301"}),
        ]
    )
    last = out[-1]
    assert [v["name"] for v in last["victims"]] == ["driver", "Jos\u00e9"]
    assert [a["symptom"] for a in last["victims"][1]["answers"]] == [
        "pattern_several_victims",
        "cough",
        "nausea",
    ]


def test_blanks_around_an_answer_are_forgiven_as_around_a_symptom():
    """'  cough  ' and ' Bob ' were taken, but the answer ' yes ' (a spreadsheet's padded
    cell) was 'answer must be "yes", "no" or "unknown"', though "Yes" was taken."""
    out = run_lines([json.dumps({"symptom": "  cough ", "answer": " Yes  "})])
    assert "error" not in out[-1]
    assert [(a["symptom"], a["answer"]) for a in out[-1]["answers"]] == [("cough", "yes")]


def test_more_than_nine_victims_are_taken_up_to_the_incidents_limit_then_one_error():
    """The README said an incident holds nine victims at most, yet the protocol took any
    number (1,000 named victims took over two minutes and 600 MB of replies, and one past
    the store's read-back limit would be read as damage). An incident holds up to
    MAX_VICTIMS (the app's + as well; keys 1-9 reach the first nine, ctrl+p every one); a
    name past that is one error naming the limit, and adds no victim."""
    from responder.core.session import MAX_VICTIMS

    assert MAX_VICTIMS > 9
    names = [f"v{i}" for i in range(MAX_VICTIMS + 1)]
    replies = run_lines(
        [json.dumps({"symptom": "cough", "answer": "yes", "victim": n}) for n in names]
    )
    assert "error" not in replies[10] and len(replies[10]["victims"]) == 10
    assert len(replies[MAX_VICTIMS]["victims"]) == MAX_VICTIMS
    last = replies[MAX_VICTIMS + 1]
    assert last["error"].count(f"{MAX_VICTIMS} victims at most") == 1
    assert names[-1] in last["error"]
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert f"up to {MAX_VICTIMS} in one incident" in readme
    assert "an incident holds nine victims at most" not in readme


def test_a_name_in_the_other_spelling_is_answered():
    """'shopping center' was 'unknown symptom' while 'shopping centre' was taken; British
    and American spellings are one name (kb/identifiers.py: american_spelling)."""
    _, reply = run_lines([answer("shopping center", "yes")])
    assert "error" not in reply
    assert [a["symptom"] for a in reply["answers"]] == ["setting_public_place"]


def test_a_line_cut_short_says_where_its_json_breaks():
    """Input closed in the middle of a line gave 'not valid JSON (Unterminated string
    starting at)', the sentence cut where json's message names a place: the column is
    given, as the interchange files' errors give it."""
    (reply,) = run_lines(['{"symptom": "cough", "ans'])[1:]
    assert reply["error"].startswith(
        "not valid JSON (Unterminated string starting at column 22); "
    ), reply["error"]
    (reply,) = run_lines(['{"symptom": }'])[1:]
    assert reply["error"].startswith("not valid JSON (Expecting value, column 13); ")
