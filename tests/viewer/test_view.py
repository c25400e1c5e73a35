"""``mwz view`` in a real browser (headless Chromium): filters change the rows, a session opens beside
the other run's, nothing overflows at 1280 px, and hostile text stays text (issue 43, item 1)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_chromium

MWZ = str(Path(sys.executable).parent / "mwz")  # the console script
WIDTH = 1280

# Runs in the page's own window (same origin with --allow-file-access-from-files): real events on the
# controls, then what the page shows, as JSON in <pre id="result">.
HARNESS = """<!DOCTYPE html><html><body style="margin:0">
<iframe id="view" src="VIEW" style="border:0;width:WIDTHpx;height:900px"></iframe>
<pre id="result"></pre>
<script>
const frame = document.getElementById("view");
const wait = ms => new Promise(done => setTimeout(done, ms));
frame.addEventListener("load", async () => {
  const out = {};
  try {
    const page = frame.contentDocument, win = frame.contentWindow;
    await wait(50);
    const rows = () => page.querySelectorAll("#sessions tbody tr").length;
    const count = () => page.getElementById("count").textContent;
    const choose = async (id, value) => {
      const select = page.getElementById(id);
      select.value = value;
      select.dispatchEvent(new win.Event("change"));
      await wait(20);
    };
    out.ready_ms = Number(page.body.getAttribute("data-ready-ms"));
    for (const [id, value] of START) await choose(id, value);
    out.all = [rows(), count()];
    out.options = {};
    for (const id of ["f-domain", "f-outcome", "f-end", "f-giveup", "f-side"])
      out.options[id] = [...page.getElementById(id).options].map(o => o.value);
    out.filtered = {};
    for (const [id, value] of FILTERS) {
      await choose(id, value);
      out.filtered[id + "=" + value] = [rows(), count()];
      await choose(id, "");
    }
    const search = page.getElementById("f-search");
    search.value = "SEARCH";
    search.dispatchEvent(new win.Event("input"));
    await wait(400);
    out.searched = [rows(), count()];
    const first = page.querySelector("#sessions tbody tr");
    out.opened_key = first ? first.getAttribute("data-key") : null;
    if (first) first.click();
    await wait(50);
    const session = page.getElementById("session");
    out.session_hidden = session.hidden;
    out.columns = [...session.querySelectorAll(".column")].map(c => c.getAttribute("data-run"));
    out.turns = session.querySelectorAll(".turn").length;
    out.session_text = session.innerText.slice(0, 200000);
    out.figures_text = page.getElementById("figures").innerText;
    out.hash = win.location.hash;
    const view = page.documentElement;
    out.page_width = [view.scrollWidth, view.clientWidth];
    out.overflowing = [...page.querySelectorAll("#figures *, #session *, #filters *, header *")]
      .filter(e => e.getBoundingClientRect().right > view.clientWidth + 1)
      .slice(0, 5).map(e => e.tagName + "." + e.className + ": " + (e.textContent || "").slice(0, 60));
    out.scripts = page.querySelectorAll("script").length;
    out.injected = [...page.querySelectorAll("img, iframe, object, embed, [onerror], [onload]")].map(e => e.outerHTML.slice(0, 80));
    out.pwned = window.pwned || win.pwned || null;
  } catch (error) { out.error = String(error && error.stack || error); }
  document.getElementById("result").textContent = JSON.stringify(out);
});
</script></body></html>"""


def drive(
    browser: str, page: Path, folder: Path, filters: list[tuple[str, str]], search: str, start: tuple = ()
) -> dict:
    """Load ``page`` at 1280 px, choose ``start`` (kept), then each of ``filters`` alone, search, open the
    first row; say what it showed."""
    harness = folder / "harness.html"
    text = HARNESS.replace("VIEW", page.as_uri()).replace("WIDTH", str(WIDTH)).replace("START", json.dumps(start))
    harness.write_text(text.replace("FILTERS", json.dumps(filters)).replace("SEARCH", search))
    dom = run_chromium(
        browser, folder, "--window-size=1300,1000", "--virtual-time-budget=60000", "--dump-dom", harness.as_uri()
    )
    found = re.search(r'<pre id="result">(.*?)</pre>', dom, re.S)
    assert found and found.group(1), dom[-2000:]
    import html

    return json.loads(html.unescape(found.group(1)))


def screenshot(browser: str, url: str, path: Path, height: int = 1600) -> Path:
    run_chromium(
        browser,
        path.parent,
        f"--window-size={WIDTH},{height}",
        "--virtual-time-budget=20000",
        f"--screenshot={path}",
        url,
    )
    assert path.stat().st_size > 10_000
    return path


def _mwz(synth22, *argv: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "MWZ_MIRROR": str(synth22)}
    ran = subprocess.run([MWZ, "-q", *argv], env=environment, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr
    return ran


HOSTILE = (
    '</script><script>parent.pwned = 1</script><img src=x onerror="parent.pwned = 2">'
    "\"quotes' & <b>bold</b> \x1b[31mred\x1b[0m \u202eevil\u202c \udc80 "
)


def _hostile(session: dict) -> dict:
    """A session whose system sent hostile text everywhere it could."""
    session = json.loads(json.dumps(session))
    for turn in session["turns"]:
        if turn["speaker"] == "system":
            turn["text"] = HOSTILE + turn["text"]
            turn["acts"] = [["inform", "restaurant", "name", HOSTILE]]
            turn["state"] = {"restaurant": {"name": HOSTILE}}
    session["turns"][1]["text"] = HOSTILE + "x" * 3_000_000  # megabytes in one answer
    session["end"] = {"reason": "system_error", "detail": HOSTILE}
    return session


@pytest.fixture(scope="module")
def runs(synth22, synth22_context, tmp_path_factory):
    """Two runs of the same 40 goals (oracle-text, echo); the echo run's first session hostile."""
    folder = tmp_path_factory.mktemp("view")
    text, echo = folder / "oracle-text.jsonl", folder / "echo.jsonl"
    _mwz(synth22, "interact", "--system", "oracle-text", "--goals", "40", "-o", str(text), "--resamples", "50")
    _mwz(synth22, "interact", "--system", "echo", "--goals", "40", "-o", str(echo), "--resamples", "50")
    header, first, *rest = echo.read_text(encoding="utf-8").splitlines()
    config = json.loads(header)
    config["run"]["system"]["name"] = HOSTILE
    lines = [json.dumps(config), json.dumps(_hostile(json.loads(first))), *rest]
    echo.write_text("\n".join(lines) + "\n", encoding="utf-8")
    page = folder / "view.html"
    _mwz(synth22, "view", str(text), str(echo), "-o", str(page), "--resamples", "50")
    read = [[json.loads(line) for line in path.read_text().splitlines()[1:]] for path in (text, echo)]
    return folder, page, *read


