"""The comparison as a terminal table, Markdown, LaTeX (booktabs), CSV, JSON or one HTML file.

Each format carries the signature: a last line (table, Markdown), a footnote (LaTeX), a column
(CSV: each row the lines of its system), a key (JSON), the caption (HTML). Cells show the value, its
95% interval where one was bootstrapped, and ``*`` where a system differs from the baseline with
p < 0.05.

Reports are usable as they come: the terminal table fits :data:`WIDTH` columns (the metrics in
blocks, one metric group to a block where it fits, each block with the systems as rows; the notes
wrapped at their clauses; printed to a terminal, the signatures shortened in the middle with where
to find them whole); the CSV is one header line and one row per system, metric and domain (a plain
``pandas.read_csv``); a LaTeX table of more than :data:`LATEX_NARROW` metrics is a two-column
``table*``; a run of several trials is labelled ``[G goals x T trials]``, a system with fewer
dialogues than the others ``[N dialogues]``, in every format and the plot; ``--plan``'s verdict is on
lines of its own.

System labels come from the user (``-i NAME=PATH``) or from file names, so each format takes them as
they come: a label is one line in every text format (a line break would end a Markdown row, a blank
line a LaTeX paragraph inside the tabular), escaped for Markdown, LaTeX and HTML, and a CSV text cell
that a spreadsheet would read as a formula (``=``, ``+``, ``-``, ``@``, tab, carriage return, or their
full-width forms first) starts with ``'`` (OWASP's rule for CSV injection); numbers stay numbers.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
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


# Whatever ends a line for str.splitlines: a label is shown on one line in every text format.
_LINE_BREAKS = re.compile("[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]+")


def _one_line(text: str) -> str:
    """``text`` with each run of line breaks a space."""
    return _LINE_BREAKS.sub(" ", text)


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


def trials_of(comparison: Comparison) -> dict[str, dict[str, int]]:
    """Each interactive run of several trials per goal: ``{"goals": G, "trials": T}``."""
    return dict(comparison.settings.get("trials_of") or {})


def size_marks(comparison: Comparison) -> dict[str, str]:
    """What a system's label says of its size: ``[G goals x T trials]`` for a run of several trials
    (always: its figures are over G goals, not G x T dialogues), ``[N dialogues]`` for a system with
    fewer than the largest of the others (a run counted by its goals); none for the others."""
    settings = comparison.settings
    counts = settings.get("dialogues_of", {})
    trials = trials_of(comparison)
    sizes = {s: trials[s]["goals"] if s in trials else counts.get(s, 0) for s in comparison.systems}
    most = max(sizes.values(), default=0)
    marks = {}
    for s in comparison.systems:
        if s in trials:
            marks[s] = f"[{trials[s]['goals']} goals x {trials[s]['trials']} trials]"
        elif 0 < sizes[s] < most:
            marks[s] = f"[{sizes[s]} dialogues]"
    return marks


def _names(comparison: Comparison) -> list[str]:
    """System labels: the baseline marked, interactive runs named, a run of several trials given its
    goals x trials, a system with fewer dialogues than the others given its count."""
    interactive = comparison.settings.get("interactive", {})
    marks = size_marks(comparison)
    names = []
    for s in comparison.systems:
        name = s + (" (baseline)" if s == comparison.baseline else "")
        if s in gold_states(comparison):
            name += f" ({GOLD_STATES})"
        if s in interactive:
            name += f" (interactive: {interactive[s]})"
        if s in marks:
            name += f" {marks[s]}"
        names.append(name)
    return names


GOLD_STATES = "gold states"


def gold_states(comparison: Comparison) -> set[str]:
    """The systems whose Inform/Success read MultiWOZ 2.2's gold states (they predict none)."""
    return set(comparison.settings.get("gold_states") or ())


def _warning_text(warning: Any) -> str:
    if not isinstance(warning, dict):
        return str(warning)
    count = warning.get("count")
    return f"{warning.get('kind', 'warning')}{f' x{count}' if count else ''}: {warning.get('effect', '')}".rstrip(": ")


def warnings_of(comparison: Comparison) -> dict[str, list[str]]:
    """Each system's warnings, one line each (empty where it has none)."""
    found = comparison.settings.get("warnings_of") or {}
    return {s: [_warning_text(w) for w in found.get(s, [])] for s in comparison.systems}


