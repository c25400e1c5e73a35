"""Response and state normalization, exactly as mwzeval's ``normalize_data``.

Responses: lowercase; ``[slot]`` placeholders (with an optional plural suffix
``es|s|-s|-es``) mapped onto the unified ontology through the registered delex
styles; ``-s`` and ``-ly`` removed; Moses tokenize + detokenize. States: slot
names lowercased without spaces, ``arriveby``/``leaveat`` -> ``arrive``/``leave``,
values through a normalizer chain. Nothing is modified in place.

The Moses round trip is mwzeval's (sacremoses' English tokenize, then detokenize), done here on
ASCII text without sacremoses: mwzeval normalizes every response with ``MosesDetokenizer(lang="en").
detokenize(MosesTokenizer(lang="en").tokenize(text))``, and importing sacremoses costs about 0.7 s per
process (it compiles regular expressions over every Unicode letter, digit and symbol, and imports
joblib), most of a whole ``mwz evaluate`` run. On ASCII text, Unicode classes act exactly as their
ASCII members, so the same steps run on small ASCII classes; any other text goes to sacremoses
itself (imported then). ``tests/metrics/test_tokenizers.py`` checks the classes against sacremoses' and
the output against it on every response and reference in ``../shared`` and on generated text.
"""

from __future__ import annotations

import collections
import functools
import importlib.util
import re
import string
from collections.abc import Callable, Iterable, Mapping
from typing import Any

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
            text = round_trip(text)
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


# The ASCII members of sacremoses' Perl Unicode classes (the tests check them against sacremoses).
ALNUM = "A-Za-z0-9"
ALPHA = "A-Za-z"
DIGIT = "0-9"  # IsN
LOWER = frozenset(string.ascii_lowercase)
LETTERS = frozenset(string.ascii_letters)

_SPACES = re.compile(r"\s+")
_CONTROL = re.compile(r"[\000-\037]")
_PAD_NOT_ALNUM = re.compile(rf"([^{ALNUM}\s\.'\`\,\-])")
# The same padding as one str.translate: the class matches single characters (on ASCII text)
_PAD_TABLE = str.maketrans({chr(c): f" {chr(c)} " for c in range(128) if _PAD_NOT_ALNUM.fullmatch(chr(c))})
_MULTIDOT_RUN = re.compile(r"\.{2,}")
_MULTIDOT_MARKER = re.compile(r"(?:DOT)+MULTI")
_COMMA = (
    (re.compile(rf"([^{DIGIT}])[,]"), r"\1 , "),
    (re.compile(rf"[,]([^{DIGIT}])"), r" , \1"),
    (re.compile(rf"([{DIGIT}])[,]$"), r"\1 , "),
)
_APOSTROPHE = (
    (re.compile(rf"([^{ALPHA}])[']([^{ALPHA}])"), r"\1 ' \2"),
    (re.compile(rf"([^{ALPHA}{DIGIT}])[']([{ALPHA}])"), r"\1 ' \2"),
    (re.compile(rf"([{ALPHA}])[']([^{ALPHA}])"), r"\1 ' \2"),
    (re.compile(rf"([{ALPHA}])[']([{ALPHA}])"), r"\1 '\2"),
    (re.compile(rf"([{DIGIT}])[']([s])"), r"\1 '\2"),
)
_STARTS_WITH_DIGIT = re.compile(r"^[0-9]+")
_TRAILING_DOT_APOSTROPHE = re.compile(r"\.' ?$")
# sacremoses' escape_xml and unescape_xml, in its order (literal patterns: str.replace is the same)
_ESCAPES: tuple[tuple[str, str], ...] = (
    ("&", "&amp;"),
    ("|", "&#124;"),
    ("<", "&lt;"),
    (">", "&gt;"),
    ("'", "&apos;"),
    ('"', "&quot;"),
    ("[", "&#91;"),
    ("]", "&#93;"),
)
_UNESCAPES: tuple[tuple[str, str], ...] = (
    ("&bar;", "|"),
    ("&#124;", "|"),
    ("&lt;", "<"),
    ("&gt;", ">"),
    ("&bra;", "["),
    ("&ket;", "]"),
    ("&quot;", '"'),
    ("&apos;", "'"),
    ("&#91;", "["),
    ("&#93;", "]"),
    ("&amp;", "&"),
)
# The detokenizer's token classes (sacremoses' ^[...]+$ patterns; a token holds no whitespace)
_CURRENCY_CHARS = frozenset("$([{")  # IsSc's ASCII member, "$", and opening brackets
_PUNCT_CHARS = frozenset(",.?!:;\\%}])")
_QUOTE_CHARS = frozenset("'\"`")
_ONE_SPACE = re.compile(r" {2,}")