def test_the_page_is_one_file_with_its_data_escaped(runs):
    _, page, _, _ = runs
    html_text = page.read_text(encoding="utf-8")
    assert html_text.count("<script") == 2 and html_text.count("</script>") == 2  # the data's own cannot close it
    assert "pwned" in html_text and "<img src=x" not in html_text
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html_text)  # nothing loaded from anywhere
    assert "default-src 'none'" in html_text
    assert page.stat().st_size < 2_000_000  # the 3 MB answer cut to what a reader reads


def test_filters_a_session_side_by_side_and_no_overflow_in_chromium(runs, need_chromium):
    browser = need_chromium
    folder, page, sessions, echoed = runs
    hotel = sum(1 for s in sessions if any(d["domain"] == "hotel" for d in s["goal"]["domains"]))
    # the echo run (its first session hostile, ended system_error), beside oracle-text's
    succeeded = [s["id"] for s in echoed[1:] if s["outcome"]["success"] == 1.0]
    gave_up = sum(
        1
        for s in echoed[1:]
        if s["outcome"]["domains"] and any(d.get("given_up") for d in s["outcome"]["domains"].values())
    )
    hotel_gave_up = sum(1 for s in echoed[1:] if (s["outcome"]["domains"].get("hotel") or {}).get("given_up"))
    filters = [
        ("f-domain", "hotel"), ("f-outcome", "success-no"), ("f-outcome", "success-yes"), ("f-outcome", "differs"),
        ("f-side", "system"), ("f-side", "none"), ("f-end", "system_error"), ("f-giveup", "*"),
        ("f-giveup", "hotel: no offer"),
    ]  # fmt: skip
    shown = drive(browser, page, folder, filters, sessions[3]["id"], start=(("f-run", "1"), ("f-other", "0")))
    assert "error" not in shown, shown.get("error")
    assert shown["all"][0] == 40 and shown["all"][1] == "40 of 40 sessions match"
    filtered = {key: value[0] for key, value in shown["filtered"].items()}
    assert filtered["f-domain=hotel"] == hotel < 40
    assert filtered["f-outcome=success-yes"] == len(succeeded) >= 1
    assert filtered["f-outcome=success-no"] == 40 - len(succeeded)
    assert filtered["f-outcome=differs"] == 40 - len(succeeded)  # oracle-text succeeds in every one
    assert filtered["f-side=system"] == 40 - len(succeeded) and filtered["f-side=none"] == 0  # echo gave nothing
    assert filtered["f-end=system_error"] == 1
    assert filtered["f-giveup=*"] == gave_up + 1 and filtered["f-giveup=hotel: no offer"] == hotel_gave_up
    assert shown["searched"][0] == 1 and shown["opened_key"] == sessions[3]["id"] + "~0"
    assert not shown["session_hidden"] and shown["columns"] == ["echo.jsonl", "oracle-text.jsonl"]
    assert shown["turns"] == len(sessions[3]["turns"]) + len(echoed[3]["turns"])
    assert "as mwzeval read it: " in shown["session_text"] and "[value_" in shown["session_text"]  # echo delexicalized
    assert "open=" in shown["hash"]
    assert shown["page_width"][0] <= shown["page_width"][1] == WIDTH and shown["overflowing"] == []


