"""Writing results: Markdown tables, raw JSON and (when matplotlib is importable) plots."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import numpy as np

from responder.durable import atomic_write_bytes, atomic_write_text


def fmt(x, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    return f"{x:.{digits}f}"


def fmt_pm(mean, half, digits: int = 3) -> str:
    if mean is None:
        return "–"
    if half is None:
        return fmt(mean, digits)
    return f"{mean:.{digits}f} ± {half:.{digits}f}"


def md_table(headers: list[str], rows: list[list]) -> str:
    """A GitHub Markdown table."""
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for row in rows:
        out.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(out) + "\n"


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        f = float(obj)
        return f if math.isfinite(f) else None
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    return obj


def write_json(path: Path, data) -> None:
    atomic_write_text(path, json.dumps(_jsonable(data), indent=2, allow_nan=False) + "\n")


def write_text(path: Path, text: str) -> None:
    atomic_write_text(path, text)


def write_results(ctx, name: str, data: dict, markdown, plot) -> dict:
    """An experiment's common ending: ``NAME.json`` (the raw ``data``), ``NAME.md`` from
    ``markdown(ctx, data)`` and the figures of ``plot(ctx, data)``, all in ``ctx.out``.
    Returns ``data`` with ``data["figures"]`` set to the figure file names."""
    write_json(ctx.out / f"{name}.json", data)
    write_text(ctx.out / f"{name}.md", markdown(ctx, data))
    data["figures"] = plot(ctx, data)
    return data


def settings_caption(error_bars: str, seed: int, settings: str) -> str:
    """The caption every figure carries: what its error bars are, the seed, the settings."""
    return f"{error_bars}. Seed {seed}. {settings}."


def pyplot():
    """matplotlib.pyplot with the non-interactive Agg backend, or None if not installed."""
    try:
        import matplotlib  # noqa: PLC0415

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415
    except Exception:  # noqa: BLE001 (any import failure means: no plots)
        return None
    return plt


def save_figure(fig, path: Path) -> list[str]:
    """Save ``fig`` as PNG and SVG next to each other; returns the file names."""
    names = []
    for ext in ("png", "svg"):
        target = path.with_suffix("." + ext)
        image = io.BytesIO()
        fig.savefig(image, format=ext, dpi=120, bbox_inches="tight")
        atomic_write_bytes(target, image.getvalue())
        names.append(target.name)
    import matplotlib.pyplot as plt  # noqa: PLC0415

    plt.close(fig)
    return names
