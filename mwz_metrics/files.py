"""The one way every command reads a JSON input: errors are one line naming the file and the fix.

``mwz evaluate``, ``compare``, ``coherence``, ``fluency``, ``interact`` and ``dstc9 score`` read
their inputs through :func:`read_json`, so a missing file, a folder, a file that is not UTF-8 or
not JSON, and an empty input get the same message everywhere (exit 2), and nothing is modified.
"""

from __future__ import annotations

import json
import os
from typing import Any

from mwz_metrics.multiwoz.inputs import InputError


def read_json(path: str | os.PathLike, what: str = "input") -> Any:
    """The decoded JSON of ``path``; :class:`InputError` (one line, the file named) otherwise."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file ({what})") from None
    except IsADirectoryError:
        raise InputError(f"{path}: a folder, not a {what} file") from None
    except OSError as error:
        raise InputError(f"{path}: cannot be read ({error.strerror or error})") from None
    if not raw.strip():
        raise InputError(f"{path}: empty file, not a {what} file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(
            f"{path}: not UTF-8 text (byte 0x{raw[error.start]:02x} at position {error.start}); save it as UTF-8"
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{path}: not JSON ({error.msg} at line {error.lineno}, column {error.colno})") from None


def require_nonempty(data: Any, path: str | os.PathLike | None, what: str) -> None:
    """Refuse an input with nothing in it, as every command does."""
    if not data:
        where = f"{path}: " if path is not None else ""
        raise InputError(f"{where}no {what} in it (an empty input is refused, not scored as zero)")
