"""A system behind HTTP, for `mwz interact --system http://127.0.0.1:8080/ -j 8` (standard library only).

    python examples/http_system.py 8080            # serves examples/toy_system.py's system
    python examples/http_system.py 8080 my_module:make   # my_module.py in the current folder

Each request is POSTed as JSON (the dialogue id, the turn, the history) and the turn is read back as
JSON. Sessions arrive concurrently with `-j`: keep per-session state, if any, under the dialogue id.
"""

import importlib
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def serve(system, port: int) -> None:
    """Answer POSTed requests with ``system.respond`` until interrupted."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (the name http.server calls)
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            body = json.dumps(system.respond(request)).encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):  # quiet: one line per request is too many
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"serving on http://127.0.0.1:{server.server_address[1]}/", flush=True)
    server.serve_forever()


def load(spec: str):
    """``module:factory`` imported from the current folder first (as ``mwz interact --system`` does),
    then beside this file (``toy_system``), then the installed packages."""
    module, _, factory = spec.partition(":")
    sys.path.insert(0, os.getcwd())
    try:
        return getattr(importlib.import_module(module), factory or "make")
    except (ImportError, AttributeError) as error:
        sys.exit(f"http_system.py: cannot load {spec!r} from {os.getcwd()} or the installed packages ({error})")


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8080
    serve(load(sys.argv[2] if len(sys.argv) > 2 else "toy_system:make")(), port)
