"""``llm``: a large language model plays the wizard, with the venue database as its tools.

``mwz interact --system llm --endpoint http://localhost:8000/v1 --model NAME`` (vLLM with tool
calling, a hosted API...), as Hudeček & Dušek (2023) and tau-bench's agents do it: the model reads
the conversation (the user's words; with ``--user-acts`` also the user's acts), calls
``find_venues`` (the database, with mwzeval's query semantics) and ``book`` (a reference number, a
taxi), and answers in words with values. Its belief state is what its tool calls asked for (a
search's constraints, a booking's details), so Inform and Success read its state as mwzeval reads a
system's; its words are lexicalized, so the scores delexicalize them (:mod:`mwz_metrics.delexicalize`).

Each session keeps its own messages (the model sees its earlier tool calls and their results). The
prompt, the tool schemas and the model name are in the run's signature (``prompt=`` is the sha256 of
prompt and tools; the run configuration holds both whole). Options (``--system-option``):
``temperature`` (0), ``max_tokens`` (1024, room for a reasoning model's thinking; ``none``: not sent,
the server's own limit), ``max_tool_rounds`` (4), ``prompt`` (a file whose text replaces the prompt),
``tool_calls`` (below), ``api_key_env`` (the environment variable holding the endpoint's key; by default
the run's key, ``MWZ_LLM_API_KEY``: see :mod:`~mwz_metrics.interactive.chat` for whose it is; a key
itself is never an option, it would be written in the signature). Timeouts and retries are the run's
(``--timeout``, ``--retries``). The session's seed (the request's ``seed``) goes to the endpoint with
every call, so a sampling model answers a trial the same way again. Every request with the tools sends
``tool_choice: "auto"`` (some servers drop the tools without it); after ``max_tool_rounds`` rounds of
calls the model is asked once more with ``tool_choice: "none"``.

**Preflight.** As the system is made (:func:`make`, before any session), one request with the tools
(the prompt and :data:`PREFLIGHT_QUESTION`, which needs a lookup) tells whether the endpoint returns
structured ``tool_calls``. A tool call written as text instead, or no tool call at all, stops the run in
one line (:class:`~mwz_metrics.inputs.InputError`) naming the server flags that fix it
(:data:`SERVER_FIX`), unless ``tool_calls=text`` (read calls written as text: the dresses of
:mod:`~mwz_metrics.interactive.systems.tool_text`) or ``tool_calls=skip-check`` (no preflight; calls
read from ``tool_calls`` only). An endpoint that fails the preflight request (an HTTP error, a timeout)
is not judged: the run goes on and its sessions meet the failure. The verdict is in the system's
identity (the run's record): ``preflight``, one of ``structured``, ``text`` (it wrote its call as text),
``none`` (it answered without one), ``unchecked`` (the request failed), ``skipped``; its tokens are no
session's.

**Every reply checked.** Warnings, counted per session (``system_report["warnings"]``, name -> count)
and per run (the summary's ``system warnings``, ``--result``'s ``system_warnings``):

- ``empty_reply``: no words and no tool call. The session ends ``malformed_response`` ("the model's
  reply was empty (finish_reason stop)"): an empty reply is never scored as the system's words.
- ``length_cut``: the reply was cut at the length limit (``finish_reason: "length"``). Its words are
  used (counted); a cut tool call ends the session ``malformed_response``.
- ``text_tool_call``: a tool call written as text. With ``tool_calls=text`` it is read and run as a call;
  without, the session ends ``malformed_response`` ("the model wrote a tool call as text (...); the
  endpoint returns no structured tool_calls: ..."): such a reply is never taken as the system's words.
- ``tool_choice_ignored``: tool calls after ``tool_choice: "none"``; the session ends
  ``malformed_response`` (a tool's output is never the reply).
- ``content_filter``: the endpoint filtered the reply (``finish_reason: "content_filter"``).

**The trajectory on record.** Each system turn carries a ``trace``
(:mod:`~mwz_metrics.interactive.protocol`, version :data:`~mwz_metrics.interactive.protocol.TRACE_VERSION`)::

    {"version": 1,
     "calls": [{"name": "find_venues",
                "arguments": {"domain": "restaurant", "constraints": {"area": "centre"}},
                "result": {"count": 21, "venues": [{"name": "...", ...}]},
                "as_text": true}],
     "finish_reason": "stop",
     "tokens": {"prompt": 812, "completion": 40},
     "warnings": ["length_cut"]}

``calls``: the turn's tool calls in order, each with its ``arguments`` as the model sent them (the JSON
object, or the text where it was not JSON), its ``result`` as the model read it (an ``error``; a
booking's ``booked`` and ``reference``, or ``car`` and ``phone``; a lookup's ``count``, the venues that
met the constraints, and ``venues``, the first of them with the fields :data:`_SHOWN`: at most
:data:`TRACE_VENUES` kept in the trace, the model itself reads :data:`MODEL_VENUES`) and ``as_text``
(true only for a call read from the reply's words). ``finish_reason``: the last reply's (the one whose
words are the turn's); ``tokens``: what the endpoint reported for the turn's requests (absent where it
reported none); ``warnings``: the turn's, one name each time (none: an empty list). A turn that ends its
session leaves no turn, hence no trace: the session's ``end`` says why, its ``system_report`` counts it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mwz_datasets.database import SERVICE_VENUES, column_name
from mwz_metrics.inputs import InputError
from mwz_metrics.interactive.chat import ChatAnswer, ChatClient, ChatError
from mwz_metrics.interactive.protocol import TRACE_VERSION, SessionEnd, session_key
from mwz_metrics.interactive.systems import tool_text
from mwz_metrics.interactive.vocabulary import (
    BOOKING_DOMAINS,
    NO_CONSTRAINT,
    OFFER_DOMAINS,
    multiwoz_reference,
    taxi_car,
    taxi_phone,
)
from mwz_metrics.settings import typed

logger = logging.getLogger(__name__)

PROMPT = """You are the assistant of the Cambridge TownInfo centre. You help visitors find and book restaurants, \
hotels, attractions and trains, book taxis, and give the police station's and the hospital's details.
- Look venues and trains up with find_venues, with every constraint the visitor gave; never invent a venue, a train, \
an address, a phone number or a price.
- Offer one venue by its name (a train by its id), with what the visitor asked about it.
- Book with book once you know what the booking needs (people and day, and the time for a table or the nights for \
a room; the places and a time for a taxi), then give the reference number (for a taxi, the car and its phone).
- Answer in one to three sentences. When the visitor has everything, say goodbye."""

_DOMAINS = (*OFFER_DOMAINS, *SERVICE_VENUES)  # what find_venues looks up (a taxi is booked, not found)
_CONSTRAINTS = (
    "name",
    "area",
    "food",
    "pricerange",
    "type",
    "stars",
    "internet",
    "parking",
    "departure",
    "destination",
    "day",
    "leaveAt",
    "arriveBy",
)
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "find_venues",
            "description": "Venues (or trains) of the Cambridge database that meet the constraints, best first.",
            "parameters": {
                "type": "object",
                "properties": {
                    "domain": {"type": "string", "enum": list(_DOMAINS)},
                    "constraints": {
                        "type": "object",
                        "description": "slot -> value; times as hh:mm; 'dontcare' where the visitor does not mind",
                        "properties": {slot: {"type": "string"} for slot in _CONSTRAINTS},
                    },
                },
                "required": ["domain"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "book",
            "description": "Book a table, a room, train tickets or a taxi; returns the reference (a taxi: car and phone).",
            "parameters": {
                "type": "object",
                "properties": {
                    "domain": {"type": "string", "enum": [*BOOKING_DOMAINS, "taxi"]},
                    "name": {"type": "string", "description": "the venue's name, or the train's id"},
                    "people": {"type": "string"},
                    "day": {"type": "string"},
                    "time": {"type": "string", "description": "a table's time, hh:mm"},
                    "stay": {"type": "string", "description": "a room's nights"},
                    "departure": {"type": "string"},
                    "destination": {"type": "string"},
                    "leaveAt": {"type": "string"},
                    "arriveBy": {"type": "string"},
                },
                "required": ["domain"],
            },
        },
    },
]
_SHOWN = ("name", "trainID", "area", "food", "pricerange", "type", "stars", "address", "phone", "postcode",
          "departure", "destination", "day", "leaveAt", "arriveBy", "price", "duration", "entrance fee")  # fmt: skip
_STATE_NAMES = {"leaveAt": "leave", "arriveBy": "arrive"}  # mwzeval's state slots
_FLEET = 6  # the cars this system knows (the first six)
MODEL_VENUES = 3  # the venues a lookup's result shows the model (the first, best first)
TRACE_VENUES = 5  # the venues a lookup's result keeps in the turn's trace, at most
TOOL_CALL_MODES = ("structured", "text", "skip-check")  # the tool_calls option's values
PREFLIGHT_QUESTION = "Find me a cheap restaurant in the centre."  # needs a lookup: a model with tools calls one
SERVER_FIX = (
    "serve the model with tool calls parsed: vLLM --enable-auto-tool-choice --tool-call-parser hermes (or the "
    "model's own parser), llama.cpp's llama-server --jinja, llama-cpp-python --chat_format chatml-function-calling, "
    "Ollama: a model with tool support"
)
# What a session's end says instead (an end's detail is kept to 300 characters).
SHORT_FIX = "vLLM --tool-call-parser, llama.cpp --jinja..., or --system-option tool_calls=text"
WARNINGS = ("empty_reply", "length_cut", "text_tool_call", "tool_choice_ignored", "content_filter")


class _Dialogue:
    """One session's messages and belief state."""

    def note(self, what: str) -> None:
        """Count a retry or a failure of the endpoint."""
        self.failures[what] = self.failures.get(what, 0) + 1

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.state: dict[str, dict[str, str]] = {}
        self.domains: list[str] = []
        self.users = 0  # user turns already in the messages
        self.failures: dict[str, int] = {}  # the endpoint's retries and failures in this session
        self.tokens: dict[str, int] = {}  # prompt and completion tokens the endpoint reported
        self.warnings: dict[str, int] = {}  # the replies' warnings (see the module docstring), by name
        self.seed: int | None = None  # the session's seed (the request's), sent to the endpoint


