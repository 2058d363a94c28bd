"""What to do next once a chemical or class is named: ``next_steps.toml``.

The file holds the poison-centre line, the documents read (``[[source]]``), steps
(``[[step]]``), each for a class id, a chemical id or ``"any"`` and of one kind:
decontamination, treatment (antidote or specific treatment), protection (protective
equipment) or first aid, and recorded gaps (``[[gap]]``): a class with no steps of its own
and the reason why. :func:`load_next_steps` checks it against a knowledge base and returns
:class:`NextSteps`; :meth:`NextSteps.for_result` picks the steps for a result.

A chemical step with ``replaces = true`` stands in for its class's steps of the same kind
when every chemical of that class in the result has such a step (for example a specific
antidote instead of the class's "no antidote" line). :meth:`NextSteps.uncovered` lists the
classes that have neither a class step nor a ``[[gap]]``.

A step with ``hallmark = true`` is a warning that defines the agent (lung oedema hours
later, oxygen for carbon monoxide): a result shows it first, and shows the leading chemical's
even while no candidate is confident (:meth:`NextSteps.common_to`), when the other steps
shown are only those common to the leading classes.

A knowledge base without the file has no steps (``NextSteps.empty()``); a bad file raises
:class:`~responder.kb.model.KBError` listing every problem with its line.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field, replace
from pathlib import Path

from responder.input_limits import InputRejected, decode_text, loads_toml, read_bytes
from responder.kb.identifiers import chemical_slug
from responder.kb.model import KBError, KBIssue, KnowledgeBase


def chemical_key(chemical) -> str:
    """A chemical's id (its slug when the knowledge base gives none)."""
    return getattr(chemical, "id", "") or chemical_slug(chemical.name)


NEXT_STEPS_FILE = "next_steps.toml"

#: Kinds of step, in the order a result shows them.
STEP_KINDS = ("first_aid", "decontamination", "treatment", "protection")
KIND_LABELS = {
    "first_aid": "First aid",
    "decontamination": "Decontamination",
    "treatment": "Antidote / specific treatment",
    "protection": "Protective equipment",
}
#: The order of a result's first lines, one step of each kind: protect yourself before
#: touching a victim, then first aid, the antidote, decontamination.
FIRST_KINDS = ("protection", "first_aid", "treatment", "decontamination")
FIRST_LABELS = {
    "protection": "Protect yourself",
    "first_aid": "First aid",
    "treatment": "Antidote",
    "decontamination": "Decontaminate",
}
#: A step is one line on a screen: longer text belongs in the source document.
MAX_STEP_CHARS = 240
#: A gap's reason is shown under the general steps: what was searched, what was missing.
MAX_GAP_CHARS = 300
ANY = "any"


@dataclass(frozen=True)
class Source:
    id: str
    title: str
    url: str


@dataclass(frozen=True)
class Step:
    """One thing to do, for a class, a chemical or any result (``targets``)."""

    targets: tuple[str, ...]
    kind: str
    text: str
    source: Source
    line: int | None = None
    #: A chemical step that stands in for its class's steps of the same kind.
    replaces: bool = False
    #: A warning that defines the agent: shown first, and for the leading chemical always.
    hallmark: bool = False
    #: The route of exposure the step is for (an observation id, e.g. "route_inhaled"); ""
    #: for every victim. Once the victims' routes are known, other routes' steps go last.
    route: str = ""


@dataclass(frozen=True)
class Gap:
    """A class deliberately left without steps of its own, and why (``label``: the class's)."""

    class_id: str
    reason: str
    line: int | None = None
    label: str = ""


@dataclass(frozen=True)
class PoisonCentre:
    line: str
    label: str
    note: str
    source: Source | None


