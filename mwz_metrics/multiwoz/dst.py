"""Dialogue state tracking scores, as mwzeval's ``dst`` option.

Joint accuracy (same slots, every value a fuzzy match) and slot precision,
recall and F1 over (domain, slot) pairs; a value matches when its partial ratio
with the reference exceeds 95.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from mwz_plugins.ontology import State

FUZZY_RATIO = 95
DST_KEYS = ("joint_accuracy", "slot_f1")  # its figures, in the order it gives them


def _flatten(state: State) -> dict[tuple[str, str], str]:
    return {(domain, slot): value for domain, slots in state.items() for slot, value in slots.items()}


def dst_scores(
    predicted: Mapping[str, Sequence[State]],
    gold: Mapping[str, Sequence[State]],
    partial_ratio: Callable[[str, str], float],
) -> dict[str, float]:
    """Joint accuracy and slot precision/recall/F1 of predicted against gold states, as mwzeval."""

    def match(a: str, b: str) -> bool:
        return partial_ratio(a, b) > FUZZY_RATIO

    joint = turns = tp = fp = fn = 0
    for key, states in predicted.items():
        for i, state in enumerate(states):
            hyp, ref = _flatten(state), _flatten(gold[key][i])
            if hyp.keys() == ref.keys() and all(match(hyp[k], ref[k]) for k in ref):
                joint += 1
            for slot, value in hyp.items():
                if slot in ref and match(value, ref[slot]):
                    tp += 1
                else:
                    fp += 1
            for slot, value in ref.items():
                if slot not in hyp or not match(hyp[slot], value):
                    fn += 1
            turns += 1
    # mwzeval's epsilons, kept so that the numbers agree.
    precision = tp / (tp + fp + 1e-10)
    recall = tp / (tp + fn + 1e-10)
    return {
        "joint_accuracy": joint / (turns + 1e-10) * 100,
        "slot_f1": 2 * precision * recall / (precision + recall + 1e-10) * 100,
        "slot_precision": precision,
        "slot_recall": recall,
    }
