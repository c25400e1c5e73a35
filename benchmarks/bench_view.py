"""The page of ``mwz view`` for a large run: its size, how long ``mwz view`` takes, and how long the page
takes to show in headless Chromium, its controls used as in tests/viewer/test_view.py.

Usage: python benchmarks/bench_view.py [--goals 1000] [--trials 8] [--system oracle-lex] [--out DIR]

The run: every goal played ``--trials`` times, each trial with its own seed, written as one session file
whose sessions are named ``goal#trial`` with their ``trial`` (the form of ``mwz interact --trials``).
MWZ_MIRROR must hold the data (default: ../shared/data/mirror-synth22).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def make_run(path: Path, system: str, goals: int, trials: int) -> None:
    """One session file of ``goals`` x ``trials`` sessions (seed = trial)."""
    from mwz_metrics.interactive.harness import api
    from mwz_metrics.interactive.harness.context import InteractiveContext
    from mwz_metrics.interactive.harness.sessions import SessionWriter

    context = InteractiveContext()
    writer = None
    for trial in range(trials):
        run = api.prepare(system, goals=goals, seed=trial, context=context)
        if writer is None:
            writer = SessionWriter(path, {**run.config, "trials": trials}, append=False)
        for session in api.run_sessions(run, output=None, jobs=2):
            writer.write({**session, "id": f"{session['id']}#{trial}", "trial": trial})
    assert writer is not None
    writer.close()


def load_times(browser: str, page: Path, repeat: int) -> list[float]:
    """Milliseconds from navigation to the table drawn (the page's own data-ready-ms), each in a fresh
    browser profile."""
    times = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as profile:
            dom = subprocess.run(
                [
                    browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    f"--user-data-dir={profile}", "--window-size=1280,900", "--dump-dom", page.as_uri(),
                ],
                capture_output=True, text=True, timeout=300, check=True,
            ).stdout  # fmt: skip
        marker = 'data-ready-ms="'
        times.append(float(dom[dom.index(marker) + len(marker) :].split('"', 1)[0]))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--goals", type=int, default=1000)
    parser.add_argument("--trials", type=int, default=8)
    parser.add_argument("--system", default="oracle-lex")
    parser.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "mwz-bench-view"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("MWZ_MIRROR", str(ROOT.parent / "shared/data/mirror-synth22"))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    run = out / f"{args.system}-{args.goals}x{args.trials}.jsonl"
    if not run.exists():
        started = time.perf_counter()
        make_run(run, args.system, args.goals, args.trials)
        print(f"ran {args.goals} x {args.trials} sessions in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    page = out / "view.html"
    started = time.perf_counter()
    mwz = str(Path(sys.executable).parent / "mwz")
    subprocess.run([mwz, "-q", "view", str(run), "-o", str(page)], check=True, stdout=subprocess.DEVNULL)
    report: dict = {
        "sessions": sum(1 for _ in run.open()) - 1,
        "session_file_mb": round(run.stat().st_size / 1e6, 1),
        "page_mb": round(page.stat().st_size / 1e6, 1),
        "mwz_view_s": round(time.perf_counter() - started, 1),
    }
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser:
        times = load_times(browser, page, args.repeat)
        report["load_ms"] = {"median": statistics.median(times), "all": times}
        sys.path.insert(0, str(ROOT / "tests"))
        from test_view import drive  # the browser test's own driver: real events on the page's controls

        with tempfile.TemporaryDirectory() as folder:
            started = time.perf_counter()
            shown = drive(browser, page, Path(folder), [("f-domain", "hotel"), ("f-outcome", "success-no")], "sng0073")
            report["driven_s"] = round(time.perf_counter() - started, 1)
        report["rows"] = {"all": shown["all"][1], **{k: v[1] for k, v in shown["filtered"].items()}}
        report["search sng0073"] = shown["searched"][1]
        report["opened"], report["overflowing"] = shown["opened_key"], shown["overflowing"]
        report["page_width"] = shown["page_width"]
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
