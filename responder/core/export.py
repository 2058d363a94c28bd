"""Export an interview as a Markdown report and as JSON, with timestamps.

Files go to ``data_dir()/exports`` unless another folder is given, named after the
interview (``interview-<id>.md`` and ``.json``); exporting again overwrites the same two
files with the interview's current state.
"""

from __future__ import annotations

import errno
import json
import re
import time
import unicodedata
from datetime import UTC, datetime
from pathlib import Path

from responder import __version__, paths
from responder.core import views
from responder.core.counted import counted
from responder.core.percent import percent_tenths
from responder.core.session import Interview
from responder.core.views import DISCLAIMER
from responder.durable import atomic_write_text
from responder.engine.state import Status
from responder.kb.fields import shown
from responder.kb.next_steps import KIND_LABELS, common_heading_text, result_steps
from responder.paths import UnsafePathError


def exports_dir() -> Path:
    return paths.data_dir() / "exports"


def resolve_export_dir(text: str | Path | None) -> Path:
    """The folder an export goes to, as a full path: empty means :func:`exports_dir`; ``~``
    is expanded; a relative path is taken from the exports folder (the one the dialog
    shows), never from the folder the app happened to start in."""
    raw = str(text or "").strip()
    if not raw:
        return exports_dir().resolve()
    folder = Path(raw).expanduser()
    if not folder.is_absolute():
        folder = exports_dir() / folder
    return folder.resolve()


def export_paths(interview: Interview, folder: Path) -> tuple[Path, Path]:
    """The two files an export of ``interview`` to ``folder`` writes.

    Raises
    ------
    responder.paths.UnsafePathError
        The interview's id (read back from the incident database) would name a file
        elsewhere, or the folder holds a control character (a pasted escape sequence, not
        a folder anyone means).
    """
    bad = next((c for c in str(folder) if unicodedata.category(c) == "Cc"), None)
    if bad is not None:
        raise UnsafePathError(
            f"the folder {shown(str(folder))} holds the control character U+{ord(bad):04X}; "
            "type the folder again without it"
        )
    stem = f"interview-{interview.id}"
    return (
        paths.path_inside(folder, f"{stem}.md", "interview id"),
        paths.path_inside(folder, f"{stem}.json", "interview id"),
    )


def not_a_folder_message(file: Path) -> str:
    return f"{file} is a file, not a folder; give a folder (it is created if needed)"


def outside_data_dir(folder: Path) -> bool:
    """Whether ``folder`` lies outside responder's data folder (worth saying so)."""
    return not folder.is_relative_to(paths.data_dir().resolve())


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).astimezone().isoformat(timespec="seconds")


#: what the export says of a victim with no answers of their own (the scene's not counted)
NO_ANSWERS = "no answers recorded"
#: whose an answer of the incident itself is (a scene fact, answered once for every victim)
SCENE_LABEL = "all (the scene)"


def _whose(interview: Interview, victim: int) -> str:
    """The victim an answer is of, as the export names them ("Victim 2 (driver)"), or
    :data:`SCENE_LABEL` for the incident's."""
    return SCENE_LABEL if victim < 0 else interview.victim_label(victim)


