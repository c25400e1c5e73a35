"""Reference systems that hear words (issue 48, item 4): the user-act reader, learnt from the MultiWOZ 2.1
validation user turns, reads a user's text into acts; an oracle made with ``--system-option hear=words``
reads every user turn that comes without acts through it; an oracle that reads acts only is refused a
user that sends words only; and the signature's ``user_acts`` says whether acts reached the system."""

from __future__ import annotations

import pytest

from mwz_metrics.inputs import InputError
from mwz_metrics.interactive.harness import api
from mwz_metrics.interactive.systems.user_acts import UserContext, measure

# Act F1 (values normalized) of the reader on the user turns of the first 100 MultiWOZ 2.1 test dialogues
# (740 turns): 86.2 measured (all 7372 test user turns: 86.6). The floor leaves 6 points for noise.
F1_FLOOR = 80.0
# The words-reading oracle with the agenda user on the first 20 test goals: 100.0 measured (all 1000: 96.1,
# beside the acts-reading oracle's 100.0).
WORDS_SUCCESS_FLOOR = 80.0


@pytest.fixture(scope="module")
def context(synth22_context):
    return synth22_context


@pytest.fixture(scope="module")
def reader(context):
    """The reader, learnt (or read from the run's cache) once for the module."""
    return context.user_reader


@pytest.fixture()
def env(synth22_env):
    """The synth22 mirror for the test."""


def _read(reader, text: str, domain: str = "none", asked: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    return {tuple(act) for act in reader.read(text, UserContext(domain, frozenset(asked)))}


def test_the_reader_reads_values_requests_and_goodbyes(reader):
    assert _read(reader, "I need a cheap restaurant in the north that serves italian food.") == {
        ("inform", "restaurant", "price", "cheap"),
        ("inform", "restaurant", "area", "north"),
        ("inform", "restaurant", "food", "italian"),
    }
    assert _read(reader, "I need a train from cambridge to london kings cross on friday, leaving after 17:15.") == {
        ("inform", "train", "depart", "cambridge"),
        ("inform", "train", "dest", "london kings cross"),
        ("inform", "train", "day", "friday"),
        ("inform", "train", "leave", "17:15"),
    }
    # times as the database writes them; the booking details of the domain talked about
    assert _read(reader, "Please book a table for 4 people at 7:30 pm on saturday.", "restaurant") == {
        ("inform", "restaurant", "people", "4"),
        ("inform", "restaurant", "time", "19:30"),
        ("inform", "restaurant", "day", "saturday"),
    }
    assert _read(reader, "Can I get their phone number and postcode, please?", "restaurant") == {
        ("request", "restaurant", "phone", "?"),
        ("request", "restaurant", "post", "?"),
    }
    # "don't care" for the slot the system asked for; free parking not wanted; a taxi's ends by what they are
    assert _read(reader, "I don't mind about the area.", "hotel", ("area",)) == {
        ("inform", "hotel", "area", "dontcare")
    }
    assert ("inform", "hotel", "parking", "no") in _read(reader, "I am looking for a hotel without free parking.")
    assert {("inform", "taxi", "depart", "the hotel"), ("inform", "taxi", "dest", "pizza hut city centre")} <= _read(
        reader, "I am leaving from the hotel and going to pizza hut city centre.", "taxi"
    )
    # a food no table holds, found by where it stands
    assert _read(reader, "I would like some sri lankan food.") == {("inform", "restaurant", "food", "sri lankan")}
    assert ("thank", "general", "none", "none") in _read(reader, "Thanks, that is all I need. Goodbye!", "train")


def test_the_reader_on_held_out_test_turns_is_above_its_floor(env, context, reader):
    from mwz_datasets import multiwoz_raw

    paths, _ = context.dialogue_files("test")
    dialogues = list(multiwoz_raw.iter_dialogues("2.1", "test", paths))[:100]
    measured = measure(reader, dialogues)
    assert measured["turns"] == 740
    assert measured["acts"]["f1"] >= F1_FLOOR, measured["acts"]
    assert measured["slots"]["f1"] >= measured["acts"]["f1"]  # without values, never lower
    assert measured["intents"]["request"]["f1"] >= 70.0 and measured["intents"]["thank"]["f1"] >= 90.0


def test_a_words_reading_oracle_succeeds_on_the_agenda_users_words_alone(env, context, reader):
    run = api.prepare("oracle-text", goals=20, context=context, system_options={"hear": "words"})
    assert run.config["user_acts"] is False  # the agenda's acts do not reach it
    sessions = api.run_sessions(run, output=None)
    result = api.score(sessions, run.config, context=context, richness=False, resamples=100)
    assert result["success"] >= WORDS_SUCCESS_FLOOR, result["success"]
    line = result["signature"]["line"]
    assert "user_acts=false" in line and "system_options=hear~words" in line
    system_turns = [t for s in sessions for t in s["turns"] if t["speaker"] == "system"]
    assert not any("did not understand" in t["text"] for t in system_turns)
    # what it read of each user turn is on record, beside the turn
    assert all(isinstance(t["trace"]["read_user_acts"], list) for t in system_turns)
    assert sum(bool(t["trace"]["read_user_acts"]) for t in system_turns) >= len(system_turns) * 0.9


def test_an_acts_only_system_with_a_words_only_user_is_refused_in_one_line(env, context, capsys, tmp_path):
    from conftest import run_cli

    options = {"endpoint": "http://127.0.0.1:9/v1", "model": "stub"}  # refused before anything is reached
    for system in ("oracle", "oracle-text", "oracle-lex"):
        with pytest.raises(InputError) as refused:
            api.prepare(system, simulator="llm", simulator_options=options, goals=1, context=context)
        message = str(refused.value)
        assert "\n" not in message and "sends words only" in message and "hear=words" in message, message
    output = str(tmp_path / "refused.jsonl")
    argv = ["interact", "--system", "oracle", "--simulator", "llm", "--endpoint", options["endpoint"]]
    code, out, err = run_cli(capsys, *argv, "--model", "stub", "--goals", "1", "-o", output)
    assert code == 2 and "hear=words" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "refused.jsonl").exists()
    with pytest.raises(InputError, match="hear=ears"):
        api.prepare("oracle", goals=1, context=context, system_options={"hear": "ears"})