@dataclass(frozen=True)
class ResultSteps:
    """The steps for one result, by kind, with what they cover.

    ``specific`` is False when no step names the result's classes or chemicals (only the
    general steps apply), so a screen can say so instead of implying coverage. ``gaps`` are
    the recorded reasons (``[[gap]]``) of the result's classes that have no steps of their
    own, so the screen can say why.
    """

    by_kind: dict[str, tuple[Step, ...]]
    poison_centre: PoisonCentre | None
    specific: bool
    gaps: tuple[Gap, ...] = ()
    #: hallmark warnings, shown before every kind (and left out of ``by_kind``)
    hallmarks: tuple[Step, ...] = ()
    #: set when the steps are only those common to these classes (no candidate confident);
    #: ``hallmarks`` are then the leading chemical's
    common_to: tuple[str, ...] = ()
    #: the routes of exposure the victims had (:meth:`for_routes`); () when unknown
    routes: tuple[str, ...] = ()

    @property
    def sources(self) -> tuple[Source, ...]:
        seen: dict[str, Source] = {}
        for steps in (self.hallmarks, *self.by_kind.values()):
            for s in steps:
                seen.setdefault(s.source.id, s.source)
        if self.poison_centre and self.poison_centre.source:
            seen.setdefault(self.poison_centre.source.id, self.poison_centre.source)
        return tuple(seen.values())

    def __bool__(self) -> bool:
        return bool(self.by_kind) or bool(self.hallmarks) or self.poison_centre is not None

    def off_route(self, step: Step) -> bool:
        """Whether ``step`` is for a route of exposure none of the victims had."""
        return bool(self.routes) and bool(step.route) and step.route not in self.routes

    @property
    def first(self) -> tuple[Step, ...]:
        """One step of each kind to act on first, in :data:`FIRST_KINDS` order: each kind's
        first step (the chemical's own before its class's before the general one), so a
        small screen holds something of every kind before the rest. A kind whose steps are
        all for routes the victims did not have gives none here (they stay in the rest)."""
        return tuple(
            self.by_kind[k][0]
            for k in FIRST_KINDS
            if self.by_kind.get(k) and not self.off_route(self.by_kind[k][0])
        )

    def for_routes(self, routes) -> ResultSteps:
        """The same steps with, in each kind, those for a route of exposure no victim had
        (``routes``: the route observations answered yes) after the rest, so the first
        first-aid step of a victim splashed on the skin is not "get to fresh air". Nothing
        is dropped: a victim's route may be unknown or wrong. Unchanged without routes."""
        routes = tuple(dict.fromkeys(routes))
        if not routes:
            return self
        marked = replace(self, routes=routes)

        def reordered(steps: tuple[Step, ...]) -> tuple[Step, ...]:
            return tuple(sorted(steps, key=marked.off_route))

        return replace(
            marked,
            by_kind={kind: reordered(steps) for kind, steps in self.by_kind.items()},
            hallmarks=reordered(self.hallmarks),
        )

    def rest_by_kind(self) -> dict[str, tuple[Step, ...]]:
        """The steps of ``by_kind`` not in :attr:`first`, by kind (kinds left empty dropped)."""
        first = self.first
        rest = {k: tuple(s for s in v if s not in first) for k, v in self.by_kind.items()}
        return {k: v for k, v in rest.items() if v}

    def all_by_kind(self) -> dict[str, tuple[Step, ...]]:
        """Every step shown, by kind, each kind's hallmark warnings first."""
        return _by_kind([*self.hallmarks, *(s for v in self.by_kind.values() for s in v)])

    def to_dict(self) -> dict:
        """JSON-ready: the poison-centre line, steps by kind with their source, the sources."""
        pc = self.poison_centre
        return {
            "poison_centre": None
            if pc is None
            else {"line": pc.line, "label": pc.label, "note": pc.note},
            "specific": self.specific,
            "common_to": list(self.common_to),
            "gaps": [
                {"class": g.class_id, "label": g.label or g.class_id, "reason": g.reason}
                for g in self.gaps
            ],
            # one step of each kind to act on first, as the result screen lists them
            # (protect yourself, first aid, antidote, decontaminate; the victims' routes
            # considered); every one is also in "steps"
            "first": [
                {
                    "kind": s.kind,
                    "label": FIRST_LABELS[s.kind],
                    "text": s.text,
                    "source": s.source.id,
                }
                | ({"route": s.route} if s.route else {})
                for s in self.first
            ],
            # every step shown, by kind; a hallmark warning (shown first) is marked
            "steps": {
                kind: [
                    {
                        "text": s.text,
                        "for": list(s.targets),
                        "source": s.source.id,
                        "hallmark": s.hallmark,
                    }
                    | ({"route": s.route} if s.route else {})
                    for s in steps
                ]
                for kind, steps in self.all_by_kind().items()
            },
            "sources": [{"id": s.id, "title": s.title, "url": s.url} for s in self.sources],
        }


