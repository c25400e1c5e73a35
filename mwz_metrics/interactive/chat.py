"""The floor's HTTP client: JSON POSTed to a system under test or an OpenAI-compatible chat endpoint.

:func:`post_json` bounds a request whole: one deadline (``timeout`` seconds) covers the connection,
the headers and the body, however slowly a server sends them (a watchdog shuts the socket down at
the deadline); a body over ``max_bytes`` is refused unread. Redirects: 307 and 308 are followed
(three at most) with the same POST, ``Authorization`` dropped when the new address is another origin
(scheme, host, port); 301, 302 and 303 (which would turn the POST into a GET) are not followed. A
credential therefore never reaches a host other than the one it was given for. What failed is a
:class:`HttpFailure` with its kind (``timeout``, ``connection``, ``http_NNN``, ``too_large``).

Proxies: a remote host is reached through the proxy the environment names (``https_proxy``,
``http_proxy``, ``no_proxy``, as the standard library's ``urllib.request.getproxies`` and
``proxy_bypass`` read them; an ``http://`` proxy, ``user:password@`` sent to it as
``Proxy-Authorization``): an https address through a ``CONNECT`` tunnel, so the proxy sees the host
and nothing else. A loopback host (``127.0.0.0/8``, ``::1``, ``localhost``: a system under test on this
machine) is never proxied, and a request carrying a credential (``Authorization``, ``Cookie``) to a
plain ``http://`` address is refused rather than sent readable through a proxy.

:class:`ChatClient` speaks chat completions (vLLM, llama.cpp's server, hosted APIs) with optional
tools, retrying what may pass on a second try (429, 5xx, timeouts, refused or cut connections) and
counting the tokens the endpoint reports (``usage``). The key, where the endpoint wants one, comes
from ``MWZ_LLM_API_KEY`` (or ``OPENAI_API_KEY``) and is never written anywhere.
"""

from __future__ import annotations

import base64
import http.client
import ipaddress
import json
import os
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

from mwz_plugins.errors import SystemUnderTestError

RETRIED_STATUS = frozenset({429, 500, 502, 503, 504})
DEFAULT_MAX_BYTES = 1_000_000  # an answer's body at most (a MultiWOZ turn is well under 10 kB)
_FOLLOWED = (307, 308)  # redirects that keep the method and the body
_MAX_REDIRECTS = 3


class HttpFailure(SystemUnderTestError):
    """A request that gave no usable answer; ``reason``: ``timeout``, ``connection``, ``http_NNN`` or
    ``too_large``; ``retried``: whether a second try may pass."""

    def __init__(self, message: str, reason: str, *, retried: bool) -> None:
        super().__init__(message)
        self.reason = reason
        self.retried = retried


def _origin(url: urllib.parse.SplitResult) -> tuple[str, str, int]:
    default = 443 if url.scheme == "https" else 80
    return url.scheme, (url.hostname or "").lower(), url.port or default


_CREDENTIALS = ("authorization", "cookie")  # headers that are for their own host only


def _is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine (never proxied: what is sent to it stays here)."""
    host = host.lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def proxy_for(url: str) -> urllib.parse.SplitResult | None:
    """The proxy a request to ``url`` goes through (see the module docstring), or None: direct."""
    import urllib.request  # here: its import is not free, and most runs never ask

    parts = urllib.parse.urlsplit(url)
    if _is_loopback(parts.hostname or ""):
        return None
    proxy = urllib.request.getproxies().get(parts.scheme)
    if not proxy or urllib.request.proxy_bypass(parts.netloc.rpartition("@")[2]):
        return None
    found = urllib.parse.urlsplit(proxy if "://" in proxy else f"http://{proxy}")
    try:
        usable = found.scheme == "http" and bool(found.hostname) and found.port != 0
    except ValueError:  # a port that is not a number
        usable = False
    if not usable:
        raise HttpFailure(
            f"{parts.scheme}_proxy {found.scheme}://{found.hostname or ''}: not an http://HOST[:PORT] proxy "
            "(the only kind supported)",
            "connection",
            retried=False,
        )
    return found


def checked_proxy(url: str, headers: Mapping[str, str]) -> urllib.parse.SplitResult | None:
    """:func:`proxy_for`, refusing a credential (``Authorization``, ``Cookie``) for a plain ``http://``
    address through a proxy. Called as a system or client is made too, so a run is refused at once
    (one line) rather than every session failing."""
    proxy = proxy_for(url)
    if proxy is not None and url.lower().startswith("http:") and any(k.lower() in _CREDENTIALS for k in headers):
        raise HttpFailure(
            f"{url}: refusing to send its credentials unencrypted through the proxy {_shown(proxy)} "
            "(use https, or name the host in no_proxy)",
            "connection",
            retried=False,
        )
    return proxy


def _shown(proxy: urllib.parse.SplitResult) -> str:
    """A proxy as messages name it: its address, never its password."""
    port = f":{proxy.port}" if proxy.port else ""
    return f"{proxy.scheme}://{proxy.hostname or ''}{port}"


def _proxy_headers(proxy: urllib.parse.SplitResult) -> dict[str, str]:
    """``Proxy-Authorization`` where the proxy's address holds ``user:password@`` (for the proxy only)."""
    if proxy.username is None:
        return {}
    pair = f"{urllib.parse.unquote(proxy.username)}:{urllib.parse.unquote(proxy.password or '')}"
    return {"Proxy-Authorization": "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")}


