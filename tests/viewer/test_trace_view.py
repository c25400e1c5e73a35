"""A system turn's ``trace`` (an agent's tool calls, their results, finish reason, warnings and tokens) in
``mwz view`` and ``mwz interact --explain`` (issue 48, item 3).

The traces come from a Python factory system written here (not the ``llm`` system): three goals, one where
the system wraps the oracle and traces its lookups and bookings, one where every lookup finds nothing (the
goal fails, and ``--explain`` names the empty lookup), one where the trace is hostile, of another version,
too large (cut by the protocol) or unreadable. One run through ``mwz_metrics.cli.main``, then the page and
the explanation are read."""

from __future__ import annotations

import contextlib
import html
import io
import json
import logging
import re
from pathlib import Path

import pytest
from conftest import run_chromium

from mwz_metrics.viewer import records

HOSTILE = (
    '</script><script>parent.pwned = 1</script><img src=x onerror="parent.pwned = 2">'
    "\"quotes' & <b>bold</b> \x1b[31mred\x1b[0m \u202eevil\u202c \udc80 "
)
WIDTH = 1280

SYSTEM = r"""
import json
from mwz_metrics.interactive.harness.context import InteractiveContext
from mwz_metrics.interactive.systems.reference import OracleSystem

PLAN = json.loads(PLAN_JSON)  # dialogue id -> [mode, domain, the goal's info]
HOSTILE = json.loads(HOSTILE_JSON)


def tokens(turn):
    return {"prompt": 800 + 10 * turn, "completion": 40 + turn}


def empty(domain, info, turn):
    calls = [{"name": "find_venues", "arguments": {"domain": domain, "constraints": {**info, "area": "cambridge"}},
              "result": {"count": 0, "venues": []}}]
    if turn == 1:
        calls.append({"name": "book", "arguments": {"domain": domain, "name": "the nowhere inn", "people": "2"},
                      "result": {"booked": False, "error": "no restaurant 'the nowhere inn' in the database"}})
    if turn == 2:
        calls.append({"name": "find_venues", "arguments": {"domain": domain, "constraints": {"food": "\x1b[31mred"}},
                      "result": {"error": "no food </script><b>red</b>"}, "as_text": True})
    return {"version": 1, "calls": calls, "finish_reason": "length" if turn == 1 else "stop", "tokens": tokens(turn),
            "warnings": ["length_cut"] if turn == 1 else []}


def traced(domain, info, turn):
    trace = {"version": 1, "tokens": tokens(turn), "finish_reason": "stop"}
    if turn == 0:
        trace["calls"] = [{"name": "find_venues", "arguments": {"domain": domain, "constraints": info},
                           "result": {"count": 2, "venues": [{"name": "alpha lodge", "area": "north"}, {"name": "beta house"}]}}]
    elif turn == 1:
        trace["calls"] = [{"name": "book", "arguments": {"domain": domain, "name": "alpha lodge", "people": "4"},
                           "result": {"booked": True, "reference": "ABCD1234"}}]
    elif turn == 2:
        venues = [{"name": f"venue {i}", "address": "x" * 40} for i in range(60)]
        trace["calls"] = [{"name": "find_venues", "arguments": {"domain": domain}, "result": {"count": 60, "venues": venues}}]
    return trace


def hostile(turn):
    if turn == 0:
        return {"version": 1, "finish_reason": HOSTILE, "warnings": [HOSTILE], "tokens": tokens(turn), "calls": [
            {"name": HOSTILE, "arguments": {"domain": HOSTILE, "constraints": {HOSTILE: HOSTILE}},
             "result": {"count": 1, "venues": [{"name": HOSTILE}], "extra": HOSTILE}},
            {"name": "find_venues", "arguments": HOSTILE, "result": [HOSTILE], "as_text": True},
        ]}
    if turn == 1:
        return {"version": 99, "mystery": HOSTILE}
    if turn == 2:
        return {"version": 1, "calls": [{"name": "find_venues", "arguments": {}, "result": "y" * 300_000}]}
    return {"tokens": {"prompt": "lots", "completion": None}, "calls": ["not an object", 7]}


def make():
    oracle = OracleSystem(InteractiveContext())

    def respond(request):
        mode, domain, info = PLAN[request["dialogue_id"]]
        turn = request["turn"]
        if mode == "empty":
            return {"response": "i am sorry , there is no such place .", "trace": empty(domain, info, turn)}
        answer = dict(oracle.respond(request))
        answer["trace"] = traced(domain, info, turn) if mode == "traced" else hostile(turn)
        return answer

    return respond
"""


