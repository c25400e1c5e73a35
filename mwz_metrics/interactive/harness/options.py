"""What the command line gives the system and the simulator of a run: their ``KEY=VALUE`` options, the LLM
endpoint and model (``--endpoint``, ``--model``), never a secret, and one key per endpoint.

``mwz interact`` and ``mwz simulator realism`` read these from their flags into :class:`GivenOptions`.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from typing import Any

logger = logging.getLogger("mwz.interact")


@dataclasses.dataclass(frozen=True)
class GivenOptions:
    """The flags of a run that say what its system and simulator are made with."""

    system: str | None
    simulator: str
    system_option: Sequence[str] = ()  # KEY=VALUE, as given
    simulator_option: Sequence[str] = ()
    endpoint: str | None = None
    model: str | None = None


def pairs(items: Sequence[str], flag: str) -> dict[str, str]:
    """``KEY=VALUE`` arguments as a mapping (``-`` in a key read as ``_``)."""
    from mwz_metrics.settings import option_name, parse_pairs

    return {option_name(k): v for k, v in parse_pairs(items, flag, empty_value=True).items()}


def llm_settings(endpoint: str | None, model: str | None) -> dict[str, str]:
    """``--endpoint`` and ``--model``, those given."""
    return {k: v for k, v in (("endpoint", endpoint), ("model", model)) if v}


def simulator_options(args: GivenOptions) -> dict[str, Any]:
    """The simulator's options: ``--simulator-option``, and ``--endpoint``/``--model`` for ``--simulator llm``
    (or whenever the system is not ``llm``, as before); no secret among them, and the llm simulator's
    endpoint keyed as :func:`_keyed` says."""
    options = _secretless(pairs(args.simulator_option, "--simulator-option"), "--simulator-option")
    if args.simulator == "llm" or args.system != "llm":
        options = {**llm_settings(args.endpoint, args.model), **options}
    return _keyed(options, args, "--simulator-option") if args.simulator == "llm" else options


def system_options(args: GivenOptions) -> dict[str, str]:
    """The system's options: ``--system-option``, and ``--endpoint``/``--model`` for ``--system llm``; no
    secret among them, and the llm system's endpoint keyed as :func:`_keyed` says."""
    options = _secretless(pairs(args.system_option, "--system-option"), "--system-option")
    if args.system == "llm":
        options = _keyed({**llm_settings(args.endpoint, args.model), **options}, args, "--system-option")
    return options


def _secretless(options: dict[str, str], flag: str) -> dict[str, str]:
    """``options``, refusing a secret-named one (``api_key``, ``token``...): on the command line it would be
    in the signature, the run's files and the shell's history; the key's variable is named instead."""
    from mwz_metrics.inputs import InputError
    from mwz_metrics.interactive.secrets import is_secret_name

    for name in options:
        if is_secret_name(name):
            raise InputError(
                f"{flag} {name}=...: a secret is not given on the command line (it would be written in the "
                f"signature and the run's files); put it in an environment variable and give {flag} api_key_env=VAR"
            )
    return options


def _keyed(options: dict[str, str], args: GivenOptions, flag: str) -> dict[str, str]:
    """The llm system's or simulator's ``options``, with ``api_key_env=`` (no key) where their endpoint is
    not the one the default key (``MWZ_LLM_API_KEY``) is for, ``--endpoint``'s origin (without it, the run's
    one endpoint origin), and they name no variable of their own: one key per endpoint, never sent to an
    origin it was not given for (:mod:`mwz_metrics.interactive.chat`)."""
    import os

    from mwz_metrics.interactive.chat import DEFAULT_KEY_VARIABLES, owns_default_key
    from mwz_metrics.interactive.secrets import redact_url

    endpoint = options.get("endpoint")
    if not endpoint or "api_key_env" in options:
        return options
    named = [
        pairs(given, option).get("endpoint")
        for given, option, llm in (
            (args.system_option, "--system-option", args.system == "llm"),
            (args.simulator_option, "--simulator-option", args.simulator == "llm"),
        )
        if llm
    ]
    if owns_default_key(endpoint, args.endpoint, [e for e in named if e]):
        return options
    if any(os.environ.get(v) for v in DEFAULT_KEY_VARIABLES):  # a key is set, and this endpoint goes without
        owner = f"--endpoint {redact_url(args.endpoint)}" if args.endpoint else "--endpoint, not given"
        logger.warning(
            "%s gets no key (%s is for %s): give %s api_key_env=VAR if it needs one",
            redact_url(endpoint),
            " or ".join(DEFAULT_KEY_VARIABLES),
            owner,
            flag,
        )
    return {**options, "api_key_env": ""}
