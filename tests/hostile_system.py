"""A local HTTP system that misbehaves on purpose, for the robustness tests of ``mwz interact``:
real sockets on 127.0.0.1, every loop bounded in time, the server stopped by the test (or by itself
after ``lifetime`` seconds).

``plan(request) -> behaviour`` chooses what each request gets (see :data:`BEHAVIOURS`); ``answer``
gives the well-formed turn (by default a polite apology). What each behaviour sends:
"""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

BEHAVIOURS = {
    "ok": "the answer",
    "surrogate": "a response holding a lone surrogate (JSON escape \\ud800)",
    "separators": "a response holding U+2028, U+2029 and U+0085, raw UTF-8",
    "drip": "the answer, one byte every 0.5 s (headers at once)",
    "huge": "a 5 MB body (a response of 5 million characters)",
    "long": "a response of 20,000 characters (a body under the size limit)",
    "cut": "half the body announced, then the connection closed",
    "not_json": "a body that is not JSON",
    "list": "JSON that is not an object",
    "status_500": "HTTP 500",
    "hang": "nothing, until the client gives up (20 s at most)",
    "escapes": "a response holding ANSI escapes and a NUL",
    "deep": "JSON nested 100,000 deep",
}


class _Server(http.server.ThreadingHTTPServer):
    request_queue_size = 128  # -j 16 connects at once: no connection refused by the listen backlog
    daemon_threads = True


POLITE = {"response": "i am sorry , i can not help with that .", "state": {}, "active_domains": []}


