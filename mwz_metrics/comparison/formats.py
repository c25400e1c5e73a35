"""The comparison as a terminal table, Markdown, LaTeX (booktabs), CSV, JSON or one HTML file.

Each format carries the signature once: a last line (table, Markdown), a footnote (LaTeX), a
``#`` comment line (CSV), a key (JSON), the caption (HTML). Cells show the value, its 95%
interval where one was bootstrapped, and ``*`` where a system differs from the baseline with
p < 0.05.
"""

from __future__ import annotations

import csv
import html
import io
import json
from collections.abc import Mapping
from typing import Any, Protocol

from mwz_plugins.errors import InputError


class Comparison(Protocol):
    """What rendering reads of a comparison (:class:`mwz_metrics.comparison.table.Comparison`)."""

    systems: list[str]
    rows: list[dict[str, Any]]
    signature: dict[str, Any]
    baseline: str | None
    settings: dict[str, Any]

    def columns(self) -> list[str]:
        """The metrics of the wide table."""
        ...

    def as_json(self) -> dict[str, Any]:
        """JSON form."""
        ...


FORMATS = ("table", "markdown", "latex", "csv", "json", "html")
SIGNIFICANT = 0.05
# Columns where the lowest value is the best (bold in LaTeX), besides the registered metrics that say so.
LOWER_IS_BETTER = frozenset({"interactive:turns"})


def lower_is_better(comparison: Comparison) -> frozenset[str]:
    """The columns whose lowest value is the best: the turns, and the registered metrics that say so."""
    metrics = comparison.settings.get("metrics") or {}
    return LOWER_IS_BETTER | {name for name, shown in metrics.items() if not shown["higher_is_better"]}


def _label(metric: str, comparison: Comparison) -> str:
    kind, _, name = metric.partition(":")
    if kind in (comparison.settings.get("metrics") or {}):  # a registered metric: its name, and its direction
        return kind.capitalize() + (" (lower is better)" if kind in lower_is_better(comparison) else "")
    fixed = {"inform": "Inform", "success": "Success"}
    return fixed.get(kind, f"{kind.upper() if kind == 'bleu' else kind} {name}")


def _number(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return str(value) if isinstance(value, int) else f"{value:.2f}"


def _cells(comparison: Comparison) -> tuple[list[str], list[list[dict[str, Any]]]]:
    columns = comparison.columns()
    index = {(r["system"], r["metric"]): r for r in comparison.rows if r["domain"] == "total"}
    return columns, [[index.get((system, metric), {}) for metric in columns] for system in comparison.systems]


PAIRED_MARK = "\u2020"  # a p-value over fewer dialogues than the system's own


def _text(row: dict[str, Any], interval: bool = True) -> str:
    if not row:
        return "-"
    text = _number(row["value"])
    if interval and "ci_low" in row:
        text += f" [{row['ci_low']:.1f}, {row['ci_high']:.1f}]"
    if row.get("p_value") is not None and row["p_value"] < SIGNIFICANT:
        text += "*"
    if row.get("paired_dialogues") is not None:
        text += PAIRED_MARK
    return text


def _names(comparison: Comparison) -> list[str]:
    """System labels: the baseline marked, interactive runs named, a system with fewer dialogues than
    the others given its count."""
    settings = comparison.settings
    interactive = settings.get("interactive", {})
    counts = settings.get("dialogues_of", {})
    most = max(counts.values(), default=0)
    names = []
    for s in comparison.systems:
        name = s + (" (baseline)" if s == comparison.baseline else "")
        if s in interactive:
            name += f" (interactive: {interactive[s]})"
        if s in counts and 0 < counts[s] < most:
            name += f" [{counts[s]} dialogues]"
        names.append(name)
    return names


def _note(comparison: Comparison) -> str:
    settings = comparison.settings
    counts = {n: c for n, c in settings.get("dialogues_of", {}).items() if n not in settings.get("interactive", {})}
    distinct = set(counts.values())
    over = f"{distinct.pop()} dialogues" if len(distinct) == 1 else "each system's own dialogues"
    if settings.get("common_dialogues"):
        over += ", those every system has (--common-dialogues)"
    note = (
        f"[low, high]: 95% bootstrap interval over {over} "
        f"({settings.get('resamples')} resamples, seed {settings.get('seed')})"
    )
    if comparison.baseline:
        note += f"; *: p < {SIGNIFICANT} against {comparison.baseline}, paired over the dialogues both have"
        paired = sorted({r["paired_dialogues"] for r in comparison.rows if r.get("paired_dialogues") is not None})
        if paired:
            note += f" ({PAIRED_MARK}: {', '.join(map(str, paired))} of them, fewer than the system's own)"
    for name, shown in (settings.get("metrics") or {}).items():
        if not shown["higher_is_better"] and any(r["metric"] == name for r in comparison.rows):
            note += f"; {name.capitalize()}: {shown['label']}, lower is better"
    if settings.get("interactive"):
        note += "; interactive runs: intervals over each run's own sessions, no p-values"
    return note


def signature_lines(comparison: Comparison) -> list[tuple[str, list[str]]]:
    """Each signature line with the systems it covers."""
    covered = comparison.signature.get("systems_of")
    if covered:
        return [(line, list(systems)) for line, systems in covered.items()]
    return [(comparison.signature["line"], list(comparison.systems))]


def _signature_text(comparison: Comparison) -> list[str]:
    lines = signature_lines(comparison)
    if len(lines) == 1:
        return [f"signature: {lines[0][0]}"]
    return [f"signature ({', '.join(systems)}): {line}" for line, systems in lines]


def table(comparison: Comparison) -> str:
    """A fixed-width table for the terminal."""
    columns, cells = _cells(comparison)
    header = ["system", *(_label(c, comparison) for c in columns)]
    body = [[name, *(_text(c) for c in row)] for name, row in zip(_names(comparison), cells)]
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths)))
        for line in [header, *body]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join([*lines, "", _note(comparison), *_signature_text(comparison)])


