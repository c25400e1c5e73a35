"""The ``llm`` system as real endpoints answer it (issue 48): the preflight that knows whether the endpoint
returns structured tool calls, tool calls written as text (read when opted in, never taken as words), empty
and length-cut replies counted and ending sessions with the right words, ``tool_choice`` sent, each system
turn's trace (calls, results, finish reason, tokens), and the book rate's n/a. Through ``mwz`` in this process
(``run_cli``) against the stub chat server on 127.0.0.1 (:mod:`chat_stub`), a few goals each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chat_stub import DRESSES, ChatStub, written
from conftest import run_cli

from mwz_metrics.interactive.harness import sessions as session_files
from mwz_metrics.interactive.systems import tool_text
from mwz_metrics.interactive.systems.llm import PREFLIGHT_QUESTION, SHORT_FIX

FAST = ("--resamples", "10", "--timeout", "20", "--retries", "0")


@pytest.fixture(scope="module")
def context(synth22_context):
    return synth22_context


def interact(capsys, stub: ChatStub, out: Path, *args: object, goals: int = 2) -> tuple[int, str, str]:
    """``mwz interact --system llm`` against ``stub``, the user's acts given (the stub's policy reads them)."""
    return run_cli(
        capsys, "interact", "--system", "llm", "--endpoint", stub.endpoint, "--model", "stub", "--user-acts",
        "--goals", str(goals), "-o", str(out), *FAST, *map(str, args),
    )  # fmt: skip


def turns_of(stub: ChatStub) -> list[list[dict]]:
    """The stub's answers after the preflight, one list per system turn (a request ending with the user's
    message starts a turn): for a run of one session."""
    turns: list[list[dict]] = []
    for entry in stub.log[1:]:
        if entry["body"]["messages"][-1]["role"] == "user":
            turns.append([])
        turns[-1].append(entry)
    return turns


# -- tool calls written as text: the reader ----------------------------------------------------------


CALL = {"name": "find_venues", "arguments": {"domain": "hotel", "constraints": {"area": "north"}}}
BOOK = {"name": "book", "arguments": {"domain": "hotel", "name": "acorn guest house", "people": "2"}}


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(CALL),
        "  " + json.dumps({"name": CALL["name"], "parameters": CALL["arguments"]}) + "\n",
        json.dumps({"name": CALL["name"], "arguments": json.dumps(CALL["arguments"])}),  # arguments as JSON text
        json.dumps({"type": "function", "function": CALL}),
        "```json\n" + json.dumps(CALL, indent=2) + "\n```",
        "Let me check.\n```\n" + json.dumps(CALL) + "\n```\nOne moment.",
        "<tool_call>\n" + json.dumps(CALL) + "\n</tool_call>",
        "I will look.\n<tool_call>" + json.dumps(CALL) + "</tool_call>",
        "<tool_call>\n" + json.dumps(CALL),  # the last block left unclosed
        "functions.find_venues:" + json.dumps(CALL["arguments"]),
        "functions.find_venues: " + json.dumps(CALL["arguments"], indent=1),
        "functions.find_venues(" + json.dumps(CALL["arguments"]) + ")",
    ],
)
def test_one_call_written_as_text_in_each_dress_is_read(text):
    assert tool_text.parse(text) == [tool_text.TextCall("find_venues", CALL["arguments"])]
    assert tool_text.looks_like_call(text)


@pytest.mark.parametrize(
    "text",
    [
        json.dumps([CALL, BOOK]),
        json.dumps(CALL) + "\n" + json.dumps(BOOK),
        "<tool_call>" + json.dumps(CALL) + "</tool_call>\n<tool_call>" + json.dumps(BOOK) + "</tool_call>",
        "```json\n" + json.dumps([CALL, BOOK]) + "\n```",
        "functions.find_venues:" + json.dumps(CALL["arguments"]) + "\nfunctions.book:" + json.dumps(BOOK["arguments"]),
    ],
)
def test_several_calls_written_as_text_are_read_in_order(text):
    assert [(c.name, c.arguments) for c in tool_text.parse(text)] == [
        ("find_venues", CALL["arguments"]),
        ("book", BOOK["arguments"]),
    ]


@pytest.mark.parametrize("dress", DRESSES)
def test_the_stubs_dresses_are_read(dress):
    calls = [{"function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}} for c in (CALL, BOOK)]
    assert [c.name for c in tool_text.parse(written(calls, dress))] == ["find_venues", "book"]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "The Acorn Guest House is in the north. Shall I book it?",
        '{"name": "acorn guest house", "area": "north"}',  # an object naming something: no call
        '{"reference": "ABC123"}',
        "[1, 2, 3]",
        "I found 3 hotels {in the north}.",
        "functions are useful.",
    ],
)
def test_words_are_no_call(text):
    assert tool_text.parse(text) is None and not tool_text.looks_like_call(text)


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "find_venues", "arguments": {"domain": "ho',  # cut at the length limit
        '<tool_call>\n{"name": "find_venues", "argum',
        '```json\n{"name": "find_venues", ',
        'functions.find_venues:{"domain": ',
        "functions.find_venues(hotel)",  # garbled
    ],
)
def test_a_cut_or_garbled_call_is_no_words_and_no_call(text):
    assert tool_text.parse(text) is None and tool_text.looks_like_call(text)


def test_arguments_that_are_not_json_are_kept_as_text():
    (call,) = tool_text.parse('{"name": "book", "arguments": "table for two"}')
    assert call.arguments == "table for two" and call.arguments_json() == "table for two"
    assert json.loads(tool_text.TextCall("find_venues", {"domain": "hotel"}).arguments_json()) == {"domain": "hotel"}


def test_the_dress_a_real_small_model_wrote_is_read():
    """Seen from SmolLM2-135M under llama-cpp-python's chatml-function-calling, asked once more with
    tool_choice none: the call on the line below its name, its quotes as HTML entities (the template shows
    the model its tools' JSON escaped that way)."""
    text = "functions.book:\n{ &#34;domain&#34;: &#34;hotel&#34;, &#34;name&#34;:&#34;Mumbai&#34;, &#34;people&#34;: &#34;2&#34;}"
    assert tool_text.parse(text) == [tool_text.TextCall("book", {"domain": "hotel", "name": "Mumbai", "people": "2"})]
    assert tool_text.parse("the food is fish &amp; chips") is None  # an entity in words is no call


# -- preflight -------------------------------------------------------------------------------------


@pytest.mark.parametrize("dress", ["json", "tool_call", "functions"])
def test_preflight_stops_a_server_that_writes_tool_calls_as_text(synth22_env, context, tmp_path, capsys, dress):
    out = tmp_path / "s.jsonl"
    with ChatStub(context, "good", dress=dress) as stub:
        code, stdout, stderr = interact(capsys, stub, out)
    lines = stderr.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("mwz: error: --system llm:"), stderr
    assert "returns no structured tool_calls" in lines[0] and "wrote its call as text" in lines[0]
    for flag in ("--enable-auto-tool-choice --tool-call-parser", "--jinja", "chatml-function-calling"):
        assert flag in lines[0]
    assert "tool_calls=text" in lines[0]
    assert len(stub.log) == 1 and stub.log[0]["body"]["messages"][-1]["content"] == PREFLIGHT_QUESTION
    assert stub.log[0]["body"]["tool_choice"] == "auto"
    assert not out.exists()  # no session file: nothing was run


def test_preflight_stops_a_server_that_calls_no_tool_unless_told_to_skip(synth22_env, context, tmp_path, capsys):
    with ChatStub(context, "good", preflight="words") as stub:
        code, _, stderr = interact(capsys, stub, tmp_path / "s.jsonl")
        skipped, stdout, skipped_err = interact(
            capsys, stub, tmp_path / "skipped.jsonl", "--system-option", "tool_calls=skip-check", "--json", goals=1
        )
    lines = stderr.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "returned no tool call" in lines[0], stderr
    assert "'Which food would you like?'" not in lines[0] and "Which food would you like?" in lines[0]
    assert "tool_calls=skip-check" in lines[0] and "--tool-call-parser" in lines[0]
    assert not (tmp_path / "s.jsonl").exists()
    assert skipped == 0, skipped_err
    config, _ = session_files.read(tmp_path / "skipped.jsonl")
    assert config["system"]["tool_calls"] == "skip-check" and config["system"]["preflight"] == "skipped"
    assert "tool_calls~skip-check" in json.loads(stdout)["signature"]["line"]


def test_the_preflight_verdict_and_max_tokens_are_on_record(synth22_env, context, tmp_path, capsys):
    with ChatStub(context, "good") as stub:
        code, stdout, stderr = interact(capsys, stub, tmp_path / "s.jsonl", "--json", goals=1)
        unset, _, unset_err = interact(
            capsys, stub, tmp_path / "u.jsonl", "--system-option", "max_tokens=none", goals=1
        )
    assert code == 0 and unset == 0, (stderr, unset_err)
    config, sessions = session_files.read(tmp_path / "s.jsonl")
    assert config["system"]["preflight"] == "structured" and config["system"]["tool_calls"] == "structured"
    assert config["system"]["parameters"] == {"temperature": 0.0, "max_tokens": 1024}
    assert json.loads(stdout)["signature"]["run"]["system"]["preflight"] == "structured"
    unset_config, _ = session_files.read(tmp_path / "u.jsonl")
    assert unset_config["system"]["parameters"]["max_tokens"] is None
    first_run = [e["body"] for e in stub.log if "max_tokens" in e["body"]]
    second_run = [e["body"] for e in stub.log if "max_tokens" not in e["body"]]
    assert first_run and second_run and {b["max_tokens"] for b in first_run} == {1024}
    # the preflight's tokens are no session's: the session's tokens are its own requests'
    session_requests = [e for e in stub.log[1 : len(first_run)]]
    assert sessions[0]["system_report"]["tokens"] == {
        "prompt": sum(e["usage"]["prompt_tokens"] for e in session_requests),
        "completion": sum(e["usage"]["completion_tokens"] for e in session_requests),
    }


# -- opted in: calls written as text read, counted -------------------------------------------------


@pytest.mark.parametrize("dress", ["json", "tool_call", "functions"])
def test_opted_in_calls_written_as_text_are_read_and_counted(synth22_env, context, tmp_path, capsys, dress):
    result_file = tmp_path / "r.json"
    with ChatStub(context, "good", dress=dress) as stub:
        code, stdout, stderr = interact(
            capsys, stub, tmp_path / "s.jsonl", "--system-option", "tool_calls=text", "--result", result_file, goals=3
        )
    assert code == 0, stderr
    written_calls = sum(e["as_text"] for e in stub.log[1:])  # the preflight's call aside
    assert written_calls > 0
    assert f"system warnings: text_tool_call {written_calls}" in stdout
    result = json.loads(result_file.read_text())
    assert result["system_warnings"] == {"text_tool_call": written_calls}
    assert result["success"] >= 60.0  # the calls ran: lookups and bookings as the structured ones do
    config, sessions = session_files.read(tmp_path / "s.jsonl")
    assert config["system"]["preflight"] == "text" and config["system"]["tool_calls"] == "text"
    assert sum(s["system_report"]["warnings"].get("text_tool_call", 0) for s in sessions) == written_calls
    traced = [c for s in sessions for t in s["turns"] if t["speaker"] == "system" for c in t["trace"]["calls"]]
    assert traced and all(c["as_text"] is True for c in traced)
    assert any(t.get("state") for s in sessions for t in s["turns"] if t["speaker"] == "system")
    texts = [t["text"] for s in sessions for t in s["turns"] if t["speaker"] == "system"]
    assert not any(tool_text.looks_like_call(text) for text in texts)  # never scored as words


def test_without_the_opt_in_a_call_written_as_text_ends_the_session(synth22_env, context, tmp_path, capsys):
    """The endpoint passed the preflight with a structured call, then wrote its calls as text."""
    with ChatStub(context, "good", dress="json", preflight="structured") as stub:
        code, stdout, stderr = interact(capsys, stub, tmp_path / "s.jsonl", "--json", goals=2)
    assert code == 0, stderr
    result = json.loads(stdout)
    assert result["end_reasons"] == {"malformed_response": 2}
    assert result["system_warnings"] == {"text_tool_call": 2}
    _, sessions = session_files.read(tmp_path / "s.jsonl")
    for session in sessions:
        detail = session["end"]["detail"]
        assert 'the model wrote a tool call as text ({"name": "' in detail, detail
        assert detail.endswith("the endpoint returns no structured tool_calls: " + SHORT_FIX), detail
        said = [t["text"] for t in session["turns"] if t["speaker"] == "system"]  # before its first call
        assert f"turn {len(said)}: the model wrote" in detail and not any(tool_text.looks_like_call(t) for t in said)


# -- empty and cut replies ---------------------------------------------------------------------------


def test_empty_and_length_cut_replies_are_counted_and_the_end_says_which(synth22_env, context, tmp_path, capsys):
    result_file = tmp_path / "r.json"
    with ChatStub(context, "good", cut_at={0}, empty_at={1}) as stub:
        code, stdout, stderr = interact(capsys, stub, tmp_path / "s.jsonl", "--result", result_file, goals=3)
    assert code == 0, stderr
    cut = sum(e["finish_reason"] == "length" for e in stub.log)
    empty = sum(e["message"].get("content") == "" for e in stub.log)
    assert cut == 3 and empty == 3  # each session: its first reply cut, its second empty
    assert "system warnings: empty_reply 3, length_cut 3" in stdout or "length_cut 3, empty_reply 3" in stdout
    result = json.loads(result_file.read_text())
    assert result["system_warnings"] == {"length_cut": 3, "empty_reply": 3}
    assert result["end_reasons"] == {"malformed_response": 3}
    _, sessions = session_files.read(tmp_path / "s.jsonl")
    for session in sessions:
        assert session["end"]["detail"].endswith("turn 1: the model's reply was empty (finish_reason stop)")
        assert session["system_report"]["warnings"] == {"length_cut": 1, "empty_reply": 1}
        first = next(t for t in session["turns"] if t["speaker"] == "system")
        assert first["text"] and first["trace"]["finish_reason"] == "length"  # the cut words, used and counted
        assert first["trace"]["warnings"] == ["length_cut"]
    assert {s["id"]: s["system_warnings"] for s in result["per_session"]} == {
        s["id"]: {"length_cut": 1, "empty_reply": 1} for s in sessions
    }


@pytest.mark.parametrize("dress", [None, "json"])
def test_a_tool_call_cut_at_the_length_limit_ends_the_session(synth22_env, context, tmp_path, capsys, dress):
    options = ("--system-option", "tool_calls=text") if dress else ()
    with ChatStub(context, "good", cut_call_at=range(40), dress=dress) as stub:  # the first call ends it
        code, stdout, stderr = interact(capsys, stub, tmp_path / "s.jsonl", *options, "--json", goals=2)
    assert code == 0, stderr
    result = json.loads(stdout)
    assert result["end_reasons"] == {"malformed_response": 2}
    expected = {"length_cut": 2, **({"text_tool_call": 2} if dress else {})}
    assert result["system_warnings"] == expected
    _, sessions = session_files.read(tmp_path / "s.jsonl")
    for session in sessions:
        assert "tool call" in session["end"]["detail"] and "was cut at the length limit" in session["end"]["detail"]
        assert "finish_reason length, max_tokens=1024" in session["end"]["detail"]


def test_tool_calls_after_tool_choice_none_end_the_session_saying_so(synth22_env, context, tmp_path, capsys):
    with ChatStub(context, "looping") as stub:
        code, stdout, stderr = interact(capsys, stub, tmp_path / "s.jsonl", "--json", goals=1)
    assert code == 0, stderr
    result = json.loads(stdout)
    assert result["end_reasons"] == {"malformed_response": 1}
    assert result["system_warnings"] == {"tool_choice_ignored": 1}
    assert [e["body"]["tool_choice"] for e in stub.log] == ["auto"] * 5 + ["none"]  # preflight, 4 rounds, once more
    _, sessions = session_files.read(tmp_path / "s.jsonl")
    assert sessions[0]["end"]["detail"].endswith(
        "the model answered with tool calls only: 4 rounds, and once more after tool_choice none"
    )


# -- tool_choice -------------------------------------------------------------------------------------


def test_tool_choice_is_sent_so_a_server_keeps_the_tools(synth22_env, context, tmp_path, capsys):
    """A server that drops the tools without ``tool_choice`` (llama-cpp-python's chatml-function-calling)."""
    with ChatStub(context, "good", needs_tool_choice=True) as stub:
        code, stdout, stderr = interact(capsys, stub, tmp_path / "s.jsonl", "--json", goals=3)
    assert code == 0, stderr
    bodies = [e["body"] for e in stub.log]
    assert bodies and all(b.get("tool_choice") in ("auto", "none") for b in bodies if b.get("tools"))
    assert stub.policies.calls > 0 and json.loads(stdout)["success"] >= 60.0


# -- the trajectory on record ------------------------------------------------------------------------


def test_each_system_turn_carries_its_trace(synth22_env, context, tmp_path, capsys):
    with ChatStub(context, "good") as stub:
        code, _, stderr = interact(capsys, stub, tmp_path / "s.jsonl", goals=1)
    assert code == 0, stderr
    _, sessions = session_files.read(tmp_path / "s.jsonl")
    system_turns = [t for t in sessions[0]["turns"] if t["speaker"] == "system"]
    answered = turns_of(stub)
    assert len(system_turns) == len(answered) >= 2
    calls = 0
    for turn, entries in zip(system_turns, answered):
        trace = turn["trace"]
        assert trace["version"] == 1 and trace["finish_reason"] == "stop" and trace["warnings"] == []
        assert trace["tokens"] == {
            "prompt": sum(e["usage"]["prompt_tokens"] for e in entries),
            "completion": sum(e["usage"]["completion_tokens"] for e in entries),
        }
        sent = [c for e in entries for c in e["message"].get("tool_calls") or ()]
        assert [(c["name"], c["arguments"]) for c in trace["calls"]] == [
            (c["function"]["name"], json.loads(c["function"]["arguments"])) for c in sent
        ]
        for call in trace["calls"]:
            assert "as_text" not in call
            result = call["result"]
            if call["name"] == "find_venues":
                assert isinstance(result["count"], int) and len(result["venues"]) <= min(result["count"], 5)
            else:
                assert result.get("booked") is True and (result.get("reference") or result.get("car"))
        # the results the trace keeps are those the model read
        read = [json.loads(m["content"]) for m in entries[-1]["body"]["messages"] if m["role"] == "tool"]
        if trace["calls"]:
            assert read[-len(trace["calls"]) :] == [c["result"] for c in trace["calls"]]
        calls += len(trace["calls"])
    assert calls > 0
    assert sessions[0]["system_report"]["warnings"] == {}


# -- the book rate -----------------------------------------------------------------------------------


def test_book_rate_is_na_without_a_booking_in_the_goals_and_0_with_one_not_made(synth22_env, tmp_path, capsys):
    """The first three test goals book nothing: n/a, in the table and the JSON; from the fourth on a goal
    books, and a system that never books has 0.0."""
    for goals, shown, value in ((3, "n/a  (no goal books)", None), (4, "0.0", 0.0)):
        out, result_file = tmp_path / f"{goals}.jsonl", tmp_path / f"{goals}.json"
        code, stdout, stderr = run_cli(
            capsys, "interact", "--system", "echo", "--goals", str(goals), "-o", str(out), "--result",
            str(result_file), "--resamples", "10",
        )  # fmt: skip
        assert code == 0, stderr
        line = next(line for line in stdout.splitlines() if line.startswith("book rate"))
        assert line.split(None, 2)[2].startswith(shown), line
        result = json.loads(result_file.read_text())
        assert result["book_rate"] == value and result["ci95"]["book_rate"] is None
        with_booking = [s for s in result["per_session"] if s["book_rate"] is not None]
        assert len(with_booking) == goals - 3
