"""Where the cards live and how they are read.

A card is a Markdown file with YAML front matter, the Hub's README.md format:
``cards/datasets/<name>.md`` for every dataset and ``cards/metrics/<name>.md`` for
every metric registered through the plugin hooks. A third-party plugin may ship
its metric's card as ``README.md`` beside the module script instead (evaluate's
own layout); ours wins when both exist. What needs a card is read from the
registry, so a new dataset or metric without one is reported, never skipped.
"""

from __future__ import annotations

import dataclasses
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from mwz_plugins.errors import InputError

CARDS_PACKAGE = "mwz_hub"
KINDS = ("datasets", "metrics")

# Front-matter keys that configure the export and are removed from the published card.
PRIVATE_KEYS = ("mwz_extras",)


class CardError(InputError):
    """A card is missing or malformed."""


@dataclasses.dataclass(frozen=True)
class Card:
    """A card: its YAML front matter (public and private keys) and Markdown body."""

    kind: str  # "datasets" or "metrics"
    name: str
    path: Path
    metadata: dict[str, Any]
    body: str

    @property
    def public_metadata(self) -> dict[str, Any]:
        """The front matter published to the Hub (private keys removed)."""
        return {k: v for k, v in self.metadata.items() if k not in PRIVATE_KEYS}

    def private(self, key: str, default: Any = None) -> Any:
        """A private front-matter value (used by the export, not published)."""
        return self.metadata.get(key, default)


def cards_dir() -> Path:
    """The folder of the shipped cards."""
    return Path(str(resources.files(CARDS_PACKAGE).joinpath("cards")))


def registered_names(kind: str) -> list[str]:
    """The registered datasets or metrics, in registry order."""
    from mwz_plugins import get_registry

    if kind not in KINDS:
        raise InputError(f"unknown card kind {kind!r}; expected one of {KINDS}")
    return list(getattr(get_registry(), kind))


def _plugin_card(kind: str, name: str) -> Path | None:
    if kind != "metrics":
        return None
    from mwz_metrics.routing import script_path

    try:
        candidate = script_path(name).with_name("README.md")
    except (KeyError, FileNotFoundError):
        return None
    return candidate if candidate.is_file() else None


def card_path(kind: str, name: str) -> Path:
    """The card of a registered dataset or metric; :class:`CardError` when there is none."""
    ours = cards_dir() / kind / f"{name}.md"
    if ours.is_file():
        return ours
    shipped = _plugin_card(kind, name)
    if shipped is not None:
        return shipped
    raise CardError(
        f"{kind[:-1]} {name!r} is registered but has no card: write {ours} "
        f"(see the other cards in {ours.parent} for the template)"
    )


def parse(text: str, where: str) -> tuple[dict[str, Any], str]:
    """Split a card into its YAML front matter and Markdown body."""
    if not text.startswith("---\n"):
        raise CardError(f"{where}: a card must start with YAML front matter ('---' on the first line)")
    end = text.find("\n---\n", 4)
    if end < 0:
        raise CardError(f"{where}: the front matter has no closing '---' line")
    try:
        metadata = yaml.safe_load(text[4:end]) or {}
    except yaml.YAMLError as error:
        raise CardError(f"{where}: broken YAML front matter: {error}") from None
    if not isinstance(metadata, dict):
        raise CardError(f"{where}: the front matter must be a mapping")
    return metadata, text[end + len("\n---\n") :]


def load_card(kind: str, name: str) -> Card:
    """The card of a registered dataset or metric (``kind``: datasets or metrics)."""
    path = card_path(kind, name)
    metadata, body = parse(path.read_text(encoding="utf-8"), str(path))
    return Card(kind, name, path, metadata, body)


def missing_cards() -> dict[str, list[str]]:
    """Registered names without a card, by kind (empty lists when all have one)."""
    missing: dict[str, list[str]] = {}
    for kind in KINDS:
        missing[kind] = []
        for name in registered_names(kind):
            try:
                card_path(kind, name)
            except CardError:
                missing[kind].append(name)
    return missing


def render(metadata: dict[str, Any], body: str) -> str:
    """A README.md: front matter (key order kept, ``'2.2'`` stays a string) and body."""
    front = yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{front}---\n{body if body.startswith(chr(10)) else chr(10) + body}"
