"""A client of OpenAI-compatible chat endpoints (vLLM, llama.cpp's server, hosted APIs), for the ``llm``
simulator and the ``llm`` system: chat completions with optional tools, retrying what may pass on a
second try (429, 5xx, timeouts, refused connections). The key, where the endpoint wants one, comes
from ``MWZ_LLM_API_KEY`` (or ``OPENAI_API_KEY``) and is never written anywhere.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from mwz_plugins.errors import SystemUnderTestError

_RETRIED_STATUS = (429, 500, 502, 503, 504)


class ChatError(SystemUnderTestError):
    """The endpoint gave no usable answer after the retries; ``reason``: ``timeout``, ``http_NNN``,
    ``connection`` or ``malformed``."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class ChatClient:
    """POSTs chat completions to an OpenAI-compatible endpoint (see the module docstring)."""

    def __init__(
        self,
        endpoint: str,
        model: str,
        *,
        timeout: float = 60.0,
        retries: int = 2,
        api_key: str | None = None,
        backoff: float = 0.5,
    ) -> None:
        base = endpoint.rstrip("/")
        self.url = base if base.endswith("/chat/completions") else f"{base}/chat/completions"
        self.model = model
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self._key = (
            api_key if api_key is not None else os.environ.get("MWZ_LLM_API_KEY") or os.environ.get("OPENAI_API_KEY")
        )

    def message(
        self, messages: list[dict[str, Any]], *, note: Callable[[str], None] | None = None, **parameters: Any
    ) -> dict[str, Any]:
        """The model's reply to ``messages``: the assistant message (``content``, ``tool_calls``);
        ``note`` is told each retry and failure (``retry``, ``timeout``, ``http_500``...)."""

        def count(what: str) -> None:
            if note is not None:
                note(what)

        body = json.dumps({"model": self.model, "messages": messages, **parameters}).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        delay = self.backoff
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310 (the user's URL)
                    data = json.loads(response.read().decode("utf-8"))
                message = data["choices"][0]["message"]
                if not isinstance(message, dict):
                    raise TypeError("the message is not an object")
                return message
            except urllib.error.HTTPError as error:
                count(f"http_{error.code}")
                if error.code not in _RETRIED_STATUS or last:
                    raise ChatError(f"{self.url} answered HTTP {error.code}", f"http_{error.code}") from None
            except (TimeoutError, urllib.error.URLError, ConnectionError) as error:
                reason = getattr(error, "reason", error)
                kind = (
                    "timeout" if isinstance(error, TimeoutError) or isinstance(reason, TimeoutError) else "connection"
                )
                count(kind)
                if last:
                    raise ChatError(f"{self.url}: {reason}", kind) from None
            except (ValueError, KeyError, IndexError, TypeError) as error:
                count("malformed")
                raise ChatError(f"{self.url}: not a chat completion ({error})", "malformed") from None
            count("retry")
            time.sleep(delay)
            delay *= 2
        raise ChatError(f"{self.url}: no answer", "connection")  # not reached

    def complete(self, messages: list[dict[str, Any]], **parameters: Any) -> str:
        """The text of the model's reply to ``messages``."""
        return str(self.message(messages, **parameters).get("content") or "")
