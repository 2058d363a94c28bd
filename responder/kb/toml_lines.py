"""Line numbers in a TOML text, for messages that point at a line.

tomllib gives no line numbers for values, so lines are found by scanning the text: the
``[[table]]`` headers in order, then the ``key =`` line or the quoted value inside that table.
"""

from __future__ import annotations

import re

# a key the first-line index below cannot hold (spaces or "=" inside): scanned for each time
_ODD_KEY = re.compile(r"[\s=]")


class TomlLines:
    """Line numbers of tables, keys and values in a TOML text (1-based)."""

    _HEADER = re.compile(r"^\s*\[\[?\s*([^\[\]#]+?)\s*\]\]?\s*(?:#.*)?$")
    _KEY = re.compile(r"^\s*([^\s=]+)\s*=")  # a bare key and its "="

    def __init__(self, text: str):
        self.lines = text.split("\n")  # as tomllib counts: only "\n" ends a line
        self.headers: list[tuple[int, str, bool]] = []  # (line, name, is_array_table)
        # header positions of each [[name]], so finding the k-th table is O(1), not O(tables)
        self._array_tables: dict[str, list[int]] = {}
        self._span_keys: dict[tuple[int, int], dict[str, int]] = {}
        for n, raw in enumerate(self.lines, start=1):
            m = self._HEADER.match(raw)
            if m:
                name = m.group(1).strip().strip('"').strip("'")
                is_array = raw.strip().startswith("[[")
                if is_array:
                    self._array_tables.setdefault(name, []).append(len(self.headers))
                self.headers.append((n, name, is_array))

    def table(self, name: str, k: int) -> tuple[int, int] | None:
        """(first, end) lines of the k-th ``[[name]]`` table; end is exclusive."""
        starts = self._array_tables.get(name, [])
        if k >= len(starts):
            return None
        i = starts[k]
        first = self.headers[i][0]
        end = self.headers[i + 1][0] if i + 1 < len(self.headers) else len(self.lines) + 1
        return first, end

    def top(self) -> tuple[int, int]:
        """Lines before the first table header."""
        end = self.headers[0][0] if self.headers else len(self.lines) + 1
        return 1, end

    def key(self, span: tuple[int, int] | None, key: str) -> int | None:
        """Line of the ``key =`` line within ``span`` (None if there is none)."""
        if span is None:
            return None
        if not _ODD_KEY.search(key):  # a bare key: from the span's keys, found once
            keys = self._span_keys.get(span)
            if keys is None:
                keys = self._span_keys[span] = {}
                for n in range(span[0], span[1]):
                    m = self._KEY.match(self.lines[n - 1])
                    if m:
                        keys.setdefault(m.group(1), n)
            return keys.get(key)
        pat = re.compile(rf"^\s*{re.escape(key)}\s*=")
        for n in range(span[0], span[1]):
            if pat.match(self.lines[n - 1]):
                return n
        return None

    def value(self, span: tuple[int, int] | None, key: str, value: str) -> int | None:
        """Line of the quoted ``value`` within ``key``'s value (which may span lines)."""
        start = self.key(span, key)
        if start is None:
            return None
        quoted = (f'"{value}"', f"'{value}'")
        for n in range(start, span[1]):
            if any(q in self.lines[n - 1] for q in quoted):
                return n
        return start


def value_line(lines: TomlLines, path: list) -> int | None:
    """Line of a value given by its key path, e.g. ["chemical", 3, "prior"]."""
    if len(path) >= 3 and isinstance(path[1], int) and isinstance(path[2], str):
        span = lines.table(str(path[0]), path[1])
        return lines.key(span, path[2]) or (span[0] if span else None)
    if path and isinstance(path[0], str):
        return lines.key(lines.top(), path[0])
    return None
