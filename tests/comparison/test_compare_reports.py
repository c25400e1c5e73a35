"""``mwz compare``'s reports usable as they come (issue 51, item 4).

The terminal table fits 120 columns (the metrics in blocks, the signatures shortened, whole in a file
and in JSON); the CSV is one header line and one row per system, metric and domain (a plain
``pandas.read_csv``), its signatures a column; LaTeX puts a wide table in ``table*``; a run of several
trials is labelled ``[G goals x T trials]`` in every format and the plot, a partial set
``[N dialogues]`` in the plot too; ``--plan``'s verdict is on lines of its own. On a few dialogues
of four published systems and two runs of 3 goals x 2 trials, on the synthetic 2.2 mirror.
"""

from __future__ import annotations

import csv
import io
import json

import pytest
from conftest import run_cli, shared_path

from mwz_metrics.comparison import compare
from mwz_metrics.comparison.formats import render
from mwz_metrics.interactive.harness import api

SYSTEMS = ("ubar", "hdsa", "damd", "labes")
DIALOGUES = 8  # each system's first dialogues; labes one fewer: a partial set
FAST = ("--resamples", "20", "-j", "1")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Predictions files of the four systems' first dialogues (labes's one fewer)."""
    folder = tmp_path_factory.mktemp("systems")
    paths = {}
    for name in SYSTEMS:
        data = json.loads(shared_path("data", "mwzeval", "predictions", f"{name}.json").read_text(encoding="utf-8"))
        keep = list(data)[: DIALOGUES - (name == "labes")]
        paths[name] = folder / f"{name}.json"
        paths[name].write_text(json.dumps({key: data[key] for key in keep}), encoding="utf-8")
    return paths


@pytest.fixture(scope="module")
def runs(synth22_context, tmp_path_factory):
    """Two interactive runs of 3 goals x 2 trials: the oracle and echo."""
    folder = tmp_path_factory.mktemp("runs")
    paths = {}
    for name in ("oracle", "echo"):
        run = api.prepare(name, goals=3, trials=2, context=synth22_context)
        paths[name] = folder / f"{name}.jsonl"
        api.run_sessions(run, output=paths[name])
    return paths


@pytest.fixture()
def env(synth22, monkeypatch):
    monkeypatch.setenv("MWZ_MIRROR", str(synth22))


def _inputs(files) -> list[str]:
    return [arg for name, path in files.items() for arg in ("-i", f"{name}={path}")]


def test_the_terminal_table_fits_120_columns_and_a_file_keeps_the_signatures_whole(env, files, tmp_path, capsys):
    args = ["compare", *_inputs(files), "--all", "--baseline", "ubar", *FAST]
    code, printed, err = run_cli(capsys, *args)
    assert code == 0, err
    lines = printed.splitlines()
    assert max(map(len, lines)) <= 120, max(lines, key=len)
    headers = [i for i, line in enumerate(lines) if line.startswith("system ")]
    assert len(headers) > 1  # the 13 metrics in blocks, each with the systems as rows
    shown = set()
    for i in headers:
        rows = lines[i + 2 : i + 2 + len(SYSTEMS)]
        assert [row.split()[0] for row in rows] == list(SYSTEMS)
        shown.update(lines[i].split()[1:])
    assert {"Inform", "Success", "mwz22", "cond_entropy", "num_trigrams", "warnings"} <= shown
    assert "labes [7 dialogues]" in printed
    code, out, err = run_cli(capsys, *args, "--format", "json")
    assert code == 0, err
    signatures = json.loads(out)["signature"]["systems_of"]
    assert len(signatures) == 2  # hdsa on gold states, the others on their own
    for line in signatures:
        assert line not in printed and len(line) > 300
        assert line[:31] in printed and line[-30:] in printed  # its start and its end, shortened between
    assert lines[-1] == "(signatures shortened; in full: --format json, or -o FILE)"
    code, _, err = run_cli(capsys, *args, "-o", str(tmp_path / "table.txt"))
    assert code == 0, err
    written = (tmp_path / "table.txt").read_text(encoding="utf-8")
    assert all(written.count(line) == 1 for line in signatures)
    assert "shortened" not in written
    # the table itself is the same
    assert written.split("\n\n[low, high]")[0] == printed.split("\n\n[low, high]")[0]


def test_the_csv_reads_as_one_header_and_a_row_per_system_metric_and_domain(env, files, tmp_path, capsys):
    path = tmp_path / "cmp.csv"
    args = ["compare", *_inputs(files), "--all", "--baseline", "ubar", *FAST]
    code, _, err = run_cli(capsys, *args, "--format", "csv", "-o", str(path))
    assert code == 0, err
    code, out, err = run_cli(capsys, *args, "--format", "json")
    assert code == 0, err
    expected = json.loads(out)
    text = path.read_text(encoding="utf-8")
    assert not text.startswith("#") and "\n#" not in text
    # read as pandas reads it: the first line is the header
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert list(rows[0])[:7] == ["system", "metric", "domain", "value", "ci_low", "ci_high", "p_value"]
    assert len(rows) == len(expected["rows"])
    assert len({(r["system"], r["metric"], r["domain"]) for r in rows}) == len(rows)
    for row, want in zip(rows, expected["rows"]):
        assert (row["system"], row["metric"], row["domain"]) == (want["system"], want["metric"], want["domain"])
        assert float(row["value"]) == want["value"]
        assert row["dialogues"] == str(DIALOGUES - (row["system"] == "labes"))
        assert row["goals"] == row["trials"] == ""  # static systems
        lines = [line for line, systems in expected["signature"]["systems_of"].items() if row["system"] in systems]
        assert row["signature"] == " ; ".join(lines)
    pandas = pytest.importorskip("pandas")
    frame = pandas.read_csv(path)
    assert list(frame.columns) == list(rows[0])
    assert len(frame) == len(expected["rows"]) and not frame.duplicated(["system", "metric", "domain"]).any()
    assert str(frame["value"].dtype) == "float64" and set(frame["system"]) == set(SYSTEMS)
    total = frame[(frame["metric"] == "success") & (frame["domain"] == "total")].set_index("system")
    assert total.loc["damd", "value"] == next(
        r["value"] for r in expected["rows"] if (r["system"], r["metric"], r["domain"]) == ("damd", "success", "total")
    )


def test_latex_puts_a_wide_table_in_table_star(env, files):
    narrow = compare({"ubar": files["ubar"], "damd": files["damd"]}, bleu=False, richness=False, resamples=0, jobs=1)
    wide = compare(dict(files), baseline="ubar", resamples=0, jobs=1)
    assert len(narrow.columns()) == 2 and len(wide.columns()) > 8
    text = render(narrow, "latex")
    assert r"\begin{table}[t]" in text and text.rstrip().count(r"\end{table}") == 1 and "table*" not in text
    text = render(wide, "latex")
    assert r"\begin{table*}[t]" in text and r"\end{table*}" in text and r"\begin{table}" not in text
    assert r"\footnotesize" in text  # the widest tables in a smaller size
    assert all(line.strip() for line in text.splitlines())


def test_a_trials_run_is_labelled_goals_x_trials_in_every_format_and_the_plot(env, files, runs):
    # 8 static dialogues beside 3 goals x 2 trials (6 sessions): the run is not a set of 6 dialogues
    table = compare({"ubar": files["ubar"], "run": runs["oracle"]}, bleu=False, richness=False, resamples=20, seed=1)
    label = "run (interactive: agenda -> oracle) [3 goals x 2 trials]"
    for fmt in ("table", "markdown", "latex", "html"):
        text = render(table, fmt)
        assert label.replace(">", r"\textgreater{}" if fmt == "latex" else "&gt;" if fmt == "html" else ">") in text
        assert "6 dialogues" not in text and "ubar [" not in text  # ubar's 8 dialogues are not fewer than 3 goals
    data = json.loads(render(table, "json"))
    assert data["bootstrap"]["trials_of"] == {"run": {"goals": 3, "trials": 2}}
    rows = list(csv.DictReader(io.StringIO(render(table, "csv"))))
    assert {(r["dialogues"], r["goals"], r["trials"]) for r in rows if r["system"] == "run"} == {("6", "3", "2")}
    pytest.importorskip("matplotlib")
    from mwz_metrics.comparison.plot import render as plot

    svg = plot(table, "svg").decode()
    assert "run (interactive) [3 goals x 2 trials]" in svg


def test_the_plot_keeps_the_partial_set_mark(env, files):
    pytest.importorskip("matplotlib")
    from mwz_metrics.comparison.plot import render as plot

    table = compare(dict(files), richness=False, baseline="ubar", resamples=0, jobs=1)
    assert "labes [7 dialogues]" in render(table, "table")
    svg = plot(table, "svg").decode()
    assert "labes [7 dialogues]" in svg and "ubar (baseline)" in svg and "damd [" not in svg


def test_the_plan_verdict_is_on_lines_of_its_own(env, runs):
    table = compare(
        {"oracle": runs["oracle"], "echo": runs["echo"]}, baseline="oracle", resamples=20, plan_difference=10
    )
    lines = [line for line in render(table, "table").splitlines() if not line.startswith("signature (")]
    assert max(map(len, lines)) <= 120, max(lines, key=len)  # the signatures whole: a file's table
    start = next(i for i, line in enumerate(lines) if line.startswith("echo - oracle, paired by goal and trial"))
    assert lines[start - 1].startswith("interactive runs: intervals resample")  # the legend's clause, apart
    assert lines[start + 1].startswith("  smallest Success difference detectable at this size")
    assert lines[start + 2].startswith("  to detect 10 points: ")
    assert not any("paired by goal" in line for line in lines[:start])
    markdown = render(table, "markdown").splitlines()
    assert any(line.startswith("- echo - oracle, paired by goal and trial") for line in markdown)
    assert any(line.startswith("  - to detect 10 points: ") for line in markdown)
    legend = next(line for line in markdown if line.startswith("[low, high]"))
    assert "paired by goal" not in legend
    assert '<br><span class="verdict">echo - oracle, paired by goal and trial' in render(table, "html")