def markdown(comparison: Comparison) -> str:
    """A GitHub-flavoured Markdown table."""
    columns, cells = _cells(comparison)
    lines = [
        "| system | " + " | ".join(_label(c, comparison) for c in columns) + " |",
        "|---|" + "---:|" * len(columns),
    ]
    for name, row in zip(_names(comparison), cells):
        lines.append(f"| {name} | " + " | ".join(_text(c) for c in row) + " |")
    lines_of = signature_lines(comparison)
    signatures = [
        f"Signature{'' if len(lines_of) == 1 else ' (' + ', '.join(systems) + ')'}: `{line}`"
        for line, systems in lines_of
    ]
    return "\n".join([*lines, "", _note(comparison) + ".", "", *signatures])


def _latex_escape(text: str) -> str:
    for a, b in (("\\", r"\textbackslash{}"), ("_", r"\_"), ("%", r"\%"), ("&", r"\&"), ("#", r"\#"), ("$", r"\$")):
        text = text.replace(a, b)
    return text


def latex(comparison: Comparison) -> str:
    """A booktabs table, the best value of each column in bold (highest is best, lowest for turns and the
    metrics lower is better for), the signature as a footnote."""
    columns, cells = _cells(comparison)
    lower = lower_is_better(comparison)
    best = []
    for j, column in enumerate(columns):
        values = [row[j]["value"] for row in cells if row[j] and isinstance(row[j]["value"], (int, float))]
        best.append((min(values) if column in lower else max(values)) if values else None)
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        r"\begin{tabular}{l" + "r" * len(columns) + "}",
        r"\toprule",
        "System & " + " & ".join(_latex_escape(_label(c, comparison)) for c in columns) + r" \\",
        r"\midrule",
    ]
    for name, row in zip(_names(comparison), cells):
        rendered = []
        for j, cell in enumerate(row):
            text = _latex_escape(_text(cell, interval=False))
            if cell and best[j] is not None and cell["value"] == best[j]:
                text = r"\textbf{" + text + "}"
            rendered.append(text)
        lines.append(_latex_escape(name) + " & " + " & ".join(rendered) + r" \\")
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        r"\caption{Bold: best value per column (the lowest where lower is better). "
        + _latex_escape(_note(comparison))
        + r".\footnotemark}",
        r"\end{table}",
        r"\footnotetext{" + r"\texttt{" + _latex_escape(comparison.signature["line"]) + "}}",
    ]
    return "\n".join(lines)


