"""A run survives anything a system, an endpoint or a second process does (issue 40): every case through
the ``mwz`` command line, against a local misbehaving HTTP system (:mod:`hostile_system`) and a stub chat
endpoint, each bounded in time and count (a few goals, short timeouts).

Cases about a process go through the console script in a process of its own (:func:`mwz`): text the
system sent reaching a real standard output, a second writer's lock, Ctrl-C, what a system prints at
import, the warnings a command logs on stderr, an input nested too deep. The others call the same
``mwz_metrics.cli.main`` the console script calls, in this process (:func:`cli`): the same command
lines, exit codes, standard output and error lines, without a second start of Python and its imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import one_line_error, run_cli
from hostile_system import ENDS, HostileChat, HostileSystem, MixedPlan, completion, tool_call

from mwz_metrics.interactive.harness import sessions as session_files

MWZ = str(Path(sys.executable).with_name("mwz"))
FAST = ("--resamples", "10")


@pytest.fixture(scope="module")
def context(synth22_context):
    return synth22_context


@pytest.fixture()
def env(synth22_env):
    """The synth22 mirror for the test (its derived material cached for the console script)."""


def mwz(*args: object, quiet: bool = True, timeout: float = 120, **options) -> subprocess.CompletedProcess:
    """``mwz [-q] ARGS`` as a user runs it."""
    command = [MWZ, *(["-q"] if quiet else []), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, **options)


def on_turn(behaviour: str, turn: int = 1):
    """A plan: ``behaviour`` on system turn ``turn`` of every session, the answer elsewhere."""
    return lambda request: behaviour if request["turn"] == turn else "ok"


# -- session files -----------------------------------------------------------------------------


def test_any_text_a_system_sends_is_kept_and_the_run_goes_on(env, tmp_path):
    out = tmp_path / "text.jsonl"
    sent = {1: "caf\ud800", 2: "a\u2028b\u2029c\x85"}  # a lone surrogate; line and paragraph separators
    plan = {1: "surrogate", 2: "separators"}
    with HostileSystem(lambda request: plan.get(request["turn"], "ok")) as system:
        ran = mwz("interact", "--system", system.url, "--goals", 3, "-o", out, *FAST, "--json", "--explain", 3)
        assert ran.returncode == 0, ran.stderr
        resumed = mwz("interact", "--system", system.url, "--goals", 3, "-o", out, *FAST, "--json", "--resume")
    result = json.loads(ran.stdout[: ran.stdout.index("\n}\n") + 2])
    assert result["sessions"] == 3 and set(result["end_reasons"]) <= {"user_done", "max_turns"}
    raw = out.read_bytes()
    assert raw.isascii() and raw.count(b"\n") == 4  # the header and three sessions, one line each
    _, stored = session_files.read(out)
    for turn, text in sent.items():  # recorded as the system sent it, in every session
        assert all(s["turns"][2 * turn + 1]["text"].startswith(text) for s in stored if len(s["turns"]) > 2 * turn + 1)
        assert sum(text in t["text"] for s in stored for t in s["turns"]) >= 2
    again = mwz("interact", "--score-only", "-i", out, *FAST, "--json")
    assert again.returncode == 0, again.stderr
    assert resumed.returncode == 0, resumed.stderr
    for key in ("success", "inform", "turns", "end_reasons"):
        assert json.loads(again.stdout)[key] == json.loads(resumed.stdout)[key] == result[key]


def test_an_existing_session_file_is_never_replaced_without_overwrite(env, tmp_path, cli):
    out = tmp_path / "run.jsonl"
    first = cli("interact", "--system", "echo", "--goals", 2, "-o", out, *FAST)
    assert first.returncode == 0, first.stderr
    before = out.read_bytes()
    line = one_line_error(cli("interact", "--system", "silent", "--goals", 2, "-o", out, *FAST))
    assert str(out) in line and "--resume" in line and "--overwrite" in line
    assert out.read_bytes() == before
    replaced = cli("interact", "--system", "silent", "--goals", 2, "-o", out, *FAST, "--overwrite", "--json")
    assert replaced.returncode == 0, replaced.stderr
    assert session_files.read(out)[0]["system"]["name"] == "silent"


def test_a_second_writer_is_refused_naming_the_holder(env, tmp_path):
    out = tmp_path / "run.jsonl"
    with session_files.exclusive(out):  # another run writing the file (this process)
        line = one_line_error(mwz("interact", "--system", "echo", "--goals", 2, "-o", out, *FAST))
        resumed = mwz("interact", "--system", "echo", "--goals", 2, "-o", out, *FAST, "--resume")
    assert "another run is writing" in line and f"pid {os.getpid()}" in line
    assert not out.exists()
    one_line_error(resumed)
    assert mwz("interact", "--system", "echo", "--goals", 2, "-o", out, *FAST).returncode == 0  # the lock is gone
    assert not session_files.lock_path(out).exists()


def test_sessions_held_twice_are_read_once_with_a_warning(env, tmp_path, cli):
    out = tmp_path / "run.jsonl"
    clean = cli("interact", "--system", "oracle", "--goals", 4, "-o", out, *FAST, "--json")
    assert clean.returncode == 0, clean.stderr
    lines = out.read_bytes().split(b"\n")
    doubled = tmp_path / "doubled.jsonl"
    doubled.write_bytes(b"\n".join(lines[:3] + lines[1:]))  # two sessions written twice (two writers)
    truth = json.loads(clean.stdout)
    scored = mwz("interact", "--score-only", "-i", doubled, *FAST, "--json", quiet=False)
    assert scored.returncode == 0, scored.stderr
    assert "2 session(s) more than once" in scored.stderr
    again = json.loads(scored.stdout)
    assert again["sessions"] == 4 and again["success"] == truth["success"] and again["inform"] == truth["inform"]
    evaluated = mwz("evaluate", "-i", doubled, "-s", "--json", quiet=False)
    assert evaluated.returncode == 0, evaluated.stderr
    assert "more than once" in evaluated.stderr
    compared = mwz("compare", "-i", f"run={doubled}", "-s", "--resamples", 10, "--format", "json", quiet=False)
    assert compared.returncode == 0, compared.stderr  # the full signature: the terminal table shortens it
    assert "more than once" in compared.stderr and "sessions=4," in compared.stdout


def test_every_session_failing_still_gives_the_summary(env, tmp_path, cli):
    out = tmp_path / "failed.jsonl"
    with HostileSystem(lambda request: "not_json") as system:
        ran = cli("interact", "--system", system.url, "--goals", 3, "-o", out, *FAST)
    assert ran.returncode == 0, ran.stderr
    assert "end reasons: malformed_response 3" in ran.stdout and "every session failed" in ran.stdout
    assert "richness" in ran.stdout and "n/a" in ran.stdout and "no system response" in ran.stdout
    down = cli("interact", "--system", "http://127.0.0.1:9/respond", "--goals", 2, "-o", tmp_path / "down.jsonl", *FAST)
    assert "cannot connect to 127.0.0.1:9" in one_line_error(down)  # nothing listens: refused before any session
    assert not (tmp_path / "down.jsonl").exists()
    again = cli("interact", "--score-only", "-i", out, *FAST)
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[-4:-1] == ran.stdout.splitlines()[-4:-1]


def test_resume_retry_failed_runs_again_what_infrastructure_ended(env, tmp_path, cli):
    out = tmp_path / "crashed.jsonl"
    down = {"now": True}
    with HostileSystem(lambda request: "status_500" if down["now"] and request["turn"] == 1 else "ok") as system:
        first = cli("interact", "--system", system.url, "--goals", 4, "-o", out, *FAST, "--retries", 0, "--json")
        assert first.returncode == 0, first.stderr
        assert json.loads(first.stdout)["end_reasons"] == {"system_error": 4}
        plain = cli("interact", "--system", system.url, "--goals", 4, "-o", out, *FAST, "--resume", "--json")
        assert json.loads(plain.stdout)["end_reasons"] == {"system_error": 4}  # nothing to do without the flag
        down["now"] = False
        again = cli(
            "interact", "--system", system.url, "--goals", 4, "-o", out, *FAST,
            "--resume", "--retry-failed", "--retries", 1, "--timeout", 5, "-j", 2, "--json",
        )  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert "system_error" not in json.loads(again.stdout)["end_reasons"]
    found = session_files.read_file(out)
    assert len(found.sessions) == 4 and found.duplicates == 0
    assert found.resumptions[-1]["run_again"] == 4 and found.resumptions[-1]["jobs"] == 2
    assert found.resumptions[-1]["settings"] == {"system.timeout": 5.0, "system.retries": 1}


# -- the llm system, the llm simulator and their endpoint ----------------------------------------


def llm(cli, endpoint: str, out: Path, *args: object, goals: int = 2, **options) -> subprocess.CompletedProcess:
    """``mwz interact --system llm`` against ``endpoint`` (``cli``: the fixture)."""
    return cli(
        "interact", "--system", "llm", "--endpoint", endpoint, "--model", "stub", "--goals", goals,
        "-o", out, *FAST, *args, **options,
    )  # fmt: skip


@pytest.mark.parametrize(
    "answer",
    [
        (401, {}, b'{"error": "invalid api key"}'),
        (200, {"Content-Type": "text/event-stream"}, b'data: {"choices": []}\n\ndata: [DONE]\n\n'),
        (200, {}, b'{"choices": []}'),
    ],
    ids=["401", "streaming-only", "no-choices"],
)
def test_an_endpoint_that_never_answers_gives_the_summary(env, tmp_path, answer, cli):
    with HostileChat(lambda body, path: answer) as chat:
        ran = llm(cli, chat.endpoint, tmp_path / "s.jsonl")
    assert ran.returncode == 0, ran.stderr
    assert "end reasons: system_error 2" in ran.stdout and "every session failed" in ran.stdout
    assert ("http_401" if answer[0] == 401 else "malformed") in ran.stdout  # the system failures line


def test_the_key_never_leaves_the_endpoints_origin_nor_reaches_a_file(env, tmp_path, cli):
    key = "sk-test-do-not-leak-4242"
    words = completion({"role": "assistant", "content": "Hello, how can I help?"})
    with HostileChat(lambda body, path: words) as elsewhere:
        target = elsewhere.endpoint + "/chat/completions"
        with HostileChat(lambda body, path: (307, {"Location": target}, b"")) as temporary:
            followed = llm(
                cli, temporary.endpoint, tmp_path / "307.jsonl", "--result", tmp_path / "r.json",
                "--system-option", "tool_calls=skip-check", env={"MWZ_LLM_API_KEY": key},
            )  # fmt: skip
        with HostileChat(lambda body, path: (302, {"Location": target}, b"")) as found:
            refused = llm(
                cli, found.endpoint, tmp_path / "302.jsonl", "--system-option", "tool_calls=skip-check",
                env={"MWZ_LLM_API_KEY": key},
            )  # fmt: skip
    assert followed.returncode == 0 and refused.returncode == 0, (followed.stderr, refused.stderr)
    assert {r["authorization"] for r in temporary.requests} == {f"Bearer {key}"}
    assert {r["authorization"] for r in found.requests} == {f"Bearer {key}"}
    assert elsewhere.requests and {r["authorization"] for r in elsewhere.requests} == {None}
    assert len(elsewhere.requests) == len(temporary.requests)  # every 307 followed, the 302s never
    assert "end reasons: system_error 2" in refused.stdout and "http_302" in refused.stdout
    files = {p.name: p.read_text(encoding="utf-8", errors="replace") for p in tmp_path.iterdir() if p.is_file()}
    assert {"307.jsonl", "302.jsonl", "r.json"} <= set(files) and all(files[n] for n in ("307.jsonl", "r.json"))
    for name, text in files.items():
        assert key not in text, name


def _tools_every_round(body: dict, path: str):
    if body.get("tool_choice") == "none":  # still a tool call: the model never says a word
        return completion(
            {"role": "assistant", "content": None, "tool_calls": [tool_call("find_venues", {"domain": "hotel"})]}
        )
    return completion(
        {"role": "assistant", "content": None, "tool_calls": [tool_call("find_venues", {"domain": "hotel"})]}
    )


# What each of _bad_shapes' answers says it cost, and its rounds of tool calls before the words.
_SHAPES_USAGE = {"prompt_tokens": 100, "completion_tokens": 7}
_SHAPES_ROUNDS = [
    "find_venues(hotel)",
    {"id": "x", "function": {"name": "find_venues", "arguments": {"domain": "hotel", "constraints": ["cheap"]}}},
    [tool_call("find_venues", {"domain": "restaurant", "constraints": {"area": None, "food": "chinese"}})],
    [tool_call("book", {"domain": "restaurant", "name": 7, "people": {"n": 2}})],
]


def _bad_shapes(body: dict, path: str):
    """Round by round since the user's last message: a string, one call as an object with constraints
    as a list, a null constraint beside a good one, a number, then words."""
    since = len(body["messages"]) - max(i for i, m in enumerate(body["messages"]) if m["role"] == "user") - 1
    usage, rounds = _SHAPES_USAGE, _SHAPES_ROUNDS
    calls = [m for m in body["messages"][-since:] if m["role"] == "assistant"] if since else []
    if len(calls) < len(rounds):
        return completion({"role": "assistant", "content": None, "tool_calls": rounds[len(calls)]}, usage)
    return completion({"role": "assistant", "content": "Charlie chan serves chinese food."}, usage)


def test_the_llm_systems_tool_loop_answers_in_words_or_ends_the_session(env, tmp_path, cli):
    with HostileChat(_tools_every_round) as chat:
        looping = llm(cli, chat.endpoint, tmp_path / "loop.jsonl", "--json", goals=1)
    assert looping.returncode == 0, looping.stderr
    assert json.loads(looping.stdout)["end_reasons"] == {"malformed_response": 1}
    assert [r["body"].get("tool_choice") for r in chat.requests] == ["auto"] * 5 + ["none"]  # preflight, 4 rounds
    _, stored = session_files.read(tmp_path / "loop.jsonl")
    assert not [t for t in stored[0]["turns"] if t["speaker"] == "system"]  # no tool output as a reply
    with HostileChat(_bad_shapes) as chat:
        shaped = llm(
            cli, chat.endpoint, tmp_path / "shapes.jsonl", "--json", "--result", tmp_path / "r.json", "--price", "1,2",
            "--max-turns", 1, goals=1,
        )  # fmt: skip
    assert shaped.returncode == 0, shaped.stderr
    result = json.loads(shaped.stdout)
    assert result["end_reasons"] == {"max_turns": 1}
    tool_answers = [json.loads(m["content"]) for m in chat.requests[-1]["body"]["messages"] if m["role"] == "tool"]
    assert [("error" in answer) for answer in tool_answers] == [True, True, False, True]
    assert "must be a list" in tool_answers[0]["error"] and "constraints must be an object" in tool_answers[1]["error"]
    assert "must be text" in tool_answers[3]["error"]
    _, stored = session_files.read(tmp_path / "shapes.jsonl")
    system_turn = next(t for t in stored[0]["turns"] if t["speaker"] == "system")
    assert system_turn["text"] == "Charlie chan serves chinese food."
    assert system_turn["state"] == {"restaurant": {"food": "chinese"}}  # the null constraint is no "None"
    answers = len(_SHAPES_ROUNDS) + 1  # the rounds of tool calls, then the words
    spent = {
        "prompt": answers * _SHAPES_USAGE["prompt_tokens"],
        "completion": answers * _SHAPES_USAGE["completion_tokens"],
    }
    assert stored[0]["system_report"]["tokens"] == spent
    assert result["tokens"] == {"system": spent}
    assert result["cost"]["total"] == pytest.approx(
        (spent["prompt"] * 1 + spent["completion"] * 2) / 1e6
    )  # --price 1,2
    assert json.loads((tmp_path / "r.json").read_text())["tokens"] == result["tokens"]


def test_the_llm_simulator_keeps_to_timeout_and_retries(env, tmp_path, cli):
    with HostileChat(lambda body, path: (0, {}, b"")) as chat:  # never answers
        started = time.monotonic()
        ran = cli(
            "interact", "--system", "echo", "--simulator", "llm", "--endpoint", chat.endpoint, "--model", "stub",
            "--goals", 2, "-o", tmp_path / "s.jsonl", *FAST, "--timeout", 1, "--retries", 1, "--json",
        )  # fmt: skip
        took = time.monotonic() - started
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["end_reasons"] == {"simulator_error": 2}
    assert len(chat.requests) == 4  # two tries a session
    assert took < 20  # two sessions of two one-second tries (the defaults: 60 s, three tries each)


# -- time: a deadline per request, an interrupt at once --------------------------------------------


def test_a_dripping_system_is_bounded_by_the_timeout(env, tmp_path, cli):
    with HostileSystem(on_turn("drip", 0)) as system:  # the answer, a byte every 0.5 s: 20 s and more
        ran = cli("interact", "--system", system.url, "--goals", 2, "-j", 2, "-o", tmp_path / "s.jsonl", *FAST,
                  "--timeout", 2, "--retries", 1, "--json")  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    result = json.loads(ran.stdout)
    assert result["end_reasons"] == {"system_timeout": 2}
    assert result["system_failures"] == {"retries": 2, "timeout": 4}
    for dialogue in {r[0] for r in system.requests}:
        first, second = [r[3] for r in system.requests if r[0] == dialogue]
        assert 2.0 <= second - first < 2.0 + 0.5 + 1.0  # the first try ended at its deadline, then the back-off


def _sigint_as_a_terminal_sends_it() -> None:
    """A child that inherited an ignored or blocked SIGINT would never see the interrupt."""
    import signal

    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_one_ctrl_c_ends_the_run_at_once_and_resume_completes_it(env, tmp_path):
    import signal

    out = tmp_path / "s.jsonl"
    answered: set[str] = set()

    def plan(request):  # three sessions run through, every other one hangs on its first turn
        if len(answered) < 3 or request["dialogue_id"] in answered:
            answered.add(request["dialogue_id"])
            return "ok"
        return "hang"

    command = [MWZ, "-q", "interact", "--goals", 8, "-j", 4, "-o", out, *FAST, "--timeout", 30]
    with HostileSystem(lambda request: plan(request)) as system:
        process = subprocess.Popen(
            [*map(str, command), "--system", system.url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=_sigint_as_a_terminal_sends_it,  # noqa: PLW1509 (a test's child, no threads started)
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not out.exists() or out.read_bytes().count(b"\n") < 4):
            time.sleep(0.05)
        time.sleep(0.3)  # the hanging sessions are in flight
        interrupted = time.monotonic()
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
        took = time.monotonic() - interrupted
        assert took < 2.0, took
        assert process.returncode == 2 and "--resume" in stderr.strip().splitlines()[-1]
        _, kept = session_files.read(out)
        assert len(kept) == 3 and {s["end"]["reason"] for s in kept} <= {"user_done", "max_turns"}
        plan = lambda request: "ok"  # noqa: E731 (the system is back)
        resumed = mwz("interact", "--system", system.url, "--goals", 8, "-j", 4, "-o", out, *FAST, "--resume", "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["sessions"] == 8 and len(session_files.read(out)[1]) == 8


# -- what a system prints --------------------------------------------------------------------------

_PRINTING_SYSTEM = """
import sys
print("loading my model...")
sys.stderr.write("import-time warning\\n")

