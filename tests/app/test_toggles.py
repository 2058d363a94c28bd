"""Radio buttons and checkboxes show their state by their mark, not by colour alone: the
chosen and the other option of a radio set never draw the same mark."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import RadioSet

from responder.app.widgets.toggles import MarkedCheckbox, MarkedRadioButton


class Toggles(App):
    def compose(self) -> ComposeResult:
        with RadioSet():
            yield MarkedRadioButton("one", value=True, id="one")
            yield MarkedRadioButton("two", id="two")
        yield MarkedCheckbox("box", id="box")


async def test_selected_and_unselected_options_have_different_marks():
    app = Toggles()
    async with app.run_test() as pilot:
        one, two = app.query_one("#one"), app.query_one("#two")
        assert one.value and not two.value
        assert one.BUTTON_INNER != two.BUTTON_INNER
        marks = {one.BUTTON_INNER, two.BUTTON_INNER}
        two.value = True  # the radio set switches the other off
        await pilot.pause()
        assert not one.value and two.value
        assert {one.BUTTON_INNER, two.BUTTON_INNER} == marks and two.BUTTON_INNER == "●"
        box = app.query_one("#box")
        before = box.BUTTON_INNER
        box.toggle()
        await pilot.pause()
        assert box.BUTTON_INNER != before and {before, box.BUTTON_INNER} == {"✓", " "}
