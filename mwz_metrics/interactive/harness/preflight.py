"""Before the first session: is there anything listening where the run will send its requests?

A wrong port or a misspelled host would otherwise cost every session its retries (1.7 s each with the
defaults: half an hour for the 1000 test goals), and end in a table of a system that never answered.
One TCP connection to each endpoint the run names (an HTTP system's URL, an ``llm`` system's or
simulator's ``endpoint``) is opened and closed, nothing sent: a server that is there sees a connection
and no request. An endpoint reached through a proxy is not checked (the proxy answers for it).
"""

from __future__ import annotations

import logging
import socket
import urllib.parse
from collections.abc import Mapping
from typing import Any

from mwz_metrics.inputs import InputError
from mwz_metrics.interactive.chat import HttpFailure, proxy_for

logger = logging.getLogger(__name__)

CONNECT_SECONDS = 10.0  # at most, whatever the run's --timeout: a connection is made in milliseconds


def check(
    kind: str,
    system: str,
    system_options: Mapping[str, Any] | None,
    simulator_options: Mapping[str, Any] | None,
    *,
    timeout: float,
) -> None:
    """Connect once to each endpoint of the run (see the module docstring); :class:`InputError` naming
    the first that cannot be reached."""
    named = []
    if kind == "http":
        named.append(("--system", system))
    for flag, options in (
        ("--system-option endpoint", system_options),
        ("--simulator-option endpoint", simulator_options),
    ):
        endpoint = (options or {}).get("endpoint")
        if isinstance(endpoint, str) and endpoint.startswith(("http://", "https://")):
            named.append((flag, endpoint))
    for flag, url in dict.fromkeys(named):
        reachable(url, flag, timeout=min(timeout, CONNECT_SECONDS))


def reachable(url: str, flag: str, *, timeout: float) -> None:
    """One TCP connection to ``url``'s host and port (nothing sent), or :class:`InputError` naming them
    (never the rest of the URL: it may hold credentials)."""
    parts = urllib.parse.urlsplit(url)
    try:
        host, port = parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise InputError(f"{flag}: the URL's port is not a number") from None
    try:
        if proxy_for(url) is not None:
            return
    except HttpFailure:
        return  # the proxy is refused as the system is made, with its own message
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as error:
        why = "no connection in time" if isinstance(error, TimeoutError) else (error.strerror or str(error))
        raise InputError(
            f"{flag}: cannot connect to {host}:{port} ({why}); is the server running there? Nothing was run"
        ) from None
    logger.debug("%s: %s:%d reachable", flag, host, port)
