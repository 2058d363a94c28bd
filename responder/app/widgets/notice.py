"""A notice: the line above the footer of a full screen (what a toast would say, without
covering the result or the history), and the export's notice, its paths broken only at
their separators."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.widgets import Static

#: how long a notice stays, by severity (seconds)
NOTICE_SECONDS = {"information": 6.0, "warning": 12.0, "error": 20.0}
STYLES = {"error": "bold red", "warning": "yellow"}


class NoticeLine(Static):
    """Hidden until it has something to say; says it for a while, on one or two lines."""

    DEFAULT_CSS = """
    NoticeLine {
        height: auto;
        max-height: 2;
        background: $boost;
        padding: 0 1;
        display: none;
    }
    """

    can_focus = False

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._timer = None
        self.message = ""

    def say(self, message: str, severity: str = "information", timeout=None) -> None:
        self.message = " ".join(message.split())
        text = Text(self.message, style=STYLES.get(severity, ""))
        self.update(text)
        self.display = True
        if self._timer is not None:
            self._timer.stop()
        seconds = timeout if timeout is not None else NOTICE_SECONDS.get(severity, 6.0)
        self._timer = self.set_timer(seconds, self.clear)

    def clear(self) -> None:
        self._timer = None
        self.message = ""
        self.display = False


def wrap_path(path: str, width: int) -> list[str]:
    """``path`` on lines of at most ``width`` characters, broken after a separator so each
    line is a whole run of folder names (a name longer than a line is cut where it must)."""
    lines, line = [], ""
    for part in path.replace("/", "/\0").split("\0"):
        if line and len(line) + len(part) > width:
            lines.append(line)
            line = ""
        while len(part) > width:
            lines.append(part[:width])
            part = part[width:]
        line += part
    if line:
        lines.append(line)
    return lines


def wrap_message(message: str, width: int) -> str:
    """``message`` on lines of at most ``width`` characters for a toast, broken at spaces as
    the toast would, but a path too long for the rest of its line broken only after its
    separators (the toast cut 'incidents.sqlite' into 'incidents.sqli' and 'te'). Line
    breaks already in the message stay."""
    out = []
    for paragraph in message.split("\n"):
        lines, line = [], ""
        for word in paragraph.split():
            joined = f"{line} {word}" if line else word
            if len(joined) <= width:
                line = joined
                continue
            if "/" not in word:
                if line:
                    lines.append(line)
                line = word
                while len(line) > width:  # a word longer than a line: cut where it must be
                    lines.append(line[:width])
                    line = line[width:]
                continue
            pieces = word.replace("/", "/\0").split("\0")
            # as much of the path as fits on this line, the rest after a separator
            lead = f"{line} " if line else ""
            k = 0
            while k < len(pieces) and len(lead + "".join(pieces[: k + 1])) <= width:
                k += 1
            if "".join(pieces[:k]) == "/":  # a lone root at a line's end reads as a slash
                k = 0
            if k:
                lines.append(lead + "".join(pieces[:k]))
            elif line:
                lines.append(line)
            rest = wrap_path("".join(pieces[k:]), width)
            lines += rest[:-1]
            line = rest[-1] if rest else ""
        if line:
            lines.append(line)
        out.append("\n".join(lines))
    return "\n".join(out)


def exported_notice(markdown: Path, json: Path, width: int | None = None) -> str:
    """What an export wrote, for a toast ``width`` characters wide: the folder wrapped at its
    separators, then each file name whole on its own line (the common name and both endings
    when a name is wider). With no width, one line for a status line that wraps at spaces."""
    folder = str(markdown.parent).rstrip("/") + "/"
    if width is None:
        return f"Exported to {folder}: {markdown.name} and {json.name}"
    if max(len(markdown.name), len(json.name)) <= width:
        names = [markdown.name, json.name]
    else:
        names = [markdown.stem, f"{markdown.suffix} and {json.suffix}"]
    return "\n".join(["Exported to", *wrap_path(folder, width), *names])