@functools.cache
def _prefixes() -> tuple[frozenset[str], frozenset[str]]:
    """sacremoses' English nonbreaking prefixes, and those that hold only before a number.

    Read from its data module, loaded by file: importing ``sacremoses.<anything>`` runs the
    package's ``__init__`` (the slow part this module avoids)."""
    spec = importlib.util.find_spec("sacremoses")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("sacremoses is not installed")
    path = f"{list(spec.submodule_search_locations)[0]}/_data_nonbreaking_prefixes.py"
    data_spec = importlib.util.spec_from_file_location("_mwz_moses_prefixes", path)
    if data_spec is None or data_spec.loader is None:
        raise ImportError(f"cannot read {path}")
    module = importlib.util.module_from_spec(data_spec)
    data_spec.loader.exec_module(module)
    words = [line.strip() for line in module.NONBREAKING_PREFIXES["nonbreaking_prefix.en"].splitlines()]
    words = [w for w in words if w and not w.startswith("#")]
    numeric_only = frozenset(w.rpartition(" ")[0] for w in words if re.search(r"\s\#NUMERIC_ONLY\#", w))
    return frozenset(words), numeric_only


def _multidots(text: str) -> str:
    def marker(match: re.Match) -> str:
        dots = " " + "DOT" * (match.end() - match.start()) + "MULTI"
        return dots + " " if match.end() < len(text) else dots

    return _MULTIDOT_RUN.sub(marker, text)


def _nonbreaking(text: str) -> str:
    prefixes, numeric_only = _prefixes()
    tokens = text.split()
    last = len(tokens) - 1
    for i, token in enumerate(tokens):
        if len(token) < 2 or not token.endswith("."):  # ^(\S+)\.$ on a token without spaces
            continue
        prefix = token[:-1]
        keep = (
            ("." in prefix and not LETTERS.isdisjoint(prefix))
            or (prefix in prefixes and prefix not in numeric_only)
            or (i != last and bool(tokens[i + 1]) and tokens[i + 1][0] in LOWER)
            or (prefix in numeric_only and i < last and bool(_STARTS_WITH_DIGIT.search(tokens[i + 1])))
        )
        if not keep:
            tokens[i] = prefix + " ."
    return " ".join(tokens)


def tokenize(text: str) -> list[str]:
    """``MosesTokenizer(lang="en").tokenize(text)`` (default options) for ASCII ``text``."""
    text = _CONTROL.sub("", _SPACES.sub(" ", text)).strip()
    text = text.translate(_PAD_TABLE)
    text = _multidots(text)
    if "," in text:  # each rule needs the character it splits off
        for pattern, replacement in _COMMA:
            text = pattern.sub(replacement, text)
    if "'" in text:
        for pattern, replacement in _APOSTROPHE:
            text = pattern.sub(replacement, text)
    text = _nonbreaking(text)
    text = _SPACES.sub(" ", text).strip()
    text = _TRAILING_DOT_APOSTROPHE.sub(" . ' ", text)
    text = _MULTIDOT_MARKER.sub(lambda m: "." * ((m.end() - m.start() - 5) // 3), text)
    for plain, escaped in _ESCAPES:
        text = text.replace(plain, escaped)
    return text.split()


def detokenize(tokens: list[str]) -> str:
    """``MosesDetokenizer(lang="en").detokenize(tokens)`` for ASCII tokens."""
    text = " " + " ".join(tokens) + " "
    text = text.replace(" @-@ ", "-")
    for escaped, plain in _UNESCAPES:
        text = text.replace(escaped, plain)
    quotes: dict[str, int] = {}
    space = " "
    out: list[str] = []
    words = text.split()
    for i, token in enumerate(words):
        characters = set(token)
        if characters <= _CURRENCY_CHARS:
            out.append(space + token)
            space = ""
        elif characters <= _PUNCT_CHARS or (i > 0 and token[0] == "'" and token[1:2] in LETTERS):
            out.append(token)  # punctuation, an English contraction ('s, 're...)
            space = " "
        elif characters <= _QUOTE_CHARS:
            count = quotes.get(token, 0)
            if count % 2 == 0:
                if token == "'" and i > 0 and words[i - 1].endswith("s"):
                    out.append(token)  # a possessive: "the Jones' house"
                    space = " "
                    quotes[token] = count
                else:
                    out.append(space + token)
                    space = ""
                    quotes[token] = count + 1
            else:
                out.append(token)
                space = " "
                quotes[token] = count + 1
        else:
            out.append(space + token)
            space = " "
    return _ONE_SPACE.sub(" ", "".join(out)).strip()


@functools.cache
def _sacremoses() -> tuple[Any, Any]:
    from sacremoses import MosesDetokenizer, MosesTokenizer

    return MosesTokenizer(lang="en"), MosesDetokenizer(lang="en")


def round_trip(text: str) -> str:
    """mwzeval's Moses step: English tokenize, then detokenize (sacremoses itself on non-ASCII text)."""
    if text.isascii():
        return detokenize(tokenize(text))
    tokenizer, detokenizer = _sacremoses()
    return detokenizer.detokenize(tokenizer.tokenize(text))