def csv_text(comparison: Comparison) -> str:
    """The tidy rows as CSV (system, metric, domain, value, ci_low, ci_high, p_value)."""
    out = io.StringIO()
    out.write(f"# signature: {comparison.signature['line']}\n")
    writer = csv.DictWriter(out, ["system", "metric", "domain", "value", "ci_low", "ci_high", "p_value"])
    writer.writeheader()
    for row in comparison.rows:
        writer.writerow(row)
    return out.getvalue()


def html_page(comparison: Comparison, plot_png: bytes | None = None, views: Mapping[str, str] | None = None) -> str:
    """One self-contained HTML file: a sortable table (click a header), the plot inline; ``views``: a
    link per interactive run to the page of its sessions (``mwz view``)."""
    import base64

    columns, cells = _cells(comparison)
    head = "".join(f"<th>{html.escape(h)}</th>" for h in ["system", *(_label(c, comparison) for c in columns)])
    body = []
    for name, row in zip(_names(comparison), cells):
        tds = "".join(f'<td data-value="{c.get("value", "")}">{html.escape(_text(c))}</td>' for c in row)
        body.append(f'<tr><td data-value="{html.escape(name)}">{html.escape(name)}</td>{tds}</tr>')
    image = ""
    if plot_png:
        image = f'<img alt="Inform/Success and BLEU" src="data:image/png;base64,{base64.b64encode(plot_png).decode()}">'
    script = """
document.querySelectorAll("th").forEach((th, column) => th.addEventListener("click", () => {
  const body = th.closest("table").tBodies[0];
  const rows = Array.from(body.rows);
  const up = th.dataset.order !== "up";
  th.dataset.order = up ? "up" : "down";
  const key = r => { const v = r.cells[column].dataset.value; const n = parseFloat(v); return isNaN(n) ? v : n; };
  rows.sort((a, b) => (key(a) > key(b) ? 1 : key(a) < key(b) ? -1 : 0) * (up ? 1 : -1));
  rows.forEach(r => body.appendChild(r));
}));"""
    style = (
        "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "th,td{padding:.3em .8em;border-bottom:1px solid #ccc;text-align:right}"
        "th{cursor:pointer;background:#f4f4f4}td:first-child,th:first-child{text-align:left}"
        "caption{caption-side:bottom;font-size:.8em;color:#555;text-align:left;padding-top:.5em}"
        "caption code{word-break:break-all}"
    )
    labelled = "".join(
        f'<br><span class="signature">signature of {html.escape(", ".join(systems))}: <code>{html.escape(line)}</code></span>'
        for line, systems in signature_lines(comparison)
    )
    caption = html.escape(_note(comparison)) + labelled
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>mwz compare</title>'
        f"<style>{style}</style></head><body>\n<h1>MultiWOZ comparison</h1>\n"
        f'<table id="comparison"><caption>{caption}</caption><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>\n{_view_links(views)}{image}\n<script>{script}</script>\n</body></html>\n"
    )


def _view_links(views: Mapping[str, str] | None) -> str:
    """A paragraph linking each interactive run to its sessions (empty without any)."""
    if not views:
        return ""
    links = ", ".join(f'<a href="{html.escape(href)}">{html.escape(name)}</a>' for name, href in views.items())
    return f'<p class="views">The sessions of each interactive run (mwz view): {links}</p>\n'


def render(
    comparison: Comparison, fmt: str, plot_png: bytes | None = None, views: Mapping[str, str] | None = None
) -> str:
    """The comparison in format ``fmt`` (one of :data:`FORMATS`); ``views``: HTML's links to the
    sessions of interactive runs."""
    if fmt == "table":
        return table(comparison)
    if fmt == "markdown":
        return markdown(comparison)
    if fmt == "latex":
        return latex(comparison)
    if fmt == "csv":
        return csv_text(comparison)
    if fmt == "json":
        return json.dumps(comparison.as_json(), indent=2, ensure_ascii=False)
    if fmt == "html":
        return html_page(comparison, plot_png, views)
    raise InputError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
