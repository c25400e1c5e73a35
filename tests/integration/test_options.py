"""Mistakes caught before the work, and a failing system that never ends the run (issue 47): options
checked before the first session, a wrong port refused in seconds, ``sys.exit()`` and interrupts raised
by a system's own code counted as its failure, its traceback kept and shown under ``--debug``, the
progress bar in a terminal. Through the ``mwz`` command line (in this process where no real process is
needed), on a few goals of the synthetic mirror."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import textwrap
import time
from pathlib import Path

import pytest
from conftest import one_line_error

from mwz_metrics.interactive.harness import sessions as session_files

FAST = ("--resamples", "10")
MWZ = str(Path(sys.executable).with_name("mwz"))

EXITING = """
import sys, threading

def make(status="0", where="respond"):
    if where == "factory":
        sys.exit(int(status))
    if where == "factory-interrupt":
        raise KeyboardInterrupt

    def respond(request):
        if where == "respond" and request["turn"] == 1:
            sys.exit(int(status))
        if where == "interrupt" and request["turn"] == 1:
            raise KeyboardInterrupt  # the code's own raise, in a session's thread
        if where == "raise" and request["turn"] == 1:
            raise ValueError(f"boom at turn {request['turn']}")
        return {"response": "i am sorry , i can not help with that ."}

    return respond
"""


@pytest.fixture()
def env(synth22_env, tmp_path, monkeypatch):
    """The synth22 mirror, and a folder holding the module ``exiting`` (a system factory) as the current one."""
    (tmp_path / "exiting.py").write_text(textwrap.dedent(EXITING))
    monkeypatch.chdir(tmp_path)


def mwz(*args: object, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([MWZ, *map(str, args)], capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("where", ["respond", "interrupt"])
def test_a_system_calling_sys_exit_or_raising_an_interrupt_ends_its_sessions_not_the_run(env, tmp_path, where):
    out = tmp_path / "ex.jsonl"
    ran = mwz("-q", "interact", "--system", "exiting:make", "--system-option", f"where={where}", "--goals", 4,
              "-o", out, "--result", tmp_path / "r.json", *FAST)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert "end reasons: system_error 4" in ran.stdout and "every session failed" in ran.stdout
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["sessions"] == 4
    ends = [s["end"] for s in session_files.read(out)[1]]
    expected = "SystemExit(0)" if where == "respond" else "KeyboardInterrupt"
    assert all(expected in end["detail"] and "turn 1" in end["detail"] for end in ends)
    assert all("exiting.py" in end["traceback"] for end in ends)  # where it happened, for the system's author


def test_a_factory_that_exits_is_one_line(env, cli):
    line = one_line_error(cli("interact", "--system", "exiting:make", "--system-option", "where=factory",
                       "--system-option", "status=3", "--goals", 2))  # fmt: skip
    assert "the factory failed (SystemExit(3)" in line


def test_under_debug_a_failing_systems_traceback_is_printed(env, tmp_path):
    ran = mwz("--debug", "-q", "interact", "--system", "exiting:make", "--system-option", "where=raise",
              "--goals", 1, "-o", tmp_path / "d.jsonl", *FAST)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert "Traceback (most recent call last)" in ran.stderr and "ValueError: boom at turn 1" in ran.stderr
    assert 'exiting.py", line' in ran.stderr
    quiet = mwz("-q", "interact", "--system", "exiting:make", "--system-option", "where=raise", "--goals", 1,
                "-o", tmp_path / "q.jsonl", *FAST)  # fmt: skip
    assert quiet.returncode == 0 and "Traceback" not in quiet.stderr


def test_a_wrong_port_is_refused_in_seconds_before_any_session(env, tmp_path, cli):
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = tmp_path / "wrong.jsonl"
    started = time.monotonic()
    line = one_line_error(cli("interact", "--system", f"http://localhost:{port}/respond", "--goals", 50, "-o", out))
    assert time.monotonic() - started < 10
    assert f"cannot connect to localhost:{port}" in line and not out.exists()
    endpoint = one_line_error(
        cli("interact", "--system", "llm", "--endpoint", f"http://127.0.0.1:{port}/v1", "--model", "m")
    )
    assert f"127.0.0.1:{port}" in endpoint


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (("--profile", "impatiant"), "--profile 'impatiant': not registered"),
        (("--timeout", "nan"), "--timeout nan"),
        (("--timeout", "inf"), "--timeout inf"),
        (("--timeout", "0"), "--timeout 0"),
        (("-j", "0"), "-j 0"),
        (("--retries", "-1"), "--retries -1"),
        (("--metric", "sucess"), "--metric sucess"),
        (("--price", "cheap"), "--price 'cheap'"),
        (("--trials", "0"), "--trials 0"),
    ],
)
def test_a_wrong_option_is_refused_before_the_first_session(env, tmp_path, cli, options, says):
    out = tmp_path / "run.jsonl"
    assert says in one_line_error(cli("interact", "--system", "oracle", "--goals", 2, "-o", out, *options))
    assert not out.exists()


def test_more_goals_than_the_test_set_says_how_many_run(env, tmp_path):
    ran = mwz("interact", "--system", "silent", "--goals", 5000, "-o", tmp_path / "all.jsonl", *FAST, "--max-turns", 1)
    assert ran.returncode == 0, ran.stderr
    assert "--goals 5000: the test set has 1000 goals; running all 1000" in ran.stderr
    assert "1000 sessions" in ran.stdout


def _in_a_terminal(command: list[str], seconds: float = 120) -> bytes:
    """What ``command`` writes to a 40 x 120 terminal (a pseudo-terminal as stdin, stdout and stderr)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: a terminal of a real size (a 0 x 0 one hides tqdm's bar), then the command
        try:
            fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
            os.execv(command[0], command)
        finally:
            os._exit(127)
    shown, deadline = b"", time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 1.0)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            shown += chunk
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    assert shown, f"nothing shown; the command ended with status {status}"
    return shown


def test_the_progress_bar_shows_in_a_terminal_with_the_failures_so_far(env, tmp_path):
    out = tmp_path / "bar.jsonl"
    shown = _in_a_terminal([MWZ, "interact", "--system", "exiting:make", "--goals", "6", "-o", str(out), *FAST])
    assert b"sessions: " in shown and b"6/6" in shown and b"6 failed" in shown, shown[-2000:]
    quiet = _in_a_terminal([MWZ, "-q", "interact", "--system", "echo", "--goals", "3", "-o", str(tmp_path / "q.jsonl")])
    assert b"sessions: " not in quiet