@dataclass(frozen=True)
class NextSteps:
    """Every step of a knowledge base; ``problem`` says why a user's file was not used."""

    steps: tuple[Step, ...] = ()
    poison_centre: PoisonCentre | None = None
    sources: dict[str, Source] = field(default_factory=dict)
    problem: str = ""
    gaps: dict[str, Gap] = field(default_factory=dict)

    @classmethod
    def empty(cls) -> NextSteps:
        return cls()

    def covered(self) -> set[str]:
        """Class and chemical ids that have at least one step of their own."""
        return {t for s in self.steps for t in s.targets if t != ANY}

    def uncovered(self, class_ids) -> list[str]:
        """Those of ``class_ids`` with neither a step naming the class nor a ``[[gap]]``.

        A chemical's own steps do not cover its class: the other chemicals of the class
        would still show only the general steps.
        """
        covered = self.covered()
        return [c for c in class_ids if c not in covered and c not in self.gaps]

    def for_result(self, class_ids, chemical_ids=(), class_of=None) -> ResultSteps:
        """Steps for a result naming ``class_ids`` and (optionally) ``chemical_ids``.

        Chemical steps come before class steps before general ones within each kind; a step
        shared by several of the chemicals is listed once. ``class_of`` maps a chemical id
        to its class id: a class step is left out in favour of chemical steps marked
        ``replaces`` when every chemical of that class in the result has one of that kind
        (without ``class_of``, when every chemical of the result has one).
        """
        chems, classes = list(chemical_ids), list(class_ids)
        rank = {t: k for k, t in enumerate(chems + classes + [ANY])}
        replaced = self._replaced(chems, classes, class_of)
        chosen: dict[str, list[tuple[int, int, Step]]] = {}
        specific = False
        for order, step in enumerate(self.steps):
            hits = [t for t in step.targets if t in rank]
            if not hits:
                continue
            if all(t in replaced.get(step.kind, ()) for t in hits):
                continue
            specific |= any(t != ANY for t in hits)
            chosen.setdefault(step.kind, []).append((min(rank[t] for t in hits), order, step))
        ordered = [
            s
            for kind in STEP_KINDS
            for _, _, s in sorted(chosen.get(kind, ()), key=lambda t: t[:2])
        ]
        covered = self.covered()
        gaps = tuple(self.gaps[c] for c in classes if c in self.gaps and c not in covered)
        return ResultSteps(
            _by_kind(s for s in ordered if not s.hallmark),
            self.poison_centre,
            specific,
            gaps,
            hallmarks=tuple(s for s in ordered if s.hallmark),
        )

    def common_to(
        self, class_ids, labels=(), leader=(), leader_class: str | None = None
    ) -> ResultSteps:
        """The steps that hold for every class of ``class_ids``, for a result no candidate is
        confident of: the general steps, and a class step whose kind and text are given for
        each of the classes. ``labels`` name the classes (for the screen). The hallmark
        warnings of the ``leader`` chemical ids (and of ``leader_class``) come first, so
        what defines the most likely agent is never left out.
        """
        classes = list(dict.fromkeys(class_ids))
        wanted = set(classes)
        covers: dict[tuple[str, str], set[str]] = {}
        for step in self.steps:
            targets = set(step.targets)
            covers.setdefault((step.kind, step.text), set()).update(
                wanted if ANY in targets else targets & wanted
            )
        common = {key for key, have in covers.items() if have >= wanted}
        chosen: dict[str, list[Step]] = {}
        shown: set[tuple[str, str]] = set()
        lead = set(leader) | ({leader_class} if leader_class else set())
        hallmarks = []
        for step in self.steps:
            key = (step.kind, step.text)
            if step.hallmark and lead & set(step.targets) and key not in shown:
                hallmarks.append(step)
                shown.add(key)
        for step in self.steps:
            key = (step.kind, step.text)
            if key in common and key not in shown:
                chosen.setdefault(step.kind, []).append(step)
                shown.add(key)
        # class steps first, then the general ones, as for_result orders them
        by_kind = {
            kind: tuple(sorted(chosen[kind], key=lambda s: ANY in s.targets))
            for kind in STEP_KINDS
            if kind in chosen
        }
        specific = any(ANY not in s.targets for steps in by_kind.values() for s in steps)
        covered = self.covered()
        gaps = tuple(self.gaps[c] for c in classes if c in self.gaps and c not in covered)
        return ResultSteps(
            by_kind,
            self.poison_centre,
            specific or bool(hallmarks),
            gaps,
            hallmarks=tuple(hallmarks),
            common_to=tuple(labels) or tuple(classes),
        )

    def _replaced(self, chems: list[str], classes: list[str], class_of) -> dict[str, set[str]]:
        """Kind -> class ids whose steps of that kind the result's chemicals replace."""
        replacing: dict[str, set[str]] = {}
        for step in self.steps:
            if step.replaces:
                for t in step.targets:
                    if t in chems:
                        replacing.setdefault(step.kind, set()).add(t)
        out: dict[str, set[str]] = {}
        for kind, have in replacing.items():
            for cls in classes:
                members = [c for c in chems if class_of is None or class_of.get(c) == cls]
                if members and all(c in have for c in members):
                    out.setdefault(kind, set()).add(cls)
        return out

    def for_chemicals(self, chemicals, class_ids=()) -> ResultSteps:
        """Steps for a result naming ``chemicals`` (with their classes) and ``class_ids``."""
        classes = list(dict.fromkeys([c.class_id for c in chemicals] + list(class_ids)))
        keys = [chemical_key(c) for c in chemicals]
        class_of = {k: c.class_id for k, c in zip(keys, chemicals)}
        return self.for_result(classes, keys, class_of)


