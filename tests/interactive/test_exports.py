"""Exports that connect: ``mwz interact --predictions`` scored by ``mwz evaluate``, ``to_dataset`` of a
session file's path, and ``--explain`` choosing mwzeval's failures first (issue 43, items 3 and 4)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

MWZ = str(Path(sys.executable).parent / "mwz")  # the console script


def _mwz(synth22, *argv: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "MWZ_MIRROR": str(synth22)}
    return subprocess.run([MWZ, "-q", *argv], env=environment, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def lexicalized_run(synth22, synth22_context, tmp_path_factory):
    """oracle-lex (values written out: mwzeval reads them delexicalized) on 12 goals, with its export."""
    folder = tmp_path_factory.mktemp("export")
    sessions, exported = folder / "lex.jsonl", folder / "lex-predictions.json"
    ran = _mwz(
        synth22, "interact", "--system", "oracle-lex", "--goals", "12", "-o", str(sessions),
        "--predictions", str(exported), "--json",
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    return sessions, exported, json.loads(ran.stdout)


def test_evaluate_scores_an_interact_export_as_its_sessions(synth22, lexicalized_run, tmp_path):
    sessions, exported, interacted = lexicalized_run
    data = json.loads(exported.read_text())
    # mwzeval's format: what its scripts read is there, as the session said it
    assert len(data) == 12 and all("response" in t and "state" in t for turns in data.values() for t in turns)
    ran = _mwz(synth22, "evaluate", "-i", str(exported), "--json")
    assert ran.returncode == 0, ran.stderr  # was: "20 predicted turns but the reference has 11"
    evaluated = json.loads(ran.stdout)
    interacted.pop("session_file")
    assert evaluated == interacted  # every figure, interval and the signature
    assert evaluated["success"] == 100.0 and "delexicalized" in evaluated["signature"]["line"]
    table = _mwz(synth22, "evaluate", "-i", str(exported))
    assert table.stdout.startswith("interactive evaluation: agenda -> oracle-lex, 12 sessions")
    # the same as the session file itself
    assert json.loads(_mwz(synth22, "evaluate", "-i", str(sessions), "--json").stdout) == evaluated
    # an export edited by hand: one line naming the file and the dialogue
    broken = dict(data)
    first = next(iter(broken))
    broken[first] = [{k: v for k, v in t.items() if k != "mwz"} for t in broken[first]]
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(broken))
    refused = _mwz(synth22, "evaluate", "-i", str(path))
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert f"edited.json: dialogue {first}: not a session of an mwz interact export" in refused.stderr


def test_a_session_without_a_system_turn_keeps_its_place_in_the_export():
    from mwz_metrics.interactive.scoring import export

    def session(key: str, system: bool) -> dict:
        turns = [{"speaker": "user", "text": f"hi {key}"}]
        if system:
            turns += [{"speaker": "system", "text": "[value_name]", "state": {}, "acts": []}]
            turns += [{"speaker": "user", "text": "bye"}]
        return {"id": key, "goal": {"domains": []}, "turns": turns, "booked": [], "end": {"reason": "user_done"}}

    sessions = [session("a", True), session("b", False), session("c", True)]
    data = json.loads(json.dumps(export.predictions_export(sessions, {"seed": 3})))
    assert list(data) == ["a", "c"] and data["a"][0]["response"] == "[value_name]"
    assert export.sessions_of_export(data) == ({"seed": 3}, sessions)
    assert export.sessions_of_export(export.predictions(sessions)) is None  # plain predictions: not an export


def test_to_dataset_reads_a_session_file_path(lexicalized_run):
    pytest.importorskip("datasets")
    from mwz_metrics.interactive import to_dataset
    from mwz_metrics.interactive.harness import sessions as session_files

    sessions, exported, _ = lexicalized_run
    _, records = session_files.read(sessions)
    for source in (str(sessions), sessions, str(exported)):
        dataset = to_dataset(source)
        assert dataset.num_rows == 12 and dataset["dialogue_id"] == [r["id"] for r in records]
        assert dataset[0]["texts"] == [t["text"] for t in records[0]["turns"]]
    builder = __import__("mwz_metrics.interactive.scoring.export", fromlist=["x"])
    assert not hasattr(builder, "to_dataset")  # one to_dataset: the library's, taking a path or records
    with pytest.raises(TypeError, match=r"a path is read by mwz_metrics\.interactive\.to_dataset"):
        builder.sessions_dataset(str(sessions))


def test_explain_shows_mwzeval_failures_first_whatever_the_file_order(synth22, synth22_context, tmp_path):
    out = tmp_path / "oracle.jsonl"
    ran = _mwz(synth22, "interact", "--system", "oracle", "--goals", "12", "-o", str(out))
    assert ran.returncode == 0, ran.stderr
    header, *lines = out.read_text().splitlines()
    sessions = [json.loads(line) for line in lines]
    single = [s for s in sessions if len(s["goal"]["domains"]) == 1][:3]
    assert len(single) == 3
    # first in the file: mwzeval counts it, the simulator lacked something ("success yes, complete no")
    lacking, *failing = single
    lacking["complete"] = False
    domain = lacking["goal"]["domains"][0]["domain"]
    lacking["details"]["domains"][domain] = {"fulfilled": False, "missing": ["phone"]}
    for session in failing:  # mwzeval's failures: no state, no placeholder
        for turn in session["turns"]:
            if turn["speaker"] == "system":
                turn["state"], turn["text"] = {}, "okay."
    failing.sort(key=lambda s: s["id"], reverse=True)  # ties broken by id, not by the file's order
    ordered = [lacking, *failing, *(s for s in sessions if s not in single)]
    out.write_text("\n".join([header, *(json.dumps(s) for s in ordered)]) + "\n")
    ran = _mwz(synth22, "interact", "--system", "oracle", "-i", str(out), "--score-only", "--explain", "3")
    assert ran.returncode == 0, ran.stderr
    explained = ran.stdout.split("3 of 3 failed sessions:")[1]
    heads = [line.split(":")[0] for line in explained.splitlines() if ": success " in line]
    assert heads == [*sorted(s["id"] for s in failing), lacking["id"]]
    assert f"{failing[0]['id']}: success no" in explained and f"{lacking['id']}: success yes" in explained


def test_compare_reads_exports_as_the_runs_they_came_from(synth22_env, synth22_context, tmp_path, capsys):
    """``mwz compare`` of two runs' ``--predictions`` exports: the rows, the pairing by goal and trial and
    the signature of comparing their session files (was: scored as mwzeval predictions, "12 dialogue
    id(s) not in the MultiWOZ test set"); an export without the sessions' ids: one line, exit 2."""
    from conftest import run_cli

    from mwz_metrics.interactive.harness import api
    from mwz_metrics.interactive.protocol import as_system

    goals, trials, failing_goals = 5, 2, 2
    for name, fails in (("a", 0), ("b", failing_goals)):
        run = api.prepare("oracle", goals=goals, trials=trials, context=synth22_context)
        oracle, failing = run.system, {g.dialogue_id for g in run.goals[:fails]}

        def respond(request, oracle=oracle, failing=failing):  # b: trial 1 of two goals says nothing useful
            if request["dialogue_id"] in failing and request["trial"] == 1:
                return {"response": "I am sorry, I cannot help with that."}
            return oracle.respond(request)

        run.system = as_system(respond)
        api.run_sessions(run, output=tmp_path / f"{name}.jsonl")
        exported = ("--predictions", str(tmp_path / f"{name}.json"))
        assert run_cli(capsys, "interact", "--score-only", "-i", str(tmp_path / f"{name}.jsonl"), *exported)[0] == 0
    compared = {}
    for kind in ("jsonl", "json"):
        inputs = [arg for name in "ab" for arg in ("-i", f"{name}={tmp_path / name}.{kind}")]
        code, out, err = run_cli(capsys, "compare", *inputs, "--resamples", "50", "--format", "json")
        assert code == 0, err
        compared[kind] = json.loads(out)
    assert compared["json"] == compared["jsonl"]
    pair = compared["json"]["bootstrap"]["interactive_pairs"]["b"]
    lost = -100 * failing_goals / (goals * trials)  # b fails one trial of each failing goal
    assert pair["paired_by"] == "goal and trial" and pair["success"]["difference"] == pytest.approx(lost)
    data = json.loads((tmp_path / "b.json").read_text())
    for turns in data.values():
        del turns[0]["mwz"]["session"]["id"]
    (tmp_path / "b.json").write_text(json.dumps(data))
    code, out, err = run_cli(capsys, "compare", "-i", f"a={tmp_path / 'a.json'}", "-i", f"b={tmp_path / 'b.json'}")
    assert code == 2 and err.count("\n") == 1, err
    assert "b.json: dialogue " in err and "its session has no id" in err