def _warning_lines(comparison: Comparison) -> list[str]:
    """``warnings of NAME: ...`` for each system that has any."""
    return [f"warnings of {s}: " + "; ".join(texts) for s, texts in warnings_of(comparison).items() if texts]


def _has_warnings(comparison: Comparison) -> bool:
    return any(warnings_of(comparison).values())


def _note(comparison: Comparison) -> str:
    """The legend in one line (its clauses joined by ``; ``)."""
    return "; ".join(_legend(comparison))


def _legend(comparison: Comparison) -> list[str]:
    """The legend's clauses: the intervals, the p-values, directions, interactive runs, gold states
    (``--plan``'s verdict is :func:`_pair_notes`, apart)."""
    settings = comparison.settings
    counts = {n: c for n, c in settings.get("dialogues_of", {}).items() if n not in settings.get("interactive", {})}
    distinct = set(counts.values())
    over = f"{distinct.pop()} dialogues" if len(distinct) == 1 else "each system's own dialogues"
    if settings.get("common_dialogues"):
        over += ", those every system has (--common-dialogues)"
    clauses = [
        f"[low, high]: 95% bootstrap interval over {over} "
        f"({settings.get('resamples')} resamples, seed {settings.get('seed')})"
    ]
    if comparison.baseline:
        clause = f"*: p < {SIGNIFICANT} against {comparison.baseline}, paired over the dialogues both have"
        paired = sorted({r["paired_dialogues"] for r in comparison.rows if r.get("paired_dialogues") is not None})
        if paired:
            clause += f" ({PAIRED_MARK}: {', '.join(map(str, paired))} of them, fewer than the system's own)"
        clauses.append(clause)
    for name, shown in (settings.get("metrics") or {}).items():
        if not shown["higher_is_better"] and any(r["metric"] == name for r in comparison.rows):
            clauses.append(f"{name.capitalize()}: {shown['label']}, lower is better")
    if settings.get("interactive"):
        clauses.append("interactive runs: intervals resample each run's own goals (a goal's trials together)")
    gold = [s for s in comparison.systems if s in gold_states(comparison)]
    if gold:
        clauses.append(
            f"{GOLD_STATES}: Inform/Success of {', '.join(gold)} read MultiWOZ 2.2's gold belief states "
            "(the system predicts none), an easier setting than the others'"
        )
    return clauses


def _pair_notes(comparison: Comparison) -> list[list[str]]:
    """Each interactive run against the baseline run (``--plan``'s verdict), as its parts: the
    differences and p-values, the detectable difference, the goals x trials a difference needs."""
    out = []
    for name, pair in (comparison.settings.get("interactive_pairs") or {}).items():
        parts = []
        for metric in ("success", "inform"):
            if metric in pair:
                shown = f"{metric.capitalize()} {pair[metric]['difference']:+.1f}"
                if "p_value" in pair[metric]:
                    shown += f" (p = {pair[metric]['p_value']:.3f})"
                parts.append(shown)
        success = pair.get("success") or {}
        line = f"{name} - {pair['baseline']}, paired by {pair['paired_by']} over {success.get('goals', 0)} goals: "
        lines = [line + ", ".join(parts)]
        if "detectable" in success:
            line = (
                f"smallest Success difference detectable at this size (80% power, alpha 0.05, paired variance): "
                f"{success['detectable']:.1f}"
            )
            if success["below_detectable"]:
                line += f" ({success['difference']:+.1f} is below it: not a detectable difference)"
            lines.append(line)
        if success.get("plan"):
            needs = ", ".join(
                f"{r['goals']} goals x {r['trials']} trials" for r in success["plan"]["needs"] if r["goals"]
            )
            lines.append(
                f"to detect {success['plan']['difference']:g} points: {needs or 'the pilot has no variance to plan from'}"
            )
        out.append(lines)
    return out


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


WIDTH = 120  # the terminal table's width, notes and signatures included
NAME_WIDTH = 60  # a longer system label wraps onto lines of its own in the terminal table
SHORT_SIGNATURE = 100  # a signature's characters in the terminal: its start and its end
FULL_SIGNATURE = "(signatures shortened; in full: --format json, or -o FILE)"


