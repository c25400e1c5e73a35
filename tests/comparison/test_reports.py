"""Reports take labels as they come, and a predictions file says what it holds once (issue 47).

System labels come from the user (``-i NAME=PATH``) or from file names: in ``mwz compare``'s CSV a
label a spreadsheet would run as a formula starts with ``'`` (numbers stay numbers), a line break in a
label keeps the Markdown row one row and the LaTeX table free of blank lines. A dialogue key given
twice in a predictions file is an error naming the file and the key (a JSON reader keeps the last).
All on three dialogues of a real system, through the command line.
"""

from __future__ import annotations

import csv
import io
import json
import shutil

import pytest
from conftest import run_cli, shared_path

FORMULAS = ["@SUM(1)", "=cmd|' -C calc'!A0", "+1+2", "\uff1dSUM(1)"]  # the last: a full-width =
BROKEN = "two\n\nlines|and a bar"  # a blank line: a paragraph to LaTeX


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    """The first three dialogues of ubar's predictions (its JSON text, key order kept)."""
    ubar = json.loads(shared_path("data", "mwzeval", "predictions", "ubar.json").read_text(encoding="utf-8"))
    return {key: ubar[key] for key in list(ubar)[:3]}


@pytest.fixture()
def small(three, tmp_path, synth22, monkeypatch):
    """A predictions file of three dialogues, on the synthetic 2.2 mirror."""
    monkeypatch.setenv("MWZ_MIRROR", str(synth22))
    path = tmp_path / "small.json"
    path.write_text(json.dumps(three), encoding="utf-8")
    return path


def _compare(capsys, small, tmp_path, fmt: str) -> str:
    # "=..." cannot be given as NAME=PATH (it reads as a path): that label comes from a file's name.
    named = tmp_path / f"{FORMULAS[1]}.json"
    shutil.copy(small, named)
    systems = [f"{FORMULAS[0]}={small}", str(named), *(f"{label}={small}" for label in FORMULAS[2:])]
    args = [arg for system in [*systems, f"{BROKEN}={small}"] for arg in ("-i", system)]
    code, out, err = run_cli(capsys, "compare", *args, "-s", "--resamples", "10", "--format", fmt)
    assert code == 0, err
    return out


def test_csv_cells_that_would_be_formulas_start_with_a_quote(capsys, small, tmp_path):
    out = _compare(capsys, small, tmp_path, "csv")
    rows = list(csv.DictReader(line for line in io.StringIO(out, newline="") if not line.startswith("#")))
    assert {row["system"] for row in rows} == {"'" + label for label in FORMULAS} | {BROKEN}
    for row in rows:
        float(row["value"])  # numbers as they were: no quote
        assert not row["ci_low"] or float(row["ci_low"]) <= float(row["value"]) <= float(row["ci_high"])
    assert not any(line.startswith(("=", "+", "-", "@")) for line in out.splitlines())


def test_csv_cell_neutralises_text_only():
    from mwz_metrics.comparison.formats import csv_cell

    assert [csv_cell(v) for v in (-1.5, 3, None, "-1.5", "+2e-3", "ubar")] == [-1.5, 3, None, "-1.5", "+2e-3", "ubar"]
    assert [csv_cell(v) for v in ("-1+1", "\tx", "\rx", "\uff20x", "-")] == ["'-1+1", "'\tx", "'\rx", "'\uff20x", "'-"]


def test_a_line_break_in_a_label_keeps_markdown_rows_and_latex_paragraphs(capsys, small, tmp_path):
    markdown = _compare(capsys, small, tmp_path, "markdown")
    table = markdown.split("\n\n", 1)[0].splitlines()
    assert len(table) == 2 + len(FORMULAS) + 1  # header, rule, one row per system
    assert table[-1].startswith(r"| two lines\|and a bar | ") and table[-1].count(" | ") == 3
    assert all(line.startswith("|") and line.endswith("|") for line in table)
    latex = _compare(capsys, small, tmp_path, "latex")
    lines = latex.splitlines()
    assert all(line.strip() for line in lines), "a blank line (a paragraph) in the LaTeX table"
    assert any(line.startswith("two lines|and a bar & ") for line in lines)
    assert sum(line.endswith(r" \\") for line in lines) == 1 + len(FORMULAS) + 1
    text = _compare(capsys, small, tmp_path, "table")
    assert any(line.startswith("two lines|and a bar ") for line in text.splitlines())


def test_a_dialogue_key_given_twice_is_an_error_naming_it(capsys, three, tmp_path, synth22, monkeypatch):
    monkeypatch.setenv("MWZ_MIRROR", str(synth22))
    first, second, _ = three
    text = json.dumps({first: three[first], second: three[second]}, indent=1)
    path = tmp_path / "twice.json"  # the first key again, other responses (a reader would score these alone)
    again = [dict(turn, response="no") for turn in three[first]]
    path.write_text(text[:-2] + f',\n "{first}": ' + json.dumps(again) + "\n}", encoding="utf-8")
    line = text[:-2].count("\n") + 2
    for command in (["evaluate", "-i", str(path), "-s"], ["compare", "-i", str(path), "-s", "--resamples", "10"]):
        code, out, err = run_cli(capsys, *command)
        assert code == 2 and not out, (command, err)
        assert err.startswith("mwz: error: ") and f"{path}: dialogue key '{first}' is given twice (" in err, err
        assert f"at line {line}, column 2)" in err and len(err.strip().splitlines()) == 1, err
    # --common-dialogues reads the files itself
    code, _, err = run_cli(capsys, "compare", "-i", str(path), "-i", f"ok={path}", "--common-dialogues", "-s")
    assert code == 2 and f"dialogue key '{first}' is given twice" in err, err
    # two spellings of one dialogue: the same error, both named
    path.write_text(json.dumps({first.upper() + ".json": three[first], first: again}), encoding="utf-8")
    code, _, err = run_cli(capsys, "evaluate", "-i", str(path), "-s")
    assert code == 2 and f"'{first.upper()}.json' and '{first}'" in err, err