def _by_kind(steps) -> dict[str, tuple[Step, ...]]:
    out: dict[str, list[Step]] = {}
    for s in steps:
        out.setdefault(s.kind, []).append(s)
    return {kind: tuple(out[kind]) for kind in STEP_KINDS if kind in out}


def _issue(where: str, line: int | None, problem: str, fix: str) -> KBIssue:
    return KBIssue(where, line, problem, fix)


def _line_of(lines: list[str], start: int, needle: str) -> int | None:
    """1-based line of the first line at or after ``start`` that begins with ``needle``."""
    for k in range(max(start, 0), len(lines)):
        if lines[k].lstrip().startswith(needle):
            return k + 1
    return None


def _text(value) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def parse_next_steps(text: str, kb: KnowledgeBase, where: str) -> NextSteps:
    # ``kb`` needs only ``classes`` (with ``id``) and ``chemicals`` (``id`` or ``name``)
    """Parse and check ``next_steps.toml`` text against ``kb``; KBError lists every problem."""
    try:
        data = loads_toml(text, where)
    except InputRejected as exc:
        raise KBError([_issue(where, exc.line, exc.problem, exc.fix)]) from None
    lines = text.splitlines()
    issues: list[KBIssue] = []
    class_ids = {c.id for c in kb.classes}
    class_labels = {c.id: c.label for c in kb.classes}
    chemical_ids = {chemical_key(c) for c in kb.chemicals}
    known = {ANY} | class_ids | chemical_ids
    route_ids = {s.id for s in getattr(kb, "route_observations", ())}
    extra = set(data) - {"poison_centre", "source", "step", "gap"}
    for key in sorted(extra):
        issues.append(
            _issue(
                where,
                _line_of(lines, 0, key),
                f'unknown key "{key}"',
                "use only [poison_centre], [[source]], [[step]] and [[gap]]",
            )
        )

    def tables(key: str, fix: str):
        """Yield each [[key]] table with its line; a non-list value is one issue."""
        raw_list = data.get(key, [])
        if not isinstance(raw_list, list):
            issues.append(
                _issue(where, _line_of(lines, 0, key), f'"{key}" must be [[{key}]] tables', fix)
            )
            return
        cursor = 0
        for raw in raw_list:
            line = _line_of(lines, cursor, f"[[{key}]]")
            cursor = line or cursor
            yield raw, line

    sources: dict[str, Source] = {}
    for raw, line in tables(
        "source", "write each document as a [[source]] table with id, title and url"
    ):
        sid, title, url = (
            _text(raw.get(k)) if isinstance(raw, dict) else None for k in ("id", "title", "url")
        )
        if not (sid and title and url):
            issues.append(
                _issue(
                    where,
                    line,
                    "a [[source]] lacks id, title or url",
                    "give every source an id, the document's title and where it was read",
                )
            )
            continue
        if not url.startswith(("http://", "https://")):
            issues.append(
                _issue(
                    where,
                    line,
                    f'source "{sid}" has no web address',
                    "set url to the http(s) address where the document was read",
                )
            )
        if sid in sources:
            issues.append(
                _issue(
                    where,
                    line,
                    f'source id "{sid}" is used twice',
                    "give each [[source]] its own id",
                )
            )
        sources[sid] = Source(sid, title, url)

    def source_of(raw: dict, line: int | None) -> Source | None:
        sid = raw.get("source")
        if sid in sources:
            return sources[sid]
        close = ", ".join(sorted(sources)[:8]) or "none defined"
        issues.append(
            _issue(
                where,
                line,
                f'source "{sid}" is not a [[source]] id',
                f"name one of the [[source]] ids ({close})",
            )
        )
        return None

    centre = None
    raw_centre = data.get("poison_centre")
    if raw_centre is not None:
        line = _line_of(lines, 0, "[poison_centre]")
        if not isinstance(raw_centre, dict) or not _text(raw_centre.get("line")):
            issues.append(
                _issue(where, line, "[poison_centre] has no line", 'set line = "<phone number>"')
            )
        else:
            src = source_of(raw_centre, line) if "source" in raw_centre else None
            centre = PoisonCentre(
                _text(raw_centre["line"]),
                _text(raw_centre.get("label")) or "",
                _text(raw_centre.get("note")) or "",
                src,
            )

    steps: list[Step] = []
    seen: set[tuple] = set()

    def targeted(key: str, table_fix: str, for_fix: str):
        """Yield (table, line, targets) for each [[key]] table with a usable "for"; report the rest."""
        for raw, line in tables(key, table_fix):
            if not isinstance(raw, dict):
                issues.append(_issue(where, line, f"a {key} is not a table", table_fix))
                continue
            targets = raw.get("for")
            targets = [targets] if isinstance(targets, str) else targets
            if (
                not targets
                or not isinstance(targets, list)
                or not all(isinstance(t, str) for t in targets)
            ):
                issues.append(_issue(where, line, f'a [[{key}]] has no "for"', for_fix))
                continue
            yield raw, line, targets

    for raw, line, targets in targeted(
        "step",
        "write each step as a [[step]] table",
        'set for = a class id, a chemical id, a list of them, or "any"',
    ):
        unknown = [t for t in targets if t not in known]
        for t in unknown:
            issues.append(
                _issue(
                    where,
                    line,
                    f'"{t}" is not a class id, a chemical id or "any"',
                    "use an id from classes.toml or a chemical's id (kb info --json)",
                )
            )
        kind = raw.get("kind")
        if kind not in STEP_KINDS:
            issues.append(
                _issue(
                    where,
                    line,
                    f'step kind "{kind}" is unknown',
                    "use one of " + ", ".join(f'"{k}"' for k in STEP_KINDS),
                )
            )
        text_value = _text(raw.get("text"))
        if not text_value:
            issues.append(_issue(where, line, "a [[step]] has no text", "write what to do in text"))
        elif len(text_value) > MAX_STEP_CHARS:
            issues.append(
                _issue(
                    where,
                    line,
                    f"step text is {len(text_value)} characters",
                    f"keep a step to {MAX_STEP_CHARS} characters; the source has the detail",
                )
            )
        src = source_of(raw, line)
        replaces = raw.get("replaces", False)
        bad_replaces = False
        if not isinstance(replaces, bool):
            issues.append(
                _issue(
                    where,
                    line,
                    "replaces must be true or false",
                    "write replaces = true, or leave it out",
                )
            )
            bad_replaces = True
        elif replaces and not all(t in chemical_ids for t in targets):
            issues.append(
                _issue(
                    where,
                    line,
                    "replaces = true on a step that is not for chemicals only",
                    "only a chemical's own step can stand in for its class's steps; "
                    "give it chemical ids in for, or remove replaces",
                )
            )
            bad_replaces = True
        route = raw.get("route", "")
        bad_route = bool(route) and (not isinstance(route, str) or route not in route_ids)
        if bad_route:
            issues.append(
                _issue(
                    where,
                    line,
                    f'step route "{route}" is not a route of exposure',
                    "name a route observation ("
                    + (", ".join(sorted(route_ids)) or "none in this knowledge base")
                    + "), or leave route out for every victim",
                )
            )
        hallmark = raw.get("hallmark", False)
        if not isinstance(hallmark, bool):
            issues.append(
                _issue(
                    where,
                    line,
                    "hallmark must be true or false",
                    "write hallmark = true for a warning that defines the agent, or leave it out",
                )
            )
        if (
            unknown
            or kind not in STEP_KINDS
            or not text_value
            or src is None
            or len(text_value) > MAX_STEP_CHARS
            or bad_replaces
            or not isinstance(hallmark, bool)
            or bad_route
        ):
            continue
        key = (tuple(targets), kind, text_value)
        if key in seen:
            issues.append(
                _issue(where, line, "this step repeats an earlier one", "delete one of them")
            )
            continue
        seen.add(key)
        steps.append(
            Step(tuple(targets), kind, text_value, src, line, replaces, hallmark, route or "")
        )

    gaps: dict[str, Gap] = {}
    with_steps = {t for s in steps for t in s.targets}
    for raw, line, targets in targeted(
        "gap",
        "write each gap as a [[gap]] table with for and reason",
        "set for = the class id (or a list of class ids) left without steps",
    ):
        reason = _text(raw.get("reason"))
        if not reason:
            issues.append(
                _issue(
                    where,
                    line,
                    "a [[gap]] has no reason",
                    "say why the class has no steps (what was searched, what was missing)",
                )
            )
        elif len(reason) > MAX_GAP_CHARS:
            issues.append(
                _issue(
                    where,
                    line,
                    f"gap reason is {len(reason)} characters",
                    f"keep a reason to {MAX_GAP_CHARS} characters",
                )
            )
            reason = None
        for t in targets:
            if t not in class_ids:
                issues.append(
                    _issue(
                        where,
                        line,
                        f'gap "{t}" is not a class id',
                        "a [[gap]] is for a class id from classes.toml",
                    )
                )
            elif t in with_steps:
                issues.append(
                    _issue(
                        where,
                        line,
                        f'class "{t}" has steps and is also listed as a gap',
                        "remove the [[gap]], or the steps",
                    )
                )
            elif t in gaps:
                issues.append(
                    _issue(
                        where,
                        line,
                        f'class "{t}" is listed as a gap twice',
                        "keep one [[gap]] for it",
                    )
                )
            elif reason:
                gaps[t] = Gap(t, reason, line, class_labels.get(t, t))
    if issues:
        raise KBError(issues)
    return NextSteps(tuple(steps), centre, sources, gaps=gaps)