class _Turn:
    """What one system turn did: its tool calls and their results, its tokens and warnings (its trace)."""

    def __init__(self, dialogue: _Dialogue) -> None:
        self.dialogue = dialogue
        self.calls: list[dict[str, Any]] = []
        self.tokens: dict[str, int] = {}
        self.warnings: list[str] = []
        self.finish_reason: str | None = None

    def warn(self, name: str) -> None:
        """A warning of this turn, counted in the session too."""
        self.warnings.append(name)
        self.dialogue.warnings[name] = self.dialogue.warnings.get(name, 0) + 1

    def spent(self, usage: Mapping[str, int]) -> None:
        """A reply's tokens: the turn's and the session's."""
        for key, value in usage.items():
            self.tokens[key] = self.tokens.get(key, 0) + value
            self.dialogue.tokens[key] = self.dialogue.tokens.get(key, 0) + value

    def trace(self) -> dict[str, Any]:
        """The turn's trace (see the module docstring)."""
        out: dict[str, Any] = {"version": TRACE_VERSION, "calls": self.calls, "finish_reason": self.finish_reason}
        if self.tokens:
            out["tokens"] = {"prompt": self.tokens.get("prompt", 0), "completion": self.tokens.get("completion", 0)}
        out["warnings"] = list(self.warnings)
        return out