def test_the_signature_says_whether_the_users_acts_reached_the_system(env, context, reader):
    from chat_stub import ChatStub

    def reach(system, **options):
        return api.prepare(system, goals=2, context=context, **options).config["user_acts"]

    assert reach("oracle") is True  # reads the agenda's acts whatever --user-acts says, as before
    assert reach("oracle", system_options={"hear": "words"}) is False  # reads the words
    assert reach("oracle", system_options={"hear": "words"}, user_acts=True) is True  # given them
    assert reach("echo") is False and reach("echo", user_acts=True) is True
    with ChatStub(context, "user") as stub:  # the llm user: words only
        llm = {"simulator": "llm", "simulator_options": {"endpoint": stub.endpoint, "model": "stub"}}
        assert reach("echo", user_acts=True, **llm) is False  # no acts to give
        run = api.prepare("oracle-text", context=context, goals=2, system_options={"hear": "words"}, **llm)
        assert run.config["user_acts"] is False
        sessions = api.run_sessions(run, output=None)
    for session in sessions:
        users = [t for t in session["turns"] if t["speaker"] == "user"]
        assert users and all("acts" not in t for t in users)
        answers = [t for t in session["turns"] if t["speaker"] == "system"]
        assert answers and not any("did not understand" in t["text"] for t in answers)
    # the second goal's first message ("... a particular attraction. Its name is called nusha."), read
    first = next(t for t in sessions[1]["turns"] if t["speaker"] == "system")
    assert ["inform", "attraction", "name", "nusha"] in first["trace"]["read_user_acts"], first