def make():
    print("factory says hi")
    def respond(request):
        print("thinking about turn", request["turn"])
        return {"response": "goodbye ."}
    return respond
"""


def test_what_a_system_prints_at_import_in_its_factory_and_answering_is_logged_under_its_name(env, tmp_path):
    (tmp_path / "printing.py").write_text(_PRINTING_SYSTEM, encoding="utf-8")
    args = ("interact", "--system", "printing:make", "--goals", 1, "-o", "s.jsonl", *FAST, "--max-turns", 2)
    quiet = mwz(*args, "--json", cwd=tmp_path)
    assert quiet.returncode == 0, quiet.stderr
    assert json.loads(quiet.stdout)["sessions"] == 1  # the whole of stdout is the JSON
    assert "import-time warning" not in quiet.stderr
    shown = mwz("-v", *args, "--overwrite", cwd=tmp_path, quiet=False)
    assert shown.returncode == 0, shown.stderr
    for said in ("loading my model...", "import-time warning", "factory says hi", "thinking about turn 0"):
        assert "mwz.system: system printing:make" in shown.stderr.split(said)[0].splitlines()[-1] + said, said
    assert "loading my model" not in shown.stdout


# -- everything at once ----------------------------------------------------------------------------


def test_a_system_mixing_every_bad_answer_loses_nothing(env, context, tmp_path, cli, quick_retries):
    from mwz_metrics.interactive.systems.reference import OracleSystem

    oracle = OracleSystem(context)
    out = tmp_path / "mixed.jsonl"
    # one turn in four, the kinds in turn: the first bad turn of each session is always reached, and
    # more than twelve sessions have one within their length, so every kind occurs
    with HostileSystem(MixedPlan(4, each_kind=True), oracle.respond) as system:
        ran = cli("interact", "--system", system.url, "--user-acts", "--goals", 24, "-j", 6, "-o", out, *FAST,
                  "--timeout", 2, "--retries", 1, "--json")  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    result = json.loads(ran.stdout)
    found = session_files.read_file(out)
    assert len(found.sessions) == result["sessions"] == 24 and found.duplicates == 0
    seen = {}  # the bad answers each session met, in order
    for dialogue, turn, behaviour, _ in system.requests:
        if behaviour != "ok":
            seen.setdefault(dialogue, []).append((turn, behaviour))
    assert len(seen) > len(ENDS)  # sessions that met a bad answer: more than there are kinds
    assert {b for bads in seen.values() for _, b in bads} == set(ENDS)  # every kind occurred
    for session in found.sessions:
        ending = next((ENDS[b] for _, b in seen.get(session["id"], []) if ENDS[b]), None)
        assert session["end"]["reason"] == (ending or session["end"]["reason"]), (
            session["id"],
            seen.get(session["id"]),
        )
        if ending is None:
            assert session["end"]["reason"] in ("user_done", "max_turns")
    failures = result["system_failures"]
    met = [b for bads in seen.values() for _, b in bads]
    assert failures.get("connection", 0) == met.count("cut") and failures.get("http_500", 0) == met.count("status_500")
    assert sum(result["end_reasons"].values()) == 24
    again = json.loads(cli("interact", "--score-only", "-i", out, *FAST, "--json").stdout)
    for key in ("inform", "success", "complete", "book_rate", "inform_f1", "turns", "end_reasons", "system_failures"):
        assert again[key] == result[key], key
    details = [s["end"].get("detail", "") for s in found.sessions]
    long = [d for d in details if "a response of 20000 characters" in d]
    huge = [d for d in details if "announced an answer of" in d]
    assert long and all(d.endswith("(limit 10000)") for d in long)  # the response's length, in characters
    assert huge and all(d.endswith("bytes (limit 1000000)") for d in huge)  # the body's, refused unread


def test_labels_are_escaped_in_every_format_of_compare(env, tmp_path, cli):
    run = tmp_path / "run.jsonl"
    assert cli("interact", "--system", "echo", "--goals", 2, "-o", run, *FAST).returncode == 0
    labels = ("-i", f"$x^$={run}", "-i", f"a|b{{c}}~d^e={run}", "-s", *FAST)
    page = cli("compare", *labels, "--format", "html", "-o", tmp_path / "c.html")
    assert page.returncode == 0, page.stderr  # matplotlib would read $x^$ as mathtext
    assert "$x^$" in (tmp_path / "c.html").read_text(encoding="utf-8")
    latex = cli("compare", *labels, "--format", "latex")
    assert latex.returncode == 0, latex.stderr
    assert r"\$x\textasciicircum{}\$" in latex.stdout
    assert r"a|b\{c\}\textasciitilde{}d\textasciicircum{}e" in latex.stdout
    markdown = cli("compare", *labels, "--format", "markdown")
    assert "| a\\|b{c}~d^e (interactive" in markdown.stdout


def test_a_deeply_nested_json_input_is_refused_naming_the_file(env, tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    line = one_line_error(mwz("evaluate", "-i", deep, "-s"))
    assert str(deep) in line and "nested too deep" in line


def test_text_no_utf8_spells_is_printed_as_an_escape(env, context, tmp_path, capsys):
    """A lone surrogate (a system's bytes as a JSON escape, a file name's bytes) in a system turn, the run's
    system name and a compare label: ``mwz evaluate`` and ``mwz compare`` print it, as a table or JSON, as
    the escape ``-o FILE`` writes (was: UnicodeEncodeError, exit 1); a JSON file reads back the same."""

    from mwz_metrics.interactive.harness import api

    run = api.prepare("oracle", goals=2, context=context)
    run.config["system"]["name"] = "caf\udc80 \ud800"
    sessions = api.run_sessions(run, output=None)
    sessions[0]["turns"][1]["text"] += " caf\udc80"
    out = tmp_path / "run.jsonl"
    out.write_bytes(b"".join(map(session_files.encode, [session_files.header(run.config), *sessions])))
    printed = {}
    for argv in (
        ("evaluate", "-i", out),
        ("evaluate", "-i", out, "--json", "-o", tmp_path / "result.json"),
        ("compare", "-i", f"x\udc80={out}", *FAST),
        ("compare", "-i", f"x\udc80={out}", *FAST, "--format", "json"),
    ):
        code, printed[argv[-1]], err = run_cli(capsys, *map(str, argv))
        assert code == 0, (argv, err)
        assert "caf\\udc80 \\ud800" in printed[argv[-1]], argv  # the name in the title or the signature
    assert "x\\udc80 (interactive" in printed[FAST[-1]]  # the label of compare's table
    assert json.loads(printed["json"])["systems"] == ["x\udc80"]  # JSON's own escape: it reads back the same
    assert "system=caf\udc80 \ud800@" in json.loads((tmp_path / "result.json").read_text())["signature"]["line"]


class FakeProxy:
    """A forward proxy on 127.0.0.1 that forwards nothing: each request's line and headers kept in ``seen``;
    a POST answered ``{"response": "via proxy"}``, a CONNECT refused (502). Stopped on leaving the block."""

    def __init__(self) -> None:
        import http.server
        import threading

        seen = self.seen = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def _answer(self, status: int, data: bytes) -> None:
                seen.append(
                    {"method": self.command, "target": self.path, **{k.lower(): v for k, v in self.headers.items()}}
                )
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers["Content-Length"]))
                self._answer(200, b'{"response": "via proxy"}')

            def do_CONNECT(self) -> None:  # noqa: N802
                self._answer(502, b"")

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> FakeProxy:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_a_remote_system_goes_through_the_environments_proxy_a_local_one_never(env, monkeypatch):
    """``http_proxy``/``https_proxy``/``no_proxy`` honoured for a remote host (sut.example: never resolved,
    the fake proxy answers for it), never for a loopback one; a credential never readable by the proxy."""
    from mwz_metrics.interactive import chat

    with FakeProxy() as proxy:
        monkeypatch.setenv("http_proxy", proxy.url.replace("//", "//user:p%40ss@"))
        monkeypatch.setenv("https_proxy", proxy.url.replace("//", "//user:p%40ss@"))
        monkeypatch.setenv("no_proxy", "other.example")
        post = lambda url, **headers: chat.post_json(url, b"{}", headers, timeout=5)  # noqa: E731
        assert post("http://sut.example:8080/turn?x=1") == b'{"response": "via proxy"}'
        through = proxy.seen.pop()
        assert through["target"] == "http://sut.example:8080/turn?x=1" and through["host"] == "sut.example:8080"
        assert through["proxy-authorization"] == "Basic dXNlcjpwQHNz"  # user:p@ss, for the proxy only
        with pytest.raises(chat.HttpFailure, match="refusing to send its credentials unencrypted"):
            post("http://sut.example:8080/turn", Authorization="Bearer sk-secret")
        with pytest.raises(chat.HttpFailure, match=r"through the proxy http://127\.0\.0\.1:\d+\)") as failed:
            post("https://sut.example/v1/chat/completions", Authorization="Bearer sk-secret")
        assert "p%40ss" not in str(failed.value) and "p@ss" not in str(failed.value)
        tunnel = proxy.seen.pop()  # the proxy saw the host to connect to, never the key
        assert tunnel["method"] == "CONNECT" and tunnel["target"] == "sut.example:443"
        assert "authorization" not in tunnel and tunnel["proxy-authorization"] == "Basic dXNlcjpwQHNz"
        for local in (proxy.url, proxy.url.replace("127.0.0.1", "localhost")):  # the proxy's own port, directly
            assert post(local + "/direct", Authorization="Bearer sk-secret") == b'{"response": "via proxy"}'
            assert proxy.seen.pop()["target"] == "/direct"  # origin form: not proxied
        assert proxy.seen == []
    assert chat.proxy_for("http://other.example/") is None and chat.proxy_for("http://sut.example/") is not None
    # a proxy it cannot use: the run refused at once, in one line (not every session failing)
    proxies = {**os.environ, "https_proxy": "https://user:secret@proxy.example:3128", "MWZ_LLM_API_KEY": "sk-k"}
    line = one_line_error(mwz("interact", "--system", "https://sut.example/", "--goals", 1, env=proxies))
    assert "https_proxy https://proxy.example: not an http://HOST" in line and "secret" not in line
    chat_options = ("--system-option", "endpoint=http://llm.example:8000/v1", "--system-option", "model=m")
    refused = mwz("interact", "--system", "llm", *chat_options, "--goals", 1, env={**proxies, "http_proxy": proxy.url})
    assert "refusing to send its credentials unencrypted" in one_line_error(refused)
