"""Radio buttons and checkboxes whose mark shows the state without colour: ● / ○ and ✓ / blank.

Textual's own draw the same mark for on and off and tell them apart by colour only, which
is lost on a monochrome screen, in bright sunlight, or for a colour-blind responder.
"""

from __future__ import annotations

from textual.widgets import Checkbox, RadioButton


class MarkedRadioButton(RadioButton):
    @property
    def BUTTON_INNER(self) -> str:  # noqa: N802 (Textual's attribute name)
        return "●" if self.value else "○"


class MarkedCheckbox(Checkbox):
    @property
    def BUTTON_INNER(self) -> str:  # noqa: N802
        return "✓" if self.value else " "
