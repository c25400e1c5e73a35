"""Interactive evaluation as a user runs it: ``python benchmarks/bench_interactive.py``.

Times whole ``mwz interact`` processes on the 1000 MultiWOZ 2.1 test goals with the ``agenda``
user: against ``oracle`` (the simulator reads the system's acts) and ``oracle-text`` (it reads
the text with the system-act reader). The first run builds the derived data (templates, the
reader's model, the goals: "cold", a fresh cache); the others reuse it ("warm", the median of
``--repeats``). Then an HTTP system that takes 20 ms a turn (the oracle behind a local server,
standing in for a model) on 200 goals, one session at a time and eight at once (``-j 8``).
The goals: 1000 goals in <= 60 s (acts) and <= 120 s (text) on a 2-core CPU. No reference
implementation runs beside it: ConvLab's interactive evaluation needs its own trained models
and is not installable offline here.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from whole_process import mwz_command, shared_root, timed

_SERVER = textwrap.dedent(
    """
    import http.server, json, sys, time
    from mwz_metrics.interactive.harness.context import InteractiveContext
    from mwz_metrics.interactive.systems.reference import OracleSystem
    oracle = OracleSystem(InteractiveContext())
    oracle.respond({"dialogue_id": "warm", "turn": 0, "history": []})
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args): pass
        def do_POST(self):
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            time.sleep(0.02)
            body = json.dumps(oracle.respond(request)).encode()
            self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers()
            self.wfile.write(body)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    print("ready", flush=True)
    server.serve_forever()
    """
)


def _http(env: dict[str, str], goals: int, jobs: int, folder: Path) -> float:
    port = 8765
    server = subprocess.Popen([sys.executable, "-c", _SERVER, str(port)], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        out = folder / f"http-{jobs}.jsonl"
        command = mwz_command(
            "interact", "--system", f"http://127.0.0.1:{port}/", "--user-acts", "--goals", str(goals), "-j", str(jobs)
        )
        return timed([*command, "-o", str(out)], env)
    finally:
        server.terminate()
        server.wait()


def main(argv=None) -> int:
    """Print cold and warm times of 1000 goals at act and text level, and HTTP with and without -j."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="warm runs per system (median)")
    parser.add_argument("--http-goals", type=int, default=200)
    args = parser.parse_args(argv)
    shared = shared_root()
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        env = {**os.environ, "MWZ_MIRROR": str(shared / "data" / "mirror"), "MWZ_CACHE": str(folder / "cache")}
        for system, goal in (("oracle", 60), ("oracle-text", 120)):
            command = mwz_command("interact", "--system", system, "-o", str(folder / f"{system}.jsonl"))
            cold = timed(command, env) if system == "oracle" else None
            warm = [timed(command, env) for _ in range(args.repeats)]
            cold_text = f"cold (fresh cache) {cold:.1f} s, " if cold is not None else ""
            print(
                f"mwz interact --system {system}, 1000 goals: {cold_text}warm median {statistics.median(warm):.1f} s "
                f"({', '.join(f'{w:.1f}' for w in warm)}; goal {goal} s)"
            )
        started = time.perf_counter()
        one = _http(env, args.http_goals, 1, folder)
        eight = _http(env, args.http_goals, 8, folder)
        print(
            f"HTTP system (20 ms a turn), {args.http_goals} goals: -j 1 {one:.1f} s, -j 8 {eight:.1f} s "
            f"({one / eight:.1f}x); {time.perf_counter() - started:.0f} s with the servers"
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
