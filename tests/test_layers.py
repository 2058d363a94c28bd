"""The layers of docs/architecture.md: the engine is pure numpy, nothing outside the app
imports textual, and no layer imports one above it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import responder
import responder.engine

PACKAGE_DIR = Path(responder.__file__).resolve().parent
ENGINE_DIR = Path(responder.engine.__file__).resolve().parent
FORBIDDEN = ("textual", "rich")

# What each layer may import from responder (besides itself). The app and the command line
# sit on top and may import everything below them.
MAY_IMPORT = {
    "engine": set(),
    "kb": {"engine", "paths", "input_limits"},
    "config": {"engine"},  # the interview configuration: the engine validates its numbers
    "settings": {"config", "paths", "input_limits", "durable", "engine"},
    "core": {
        "config",
        "engine",
        "kb",
        "settings",
        "paths",
        "input_limits",
        "durable",
        "__version__",
    },
    "experiments": {"engine", "kb", "paths", "input_limits", "durable"},
}


def engine_modules() -> list[Path]:
    files = sorted(ENGINE_DIR.rglob("*.py"))
    assert files, f"no modules found under {ENGINE_DIR}"
    return files


def imported_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, (ast.Name, ast.Attribute))
            and getattr(node.func, "id", getattr(node.func, "attr", ""))
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            names.add(str(node.args[0].value))
    return names


def test_no_engine_module_imports_textual():
    offenders = {}
    for path in engine_modules():
        bad = {n for n in imported_names(path) if n.split(".")[0] in FORBIDDEN}
        if bad:
            offenders[str(path.relative_to(ENGINE_DIR))] = sorted(bad)
    assert not offenders, f"engine modules import UI packages: {offenders}"


def test_engine_only_imports_numpy_stdlib_and_itself():
    allowed_third_party = {"numpy"}
    for path in engine_modules():
        for name in imported_names(path):
            top = name.split(".")[0]
            if top == "responder":
                # The engine stands alone: no app, knowledge-base or command modules.
                assert name.startswith("responder.engine"), f"{path.name} imports {name}"
                continue
            if top == "__future__" or top in sys.stdlib_module_names:
                continue
            assert top in allowed_third_party, f"{path.name} imports {name}"


def test_importing_every_engine_module_leaves_textual_unloaded():
    modules = [
        "responder.engine." + p.relative_to(ENGINE_DIR).with_suffix("").as_posix().replace("/", ".")
        for p in engine_modules()
        if p.name != "__init__.py"
    ]
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print(','.join(bad))\n"
        "sys.exit(1 if bad else 0)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"loaded: {proc.stdout.strip()} {proc.stderr.strip()}"


def package_modules() -> list[Path]:
    files = sorted(PACKAGE_DIR.rglob("*.py"))
    assert len(files) > 30, f"too few modules found under {PACKAGE_DIR}"
    return files


def layer_of(path: Path) -> str:
    rel = path.relative_to(PACKAGE_DIR)
    return rel.parts[0].removesuffix(".py")


def test_nothing_outside_the_app_imports_textual():
    offenders = {}
    for path in package_modules():
        if layer_of(path) == "app":
            continue
        bad = {n for n in imported_names(path) if n.split(".")[0] == "textual"}
        if bad:
            offenders[str(path.relative_to(PACKAGE_DIR))] = sorted(bad)
    assert not offenders, f"modules outside responder/app import textual: {offenders}"


def test_layers_import_only_what_is_below_them():
    checked = set()
    for path in package_modules():
        layer = layer_of(path)
        if layer not in MAY_IMPORT:
            continue
        checked.add(layer)
        allowed = MAY_IMPORT[layer] | {layer}
        for name in imported_names(path):
            parts = name.split(".")
            if parts[0] != "responder" or len(parts) == 1:
                continue  # `from responder import __version__` is the package itself
            assert parts[1] in allowed, f"{path.relative_to(PACKAGE_DIR)} imports {name}"
    assert checked == set(MAY_IMPORT)


def test_importing_the_headless_core_leaves_textual_unloaded():
    code = (
        "import sys\n"
        "import responder.core.session, responder.core.views, responder.core.export\n"
        "import responder.core.store, responder.core.journal_import, responder.core.remaining\n"
        "import responder.settings, responder.cli.incidents\n"
        "import responder.cli.eval, responder.cli.simulate, responder.cli.kb\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] == 'textual')\n"
        "print(','.join(bad))\n"
        "sys.exit(1 if bad else 0)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"loaded: {proc.stdout.strip()} {proc.stderr.strip()}"


SESSION_FIELDS = {"at", "volunteered", "timestamp"}  # when and how an answer was given
SESSION_METHODS = {"undo", "restore"}  # the answer history a responder steps back through
CLOCK_MODULES = {"time", "datetime", "uuid"}
CLOCK_ALLOWED = {"workload.py"}  # time limits on the exact E[K] computation


def test_the_engine_holds_no_session_concerns():
    """Answer times, the volunteered flag and undo belong to the headless core
    (responder.core.answers); the engine keeps only the current answer to each query."""
    offenders = []
    for path in engine_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name in SESSION_METHODS:
                offenders.append(f"{path.name}: def {node.name}")
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if (
                        isinstance(item, ast.AnnAssign)
                        and isinstance(item.target, ast.Name)
                        and item.target.id in SESSION_FIELDS
                    ):
                        offenders.append(f"{path.name}: {node.name}.{item.target.id}")
        if path.name not in CLOCK_ALLOWED:
            clocks = {n for n in imported_names(path) if n.split(".")[0] in CLOCK_MODULES}
            if clocks:
                offenders.append(f"{path.name} imports {sorted(clocks)}")
    assert not offenders, f"session concerns in the engine: {offenders}"
    from responder.core.answers import AnswerLog, AnswerRecord  # where they live now

    assert {"at", "volunteered"} <= set(AnswerRecord.__dataclass_fields__)
    assert callable(AnswerLog.undo)


# -- one owner per concept --------------------------------------------------------------

#: Calls that choose or ask the next question: a loop around one of them is an interview loop.
CHOOSING_CALLS = {
    "suggestion",
    "suggest_symptom",
    "suggest_category",
    "next_query",
    "pick_query",
    "choose",
    "choose_batch",
}
INTERVIEW_MODULE = PACKAGE_DIR / "engine" / "interview.py"


def _calls(tree) -> set[str]:
    return {
        getattr(node.func, "attr", getattr(node.func, "id", ""))
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
    }


def test_auto_eps_is_defined_once():
    """Automatic eps is worked out in one function; nothing else defines one by that name."""
    where = [
        str(path.relative_to(PACKAGE_DIR))
        for path in package_modules()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "auto_eps"
    ]
    assert where == ["engine/diagnostics.py"], where


def test_the_engine_never_branches_on_the_answer_mode():
    """Each answer model is a backend (engine/backends.py): no engine code compares
    ``self.mode`` to pick behaviour."""
    offenders = []
    for path in engine_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                for side in (node.left, *node.comparators):
                    if (
                        isinstance(side, ast.Attribute)
                        and side.attr == "mode"
                        and isinstance(side.value, ast.Name)
                        and side.value.id == "self"
                    ):
                        offenders.append(f"{path.name}:{node.lineno}")
    assert not offenders, offenders


def test_every_interview_loop_is_in_the_interview_module():
    """A loop that chooses the next question lives in engine/interview.py
    (run_interview and its batched form); everything else calls them."""
    offenders = []
    for path in package_modules():
        if path == INTERVIEW_MODULE:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.While, ast.For)) and _calls(node) & CHOOSING_CALLS:
                offenders.append(f"{path.relative_to(PACKAGE_DIR)}:{node.lineno}")
    assert not offenders, offenders
    inside = _calls(ast.parse(INTERVIEW_MODULE.read_text(encoding="utf-8")))
    assert {"next_query", "choose_batch"} <= inside


def test_no_issue_history_notes_in_code_or_tests():
    """History belongs in commits: no "issue 12" or "(issue 10, item 4)" in the package or
    the tests."""
    import re

    note = re.compile(r"\bissues? ?#?\d+", re.IGNORECASE)
    this = Path(__file__).resolve()
    found = [
        f"{path.relative_to(PACKAGE_DIR.parent)}:{n}"
        for folder in (PACKAGE_DIR, PACKAGE_DIR.parent / "tests")
        for path in sorted(folder.rglob("*.py"))
        if path != this
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if note.search(line)
    ]
    assert found == []