def _short_signature(line: str, width: int = SHORT_SIGNATURE) -> str:
    """A signature line in ``width`` characters: its start (the version and the metric, up to the
    second ``|``) and its end (the options, where two lines usually differ) from a field or an item
    on, ``...`` between."""
    if len(line) <= width:
        return line
    fields = line.split("|")
    head = "|".join(fields[:2]) + "|"
    if len(fields) < 3 or len(head) > (width - 3) // 2:
        head = line[: (width - 3) * 2 // 5]
    tail = line[len(line) - (width - 3 - len(head)) :]
    start = min((i for i in (tail.find("|"), tail.find(",")) if 0 <= i < 20), default=-1)
    return head + "..." + tail[start + 1 :]


# where a line breaks, best first: after a clause (;), after an item (,), between words
_BREAKS = (re.compile(r"(?<=;) "), re.compile(r"(?<=,) "), re.compile(" "))
# a system's label: before a part in brackets (" (baseline)", " [3 goals x 2 trials]"), else between words
_NAME_BREAKS = (re.compile(r" (?=[(\[])"), re.compile(" "))


def _pack(text: str, first: int, rest: int, breaks: tuple[re.Pattern[str], ...] = _BREAKS) -> list[str]:
    """``text`` in lines of ``first`` characters, then ``rest``: pieces at the first of ``breaks`` that
    it holds, as many to a line as fit, a piece too long for a line broken at the next; a word longer
    than a line cut."""
    if len(text) <= first:
        return [text]
    if not breaks:
        return [text[:first], *(text[i : i + rest] for i in range(first, len(text), rest))]
    lines: list[str] = []
    line = ""
    for piece in breaks[0].split(text):
        room = rest if lines else first
        if line and len(line) + 1 + len(piece) <= room:
            line += " " + piece
            continue
        if line:
            lines.append(line)
            room = rest
        packed = _pack(piece, room, rest, breaks[1:])
        lines += packed[:-1]
        line = packed[-1]
    return [*lines, line]


def _wrap(
    text: str, width: int = WIDTH, indent: str = "  ", breaks: tuple[re.Pattern[str], ...] = _BREAKS
) -> list[str]:
    """``text`` on one line or more of at most ``width`` characters, broken after a ``;`` where it can,
    else after a ``,``, else between words (or at ``breaks``); the lines after the first indented."""
    first, *rest = (line.rstrip() for line in _pack(_one_line(text), width, width - len(indent), breaks))
    return [first, *(indent + line for line in rest)]


def _group(metric: str) -> str:
    """The metric's group in the terminal table: Inform and Success together, else its kind."""
    kind = metric.partition(":")[0]
    return "rates" if kind in ("inform", "success") else kind


def _blocks(columns: list[tuple[str, list[str], str]], room: int) -> list[list[tuple[str, list[str], str]]]:
    """The columns (header, cells, group) in blocks of at most ``room`` characters each (two between
    columns): a group joins the block before it where it fits, else starts a block, and a group wider
    than a block fills blocks of its own."""
    blocks: list[list[tuple[str, list[str], str]]] = [[]]

    def width(column: tuple[str, list[str], str]) -> int:
        return 2 + max(len(column[0]), *map(len, column[1]))

    groups: list[list[tuple[str, list[str], str]]] = []
    for column in columns:
        if groups and groups[-1][0][2] == column[2]:
            groups[-1].append(column)
        else:
            groups.append([column])
    for group in groups:
        used = sum(map(width, blocks[-1]))
        if used + sum(map(width, group)) <= room:
            blocks[-1] += group
            continue
        if blocks[-1]:
            blocks.append([])
        for column in group:
            if blocks[-1] and sum(map(width, blocks[-1])) + width(column) > room:
                blocks.append([])
            blocks[-1].append(column)
    return blocks


def _signature_lines_for_terminal(comparison: Comparison, width: int) -> list[str]:
    """Each signature line labelled with the systems it covers, in ``width`` characters (shortened in
    the middle), and where to read them whole."""
    lines = signature_lines(comparison)
    out = []
    short = False
    for line, systems in lines:
        line = _one_line(line)
        label = "signature: " if len(lines) == 1 else _one_line(f"signature ({', '.join(systems)}): ")
        shown = _short_signature(line, min(SHORT_SIGNATURE, width - len(label)))
        if width - len(label) < 40:  # many systems: the label, then the signature under it
            out += _wrap(label.rstrip(), width)
            shown = _short_signature(line, min(SHORT_SIGNATURE, width - 2))
            out.append("  " + shown)
        else:
            out.append(label + shown)
        short = short or shown != line
    return [*out, *([FULL_SIGNATURE] if short else [])]


def table(comparison: Comparison, *, width: int = WIDTH, terminal: bool = False) -> str:
    """A fixed-width table in ``width`` columns: the systems as rows, the metrics in blocks (one metric
    group to a block where it fits, the system column repeated), then the legend, ``--plan``'s verdict
    and the warnings on lines of their own, wrapped, and the signatures; ``terminal``: each signature
    shortened in the middle, with where to read it whole (``--format json``, ``-o FILE``)."""
    columns, cells = _cells(comparison)
    names = [_wrap(name, NAME_WIDTH, breaks=_NAME_BREAKS) for name in _names(comparison)]
    shown = [
        (_one_line(_label(metric, comparison)), [_one_line(_text(row[j])) for row in cells], _group(metric))
        for j, metric in enumerate(columns)
    ]
    if _has_warnings(comparison):
        shown.append(("warnings", [str(len(texts)) for texts in warnings_of(comparison).values()], "warnings"))
    name_width = max(len("system"), *(len(line) for name in names for line in name))
    lines: list[str] = []
    for block in _blocks(shown, width - name_width):
        header = ["system", *(column[0] for column in block)]
        body = []
        for i, (first, *more) in enumerate(names):  # a long label: its cells beside its first line
            body += [[first, *(column[1][i] for column in block)], *([line] + [""] * len(block) for line in more)]
        widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
        rendered = [
            "  ".join(
                cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths))
            ).rstrip()
            for line in [header, *body]
        ]
        rendered.insert(1, "  ".join("-" * w for w in widths))
        lines += [*([""] if lines else []), *rendered]
    # each note on lines of its own; a verdict's parts after its first indented under it
    notes = [*([clause] for clause in _legend(comparison)), *_pair_notes(comparison)]
    notes += [[line] for line in _warning_lines(comparison)]
    wrapped = []
    for first, *rest in notes:
        wrapped += _wrap(first, width)
        for part in rest:
            wrapped += ["  " + line for line in _wrap(part, width - 2)]
    if terminal:
        signatures = _signature_lines_for_terminal(comparison, width)
    else:
        signatures = [_one_line(line) for line in _signature_text(comparison)]
    return "\n".join([*lines, "", *wrapped, *signatures])