def load_next_steps(kb: KnowledgeBase, folder: str | Path | None = None) -> NextSteps:
    """The next steps of ``kb``: the bundled file for the bundled KB, else ``folder``'s file.

    A folder without the file gives ``NextSteps.empty()``.
    """
    if folder is None:
        # the bundled knowledge base's own folder: a checkout's kb/ beside its code, as for
        # the rest of it (an editable install elsewhere would map another clone's file)
        from responder.kb.loader import bundled_root  # noqa: PLC0415 (loader imports model)

        entry = bundled_root().joinpath(NEXT_STEPS_FILE)
        if not entry.is_file():
            return NextSteps.empty()
        where = str(entry)
        raw = entry.read_bytes()
    else:
        path = Path(folder) / NEXT_STEPS_FILE
        if not path.exists():
            return NextSteps.empty()
        where = str(path)
        try:
            raw = read_bytes(path, "knowledge-base file")
        except InputRejected as exc:
            raise KBError([_issue(where, None, exc.problem, exc.fix)]) from None
    try:
        text = decode_text(raw, where, "knowledge-base file")
    except InputRejected as exc:
        raise KBError([_issue(where, None, exc.problem, exc.fix)]) from None
    return parse_next_steps(text, kb, where)


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def steps_for(knowledge) -> NextSteps:
    """The next steps of a loaded knowledge base, read once and kept with it.

    The bundled knowledge base uses the bundled file; a folder uses its own
    ``next_steps.toml``. A file that fails its checks gives no steps and says why in
    ``problem`` (shown once by the app), never an exception.
    """
    try:
        return _CACHE[knowledge]
    except (KeyError, TypeError):
        pass
    origin = Path(str(getattr(knowledge, "origin", "")))
    try:
        if getattr(knowledge, "name", "") == "bundled":
            found = load_next_steps(knowledge)
        elif origin.is_dir():
            found = load_next_steps(knowledge, origin)
        else:
            found = NextSteps.empty()
    except KBError as exc:
        found = NextSteps(problem=f"next steps not shown: {exc.issues[0]}")
    try:
        _CACHE[knowledge] = found
    except TypeError:
        pass
    return found


