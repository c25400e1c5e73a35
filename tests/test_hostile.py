"""A run survives anything a system, an endpoint or a second process does (issue 40): every case
through the ``mwz`` console script, against a local misbehaving HTTP system (:mod:`hostile_system`)
and a stub chat endpoint, each bounded in time and count (a few goals, short timeouts)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hostile_system import HostileSystem

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


def one_line_error(ran: subprocess.CompletedProcess) -> str:
    """The single ``mwz: error:`` line of a refused command (exit 2, no traceback)."""
    assert ran.returncode == 2, (ran.stdout, ran.stderr)
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mwz: error: "), ran.stderr
    return lines[0]


def on_turn(behaviour: str, turn: int = 1):
    """A plan: ``behaviour`` on system turn ``turn`` of every session, the answer elsewhere."""
    return lambda request: behaviour if request["turn"] == turn else "ok"


# -- session files -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("behaviour", "sent"),
    [("surrogate", "caf\ud800"), ("separators", "a\u2028b\u2029c\x85")],
    ids=["surrogate", "separators"],
)
def test_any_text_a_system_sends_is_kept_and_the_run_goes_on(env, tmp_path, behaviour, sent):
    out = tmp_path / "text.jsonl"
    with HostileSystem(on_turn(behaviour)) as system:
        ran = mwz("interact", "--system", system.url, "--goals", 3, "-o", out, *FAST, "--json", "--explain", 3)
        assert ran.returncode == 0, ran.stderr
        resumed = mwz("interact", "--system", system.url, "--goals", 3, "-o", out, *FAST, "--json", "--resume")
    result = json.loads(ran.stdout[: ran.stdout.index("\n}\n") + 2])
    assert result["sessions"] == 3 and set(result["end_reasons"]) <= {"user_done", "max_turns"}
    raw = out.read_bytes()
    assert raw.isascii() and raw.count(b"\n") == 4  # the header and three sessions, one line each
    _, stored = session_files.read(out)
    texts = [t["text"] for s in stored for t in s["turns"] if t["speaker"] == "system"]
    assert sum(sent in text for text in texts) == 3  # recorded as the system sent it, once a session
    again = mwz("interact", "--score-only", "-o", out, *FAST, "--json")
    assert again.returncode == 0, again.stderr
    assert resumed.returncode == 0, resumed.stderr
    for key in ("success", "inform", "turns", "end_reasons"):
        assert json.loads(again.stdout)[key] == json.loads(resumed.stdout)[key] == result[key]


def test_an_existing_session_file_is_never_replaced_without_overwrite(env, tmp_path):
    out = tmp_path / "run.jsonl"
    first = mwz("interact", "--system", "echo", "--goals", 2, "-o", out, *FAST)
    assert first.returncode == 0, first.stderr
    before = out.read_bytes()
    line = one_line_error(mwz("interact", "--system", "silent", "--goals", 2, "-o", out, *FAST))
    assert str(out) in line and "--resume" in line and "--overwrite" in line
    assert out.read_bytes() == before
    replaced = mwz("interact", "--system", "silent", "--goals", 2, "-o", out, *FAST, "--overwrite", "--json")
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


def test_sessions_held_twice_are_read_once_with_a_warning(env, tmp_path):
    out = tmp_path / "run.jsonl"
    clean = mwz("interact", "--system", "oracle", "--goals", 4, "-o", out, *FAST, "--json")
    assert clean.returncode == 0, clean.stderr
    lines = out.read_bytes().split(b"\n")
    doubled = tmp_path / "doubled.jsonl"
    doubled.write_bytes(b"\n".join(lines[:3] + lines[1:]))  # two sessions written twice (two writers)
    truth = json.loads(clean.stdout)
    scored = mwz("interact", "--score-only", "-o", doubled, *FAST, "--json", quiet=False)
    assert scored.returncode == 0, scored.stderr
    assert "2 session(s) more than once" in scored.stderr
    again = json.loads(scored.stdout)
    assert again["sessions"] == 4 and again["success"] == truth["success"] and again["inform"] == truth["inform"]
    evaluated = mwz("evaluate", "-i", doubled, "-s", "--json", quiet=False)
    assert evaluated.returncode == 0, evaluated.stderr
    assert "more than once" in evaluated.stderr
    compared = mwz("compare", "-i", f"run={doubled}", "-s", "--resamples", 10, quiet=False)
    assert compared.returncode == 0, compared.stderr
    assert "more than once" in compared.stderr and "sessions=4," in compared.stdout


def test_every_session_failing_still_gives_the_summary(env, tmp_path):
    out = tmp_path / "failed.jsonl"
    with HostileSystem(lambda request: "not_json") as system:
        ran = mwz("interact", "--system", system.url, "--goals", 3, "-o", out, *FAST)
    assert ran.returncode == 0, ran.stderr
    assert "end reasons: malformed_response 3" in ran.stdout and "every session failed" in ran.stdout
    assert "richness" in ran.stdout and "n/a" in ran.stdout and "no system response" in ran.stdout
    down = mwz("interact", "--system", "http://127.0.0.1:9/respond", "--goals", 2, "-o", tmp_path / "down.jsonl", *FAST)
    assert down.returncode == 0, down.stderr
    assert "end reasons: system_error 2" in down.stdout and "every session failed" in down.stdout
    again = mwz("interact", "--score-only", "-o", out, *FAST)
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[-4:-1] == ran.stdout.splitlines()[-4:-1]


def test_resume_retry_failed_runs_again_what_infrastructure_ended(env, tmp_path):
    out = tmp_path / "crashed.jsonl"
    down = {"now": True}
    with HostileSystem(lambda request: "status_500" if down["now"] and request["turn"] == 1 else "ok") as system:
        first = mwz("interact", "--system", system.url, "--goals", 4, "-o", out, *FAST, "--retries", 0, "--json")
        assert first.returncode == 0, first.stderr
        assert json.loads(first.stdout)["end_reasons"] == {"system_error": 4}
        plain = mwz("interact", "--system", system.url, "--goals", 4, "-o", out, *FAST, "--resume", "--json")
        assert json.loads(plain.stdout)["end_reasons"] == {"system_error": 4}  # nothing to do without the flag
        down["now"] = False
        again = mwz(
            "interact", "--system", system.url, "--goals", 4, "-o", out, *FAST,
            "--resume", "--retry-failed", "--retries", 1, "--timeout", 5, "-j", 2, "--json",
        )  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert "system_error" not in json.loads(again.stdout)["end_reasons"]
    found = session_files.read_file(out)
    assert len(found.sessions) == 4 and found.duplicates == 0
    assert found.resumptions[-1]["run_again"] == 4 and found.resumptions[-1]["jobs"] == 2
    assert found.resumptions[-1]["settings"] == {"system.timeout": 5.0, "system.retries": 1}
