"""A local OpenAI-compatible chat server that scripts an LLM agent's tool calls and replies, for the ``llm``
system's tests: real HTTP, real tool-call messages, no model.

``user``: a user for the ``llm`` simulator (its goal's first message, then goodbye). ``good``: the oracle's policy (it reads the user's acts, which ``--user-acts`` puts in the user's
message): it first calls ``find_venues`` with the oracle's constraints and ``book`` where the oracle
books, then answers with the oracle's words, their values written in (references, cars and phones
from the tool results). ``bad``: never calls a tool and never helps. ``looping``: calls ``find_venues``
every time, even after ``tool_choice: "none"``.

What real endpoints do, each chosen per test (:class:`ChatStub`'s keywords): ``dress`` writes the tool
calls as text instead of ``tool_calls`` (``json``: ``{"name", "arguments"}``, a list of them for several;
``fence``: the same in a ```json block after a few words; ``tool_call``: Hermes/Qwen ``<tool_call>``
blocks; ``functions``: ``functions.NAME:{...}`` lines; ``functions_call``: ``functions.NAME({...})``);
``empty_at``, ``cut_at``, ``cut_call_at``: the user turns (0, 1, ... in the session) whose words are
empty, whose words are cut in half (``finish_reason: "length"``), whose tool call is cut in half (its
arguments, or its text); ``needs_tool_choice``: the tools are dropped (the policy answers as ``bad``)
unless the request sends ``tool_choice``, as llama-cpp-python's ``chatml-function-calling`` does;
``preflight``: how the ``llm`` system's preflight question (:data:`~mwz_metrics.interactive.systems.llm.PREFLIGHT_QUESTION`)
is answered: ``call`` (a ``find_venues`` call in the stub's dress, whatever the policy: the default),
``structured`` (a ``tool_calls`` call even where the dress is text), ``words`` (no call).

Every answer reports ``usage`` (prompt tokens: 10 per message; completion tokens: 1 + a quarter of the
characters written) and is kept in ``log`` (the request's body, the message, its finish reason and usage).
"""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
import time
from collections.abc import Iterable
from typing import Any

from mwz_metrics.interactive.acts import Act, parse_acts
from mwz_metrics.interactive.systems.llm import PREFLIGHT_QUESTION
from mwz_metrics.interactive.systems.reference import OracleSystem, lexicalize

_TOOL_NAMES = {"leave": "leaveAt", "arrive": "arriveBy"}
_BOOK_SLOTS = ("people", "day", "time", "stay")
_VENUES = ("restaurant", "hotel", "attraction", "train")