def test_a_link_opens_a_session_with_or_without_its_trial_or_says_none_matched(synth22, runs, tmp_path, need_chromium):
    """``#open=GOAL~TRIAL`` opens that session; ``#open=GOAL`` (no trial) opens trial 0; a goal no run holds
    says so in place of the session (was: nothing opened, nothing said). A page of the oracle-text run alone:
    Chromium's --dump-dom crashes on the hostile run's page."""
    browser = need_chromium
    folder, _, sessions, _ = runs
    page = tmp_path / "one.html"
    _mwz(synth22, "view", str(folder / "oracle-text.jsonl"), "-o", str(page), "--resamples", "50")
    goal = sessions[2]["id"]
    for address in (f"#open={goal}~0", f"#open={goal}"):
        dom = run_chromium(browser, tmp_path, "--virtual-time-budget=5000", "--dump-dom", page.as_uri() + address)
        assert f"<h2>Session {goal}</h2>" in dom, address
    dom = run_chromium(browser, tmp_path, "--virtual-time-budget=5000", "--dump-dom", page.as_uri() + "#open=nosuch")
    assert "No session nosuch in oracle-text.jsonl" in dom and "<h2>Session" not in dom


def test_hostile_text_stays_text_in_chromium(runs, need_chromium):
    browser = need_chromium
    folder, page, sessions, _ = runs
    # the hostile session is the echo run's first: shown beside oracle-text's session of the same goal
    shown = drive(browser, page, folder, [("f-end", "system_error")], sessions[0]["id"])
    assert "error" not in shown, shown.get("error")
    assert shown["filtered"]["f-end=system_error"][0] == 0  # oracle-text's run is shown: none of its ended so
    assert shown["pwned"] is None and shown["injected"] == [] and shown["scripts"] == 2
    text = shown["session_text"]
    assert "</script><script>parent.pwned = 1</script>" in text and '<img src=x onerror="parent.pwned = 2">' in text
    assert "\u241b[31mred" in text and "U+202E" in text  # escapes and direction overrides shown, not obeyed
    assert "more characters not shown]" in text
    assert HOSTILE.split("\x1b")[0] in shown["figures_text"]  # the system's name, as text
    assert shown["page_width"][0] <= WIDTH and shown["overflowing"] == []


def test_screenshots_of_the_page(runs, tmp_path, need_chromium):
    browser = need_chromium
    folder, page, sessions, _ = runs
    keep = Path(os.environ.get("MWZ_VIEW_SCREENSHOTS", tmp_path))
    keep.mkdir(parents=True, exist_ok=True)
    screenshot(browser, page.as_uri() + "#run=1&other=0&outcome=success-no", keep / "view-table.png", 1400)
    screenshot(browser, page.as_uri() + f"#other=1&open={sessions[0]['id']}~0", keep / "view-session-hostile.png", 2600)


