"""Interactive evaluation on the real test goals: simulators, reference systems, the bridge to static
evaluation, sessions that survive failures and interruptions, and the system-act reader."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import SLOW_SYSTEM, kill_9_then_resume, shared_path

from mwz_metrics.interactive.harness import api
from mwz_metrics.interactive.harness import sessions as session_files
from mwz_metrics.interactive.scoring import export

SLICE = 80  # goals per run in the tests: the first of the test set (all five domains occur)


@pytest.fixture(scope="module")
def context(synth22_context):
    return synth22_context


@pytest.fixture()
def env(synth22_env):
    """The synth22 mirror for the test."""


def _run(context, system, simulator="agenda", goals=SLICE, **options):
    run = api.prepare(system, simulator=simulator, goals=goals, context=context, **options)
    sessions = api.run_sessions(run, output=None)
    return run, sessions


def _score(context, run, sessions, **options):
    return api.score(sessions, run.config, context=context, resamples=200, **options)


def test_oracle_succeeds_and_its_text_alone_nearly_as_well(env, context):
    run, sessions = _run(context, "oracle")
    result = _score(context, run, sessions)
    assert result["sessions"] == SLICE
    assert result["success"] >= 95.0 and result["complete"] >= 95.0
    assert result["end_reasons"] == {"user_done": SLICE}
    text_run, text_sessions = _run(context, "oracle-text")
    text = _score(context, text_run, text_sessions)
    assert abs(text["success"] - result["success"]) <= 5.0
    assert all(t.get("acts") is None for s in text_sessions for t in export.system_turns(s))
    assert all("read_acts" in t for s in text_sessions for t in export.system_turns(s))


def test_oracle_speaking_values_scores_within_a_point_of_the_oracle(env, context):
    """``oracle-lex`` writes the oracle's values into its words: the simulator reads them and the
    scores delexicalize them (all 1000 goals: Inform 100.0 / Success 99.9 against 100 / 100; 99.8 with
    agenda@2.0.0, whose user answered "a different area?" after a no-offer instead of relaxing: mul2177)."""
    run, sessions = _run(context, "oracle", goals=200)
    oracle = _score(context, run, sessions, metrics=[])
    lex_run, lex_sessions = _run(context, "oracle-lex", goals=200)
    lexicalized = _score(context, lex_run, lex_sessions)
    for key in ("inform", "success"):
        assert abs(lexicalized[key] - oracle[key]) <= 1.0, key
    texts = [t["text"] for s in lex_sessions for t in export.system_turns(s)]
    assert not any("[value_" in t for t in texts)  # values, not placeholders
    assert any(w["kind"] == "lexicalized_responses" for w in lexicalized["warnings"])
    assert "delexicalized=mwz-delex@1.0.0" in lexicalized["signature"]["line"]
    assert "delexicalized" not in oracle["signature"]["line"]
    never = _score(context, lex_run, lex_sessions, delexicalize="never")
    assert never["success"] <= 10.0 and "values_read_as_written" in {w["kind"] for w in never["warnings"]}


@pytest.mark.parametrize("system", ["echo", "silent"])
def test_lower_bounds_fail(env, context, system):
    run, sessions = _run(context, system)
    result = _score(context, run, sessions)
    assert result["success"] <= 10.0  # 2.5 on all 1000 goals (mwzeval counts goals that request nothing)
    assert result["complete"] == 0.0 and result["book_rate"] == 0.0


def test_sessions_depend_on_the_seed_only(env, context):
    _, first = _run(context, "oracle", goals=20)
    _, again = _run(context, "oracle", goals=20)
    _, other = _run(context, "oracle", goals=20, seed=7)
    assert first == again
    assert [s["turns"] for s in first] != [s["turns"] for s in other]


def test_agenda_reacts_to_no_offer_and_failed_bookings(env, context):
    """Goals whose first constraints match nothing switch to the final ones after the no-offer."""
    switching = [g for g in context.goals.values() if any(d.fail_info for d in g.domains)][:15]
    run, sessions = _run(context, "oracle", goals=[g.dialogue_id for g in switching])
    for goal, session in zip(switching, sessions):
        acts = [a for t in session["turns"] for a in (t.get("acts") or [])]
        assert any(a[0] == "nooffer" for a in acts), session["id"]
        assert session["complete"], session["id"]
        domain = next(d for d in goal.domains if d.fail_info)
        final_state = export.system_turns(session)[-1]["state"][domain.domain]
        for slot, value in domain.info.items():
            key = {"pricerange": "pricerange", "arriveBy": "arrive", "leaveAt": "leave"}.get(slot, slot)
            assert final_state.get(key) == value, (session["id"], slot)


# With states and active domains, states only, no states (gold states), a partial file, a turn-count mismatch.
BRIDGE_SYSTEMS = ("mintl", "ubar", "galaxy-policy", "labes", "pptod")


BRIDGE_DIALOGUES = 60  # per file (the first ones, and every one whose turn count differs from the gold one)


def _bridge_slice(path: Path, context, folder: Path) -> Path:
    """The first BRIDGE_DIALOGUES dialogues of a predictions file and its turn-count mismatches, as a new file."""
    from mwz_datasets.multiwoz_raw import evaluation_key

    data = json.loads(path.read_text(encoding="utf-8"))
    keys = sorted(data)[:BRIDGE_DIALOGUES]
    keys += [
        k
        for k in sorted(data)[BRIDGE_DIALOGUES:]
        if len(data[k]) != context.test.get(evaluation_key(k), {}).get("system_turns", len(data[k]))
    ]
    sliced = folder / path.name
    sliced.write_text(json.dumps({k: data[k] for k in keys}), encoding="utf-8")
    return sliced


def test_replay_with_a_predictions_file_is_mwz_evaluate(env, context, synth22, tmp_path):
    """The bridge: replaying the test dialogues to a predictions file gives every figure of ``mwz evaluate``
    (five systems of every kind here, each on BRIDGE_DIALOGUES dialogues and its turn-count mismatches;
    ``MWZ_BRIDGE_ALL=1`` checks all 19 shared ones whole)."""
    from mwz_metrics.multiwoz.evaluator import Evaluator

    predictions = shared_path("data", "mwzeval", "predictions")
    paths = sorted(predictions.glob("*.json"))
    if os.environ.get("MWZ_BRIDGE_ALL") != "1":
        paths = [_bridge_slice(p, context, tmp_path) for p in paths if p.stem in BRIDGE_SYSTEMS]
        pptod = json.loads(next(p for p in paths if p.stem == "pptod").read_text(encoding="utf-8"))
        assert "pmul3688" in pptod  # its one turn-count mismatch is kept
    evaluator = Evaluator(bleu=True, success=True, richness=True, per_dialogue=True)
    for path in paths:
        run = api.prepare(str(path), simulator="replay", context=context)
        sessions = api.run_sessions(run, output=None)
        assert _same_turns(sessions, path)
        interactive = api.score(sessions, run.config, context=context, resamples=0)
        static = evaluator.evaluate(str(path))
        assert interactive["richness"] == static["richness"], path.stem
        assert interactive["bleu"] == static["bleu"], path.stem
        assert interactive["inform_by_domain"] == static["success"]["inform"], path.stem
        assert interactive["success_by_domain"] == static["success"]["success"], path.stem
        assert interactive["exact"] == static["success"]["exact"], path.stem


def _same_turns(sessions, path) -> bool:
    """Turn by turn, the replayed system turns are the file's (ids normalized, extra keys dropped)."""
    from mwz_metrics.inputs import load_predictions

    loaded = load_predictions(str(path))
    for session in sessions:
        turns = export.system_turns(session)
        expected = loaded[session["id"]]
        assert [t["text"] for t in turns] == [t.response for t in expected]
        assert [t.get("state") for t in turns] == [t.state for t in expected]
        assert [tuple(t["active_domains"]) if "active_domains" in t else None for t in turns] == [
            t.active_domains for t in expected
        ]
    return True


