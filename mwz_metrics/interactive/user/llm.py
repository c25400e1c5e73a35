"""``llm``: a large language model plays the user, through any OpenAI-compatible chat endpoint.

``mwz interact --simulator llm --endpoint http://localhost:8000/v1 --model NAME`` (vLLM, a
hosted API...), through :class:`~mwz_metrics.interactive.chat.ChatClient`. The key, if the endpoint
wants one, is never written anywhere: the run's (``MWZ_LLM_API_KEY`` or ``OPENAI_API_KEY``) where the
endpoint is the run's ``--endpoint``, else the one in the variable ``--simulator-option api_key_env=VAR``
names (see :mod:`~mwz_metrics.interactive.chat` for the rule). The model is prompted with the goal's
crowd-worker messages (the instructions MultiWOZ's own users had) and rules for ending: when
everything is done, or the system cannot help, it thanks the system, says goodbye and ends its
message with ``[END]``; the session then ends after the system's answer (or at ``--max-turns``).

Its goal tracking is the ``agenda``'s (:mod:`.tracker`), fed by the system's acts or the
system-act reader: it gives the session's ``complete`` verdict, and each system turn reaches the
model with a short note of what is still to do. Booked domains: the model's text carries no
acts, so every domain the goal books counts as asked for from the start (mwzeval then counts a
reference number there at any turn). Sampling: ``temperature`` (default 0) and the run's seed
per session go with every request; whether they make the model deterministic is the endpoint's
matter.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from mwz_metrics.interactive.acts import Act
from mwz_metrics.interactive.chat import ChatClient
from mwz_metrics.interactive.goals import UserGoal
from mwz_metrics.interactive.protocol import SystemTurn
from mwz_metrics.interactive.secrets import redact_url
from mwz_metrics.interactive.user.base import SimulatorFactory, UserSimulator, UserTurn
from mwz_metrics.interactive.user.reader import ReaderContext, SystemActReader
from mwz_metrics.interactive.user.tracker import GoalTracker, TrackedUser

END_MARK = "[END]"

RULES = """Rules:
- Write only your own next message: one or two sentences, as a person typing in a chat. Never write the assistant's part.
- Give your requirements a little at a time. Answer the assistant's questions from your goal; if your goal does not say, you do not mind.
- If the assistant cannot find or book what you want, follow the alternatives your goal gives.
- Do not invent needs that your goal does not have. Ask for every detail your goal tells you to get.
- When everything in your goal is done, or the assistant cannot help any further, thank the assistant, say goodbye and end that message with [END]."""


def system_prompt(goal: UserGoal) -> str:
    """The model's instructions: the goal's messages, then the rules."""
    lines = [
        "You are a visitor to Cambridge talking to the assistant of the Cambridge TownInfo centre.",
        "Your goal, as it was given to you:",
        *(f"- {m}" for m in goal.messages),
        "",
        RULES,
    ]
    return "\n".join(lines)


class LLMUser(TrackedUser, UserSimulator):
    """One goal's user, played by the model."""

    def __init__(
        self,
        goal: UserGoal,
        rng: random.Random,
        client: ChatClient,
        reader: SystemActReader,
        *,
        temperature: float = 0.0,
        max_tokens: int = 120,
    ) -> None:
        self.goal = goal
        self.client = client
        self.reader = reader
        self.seed = rng.randrange(2**31)
        self.parameters = {"temperature": temperature, "max_tokens": max_tokens, "seed": self.seed}
        # a no-offer with no alternative left ends a domain; no acts: a booking goal counts as asked for
        self.tracker = GoalTracker(goal, patience=1, booking_requested=True)
        self.tokens: dict[str, int] = {}  # prompt and completion tokens the endpoint reported
        self.messages: list[dict[str, str]] = [
            {"role": "system", "content": system_prompt(goal)},
            {"role": "user", "content": "(The assistant is waiting. Start the conversation.)"},
        ]

    def _turn(self) -> UserTurn:
        reply = self.client.complete(self.messages, tokens=self.tokens, **self.parameters).strip()
        self.messages.append({"role": "assistant", "content": reply})
        final = END_MARK in reply
        text = " ".join(reply.replace(END_MARK, " ").split())
        return UserTurn(text, None, final, self.tracker.booked_domains())

    def start(self) -> UserTurn:
        """The model's opening message."""
        return self._turn()

    def observe(self, turn: SystemTurn) -> list[Act]:
        """Track the goal from the system's acts (or the reader), and show the model the reply."""
        current = self.tracker.current
        if turn.acts is not None:
            acts = list(turn.acts)
        else:
            acts = self.reader.read(turn.response, ReaderContext(current.domain if current else "none"))
        self.tracker.observe(acts)
        todo = self._still_to_do()
        note = f"\n\n(Still to do in your goal: {todo}.)" if todo else "\n\n(Everything in your goal is done.)"
        self.messages.append({"role": "user", "content": (turn.response or "(no answer)") + note})
        return acts

    def _still_to_do(self) -> str:
        parts = []
        for state in self.tracker.domains:
            if state.fulfilled or state.given_up:
                continue
            wanted = [s for s in state.requests if s not in state.answered]
            step = "find" if state.needs_offer and not state.offered else ""
            step = "book" if not step and state.needs_booking and not state.booked else step
            details = f"; get: {', '.join(wanted)}" if wanted else ""
            parts.append(f"{state.domain} ({step or 'details'}{details})")
        return "; ".join(parts)

    def assume(self, acts: list[Act], text: str = "") -> None:
        """An oracle history: the model said ``text`` (a real user's turn, whose acts the tracker reads)."""
        self.tracker.observe_user(acts)
        self.messages.append({"role": "assistant", "content": text})

    def next_turn(self) -> UserTurn:
        """The model's next message."""
        return self._turn()

    def details(self) -> dict[str, object]:
        """The tracker's details and the tokens the endpoint reported for this user."""
        return {**super().details(), "tokens": dict(self.tokens)}


