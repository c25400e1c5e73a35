"""Reference data composed from the datasets: references per style, gold states.

mwzeval's construction from MultiWOZ 2.2: each system turn delexicalized by a
style (``mwz22``: spans sorted by start, overlapping and ``dontcare`` spans
skipped) then normalized like hypotheses; the gold state of a system turn is the
preceding user turn's ``slot_values`` (first value of each non-dontcare slot,
slot name without its domain prefix), normalized like predicted states.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from mwz_datasets.multiwoz_raw import evaluation_key as dialogue_key
from mwz_metrics.multiwoz.normalize import ResponseNormalizer, State, UnknownPlaceholders, normalize_state
from mwz_metrics.records.corpus import dialogue_turns, span_copy
from mwz_plugins import DelexStyle, get_registry
from mwz_plugins.progress import progress

# The style of the oracle's predictions: mwzeval delexicalizes the 2.2 references this way.
CANONICAL_STYLE = "mwz22"


def _state_of_user_turn(turn: Mapping) -> State:
    state: State = {}
    for frame in turn.get("frames") or []:
        slots = {}
        for item in frame["slot_values"]:
            if "dontcare" in item["values"]:
                continue
            slots[item["slot"].split("-")[1]] = item["values"][0]
        if slots:
            state[frame["service"]] = slots
    return state


def _spans(turn: Mapping) -> list[dict]:
    return [span_copy(s) for s in turn["spans"]]


def build_from_22(
    dialogues: Iterable[Mapping],
    styles: Mapping[str, DelexStyle],
    normalizer: ResponseNormalizer,
    chain: Callable[[str | None, str, str], str],
    report: UnknownPlaceholders | None = None,
) -> tuple[dict[str, dict[str, list[str]]], dict[str, list[State]], dict[str, list[str]]]:
    """References per style, gold states, and the canonical (``mwz22``) delexicalized
    system turns before normalization, from MultiWOZ 2.2 dialogues (unified schema)."""
    references: dict[str, dict[str, list[str]]] = {name: {} for name in styles}
    raw_references: dict[str, list[str]] = {}
    gold: dict[str, list[State]] = {}
    canonical_style = get_registry().styles[CANONICAL_STYLE]
    for dialogue in progress(dialogues, "building MultiWOZ 2.2 references"):
        key = dialogue_key(dialogue["dialogue_id"])
        states: list[State] = []
        per_style: dict[str, list[str]] = {name: [] for name in styles}
        canonical: list[str] = []
        state: State = {}
        # mwzeval alternates by position: even turns are the user's.
        for index, turn in enumerate(dialogue_turns(dialogue)):
            if index % 2 == 0:
                state = _state_of_user_turn(turn)
                continue
            spans = _spans(turn)
            canonical.append(
                canonical_style.delexicalize(  # type: ignore[misc]
                    turn["utterance"], spans
                )
            )
            for name, style in styles.items():
                assert style.delexicalize is not None  # only styles that build references are passed
                text = style.delexicalize(turn["utterance"], spans)
                per_style[name].append(normalizer.normalize(text, f"reference {key} turn {len(states)}", report))
            states.append(normalize_state(state, chain))
        for name in styles:
            references[name][key] = per_style[name]
        gold[key] = states
        raw_references[key] = canonical
    return references, gold, raw_references
