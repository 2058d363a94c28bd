"""How the app is built: widgets show view objects, screens post messages to change the
interview, each widget's look is next to it, and app.tcss holds the layout only."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import responder.app

APP = Path(responder.app.__file__).resolve().parent
SCREENS = sorted((APP / "screens").glob("*.py"))
WIDGETS = sorted((APP / "widgets").glob("*.py"))

#: the app's methods that change the interview or open a screen: a screen asks by message
CHANGES = {
    "record_answer",
    "change_answer",
    "answer_group_none",
    "undo_last",
    "change_modes",
    "add_victim",
    "select_victim",
    "show_scene",
    "show_result",
    "save_settings",
    "new_interview",
}


def calls_on_the_app(path: Path) -> list[str]:
    """Names called as ``self.app.<name>(...)`` in a module."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr == "app"
        ):
            names.append(node.func.attr)
    return names


def test_screens_and_widgets_post_messages_instead_of_changing_the_interview():
    for path in SCREENS + WIDGETS:
        called = calls_on_the_app(path)
        assert not CHANGES & set(called), (path.name, sorted(CHANGES & set(called)))
        assert not [n for n in called if n.startswith("action_")], (path.name, called)


def test_panels_take_view_objects_not_the_interview():
    for path in WIDGETS:
        text = path.read_text(encoding="utf-8")
        assert "core.session" not in text and "Interview" not in text.replace(
            "InterviewScreen", ""
        ), path.name


def test_every_widget_and_full_screen_brings_its_own_css():
    from textual.widget import Widget

    import responder.app.widgets.notice as notice
    import responder.app.widgets.panels as panels

    for module in (panels, notice):
        for obj in vars(module).values():
            if (
                isinstance(obj, type)
                and issubclass(obj, Widget)
                and obj.__module__ == module.__name__
            ):
                assert "DEFAULT_CSS" in vars(obj), obj.__name__


def test_app_tcss_holds_the_layout_only():
    css = (APP / "app.tcss").read_text(encoding="utf-8")
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    looks = re.findall(r"^\s*(border[\w-]*|background|color|padding|text-style)\s*:", css, re.M)
    assert not looks, looks
