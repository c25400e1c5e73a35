"""The picture: Inform/Success per system with their intervals, and BLEU against Success."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from mwz_plugins.errors import InputError, MissingExtra

if TYPE_CHECKING:
    from mwz_metrics.comparison.table import Comparison


def ranked(comparison: Comparison, sort: str | None = None) -> list[str]:
    """The systems ranked by ``sort`` (default: the table's first metric), best first; those without
    it last, in the table's order."""
    from mwz_metrics.comparison.formats import lower_is_better

    columns = comparison.columns()
    metric = sort or (columns[0] if columns else None)
    if metric is not None and metric not in columns:
        raise InputError(f"--sort {metric!r}: not a metric of this comparison ({', '.join(columns)})")
    values = {r["system"]: r["value"] for r in comparison.rows if r["metric"] == metric and r["domain"] == "total"}
    sign = 1.0 if metric in lower_is_better(comparison) else -1.0
    scored = sorted(
        (s for s in comparison.systems if isinstance(values.get(s), (int, float))), key=lambda s: sign * values[s]
    )
    return scored + [s for s in comparison.systems if s not in scored]


def _pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend (no display needed); a clear error without the extra."""
    try:
        import matplotlib
    except ImportError as error:
        raise MissingExtra("--plot needs the 'plot' extra (matplotlib): pip install 'mwz-eval[plot]'") from error
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _plain(label: str) -> str:
    """A system's name as matplotlib shows it literally (a ``$`` would start mathtext)."""
    return label.replace("$", r"\$")


def _bleu_style(comparison: Comparison, style: str | None) -> str | None:
    """The BLEU column for the x axis: ``style`` where given, else mwz22, else the first (None: no BLEU)."""
    styles = [m for m in comparison.columns() if m.startswith("bleu:")]
    return f"bleu:{style}" if style else ("bleu:mwz22" if "bleu:mwz22" in styles else (styles[0] if styles else None))


def _suffix(comparison: Comparison, system: str) -> str:
    """What a system's label adds: the baseline, gold states, an interactive run, and its size as the
    tables give it (``[999 dialogues]`` where fewer than the others', ``[200 goals x 4 trials]``)."""
    from mwz_metrics.comparison.formats import GOLD_STATES, gold_states, size_marks

    parts = []
    if system == comparison.baseline:
        parts.append("baseline")
    if system in gold_states(comparison):
        parts.append(GOLD_STATES)
    if system in (comparison.settings.get("interactive") or {}):
        parts.append("interactive")
    mark = size_marks(comparison).get(system)
    return (f" ({', '.join(parts)})" if parts else "") + (f" {mark}" if mark else "")


def _errors(rows: dict, systems: list[str], metric: str) -> tuple[list[float], list[list[float]]]:
    """Values and their interval's distances below and above (0 where none was bootstrapped)."""
    values = [rows.get((s, metric), {}).get("value", 0.0) for s in systems]
    # the shown value is mwzeval's rounded rate, so an interval edge can sit a hair inside it
    low = [max(0.0, v - rows.get((s, metric), {}).get("ci_low", v)) for s, v in zip(systems, values)]
    high = [max(0.0, rows.get((s, metric), {}).get("ci_high", v) - v) for s, v in zip(systems, values)]
    return values, [low, high]


def _draw_rates(left: Any, comparison: Comparison, rows: dict, systems: list[str]) -> None:
    """Inform and Success bars side by side with their intervals: the baseline's hatched ``//``, gold
    states' ``xx``, interactive runs' ``..``."""
    from mwz_metrics.comparison.formats import gold_states

    width = 0.4
    interactive = comparison.settings.get("interactive") or {}
    for offset, metric, color in ((-width / 2, "inform", "#4878d0"), (width / 2, "success", "#ee854a")):
        values, error = _errors(rows, systems, metric)
        positions = [i + offset for i in range(len(systems))]
        bars = left.bar(positions, values, width, yerr=error, capsize=3, label=metric.capitalize(), color=color)
        for system, bar in zip(systems, bars):
            hatch = (
                "//"
                if system == comparison.baseline
                else "xx"
                if system in gold_states(comparison)
                else ".."
                if system in interactive
                else None
            )
            if hatch:
                bar.set_hatch(hatch)
                bar.set_edgecolor("black")


def _label_rates(left: Any, comparison: Comparison, systems: list[str], sort: str | None) -> None:
    """The left panel's system labels (the baseline's in bold), axis, title and legend."""
    left.set_xticks(range(len(systems)))
    labels = left.set_xticklabels([_plain(s) + _suffix(comparison, s) for s in systems], rotation=45, ha="right")
    for system, label in zip(systems, labels):
        if system == comparison.baseline:
            label.set_fontweight("bold")
    left.set_ylabel("%")
    # room above 100 for the legend: it never covers a bar
    left.set_ylim(0, 118)
    left.set_yticks(range(0, 101, 20))
    left.set_title(f"Inform and Success (95% CI), ranked by {sort or (comparison.columns() or ['-'])[0]}")
    left.legend(loc="upper center", ncol=2, frameon=False)


def _draw_bleu_success(right: Any, comparison: Comparison, rows: dict, systems: list[str], chosen: str) -> list[str]:
    """The right panel: each system with both values as a point with its intervals (the baseline a
    star, gold states hollow), labelled; returns the systems left out (no BLEU or no Success)."""
    from mwz_metrics.comparison.formats import gold_states

    left_out = []
    for s in systems:
        x, y = rows.get((s, chosen), {}).get("value"), rows.get((s, "success"), {}).get("value")
        if x is None or y is None:
            left_out.append(s)
            continue
        _, xerr = _errors(rows, [s], chosen)
        _, yerr = _errors(rows, [s], "success")
        baseline = s == comparison.baseline
        right.errorbar(
            [x],
            [y],
            xerr=xerr,
            yerr=yerr,
            fmt="*" if baseline else "o",
            markersize=12 if baseline else 6,
            color="black" if baseline else "#4878d0",
            markerfacecolor="white" if s in gold_states(comparison) else None,
            capsize=2,
            elinewidth=0.8,
        )
        right.annotate(
            _plain(s) + _suffix(comparison, s),
            (x, y),
            textcoords="offset points",
            xytext=(4, 4),
            fontsize=8,
            fontweight="bold" if baseline else "normal",
        )
    right.margins(x=0.2, y=0.1)  # room for the labels of the outermost points
    right.set_xlabel(f"BLEU ({chosen.split(':', 1)[1]}, 95% CI)")
    right.set_ylabel("Success (%, 95% CI)")
    right.set_title("BLEU against Success")
    if left_out:
        right.text(
            0.0,
            -0.22,
            "not shown (no BLEU or Success): " + ", ".join(_plain(s) + _suffix(comparison, s) for s in left_out),
            transform=right.transAxes,
            fontsize=8,
            va="top",
            wrap=True,
        )
    return left_out


PLOT_FORMATS = ("png", "pdf", "svg")


def render(comparison: Comparison, fmt: str = "png", style: str | None = None, sort: str | None = None) -> bytes:
    """The picture in ``fmt`` (png, or the vector pdf and svg), two panels; ``style`` is the BLEU
    style on the x axis (default: mwz22, else the first); bars ranked by ``sort`` (default: the first
    metric), the baseline hatched and labelled, gold states and interactive runs marked."""
    if fmt not in PLOT_FORMATS:
        raise ValueError(f"plot format {fmt!r}: one of {', '.join(PLOT_FORMATS)}")
    plt = _pyplot()
    with plt.rc_context({"svg.fonttype": "none", "pdf.fonttype": 42}):  # text stays text (editable, searchable)
        return _render(plt, comparison, fmt, style, sort)


def _render(plt: Any, comparison: Comparison, fmt: str, style: str | None, sort: str | None) -> bytes:
    rows = {(r["system"], r["metric"]): r for r in comparison.rows if r["domain"] == "total"}
    systems = ranked(comparison, sort)
    chosen = _bleu_style(comparison, style)
    panels = 2 if chosen else 1
    figure, axes = plt.subplots(1, panels, figsize=(6 + 0.5 * len(systems) + 5 * (panels - 1), 5), squeeze=False)
    left = axes[0][0]
    _draw_rates(left, comparison, rows, systems)
    _label_rates(left, comparison, systems, sort)
    if panels == 2 and chosen:
        _draw_bleu_success(axes[0][1], comparison, rows, systems, chosen)
    figure.tight_layout()
    buffer = io.BytesIO()
    # fixed metadata: the same comparison gives the same bytes
    metadata = {"png": {"Software": None}, "pdf": {"CreationDate": None}, "svg": {"Date": None}}[fmt]
    figure.savefig(buffer, format=fmt, dpi=100, metadata=metadata)
    plt.close(figure)
    return buffer.getvalue()


def png(comparison: Comparison, style: str | None = None, sort: str | None = None) -> bytes:
    """The picture as PNG (see :func:`render`)."""
    return render(comparison, "png", style, sort)


def plot_format(path: str) -> str:
    """The format a plot file's extension asks for (``.png``, ``.pdf``, ``.svg``)."""
    suffix = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    if suffix not in PLOT_FORMATS:
        from mwz_metrics.inputs import InputError

        raise InputError(f"--plot {path}: the file's extension picks the format, one of .png, .pdf, .svg")
    return suffix
