"""Response and state normalization, exactly as mwzeval's ``normalize_data``.

Responses: lowercase; ``[slot]`` placeholders (with an optional plural suffix
``es|s|-s|-es``) mapped onto the unified ontology through the registered delex
styles; ``-s`` and ``-ly`` removed; Moses tokenize + detokenize. States: slot
names lowercased without spaces, ``arriveby``/``leaveat`` -> ``arrive``/``leave``,
values through a normalizer chain. Nothing is modified in place.
"""

from __future__ import annotations

import collections
import functools
import re
from collections.abc import Callable, Iterable, Mapping

from mwz_metrics.multiwoz import moses
from mwz_plugins import get_registry
from mwz_plugins.ontology import PLACEHOLDER_RE

State = dict[str, dict[str, str]]  # a new, normalized state


class UnknownPlaceholders:
    """Counts placeholder names no style maps (mwzeval drops them: they become '')."""

    def __init__(self) -> None:
        self.counts: collections.Counter[str] = collections.Counter()
        self.examples: dict[str, str] = {}

    def add(self, name: str, where: str) -> None:
        """Count one unknown placeholder seen at ``where``."""
        self.counts[name] += 1
        self.examples.setdefault(name, where)

    def as_dict(self) -> dict:
        """JSON form (for the derived-data cache)."""
        return {"counts": dict(self.counts), "examples": dict(self.examples)}

    @classmethod
    def from_dict(cls, data: Mapping) -> UnknownPlaceholders:
        """Rebuild from :meth:`as_dict`."""
        report = cls()
        report.counts.update(data.get("counts", {}))
        report.examples.update(data.get("examples", {}))
        return report

    def as_warning(self) -> dict | None:
        """The result's warning entry, or None when nothing was unknown."""
        if not self.counts:
            return None
        return {
            "kind": "unknown_placeholder",
            "count": sum(self.counts.values()),
            "names": dict(self.counts.most_common()),
            "examples": {name: self.examples[name] for name, _ in self.counts.most_common(10)},
            "effect": "replaced by an empty string, as mwzeval does",
        }


class ResponseNormalizer:
    """Normalizes responses; identical inputs are normalized once."""

    def __init__(self, placeholder_map: Mapping[str, str] | None = None) -> None:
        self.placeholders = dict(placeholder_map if placeholder_map is not None else get_registry().placeholder_map())
        self._cache: dict[str, tuple[str, tuple[str, ...]]] = {}

    def _placeholders(self, text: str, unknown: list[str]) -> str:
        def replace(match: re.Match) -> str:
            name = match.group(1).lower()
            slot = self.placeholders.get(name)
            if slot is None:
                unknown.append(name)
                return ""
            return slot

        return PLACEHOLDER_RE.sub(replace, text.lower())

    def normalize(self, response: str, where: str = "", report: UnknownPlaceholders | None = None) -> str:
        """mwzeval's normalization of one response; unknown placeholders counted in ``report``."""
        cached = self._cache.get(response)
        if cached is None:
            unknown: list[str] = []
            text = self._placeholders(response, unknown).replace("-s", "").replace("-ly", "")
            text = moses.round_trip(text)
            cached = self._cache[response] = (text, tuple(unknown))
        if report is not None:
            for name in cached[1]:
                report.add(name, where)
        return cached[0]

    def normalize_all(
        self, dialogues: Mapping[str, Iterable[str]], report: UnknownPlaceholders | None = None
    ) -> dict[str, list[str]]:
        """Normalize every dialogue's responses, naming dialogue and turn in the report."""
        return {
            key: [self.normalize(r, f"{key} turn {i}", report) for i, r in enumerate(responses)]
            for key, responses in dialogues.items()
        }


_SLOT_RENAMES = {"arriveby": "arrive", "leaveat": "leave"}


@functools.lru_cache(maxsize=4096)
def normalize_slot_name(slot: str) -> str:
    """Slot names as mwzeval writes them: lowercase, no spaces, ``arrive``/``leave``."""
    slot = slot.lower().replace(" ", "")
    return _SLOT_RENAMES.get(slot, slot)


def normalize_state(state: Mapping[str, Mapping[str, str]], chain: Callable[[str | None, str, str], str]) -> State:
    """A new state with slot names and values normalized as mwzeval does."""
    out: State = {}
    for domain, slots in state.items():
        new: dict[str, str] = {}
        for slot, value in slots.items():
            name = normalize_slot_name(slot)
            new[name] = chain(domain, name, value)
        out[domain] = new
    return out
