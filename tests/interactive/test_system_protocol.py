"""A real system plugs in without friction (``mwz interact``, through the command line as a user runs it):
``module:factory`` from the current folder, ``--system-option`` to the factory and the signature, the
user's acts only with ``--user-acts``, what a system prints kept out of mwz's output (shown with ``-v``),
and errors naming the system, the session and the turn."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import shared_path

SYSTEM = '''
import sys

from mwz_metrics.interactive.systems.reference import OracleSystem


class Mine:
    """The oracle's policy if it is given the user's acts; prints on both streams; fails where told."""

    def __init__(self, greeting="hi", fail_at=None):
        from mwz_metrics.interactive.harness.context import InteractiveContext

        self.oracle = OracleSystem(InteractiveContext(), with_acts=False)
        self.greeting = greeting
        self.fail_at = None if fail_at is None else int(fail_at)

    def respond(self, request):
        print(f"{self.greeting} from turn {request['turn']}")
        print("a warning of mine", file=sys.stderr)
        if request["turn"] == self.fail_at:
            raise ValueError("my model ran out of memory")
        users = [t for t in request["history"] if t["speaker"] == "user"]
        if any("acts" in t for t in users):
            return self.oracle.respond(request)
        return {"response": "I only read words, and I do not understand them."}


def make(**options):
    return Mine(**options)
'''


@pytest.fixture()
def folder(tmp_path):
    (tmp_path / "mysystem.py").write_text(textwrap.dedent(SYSTEM), encoding="utf-8")
    return tmp_path


def _interact(folder, *args):
    env = dict(os.environ, MWZ_MIRROR=str(shared_path("data", "mirror-synth22")))
    env.pop("PYTHONPATH", None)  # the system comes from the current folder, nowhere else
    mwz = str(Path(sys.executable).parent / "mwz")  # the console script: unlike python -m, it adds no folder itself
    command = [mwz, *args[:1], "interact", "--resamples", "0"]
    if "--goals" not in args:
        command += ["--goals", "3"]
    return subprocess.run(
        [*command, "-o", "s.jsonl", "--overwrite", *args[1:]],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _sessions(folder):
    lines = (folder / "s.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[1:]]


def test_a_factory_from_the_current_folder_with_options_and_its_output_kept_apart(folder):
    done = _interact(folder, "-q", "--system", "mysystem:make", "--system-option", "greeting=hello", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)  # the system's prints never reach mwz's output
    assert "hello from turn" not in done.stdout and "a warning of mine" not in done.stderr
    line = result["signature"]["line"]
    assert "system_options=greeting~hello" in line and "user_acts=false" in line
    assert result["success"] < 50  # words only: the system cannot read them
    for session in _sessions(folder):
        assert all("acts" not in t for t in session["turns"] if t["speaker"] == "system")
    shown = _interact(folder, "-v", "--system", "mysystem:make", "--system-option", "greeting=hello")
    assert shown.returncode == 0, shown.stderr
    assert "hello from turn 0" in shown.stderr and "a warning of mine" in shown.stderr
    assert "system mysystem:make, session " in shown.stderr and ", turn 0: hello from turn 0" in shown.stderr
    assert "hello from turn" not in shown.stdout


def test_the_users_acts_reach_a_system_only_when_the_run_says_so(folder):
    done = _interact(folder, "-q", "--system", "mysystem:make", "--user-acts", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["success"] == 100.0 and "user_acts=true" in result["signature"]["line"]
    oracle = _interact(folder, "-q", "--system", "oracle", "--json")  # a reference system reads them anyway
    assert "user_acts=true" in json.loads(oracle.stdout)["signature"]["line"]


def test_errors_name_the_system_the_session_and_the_turn(folder):
    done = _interact(folder, "-q", "--system", "mysystem:make", "--system-option", "fail_at=1", "--json")
    assert done.returncode == 0, done.stderr  # a failing system is a finding, not a crash
    ends = [s["end"] for s in _sessions(folder)]
    assert {e["reason"] for e in ends} == {"system_error"}
    session = _sessions(folder)[0]
    assert ends[0]["detail"] == (
        f"system mysystem:make, session {session['id']}, turn 1: ValueError: my model ran out of memory"
    )
    wrong = _interact(folder, "-q", "--system", "mysystem:make", "--system-option", "colour=red")
    assert wrong.returncode == 2 and wrong.stderr.count("\n") == 1
    assert "--system mysystem:make: the factory does not take these options" in wrong.stderr
    missing = _interact(folder, "-q", "--system", "nosuchmodule:make")
    assert missing.returncode == 2 and "from the current folder or the installed packages" in missing.stderr


@pytest.fixture(scope="module")
def context(synth22_context):
    return synth22_context


@pytest.mark.parametrize(("policy", "lowest", "highest"), [("good", 90.0, 100.0), ("bad", 0.0, 10.0)])
def test_an_llm_agent_with_database_tools_over_http(context, tmp_path, policy, lowest, highest):
    """``--system llm`` against a local chat server that scripts its tool calls and replies: 50 goals,
    four sessions in flight; the good policy succeeds, the bad one fails, the signature names both."""
    from chat_stub import ChatStub

    with ChatStub(context, policy) as stub:
        done = _interact(
            tmp_path,
            "-q",
            "--system",
            "llm",
            "--endpoint",
            stub.endpoint,
            "--model",
            f"stub-{policy}",
            "--user-acts",
            "--goals",
            "50",
            "-j",
            "4",
            "--json",
        )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["sessions"] == 50 and lowest <= result["success"] <= highest, result["success"]
    line = result["signature"]["line"]
    assert f"model:stub-{policy}" in line and "prompt=" in line and "system=llm@1.0.0" in line
    assert "user_acts=true" in line
    sessions = _sessions(tmp_path)
    system_turns = [t for s in sessions for t in s["turns"] if t["speaker"] == "system"]
    if policy == "good":
        assert stub.policies.calls > 50  # it looked up and booked through the tools
        assert any(t.get("state") for t in system_turns)  # its state: what its tool calls asked for
        assert not any("[value_" in t["text"] for t in system_turns)  # words with values
        assert "delexicalized=mwz-delex@1.0.0" in line
    else:
        assert not any(t.get("state") for t in system_turns)


def test_an_llm_agent_retries_an_overloaded_endpoint_and_times_out_a_silent_one(context, quick_retries):
    from chat_stub import ChatStub

    from mwz_metrics.interactive.harness import api

    def run(stub, goals, **settings):
        options = {"endpoint": stub.endpoint, "model": "stub"}
        prepared = api.prepare("llm", goals=goals, context=context, system_options=options, user_acts=True, **settings)
        return api.run_sessions(prepared, output=None, jobs=2)

    with ChatStub(context, "good", fail_every=4) as stub:
        sessions = run(stub, 4, retries=2)
    assert [s["end"]["reason"] for s in sessions] == ["user_done"] * 4
    assert (
        sum(s["system_report"]["retries"] for s in sessions)
        == sum(s["system_report"]["failures"].get("http_503", 0) for s in sessions)
        > 0
    )
    with ChatStub(context, "good", delay=0.6) as stub:
        sessions = run(stub, 2, retries=1, timeout=0.2)
    assert {s["end"]["reason"] for s in sessions} == {"system_timeout"}
    assert all(s["system_report"]["failures"]["timeout"] == 2 for s in sessions)  # the first try and one retry


def test_a_python_systems_identity_goes_into_the_runs_record(tmp_path, monkeypatch):
    """A factory's system may say what its numbers depend on (``identity()``: a model file's checksum);
    it goes into the run's record; an identity() that fails or is no dict is one line about the system."""
    from mwz_metrics.interactive.harness import loading
    from mwz_plugins.errors import SystemUnderTestError

    (tmp_path / "described_system.py").write_text(
        "class Described:\n"
        "    def __init__(self, bad=''):\n"
        "        self.bad = bad\n"
        "    def respond(self, request):\n"
        "        return {'response': 'hello'}\n"
        "    def identity(self):\n"
        "        if self.bad == 'raise':\n"
        "            raise OSError('no model file')\n"
        "        return 7 if self.bad else {'model_sha256': 'abc'}\n"
        "def make(**options):\n"
        "    return Described(**options)\n"
    )
    monkeypatch.chdir(tmp_path)
    try:
        loaded = loading._python("described_system:make", {})
        assert loaded.identity == {"factory": "described_system:make", "model_sha256": "abc"}
        for bad, said in (("raise", "identity() failed (OSError: no model file)"), ("int", "returned int, not a dict")):
            with pytest.raises(SystemUnderTestError, match=re.escape(said)):
                loading._python("described_system:make", {"bad": bad})
    finally:
        sys.modules.pop("described_system", None)