class LLMFactory(SimulatorFactory):
    """Users played by one model at one endpoint."""

    name = "llm"
    sends_user_acts = False  # a model writes words; no acts come with them

    def __init__(
        self,
        context: Any,
        *,
        endpoint: str | None = None,
        model: str | None = None,
        temperature: float | str = 0.0,
        max_tokens: int | str = 120,
        timeout: float | str = 60.0,
        retries: int | str = 2,
        api_key_env: str | None = None,
    ) -> None:
        if not endpoint or not model:
            raise ValueError("the llm simulator needs --endpoint URL and --model NAME")
        self.context = context
        self.client = ChatClient(endpoint, model, timeout=float(timeout), retries=int(retries), api_key_env=api_key_env)
        self._options = {
            "endpoint": redact_url(endpoint),  # what the signature names: no password, no key
            "model": model,
            "temperature": float(temperature),
            "max_tokens": int(max_tokens),
        }
        if api_key_env is not None:  # where the key came from (a variable's name), as the system's options say
            self._options["api_key_env"] = api_key_env

    def session(self, goal: UserGoal, rng: random.Random) -> LLMUser:
        """The model as ``goal``'s user."""
        return LLMUser(
            goal,
            rng,
            self.client,
            self.context.reader,
            temperature=self._options["temperature"],  # type: ignore[arg-type]
            max_tokens=self._options["max_tokens"],  # type: ignore[arg-type]
        )

    def options(self) -> Mapping[str, Any]:
        """Endpoint (as shown), model and sampling (and ``api_key_env``, where given)."""
        return dict(self._options)


def make(context: Any, **options: Any) -> LLMFactory:
    """The ``llm`` simulator (its plugin entry's loader)."""
    return LLMFactory(context, **options)


make.takes_http_settings = True  # type: ignore[attr-defined]  # it gets the run's --timeout and --retries