class HostileSystem:
    """Serves the system protocol on ``url``, misbehaving as ``plan`` says (a context manager)."""

    def __init__(
        self,
        plan: Callable[[dict[str, Any]], str],
        answer: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        *,
        lifetime: float = 300.0,
    ) -> None:
        self.requests: list[tuple[str, int, str, float]] = []  # (dialogue, turn, behaviour, time.monotonic())
        self.seen: list[tuple[str, str | None]] = []  # each request's path and Authorization header
        self.lock = threading.Lock()
        hostile = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (the http.server name)
                request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                behaviour = plan(request)
                with hostile.lock:
                    hostile.requests.append((request["dialogue_id"], request["turn"], behaviour, time.monotonic()))
                    hostile.seen.append((self.path, self.headers.get("Authorization")))
                good = (answer or (lambda r: POLITE))(request)
                getattr(hostile, "_" + behaviour)(self, good)

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.handle_error = lambda request, address: None  # type: ignore[method-assign]  # a client gone
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/respond"
        self.lifetime = lifetime

    def __enter__(self) -> HostileSystem:
        # polled every 50 ms, not 0.5 s: shutdown() waits for the next poll, at every stop of a stub
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self._stop = threading.Timer(self.lifetime, self.server.shutdown)
        self._stop.daemon = True
        self._stop.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.cancel()
        self.server.shutdown()
        self.server.server_close()

    # -- behaviours ----------------------------------------------------------------------------

    @staticmethod
    def _send(handler: Any, body: bytes, status: int = 200, length: int | None = None) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body) if length is None else length))
        handler.end_headers()
        handler.wfile.write(body)

    def _ok(self, handler: Any, good: dict[str, Any]) -> None:
        self._send(handler, json.dumps(good).encode())

    def _surrogate(self, handler: Any, good: dict[str, Any]) -> None:
        self._send(handler, json.dumps({**good, "response": "caf\ud800 " + good["response"]}).encode())

    def _separators(self, handler: Any, good: dict[str, Any]) -> None:
        text = "a\u2028b\u2029c\x85 " + good["response"]
        self._send(handler, json.dumps({**good, "response": text}, ensure_ascii=False).encode("utf-8"))

    def _escapes(self, handler: Any, good: dict[str, Any]) -> None:
        self._send(handler, json.dumps({**good, "response": "\x1b[2J\x1b[31mred\x00 " + good["response"]}).encode())

    def _drip(self, handler: Any, good: dict[str, Any]) -> None:
        body = json.dumps(good).encode()
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        deadline = time.monotonic() + 30
        for byte in body:
            if time.monotonic() > deadline:
                return
            try:
                handler.wfile.write(bytes([byte]))
                handler.wfile.flush()
            except OSError:
                return
            time.sleep(0.5)

    def _huge(self, handler: Any, good: dict[str, Any]) -> None:
        body = json.dumps({**good, "response": "x" * 5_000_000}).encode()
        try:
            self._send(handler, body)
        except OSError:
            pass

    def _long(self, handler: Any, good: dict[str, Any]) -> None:
        self._send(handler, json.dumps({**good, "response": "word " * 4000}).encode())

    def _cut(self, handler: Any, good: dict[str, Any]) -> None:
        body = json.dumps(good).encode()
        self._send(handler, body[: len(body) // 2], length=len(body))
        handler.wfile.flush()
        handler.connection.shutdown(socket.SHUT_RDWR)
        handler.close_connection = True

    def _not_json(self, handler: Any, good: dict[str, Any]) -> None:
        self._send(handler, b"<html>busy</html>")

    def _list(self, handler: Any, good: dict[str, Any]) -> None:
        self._send(handler, b"[1, 2, 3]")

    def _status_500(self, handler: Any, good: dict[str, Any]) -> None:
        self._send(handler, b"{}", status=500)

    def _hang(self, handler: Any, good: dict[str, Any]) -> None:
        handler.connection.settimeout(20)
        try:
            handler.connection.recv(1)  # returns when the client closes, or after 20 s
        except OSError:
            pass
        handler.close_connection = True

    def _deep(self, handler: Any, good: dict[str, Any]) -> None:
        self._send(handler, b"[" * 100_000 + b"]" * 100_000)


class HostileChat:
    """An OpenAI-compatible chat endpoint on 127.0.0.1 answering as ``reply(body, path)`` says: a
    ``(status, headers, body bytes)``; every request's path, ``Authorization`` header and body kept
    in ``requests`` (a context manager, stopped after ``lifetime`` seconds at most)."""

    def __init__(
        self, reply: Callable[[dict[str, Any], str], tuple[int, dict[str, str], bytes]], *, lifetime: float = 300.0
    ):
        self.requests: list[dict[str, Any]] = []
        chat = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 (a redirect a client turned into a GET: kept, refused)
                chat.requests.append({"path": self.path, "authorization": self.headers.get("Authorization")})
                self.send_error(405)

            def do_POST(self) -> None:  # noqa: N802 (the http.server name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                chat.requests.append(
                    {"path": self.path, "authorization": self.headers.get("Authorization"), "body": body}
                )
                status, headers, data = reply(body, self.path)
                if status == 0:  # hang until the client gives up (10 s at most)
                    self.connection.settimeout(10)
                    try:
                        self.connection.recv(1)
                    except OSError:
                        pass
                    return
                self.send_response(status)
                for name, value in {"Content-Type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.handle_error = lambda request, address: None  # type: ignore[method-assign]
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.lifetime = lifetime

    __enter__ = HostileSystem.__enter__  # type: ignore[assignment]
    __exit__ = HostileSystem.__exit__


def completion(message: dict[str, Any], usage: dict[str, int] | None = None) -> tuple[int, dict[str, str], bytes]:
    """A chat completion answering ``message`` (with ``usage``, if given)."""
    data: dict[str, Any] = {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    if usage:
        data["usage"] = usage
    return 200, {}, json.dumps(data).encode()


def tool_call(name: str, arguments: Any, index: int = 0) -> dict[str, Any]:
    """One tool call (``arguments`` JSON-encoded where it is not text already)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": f"call_{index}", "type": "function", "function": {"name": name, "arguments": text}}


BAD = (
    "surrogate",
    "separators",
    "escapes",
    "drip",
    "hang",
    "huge",
    "long",
    "not_json",
    "list",
    "deep",
    "cut",
    "status_500",
)
# How a session ends after each bad answer (None: it goes on); cut and status_500 are bad on a turn's first try only.
ENDS = {
    "surrogate": None,
    "separators": None,
    "escapes": None,
    "drip": "system_timeout",
    "hang": "system_timeout",
    "huge": "malformed_response",
    "long": "malformed_response",
    "not_json": "malformed_response",
    "list": "malformed_response",
    "deep": "malformed_response",
    "cut": None,
    "status_500": None,
}


class MixedPlan:
    """One system turn in ``every`` misbehaves, chosen by a hash of dialogue and turn (so a rerun gets
    the same turns), with the bad answers of :data:`BAD` in turn: by the hash, or (``each_kind``) in the
    order the bad turns are first asked, so that any twelve of them meet every kind; ``cut`` and
    ``status_500`` on a turn's first try only (the retry passes)."""

    def __init__(self, every: int = 8, *, each_kind: bool = False) -> None:
        self.every = every
        self.each_kind = each_kind
        self.tries: dict[str, int] = {}
        self.kinds: dict[str, str | None] = {}  # a turn's bad answer, fixed at its first try
        self.lock = threading.Lock()

    def bad(self, dialogue_id: str, turn: int) -> str | None:
        """The bad answer of a turn (None: a good one)."""
        import hashlib

        digest = int(hashlib.sha256(f"{dialogue_id}:{turn}".encode()).hexdigest(), 16)
        if digest % self.every:
            return None
        if self.each_kind:
            return BAD[sum(kind is not None for kind in self.kinds.values()) % len(BAD)]
        return BAD[(digest // self.every) % len(BAD)]

    def __call__(self, request: dict[str, Any]) -> str:
        key = f"{request['dialogue_id']}:{request['turn']}"
        with self.lock:
            self.tries[key] = attempt = self.tries.get(key, 0) + 1
            if key not in self.kinds:
                self.kinds[key] = self.bad(request["dialogue_id"], request["turn"])
            bad = self.kinds[key]
        if bad is None or (bad in ("cut", "status_500") and attempt > 1):
            return "ok"
        return bad
