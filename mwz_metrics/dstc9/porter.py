"""The Porter stemmer as nltk 3.5's ``PorterStemmer()`` (mode ``NLTK_EXTENSIONS``) stems lowercase words.

METEOR's stem stage needs it, and importing nltk costs seconds (with scipy installed, over
three): this is Porter's algorithm (1980) with nltk's extensions, written here, so that scoring a
DSTC9 entry never imports nltk. nltk's extensions: a pool of irregular forms (``dying`` ->
``die``, ``skies`` -> ``sky``...), words of two letters or fewer kept, ``ies``/``ied`` of four
letters -> ``ie``, ``ied`` -> ``i``, step 1c's ``y`` -> ``i`` only after a consonant that is not the
whole stem, the ``cvc`` test true for a two-letter vowel-consonant stem, step 2's ``alli`` (then
step 2 again), ``bli`` -> ``ble``, ``fulli`` -> ``ful`` and ``logi`` -> ``log``. Parity with nltk is
tested on every word of the DSTC9 references, knowledge and entries and on WordNet's vocabulary.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

VERSION = "nltk-3.5-NLTK_EXTENSIONS"

_VOWELS = frozenset("aeiou")
_IRREGULAR = {
    "sky": ("sky", "skies"),
    "die": ("dying",),
    "lie": ("lying",),
    "tie": ("tying",),
    "news": ("news",),
    "inning": ("innings", "inning"),
    "outing": ("outings", "outing"),
    "canning": ("cannings", "canning"),
    "howe": ("howe",),
    "proceed": ("proceed",),
    "exceed": ("exceed",),
    "succeed": ("succeed",),
}
_POOL = {form: stem for stem, forms in _IRREGULAR.items() for form in forms}

Condition = Callable[[str], bool] | None


def _consonants(word: str) -> list[bool]:
    """Per letter, whether it is a consonant: not a vowel, and a ``y`` only after a vowel (or first)."""
    flags: list[bool] = []
    for i, letter in enumerate(word):
        if letter in _VOWELS:
            flags.append(False)
        elif letter == "y":
            flags.append(True if i == 0 else not flags[i - 1])
        else:
            flags.append(True)
    return flags


def _measure(stem: str) -> int:
    """Porter's m: the number of vowel-consonant sequences."""
    flags = _consonants(stem)
    return sum(1 for a, b in zip(flags, flags[1:]) if not a and b)


def _positive(stem: str) -> bool:
    return _measure(stem) > 0


def _above_one(stem: str) -> bool:
    return _measure(stem) > 1


def _has_vowel(stem: str) -> bool:
    return not all(_consonants(stem))


def _double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _consonants(word)[-1]


def _cvc(word: str) -> bool:
    """Consonant-vowel-consonant at the end, the last not w, x or y (or, nltk, a two-letter vowel-consonant word)."""
    flags = _consonants(word)
    if len(word) >= 3 and flags[-3] and not flags[-2] and flags[-1] and word[-1] not in "wxy":
        return True
    return len(word) == 2 and not flags[0] and flags[1]


def _rules(word: str, rules: list[tuple[str, str, Condition]]) -> str:
    """The first rule whose suffix ends ``word`` decides: replaced if its condition holds, else kept.
    The suffix ``*d`` stands for a double consonant."""
    for suffix, replacement, condition in rules:
        if suffix == "*d":
            if not _double_consonant(word):
                continue
            stem = word[:-2]
        elif word.endswith(suffix):
            stem = word[: len(word) - len(suffix)]
        else:
            continue
        return stem + replacement if condition is None or condition(stem) else word
    return word


def _step1a(word: str) -> str:
    if word.endswith("ies") and len(word) == 4:
        return word[:-3] + "ie"
    return _rules(word, [("sses", "ss", None), ("ies", "i", None), ("ss", "ss", None), ("s", "", None)])


def _step1b(word: str) -> str:
    if word.endswith("ied"):
        return word[:-3] + ("ie" if len(word) == 4 else "i")
    if word.endswith("eed"):
        stem = word[:-3]
        return stem + "ee" if _measure(stem) > 0 else word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
            stem = word[: -len(suffix)]
            break
    else:
        return word
    last = stem[-1]
    return _rules(
        stem,
        [
            ("at", "ate", None),
            ("bl", "ble", None),
            ("iz", "ize", None),
            ("*d", last, lambda _: last not in "lsz"),
            ("", "e", lambda s: _measure(s) == 1 and _cvc(s)),
        ],
    )


def _step1c(word: str) -> str:
    return _rules(word, [("y", "i", lambda stem: len(stem) > 1 and _consonants(stem)[-1])])


_STEP2 = [
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("bli", "ble"),
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
    ("fulli", "ful"),
]


def _step2(word: str) -> str:
    if word.endswith("alli") and _positive(word[:-4]):
        return _step2(word[:-4] + "al")
    rules: list[tuple[str, str, Condition]] = [(s, r, _positive) for s, r in _STEP2]
    rules.append(("logi", "log", lambda _: _positive(word[:-3])))
    return _rules(word, rules)


def _step3(word: str) -> str:
    suffixes = [
        ("icate", "ic"),
        ("ative", ""),
        ("alize", "al"),
        ("iciti", "ic"),
        ("ical", "ic"),
        ("ful", ""),
        ("ness", ""),
    ]
    return _rules(word, [(s, r, _positive) for s, r in suffixes])


_STEP4 = ("al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent")
_STEP4_AFTER_ION = ("ou", "ism", "ate", "iti", "ous", "ive", "ize")


def _step4(word: str) -> str:
    rules: list[tuple[str, str, Condition]] = [(s, "", _above_one) for s in _STEP4]
    rules.append(("ion", "", lambda stem: _measure(stem) > 1 and stem[-1:] in ("s", "t")))
    rules += [(s, "", _above_one) for s in _STEP4_AFTER_ION]
    return _rules(word, rules)


def _step5(word: str) -> str:
    if word.endswith("e"):
        stem = word[:-1]
        measure = _measure(stem)
        if measure > 1 or (measure == 1 and not _cvc(stem)):
            word = stem
    return _rules(word, [("ll", "l", lambda _: _measure(word[:-1]) > 1)])


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """The Porter stem of ``word`` as nltk 3.5 gives it (which looks up its irregular forms and
    keeps short words before lowercasing, as here)."""
    if word in _POOL:
        return _POOL[word]
    if len(word) <= 2:
        return word
    stemmed = word.lower()
    for step in (_step1a, _step1b, _step1c, _step2, _step3, _step4, _step5):
        stemmed = step(stemmed)
    return stemmed
