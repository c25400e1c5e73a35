"""``mwz compare``: each system's numbers exactly as ``mwz evaluate``, every format, bootstrap, plot, HTML."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import shared_path

from mwz_metrics import bootstrap, compare
from mwz_metrics.comparison.formats import gold_states, render
from mwz_metrics.multiwoz.evaluator import Evaluator

# every system with mwzeval parity targets (Inform/Success targets only for those with states)
PARITY = ("augpt", "damd", "galaxy-policy", "hdno", "hdsa", "labes", "pptod", "ubar")
SYSTEMS = PARITY


@pytest.fixture(scope="module")
def scored():
    # the full-scale 2.2 copy: systems without states are scored on its gold states
    mirror = shared_path("data", "mirror-synth22")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MWZ_MIRROR", str(mirror))
        paths = {name: shared_path("data", "mwzeval", "predictions", f"{name}.json") for name in SYSTEMS}
        paths["ubar-copy"] = paths["ubar"]
        options = {"styles": ["hdsa"]}  # a reference-file style the mirror holds
        comparison = compare(paths, baseline="ubar", resamples=200, seed=7, evaluator_options=options)
        # one process instead of workers: the same rows, to the last bit
        serial = compare(
            {n: paths[n] for n in ("ubar", "hdsa", "damd")},
            baseline="ubar",
            resamples=200,
            seed=7,
            evaluator_options=options,
            jobs=1,
        )
        single = {name: Evaluator(styles=["hdsa"]).evaluate(str(paths[name])) for name in SYSTEMS}
        single["hdsa-detailed"] = Evaluator(styles=["hdsa"], per_dialogue=True).evaluate(str(paths["hdsa"]))
        # fewer companions over the same common dialogues (damd and labes miss some): the same resamples
        again = compare(
            {n: paths[n] for n in ("ubar", "damd", "labes")},
            baseline="ubar",
            resamples=200,
            seed=7,
            evaluator_options=options,
        )
    return comparison, single, again, serial


def test_numbers_equal_mwz_evaluate_and_mwzeval(scored):
    comparison, single, _, serial = scored
    for row in serial.rows:  # scored in one process, without workers
        assert comparison.value(row["system"], row["metric"], row["domain"]) == row["value"]
    parity_files = sorted(p.name.split(".")[0] for p in shared_path("parity", "mwzeval").glob("*.expected.json"))
    predictions = shared_path("data", "mwzeval", "predictions")
    assert set(SYSTEMS) == {n for n in parity_files if (predictions / f"{n}.json").is_file()}
    for name in SYSTEMS:
        expected = json.loads(shared_path("parity", "mwzeval", f"{name}.expected.json").read_text())
        for metric in ("inform", "success"):
            for domain, value in single[name]["success"][metric].items():
                assert comparison.value(name, metric, domain) == value
            if metric in expected:
                assert comparison.value(name, metric) == expected[metric]["total"]
        assert comparison.value(name, "bleu:hdsa") == single[name]["bleu"]["hdsa"]
    per_domain = single["hdsa-detailed"]["bleu_details"]["per_domain"]["hdsa"]
    assert len(per_domain) >= 7  # BLEU per domain, as `mwz evaluate --per-dialogue` gives it
    for domain, value in per_domain.items():
        assert comparison.value("hdsa", "bleu:hdsa", domain) == value
    for name in SYSTEMS:  # lexical richness of every system, not only the last one
        assert single[name]["richness"]
        for key, value in single[name]["richness"].items():
            assert comparison.value(name, f"richness:{key}") == value


def test_every_format_carries_the_numbers_and_the_signature_once(scored):
    comparison, single, _, _ = scored
    line = comparison.signature["line"]
    lines_of = comparison.signature["systems_of"]
    assert len(lines_of) == 2 and " ; ".join(sorted(lines_of)) == line  # with states and without
    assert sorted(s for systems in lines_of.values() for s in systems) == sorted(comparison.systems)
    for fmt in ("table", "markdown", "latex", "csv", "json", "html"):
        text = render(comparison, fmt)
        if fmt == "latex":  # as LaTeX writes it, breakable
            text = text.replace(r"\allowbreak{}", "").replace(r"\_", "_")
        if fmt == "csv":  # a column: each row the line of its system (no leading comment line)
            for row in csv.DictReader(io.StringIO(text)):
                assert [row["signature"]] == [each for each, systems in lines_of.items() if row["system"] in systems]
        elif fmt != "json":  # each line once, labelled with the systems it covers
            for each, systems in lines_of.items():
                assert text.count(each) == 1, fmt
                assert ", ".join(systems) in text, fmt
        else:
            assert text.count(line) == 1, fmt
        for name in SYSTEMS:
            value = single[name]["success"]["success"]["total"]
            shown = repr(value) if fmt in ("csv", "json") else f"{value:.2f}"  # data formats keep the number
            assert shown in text, (fmt, name)
    rows = list(csv.DictReader(line for line in io.StringIO(render(comparison, "csv")) if not line.startswith("#")))
    ubar_bleu = next(r for r in rows if r["system"] == "ubar" and r["metric"] == "bleu:hdsa")
    assert float(ubar_bleu["value"]) == single["ubar"]["bleu"]["hdsa"]
    assert json.loads(render(comparison, "json"))["rows"] == json.loads(json.dumps(comparison.rows))
    latex = render(comparison, "latex")
    assert r"\toprule" in latex and r"\textbf{" in latex and r"\footnotetext" in latex


def test_bootstrap_is_seeded_and_a_copy_has_p_one(scored):
    comparison, _, again, _ = scored
    rows = {(r["system"], r["metric"]): r for r in comparison.rows if r["domain"] == "total"}
    assert rows[("ubar-copy", "success")]["p_value"] == 1.0
    assert rows[("ubar-copy", "bleu:hdsa")]["p_value"] == 1.0
    assert rows[("damd", "success")]["p_value"] < 0.05  # 70.3 against 47.6
    low, high = rows[("ubar", "success")]["ci_low"], rows[("ubar", "success")]["ci_high"]
    assert low < 70.3 < high
    assert again.settings["dialogues_of"] == {"ubar": 1000, "damd": 999, "labes": 944}
    twin = {(r["system"], r["metric"]): r for r in again.rows if r["domain"] == "total"}
    for key in (("damd", "success"), ("damd", "bleu:hdsa")):
        assert (twin[key]["ci_low"], twin[key]["ci_high"], twin[key]["p_value"]) == (
            rows[key]["ci_low"],
            rows[key]["ci_high"],
            rows[key]["p_value"],
        )


def test_resampled_bleu_of_the_full_sample_is_the_corpus_bleu():
    weights = bootstrap.resample_weights(5, 3, seed=1)
    assert weights.shape == (3, 5) and (weights.sum(axis=1) == 5).all()
    assert (bootstrap.resample_weights(5, 3, seed=1) == weights).all()
    score = bootstrap.rate([1.0, 0.0, float("nan"), 1.0])
    assert score(np.array([[1, 1, 1, 1]]))[0] == pytest.approx(200 / 3)


@pytest.mark.parametrize(("dialogues", "resamples", "seed"), [(1000, 1000, 0), (7, 50, 3), (1, 10, 0), (24, 0, 5)])
def test_resample_weights_count_the_seeded_draws(dialogues, resamples, seed):
    draws = np.random.default_rng(seed).integers(0, dialogues, size=(resamples, dialogues))  # the same generator
    expected = np.zeros((resamples, dialogues), dtype=np.int64)
    np.add.at(expected, (np.repeat(np.arange(resamples), dialogues), draws.ravel()), 1)
    weights = bootstrap.resample_weights(dialogues, resamples, seed)
    assert weights.dtype == np.int64 and weights.shape == expected.shape and (weights == expected).all()
    assert bootstrap.resample_weights(dialogues, resamples, seed) is weights  # made once, shared read-only
    with pytest.raises(ValueError, match="read-only"):
        weights[...] = 0


def test_plot_png_is_an_image_with_content(scored, tmp_path):
    pytest.importorskip("matplotlib")
    from mwz_metrics.comparison.plot import png

    data = png(scored[0])
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    import matplotlib.image

    path = tmp_path / "plot.png"
    path.write_bytes(data)
    pixels = matplotlib.image.imread(path)
    assert pixels.shape[0] > 300 and pixels.shape[1] > 600
    assert pixels[..., :3].std() > 0.05  # not blank


def test_html_report_renders_every_system_in_chromium(scored, tmp_path, need_chromium):
    browser = need_chromium
    page = tmp_path / "report.html"
    # the page measured as laid out at 1280 px: its width, each interval's lines, the bold cells
    measure = """<script>
    const ci = Array.from(document.querySelectorAll("td .ci"));
    document.body.dataset.width = document.documentElement.scrollWidth;
    document.body.dataset.intervals = ci.length;
    document.body.dataset.lines = Math.max(...ci.map(e => Math.round(e.getBoundingClientRect().height
      / (1.2 * parseFloat(getComputedStyle(e).fontSize)) + 0.3)));
    document.body.dataset.bold = Array.from(document.querySelectorAll("td.best .value"))
      .filter(e => parseInt(getComputedStyle(e).fontWeight) >= 700).length;
    </script></body>"""
    page.write_text(render(scored[0], "html").replace("</body>", measure))
    out = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            "--window-size=1280,900",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    dom = out.stdout
    assert "<table" in dom and "<script" in dom
    measured = {k: int(v) for k, v in re.findall(r'data-(width|intervals|lines|bold)="(\d+)"', dom)}
    assert measured["width"] <= 1280, measured  # nothing overflows
    assert measured["intervals"] >= len(SYSTEMS) * 2 and measured["lines"] == 1, measured  # one line each
    assert measured["bold"] >= len(scored[0].columns()), measured  # the best of every column
    for name in (*SYSTEMS, "ubar-copy"):
        assert f'data-value="{name}' in dom, name
    # each signature line, rendered, under the systems it covers
    import html as html_lib

    for line, systems in scored[0].signature["systems_of"].items():
        label = (
            f'<span class="signature">signature of {", ".join(systems)}: <code>{html_lib.escape(line)}</code></span>'
        )
        assert label in dom, systems


def test_cli_compare_folder_labels_and_per_dialogue(tmp_path, mirror):
    folder = tmp_path / "systems"
    folder.mkdir()
    for name in ("ubar", "damd"):
        shutil.copy(shared_path("data", "mwzeval", "predictions", f"{name}.json"), folder / f"{name}.json")
    env = {**os.environ, "MWZ_MIRROR": str(mirror)}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "mwz_metrics.cli",
            "-q",
            "compare",
            "-i",
            str(folder),
            "-i",
            f"mine={folder / 'ubar.json'}",
            "-s",
            "--format",
            "json",
            "--resamples",
            "50",
            "--per-dialogue-csv",
            str(tmp_path / "pd.csv"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["systems"] == ["damd", "ubar", "mine"]
    per_dialogue = list(csv.DictReader(open(tmp_path / "pd.csv")))
    assert {r["system"] for r in per_dialogue} == {"damd", "ubar", "mine"}
    ubar = [r for r in per_dialogue if r["system"] == "ubar"]
    assert len(ubar) == 1000 and sum(r["success"] == "True" for r in ubar) == 703


def _success_row(table, system):
    return next(r for r in table.rows if (r["system"], r["metric"], r["domain"]) == (system, "success", "total"))


def test_an_interval_belongs_to_its_figure_whoever_else_is_compared(tmp_path):
    """ubar's Success interval is over ubar's own 1000 dialogues, alone, beside pptod or beside labes (944)."""
    mirror = shared_path("data", "mirror-synth22")
    predictions = shared_path("data", "mwzeval", "predictions")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MWZ_MIRROR", str(mirror))
        options = {"bleu": False, "richness": False, "resamples": 500, "seed": 3, "jobs": 1}
        alone = compare({"ubar": predictions / "ubar.json"}, **options)
        with_pptod = compare({"ubar": predictions / "ubar.json", "pptod": predictions / "pptod.json"}, **options)
        with_labes = compare(
            {"ubar": predictions / "ubar.json", "labes": predictions / "labes.json"}, baseline="ubar", **options
        )
        common = compare(
            {"ubar": predictions / "ubar.json", "labes": predictions / "labes.json"}, common_dialogues=True, **options
        )
        single = Evaluator(bleu=False, richness=False, per_dialogue=True).evaluate(str(predictions / "ubar.json"))
        labes = json.loads((predictions / "labes.json").read_text())
        intersected = {k: v for k, v in json.loads((predictions / "ubar.json").read_text()).items() if k in labes}
        assert len(intersected) == len(labes) == 944
        on_common = Evaluator(bleu=False, richness=False).evaluate(intersected)
    rows = [_success_row(t, "ubar") for t in (alone, with_pptod, with_labes)]
    assert all(
        (r["value"], r["ci_low"], r["ci_high"]) == (rows[0]["value"], rows[0]["ci_low"], rows[0]["ci_high"])
        for r in rows
    )
    low, high = rows[0]["ci_low"], rows[0]["ci_high"]
    assert rows[0]["value"] == 70.3 and low < 70.3 < high and abs((low + high) / 2 - 70.3) < 0.6
    # the same interval by a bootstrap written here: ubar's own 1000 dialogues, numpy's seeded draws
    outcomes = single["success"]["per_dialogue"]
    keys = sorted(outcomes)
    values = np.array([float(outcomes[k]["success"].get("total", 0)) for k in keys])
    draws = np.random.default_rng(3).integers(0, len(keys), size=(500, len(keys)))
    samples = 100.0 * values[draws].mean(axis=1)
    assert (low, high) == pytest.approx(tuple(np.percentile(samples, [2.5, 97.5])), abs=1e-9)
    # labes's interval is over its own 944 dialogues; its p-value pairs the 944 both have
    labes = _success_row(with_labes, "labes")
    assert "paired_dialogues" not in labes and with_labes.settings["dialogues_of"]["labes"] == 944
    assert "[944 dialogues]" in with_labes.render("table")
    # --common-dialogues: every figure over the 944, equal to mwz evaluate on the intersected file
    assert _success_row(common, "ubar")["value"] == on_common["success"]["success"]["total"] != 70.3
    assert common.settings["dialogues_of"] == {"ubar": 944, "labes": 944}
    assert "common_dialogues=944" in common.signature["line"]


def test_gold_state_systems_are_marked_in_every_format(scored, tmp_path):
    """Systems without states are scored on MultiWOZ 2.2's gold states: every format says which."""
    comparison = scored[0]
    gold = gold_states(comparison)
    assert gold and gold < set(comparison.systems)
    for line, systems in comparison.signature["systems_of"].items():  # the signatures agree
        assert ("states=gold" in line) == bool(set(systems) & gold), systems
    for fmt in ("table", "markdown", "latex", "html"):
        text = render(comparison, fmt)
        for name in comparison.systems:
            assert (f"{name} (gold states)" in text) == (name in gold), (fmt, name)
        assert "gold belief states" in text, fmt
    rows = list(csv.DictReader(line for line in io.StringIO(render(comparison, "csv")) if not line.startswith("#")))
    assert {r["system"] for r in rows if r["states"] == "gold"} == gold
    assert {r["system"] for r in rows if r["states"] == "predicted"} == set(comparison.systems) - gold
    assert set(json.loads(render(comparison, "json"))["bootstrap"]["gold_states"]) == gold
    pytest.importorskip("matplotlib")
    from mwz_metrics.comparison.plot import render as plot

    svg = plot(comparison, "svg").decode()
    for name in comparison.systems:
        assert (f"{name} (gold states)" in svg) == (name in gold), name


