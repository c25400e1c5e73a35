"""The MultiWOZ 2.1 wizards (validation; train where present) at the act level: their turns as the protocol's history, and
how often each act set is said. The act vocabulary is the act sets they say most
(:func:`~mwz_metrics.training.act_level.vocabulary`); imitation learns to say what they said
(:func:`~mwz_metrics.training.imitation.wizard_demonstrations`).

Test is never read (the house rule: anything learnt comes from validation, or train where present;
anything measured from test). Derived once per data and code version and cached on disk, like the other derived material.
"""

from __future__ import annotations

import logging
import weakref
from collections import Counter
from typing import Any

from mwz_metrics.interactive.acts import from_dataset, parse_acts
from mwz_metrics.interactive.language.extract import detokenize, signature
from mwz_metrics.records.corpus import dialogue_turns, is_user_turn
from mwz_metrics.records.turns import SYSTEM, USER, is_system

logger = logging.getLogger(__name__)

# per context (weakly, as the training goals), per split
_DIALOGUES: weakref.WeakKeyDictionary[Any, dict[str, list[dict[str, Any]]]] = weakref.WeakKeyDictionary()


def dialogues(context: Any, split: str = "validation") -> list[dict[str, Any]]:
    """Every dialogue of ``split`` (validation; train where the full file is present) as
    ``{"key", "history"}``: its turns as a system receives them (``speaker`` ``user``/``system``,
    ``text``, ``acts`` as lists), in source order."""
    if split == "test":
        raise ValueError("the wizards of the test split are what is measured, never learnt from")
    found = _DIALOGUES.setdefault(context, {})
    if split not in found:
        from mwz_datasets import multiwoz_raw
        from mwz_datasets.derived import cached
        from mwz_metrics.interactive.harness.context import code_fingerprint

        paths, checksum = context.dialogue_files(split)

        def build() -> list[dict[str, Any]]:
            logger.info("reading the wizards' turns of MultiWOZ 2.1 %s (cached afterwards)", split)
            out = []
            for dialogue in multiwoz_raw.iter_dialogues("2.1", split, paths):
                history = [
                    {
                        "speaker": USER if is_user_turn(turn) else SYSTEM,
                        "text": detokenize(turn["utterance"]),
                        "acts": [a.as_list() for a in from_dataset(turn["dialogue_acts"])],
                    }
                    for turn in dialogue_turns(dialogue)
                ]
                out.append({"key": dialogue["key"], "history": history})
            return out

        found[split] = cached(f"training-wizard-turns-{split}", [checksum, code_fingerprint()], build)
    return found[split]


def act_sets(context: Any) -> Counter[str]:
    """How many validation wizard turns say each act set (its signature; turns without acts left out).
    Validation only, whatever the training split: the act level is one fixed, versioned definition."""
    counts: Counter[str] = Counter()
    for dialogue in dialogues(context, "validation"):
        for entry in dialogue["history"]:
            if is_system(entry) and entry["acts"]:
                counts[signature(parse_acts(entry["acts"]))] += 1
    return counts