class _Stub:
    """An HTTP system: the oracle behind a server that sleeps, fails 5% of requests and sends one bad body."""

    def __init__(self, context):
        import hashlib
        import http.server
        import threading

        from mwz_metrics.interactive.systems.reference import OracleSystem

        oracle = OracleSystem(context)
        self.errors = 0
        lock = threading.Lock()
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                key = f"{request['dialogue_id']}:{request['turn']}:{len(request['history'])}"
                time.sleep(0.002)
                first_try = key not in stub.seen
                stub.seen.add(key)
                if first_try and int(hashlib.sha256(key.encode()).hexdigest(), 16) % 20 == 0:
                    with lock:
                        stub.errors += 1
                    self.send_response(500)
                    self.end_headers()
                    return
                if request["dialogue_id"] == stub.slow and request["turn"] == 1:
                    time.sleep(2.5)  # past the client's timeout, every try
                if request["dialogue_id"] == stub.malformed and request["turn"] == 1:
                    body = b"{not json"
                else:
                    body = json.dumps(oracle.respond(request)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.seen: set[str] = set()
        self.malformed = ""
        self.slow = ""
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/respond"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_http_system_failures_are_counted_and_nothing_else_is_lost(env, context, tmp_path, quick_retries):
    stub = _Stub(context)
    try:
        # the stub answers with the oracle, which reads the user's acts: give them (act level)
        run = api.prepare(stub.url, goals=60, context=context, retries=2, timeout=1.0, user_acts=True)
        stub.malformed = run.goals[3].dialogue_id
        stub.slow = run.goals[5].dialogue_id
        out = tmp_path / "http.jsonl"
        sessions = api.run_sessions(run, output=out, jobs=4)
    finally:
        stub.close()
    result = _score(context, run, sessions)
    assert result["sessions"] == 60
    assert result["end_reasons"] == {"user_done": 58, "malformed_response": 1, "system_timeout": 1}
    assert stub.errors > 0
    failures = result["system_failures"]
    assert failures["http_500"] == stub.errors and failures["malformed"] == 1
    slow = next(s for s in sessions if s["id"] == stub.slow)
    assert slow["end"]["reason"] == "system_timeout"
    assert slow["system_report"]["failures"]["timeout"] == 3  # the first try and both retries
    # every failed try is retried but the last of the session that timed out (a loaded machine may
    # time out elsewhere too: those retried requests succeeded)
    assert failures["retries"] == failures["http_500"] + failures["timeout"] - 1
    _, stored = session_files.read(out)
    assert sorted(s["id"] for s in stored) == sorted(g.dialogue_id for g in run.goals)
    # the retried sessions are the oracle's own sessions: failures cost nothing else
    _, direct = _run(context, "oracle", goals=60)
    by_id = {s["id"]: s for s in direct}
    for session in sessions:
        if session["id"] not in (stub.malformed, stub.slow):
            assert session["turns"] == by_id[session["id"]]["turns"]


_WITH_SIGINT = (
    "import signal, sys; signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); "
    "signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from mwz_metrics.cli import main; sys.exit(main(sys.argv[1:]))"
)


def test_kill_9_then_resume_gives_the_uninterrupted_run(env, context, tmp_path, synth22):
    lines, resumed, uninterrupted, killed, whole = kill_9_then_resume(
        tmp_path, synth22, ["--goals", "60"], slow_after=16, kill_at=15
    )
    assert 15 <= lines < 61, lines
    assert resumed.returncode == 0, resumed.stderr
    assert uninterrupted.returncode == 0, uninterrupted.stderr
    run_a, a = session_files.read(killed)
    run_b, b = session_files.read(whole)
    assert run_a == run_b
    assert sorted(a, key=lambda s: s["id"]) == sorted(b, key=lambda s: s["id"])
    first, second = json.loads(resumed.stdout), json.loads(uninterrupted.stdout)
    for key in ("inform", "success", "complete", "book_rate", "inform_f1", "turns", "ci95", "end_reasons"):
        assert first[key] == second[key], key
    assert first["signature"]["line"] == second["signature"]["line"]


def test_resume_refuses_another_configuration(env, context, tmp_path):
    from mwz_metrics.inputs import InputError

    out = tmp_path / "run.jsonl"
    api.run_sessions(api.prepare("oracle", goals=3, context=context), output=out)
    with pytest.raises(InputError, match="another run configuration"):
        api.run_sessions(api.prepare("oracle", goals=3, seed=1, context=context), output=out, resume=True)


def test_llm_simulator_against_a_stub_chat_server(env, context):
    import http.server
    import threading

    received: list[dict] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            received.append(body)
            users = sum(m["role"] == "assistant" for m in body["messages"])
            reply = "I need a place to stay in the north." if users == 0 else "Thanks, that is all. Goodbye! [END]"
            if users == 1:
                reply = "Can I have its phone number?"
            data = json.dumps({"choices": [{"message": {"role": "assistant", "content": reply}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        endpoint = f"http://127.0.0.1:{server.server_address[1]}/v1"
        run = api.prepare(
            "echo", simulator="llm", simulator_options={"endpoint": endpoint, "model": "stub"}, goals=3, context=context
        )
        sessions = api.run_sessions(run, output=None)
    finally:
        server.shutdown()
        server.server_close()
    assert [s["end"]["reason"] for s in sessions] == ["user_done"] * 3
    for goal, session in zip(run.goals, sessions):
        users = [t["text"] for t in session["turns"] if t["speaker"] == "user"]
        assert len(users) == 3 and "[END]" not in users[-1] and users[-1].startswith("Thanks")
        prompts = [r for r in received if goal.messages[0] in r["messages"][0]["content"]]
        assert prompts and all(r["model"] == "stub" for r in prompts)
        assert all(message in prompts[0]["messages"][0]["content"] for message in goal.messages)
        assert "[END]" in prompts[0]["messages"][0]["content"]  # the end rule is in the prompt
    assert len(received) == 9


def test_reader_on_the_held_out_test_turns(env, context):
    """The system-act reader, trained on validation, measured on the test system turns (regression floors)."""
    from mwz_datasets import multiwoz_raw
    from mwz_metrics.interactive.user import reader

    paths, _ = context.dialogue_files("test")
    measured = reader.measure(context.reader, list(multiwoz_raw.iter_dialogues("2.1", "test", paths)))
    assert measured["turns"] == 7372
    assert measured["request_slots"]["f1"] >= 0.90  # 0.903 measured
    labels = measured["labels"]
    assert labels["offer"]["f1"] >= 0.97 and labels["book"]["f1"] >= 0.96 and labels["nooffer"]["f1"] >= 0.895


def test_session_file_and_scores_through_the_cli(env, context, tmp_path, synth22):
    out = tmp_path / "oracle.jsonl"
    environment = {**os.environ, "MWZ_MIRROR": str(synth22)}
    base = [sys.executable, "-m", "mwz_metrics.cli", "-q", "interact", "--system", "oracle", "-o", str(out)]
    ran = subprocess.run(
        [*base, "--goals", "10", "--predictions", str(tmp_path / "p.json")],
        env=environment,
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0, ran.stderr
    assert "success" in ran.stdout and "signature: mwz-eval" in ran.stdout
    scoring = [*base[:-2], "-i", str(out), "--score-only"]
    again = subprocess.run(scoring, env=environment, capture_output=True, text=True)
    assert again.returncode == 0 and again.stdout == ran.stdout
    evaluated = subprocess.run(
        [sys.executable, "-m", "mwz_metrics.cli", "-q", "evaluate", "-i", str(out)],
        env=environment,
        capture_output=True,
        text=True,
    )
    assert evaluated.returncode == 0 and evaluated.stdout == ran.stdout  # mwz evaluate reads session files too
    predictions = json.loads((tmp_path / "p.json").read_text())
    assert len(predictions) == 10 and all("response" in t and "state" in t for v in predictions.values() for t in v)
    bad = subprocess.run(
        [*base[:-2], "--system", "no_such_module:make", "--goals", "2"], env=environment, capture_output=True, text=True
    )
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "no_such_module" in bad.stderr


def test_compare_puts_interactive_runs_beside_static_ones(env, context, tmp_path):
    from mwz_metrics.comparison import compare

    path = shared_path("data", "mwzeval", "predictions", "ubar.json")
    interactive = tmp_path / "oracle.jsonl"
    run = api.prepare("oracle", goals=30, context=context)
    sessions = api.run_sessions(run, output=interactive)
    scored = api.score(sessions, run.config, context=context, resamples=200, seed=3)
    table = compare(
        {"ubar": path, "oracle": interactive}, bleu=False, richness=False, baseline="ubar", resamples=200, seed=3
    )
    assert table.value("oracle", "success") == scored["success_by_domain"]["total"]
    assert table.value("oracle", "interactive:turns") == scored["turns"]
    row = next(r for r in table.rows if (r["system"], r["metric"], r["domain"]) == ("oracle", "success", "total"))
    assert [row["ci_low"], row["ci_high"]] == scored["ci95"]["success"] and "p_value" not in row
    assert table.value("ubar", "success") == 70.3
    text = table.render("table")
    assert "oracle (interactive: agenda -> oracle)" in text and "interactive turns" in text
    # --fluency reaches the interactive runs too, with mwz interact's number
    fluent = compare({"oracle": interactive}, bleu=False, richness=False, metrics=["mwz_fluency"], resamples=0)
    expected = api.score(sessions, run.config, context=context, metrics=["mwz_fluency"], resamples=0)["fluency"]
    assert fluent.value("oracle", "fluency") == expected


def test_the_readme_example_system_runs(env, context, tmp_path, monkeypatch):
    readme = (Path(__file__).resolve().parents[2] / "docs" / "interactive" / "index.md").read_text()
    code = readme.split("<!-- example-system -->", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    assert len([line for line in code.strip().splitlines() if line.strip()]) <= 20
    (tmp_path / "toy_system.py").write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    run, sessions = _run(context, "toy_system:make", goals=10)
    result = _score(context, run, sessions)
    assert result["sessions"] == 10 and sum(result["end_reasons"].values()) == 10
    assert all(t["text"] for s in sessions for t in export.system_turns(s))


def test_sessions_export_as_a_dataset(env, context):
    _, sessions = _run(context, "oracle", goals=5)
    dataset = export.sessions_dataset(sessions)
    assert dataset.num_rows == 5
    row = dataset[0]
    assert row["dialogue_id"] == sessions[0]["id"] and row["end_reason"] == "user_done"
    assert row["texts"] == [t["text"] for t in sessions[0]["turns"]]
    assert json.loads(row["acts"][1]) == sessions[0]["turns"][1]["acts"]


def test_a_third_party_simulator_plugin_is_used_by_name(env, context):
    from mwz_plugins import UserSimulatorEntry, hookimpl
    from mwz_plugins.manager import register_plugin, unregister_plugin

    class Plugin:
        @staticmethod
        @hookimpl
        def mwz_register_user_simulators(register):
            register(UserSimulatorEntry("polite", "0.1", "test_interactive:make_polite"))

    register_plugin(Plugin, "polite-plugin")
    try:
        run, sessions = _run(context, "oracle", simulator="polite", goals=2)
    finally:
        unregister_plugin("polite-plugin")
    assert run.config["simulator"]["plugin"] == "polite-plugin"
    assert [t["text"] for t in sessions[0]["turns"] if t["speaker"] == "user"] == ["Hello.", "Goodbye."]


def make_polite(context, **options):
    from mwz_metrics.interactive.user.base import SimulatorFactory, UserSimulator, UserTurn

    class Polite(UserSimulator):
        def __init__(self, goal):
            self.goal, self.turns = goal, 0

        def start(self):
            return UserTurn("Hello.")

        def observe(self, turn):
            return []

        def next_turn(self):
            return UserTurn("Goodbye.", final=True)

    class Factory(SimulatorFactory):
        name, version = "polite", "0.1"

        def session(self, goal, rng):
            return Polite(goal)

    return Factory()


def test_ctrl_c_keeps_the_finished_sessions_and_says_how_to_go_on(env, context, tmp_path, synth22):
    (tmp_path / "slow_system.py").write_text(SLOW_SYSTEM)
    environment = {**os.environ, "MWZ_MIRROR": str(synth22), "PYTHONPATH": str(tmp_path)}
    out = tmp_path / "interrupted.jsonl"
    # SIGINT as a terminal delivers it: a child inherits a blocked or ignored SIGINT (background jobs,
    # and now and then a test worker here: the run went on to the end or past the timeout), and
    # then Python never raises KeyboardInterrupt
    command = [sys.executable, "-c", _WITH_SIGINT, "interact", "--system", "slow_system:make", "--goals", "60"]
    process = subprocess.Popen(
        [*command, "-o", str(out)],
        env={**environment, "SLOW_AFTER": "6"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and (not out.exists() or out.read_text().count("\n") < 6):
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 2
    assert stderr.strip().splitlines()[-1].startswith("mwz: error: interrupted") and "--resume" in stderr
    _, kept = session_files.read(out)
    assert 5 <= len(kept) < 60 and all(s["end"]["reason"] == "user_done" for s in kept)


def test_session_coherence_of_interactive_sessions(env, context):
    pytest.importorskip("torch")
    run, sessions = _run(context, "oracle", goals=4)
    result = api.score(sessions, run.config, context=context, resamples=100, metrics=["mwz_session_coherence"])
    assert 0.0 <= result["coherence"] <= 100.0
    low, high = result["ci95"]["coherence"]
    assert low <= result["coherence"] <= high
    assert "mwz_session_coherence" in result["coherence_signature"]
