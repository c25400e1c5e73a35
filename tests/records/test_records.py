"""The typed records of interactive evaluation (mwz_metrics.records): one declaration of each shape, its
JSON Schema generated from it and committed as package data, validation once at the boundary with the
messages a user has always read, and a low layer that imports no room of mwz_metrics."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import get_args, get_type_hints

import pytest

from mwz_metrics.records import acts, corpus, ends, header, request, schemas, session, turns
from mwz_metrics.records.ends import SessionEnd

RECORDS = Path(schemas.__file__).parent
FAST = ("--resamples", "10")


def test_the_committed_schemas_are_what_the_records_generate():
    """After a record changes: ``python -m mwz_metrics.records.schemas`` writes them again."""
    assert sorted(p.name for p in (RECORDS / "schemas").glob("*.json")) == sorted(schemas.generated())
    assert schemas.differing() == []


def test_a_schema_that_drifted_is_found(tmp_path):
    schemas.write(tmp_path)
    assert schemas.differing(tmp_path) == []
    edited = tmp_path / "request.schema.json"
    edited.write_text(edited.read_text().replace('"seed"', '"sead"'))
    assert schemas.differing(tmp_path) == ["request.schema.json"]
    assert schemas.main(["--check"]) == 0


def test_the_literals_the_schemas_read_are_the_constants():
    assert get_args(ends.EndReason) == tuple(ends.END_REASONS)
    hints = get_type_hints(header.SessionFileHeader)
    assert get_args(hints["format"]) == (header.FORMAT,) and get_args(hints["version"]) == (header.FORMAT_VERSION,)


def test_a_request_and_an_answer_round_trip_and_keep_their_key_order():
    made = request.request("pmul1", 2, [{"speaker": "user", "text": "hi"}], seed=7, trial=1)
    assert list(made) == ["dialogue_id", "turn", "history", "trial", "seed"]
    assert request.session_key(made) == "pmul1#1"
    answer = {"response": "hello", "active_domains": ["hotel"], "acts": [["greet", "general"]], "trace": {"v": 1}}
    turn = turns.SystemTurn.from_json(answer, "pmul1", 2)
    assert turn.to_json() == {
        "speaker": "system",
        "text": "hello",
        "active_domains": ["hotel"],
        "acts": [["greet", "general", "none", "none"]],
        "trace": {"v": 1},
    }
    assert turns.UserTurn("hi", (acts.Act("greet", "general"),)).to_json()["acts"] == [
        ["greet", "general", "none", "none"]
    ]


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"text": "x"}, "dialogue d, turn 0: missing 'response'"),
        ({"response": "x", "acts": [["shout", "hotel"]]}, "dialogue d, turn 0: 'acts'[0]: unknown intent 'shout'"),
        ({"response": "x", "trace": []}, "dialogue d, turn 0: 'trace' is not an object"),
        ({"response": "x" * 11}, "dialogue d, turn 0: a response of 11 characters (limit 10)"),
    ],
)
def test_a_malformed_answer_ends_the_session_saying_why(answer, message):
    with pytest.raises(SessionEnd) as raised:
        turns.SystemTurn.from_json(answer, "d", 0, max_chars=10)
    assert raised.value.reason == "malformed_response" and raised.value.detail.startswith(message)


def _record() -> dict:
    return {
        "id": "pmul1#0",
        "trial": 0,
        "goal": {"dialogue_id": "pmul1", "domains": []},
        "turns": [{"speaker": "user", "text": "hi"}, {"speaker": "system", "text": "hello", "state": {}}],
        "end": {"reason": "user_done"},
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.pop("turns"), "field 'turns': missing"),
        (
            lambda r: r["turns"][1].update(speaker="wizard"),
            "field 'turns[1].speaker': 'wizard', not 'user' or 'system'",
        ),
        (lambda r: r.update(end={"reason": "tired"}), "field 'end': missing, or not {\"reason\": REASON}"),
        (lambda r: r["turns"][0].update(acts=[["inform", "spaceship"]]), "field 'turns[0].acts'[0]: unknown domain"),
        (lambda r: r.update(booked={}), "field 'booked': not a list"),
    ],
)
def test_a_session_record_is_validated_once_naming_the_field(change, message):
    record = _record()
    assert session.from_json(record) is record
    change(record)
    with pytest.raises(session.RecordError, match=None) as raised:
        session.from_json(record)
    assert str(raised.value).startswith(message)


def test_the_accessors_read_a_record():
    record = session.from_json(_record())
    assert [t["text"] for t in session.system_turns(record)] == ["hello"]
    assert [t["text"] for t in session.user_turns(record)] == ["hi"]
    assert session.end_reason(record) == "user_done" and session.parse_session_id(record["id"]) == ("pmul1", 0)
    assert session.speakers_and_texts(record) == [
        {"speaker": "user", "text": "hi"},
        {"speaker": "system", "text": "hello"},
    ]
    dialogue = {"dialogue_id": "x", "turns": [{"speaker": "USER", "utterance": "hi", "dialogue_acts": []}]}
    assert corpus.is_user_turn(corpus.dialogue_turns(dialogue)[0])
    assert corpus.span_bounds({"start": "2", "end": 3}) == (2, 3)


def test_a_run_s_session_file_is_valid_under_its_published_schema(synth22_env, tmp_path, cli):
    """The schemas say what mwz interact writes: every line of a run of every kind of turn (acts read and
    sent, trials, a state) validates, and a hand-edited line does not."""
    jsonschema = pytest.importorskip("jsonschema")
    out = tmp_path / "run.jsonl"
    assert cli("interact", "--system", "oracle-text", "--goals", 3, "--trials", 2, "-o", out, *FAST).returncode == 0
    schema = json.loads((RECORDS / "schemas" / "session-file.schema.json").read_text())
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 7 and "goal_ids" in lines[0]
    for line in lines:
        jsonschema.validate(line, schema)
    broken = dict(lines[1], turns=[{"speaker": "wizard", "text": "hi"}])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)
    request_schema = json.loads((RECORDS / "schemas" / "request.schema.json").read_text())
    jsonschema.validate(request.request("d", 0, lines[1]["turns"][:1], seed=1), request_schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"dialogue_id": "d", "turn": 0, "history": []}, request_schema)  # no seed


def test_the_records_import_no_room_of_mwz_metrics():
    """A low layer: the rooms import the records, the records only one leaf module, inputs (and mwz_plugins)."""
    allowed = {"mwz_metrics.records", "mwz_metrics.inputs", "mwz_plugins"}
    for path in RECORDS.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            names += [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            for name in names:
                if name.startswith(("mwz_", "mwz_metrics")):
                    assert any(name == a or name.startswith(a + ".") for a in allowed), (path.name, name)
