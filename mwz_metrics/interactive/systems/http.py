"""A system behind an HTTP endpoint: the request POSTed as JSON, the turn read back as JSON.

Connection failures, timeouts and answers 429/5xx are retried (``retries`` times, waiting
``backoff`` seconds, doubled each time); other HTTP errors and a body that is not a JSON object
end the session at once (``system_error``, ``malformed_response``). Every retry and failure is
counted per dialogue and kept in the session record (``system_report``), so the summary can
count them. Many sessions run at once with ``mwz interact -j N``.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any

from mwz_metrics.interactive.protocol import SessionEnd

_RETRIED_STATUS = {429, 500, 502, 503, 504}


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
    ) -> None:
        self.url = url
        self.name = url
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.headers = {"Content-Type": "application/json", "Accept": "application/json", **dict(headers or {})}
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

    def _post(self, body: bytes) -> bytes:
        request = urllib.request.Request(self.url, data=body, headers=self.headers, method="POST")
        with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310 (the user's URL)
            return response.read()

    def respond(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """POST the request; the decoded turn (retrying what may pass on a second try)."""
        dialogue_id = str(request.get("dialogue_id", ""))
        body = json.dumps(request, ensure_ascii=False).encode("utf-8")
        delay = self.backoff
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                raw = self._post(body)
            except urllib.error.HTTPError as error:
                kind = f"http_{error.code}"
                self._note(dialogue_id, kind)
                if error.code not in _RETRIED_STATUS or last:
                    raise SessionEnd("system_error", f"{self.url} answered HTTP {error.code}") from None
            except TimeoutError:
                self._note(dialogue_id, "timeout")
                if last:
                    raise SessionEnd("system_timeout", f"no answer from {self.url} in {self.timeout:g} s") from None
            except (urllib.error.URLError, ConnectionError, OSError) as error:
                self._note(dialogue_id, "connection")
                reason = getattr(error, "reason", error)
                if isinstance(reason, TimeoutError):
                    if last:
                        raise SessionEnd("system_timeout", f"no answer from {self.url} in {self.timeout:g} s") from None
                elif last:
                    raise SessionEnd("system_error", f"{self.url}: {reason}") from None
            else:
                try:
                    data = json.loads(raw.decode("utf-8"))
                except (UnicodeDecodeError, json.JSONDecodeError) as error:
                    self._note(dialogue_id, "malformed")
                    raise SessionEnd(
                        "malformed_response", f"{self.url} answered with a body that is not JSON ({error})"
                    ) from None
                if not isinstance(data, dict):
                    self._note(dialogue_id, "malformed")
                    raise SessionEnd("malformed_response", f"{self.url} answered with JSON that is not an object")
                return data
            self._note(dialogue_id, "retry")
            time.sleep(delay)
            delay *= 2
        raise SessionEnd("system_error", f"{self.url}: no answer")  # not reached