def result_steps(knowledge, result, routes=()) -> ResultSteps:
    """The steps for an interview result (a result view with ``kind``, ``candidates``,
    ``classes``, ``confident`` and ``leading_classes``).

    A confident result gets the steps of its leading chemical (every chemical of an
    identical-profile set) and their classes, or of the class it names. While no candidate is
    confident, only the steps common to the leading classes, with the leading chemical's
    hallmark warnings first. ``routes`` (the route observations any victim answered yes)
    put the steps for other routes of exposure last in their kind
    (:meth:`ResultSteps.for_routes`).
    """
    return _result_steps(knowledge, result).for_routes(routes)


def _result_steps(knowledge, result) -> ResultSteps:
    ns = steps_for(knowledge)
    leader = result.candidates[0].chemicals if result.candidates else ()
    if not getattr(result, "confident", True):
        leading = getattr(result, "leading_classes", ()) or tuple(c for c, _ in result.classes[:1])
        return ns.common_to(
            [c.id for c in leading],
            [c.label for c in leading],
            leader=[chemical_key(c) for c in leader],
            leader_class=leader[0].class_id if leader else None,
        )
    if result.kind == "class":
        return ns.for_result([result.classes[0][0].id])
    return ns.for_chemicals(list(leader))


def format_steps_text(steps: ResultSteps, what: str) -> str:
    """Plain text of ``steps``, kind by kind, each step numbered by its source (title and
    address listed last), as the result screen orders them; ``what`` names the result."""
    if not steps:
        return "No next steps are recorded in this knowledge base."
    out = []
    pc = steps.poison_centre
    if pc is not None:
        out.append(f"Poison centre: {pc.line}" + (f" ({pc.label})" if pc.label else ""))
        if pc.note:
            out.append(f"  {pc.note}")
    numbers = {s.id: k for k, s in enumerate(steps.sources, start=1)}
    if steps.hallmarks:
        out += ["", hallmark_heading(steps, what)]
        out += [f"  ! {step.text} [{numbers[step.source.id]}]" for step in steps.hallmarks]
    if steps.common_to:
        out += ["", common_heading(steps)]
    elif not steps.specific:
        out.append(f"No steps specific to {what} are recorded; general first aid only.")
    out += [f"Why no steps for {g.label or g.class_id}: {g.reason}" for g in steps.gaps]
    if steps.first:  # one step of each kind to act on first, as the result screen lists them
        out += ["", "First, one step of each kind"]
        out += [
            f"  > {FIRST_LABELS[step.kind]}: {step.text} [{numbers[step.source.id]}]"
            for step in steps.first
        ]
    rest = steps.rest_by_kind()
    if steps.first and rest:
        out += ["", "More steps, kind by kind:"]
    for kind, items in rest.items():
        out += ["", KIND_LABELS[kind]]
        out += [f"  - {step.text} [{numbers[step.source.id]}]" for step in items]
    out += ["", "Sources"]
    out += [f"  [{numbers[s.id]}] {s.title} <{s.url}>" for s in steps.sources]
    return "\n".join(out)