class LlmSystem:
    """The wizard played by a model with database tools (see the module docstring)."""

    name = "llm"

    def __init__(
        self,
        context: Any,
        *,
        endpoint: str | None = None,
        model: str | None = None,
        temperature: str | float = 0.0,
        max_tokens: str | int | None = 1024,
        max_tool_rounds: str | int = 4,
        prompt: str | None = None,
        tool_calls: str = "structured",
        timeout: float = 60.0,
        retries: int = 2,
        api_key_env: str | None = None,
    ) -> None:
        if not endpoint or not model:
            raise TypeError("the llm system needs --endpoint URL and --model NAME")
        if tool_calls not in TOOL_CALL_MODES:
            raise InputError(f"--system llm: tool_calls is {', '.join(TOOL_CALL_MODES)}, got {tool_calls!r}")
        limit = None if max_tokens is None or str(max_tokens).strip().lower() == "none" else int(max_tokens)
        if limit is not None and limit <= 0:
            raise InputError(f"--system llm: max_tokens is a positive number or none, got {max_tokens!r}")
        self.db = context.database
        self.client = ChatClient(endpoint, model, timeout=timeout, retries=retries, api_key_env=api_key_env)
        self.prompt = Path(prompt).read_text(encoding="utf-8") if prompt else PROMPT
        self.max_tokens = limit
        self.parameters: dict[str, Any] = {"temperature": float(temperature)}
        if limit is not None:  # none: the server's own limit
            self.parameters["max_tokens"] = limit
        self.max_tool_rounds = int(max_tool_rounds)
        self.tool_calls = tool_calls
        self.verdict: str | None = None  # the preflight's (see the module docstring); None: not run
        self.model = model
        self._dialogues: dict[str, _Dialogue] = {}
        self._lock = threading.Lock()

    def identity(self) -> dict[str, Any]:
        """What the run's signature names: the model, the prompt and tools (their sha256, and whole), the
        request's parameters, how tool calls are read and what the preflight found."""
        tools = json.dumps(TOOLS, sort_keys=True)
        return {
            "model": self.model,
            "prompt_sha256": hashlib.sha256((self.prompt + "\n" + tools).encode()).hexdigest(),
            "prompt": self.prompt,
            "tools": TOOLS,
            "parameters": {"temperature": self.parameters["temperature"], "max_tokens": self.max_tokens},
            "max_tool_rounds": self.max_tool_rounds,
            "tool_calls": self.tool_calls,
            "preflight": self.verdict,
        }

    def preflight(self) -> str:
        """Ask the endpoint :data:`PREFLIGHT_QUESTION` with the tools once: its verdict (see the module
        docstring), or :class:`InputError` where it cannot give this system structured tool calls."""
        if self.tool_calls == "skip-check":
            self.verdict = "skipped"
            return self.verdict
        messages = [{"role": "system", "content": self.prompt}, {"role": "user", "content": PREFLIGHT_QUESTION}]
        try:
            answer = self.client.answer(messages, **self.parameters, tools=TOOLS, tool_choice="auto")
        except ChatError as error:
            self.verdict = "unchecked"
            if error.reason != "connection":  # a refused connection: the run's connection check says it next
                logger.warning("--system llm: the preflight request failed, tool calls unchecked (%s)", error)
            return self.verdict
        text = _text(answer.message.get("content"))
        if answer.message.get("tool_calls"):
            self.verdict = "structured"
        elif tool_text.looks_like_call(text):
            self.verdict = "text"
        else:
            self.verdict = "none"
        logger.info("--system llm: preflight %s (%s tokens)", self.verdict, answer.usage or "no")
        if self.verdict == "structured" or self.tool_calls == "text":
            return self.verdict
        asked = f'asked "{PREFLIGHT_QUESTION}" with the tools'
        if self.verdict == "text":
            raise InputError(
                f"--system llm: the endpoint returns no structured tool_calls ({asked}, the model wrote its call "
                f"as text: {_shown(text)}); {SERVER_FIX}; or --system-option tool_calls=text to read calls "
                "written as text"
            )
        if answer.finish_reason == "length":
            said = f"its reply was cut at max_tokens={self.max_tokens} before any tool call: raise max_tokens, or"
        else:
            said = (
                f"it answered {_shown(text) if text else 'nothing'} (finish_reason {answer.finish_reason}): the "
                "server may drop the tools or not parse the model's calls, or the model cannot call tools;"
            )
        raise InputError(
            f"--system llm: the endpoint returned no tool call ({asked}; {said} {SERVER_FIX}); or "
            "--system-option tool_calls=text (calls written as text) or tool_calls=skip-check (run anyway)"
        )

    def report(self, dialogue_id: str) -> dict[str, Any]:
        """The endpoint's retries and failures in the session, the tokens it reported and the replies'
        warnings; the session (its messages) then forgotten."""
        with self._lock:
            dialogue = self._dialogues.pop(dialogue_id, None)
        counts = dict(dialogue.failures) if dialogue is not None else {}
        tokens = dict(dialogue.tokens) if dialogue is not None else {}
        warnings = dict(dialogue.warnings) if dialogue is not None else {}
        return {"retries": counts.pop("retry", 0), "failures": counts, "tokens": tokens, "warnings": warnings}

    def _dialogue(self, dialogue_id: str, turn: int) -> _Dialogue:
        with self._lock:
            if turn == 0 or dialogue_id not in self._dialogues:
                self._dialogues[dialogue_id] = _Dialogue()
            return self._dialogues[dialogue_id]

    def respond(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """The model's answer to the user's last turn, after the tool calls it makes, with its trace."""
        dialogue_id = str(request.get("dialogue_id", ""))
        dialogue = self._dialogue(session_key(request), int(request.get("turn", 0)))
        if request.get("seed") is not None:  # the session's seed: a sampling endpoint gives the same answers again
            dialogue.seed = int(request["seed"])
        users = [t for t in request.get("history", ()) if t.get("speaker") == "user"]
        if not dialogue.messages:
            dialogue.messages.append({"role": "system", "content": self.prompt})
        for turn in users[dialogue.users :]:
            dialogue.messages.append({"role": "user", "content": _user_message(turn)})
        dialogue.users = len(users)
        turn = _Turn(dialogue)
        text = self._answer(dialogue, dialogue_id, turn)
        return {
            "response": text,
            "state": _copy(dialogue.state),
            "active_domains": dialogue.domains[-1:],
            "trace": turn.trace(),
        }

    def _ask(self, dialogue: _Dialogue, turn: _Turn, tool_choice: str) -> ChatAnswer:
        try:
            seeded: dict[str, Any] = {} if dialogue.seed is None else {"seed": dialogue.seed}  # the session's
            answer = self.client.answer(
                dialogue.messages,
                note=dialogue.note,
                **self.parameters,
                tools=TOOLS,
                tool_choice=tool_choice,
                **seeded,
            )
        except ChatError as error:
            raise SessionEnd("system_timeout" if error.reason == "timeout" else "system_error", str(error)) from None
        turn.spent(answer.usage)
        turn.finish_reason = answer.finish_reason
        if answer.finish_reason == "length":
            turn.warn("length_cut")
        elif answer.finish_reason == "content_filter":
            turn.warn("content_filter")
        return answer

    def _answer(self, dialogue: _Dialogue, dialogue_id: str, turn: _Turn) -> str:
        """The model's words after at most ``max_tool_rounds`` rounds of tool calls. A model still calling
        tools then is asked once more with ``tool_choice: none``; words, or the session ends
        (``malformed_response``, saying which reply it was): a tool's output, an empty reply or a tool call
        written as text is never the reply."""
        for round_ in range(self.max_tool_rounds + 1):
            last = round_ == self.max_tool_rounds
            answer = self._ask(dialogue, turn, "none" if last else "auto")
            message = answer.message
            text = _text(message.get("content"))
            calls = _well_formed_calls(message.get("tool_calls"))
            problems = _problems(message.get("tool_calls"), len(calls))
            as_text = False
            if not calls and tool_text.looks_like_call(text):
                calls, as_text = self._text_calls(turn, text, answer.finish_reason, round_), True
                problems = [""] * len(calls)
            after = f", after {self.max_tool_rounds} rounds of tool calls and tool_choice none" if last else ""
            if calls:
                if answer.finish_reason == "length" and not all(
                    _json_object(c["function"]["arguments"]) for c in calls
                ):
                    raise SessionEnd("malformed_response", self._cut_call(calls))
                if last:
                    turn.warn("tool_choice_ignored")
                    raise SessionEnd(
                        "malformed_response",
                        f"the model answered with tool calls only: {self.max_tool_rounds} rounds, and once more "
                        "after tool_choice none",
                    )
                self._run_calls(dialogue, dialogue_id, turn, message, calls, problems, as_text=as_text)
                continue
            if not text.strip():
                turn.warn("empty_reply")
                raise SessionEnd(
                    "malformed_response", f"the model's reply was empty (finish_reason {answer.finish_reason}){after}"
                )
            dialogue.messages.append({"role": "assistant", "content": text})
            return text
        raise AssertionError("not reached")  # the last round returns or ends the session

    def _text_calls(self, turn: _Turn, text: str, finish: str | None, round_: int) -> list[dict[str, Any]]:
        """The calls a reply wrote as text (``tool_calls=text``), as the endpoint would have sent them; the
        session ends where they are not to be read (see the module docstring)."""
        turn.warn("text_tool_call")
        if self.tool_calls != "text":
            raise SessionEnd(
                "malformed_response",
                f"the model wrote a tool call as text ({_shown(text, 60)}); the endpoint returns no structured "
                f"tool_calls: {SHORT_FIX}",
            )
        parsed = tool_text.parse(text)
        if parsed is None and finish == "length":
            raise SessionEnd(
                "malformed_response",
                f"the model's tool call, written as text, was cut at the length limit (finish_reason length, "
                f"max_tokens={self.max_tokens}): {_shown(text, 60)}",
            )
        if parsed is None:
            raise SessionEnd(
                "malformed_response", f"the model wrote a tool call as text that cannot be read ({_shown(text, 100)})"
            )
        return [
            {
                "id": f"text_call_{round_}_{index}",
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments_json()},
            }
            for index, call in enumerate(parsed)
        ]

    def _cut_call(self, calls: list[dict[str, Any]]) -> str:
        """The end of a session whose reply was a tool call cut at the length limit."""
        shown = _shown("; ".join(f"{c['function']['name']} {c['function']['arguments']}" for c in calls), 80)
        return (
            f"the model's tool call was cut at the length limit (finish_reason length, max_tokens={self.max_tokens}): "
            f"{shown}"
        )

    def _run_calls(
        self,
        dialogue: _Dialogue,
        dialogue_id: str,
        turn: _Turn,
        message: Mapping[str, Any],
        calls: list[dict[str, Any]],
        problems: list[str],
        *,
        as_text: bool,
    ) -> None:
        """Run one reply's tool calls: the messages take the reply and each result, the trace each call."""
        if as_text:  # as the model wrote it: a server without tool parsing may not take tool_calls back
            dialogue.messages.append({"role": "assistant", "content": _text(message.get("content"))})
        else:
            dialogue.messages.append(
                {"role": "assistant", "content": _text(message.get("content")), "tool_calls": calls}
            )
        for call, problem in zip(calls, problems):
            result = {"error": problem} if problem else self._call(call, dialogue, dialogue_id)
            answer: dict[str, Any] = {"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)}
            if as_text:
                answer["name"] = call["function"]["name"]
            dialogue.messages.append(answer)
            turn.calls.append(_traced_call(call, result, as_text=as_text))

    def _call(self, call: Mapping[str, Any], dialogue: _Dialogue, dialogue_id: str) -> dict[str, Any]:
        """Run one (well-formed) tool call; the state takes what it asked for. A call the tools cannot
        take is answered with an error the model reads."""
        function = call["function"]
        raw = function["arguments"]
        try:
            arguments = json.loads(raw or "{}")
        except ValueError:
            return {"error": "the arguments are not JSON"}
        if not isinstance(arguments, dict):
            return {"error": "the arguments are not an object"}
        domain = arguments.get("domain", "")
        if not isinstance(domain, str):
            return {"error": "domain must be text"}
        domain = domain.lower()
        if function["name"] == "find_venues":
            constraints = arguments.get("constraints")
            if constraints is None:
                constraints = {}
            if not isinstance(constraints, dict):
                return {"error": "constraints must be an object of slot -> text"}
            given, problem = _texts(constraints, "constraint")
            return {"error": problem} if problem else self._find(domain, given, dialogue)
        if function["name"] == "book":
            details, problem = _texts({k: v for k, v in arguments.items() if k != "domain"}, "argument")
            return {"error": problem} if problem else self._book(domain, details, dialogue, dialogue_id)
        return {"error": f"no tool {function['name']!r} (the tools: find_venues, book)"}

    def _find(self, domain: str, constraints: Mapping[str, str], dialogue: _Dialogue) -> dict[str, Any]:
        if domain not in _DOMAINS:
            return {"error": f"no domain {domain!r}"}
        _note(dialogue, domain)
        if domain in SERVICE_VENUES:
            return {"count": 1, "venues": [SERVICE_VENUES[domain]]}
        given = {k: v for k, v in constraints.items() if v.strip().lower() not in NO_CONSTRAINT}
        slots = dialogue.state.setdefault(domain, {})
        for key, value in constraints.items():
            slots[_STATE_NAMES.get(key, key.lower())] = value
        rows = self.db.rows(domain, self.db.query(domain, {column_name(k): v for k, v in given.items()}))
        if domain == "train" and "arriveBy" in given:  # the latest to arrive in time, else the earliest to leave
            rows.sort(key=lambda r: r.get("arriveBy", ""), reverse=True)
        elif domain == "train":
            rows.sort(key=lambda r: r.get("leaveAt", ""))
        shown = [{k: row[k] for k in _SHOWN if k in row} for row in rows[:MODEL_VENUES]]
        return {"count": len(rows), "venues": shown}

    def _book(self, domain: str, arguments: Mapping[str, str], dialogue: _Dialogue, dialogue_id: str) -> dict[str, Any]:
        details = {k: v for k, v in arguments.items() if v.strip()}
        if domain == "taxi":
            _note(dialogue, "taxi")
            slots = dialogue.state.setdefault("taxi", {})
            slots.update({_STATE_NAMES.get(k, k): v for k, v in details.items() if k != "name"})
            code = int(multiwoz_reference(dialogue_id, "taxi", *sorted(details.values()))[5:], 10)
            return {"booked": True, "car": taxi_car(code, _FLEET), "phone": taxi_phone(code * 7919)}
        if domain not in BOOKING_DOMAINS:
            return {"booked": False, "error": f"{domain} takes no booking"}
        name = details.get("name", "")
        key = "trainID" if domain == "train" else "name"
        if not any(str(r.get(key, "")).lower() == name.lower() for r in self.db.all_rows(domain)):
            return {"booked": False, "error": f"no {domain} {name!r} in the database"}
        _note(dialogue, domain)
        slots = dialogue.state.setdefault(domain, {})
        slots.update({k: v for k, v in details.items() if k in ("people", "day", "time", "stay")})
        if domain != "train":
            slots["name"] = name.lower()
        return {"booked": True, "reference": multiwoz_reference(dialogue_id, domain, *sorted(details.values()))}


def _text(content: Any) -> str:
    """A message's words (an endpoint may send none, or parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: their text
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping)).strip()
    return ""


def _shown(text: str, limit: int = 160) -> str:
    """Text as a one-line message quotes it: blanks as one space, what is not printable as ``?``, cut."""
    flat = "".join(c if c.isprintable() else "?" for c in " ".join(str(text).split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _json_object(arguments: str) -> bool:
    """Whether a call's arguments read as a JSON object (none at all: an empty object)."""
    if not arguments.strip():
        return True
    try:
        return isinstance(json.loads(arguments), dict)
    except (ValueError, RecursionError):
        return False


def _traced_call(call: Mapping[str, Any], result: Mapping[str, Any], *, as_text: bool) -> dict[str, Any]:
    """One call as the trace keeps it (see the module docstring)."""
    raw = call["function"]["arguments"]
    try:
        arguments: Any = json.loads(raw)
    except (ValueError, RecursionError):
        arguments = raw
    kept = dict(result)
    if isinstance(kept.get("venues"), list) and len(kept["venues"]) > TRACE_VENUES:
        kept["venues"] = kept["venues"][:TRACE_VENUES]
    out = {"name": call["function"]["name"], "arguments": arguments, "result": kept}
    if as_text:
        out["as_text"] = True
    return out


def _well_formed_calls(calls: Any) -> list[dict[str, Any]]:
    """The model's tool calls as the endpoint must see them again: a list of
    ``{"id", "type": "function", "function": {"name", "arguments"}}``, whatever shape they came in
    (one call as an object, a string, arguments as an object); :func:`_problems` says what was wrong."""
    if not calls:
        return []
    items = calls if isinstance(calls, list) else [calls]
    out = []
    for index, item in enumerate(items):
        call: Mapping[str, Any] = item if isinstance(item, Mapping) else {}
        function: Mapping[str, Any] = call["function"] if isinstance(call.get("function"), Mapping) else {}
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments) if isinstance(arguments, (dict, list)) else ""
        name = function.get("name")
        out.append(
            {
                "id": str(call.get("id") or f"call_{index}"),
                "type": "function",
                "function": {"name": name if isinstance(name, str) else "", "arguments": arguments},
            }
        )
    return out


