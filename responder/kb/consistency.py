"""consistency.toml: exclusive groups (signs that cannot hold together, answered as one
question), implications (an answer that settles others) and each route's contact signs (what
a victim exposed another way shows only occasionally)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from responder.kb.checker import Checker, Doc
from responder.kb.model import ContactSigns, ExclusiveGroup, Implication
from responder.kb.vocabulary import current_id

#: Exclusive groups and implications between observations: optional.
CONSISTENCY_FILE = "consistency.toml"


def check_consistency(
    ck: Checker,
    doc: Doc,
    symptom_ids: set[str],
    aliases: dict[str, str],
    incident_ids: set[str] = frozenset(),
    route_ids: Mapping[str, str] | None = None,
    sign_lines: dict[tuple[str, str], int | None] | None = None,
) -> tuple[list[ExclusiveGroup], list[Implication], list[ContactSigns]]:
    """consistency.toml: exclusive groups (at least two members, a member in one group
    only, all answered per victim or all once for the incident: ``incident_ids``),
    implications (known ids, answers yes or no, nothing implying itself, no answer that
    leads to a contradiction) and contact signs (routes of ``route_ids``, observation ->
    its category, all of one category and each named once; signs that are no route; a
    table listing no sign is a warning). ``sign_lines``, when given, receives the line of
    each (route, sign) for :func:`warn_unlisted_contact_signs`."""
    ck.top_keys(doc, ("exclusive", "implies", "contact_signs"))

    def known(sid: str, line: int | None, where: str) -> str | None:
        return current_id(ck, doc, line, where, sid, symptom_ids, aliases)

    groups = _exclusive_groups(ck, doc, known, incident_ids)
    rules, lines = _implications(ck, doc, known)
    _check_contradictions(ck, doc, groups, rules, lines)
    contact = _contact_signs(ck, doc, known, route_ids or {}, incident_ids, sign_lines)
    return groups, rules, contact


def warn_unlisted_contact_signs(
    ck: Checker,
    doc_rel: str,
    contact: list[ContactSigns],
    listed: set[str],
    sign_lines: Mapping[tuple[str, str], int | None],
) -> None:
    """Warn of a contact sign no chemical's row lists (``listed``): the route views read
    only the rows, so it changes nothing, and a misplaced id (a sign meant for another
    list) goes unseen."""
    for table in contact:
        for sign in table.signs:
            if sign not in listed:
                ck.warn(
                    doc_rel,
                    sign_lines.get((table.route, sign)),
                    f'contact signs of "{table.route}" list "{sign}", which no chemical lists: '
                    "it changes no chemical's route views",
                    "list signs the chemicals' rows list, or add it to the chemicals whose "
                    "sources name it",
                )


def _contact_signs(
    ck: Checker,
    doc: Doc,
    known: Callable[[str, int | None, str], str | None],
    route_ids: Mapping[str, str],
    incident_ids: set[str] = frozenset(),
    sign_lines: dict[tuple[str, str], int | None] | None = None,
) -> list[ContactSigns]:
    """The ``[[contact_signs]]`` tables: a route (an observation of a category answered per
    victim, one of its observations at a time), every table's of one category and each
    named once, and the signs that appear where a chemical touches the body by it: never a
    route, nor an observation answered once for the incident (a smell, a place)."""
    out: list[ContactSigns] = []
    seen: dict[str, int | None] = {}
    category = None
    for k, t in enumerate(ck.tables(doc, "contact_signs", required=False)):
        v, span, anchor = ck.fields(
            doc, "contact_signs", k, t, {"route": "str", "signs": "list"}, {"why": "str"}
        )
        if not {"route", "signs"} <= v.keys():
            continue
        line = doc.lines.key(span, "route") or anchor
        route = known(v["route"], line, "contact signs")
        if route is None:
            continue
        if route not in route_ids:
            ck.error(
                doc.rel,
                line,
                f'contact signs name "{route}", which is not a route of exposure',
                "name an observation of a category answered per victim, one observation at a "
                "time (route_inhaled, route_skin, ...)",
            )
            continue
        if category is not None and route_ids[route] != category:
            ck.error(
                doc.rel,
                line,
                f'contact signs name "{route}" of category "{route_ids[route]}", but the first '
                f'table names a route of "{category}"',
                "every [[contact_signs]] table names a route of the same category",
            )
            continue
        category = route_ids[route]
        if route in seen:
            ck.error(
                doc.rel,
                line,
                f'contact signs of "{route}" are given twice',
                f"merge this table into the one at {ck.where(doc.rel, seen[route])}",
            )
            continue
        seen[route] = line
        if not v["signs"]:
            ck.warn(
                doc.rel,
                doc.lines.key(span, "signs") or line,
                f'contact signs of "{route}" list no sign: for a victim exposed this way every '
                "other route's contact signs count as occasional, and no sign as this route's "
                "own",
                "list the signs that appear where the chemical touches the body this way, or "
                "remove the table (a route with no table restricts nothing)",
            )
        signs = []
        for sid in v["signs"]:
            where = doc.lines.value(span, "signs", sid) or anchor
            cid = known(sid, where, f'contact signs of "{route}"')
            if cid is None:
                continue
            if cid in route_ids and route_ids[cid] == route_ids[route]:
                ck.error(
                    doc.rel,
                    where,
                    f'contact signs of "{route}" list the route "{cid}"',
                    "list signs only: a route is not a sign of another",
                )
                continue
            if cid in route_ids:
                ck.error(
                    doc.rel,
                    where,
                    f'contact signs of "{route}" list "{cid}", a scene observation of '
                    f'"{route_ids[cid]}" answered per victim',
                    "list signs a victim shows where the chemical touches the body "
                    "(symptoms.toml), not a scene observation",
                )
                continue
            if cid in incident_ids:
                ck.error(
                    doc.rel,
                    where,
                    f'contact signs of "{route}" list "{cid}", a scene observation answered '
                    "once for the incident",
                    "list signs a victim shows where the chemical touches the body "
                    "(symptoms.toml), not what is seen or smelt on the scene",
                )
                continue
            if cid not in signs:
                signs.append(cid)
                if sign_lines is not None:
                    sign_lines[(route, cid)] = where
        out.append(ContactSigns(route, tuple(signs), v.get("why", "")))
    return out


def _exclusive_groups(
    ck: Checker,
    doc: Doc,
    known: Callable[[str, int | None, str], str | None],
    incident_ids: set[str] = frozenset(),
) -> list[ExclusiveGroup]:
    """The ``[[exclusive]]`` tables: at least two members, each in one group only, all
    answered per victim or all once for the incident."""
    groups: list[ExclusiveGroup] = []
    seen: dict[str, int | None] = {}
    member_of: dict[str, str] = {}
    for k, t in enumerate(ck.tables(doc, "exclusive", required=False)):
        v, span, anchor = ck.fields(
            doc,
            "exclusive",
            k,
            t,
            {"id": "str", "label": "str", "members": "list"},
            {"none_label": "str"},
        )
        if not {"id", "label", "members"} <= v.keys() or not ck.new_id(
            doc.rel, anchor, "exclusive group", v["id"], seen
        ):
            continue
        members = []
        for sid in v["members"]:
            line = doc.lines.value(span, "members", sid) or anchor
            cid = known(sid, line, f'exclusive group "{v["id"]}"')
            if cid is None:
                continue
            if cid in members:  # written twice (or by an alias beside its id)
                ck.error(
                    doc.rel,
                    line,
                    f'exclusive group "{v["id"]}" lists "{cid}" twice',
                    "list each sign once: remove the repeat",
                )
                continue
            if cid in member_of:
                ck.error(
                    doc.rel,
                    line,
                    f'"{cid}" is in exclusive groups "{member_of[cid]}" and "{v["id"]}"',
                    "a sign belongs to one exclusive group at most: remove it from one",
                )
                continue
            member_of[cid] = v["id"]
            members.append(cid)
        if len(v["members"]) < 2:
            ck.error(
                doc.rel,
                doc.lines.key(span, "members") or anchor,
                f'exclusive group "{v["id"]}" has '
                + ("only one member" if len(v["members"]) == 1 else f"{len(v['members'])} members"),
                "an exclusive group needs at least two signs that cannot hold together; "
                "remove the group, or add the other values",
            )
            continue
        shared = [m for m in members if m in incident_ids]
        if shared and len(shared) < len(members):
            # one victim's "yes" would answer the whole incident's observation "no" (and
            # another victim's answer to it would stand beside the first victim's "yes")
            own = next(m for m in members if m not in incident_ids)
            ck.error(
                doc.rel,
                doc.lines.key(span, "members") or anchor,
                f'exclusive group "{v["id"]}" mixes "{shared[0]}", answered once for the '
                f'whole incident, with "{own}", answered for each victim',
                "a group's members are all a victim's own or all the incident's: take out "
                "those of the other kind",
            )
            continue
        if len(members) == len(v["members"]):
            groups.append(
                ExclusiveGroup(v["id"], v["label"], tuple(members), v.get("none_label", ""))
            )
    return groups


def _implications(
    ck: Checker, doc: Doc, known: Callable[[str, int | None, str], str | None]
) -> tuple[list[Implication], list[int | None]]:
    """The ``[[implies]]`` tables: known ids, answers yes or no, nothing implying itself;
    with each rule's line."""
    rules: list[Implication] = []
    lines: list[int | None] = []
    for k, t in enumerate(ck.tables(doc, "implies", required=False)):
        then_raw = t.get("then")
        table = {key: value for key, value in t.items() if key != "then"}
        v, span, anchor = ck.fields(
            doc, "implies", k, table, {"when": "str", "answer": "str"}, {"why": "str"}
        )
        if not {"when", "answer"} <= v.keys():
            continue
        ok = True
        when = known(v["when"], doc.lines.key(span, "when") or anchor, "implication")
        if v["answer"] not in ("yes", "no"):
            ck.error(
                doc.rel,
                doc.lines.key(span, "answer") or anchor,
                f'implication on "{v["when"]}" has answer "{v["answer"]}"',
                'write answer = "yes" or "no"',
            )
            ok = False
        if not isinstance(then_raw, dict) or not then_raw:
            ck.error(
                doc.rel,
                doc.lines.key(span, "then") or anchor,
                f'implication on "{v["when"]}" implies nothing',
                'write then = { <id> = "yes" or "no", ... }',
            )
            continue
        then = []
        for sid, answer in then_raw.items():
            line = doc.lines.value(span, "then", answer) or doc.lines.key(span, "then") or anchor
            cid = known(sid, line, "implication")
            if cid is None:
                ok = False
            elif answer not in ("yes", "no"):
                ck.error(
                    doc.rel,
                    line,
                    f'implication on "{v["when"]}" gives "{sid}" the answer {answer!r}',
                    'each implied answer is "yes" or "no"',
                )
                ok = False
            elif cid == when:
                ck.error(doc.rel, line, f'"{sid}" implies itself', "remove it from its own `then`")
                ok = False
            else:
                then.append((cid, answer))
        if ok and when is not None:
            rules.append(Implication(when, v["answer"], tuple(then), v.get("why", "")))
            lines.append(doc.lines.key(span, "when") or anchor)
    return rules, lines