def markdown(comparison: Comparison) -> str:
    """A GitHub-flavoured Markdown table."""
    columns, cells = _cells(comparison)
    warned = _has_warnings(comparison)
    labels = (_markdown_escape(_label(c, comparison)) for c in columns)
    lines = [
        "| system | " + " | ".join(labels) + (" | warnings" if warned else "") + " |",
        "|---|" + "---:|" * (len(columns) + warned),
    ]
    for name, row, texts in zip(_names(comparison), cells, warnings_of(comparison).values()):
        count = f" | {len(texts)}" if warned else ""
        lines.append(
            f"| {_markdown_escape(name)} | " + " | ".join(_markdown_escape(_text(c)) for c in row) + count + " |"
        )
    lines_of = signature_lines(comparison)
    signatures = [
        _one_line(f"Signature{'' if len(lines_of) == 1 else ' (' + ', '.join(systems) + ')'}: `{line}`")
        for line, systems in lines_of
    ]
    warnings = [f"- {_one_line(line)}" for line in _warning_lines(comparison)]
    note = _one_line(_note(comparison)) + "."
    verdicts = [
        f"{'  ' if i else ''}- {_one_line(part)}" for parts in _pair_notes(comparison) for i, part in enumerate(parts)
    ]
    return "\n".join(
        [
            *lines,
            "",
            note,
            "",
            *verdicts,
            *([""] if verdicts else []),
            *warnings,
            *([""] if warnings else []),
            *signatures,
        ]
    )


# C0 controls and DEL: TeX ends the line at a carriage return (the rest of it lost), reads a form feed
# as \par, refuses the others; a blank line (\n\n) is a \par, which ends a tabular with an error.
_LATEX_CONTROLS = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029]+")