def _problems(calls: Any, count: int) -> list[str]:
    """Per call, why the tools cannot take it ('' where they can)."""
    if isinstance(calls, Mapping):  # one call, not in a list: taken as it is
        calls = [calls]
    if not isinstance(calls, list):
        return ["tool_calls must be a list of calls"] * count
    problems = []
    for item in calls:
        function = item.get("function") if isinstance(item, Mapping) else None
        if not isinstance(item, Mapping):
            problems.append("a tool call must be an object with a function")
        elif not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            problems.append("a tool call's function must be an object with a name")
        elif function.get("arguments") is not None and not isinstance(function.get("arguments"), (str, dict)):
            problems.append("a tool call's arguments must be a JSON object")
        else:
            problems.append("")
    return problems


def _texts(values: Mapping[Any, Any], what: str) -> tuple[dict[str, str], str]:
    """Slot -> text (numbers written as text, a null left out), or the problem with a value of another type."""
    out = {}
    for key, value in values.items():
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            return {}, f"{what} {key!r} must be text, not {type(value).__name__}"
        out[str(key)] = str(value)
    return out, ""


def _note(dialogue: _Dialogue, domain: str) -> None:
    if not dialogue.domains or dialogue.domains[-1] != domain:
        dialogue.domains.append(domain)