def _connection(
    parts: urllib.parse.SplitResult, headers: dict[str, str], remaining: float
) -> tuple[http.client.HTTPConnection, str, str]:
    """The connection for one request to ``parts`` (direct, or through its proxy), the request's target
    and how messages name the route; ``headers`` gets what the proxy reads."""
    proxy = checked_proxy(urllib.parse.urlunsplit(parts), headers)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if proxy is None:
        host, port, route = parts.hostname or "", parts.port, ""
    else:
        host, port, route = proxy.hostname or "", proxy.port or 80, f" (through the proxy {_shown(proxy)})"
    if parts.scheme == "https":
        connection: http.client.HTTPConnection = http.client.HTTPSConnection(
            host, port, timeout=remaining, context=ssl.create_default_context()
        )
        if proxy is not None:  # a tunnel: the proxy sees the host, the rest is encrypted end to end
            connection.set_tunnel(parts.hostname or "", parts.port or 443, headers=_proxy_headers(proxy))
        return connection, target, route
    connection = http.client.HTTPConnection(host, port, timeout=remaining)
    if proxy is not None:
        headers.update(_proxy_headers(proxy))
        netloc = parts.netloc.rpartition("@")[2]
        target = urllib.parse.urlunsplit(("http", netloc, parts.path or "/", parts.query, ""))  # absolute form
    return connection, target, route


class _Watchdog:
    """Shuts a connection's socket down at the deadline (a blocked read then returns at once)."""

    def __init__(self, connection: http.client.HTTPConnection, seconds: float) -> None:
        self.connection = connection
        self.fired = False
        self.timer = threading.Timer(max(seconds, 0.0), self._fire)
        self.timer.daemon = True
        self.timer.start()

    def _fire(self) -> None:
        self.fired = True
        sock = self.connection.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cancel(self) -> None:
        self.timer.cancel()


def _read_body(response: http.client.HTTPResponse, url: str, max_bytes: int) -> bytes:
    length = response.getheader("Content-Length")
    if length and length.strip().isdigit() and int(length) > max_bytes:
        raise HttpFailure(
            f"{url} announced an answer of {int(length)} bytes (limit {max_bytes})", "too_large", retried=False
        )
    chunks, size = [], 0
    while True:
        chunk = response.read1(65536)
        if not chunk:
            break
        size += len(chunk)
        if size > max_bytes:
            raise HttpFailure(f"{url} sent an answer of more than {max_bytes} bytes", "too_large", retried=False)
        chunks.append(chunk)
    if length and length.strip().isdigit() and size < int(length):
        raise ConnectionResetError(f"the connection closed after {size} of {int(length)} bytes")
    return b"".join(chunks)