def test_compare_html_links_each_interactive_run_to_its_view(synth22, runs):
    folder, _, _, _ = runs
    report = folder / "report.html"
    text, echo = folder / "oracle-text.jsonl", folder / "echo.jsonl"
    _mwz(synth22, "compare", "-i", f"text={text}", "-i", f"echo={echo}", "--format", "html", "-o", str(report))
    written = report.read_text(encoding="utf-8")
    assert '<a href="report.view.html#run=0">text</a>, <a href="report.view.html#run=1">echo</a>' in written
    page = (folder / "report.view.html").read_text(encoding="utf-8")
    assert '"name":"oracle-text.jsonl"' in page and '"name":"echo.jsonl"' in page
    _mwz(synth22, "compare", "-i", str(text), "--format", "html", "-o", str(folder / "plain.html"), "--no-views")
    assert "report.view" not in (folder / "plain.html").read_text() and not (folder / "plain.view.html").exists()


def test_a_run_of_trials_shows_pass_hat_k_as_interact_reports_it(
    synth22_env, synth22_context, tmp_path, capsys, need_chromium
):
    """A run of ``--trials 2`` beside a run of one trial: pass^k, the goals solved in every trial and in none
    and the trials per goal among the figures, the numbers of ``interact --score-only`` (was: none of them);
    in Chromium each run's figures in its own column (the run of one trial: n/a)."""
    from conftest import run_cli

    from mwz_metrics.interactive.harness import api
    from mwz_metrics.interactive.protocol import as_system

    trials, single, page = tmp_path / "trials.jsonl", tmp_path / "single.jsonl", tmp_path / "view.html"
    goals, per_goal = 4, 2
    run = api.prepare("oracle", goals=goals, trials=per_goal, context=synth22_context)
    oracle, helpless = run.system, {g.dialogue_id for g in run.goals[:2]}  # trial 0 of two goals: no help
    run.system = as_system(
        lambda r: (
            {"response": "Sorry, I cannot help."}
            if r["dialogue_id"] in helpless and not r["trial"]
            else oracle.respond(r)
        )
    )
    api.run_sessions(run, output=trials)
    header, *lines = trials.read_text().splitlines()
    trials.write_text("\n".join([header, *reversed(lines)]) + "\n")  # as -j may finish them: read in goal order
    api.run_sessions(api.prepare("echo", goals=4, context=synth22_context), output=single)
    code, out, err = run_cli(capsys, "interact", "--score-only", "-i", str(trials), "--json", "--resamples", "50")
    assert code == 0, err
    reported = json.loads(out)["trials"]
    assert run_cli(capsys, "view", str(single), str(trials), "-o", str(page), "--resamples", "50")[0] == 0
    text = page.read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script id="data" type="application/json">(.*?)</script>', text, re.S).group(1))
    shown = {label: [value, interval] for label, value, interval in data["runs"][1]["figures"]}
    assert shown["pass^1"] == [reported["pass_hat_k"]["1"], reported["ci95"]["pass_hat_1"]]
    # the helpless goals fail their first trial only
    pass_1, pass_2 = (
        100 * (goals * per_goal - len(helpless)) / (goals * per_goal),
        100 * (goals - len(helpless)) / goals,
    )
    assert shown["pass^2"] == [pass_2, reported["ci95"]["pass_hat_2"]] and reported["pass_hat_k"]["1"] == pass_1
    assert shown["solved no trial"] == [0.0, reported["ci95"]["no_trial"]]
    assert data["runs"][1]["trials"] == {"per_goal": per_goal, "goals": goals, "definition": reported["definition"]}
    ids = [json.loads(line)["id"] for line in lines]
    assert [s["id"] for s in data["runs"][1]["sessions"]] == ids != [*reversed(ids)]  # goal order, not the file's
    assert data["runs"][0]["trials"] is None and "pass^1" not in {f[0] for f in data["runs"][0]["figures"]}
    dom = run_chromium(need_chromium, tmp_path, "--virtual-time-budget=10000", "--dump-dom", page.as_uri())
    row = re.search(r"<tr><th>pass\^2</th>(.*?)</tr>", dom).group(1)
    assert re.findall(r'<td class="num">(.*?)(?:<span|</td>)', row) == ["n/a", f"{pass_2:.1f}"]
    assert "<tr><th>Trials</th><td>1 per goal</td><td>2 per goal, 4 goals</td></tr>" in dom
