"""A predictions file as a system: its turns of each dialogue in order, whatever the user says.

This is static evaluation's system in the interactive harness: with the ``replay`` simulator a
session is the file's dialogue again (and scores exactly as ``mwz evaluate``); with any other
simulator it shows how a system that cannot listen fares.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from mwz_datasets.multiwoz_raw import evaluation_key
from mwz_datasets.sources import sha256_file
from mwz_metrics.inputs import load_predictions
from mwz_metrics.interactive.protocol import SessionEnd, SystemTurn


class PredictionsSystem:
    """Answers with a predictions file's turns (mwzeval's format)."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = str(path)
        self.predictions = load_predictions(self.path)
        self.sha256 = sha256_file(path)  # type: ignore[arg-type]
        self.name = os.path.basename(self.path)

    def dialogues(self) -> list[str]:
        """The dialogue ids the file has turns for."""
        return list(self.predictions)

    def respond(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """The file's turn number ``turn`` of the dialogue."""
        turns = self.predictions.get(evaluation_key(str(request.get("dialogue_id", ""))))
        index = int(request.get("turn", 0))
        if turns is None:
            raise SessionEnd("system_out_of_turns", f"{self.path} has no turns for this dialogue")
        if index >= len(turns):
            raise SessionEnd("system_out_of_turns", f"{self.path} has {len(turns)} turns for this dialogue")
        turn = turns[index]
        return SystemTurn(turn.response, turn.state, turn.active_domains).prediction()