def _once(url: str, body: bytes, headers: Mapping[str, str], deadline: float, max_bytes: int) -> tuple[int, str, bytes]:
    """One POST: (status, Location, body) within the deadline."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise HttpFailure(f"{url}: not an http(s) URL", "connection", retried=False)
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise HttpFailure(f"no answer from {url} in time", "timeout", retried=True)
    sent = dict(headers)
    connection, target, route = _connection(parts, sent, remaining)
    watchdog = _Watchdog(connection, remaining)
    try:
        connection.request("POST", target, body=body, headers=sent)
        response = connection.getresponse()
        if response.status >= 300:
            return response.status, response.getheader("Location") or "", b""
        data = _read_body(response, url, max_bytes)
        if watchdog.fired:  # the socket was shut down under the read: what came is not all
            raise TimeoutError
        return response.status, "", data
    except HttpFailure:
        raise
    except (OSError, http.client.HTTPException) as error:
        if watchdog.fired or isinstance(error, TimeoutError):
            raise HttpFailure(f"no answer from {url}{route} in time", "timeout", retried=True) from None
        what = type(error).__name__ if isinstance(error, http.client.HTTPException) else error
        raise HttpFailure(f"{url}{route}: {what}", "connection", retried=True) from None
    finally:
        watchdog.cancel()
        connection.close()


def post_json(
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    *,
    timeout: float,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> bytes:
    """POST ``body`` to ``url``; the answer's body (see the module docstring), or :class:`HttpFailure`."""
    deadline = time.monotonic() + timeout
    headers = dict(headers)
    here = urllib.parse.urlsplit(url)
    for _ in range(_MAX_REDIRECTS + 1):
        status, location, data = _once(url, body, headers, deadline, max_bytes)
        if status < 300:
            return data
        if status in _FOLLOWED and location:
            url = urllib.parse.urljoin(url, location)
            there = urllib.parse.urlsplit(url)
            if _origin(there) != _origin(here):  # a credential is for its own host only
                headers = {k: v for k, v in headers.items() if k.lower() not in _CREDENTIALS}
            here = there
            continue
        if 300 <= status < 400:
            raise HttpFailure(
                f"{url} answered HTTP {status} (a redirect{f' to {location}' if location else ''}; not followed)",
                f"http_{status}",
                retried=False,
            )
        raise HttpFailure(f"{url} answered HTTP {status}", f"http_{status}", retried=status in RETRIED_STATUS)
    raise HttpFailure(f"{url}: more than {_MAX_REDIRECTS} redirects", "connection", retried=False)


class ChatError(SystemUnderTestError):
    """The endpoint gave no usable answer after the retries; ``reason``: ``timeout``, ``http_NNN``,
    ``connection``, ``too_large`` or ``malformed``."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


def add_usage(tokens: MutableMapping[str, int], usage: Any) -> None:
    """Add an answer's ``usage`` (prompt and completion tokens) to ``tokens`` (what is not a count ignored)."""
    if not isinstance(usage, Mapping):
        return
    for key, name in (("prompt_tokens", "prompt"), ("completion_tokens", "completion")):
        value = usage.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            tokens[name] = tokens.get(name, 0) + value


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
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        base = endpoint.rstrip("/")
        self.url = base if base.endswith("/chat/completions") else f"{base}/chat/completions"
        self.model = model
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_bytes = max_bytes
        self._key = (
            api_key if api_key is not None else os.environ.get("MWZ_LLM_API_KEY") or os.environ.get("OPENAI_API_KEY")
        )
        checked_proxy(self.url, {"Authorization": ""} if self._key else {})  # a proxy it cannot use: refused now

    def message(
        self,
        messages: list[dict[str, Any]],
        *,
        note: Callable[[str], None] | None = None,
        tokens: MutableMapping[str, int] | None = None,
        **parameters: Any,
    ) -> dict[str, Any]:
        """The model's reply to ``messages``: the assistant message (``content``, ``tool_calls``);
        ``note`` is told each retry and failure (``retry``, ``timeout``, ``http_500``...), ``tokens``
        gets the prompt and completion tokens the endpoint reports."""

        def count(what: str) -> None:
            if note is not None:
                note(what)

        body = json.dumps({"model": self.model, "messages": messages, **parameters}).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        delay = self.backoff
        for attempt in range(self.retries + 1):
            try:
                raw = post_json(self.url, body, headers, timeout=self.timeout, max_bytes=self.max_bytes)
            except HttpFailure as failure:
                count(failure.reason)
                if not failure.retried or attempt == self.retries:
                    raise ChatError(str(failure), failure.reason) from None
                count("retry")
                time.sleep(delay)
                delay *= 2
                continue
            try:
                data = json.loads(raw.decode("utf-8"))
                if tokens is not None:
                    add_usage(tokens, data.get("usage"))
                message = data["choices"][0]["message"]
                if not isinstance(message, dict):
                    raise TypeError("the message is not an object")
            except (ValueError, KeyError, IndexError, TypeError, AttributeError, RecursionError) as error:
                count("malformed")
                raise ChatError(
                    f"{self.url}: not a chat completion ({type(error).__name__}: {error})", "malformed"
                ) from None
            return message
        raise ChatError(f"{self.url}: no answer", "connection")  # not reached

    def complete(self, messages: list[dict[str, Any]], **parameters: Any) -> str:
        """The text of the model's reply to ``messages``."""
        return str(self.message(messages, **parameters).get("content") or "")