def report(interview: Interview, remaining=None) -> dict:
    """The interview as plain JSON-ready data."""
    kn = interview.knowledge
    status = interview.status
    data: dict = {
        "format": "responder-interview/1",
        "app_version": __version__,
        "exported_at": _iso(time.time()),
        "interview_id": interview.id,
        "started_at": _iso(interview.started),
        "disclaimer": DISCLAIMER,
        "knowledge_base": kn.describe(),
        "modes": interview.describe_modes(),
        "status": status.value,
        "questions_asked": interview.ranked_on,
        # a victim registered but not asked anything is listed, never as if examined
        "victims": [
            {"index": v, "name": name, "label": interview.victim_label(v)}
            | {"answers_recorded": interview.own_answers(v)}
            | ({} if interview.own_answers(v) else {"note": NO_ANSWERS})
            for v, name in enumerate(interview.victims)
        ],
        # each answer says whose it is: a victim's (index from 0), or the incident's (-1)
        "answers": [
            {
                "at": _iso(row.record.at),
                "symptom_id": row.symptom.id,
                "symptom": row.symptom.label,
                "category": row.symptom.category_label,
                "answer": row.record.answer.value,
                "volunteered": row.record.volunteered,
                "victim": row.record.victim,
                "victim_label": _whose(interview, row.record.victim),
            }
            for row in views.history(interview)
        ],
        # an answer changed later keeps a trace: what it was and when
        "changed_answers": [
            {
                "victim": new.victim,
                "victim_label": _whose(interview, new.victim),
                "symptom_id": kn.symptoms[new.query].id,
                "symptom": kn.symptoms[new.query].label,
                "was": old.answer.value,
                "was_at": _iso(old.at),
                "now": new.answer.value,
                "changed_at": _iso(new.at),
            }
            for new, old in interview.log.changed
        ],
    }
    if remaining is not None and remaining.method in ("exact", "monte-carlo"):
        data["expected_questions_remaining"] = {
            "value": remaining.value,
            "method": remaining.method,
        }
    budget = interview.noise_budget()
    if budget is not None:
        data["noise_budget"] = {"used": budget[0], "tolerated": budget[1]}
    if status is Status.INCONSISTENT:
        why = views.no_fit(interview)
        data["no_fit"] = {"headline": why.headline, "detail": why.detail}
        data["candidates"] = []
        data["closest"] = [
            {
                "chemicals": [c.name for c in row.chemicals],
                "class": row.class_labels,
                "contradicted_answers": row.mismatches,
            }
            for row in views.closest(interview)
        ]
    else:
        data["candidates"] = [
            {
                "chemicals": [c.name for c in row.chemicals],
                "cas": [c.cas for c in row.chemicals],
                "class": row.class_labels,
                "probability": round(row.probability, 6),
                "contradicted_answers": row.mismatches,
            }
            for row in views.candidates(interview)
        ]
    data["classes"] = [
        {"class": c.label, "probability": round(p, 6)} for c, p in views.class_bars(interview)
    ]
    result = views.result(interview)
    routes = views.exposure_routes(interview)  # the victims' own routes' steps first
    if result is not None:
        data["result"] = {
            "kind": result.kind,
            "title": result.title,
            "headline": result.headline,
            "class_line": result.class_line,
            "status": result.status,
            "counts": result.counts,
            "confident": result.confident,
            "leader": result.leader,
            "weighed": {
                "runner_up": result.runner_up,
                "for": [_weighing(w) for w in result.favour],
                "against": [_weighing(w) for w in result.against],
            },
            "profile_note": result.profile_note,
            "sources": list(result.sources),
            "chemicals": [
                {"name": c.name, "cas": c.cas, "mixture": c.mixture, "class": c.class_label}
                for row in result.candidates
                for c in row.chemicals
            ],
            "next_steps": result_steps(interview.knowledge, result, routes).to_dict(),
            "profile": [
                {
                    "symptom": r.symptom.label,
                    "answer": r.answer.value if r.answer else None,
                    "expected": list(r.expected),
                    "marks": list(r.marks),
                }
                | ({"victim": r.who} if r.who else {})
                for r in result.profile
            ],
        }
    else:
        lead = views.provisional_lead(interview)
        if lead is not None:
            data["provisional"] = {
                "headline": lead.headline,
                "class_line": lead.class_line,
                "leader": lead.leader,
                "note": PROVISIONAL_NOTE,
                "next_steps": result_steps(interview.knowledge, lead, routes).to_dict(),
            }
    return data


#: What the steps of an export taken before the result are.
PROVISIONAL_NOTE = (
    "Provisional: the interview is not finished. These are the steps the result would show "
    "for the candidates leading now; they change as answers come in."
)


def _weighing(w) -> dict:
    out = {"symptom": w.symptom.label, "answer": w.answer.value, "log10_ratio": round(w.weight, 3)}
    return out | ({"victim": w.who} if w.who else {})


