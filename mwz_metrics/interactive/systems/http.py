"""A system behind an HTTP endpoint: the request POSTed as JSON, the turn read back as JSON.

Each request has one deadline (``timeout`` seconds for the connection and the whole answer, see
:func:`~mwz_metrics.interactive.chat.post_json`) and a size limit (``max_bytes``). Connection
failures (a connection refused or cut mid-answer), timeouts and answers 429/5xx are retried
(``retries`` times, waiting ``backoff`` seconds, doubled each time); other HTTP errors end the
session at once (``system_error``), and an answer over the size limit or a body that is not a JSON
object ends it as ``malformed_response``. Every retry and failure is counted per dialogue and kept
in the session record (``system_report``), so the summary can count them. Many sessions run at
once with ``mwz interact -j N``.

The URL may hold a credential: ``user:password@`` goes to the system as ``Authorization: Basic`` (to
its origin only), a query's ``api_key=`` as written. Neither is shown: the system's ``name`` and every
message (a session's ``end.detail``) name the URL as :func:`~mwz_metrics.interactive.secrets.redact_url`
shows it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping
from typing import Any

from mwz_metrics.interactive.chat import DEFAULT_MAX_BYTES, HttpFailure, checked_proxy, post_json
from mwz_metrics.interactive.protocol import SessionEnd, session_key
from mwz_metrics.interactive.secrets import redact_url


class HttpSystem:
    """Speaks the system protocol to ``url``."""

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 30.0,
        retries: int = 2,
        backoff: float = 0.5,
        headers: Mapping[str, str] | None = None,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        self.url = url
        self.name = redact_url(url)  # how the run and its messages name it: no password, no key
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_bytes = max_bytes
        self.headers = {"Content-Type": "application/json", "Accept": "application/json", **dict(headers or {})}
        checked_proxy(url, self.headers)  # a proxy it cannot use: refused now, not in every session
        self._reports: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def _note(self, dialogue_id: str, what: str) -> None:
        with self._lock:
            report = self._reports.setdefault(dialogue_id, {"retries": 0, "failures": {}})
            if what == "retry":
                report["retries"] += 1
            else:
                report["failures"][what] = report["failures"].get(what, 0) + 1

    def report(self, dialogue_id: str) -> dict[str, Any]:
        """Retries and failures of one dialogue's requests (then forgotten)."""
        with self._lock:
            return self._reports.pop(dialogue_id, {"retries": 0, "failures": {}})

    def respond(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """POST the request; the decoded turn (retrying what may pass on a second try)."""
        dialogue_id = session_key(request)  # the session's reports: sessions of one goal's trials run at once
        body = json.dumps(request, ensure_ascii=True).encode("ascii")  # any text the history holds
        delay = self.backoff
        for attempt in range(self.retries + 1):
            try:
                raw = post_json(self.url, body, self.headers, timeout=self.timeout, max_bytes=self.max_bytes)
            except HttpFailure as failure:
                self._note(dialogue_id, failure.reason)
                if failure.reason == "too_large":
                    raise SessionEnd("malformed_response", str(failure)) from None
                if not failure.retried or attempt == self.retries:
                    if failure.reason == "timeout":
                        raise SessionEnd(
                            "system_timeout", f"no answer from {self.name} in {self.timeout:g} s"
                        ) from None
                    raise SessionEnd("system_error", str(failure)) from None
                self._note(dialogue_id, "retry")
                time.sleep(delay)
                delay *= 2
                continue
            return self._decoded(raw, dialogue_id)
        raise SessionEnd("system_error", f"{self.name}: no answer")  # not reached

    def _decoded(self, raw: bytes, dialogue_id: str) -> dict[str, Any]:
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
            self._note(dialogue_id, "malformed")
            detail = "nested too deep" if isinstance(error, RecursionError) else error
            raise SessionEnd(
                "malformed_response", f"{self.name} answered with a body that is not JSON ({detail})"
            ) from None
        if not isinstance(data, dict):
            self._note(dialogue_id, "malformed")
            raise SessionEnd("malformed_response", f"{self.name} answered with JSON that is not an object")
        return data
