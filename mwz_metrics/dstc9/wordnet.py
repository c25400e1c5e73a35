"""A minimal WordNet 3.0 reader: the synonyms nltk 3.5's METEOR looks up.

nltk 3.5 ``single_meteor_score`` matches a hypothesis word to a reference word
when the reference word is among the lemma names (without "_") of
``wordnet.synsets(word)``. This reads the same database files (``index.*``,
``data.*``, ``*.exc``) and applies nltk's ``_morphy`` rules, without needing
nltk's ``lexnames`` file. Located, in order:

1. ``$MWZ_WORDNET`` (a folder holding ``index.noun``...), the only place looked where it is set;
2. Debian's ``wordnet-base`` package (``/usr/share/wordnet``);
3. nltk's downloaded WordNet (``<nltk_data>/corpora/wordnet`` or ``wordnet.zip``).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import mmap
import os
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

from mwz_plugins.errors import InputError, MwzError

logger = logging.getLogger(__name__)

WORDNET_ENV = "MWZ_WORDNET"
DEBIAN_DIRS = ("/usr/share/wordnet", "/usr/share/wordnet/dict")
_POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}  # nltk's POS_LIST order
_REQUIRED = ("index.noun", "data.noun", "noun.exc")

# nltk 3.5 WordNetCorpusReader.MORPHOLOGICAL_SUBSTITUTIONS
_SUBSTITUTIONS = {
    "n": [
        ("s", ""),
        ("ses", "s"),
        ("ves", "f"),
        ("xes", "x"),
        ("zes", "z"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("men", "man"),
        ("ies", "y"),
    ],
    "v": [("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")],
    "a": [("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
    "r": [],
}
# A lemma in a data file may carry a syntactic marker, e.g. "galore(ip)".
_MARKER = re.compile(r"(.*?)(\(.*\))?$")


class WordNetNotFoundError(MwzError, RuntimeError):
    """WordNet 3.0 is needed for METEOR and is not installed."""


def _nltk_data_dirs() -> list[Path]:
    try:
        # optional: only to honour the user's nltk_data paths (importing nltk takes seconds,
        # so this runs only when neither MWZ_WORDNET nor Debian's WordNet is there)
        import nltk.data

        paths = list(nltk.data.path)
    except ImportError:
        home = os.path.expanduser("~")
        paths = [
            os.path.join(home, "nltk_data"),
            os.path.join(sys.prefix, "nltk_data"),
            "/usr/share/nltk_data",
            "/usr/local/share/nltk_data",
            "/usr/lib/nltk_data",
            "/usr/local/lib/nltk_data",
        ]
        if os.environ.get("NLTK_DATA"):
            paths = os.environ["NLTK_DATA"].split(os.pathsep) + paths
    return [Path(p) / "corpora" for p in paths]


class _Files:
    """Reads WordNet files from a folder or from nltk's zip."""

    def __init__(self, location: Path, member_prefix: str | None = None):
        self.location = location
        self.member_prefix = member_prefix  # set for a zip

    def read(self, name: str) -> bytes:
        if self.member_prefix is None:
            return (self.location / name).read_bytes()
        with zipfile.ZipFile(self.location) as archive:
            return archive.read(self.member_prefix + name)

    def open(self, name: str):
        """The file's bytes, mapped where it is a file of its own (read lazily by the OS)."""
        if self.member_prefix is not None:
            return self.read(name)
        with open(self.location / name, "rb") as handle:
            return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)

    def describe(self) -> str:
        return str(self.location) + (f"!{self.member_prefix}" if self.member_prefix else "")


def locate() -> _Files:
    """The WordNet files to use; raises :class:`WordNetNotFoundError` naming both fixes."""
    looked: list[str] = []
    chosen = os.environ.get(WORDNET_ENV)  # the user's choice is the only place looked: no silent fallback
    folders = [Path(chosen)] if chosen else [Path(d) for d in DEBIAN_DIRS]
    for folder in folders:
        looked.append(str(folder))
        if all((folder / name).is_file() for name in _REQUIRED):
            return _Files(folder)
    nltk_dirs = [] if chosen else _nltk_data_dirs()  # imports nltk (seconds): only when nothing else is there
    for folder in [corpora / "wordnet" for corpora in nltk_dirs]:
        looked.append(str(folder))
        if all((folder / name).is_file() for name in _REQUIRED):
            return _Files(folder)
    for corpora in nltk_dirs:
        archive = corpora / "wordnet.zip"
        looked.append(str(archive))
        if archive.is_file():
            return _Files(archive, "wordnet/")
    raise WordNetNotFoundError(
        "WordNet 3.0 is needed for METEOR and was not found (looked in: " + ", ".join(looked) + "). "
        "Fix: install Debian's WordNet (`apt-get install wordnet-base`), or download nltk's "
        "(`python -m nltk.downloader wordnet`), or set MWZ_WORDNET to a folder with index.noun, data.noun..."
    )


def _find_entry(index, wanted: bytes) -> bytes | None:
    """The line of ``index`` (bytes or a mapped file) whose first field is ``wanted``, by binary
    search over byte offsets: WordNet sorts its index by lemma (nltk searches it so too) and
    starts it with licence lines that begin with a space."""
    low, high = 0, len(index)
    while low < high:
        middle = (low + high) // 2
        start = index.rfind(b"\n", 0, middle) + 1
        end = index.find(b"\n", start)
        end = len(index) if end < 0 else end
        line = index[start:end]
        if not line or line.startswith(b" "):  # the licence header, or an empty last line
            low = end + 1
            continue
        key = line.split(b" ", 1)[0]
        if key == wanted:
            return line
        if key < wanted:
            low = end + 1
        else:
            high = start
    return None


