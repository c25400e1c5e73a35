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


def _bleu_style(comparison: Comparison, style: str | None) -> str | None:
    """The BLEU column for the x axis: ``style`` where given, else mwz22, else the first (None: no BLEU)."""
    styles = [m for m in comparison.columns() if m.startswith("bleu:")]
    return f"bleu:{style}" if style else ("bleu:mwz22" if "bleu:mwz22" in styles else (styles[0] if styles else None))


def _draw_rates(left: Any, comparison: Comparison, rows: dict, systems: list[str]) -> None:
    """Inform and Success bars side by side with their intervals, the baseline's hatched."""
    width = 0.4
    for offset, metric, color in ((-width / 2, "inform", "#4878d0"), (width / 2, "success", "#ee854a")):
        values = [rows.get((s, metric), {}).get("value", 0.0) for s in systems]
        # the shown value is mwzeval's rounded rate, so an interval edge can sit a hair inside it
        low = [max(0.0, values[i] - rows.get((s, metric), {}).get("ci_low", values[i])) for i, s in enumerate(systems)]
        high = [
            max(0.0, rows.get((s, metric), {}).get("ci_high", values[i]) - values[i]) for i, s in enumerate(systems)
        ]
        positions = [i + offset for i in range(len(systems))]
        bars = left.bar(positions, values, width, yerr=[low, high], capsize=3, label=metric.capitalize(), color=color)
        for system, bar in zip(systems, bars):
            if system == comparison.baseline:
                bar.set_hatch("//")
                bar.set_edgecolor("black")


def _label_rates(left: Any, comparison: Comparison, systems: list[str], sort: str | None) -> None:
    """The left panel's system labels (the baseline's in bold), axis, title and legend."""
    left.set_xticks(range(len(systems)))
    labels = left.set_xticklabels(
        [s + (" (baseline)" if s == comparison.baseline else "") for s in systems], rotation=45, ha="right"
    )
    for system, label in zip(systems, labels):
        if system == comparison.baseline:
            label.set_fontweight("bold")
    left.set_ylabel("%")
    # room above 100 for the legend: it never covers a bar
    left.set_ylim(0, 118)
    left.set_yticks(range(0, 101, 20))
    left.set_title(f"Inform and Success (95% CI), ranked by {sort or (comparison.columns() or ['-'])[0]}")
    left.legend(loc="upper center", ncol=2, frameon=False)


def _draw_bleu_success(right: Any, rows: dict, systems: list[str], chosen: str) -> None:
    """The right panel: each system with both values as a labelled point, BLEU against Success."""
    for s in systems:
        x, y = rows.get((s, chosen), {}).get("value"), rows.get((s, "success"), {}).get("value")
        if x is None or y is None:
            continue
        right.scatter([x], [y], color="#4878d0")
        right.annotate(s, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
    right.margins(x=0.2, y=0.1)  # room for the labels of the outermost points
    right.set_xlabel(f"BLEU ({chosen.split(':', 1)[1]})")
    right.set_ylabel("Success (%)")
    right.set_title("BLEU against Success")


def png(comparison: Comparison, style: str | None = None, sort: str | None = None) -> bytes:
    """A PNG with two panels; ``style`` is the BLEU style on the x axis (default: mwz22, else the
    first); bars ranked by ``sort`` (default: the first metric), the baseline hatched and labelled."""
    plt = _pyplot()
    rows = {(r["system"], r["metric"]): r for r in comparison.rows if r["domain"] == "total"}
    systems = ranked(comparison, sort)
    chosen = _bleu_style(comparison, style)
    panels = 2 if chosen else 1
    figure, axes = plt.subplots(1, panels, figsize=(6 + 0.5 * len(systems) + 5 * (panels - 1), 4.5), squeeze=False)
    left = axes[0][0]
    _draw_rates(left, comparison, rows, systems)
    _label_rates(left, comparison, systems, sort)
    if panels == 2 and chosen:
        _draw_bleu_success(axes[0][1], rows, systems, chosen)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    plt.close(figure)
    return buffer.getvalue()