def _latex_escape(text: str) -> str:
    """``text`` as LaTeX text: on one line (no paragraph break in a table), its special characters
    escaped (``|`` kept: the signatures break after it)."""
    text = _LATEX_CONTROLS.sub(" ", text)
    for a, b in (("\\", r"\textbackslash{}"), ("_", r"\_"), ("%", r"\%"), ("&", r"\&"), ("#", r"\#"), ("$", r"\$")):
        text = text.replace(a, b)
    for a, b in (("{", r"\{"), ("}", r"\}"), ("<", r"\textless{}"), (">", r"\textgreater{}")):
        text = text.replace(a, b).replace(r"\textbackslash\{\}", r"\textbackslash{}")
    for a, b in (("~", r"\textasciitilde{}"), ("^", r"\textasciicircum{}"), (PAIRED_MARK, r"\textsuperscript{\dag}")):
        text = text.replace(a, b)
    return text


def _markdown_escape(text: str) -> str:
    """``text`` in a Markdown table cell (a ``|`` would end the cell, a line break the row)."""
    return _one_line(text).replace("\\", "\\\\").replace("|", "\\|")


def _latex_code(line: str) -> str:
    """A signature line as ``\\texttt``, breakable after ``|`` and ``,`` (it is longer than a column)."""
    return r"\texttt{" + _latex_escape(line).replace("|", r"|\allowbreak{}").replace(",", r",\allowbreak{}") + "}"


def best_values(comparison: Comparison) -> list[Any]:
    """The best value of each column of the wide table (None where none is a number): the highest, or
    the lowest where lower is better."""
    columns, cells = _cells(comparison)
    lower = lower_is_better(comparison)
    best = []
    for j, column in enumerate(columns):
        values = [
            row[j]["value"]
            for row in cells
            if row[j] and isinstance(row[j]["value"], (int, float)) and not isinstance(row[j]["value"], bool)
        ]
        best.append((min(values) if column in lower else max(values)) if values else None)
    return best


def _is_best(cell: dict[str, Any], best: Any) -> bool:
    return bool(cell) and best is not None and cell["value"] == best


LATEX_NARROW = 3  # metrics a one-column table holds (with intervals); more: a two-column table*
LATEX_SMALL = 7  # metrics of a table* in \small; more: \footnotesize and narrower column gaps


def latex(comparison: Comparison) -> str:
    """A booktabs table: each cell the value and its 95% interval (small), the best value of each column
    in bold (highest is best, lowest for turns and the metrics lower is better for); every signature
    line in the footnote, labelled with the systems it covers. More than :data:`LATEX_NARROW` metrics
    make a ``table*`` (the width of both columns of a two-column paper), more than
    :data:`LATEX_SMALL` a ``\footnotesize`` one with narrower gaps."""
    columns, cells = _cells(comparison)
    best = best_values(comparison)
    environment = "table" if len(columns) <= LATEX_NARROW else "table*"
    size = [r"\small"] if len(columns) <= LATEX_SMALL else [r"\footnotesize", r"\setlength{\tabcolsep}{4pt}"]
    lines = [
        *(
            [f"% {len(columns)} metrics: table* spans both columns of a two-column page"]
            if environment != "table"
            else []
        ),
        r"\begin{" + environment + "}[t]",
        r"\centering",
        *size,
        r"\begin{tabular}{l" + "r" * len(columns) + "}",
        r"\toprule",
        "System & " + " & ".join(_latex_escape(_label(c, comparison)) for c in columns) + r" \\",
        r"\midrule",
    ]
    for name, row in zip(_names(comparison), cells):
        rendered = []
        for j, cell in enumerate(row):
            text = _latex_escape(_text(cell, interval=False))
            if _is_best(cell, best[j]):
                text = r"\textbf{" + text + "}"
            if cell and "ci_low" in cell:
                text += r" {\scriptsize[" + f"{cell['ci_low']:.1f}, {cell['ci_high']:.1f}" + "]}"
            rendered.append(text)
        lines.append(_latex_escape(name) + " & " + " & ".join(rendered) + r" \\")
    signatures = signature_lines(comparison)
    labelled = "; ".join(
        (f"{_latex_escape(', '.join(systems))}: " if len(signatures) > 1 else "") + _latex_code(line)
        for line, systems in signatures
    )
    verdicts = "".join(" " + _latex_escape("; ".join(parts)) + "." for parts in _pair_notes(comparison))
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        r"\caption{Bold: best value per column (the lowest where lower is better). "
        + _latex_escape(_note(comparison))
        + "."
        + verdicts
        + r"\footnotemark}",
        r"\end{" + environment + "}",
        r"\footnotetext{Signature"
        + ("s, by the systems each covers" if len(signatures) > 1 else "")
        + ": "
        + labelled
        + "}",
    ]
    return "\n".join(lines)


