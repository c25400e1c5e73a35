"""Secrets kept out of what a run writes and prints: URLs, options and messages as they are shown.

A system's URL, an endpoint or an option may carry a credential (``http://user:password@host/``,
``?api_key=...``). The request needs it; the session file, the signature, the predictions, the
result, the view and every message do not, and they are shared. What is shown goes through here:

- :func:`redact_url`: the whole userinfo becomes ``***@`` (the user name too: in
  ``https://TOKEN@host/`` it is the credential), and the value of every query (or fragment)
  parameter with a secret's name (:func:`is_secret_name`) becomes ``***``. Nothing else changes,
  byte for byte: a URL without a secret comes back as it was given.
- :func:`is_secret_name`: ``api_key``, ``api-key``, ``apiKey``, ``key``, ``token``, ``access_token``,
  ``secret``, ``password``, ``auth``, ``sig``, ``signature``, ``code``, ``X-Amz-Credential``...; a name
  ending ``_env`` (``api_key_env``) names an environment variable and is not one. It errs towards
  secret: ``sort_key`` counts, ``max_tokens`` (a count) does not.
- :func:`redact_options`: options as shown (secret-named values ``***``, URLs through
  :func:`redact_url`); :func:`redact_text`: known secrets taken out of any text.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any

HIDDEN = "***"

# whole names that are secrets (a query's ``code``, ``sig``: OAuth codes, Azure SAS and Functions keys)
_SECRET_NAMES = frozenset(
    {"apikey", "auth", "authorization", "bearer", "code", "cookie", "jwt", "passwd", "pwd", "sig", "session"}
)
# a name whose last word is one of these (api_key, access_token, client_secret, x-amz-signature...)
_SECRET_WORDS = frozenset(
    {
        "apikey",
        "key",
        "token",
        "secret",
        "password",
        "passwd",
        "passphrase",
        "signature",
        "sig",
        "credential",
        "credentials",
    }
)
# name words: snake_case, kebab-case, dotted, camelCase
_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def is_secret_name(name: str) -> bool:
    """Whether an option or query parameter called ``name`` holds a secret (see the module docstring)."""
    words = [w.lower() for w in _WORDS.findall(name)]
    if not words or words[-1] == "env":  # api_key_env=VAR: the variable's name, not its value
        return False
    return "".join(words) in _SECRET_NAMES or words[-1] in _SECRET_WORDS


def _secret_parameters(text: str) -> Iterable[tuple[int, str, str]]:
    """(index among the ``&`` pieces, name, value) of each parameter of a query (or fragment) whose name
    is a secret's: URL syntax, read byte for byte (``urllib.parse.parse_qsl`` would re-encode the rest)."""
    for index, piece in enumerate(text.split("&")):
        name, sep, value = piece.partition("=")
        if sep and value and is_secret_name(urllib.parse.unquote_plus(name)):
            yield index, name, value


def _redact_pairs(text: str) -> str:
    """``a=1&api_key=K`` -> ``a=1&api_key=***``; the pieces without a secret as they were."""
    pieces = text.split("&")
    for index, name, _ in _secret_parameters(text):
        pieces[index] = f"{name}={HIDDEN}"
    return "&".join(pieces)


def redact_url(url: str) -> str:
    """``url`` as it may be shown: no userinfo, no secret parameter's value (see the module docstring).
    Text that is not ``scheme://...`` comes back unchanged."""
    scheme, sep, rest = url.partition("://")
    if not sep or not scheme or not re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", scheme):
        return url
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    netloc, tail = rest[:end], rest[end:]
    if "@" in netloc:
        netloc = f"{HIDDEN}@{netloc.rpartition('@')[2]}"
    tail, hash_, fragment = tail.partition("#")
    path, question, query = tail.partition("?")
    return f"{scheme}://{netloc}{path}{question}{_redact_pairs(query)}{hash_}{_redact_pairs(fragment)}"


def url_secrets(url: str) -> list[str]:
    """What :func:`redact_url` hides in ``url``, as written and decoded (for :func:`redact_text`)."""
    found: list[str] = []
    parts = urllib.parse.urlsplit(url) if "://" in url else None
    if parts is None:
        return found
    userinfo = parts.netloc.rpartition("@")[0]
    user, colon, password = userinfo.partition(":")
    found += [userinfo, password] if colon else [user]  # a user name alone may be the token
    for text in (parts.query, parts.fragment):
        found += [value for _, _, value in _secret_parameters(text)]
    found += [urllib.parse.unquote_plus(s) for s in found]
    return [s for s in dict.fromkeys(found) if s]  # once each, in order


def redact_text(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every one of ``secrets`` (the longest first) replaced by ``***``."""
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        text = text.replace(secret, HIDDEN)
    return text


def redact_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` as they may be shown: a secret-named option's value ``***``, a URL through
    :func:`redact_url`; the rest as it is."""
    shown: dict[str, Any] = {}
    for name, value in options.items():
        if is_secret_name(str(name)) and value not in (None, ""):
            shown[name] = HIDDEN
        elif isinstance(value, str) and "://" in value:
            shown[name] = redact_url(value)
        else:
            shown[name] = value
    return shown
