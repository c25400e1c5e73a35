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
``temperature`` (0), ``max_tokens`` (200), ``max_tool_rounds`` (4), ``prompt`` (a file whose text
replaces the prompt), ``api_key_env`` (the environment variable holding the endpoint's key; by default
the run's key, ``MWZ_LLM_API_KEY``: see :mod:`~mwz_metrics.interactive.chat` for whose it is; a key
itself is never an option, it would be written in the signature). Timeouts and retries are the run's
(``--timeout``, ``--retries``). The
session's seed (the request's ``seed``) goes to the endpoint with every call, so a sampling model
answers a trial the same way again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mwz_datasets.database import SERVICE_VENUES, column_name
from mwz_metrics.interactive.chat import ChatClient, ChatError
from mwz_metrics.interactive.protocol import SessionEnd, session_key
from mwz_metrics.interactive.vocabulary import (
    BOOKING_DOMAINS,
    NO_CONSTRAINT,
    OFFER_DOMAINS,
    multiwoz_reference,
    taxi_car,
    taxi_phone,
)
from mwz_metrics.settings import typed

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
        self.seed: int | None = None  # the session's seed (the request's), sent to the endpoint


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
        max_tokens: str | int = 200,
        max_tool_rounds: str | int = 4,
        prompt: str | None = None,
        timeout: float = 60.0,
        retries: int = 2,
        api_key_env: str | None = None,
    ) -> None:
        if not endpoint or not model:
            raise TypeError("the llm system needs --endpoint URL and --model NAME")
        self.db = context.database
        self.client = ChatClient(endpoint, model, timeout=timeout, retries=retries, api_key_env=api_key_env)
        self.prompt = Path(prompt).read_text(encoding="utf-8") if prompt else PROMPT
        self.parameters: dict[str, Any] = {
            "temperature": float(temperature),
            "max_tokens": int(max_tokens),
            "tools": TOOLS,
        }
        self.max_tool_rounds = int(max_tool_rounds)
        self.model = model
        self._dialogues: dict[str, _Dialogue] = {}
        self._lock = threading.Lock()

    def identity(self) -> dict[str, Any]:
        """What the run's signature names: the model, the prompt and tools (their sha256, and whole)."""
        tools = json.dumps(TOOLS, sort_keys=True)
        return {
            "model": self.model,
            "prompt_sha256": hashlib.sha256((self.prompt + "\n" + tools).encode()).hexdigest(),
            "prompt": self.prompt,
            "tools": TOOLS,
            "parameters": {k: v for k, v in self.parameters.items() if k != "tools"},
            "max_tool_rounds": self.max_tool_rounds,
        }

    def report(self, dialogue_id: str) -> dict[str, Any]:
        """The endpoint's retries and failures in the session and the tokens it reported; the session
        (its messages) then forgotten."""
        with self._lock:
            dialogue = self._dialogues.pop(dialogue_id, None)
        counts = dict(dialogue.failures) if dialogue is not None else {}
        tokens = dict(dialogue.tokens) if dialogue is not None else {}
        return {"retries": counts.pop("retry", 0), "failures": counts, "tokens": tokens}

    def _dialogue(self, dialogue_id: str, turn: int) -> _Dialogue:
        with self._lock:
            if turn == 0 or dialogue_id not in self._dialogues:
                self._dialogues[dialogue_id] = _Dialogue()
            return self._dialogues[dialogue_id]

    def respond(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """The model's answer to the user's last turn, after the tool calls it makes."""
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
        text = self._answer(dialogue, dialogue_id)
        return {"response": text, "state": _copy(dialogue.state), "active_domains": dialogue.domains[-1:]}

    def _ask(self, dialogue: _Dialogue, **extra: Any) -> dict[str, Any]:
        try:
            seeded: dict[str, Any] = {} if dialogue.seed is None else {"seed": dialogue.seed}  # the session's
            return self.client.message(
                dialogue.messages, note=dialogue.note, tokens=dialogue.tokens, **self.parameters, **seeded, **extra
            )
        except ChatError as error:
            raise SessionEnd("system_timeout" if error.reason == "timeout" else "system_error", str(error)) from None

    def _answer(self, dialogue: _Dialogue, dialogue_id: str) -> str:
        """The model's words after at most ``max_tool_rounds`` rounds of tool calls. A model still calling
        tools then is asked once more with ``tool_choice: none``; words or the session ends
        (``malformed_response``): a tool's output is never the reply."""
        for _round in range(self.max_tool_rounds):
            message = self._ask(dialogue)
            calls = _well_formed_calls(message.get("tool_calls"))
            if not calls:
                return self._said(dialogue, message)
            dialogue.messages.append(
                {"role": "assistant", "content": _text(message.get("content")), "tool_calls": calls}
            )
            for call, problem in zip(calls, _problems(message.get("tool_calls"), len(calls))):
                result = {"error": problem} if problem else self._call(call, dialogue, dialogue_id)
                dialogue.messages.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)})
        message = self._ask(dialogue, tool_choice="none")
        if _well_formed_calls(message.get("tool_calls")) or not _text(message.get("content")):
            raise SessionEnd(
                "malformed_response",
                f"the model answered with tool calls only, {self.max_tool_rounds} rounds and once more without tools",
            )
        return self._said(dialogue, message)

    @staticmethod
    def _said(dialogue: _Dialogue, message: Mapping[str, Any]) -> str:
        text = _text(message.get("content"))
        dialogue.messages.append({"role": "assistant", "content": text})
        return text

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
        shown = [{k: row[k] for k in _SHOWN if k in row} for row in rows[:3]]
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
    max_tokens: int = 200
    max_tool_rounds: int = 4
    prompt: str | None = None
    timeout: float = 60.0
    retries: int = 2
    api_key_env: str | None = None  # the variable holding the endpoint's key (None: the run's, see chat)


def make(context: Any, **options: Any) -> LlmSystem:
    """The ``llm`` system (its plugin entry's loader), made with :class:`LlmSystemOptions`."""
    return LlmSystem(context, **dataclasses.asdict(typed(LlmSystemOptions, options, "--system llm")))


make.takes_http_settings = True  # type: ignore[attr-defined]  # it gets the run's --timeout and --retries