def test_latex_has_the_intervals_its_caption_announces(scored):
    comparison = scored[0]
    latex = render(comparison, "latex")
    assert "[low, high]: 95" in latex
    for row in comparison.rows:
        if row["domain"] == "total" and "ci_low" in row:
            assert f"{{\\scriptsize[{row['ci_low']:.1f}, {row['ci_high']:.1f}]}}" in latex, row
    body = latex.split(r"\midrule", 1)[1].split(r"\bottomrule", 1)[0]
    assert body.count(r"\scriptsize[") == sum(1 for r in comparison.rows if r["domain"] == "total" and "ci_low" in r)
    assert "<" not in body and ">" not in body  # names and marks in LaTeX's spelling
    footnote = latex.split(r"\footnotetext{", 1)[1]
    for systems in comparison.signature["systems_of"].values():
        assert f"{', '.join(systems)}: \\texttt{{" in footnote.replace(r"\_", "_"), systems


def test_compare_cli_with_runs_warnings_vector_plot_and_replay_bleu(tmp_path, synth22, monkeypatch):
    """Through the console script: two static systems (one on gold states), an interactive run, a
    replay run whose BLEU is interact's own; each system's warnings counted and listed; the plot as PDF
    and SVG by the file's extension, and a wrong extension refused in one line before any scoring."""
    monkeypatch.setenv("MWZ_MIRROR", str(synth22))
    mwz = [str(Path(sys.executable).parent / "mwz"), "-q"]
    ubar = shared_path("data", "mwzeval", "predictions", "ubar.json")
    hdsa = shared_path("data", "mwzeval", "predictions", "hdsa.json")
    run, replay = tmp_path / "oracle.jsonl", tmp_path / "replay.jsonl"

    def call(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*mwz, *args], capture_output=True, text=True, timeout=600)

    assert call("interact", "--system", "oracle", "--goals", "3", "-o", str(run)).returncode == 0
    done = call("interact", "--system", str(ubar), "--simulator", "replay", "--goals", "3", "-o", str(replay))
    assert done.returncode == 0, done.stderr[-2000:]
    own = json.loads(call("interact", "--score-only", "-i", str(replay), "--json").stdout)["bleu"]
    systems = ["-i", f"ubar={ubar}", "-i", f"hdsa={hdsa}", "-i", f"run={run}", "-i", f"replay={replay}"]
    common = [*systems, "--baseline", "ubar", "-b", "-s", "--resamples", "50"]
    out = call("compare", *common, "--format", "csv", "--plot", str(tmp_path / "plot.pdf"))
    assert out.returncode == 0, out.stderr[-2000:]
    rows = list(csv.DictReader(line for line in io.StringIO(out.stdout) if not line.startswith("#")))
    shown = {r["metric"][5:]: float(r["value"]) for r in rows if r["system"] == "replay" and r["metric"][:5] == "bleu:"}
    assert shown and shown == {style: own[style] for style in shown}  # the replay keeps its BLEU
    assert {r["warnings"] for r in rows if r["system"] == "replay"} != {"0"}
    assert (tmp_path / "plot.pdf").read_bytes()[:5] == b"%PDF-"
    table = call("compare", *common, "--plot", str(tmp_path / "plot.svg"))
    # the table in blocks of at most 120 columns, each with its header: the warnings the last column
    headers = [line for line in table.stdout.splitlines() if line.startswith("system ")]
    assert headers[-1].split()[-1] == "warnings" and "hdsa (gold states)" in table.stdout
    assert max(map(len, table.stdout.splitlines())) <= 120
    assert "warnings of replay: " in table.stdout
    svg = (tmp_path / "plot.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert "ubar (baseline)" in svg and "run (interactive)" in svg  # the baseline, the run in the bars
    assert "not shown (no BLEU or Success): run (interactive)" in svg  # the run without BLEU, said
    refused = call("compare", *common, "--plot", str(tmp_path / "plot.jpg"))
    assert refused.returncode == 2 and "--plot" in refused.stderr and ".svg" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