def _cell(text) -> str:
    """Text for a Markdown table cell: a '|' in it (a victim named 'bus|stop') would end the
    cell and move every later one a column right, a line break would end the row."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _victim_prefix(row: dict) -> str:
    """Whose answer a profile or weighing row is, with several victims ("V2 · ")."""
    return f"{row['victim']} · " if row.get("victim") else ""


_MARK = {
    "match": "✓ match",
    "mismatch": "✗ mismatch",
    "implied": "implied by another answer, not counted",
    "uncounted": "– occasional for this victim, not counted against",
    "partial": "~ some",
    "unknown": "? can't tell",
    "expected": "expected, not checked",
    "": "",
}


def to_markdown(data: dict) -> str:
    """A readable report of :func:`report`'s data, top first: the most likely chemical, its
    class, what to do now; then what weighed, the profile, the interview and the disclaimer."""
    kb = data["knowledge_base"]
    modes = data["modes"]
    noise = modes["noise"]
    out = ["# responder interview report: decision support, not a diagnosis", ""]
    result = data.get("result")
    if result:
        out += [f"**{result['headline']}**", ""]
        if result.get("class_line"):
            out += [result["class_line"], ""]
        if result.get("status"):
            out += [result["status"] + ".", ""]
        out += _next_steps_markdown(result["next_steps"], result.get("leader") or result["title"])
        weighed = result.get("weighed") or {}
        words = {"yes": "yes", "no": "no", "unknown": "can't tell"}
        for key, heading in (("for", "for"), ("against", "against")):
            rows = weighed.get(key) or []
            if rows:
                out += [
                    f"Answers that weighed most {heading} {result['leader']} "
                    f"(against {weighed['runner_up']}):",
                    "",
                ]
                out += [
                    f"- {_victim_prefix(w)}{w['symptom']}: {words[w['answer']]} "
                    f"({_ratio_text(w['log10_ratio'])})"
                    for w in rows
                ]
                out.append("")
        if len(result["chemicals"]) > 1:
            counts = f" ({result['counts']})" if result.get("counts") else ""
            out += [f"Chemicals in this result{counts}:", ""]
            out += [f"- {c['name']} ({_cas_text(c)}; {c['class']})" for c in result["chemicals"]]
            out.append("")
        out += [
            "### Symptom profile against the answers given",
            "",
            "| Symptom | Answer | Profile |",
            "| --- | --- | --- |",
        ]
        for r in result["profile"]:
            exp = ", ".join(
                "yes" if e == 1 else "no" if e == 0 else f"{e:.0%}" for e in r["expected"]
            )
            marks = ", ".join(_MARK.get(m, m) for m in r["marks"] if m)
            out.append(
                f"| {_cell(_victim_prefix(r) + r['symptom'])} | {r['answer'] or '—'} | {exp} "
                f"{('— ' + marks) if marks else ''} |"
            )
        if result.get("profile_note"):
            out += ["", result["profile_note"].replace("listed above", "listed in the result")]
        if result["sources"]:
            out += ["", "Sources:", ""] + [f"- {s}" for s in result["sources"]]
        out.append("")
    provisional = data.get("provisional")
    if not result and provisional:
        out += [f"**{provisional['headline']}**", "", provisional["class_line"], ""]
        out += [f"*{provisional['note']}*", ""]
        out += _next_steps_markdown(
            provisional["next_steps"], provisional["leader"], heading="What to do now (provisional)"
        )
    out += [
        "## Interview",
        "",
        f"- Interview: `{data['interview_id']}`, started {data['started_at']}",
        f"- Exported: {data['exported_at']} (responder {data['app_version']})",
        f"- Knowledge base: {kb['name']} ({counted(kb['chemicals'], 'chemical')}, "
        f"{counted(kb['symptoms'], 'symptom')}), "
        f"digest `{kb['digest'][:12] or '-'}`",
        f"- Target: {modes['target']}; suggestions: one {modes['suggest']} ({modes['policy'].upper()})",
        "- Noise tolerance: "
        + (
            f"on, up to {counted(noise.get('eps_effective', noise['eps']), 'wrong answer')}, "
            f"model {noise['model']}"
            if noise.get("enabled")
            else "off"
        ),
        f"- Status: **{data['status']}** after {counted(data['questions_asked'], 'answer')}",
    ]
    victims = data.get("victims") or []  # an export written before victims has none
    several = len(victims) > 1
    if several:
        named = ", ".join(v["label"] + (f": {v['note']}" if v.get("note") else "") for v in victims)
        out.append(f"- Victims: {len(victims)} ({named})")
    if "noise_budget" in data:
        nb = data["noise_budget"]
        out.append(f"- Wrong answers assumed: {nb['used']} of {nb['tolerated']} tolerated")
    if data["status"] == Status.INCONSISTENT.value:
        why = data.get("no_fit") or {"headline": "No chemical fits every answer", "detail": ""}
        out += ["", f"## {why['headline']}", ""] + ([why["detail"], ""] if why["detail"] else [])
        out += [
            "Closest chemicals by number of contradicted answers:",
            "",
            "| Chemical | Class | Contradicted answers |",
            "| --- | --- | --- |",
        ]
        out += [
            f"| {_cell(' / '.join(c['chemicals']))} | {_cell(c['class'])} | "
            f"{c['contradicted_answers']} |"
            for c in data["closest"]
        ]
    # with several victims, a column says whose each answer is (the scene's: "all")
    whose = ["Victim"] if several else []
    out += [
        "",
        "## Answers",
        "",
        "| " + " | ".join(["Time", *whose, "Symptom", "Category", "Answer", "Volunteered"]) + " |",
        "| --- " * (5 + len(whose)) + "|",
    ]
    for a in data["answers"]:
        ans = {"yes": "yes", "no": "no", "unknown": "can't tell"}[a["answer"]]
        who = [a["victim_label"]] if several else []
        cells = [a["at"], *who, a["symptom"], a["category"], ans, "yes" if a["volunteered"] else ""]
        out.append("| " + " | ".join(map(_cell, cells)) + " |")
    if not data["answers"]:
        out.append("| — | no answers yet |" + " |" * (3 + len(whose)))
    if data.get("changed_answers"):
        words = {"yes": "yes", "no": "no", "unknown": "can't tell"}
        out += ["", "Changed answers:", ""]
        out += [
            f"- {c['victim_label'] + ': ' if several else ''}{c['symptom']}: {words[c['was']]} "
            f"(given {c['was_at']}) changed to {words[c['now']]} at {c['changed_at']}"
            for c in data["changed_answers"]
        ]
    if data["candidates"]:
        out += [
            "",
            "## Candidates",
            "",
            "| Chemical(s) | Class | Probability | Contradicted |",
            "| --- | --- | --- | --- |",
        ]
        out += [
            f"| {_cell(' / '.join(c['chemicals']))} | {_cell(c['class'])} | "
            f"{percent_tenths(c['probability'])} | "
            f"{c['contradicted_answers']} |"
            for c in data["candidates"][:25]
        ]
        if len(data["candidates"]) > 25:
            out.append(f"| … {len(data['candidates']) - 25} more | | | |")
    if data["classes"]:
        out += ["", "## Classes", "", "| Class | Probability |", "| --- | --- |"]
        out += [
            f"| {_cell(c['class'])} | {percent_tenths(c['probability'])} |"
            for c in data["classes"]
            if c["probability"] > 0
        ]
    out += ["", f"> **{data['disclaimer']}**"]
    return "\n".join(out) + "\n"


def _ratio_text(log10_ratio: float) -> str:
    """A weight as the likelihood ratio a person reads: "8x likelier"."""
    ratio = 10 ** abs(log10_ratio)
    return f"{ratio:.0f}x" if ratio >= 10 else f"{ratio:.1f}x"


def _cas_text(chemical: dict) -> str:
    """A result chemical's CAS number in the Markdown export (an export written before
    mixtures existed has no "mixture" key)."""
    if chemical.get("mixture"):
        return "mixture, no CAS number"
    return f"CAS {chemical['cas'] or '—'}"


def _links(url: str) -> str:
    """A source's address as Markdown autolinks: a source read at several addresses gives
    them as 'a ; b', and an autolink may hold no blank, so each is a link of its own."""
    return " ; ".join(f"<{part}>" for part in re.split(r"\s+;\s+", url.strip()) if part)


def _next_steps_markdown(ns: dict, what: str, heading: str = "What to do now") -> list[str]:
    out = [f"### {heading}", ""]
    pc = ns["poison_centre"]
    if pc:
        out.append(f"- **Poison centre: {pc['line']}** {pc['label']}".rstrip())
        if pc["note"]:
            out.append(f"- {pc['note']}")
    numbers = {s["id"]: k for k, s in enumerate(ns["sources"], start=1)}
    common = ns.get("common_to") or []
    hallmarks = [s for steps in ns["steps"].values() for s in steps if s.get("hallmark")]
    if hallmarks:
        who = f"the most likely, {what}" if common else what
        out += ["", f"**Warning for {who}**", ""]
        out += [f"- ⚠ {s['text']} [{numbers[s['source']]}]" for s in hallmarks]
    if common:
        out += ["", f"*{common_heading_text(common)}*", ""]
    elif not ns["specific"]:
        out.append(
            f"- No steps specific to {what} are recorded in this knowledge base; "
            "general first aid only."
        )
    for gap in ns.get("gaps", []):
        out.append(f"- Why no steps for {gap.get('label', gap['class'])}: {gap['reason']}")
    # one step of each kind to act on first, as the result screen lists them, then the rest
    first = ns.get("first", [])
    if first:
        out += ["", "**First, one step of each kind**", ""][out[-1] == "" :]
        out += [f"- **{s['label']}:** {s['text']} [{numbers[s['source']]}]" for s in first]
    taken = {(s["kind"], s["text"], s["source"]) for s in first}
    rest = {
        kind: [
            s
            for s in steps
            if not s.get("hallmark") and (kind, s["text"], s["source"]) not in taken
        ]
        for kind, steps in ns["steps"].items()
    }
    if first and any(rest.values()):
        out += ["", "More steps, kind by kind:"]
    for kind, steps in rest.items():
        if steps:
            out += ["", f"**{KIND_LABELS[kind]}**", ""]
            out += [f"- {s['text']} [{numbers[s['source']]}]" for s in steps]
    if ns["sources"]:
        out += ["", "Sources of these steps:", ""]
        out += [f"{numbers[s['id']]}. {s['title']} {_links(s['url'])}" for s in ns["sources"]]
    return out + [""]


def export_interview(
    interview: Interview,
    directory: Path | str | None = None,
    remaining=None,
    formats: tuple[str, ...] = ("md", "json"),
) -> tuple[Path, ...]:
    """Write ``interview-<id>.md`` and ``.json`` (or only those of ``formats``); returns
    their paths, in that order.

    Raises
    ------
    OSError
        The folder cannot be created or written (NotADirectoryError, whose ``strerror``
        says so: a file stands where the folder should be).
    responder.paths.UnsafePathError
        The interview's id would name a file outside the folder; nothing is written.
    """
    directory = resolve_export_dir(directory)
    md, js = export_paths(interview, directory)
    if (file := paths.file_in_the_way(directory)) is not None:
        raise NotADirectoryError(errno.ENOTDIR, not_a_folder_message(file), str(file))
    directory.mkdir(parents=True, exist_ok=True)
    data = report(interview, remaining)
    written = []
    if "md" in formats:
        written.append(_write(md, to_markdown(data)))
    if "json" in formats:
        written.append(
            _write(js, json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
        )
    return tuple(written)


def _write(path: Path, text: str) -> Path:
    return atomic_write_text(path, text)  # unique temporary name, fsync'd, folder fsync'd


__all__ = [
    "export_interview",
    "export_paths",
    "exports_dir",
    "not_a_folder_message",
    "outside_data_dir",
    "report",
    "resolve_export_dir",
    "to_markdown",
]