def hallmark_heading(steps: ResultSteps, what: str) -> str:
    """The heading over the hallmark warnings: whose they are."""
    if steps.common_to:
        return f"Warning for the most likely, {what}"
    return f"Warning for {what}"


def common_heading(steps: ResultSteps) -> str:
    """What the steps below are while no candidate is confident."""
    return common_heading_text(steps.common_to)


def common_heading_text(labels) -> str:
    names = ", ".join(labels)
    if len(labels) == 1:
        return f"No chemical is confident yet: the steps for its class, {names}"
    return f"No candidate is confident yet: only the steps common to {names}"


def act_now_message(urgent_labels, poison_centre: PoisonCentre | None, others=()) -> str | None:
    """The act-now line for life-threatening "yes" answers (None when there are none):
    ``urgent_labels`` the victim being asked shows, ``others`` (victim label, its labels)
    for each other victim with one, named so that switching victims never hides them.

    It never waits for an identification: life support comes first whatever the agent.
    """
    labels = list(dict.fromkeys(urgent_labels))
    parts = [", ".join(labels)] if labels else []
    parts += [f"{who}: {', '.join(dict.fromkeys(signs))}" for who, signs in others if signs]
    if not parts:
        return None
    what = "; ".join(parts)
    line = (
        f"ACT NOW: {what}. Start life support and call emergency services (911) now; "
        "keep answering when you can."
    )
    if poison_centre is not None:
        line += f" Poison centre {poison_centre.line}."
    return line
