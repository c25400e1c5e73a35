"""Reading a JSON file the one way: a missing file, a folder, bytes that are not UTF-8 or not JSON all
get the same one-line :class:`~mwz_plugins.errors.InputError` naming the file (exit 2 in the CLI)."""

from __future__ import annotations

import json
import os
from typing import Any

from mwz_plugins.errors import InputError


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
    except RecursionError:
        raise InputError(f"{path}: JSON nested too deeply to read (arrays or objects within each other)") from None
    except ValueError as error:  # a number of more digits than Python converts (4300 by default)
        raise InputError(f"{path}: not JSON that can be read ({str(error).split(';')[0]})") from None
