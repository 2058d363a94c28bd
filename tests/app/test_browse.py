"""The browse screen fits its panel: nothing scrolls sideways, and the symptom counts (up to
three digits on the bundled knowledge base) are never cut, at 80, 120 and 200 columns."""

from __future__ import annotations

import pytest
from app_helpers import settle, until
from conftest import make_app
from textual.widgets import DataTable

from responder.app.screens.browse import BrowseScreen


@pytest.mark.parametrize("size", [(80, 24), (120, 36), (200, 50)])
async def test_browse_tables_fit_and_show_whole_counts(size):
    app = make_app(None)  # the bundled knowledge base: counts up to three digits
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("b")
        assert await until(pilot, lambda: isinstance(app.screen, BrowseScreen))
        for tab in ("chem-table", "sym-table"):
            if tab == "sym-table":
                await pilot.press("tab")
            table = app.screen.query_one(f"#{tab}", DataTable)
            assert await until(
                pilot, lambda table=table: table.size.width > 0 and table.row_count > 0
            )
            await settle(pilot, 3)
            # Every column inside the visible width: no sideways scrolling.
            assert table.virtual_size.width <= table.size.width, (tab, size)
        B = app.knowledge.problem.matrix
        shown = [str(table.get_row_at(r)[2]) for r in range(table.row_count)]
        expected = [str(int(B[:, q].sum())) for q in app.screen.sym_rows]
        assert shown == expected and max(map(len, expected)) >= 3
        count_width = table.ordered_columns[2].get_render_width(table)
        assert count_width >= max(map(len, expected)) + 2  # the number and its padding


async def test_a_long_list_fills_in_a_few_batches_in_order(monkeypatch):
    """The chemicals' table was filled a screenful (25 rows) per refresh: 2,000 imported
    chemicals took 80 repaints after every letter typed in the filter, 5-18 s of a real
    terminal's time. After the first screenful each batch is as large as the rows before it
    (25, 25, 50, 100, ...), so the bundled 274 chemicals take five and every row comes once,
    in the ranking's order."""
    batches: list[tuple[str, int]] = []
    real_add_rows = DataTable.add_rows

    def counted(table, rows):
        rows = list(rows)
        batches.append((table.id, len(rows)))
        return real_add_rows(table, rows)

    monkeypatch.setattr(DataTable, "add_rows", counted)
    app = make_app(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("b")
        assert await until(pilot, lambda: isinstance(app.screen, BrowseScreen))
        table = app.screen.query_one("#chem-table", DataTable)
        n = len(app.knowledge.chemicals)
        assert await until(pilot, lambda: table.row_count == n)
        await settle(pilot, 3)
        sizes = [k for tid, k in batches if tid == "chem-table"]
        assert sizes == [25, 25, 50, 100, n - 200], sizes
        names = [str(table.get_row_at(r)[1]) for r in range(n)]
        ranked = [app.knowledge.chemicals[i].name for i in app.screen.chem_rows]
        assert [name.rstrip("…") for name in names] == [
            r[: len(name.rstrip("…"))] for r, name in zip(ranked, names, strict=True)
        ]
