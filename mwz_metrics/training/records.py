"""The training room's typed records: the reward specification and an episode's goal split."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any

from mwz_plugins.errors import InputError

# Reward terms: a session's figure (0..1) by name, as the scoring of ``mwz interact`` gives it.
TERMS = {
    "success": "mwzeval's Success of the session (0 or 1)",
    "inform": "mwzeval's Inform of the session (0 or 1)",
    "book": "book rate: the goal's booking domains booked at a venue that meets the goal (0..1; 1 without bookings)",
    "complete": "the simulator's own verdict that every part of its goal was met (0 or 1)",
    "inv_sent": "1 / Sent-Score (the fluency metric's nats per token of the system's turns; Cheng et al.'s 1/Sent)",
    "sess": "the coherence metric's session score (Cheng et al.'s Sess-Score; needs the coherence extra)",
    "turns": "system turns of the session (with a negative weight: ConvLab's per-turn penalty)",
    "reasked": "the system's requests for a slot the user had already given (a count; with a negative weight)",
}
_TERM = re.compile(r"^\s*([+-]?\s*[0-9.]*)\s*\*?\s*([a-z_]+)\s*$")


class RewardError(InputError):
    """A reward specification that cannot be read (the message names the term)."""


@dataclasses.dataclass(frozen=True)
class RewardSpec:
    """``reward = sum(weight * term)`` at the end of an episode, 0 on every other step; the terms
    are the session's figures as ``mwz interact`` scores them (:data:`TERMS`).

    Spelled ``"success"`` (the default), ``"success+0.1*inv_sent+0.1*sess"`` (Cheng et al.'s shaping),
    ``"success-0.05*turns"`` (a per-turn penalty as ConvLab's)."""

    weights: tuple[tuple[str, float], ...] = (("success", 1.0),)

    @classmethod
    def parse(cls, text: str) -> RewardSpec:
        """Read ``WEIGHT*TERM+WEIGHT*TERM...`` (a weight of 1 may be left out)."""
        pieces = re.findall(r"[+-]?[^+-]+", text.replace(" ", ""))
        weights: dict[str, float] = {}
        for piece in pieces:
            match = _TERM.match(piece)
            if match is None or match.group(2) not in TERMS:
                raise RewardError(f"reward {text!r}: {piece!r} is not WEIGHT*TERM with TERM one of {', '.join(TERMS)}")
            sign_weight = match.group(1).replace(" ", "")
            weight = float(sign_weight + "1") if sign_weight in ("", "+", "-") else float(sign_weight)
            weights[match.group(2)] = weights.get(match.group(2), 0.0) + weight
        if not weights:
            raise RewardError(f"reward {text!r}: no terms")
        return cls(tuple(weights.items()))

    @property
    def text(self) -> str:
        """The canonical spelling (what signatures and ``info`` carry)."""
        out = ""
        for name, weight in self.weights:
            sign = "-" if weight < 0 else "+"
            magnitude = abs(weight)
            term = name if magnitude == 1 else f"{magnitude:g}*{name}"
            out += term if not out and sign == "+" else f"{sign}{term}"
        return out

    @property
    def metrics(self) -> tuple[str, ...]:
        """Registered metrics besides mwzeval's that the terms need."""
        names = {"inv_sent": "fluency", "sess": "coherence"}
        return tuple(names[t] for t, _ in self.weights if t in names)

    def as_json(self) -> dict[str, Any]:
        """What ``info["reward_spec"]`` and a signature carry."""
        return {"spec": self.text, "terms": {t: w for t, w in self.weights}, "when": "end of episode"}

    def value(self, figures: Mapping[str, float]) -> float:
        """The reward of a session's figures (each term by name)."""
        return float(sum(w * float(figures.get(t) or 0.0) for t, w in self.weights))


SPLITS = (
    "validation",
    "train",
    "test",
)  # training goals from 2.1 validation (train where present), evaluation from test


@dataclasses.dataclass(frozen=True)
class GoalSplit:
    """Where an environment's goals come from; ``evaluation`` is True for test goals (an agent
    trained on them is measured on what it learnt from)."""

    split: str
    count: int

    @property
    def evaluation(self) -> bool:
        """Whether these are evaluation (test) goals."""
        return self.split == "test"

    def as_json(self) -> dict[str, Any]:
        """What ``info`` and signatures carry."""
        return {"split": self.split, "goals": self.count, "evaluation": self.evaluation}