def _check_contradictions(
    ck: Checker,
    doc: Doc,
    groups: list[ExclusiveGroup],
    rules: list[Implication],
    lines: list[int | None],
) -> None:
    """Each rule's answer followed through every rule and exclusive group (a yes to one
    member is a no to the others) must never give one observation both answers: the
    interview would otherwise hold "yes" and "no" to it at once."""
    follows: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for rule in rules:
        follows.setdefault((rule.when, rule.answer), []).extend(rule.then)
    for group in groups:
        for member in group.members:
            others = [(m, "no") for m in group.members if m != member]
            follows.setdefault((member, "yes"), []).extend(others)
    for rule, line in zip(rules, lines, strict=True):
        said = {rule.when: rule.answer}
        todo = [(rule.when, rule.answer)]
        clash = None
        while todo and clash is None:
            for sid, answer in follows.get(todo.pop(), ()):
                if sid not in said:
                    said[sid] = answer
                    todo.append((sid, answer))
                elif said[sid] != answer:
                    clash = sid
                    break
        if clash is not None:
            ck.error(
                doc.rel,
                line,
                f'"{rule.when}" answered "{rule.answer}" implies both "yes" and "no" for '
                f'"{clash}" (through the implications and exclusive groups)',
                "remove or correct the rule that gives the wrong answer",
            )