class Policies:
    """The scripted agents (see the module docstring)."""

    def __init__(self, context: Any) -> None:
        self.oracle = OracleSystem(context, with_acts=True)
        self.calls = 0

    def bad(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """No tool, no help."""
        return {"role": "assistant", "content": "I am sorry, I cannot help you with that today."}

    def looping(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """A lookup every time, whatever ``tool_choice`` says."""
        call = _call("find_venues", {"domain": "hotel", "constraints": {"area": "north"}}, 0)
        return {"role": "assistant", "content": None, "tool_calls": [call]}

    def user(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """A user (the llm simulator's endpoint): the goal's first message, then goodbye."""
        said = sum(m["role"] == "assistant" for m in messages)
        goal = messages[0]["content"]
        wanted = next((line[2:] for line in goal.splitlines() if line.startswith("- You are looking for")), "")
        text = f"Hello. {wanted}." if said == 0 else "Thanks, that is all I need. Goodbye! [END]"
        return {"role": "assistant", "content": text}

    def good(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """The oracle behind tools (see the module docstring)."""
        history, since = _session(messages)
        first = next((t["text"] for t in history if t["speaker"] == "user"), "")
        request = {
            "dialogue_id": hashlib.sha256(first.encode()).hexdigest()[:8],
            "turn": sum(t["speaker"] == "user" for t in history) - 1,
            "history": history,
        }
        answer = self.oracle.respond(request)
        acts = parse_acts(answer["acts"])
        if not any(m["role"] == "tool" for m in since):  # its calls: structured or written as text
            calls = _tool_calls(answer, acts)
            if calls:
                self.calls += 1
                return {"role": "assistant", "content": None, "tool_calls": calls}
        results = [json.loads(m["content"]) for m in since if m["role"] == "tool"]
        return {"role": "assistant", "content": lexicalize(answer["response"], _with_tool_values(acts, results))}


def _session(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The session's turns as the oracle reads them, and the messages since the user's last turn."""
    history: list[dict[str, Any]] = []
    last_user = 0
    for index, message in enumerate(messages):
        if message["role"] == "user":
            text, _, acts = message["content"].partition("\n[user acts: ")
            history.append({"speaker": "user", "text": text, "acts": json.loads(acts[:-1]) if acts else None})
            last_user = index
        elif message["role"] == "assistant" and not message.get("tool_calls"):
            answered = index + 1 < len(messages) and messages[index + 1]["role"] == "tool"
            if not answered:  # words, not a call written as text
                history.append({"speaker": "system", "text": message.get("content") or ""})
    return history, messages[last_user + 1 :]


def _call(name: str, arguments: dict[str, Any], index: int) -> dict[str, Any]:
    return {"id": f"call_{index}", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def _tool_calls(answer: dict[str, Any], acts: list[Act]) -> list[dict[str, Any]]:
    """What an agent would look up and book before saying the oracle's answer."""
    domain = (answer.get("active_domains") or [None])[0]
    state = answer.get("state") or {}
    slots = state.get(domain, {})
    calls = []
    booking = _BOOK_SLOTS if domain != "train" else ("people",)  # a train's day is what it is looked up by
    constraints = {_TOOL_NAMES.get(k, k): v for k, v in slots.items() if k not in booking}
    if domain in _VENUES and constraints:
        calls.append(_call("find_venues", {"domain": domain, "constraints": constraints}, len(calls)))
    booked = [a for a in acts if a.intent in ("book", "offerbooked")]
    if domain in ("restaurant", "hotel", "train") and booked:
        name = next((a.value for a in acts if a.slot in ("name", "id") and a.value not in ("?", "none")), "")
        details = {k: v for k, v in slots.items() if k in _BOOK_SLOTS}  # a train: people (and its day)
        calls.append(_call("book", {"domain": domain, "name": name, **details}, len(calls)))
    if domain == "taxi" and any(a.slot in ("car", "phone") for a in acts):
        trip = {_TOOL_NAMES.get(k, k): v for k, v in slots.items()}
        calls.append(_call("book", {"domain": "taxi", **trip}, len(calls)))
    return calls


def _with_tool_values(acts: list[Act], results: list[dict[str, Any]]) -> list[Act]:
    """The oracle's acts with the reference, car and phone the tools gave."""
    given = {}
    for result in results:
        for key, slot in (("reference", "ref"), ("car", "car"), ("phone", "phone")):
            if result.get(key):
                given[slot] = str(result[key])
    taxi = any(a.domain == "taxi" for a in acts)
    return [
        Act(a.intent, a.domain, a.slot, given[a.slot]) if a.slot in given and (a.slot == "ref" or taxi) else a
        for a in acts
    ]


_PREFLIGHT_CALL = {"domain": "restaurant", "constraints": {"pricerange": "cheap", "area": "centre"}}
DRESSES = ("json", "fence", "tool_call", "functions", "functions_call")


def written(calls: list[dict[str, Any]], dress: str) -> str:
    """Tool calls written as text in ``dress`` (see the module docstring)."""
    parsed = [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls]
    objects = [{"name": name, "arguments": arguments} for name, arguments in parsed]
    whole = objects[0] if len(objects) == 1 else objects
    if dress == "json":
        return json.dumps(whole)
    if dress == "fence":
        return "Let me look that up.\n```json\n" + json.dumps(whole, indent=2) + "\n```"
    if dress == "tool_call":
        return "\n".join(f"<tool_call>\n{json.dumps(o)}\n</tool_call>" for o in objects)
    if dress == "functions":
        return "\n".join(f"functions.{name}:{json.dumps(arguments)}" for name, arguments in parsed)
    if dress == "functions_call":
        return "\n".join(f"functions.{name}({json.dumps(arguments)})" for name, arguments in parsed)
    raise ValueError(f"no dress {dress!r}")


def _usage(messages: list[dict[str, Any]], message: dict[str, Any]) -> dict[str, int]:
    said = message.get("content") or json.dumps(message.get("tool_calls") or "")
    return {"prompt_tokens": 10 * len(messages), "completion_tokens": 1 + len(said) // 4}


class ChatStub:
    """Serves ``/v1/chat/completions`` with one of the :class:`Policies` (as a context manager);
    ``fail_every``: every n-th request answered 503, once (its retry, the same body, is answered: which
    request a retry lands on depends on the other sessions' timing, so a retry never fails again);
    ``delay``: seconds before each answer; the real endpoints' behaviours: the module docstring."""

    def __init__(
        self,
        context: Any,
        policy: str,
        *,
        fail_every: int = 0,
        delay: float = 0.0,
        dress: str | None = None,
        empty_at: Iterable[int] = (),
        cut_at: Iterable[int] = (),
        cut_call_at: Iterable[int] = (),
        needs_tool_choice: bool = False,
        preflight: str = "call",
    ) -> None:
        assert dress is None or dress in DRESSES, dress
        assert preflight in ("call", "structured", "words"), preflight
        self.policies = Policies(context)
        answer = getattr(self.policies, policy)
        self.requests = 0
        self.log: list[dict[str, Any]] = []
        failed: set[str] = set()
        counting = threading.Lock()
        stub = self
        empty, cut, cut_call = set(empty_at), set(cut_at), set(cut_call_at)

        def reply(body: dict[str, Any]) -> tuple[dict[str, Any], str, bool]:
            """The message, its finish reason, and whether its calls were written as text."""
            messages = body["messages"]
            if policy == "user":
                return answer(messages), "stop", False
            tools = bool(body.get("tools")) and (not needs_tool_choice or "tool_choice" in body)
            if len(messages) == 2 and messages[-1]["content"] == PREFLIGHT_QUESTION:  # the llm system's preflight
                if preflight == "words" or not tools:
                    return {"role": "assistant", "content": "Which food would you like?"}, "stop", False
                message = {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [_call("find_venues", _PREFLIGHT_CALL, 0)],
                }
                if dress and preflight == "call":
                    return {"role": "assistant", "content": written(message["tool_calls"], dress)}, "stop", True
                return message, "tool_calls", False
            message = answer(messages) if tools else self.policies.bad(messages)
            turn = sum(m["role"] == "user" for m in messages) - 1
            if message.get("tool_calls"):
                finish = "tool_calls"
                if dress:
                    message, finish = {"role": "assistant", "content": written(message["tool_calls"], dress)}, "stop"
                if turn in cut_call:
                    if dress:
                        message["content"] = message["content"][: len(message["content"]) // 2]
                    else:
                        arguments = message["tool_calls"][0]["function"]["arguments"]
                        message["tool_calls"][0]["function"]["arguments"] = arguments[: len(arguments) // 2]
                    finish = "length"
                return message, finish, bool(dress)
            if turn in empty:
                return {"role": "assistant", "content": ""}, "stop", False
            if turn in cut:
                text = message.get("content") or ""
                return {"role": "assistant", "content": text[: len(text) // 2]}, "length", False
            return message, "stop", False

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the http.server name)
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                body = json.loads(raw)
                digest = hashlib.sha256(raw).hexdigest()
                with counting:
                    stub.requests += 1
                    overloaded = bool(fail_every) and stub.requests % fail_every == 0 and digest not in failed
                    if overloaded:
                        failed.add(digest)
                if overloaded:  # an overloaded server, now and then
                    self.send_error(503)
                    return
                if delay:
                    time.sleep(delay)
                tools = {t["function"]["name"] for t in body.get("tools") or []}
                assert tools == ({"find_venues", "book"} if policy != "user" else set()), tools
                message, finish, as_text = reply(body)
                usage = _usage(body["messages"], message)
                with counting:
                    stub.log.append(
                        {"body": body, "message": message, "finish_reason": finish, "usage": usage, "as_text": as_text}
                    )
                choice = {"index": 0, "message": message, "finish_reason": finish}
                data = json.dumps({"choices": [choice], "usage": usage}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.handle_error = lambda request, address: None  # type: ignore[method-assign]  # a client that gave up
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> ChatStub:
        # polled every 50 ms, not 0.5 s: shutdown() waits for the next poll, at every stop of a stub
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