def _main(*argv: str) -> tuple[int, str, str]:
    """``mwz -q ARGV`` in this process (as ``conftest.run_cli``, for a module's fixture): code, stdout, stderr."""
    from mwz_metrics.cli import main

    out, err = io.StringIO(), io.StringIO()
    logging.disable(logging.CRITICAL)
    try:
        with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            patch.setenv("MWZ_QUIET", "1")
            code = main(["-q", *argv])
    finally:
        logging.disable(logging.NOTSET)
    return code, out.getvalue(), err.getvalue()


def _page_data(page: Path) -> dict:
    text = page.read_text(encoding="utf-8")
    return json.loads(re.search(r'<script id="data" type="application/json">(.*?)</script>', text, re.S).group(1))


@pytest.fixture(scope="module")
def traced(synth22, synth22_context, tmp_path_factory):
    """One run of the factory system on three goals (``--explain 3``), its page: (folder, ids by mode, the
    sessions, the page's data, the explanation)."""
    folder = tmp_path_factory.mktemp("trace-view")
    goals = list(synth22_context.goals.values())
    single = [g for g in goals if len(g.domains) == 1 and g.domains[0].info]
    chosen = {
        "empty": next(g for g in single if g.domains[0].domain == "restaurant"),
        "traced": next(g for g in single if g.domains[0].domain == "hotel"),
        "hostile": next(g for g in goals if len(g.domains) > 1),
    }
    plan = {g.dialogue_id: [mode, g.domains[0].domain, dict(g.domains[0].info)] for mode, g in chosen.items()}
    code = SYSTEM.replace("PLAN_JSON", repr(json.dumps(plan))).replace("HOSTILE_JSON", repr(json.dumps(HOSTILE)))
    (folder / "trace_view_system.py").write_text(code, encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MWZ_MIRROR", str(synth22))
        patch.chdir(folder)
        dialogues = [a for g in chosen.values() for a in ("--dialogue", g.dialogue_id)]
        run = ("interact", "--system", "trace_view_system:make", *dialogues, "-o", "run.jsonl", "--resamples", "10")
        code_, out, err = _main(*run, "--user-acts", "--max-turns", "8", "--explain", "3")
        assert code_ == 0, err
        assert _main("view", "run.jsonl", "-o", "page.html", "--resamples", "10")[0] == 0
    sessions = {s["id"]: s for s in map(json.loads, (folder / "run.jsonl").read_text().splitlines()[1:])}
    ids = {mode: g.dialogue_id for mode, g in chosen.items()}
    return folder, ids, sessions, _page_data(folder / "page.html"), out, chosen


def _row(data: dict, session_id: str) -> dict:
    return next(s for s in data["runs"][0]["sessions"] if s["id"] == session_id)


def _traces(row: dict) -> list:
    """Each system turn's trace view (None: the turn had none)."""
    return [t[7] if len(t) > 7 else None for t in row["transcript"] if t[0] == "s"]


def test_the_page_holds_each_turns_calls_results_and_tokens(traced):
    """Each traced system turn carries its calls (name, arguments in one line, the result summarised, the
    result's JSON cut), finish reason and warnings; the session's tokens are its traces' sum, the run's
    the sum of its sessions' (was: no trace on the page at all)."""
    _, ids, sessions, data, _, chosen = traced
    run = data["runs"][0]
    info = chosen["traced"].domains[0].info
    hotel = _traces(_row(data, ids["traced"]))
    assert all(t is not None for t in hotel)
    first, booked, many = hotel[:3]
    assert first["calls"] == [
        ["find_venues", "hotel " + " ".join(f"{k}={v}" for k, v in info.items()), "2 venues: alpha lodge, beta house",
         '{"count":2,"venues":[{"name":"alpha lodge","area":"north"},{"name":"beta house"}]}', False],
    ]  # fmt: skip
    assert "finish" not in first and "warnings" not in first and first["tokens"] == [800, 40]
    assert booked["calls"][0][:3] == ["book", "hotel name=alpha lodge people=4", "booked: reference ABCD1234"]
    name, arguments, summary, raw, _ = many["calls"][0]
    assert summary == "60 venues: venue 0, venue 1, venue 2, …"
    assert raw.startswith('{"count":60,"venues":[{"name":"venue 0"') and raw.endswith("more characters not shown]")
    assert len(raw) < records.MAX_RESULT + 60  # a result's JSON trimmed to the documented size
    empty = _traces(_row(data, ids["empty"]))
    assert empty[1]["finish"] == "length" and empty[1]["warnings"] == ["length_cut"]
    assert empty[1]["calls"][1][2] == "not booked: no restaurant 'the nowhere inn' in the database"
    assert empty[2]["calls"][1][4] is True and empty[2]["calls"][1][2] == "error: no food </script><b>red</b>"
    for mode in ("traced", "empty"):  # tokens: the sum of the session's traces
        turns = [t for t in sessions[ids[mode]]["turns"] if t["speaker"] == "system"]
        expected = [sum(t["trace"]["tokens"][k] for t in turns) for k in ("prompt", "completion")]
        assert _row(data, ids[mode])["tokens"] == {"system": expected}
    total = [sum(s["tokens"].get("system", [0, 0])[i] for s in run["sessions"]) for i in (0, 1)]
    assert run["tokens"] == {"system": total} and total[0] > 0
    traced_turns = sum(1 for s in sessions.values() for t in s["turns"] if "trace" in t)
    calls = sum(len([c for c in t["trace"].get("calls", []) if isinstance(c, dict)])
                for s in sessions.values() for t in s["turns"] if "trace" in t)  # fmt: skip
    assert run["traces"]["turns"] == traced_turns and run["traces"]["calls"] == calls
    assert run["traces"]["warnings"]["length_cut"] == 1 and run["traces"]["finish"]["length"] == 1
    assert run["traces"]["cut"] == 1 and run["traces"]["by_name"]["book"] == 2


def test_a_hostile_cut_or_unknown_trace_stays_text(traced):
    """Hostile text in a trace's names, arguments, results, warnings and finish reason reaches the page's
    data as text, never as markup; a trace cut for its size, of another version or unreadable is said so."""
    folder, ids, sessions, data, _, _ = traced
    text = (folder / "page.html").read_text(encoding="utf-8")
    assert text.count("<script") == 2 and text.count("</script>") == 2 and "<img src=x" not in text
    assert "<b>red</b>" not in text and "\x1b" not in text
    hostile = _traces(_row(data, ids["hostile"]))
    first = hostile[0]
    arguments = f"{HOSTILE} {HOSTILE}={HOSTILE}"  # longer than a call's line: cut, saying so
    assert first["calls"][0][0] == HOSTILE and first["calls"][0][1] == records.cut(arguments, records.CALL_CHARS)
    assert first["calls"][0][2] == f"1 venue: {HOSTILE}" and first["calls"][0][3].startswith('{"count":1,"venues"')
    assert first["calls"][1][1] == HOSTILE and first["calls"][1][4] is True
    assert first["finish"] == HOSTILE and first["warnings"] == [HOSTILE]
    assert hostile[1]["note"].startswith("trace version 99 (this page reads version 1")
    assert hostile[1]["raw"] == '{"version":99,"mystery":' + json.dumps(HOSTILE, ensure_ascii=False) + "}"
    assert sessions[ids["hostile"]]["turns"][5]["trace"]["cut"] is True  # the protocol cut it: > 200,000 bytes
    assert re.fullmatch(r"trace cut: [\d,]+ bytes, over the limit of 200,000", hostile[2]["note"])
    assert hostile[3] == {}  # unreadable tokens and calls: nothing to show, no failure
    assert _row(data, ids["hostile"])["tokens"] == {"system": [800, 40]}  # only the readable counts


def test_explain_names_the_lookup_that_found_nothing(traced):
    """``--explain``: the failed domain's line names the lookups that found nothing and the failed booking;
    the transcript lists each call under its turn, a terminal's escapes written as text."""
    _, ids, _, _, out, chosen = traced
    info = chosen["empty"].domains[0].info
    part = out.split(f"\n{ids['empty']}: success no")[1].split("\n\n")[0]
    verdict = next(line for line in part.splitlines() if line.startswith("  -> restaurant: system's side"))
    wanted = ", ".join(f"{k}={v}" for k, v in {**info, "area": "cambridge"}.items())
    assert f"; looked up restaurant with {wanted}: 0 venues; " in verdict
    assert "tried to book restaurant with name=the nowhere inn, people=2: not booked: no restaurant" in verdict
    assert "looked up restaurant with food=\\x1b[31mred: error: no food </script><b>red</b>" in verdict
    assert "         call: find_venues restaurant " + " ".join(f"{k}={v}" for k, v in info.items()) in part
    assert "         finish: length" in part and "         warnings: length_cut" in part
    assert "(written as text)" in part and "\x1b" not in out


HARNESS = """<!DOCTYPE html><html><body style="margin:0">
<iframe id="view" src="VIEW" style="border:0;width:WIDTHpx;height:HEIGHTpx"></iframe>
<pre id="result" style="display:none"></pre>
<script>
const frame = document.getElementById("view");
const wait = ms => new Promise(done => setTimeout(done, ms));
frame.addEventListener("load", async () => {
  const out = {};
  try {
    const page = frame.contentDocument, win = frame.contentWindow;
    await wait(50);
    const open = async key => {
      page.querySelector('#sessions tbody tr[data-key="' + key + '"]').click();
      await wait(50);
      page.querySelectorAll("details.trace").forEach(d => { d.open = true; });
      await wait(50);
      const session = page.getElementById("session"), view = page.documentElement;
      return {
        text: session.innerText, traces: session.querySelectorAll("details.trace").length,
        calls: session.querySelectorAll(".trace .call").length,
        overflowing: [...page.querySelectorAll("#figures *, #session *")]
          .filter(e => e.getBoundingClientRect().right > view.clientWidth + 1)
          .slice(0, 5).map(e => e.tagName + "." + e.className + ": " + (e.textContent || "").slice(0, 60)),
      };
    };
    out.figures = page.getElementById("figures").innerText;
    out.hostile = await open("HOSTILE_KEY");
    out.empty = await open("SHOWN_KEY");
    out.scripts = page.querySelectorAll("script").length;
    out.injected = [...page.querySelectorAll("img, iframe, object, embed, [onerror], [onload]")].map(e => e.outerHTML.slice(0, 80));
    out.pwned = window.pwned || win.pwned || null;
  } catch (error) { out.error = String(error && error.stack || error); }
  document.getElementById("result").textContent = JSON.stringify(out);
});
</script></body></html>"""


def test_traces_in_chromium_and_a_screenshot(traced, need_chromium, tmp_path):
    """In a browser at 1280 px: each traced turn has its trace (opened: each call with its result), the run's
    tokens and tool calls among the figures, hostile text as text, nothing overflowing; a screenshot of the
    session with the empty lookups, its traces open, in /tmp/trace_view.png."""
    folder, ids, sessions, data, _, _ = traced
    height = 2600
    harness = tmp_path / "harness.html"
    filled = HARNESS.replace("VIEW", (folder / "page.html").as_uri()).replace("WIDTH", str(WIDTH))
    filled = filled.replace("HEIGHT", str(height)).replace("HOSTILE_KEY", ids["hostile"] + "~0")
    harness.write_text(filled.replace("SHOWN_KEY", ids["empty"] + "~0"), encoding="utf-8")
    dom = run_chromium(need_chromium, tmp_path, f"--window-size={WIDTH},{height}", "--virtual-time-budget=20000",
                    "--dump-dom", harness.as_uri())  # fmt: skip
    found = re.search(r'<pre id="result" style="display:none">(.*?)</pre>', dom, re.S)
    assert found and found.group(1), dom[-2000:]
    shown = json.loads(html.unescape(found.group(1)))
    assert "error" not in shown, shown["error"]
    assert shown["pwned"] is None and shown["injected"] == [] and shown["scripts"] == 2
    system_turns = [t for t in sessions[ids["empty"]]["turns"] if t["speaker"] == "system"]
    assert shown["empty"]["traces"] == len(system_turns) and shown["empty"]["calls"] == len(system_turns) + 2
    text = shown["empty"]["text"]
    assert "find_venues restaurant " in text and "\u2192 0 venues" in text and "finish: length" in text
    assert "\u26a0 length_cut" in text and "tokens system " in text
    hostile = shown["hostile"]["text"]
    assert "</script><script>parent.pwned = 1</script>" in hostile and "\u241b[31mred" in hostile
    assert "trace cut: " in hostile and "trace version 99" in hostile
    tokens = data["runs"][0]["tokens"]["system"]
    assert f"system {tokens[0]:,} prompt + {tokens[1]:,} completion" in shown["figures"]
    assert "Tool calls" in shown["figures"] and "length_cut \u00d7 1" in shown["figures"]
    assert shown["empty"]["overflowing"] == [] and shown["hostile"]["overflowing"] == []
    picture = Path("/tmp/trace_view.png")
    run_chromium(need_chromium, tmp_path, f"--window-size={WIDTH},{height}", "--virtual-time-budget=20000",
              f"--screenshot={picture}", harness.as_uri())  # fmt: skip
    assert picture.stat().st_size > 10_000