CSV_FIELDS = ["system", "metric", "domain", "value", "ci_low", "ci_high", "p_value"]
CSV_SYSTEM_FIELDS = ["dialogues", "goals", "trials", "states", "warnings", "signature"]


def csv_text(comparison: Comparison) -> str:
    """The tidy rows as CSV, one header line then one row per system, metric and domain (what a plain
    ``pandas.read_csv`` reads): system, metric, domain, value, ci_low, ci_high, p_value, any other
    field of the rows, then the system's own: ``dialogues`` (a run's sessions), an interactive run's
    ``goals`` and ``trials``, ``states`` (gold or predicted), ``warnings`` (their count) and
    ``signature`` (its signature lines, `` ; `` between). A text cell a spreadsheet would take for a
    formula starts with ``'`` (:func:`csv_cell`)."""
    out = io.StringIO()
    extra = [k for k in dict.fromkeys(k for row in comparison.rows for k in row) if k not in CSV_FIELDS]
    extra = [k for k in extra if k not in CSV_SYSTEM_FIELDS]
    writer = csv.DictWriter(out, [*CSV_FIELDS, *extra, *CSV_SYSTEM_FIELDS])
    writer.writeheader()
    gold = gold_states(comparison)
    counts = {s: len(texts) for s, texts in warnings_of(comparison).items()}
    signatures: dict[str, list[str]] = {}
    for line, systems in signature_lines(comparison):
        for system in systems:
            signatures.setdefault(system, []).append(_one_line(line))
    settings = comparison.settings
    trials = trials_of(comparison)
    dialogues = settings.get("dialogues_of", {})
    interactive = settings.get("interactive") or {}
    for row in comparison.rows:
        system = row["system"]
        goals, runs = (None, None)
        if system in trials:
            goals, runs = trials[system]["goals"], trials[system]["trials"]
        elif system in interactive:
            goals, runs = dialogues.get(system), 1
        own = {
            "dialogues": dialogues.get(system),
            "goals": goals,
            "trials": runs,
            "states": "gold" if system in gold else "predicted",
            "warnings": counts.get(system, 0),
            "signature": " ; ".join(signatures.get(system, [])),
        }
        writer.writerow(csv_row({**row, **own}))
    return out.getvalue()