def _copy(state: Mapping[str, Mapping[str, str]]) -> dict[str, dict[str, str]]:
    return {domain: dict(slots) for domain, slots in state.items()}


def _user_message(turn: Mapping[str, Any]) -> str:
    """The user's words; with ``--user-acts``, its acts after them (act level)."""
    text = str(turn.get("text", ""))
    if turn.get("acts"):
        text += "\n[user acts: " + json.dumps(turn["acts"]) + "]"
    return text


@dataclasses.dataclass(frozen=True)
class LlmSystemOptions:
    """The ``llm`` system's ``--system-option``s (and the run's --endpoint, --model, --timeout, --retries)."""

    endpoint: str | None = None
    model: str | None = None
    temperature: float = 0.0
    max_tokens: int | None = 1024  # none: not sent (the server's own limit)
    max_tool_rounds: int = 4
    prompt: str | None = None
    tool_calls: str = "structured"  # or text (read calls written as text), skip-check (no preflight)
    timeout: float = 60.0
    retries: int = 2
    api_key_env: str | None = None  # the variable holding the endpoint's key (None: the run's, see chat)


def make(context: Any, **options: Any) -> LlmSystem:
    """The ``llm`` system (its plugin entry's loader), made with :class:`LlmSystemOptions`, its endpoint
    checked by :meth:`LlmSystem.preflight` (see the module docstring)."""
    if isinstance(options.get("max_tokens"), str) and options["max_tokens"].strip().lower() == "none":
        options = {**options, "max_tokens": None}
    system = LlmSystem(context, **dataclasses.asdict(typed(LlmSystemOptions, options, "--system llm")))
    system.preflight()
    return system


make.takes_http_settings = True  # type: ignore[attr-defined]  # it gets the run's --timeout and --retries
