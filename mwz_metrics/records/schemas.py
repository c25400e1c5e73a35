"""JSON Schemas of the records, generated from their declarations (one source): the request a system
receives, the turn it returns, a line of a session file (its header, a session, a resumption), and the
result a run with user profiles writes (``--profile NAME --result FILE``).

The committed files under ``schemas/`` are package data, published by the docs; a test holds them equal
to what the records generate. After changing a record, write them again::

    python -m mwz_metrics.records.schemas          # --check: exit 1 where a file differs
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import types
from pathlib import Path
from typing import Any, Literal, NotRequired, Required, Union, get_args, get_origin, get_type_hints, is_typeddict

from mwz_metrics.records.header import ResumedLine, SessionFileHeader
from mwz_metrics.records.profiles import ProfilesResult
from mwz_metrics.records.request import Request
from mwz_metrics.records.session import SessionRecord
from mwz_metrics.records.turns import SystemAnswer

logger = logging.getLogger(__name__)

FOLDER = Path(__file__).with_name("schemas")
DIALECT = "https://json-schema.org/draft/2020-12/schema"
BASE = "https://mwz-eval.invalid/schemas/"  # an identifier, not a place to fetch from

_SIMPLE = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}


def _bare(hint: Any) -> Any:
    """A hint without its ``NotRequired``/``Required``."""
    return get_args(hint)[0] if get_origin(hint) in (NotRequired, Required) else hint


class _Builder:
    """Schemas of Python types; each TypedDict once, under ``$defs``."""

    def __init__(self) -> None:
        self.defs: dict[str, Any] = {}

    def of(self, tp: Any) -> dict[str, Any]:
        if tp is Any:
            return {}
        if tp in _SIMPLE:
            return {"type": _SIMPLE[tp]}
        if is_typeddict(tp):
            return self._typed_dict(tp)
        origin, args = get_origin(tp), get_args(tp)
        if origin is Literal:
            return {"const": args[0]} if len(args) == 1 else {"enum": list(args)}
        if origin in (Union, types.UnionType):
            parts = [self.of(a) for a in args]
            if all(set(p) == {"type"} for p in parts):
                return {"type": [p["type"] for p in parts]}
            return {"anyOf": parts}
        if origin in (list, tuple):
            return {"type": "array", "items": self.of(args[0])} if args else {"type": "array"}
        if origin is dict:
            return {"type": "object", "additionalProperties": self.of(args[1])} if args else {"type": "object"}
        raise TypeError(f"no JSON Schema for {tp!r}")

    def _typed_dict(self, tp: Any) -> dict[str, Any]:
        name = tp.__name__
        if name not in self.defs:
            self.defs[name] = {}  # a placeholder: a record that holds itself refers to itself
            # with postponed annotations __required_keys__ cannot see NotRequired: read the hints themselves;
            # __optional_keys__ still knows each key's class totality (a record extending a total=False one)
            hints = get_type_hints(tp, include_extras=True)
            optional = {key for key, hint in hints.items() if get_origin(hint) is NotRequired}
            optional |= set(tp.__optional_keys__)
            optional -= {key for key, hint in hints.items() if get_origin(hint) is Required}
            self.defs[name] = {
                "type": "object",
                "description": " ".join((tp.__doc__ or "").split()),
                "properties": {key: self.of(_bare(hint)) for key, hint in hints.items()},
                "required": [key for key in hints if key not in optional],
            }
        return {"$ref": f"#/$defs/{name}"}


def schema(name: str, title: str, *roots: Any) -> dict[str, Any]:
    """The schema ``name`` of a record (or of a line that is one of ``roots``)."""
    builder = _Builder()
    refs = [builder.of(root) for root in roots]
    body: dict[str, Any] = refs[0] if len(refs) == 1 else {"oneOf": refs}
    return {"$schema": DIALECT, "$id": BASE + name, "title": title, **body, "$defs": dict(sorted(builder.defs.items()))}


def generated() -> dict[str, str]:
    """File name -> its text, for every published schema."""
    schemas = {
        "request.schema.json": schema("request.schema.json", "mwz interact: the request a system receives", Request),
        "system-turn.schema.json": schema(
            "system-turn.schema.json", "mwz interact: the turn a system returns", SystemAnswer
        ),
        "session-file.schema.json": schema(
            "session-file.schema.json",
            "mwz interact: one line of a session file (line 1 its header; then sessions and resumptions)",
            SessionFileHeader,
            SessionRecord,
            ResumedLine,
        ),
        "profiles-result.schema.json": schema(
            "profiles-result.schema.json",
            "mwz interact --profile NAME --result FILE: every user's result, the robustness, the sessions broken",
            ProfilesResult,
        ),
    }
    return {name: json.dumps(body, indent=2, ensure_ascii=False) + "\n" for name, body in schemas.items()}


def differing(folder: Path = FOLDER) -> list[str]:
    """The schema files in ``folder`` that differ from what the records generate (or are missing)."""
    found = []
    for name, text in generated().items():
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            found.append(name)
    return found


def write(folder: Path = FOLDER) -> list[Path]:
    """Write every schema into ``folder``; the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in generated().items():
        (folder / name).write_text(text, encoding="utf-8")
        paths.append(folder / name)
    return paths


def main(argv: list[str] | None = None) -> int:
    """``python -m mwz_metrics.records.schemas [--check]``."""
    parser = argparse.ArgumentParser(prog="python -m mwz_metrics.records.schemas", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 where a file differs")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.check:
        stale = differing()
        for name in stale:
            logger.error("%s differs from the records: python -m mwz_metrics.records.schemas writes it", FOLDER / name)
        return 1 if stale else 0
    for path in write():
        logger.info("wrote %s", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