# OWASP's CSV injection rule: a cell starting with these is a formula to a spreadsheet (the full-width
# forms too, which some spreadsheets fold to the ASCII ones).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def csv_cell(value: Any) -> Any:
    """``value`` safe in a CSV cell: a text that a spreadsheet would take for a formula gets a leading
    ``'`` (shown as text, the ``'`` hidden); numbers, and texts that are a plain number (``-1.5``), as
    they are."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def csv_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """Each cell of ``row`` through :func:`csv_cell` (for every CSV written of labels and values)."""
    return {key: csv_cell(value) for key, value in row.items()}


_STYLE = (
    "body{font-family:sans-serif;margin:1.5em;max-width:1240px}"
    "table{border-collapse:collapse;max-width:100%}"
    "th,td{padding:.3em .5em;border-bottom:1px solid #ccc;text-align:right;vertical-align:top}"
    "th{cursor:pointer;background:#f4f4f4;font-size:.85em;max-width:7em}"
    "td:first-child,th:first-child{text-align:left;max-width:16em}"
    "td .ci{display:block;white-space:nowrap;font-size:.75em;color:#555}"
    "td.best .value{font-weight:bold}"
    "caption{caption-side:bottom;font-size:.8em;color:#555;text-align:left;padding-top:.5em}"
    "code{word-break:break-all}img{max-width:100%}.warnings{font-size:.85em}"
)

_SCRIPT = """
document.querySelectorAll("th").forEach((th, column) => th.addEventListener("click", () => {
  const body = th.closest("table").tBodies[0];
  const rows = Array.from(body.rows);
  const up = th.dataset.order !== "up";
  th.dataset.order = up ? "up" : "down";
  const key = r => { const v = r.cells[column].dataset.value; const n = parseFloat(v); return isNaN(n) ? v : n; };
  rows.sort((a, b) => (key(a) > key(b) ? 1 : key(a) < key(b) ? -1 : 0) * (up ? 1 : -1));
  rows.forEach(r => body.appendChild(r));
}));"""


def _html_cell(cell: dict[str, Any], best: Any) -> str:
    if not cell:
        return '<td data-value="">-</td>'
    interval = ""
    if "ci_low" in cell:
        interval = f'<span class="ci">[{cell["ci_low"]:.1f}, {cell["ci_high"]:.1f}]</span>'
    css = ' class="best"' if _is_best(cell, best) else ""
    value = html.escape(_text(cell, interval=False))
    return f'<td{css} data-value="{html.escape(str(cell.get("value", "")))}"><span class="value">{value}</span>{interval}</td>'


def html_page(comparison: Comparison, plot_png: bytes | None = None, views: Mapping[str, str] | None = None) -> str:
    """One self-contained HTML file that fits 1280 px: a sortable table (click a header), each interval
    on one line under its value, the best value of each column bold, each system's warnings (a count,
    the list below), the plot inline; ``views``: a link per interactive run to the page of its sessions
    (``mwz view``)."""
    import base64

    columns, cells = _cells(comparison)
    best = best_values(comparison)
    warned = _has_warnings(comparison)
    labels = ["system", *(_label(c, comparison) for c in columns), *(["warnings"] if warned else [])]
    head = "".join(f"<th>{html.escape(h)}</th>" for h in labels)
    body = []
    for name, row, texts in zip(_names(comparison), cells, warnings_of(comparison).values()):
        tds = "".join(_html_cell(c, best[j]) for j, c in enumerate(row))
        if warned:
            tds += f'<td data-value="{len(texts)}">{len(texts)}</td>'
        body.append(f'<tr><td data-value="{html.escape(name)}">{html.escape(name)}</td>{tds}</tr>')
    image = ""
    if plot_png:
        image = f'<img alt="Inform/Success and BLEU" src="data:image/png;base64,{base64.b64encode(plot_png).decode()}">'
    labelled = "".join(
        f'<br><span class="signature">signature of {html.escape(", ".join(systems))}: <code>{html.escape(line)}</code></span>'
        for line, systems in signature_lines(comparison)
    )
    verdicts = "".join(
        f'<br><span class="verdict">{html.escape("; ".join(parts))}</span>' for parts in _pair_notes(comparison)
    )
    caption = "Bold: best value per column. " + html.escape(_note(comparison)) + verdicts + labelled
    warnings = "".join(f"<li>{html.escape(line)}</li>" for line in _warning_lines(comparison))
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>mwz compare</title>'
        f"<style>{_STYLE}</style></head><body>\n<h1>MultiWOZ comparison</h1>\n"
        f'<table id="comparison"><caption>{caption}</caption><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>\n"
        + (f'<ul class="warnings">{warnings}</ul>\n' if warnings else "")
        + f"{_view_links(views)}{image}\n<script>{_SCRIPT}</script>\n</body></html>\n"
    )


def _view_links(views: Mapping[str, str] | None) -> str:
    """A paragraph linking each interactive run to its sessions (empty without any)."""
    if not views:
        return ""
    links = ", ".join(f'<a href="{html.escape(href)}">{html.escape(name)}</a>' for name, href in views.items())
    return f'<p class="views">The sessions of each interactive run (mwz view): {links}</p>\n'


def render(
    comparison: Comparison,
    fmt: str,
    plot_png: bytes | None = None,
    views: Mapping[str, str] | None = None,
    *,
    terminal: bool = False,
) -> str:
    """The comparison in format ``fmt`` (one of :data:`FORMATS`); ``views``: HTML's links to the
    sessions of interactive runs; ``terminal``: the table's signatures shortened (printed, not
    written to a file)."""
    if fmt == "table":
        return table(comparison, terminal=terminal)
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
