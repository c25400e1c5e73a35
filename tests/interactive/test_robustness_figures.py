"""Robustness as a figure, and which user broke it (issue 49, items 1 and 5).

A run with profiles (``mwz interact --profile NAME`` / ``--profiles all``: the default user's session file
and each profile's beside it) gives the worst user's and the mean Success over the users, the default user
among them, with intervals resampling goals once for all users and the paired difference to the default
user, in the table, ``--result``, ``mwz compare`` and ``mwz view``; ``--explain`` and the page say which
sessions a profile broke (solved with the default user, failed with the profile) and why.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from conftest import run_chromium, run_cli

from mwz_metrics import bootstrap
from mwz_metrics.interactive.scoring import trials

GOALS = 5
BROKEN = 2  # goals the fragile system cannot serve the terse user


def _records(outcomes: dict[str, list[float]]) -> dict[str, list[dict]]:
    return {user: [{"id": f"g{i}", "success": v} for i, v in enumerate(values)] for user, values in outcomes.items()}


def test_worst_and_mean_over_users_resample_goals_once_for_all_users():
    outcomes = {"default": [1, 1, 1, 1, 0], "terse": [1, 0, 1, 0, 0], "eager": [1, 1, 1, 1, 1]}
    found = trials.robustness(_records(outcomes), resamples=20, seed=3)
    assert found["success"] == {"default": 80.0, "terse": 40.0, "eager": 100.0}
    assert found["worst"]["value"] == 40.0 and found["worst"]["users"] == ["terse"]
    assert found["mean"]["value"] == pytest.approx(220 / 3)
    assert found["worst"]["against_default"]["difference"] == -40.0
    assert found["mean"]["against_default"]["difference"] == pytest.approx(220 / 3 - 80)
    assert (found["goals"], found["sessions"], found["paired_by"]) == (5, 5, "goal")
    # the same goal resamples for every user: each resample's min and mean over the users' Success
    weights = bootstrap.resample_weights(5, 20, 3)
    matrix = np.array(list(outcomes.values()), dtype=float)
    samples = 100 * (weights @ matrix.T) / weights.sum(axis=1)[:, None]
    assert found["worst"]["ci95"] == list(bootstrap.confidence_interval(samples.min(axis=1)))
    assert found["mean"]["ci95"] == list(bootstrap.confidence_interval(samples.mean(axis=1)))
    deltas = samples.min(axis=1) - samples[:, 0]
    assert found["worst"]["against_default"]["ci95"] == list(bootstrap.confidence_interval(deltas))
    assert found["worst_share"]["terse"] >= 0.5 and sum(found["worst_share"].values()) >= 1.0
    # trials: paired by goal and trial, a goal's trials averaged, the sessions only some users have left out
    records = {
        "default": [{"id": "g0#0", "success": 1.0}, {"id": "g0#1", "success": 1.0}, {"id": "g1#0", "success": 0.0}],
        "terse": [{"id": "g0#0", "success": 1.0}, {"id": "g0#1", "success": 0.0}, {"id": "g1#1", "success": 1.0}],
    }
    paired = trials.robustness(records, resamples=0, seed=0)
    assert (paired["paired_by"], paired["goals"], paired["sessions"]) == ("goal and trial", 1, 2)
    assert paired["success"] == {"default": 100.0, "terse": 50.0} and "ci95" not in paired["worst"]


@pytest.fixture(scope="module")
def runs(synth22_context, tmp_path_factory):
    """Two runs with the terse profile on the first 5 test goals: ``a`` (an oracle that cannot serve the
    terse user on 2 goals) and ``b`` (the oracle), each the default user's file with the profile's beside."""
    from mwz_metrics.interactive.harness import api
    from mwz_metrics.interactive.protocol import as_system

    folder = tmp_path_factory.mktemp("robust")
    for name in ("a", "b"):
        for profile in (None, "terse"):
            run = api.prepare("oracle", goals=GOALS, profile=profile, context=synth22_context)
            if name == "a" and profile:
                oracle, broken = run.system, {g.dialogue_id for g in run.goals[:BROKEN]}
                run.system = as_system(
                    lambda r, oracle=oracle, broken=broken: (
                        {"response": "Which area would you like?", "acts": [["request", "restaurant", "area", "?"]]}
                        if r["dialogue_id"] in broken
                        else oracle.respond(r)
                    )
                )
            api.run_sessions(run, output=folder / (f"{name}.{profile}.jsonl" if profile else f"{name}.jsonl"))
    return folder


def test_interact_profiles_prints_writes_and_explains_the_robustness(synth22_env, runs, tmp_path, capsys):
    result = tmp_path / "result.json"
    code, out, err = run_cli(
        capsys, "interact", "--score-only", "-i", str(runs / "a.jsonl"), "--profile", "terse", "--resamples", "20",
        "--result", str(result), "--explain", "1",
    )  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    assert [line.split()[0] for line in lines[2:4]] == ["default", "terse"]
    worst, mean = re.findall(r"^(?:worst user|mean of users) +(\S+) +\[[^]]*\] +(\S+) \[", out, re.M)
    assert worst == ("60.0", "-40.0") and mean == ("80.0", "-20.0")
    assert "the worst user: terse" in out
    written = json.loads(result.read_text())
    assert [p["profile"] for p in written["profiles"]] == ["default", "terse"]
    assert len(written["profiles"][1]["per_session"]) == GOALS and written["profiles"][1]["success"] == 60.0
    robust = written["robustness"]
    assert (
        robust["worst"]["value"] == 60.0 and robust["worst"]["users"] == ["terse"] and robust["users"][0] == "default"
    )
    assert len(robust["worst"]["ci95"]) == 2 and "p_value" in robust["mean"]["against_default"]
    assert re.search(r"profiles=default\+terse@\d", written["signature"]["line"])
    assert written["broken"]["terse"]["broken"] == BROKEN and written["broken"]["terse"]["paired"] == GOALS
    # --explain: which user broke it, by reason, then one of those sessions
    assert f"  terse: {BROKEN} of {GOALS} sessions" in out
    assert re.search(r"\n +\d+  the system asked (again for|for) restaurant area", out)  # from its acts
    assert f"1 of {BROKEN} sessions solved with the default user and failed with another:" in out
    assert "\n[terse] " in out


def test_compare_gives_runs_with_profiles_their_robustness(synth22_env, runs, capsys):
    code, out, err = run_cli(
        capsys, "compare", "-i", str(runs), "--baseline", "b", "--resamples", "20", "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    table = json.loads(out)
    assert table["systems"] == ["a", "b"]  # the folder: each run once, its profiles' files beside it
    rows = {(r["system"], r["metric"]): r for r in table["rows"] if r["metric"].startswith("robustness:")}
    assert rows[("a", "robustness:worst")]["value"] == 60.0 and rows[("b", "robustness:worst")]["value"] == 100.0
    assert rows[("a", "robustness:mean")]["value"] == 80.0 and "ci_low" in rows[("a", "robustness:mean")]
    assert rows[("a", "robustness:worst_vs_default")]["value"] == -40.0
    assert "p_value" in rows[("a", "robustness:worst")]  # against b, the same users on the same goals
    robust = table["bootstrap"]["robustness"]["a"]
    assert robust["profiles"].startswith("default+terse@") and robust["against"]["worst"]["difference"] == -40.0
    line = next(line for line in table["signature"]["systems_of"] if "fragile" not in line and "a" in line)
    assert "profiles=default+terse@" in line


def test_view_shows_which_user_broke_it(synth22_env, runs, tmp_path, need_chromium):
    from mwz_metrics.viewer import page_data, write

    data = page_data([runs / "a.jsonl"], resamples=20)
    assert [r["name"] for r in data["runs"]] == ["a.jsonl", "a.terse.jsonl"]  # the profile's run beside it
    (robust,) = data["robustness"]
    assert robust["runs"] == {"default": 0, "terse": 1} and robust["figures"]["worst"]["value"] == 60.0
    broken = robust["broken"]["terse"]
    assert broken["broken"] == BROKEN
    keys = {f"{s['goal']}~{s['trial'] or 0}" for s in data["runs"][1]["sessions"] if s["success"] == 0}
    assert {key for reason in broken["reasons"] for key in reason["keys"]} == keys
    alone = page_data([runs / "a.jsonl"], resamples=0, profiles=False)
    assert len(alone["runs"]) == 1 and alone["robustness"] == []
    page = write([runs / "a.jsonl"], tmp_path / "view.html", resamples=20)
    harness = tmp_path / "harness.html"
    harness.write_text(
        HARNESS.replace("VIEW", page.as_uri()), encoding="utf-8"
    )  # clicks the terse line: its run, the default user's beside, the sessions it broke
    dom = run_chromium(need_chromium, tmp_path, "--virtual-time-budget=20000", "--dump-dom", harness.as_uri())
    shown = json.loads(re.search(r'<pre id="result">(.*?)</pre>', dom, re.S).group(1).replace("&quot;", '"'))
    assert "error" not in shown, shown
    assert "Worst user" in shown["figures"] and "60.0" in shown["figures"]
    assert shown["rows"] == BROKEN and (shown["run"], shown["other"], shown["outcome"]) == ("1", "0", "worse")


HARNESS = """<!DOCTYPE html><html><body><iframe id="view" src="VIEW" style="width:1280px;height:900px"></iframe>
<pre id="result"></pre><script>
const frame = document.getElementById("view");
frame.addEventListener("load", () => setTimeout(() => {
  const out = {};
  try {
    const page = frame.contentDocument;
    out.figures = page.getElementById("figures").innerText;
    page.querySelector('button.link[data-user="terse"]').click();
    out.rows = page.querySelectorAll("#sessions tbody tr").length;
    out.run = page.getElementById("f-run").value;
    out.other = page.getElementById("f-other").value;
    out.outcome = page.getElementById("f-outcome").value;
  } catch (error) { out.error = String(error && error.stack || error); }
  document.getElementById("result").textContent = JSON.stringify(out);
}, 100));
</script></body></html>"""


def test_the_success_card_names_the_robustness_figures():
    from mwz_hub import cards

    body = cards.load_card("metrics", "mwz_success").body
    assert "--profiles all" in body and "worst-profile Success" in body