def _content_sha256(files: _Files) -> str:
    digest = hashlib.sha256()
    for suffix in _POS_FILES.values():
        for name in (f"index.{suffix}", f"data.{suffix}", f"{suffix}.exc"):
            digest.update(files.read(name))
    return digest.hexdigest()


def _identity(files: _Files) -> str:
    """sha256 of the files the synonyms come from, hashed once per (path, size, mtime) of them
    and then read from the cache: a run whose words the memo holds opens no WordNet file."""
    from mwz_datasets import derived as cache

    names = (
        [f"{kind}.{suffix}" for suffix in _POS_FILES.values() for kind in ("index", "data")]
        + [f"{suffix}.exc" for suffix in _POS_FILES.values()]
        if files.member_prefix is None
        else [""]
    )
    stats = []
    for name in names:
        status = (files.location / name if name else files.location).stat()
        stats.append(f"{name}:{status.st_size}:{status.st_mtime_ns}")
    return cache.cached("dstc9-wordnet-identity", [files.describe(), *stats], lambda: _content_sha256(files))


class WordNet:
    """Lemma-name synonyms of a word, as nltk 3.5's ``wordnet.synsets`` yields them."""

    def __init__(self, files: _Files):
        self.location = files.describe()
        self._offsets: dict[tuple[str, str], list[int] | None] = {}
        self._exceptions: dict[str, dict[str, list[str]]] = {}
        self.lookups = 0  # index entries looked up (0 in a run the synonym memo fully serves)
        self._files = files
        # per POS: the index and data files, opened (mapped) on the first word the memo lacks
        self._index: dict[str, Any] = {}
        self._data: dict[str, Any] = {}
        self.sha256 = _identity(files)
        self._synonyms: dict[str, frozenset[str]] = {}
        from mwz_metrics.dstc9.memo import PersistentMemo

        # Synonyms persist between runs: a warm run never parses the index files (a second).
        self.memo = PersistentMemo(f"wordnet-synonyms-{self.sha256[:16]}")

    def _open(self, pos: str) -> None:
        """Map the POS's index and data files (no file is read whole) and parse its exceptions."""
        if pos in self._index:
            return
        suffix = _POS_FILES[pos]
        self._index[pos] = self._files.open(f"index.{suffix}")
        self._data[pos] = self._files.open(f"data.{suffix}")
        exc = self._files.read(f"{suffix}.exc").decode("utf-8")
        self._exceptions[pos] = {terms[0]: terms[1:] for terms in (line.split() for line in exc.splitlines()) if terms}

    def offsets(self, lemma: str, pos: str) -> list[int] | None:
        """The synset offsets of ``lemma`` as ``pos`` (None if WordNet has no such entry)."""
        key = (lemma, pos)
        if key in self._offsets:
            return self._offsets[key]
        self.lookups += 1
        self._open(pos)
        line = _find_entry(self._index[pos], lemma.encode("utf-8"))
        found = None
        if line is not None:
            fields = line.decode("utf-8").split()
            try:
                n_synsets, n_pointers = int(fields[2]), int(fields[3])
                start = 4 + n_pointers + 2  # skip pointers, sense count, tagsense count
                found = [int(field) for field in fields[start : start + n_synsets]]
            except (IndexError, ValueError) as error:
                raise InputError(f"index.{_POS_FILES[pos]}, entry {lemma!r}: {error}") from None
        self._offsets[key] = found
        return found

    def _morphy(self, form: str, pos: str) -> list[str]:
        substitutions = _SUBSTITUTIONS[pos]

        def apply_rules(forms):
            return [f[: -len(old)] + new for f in forms for old, new in substitutions if f.endswith(old)]

        def filter_forms(forms):
            found = []
            for f in forms:
                if self.offsets(f, pos) is not None and f not in found:
                    found.append(f)
            return found

        self._open(pos)
        exceptions = self._exceptions[pos]
        if form in exceptions:
            return filter_forms([form] + exceptions[form])
        forms = apply_rules([form])
        results = filter_forms([form] + forms)
        if results:
            return results
        while forms:
            forms = apply_rules(forms)
            results = filter_forms(forms)
            if results:
                return results
        return []

    def _lemma_names(self, pos: str, offset: int) -> list[str]:
        self._open(pos)
        data = self._data[pos]
        end = data.find(b"\n", offset)
        fields = data[offset : end if end >= 0 else len(data)].split(b"|", 1)[0].split()
        count = int(fields[3], 16)
        names = []
        for k in range(count):
            name = fields[4 + 2 * k].decode("utf-8")
            match = _MARKER.match(name)
            if match is None:
                raise InputError(f"WordNet data line at offset {offset}: unexpected word {name!r}")
            names.append(match.group(1))
        return names

    def synonyms(self, word: str) -> frozenset[str]:
        """Lemma names without "_" of every synset of ``word``, plus ``word`` itself."""
        cached = self._synonyms.get(word)
        if cached is not None:
            return cached
        result = frozenset(self.memo.get(word, self._compute_synonyms))
        self._synonyms[word] = result
        return result

    def _compute_synonyms(self, word: str) -> list[str]:
        lemma = word.lower()
        names = {word}
        for pos in _POS_FILES:
            for form in self._morphy(lemma, pos):
                for offset in self.offsets(form, pos) or []:
                    names.update(n for n in self._lemma_names(pos, offset) if "_" not in n)
        return sorted(names)

    def save(self) -> None:
        """Keep the synonyms looked up so far for the next run."""
        self.memo.save()


@functools.lru_cache(maxsize=1)
def load() -> WordNet:
    """The WordNet reader, located once per process."""
    files = locate()
    logger.info("reading WordNet from %s", files.describe())
    return WordNet(files)
