"""The floor's HTTP client: JSON POSTed to a system under test or an OpenAI-compatible chat endpoint.

:func:`post_json` bounds a request whole: one deadline (``timeout`` seconds) covers the connection,
the headers and the body, however slowly a server sends them (a watchdog shuts the socket down at
the deadline); a body over ``max_bytes`` is refused unread. Redirects: 307 and 308 are followed
(three at most) with the same POST, ``Authorization`` dropped when the new address is another origin
(scheme, host, port); 301, 302 and 303 (which would turn the POST into a GET) are not followed. A
credential therefore never reaches a host other than the one it was given for. A URL's own
``user:password@`` is such a credential: taken out of the request and sent as ``Authorization: Basic``
to that host alone (unless the caller gives an ``Authorization`` header, which then wins). What failed is a
:class:`HttpFailure` with its kind (``timeout``, ``connection``, ``http_NNN``, ``too_large``); every
message names URLs as :func:`~mwz_metrics.interactive.secrets.redact_url` shows them (no password, no
``api_key=`` value), since messages end up in session files, logs and tracebacks.

Proxies: a remote host is reached through the proxy the environment names (``https_proxy``,
``http_proxy``, ``no_proxy``, as the standard library's ``urllib.request.getproxies`` and
``proxy_bypass`` read them; an ``http://`` proxy, ``user:password@`` sent to it as
``Proxy-Authorization``): an https address through a ``CONNECT`` tunnel, so the proxy sees the host
and nothing else. A loopback host (``127.0.0.0/8``, ``::1``, ``localhost``: a system under test on this
machine) is never proxied, and a request carrying a credential (``Authorization``, ``Cookie``) to a
plain ``http://`` address is refused rather than sent readable through a proxy.

:class:`ChatClient` speaks chat completions (vLLM, llama.cpp's server, hosted APIs) with optional
tools, retrying what may pass on a second try (429, 5xx, timeouts, refused or cut connections) and
counting the tokens the endpoint reports (``usage``); :meth:`ChatClient.answer` gives the reply whole
(:class:`ChatAnswer`: the message, why it ended, ``finish_reason``, and its own tokens). The endpoint's query string stays a query
(``https://h/v1?api-version=X`` is requested as ``https://h/v1/chat/completions?api-version=X``).

Keys, one per endpoint, never written anywhere: a client sends the key it is given (``api_key``), or
the one in the environment variable ``api_key_env`` names (unset or empty: refused, :class:`InputError`;
``api_key_env=""``: no key), or else the default one, ``MWZ_LLM_API_KEY`` (then ``OPENAI_API_KEY``).
The default key is for the run's own endpoint: ``mwz interact`` gives it to ``--endpoint`` (to the
run's one endpoint where ``--endpoint`` is not given) and gives an endpoint of another origin
(``--simulator-option endpoint=B``) ``api_key_env=""`` unless it names its own variable, so a key is never
sent to an origin it was not given for. A caller making clients for two origins does the same.
"""

from __future__ import annotations

import base64
import dataclasses
import http.client
import ipaddress
import json
import os
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable, Mapping, MutableMapping
from typing import Any

from mwz_metrics.interactive.secrets import redact_text, redact_url, url_secrets
from mwz_plugins.errors import InputError, SystemUnderTestError

RETRIED_STATUS = frozenset({429, 500, 502, 503, 504})
DEFAULT_MAX_BYTES = 1_000_000  # an answer's body at most (a MultiWOZ turn is well under 10 kB)
DEFAULT_KEY_VARIABLES = ("MWZ_LLM_API_KEY", "OPENAI_API_KEY")  # the run's own endpoint's key (module docstring)
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
    """:func:`proxy_for`, refusing a credential (``Authorization``, ``Cookie``, the URL's ``user:password@``)
    for a plain ``http://`` address through a proxy. Called as a system or client is made too, so a run is
    refused at once (one line) rather than every session failing."""
    proxy = proxy_for(url)
    credential = any(k.lower() in _CREDENTIALS for k in headers) or "@" in urllib.parse.urlsplit(url).netloc
    if proxy is not None and url.lower().startswith("http:") and credential:
        raise HttpFailure(
            f"{redact_url(url)}: refusing to send its credentials unencrypted through the proxy {_shown(proxy)} "
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
    """One POST: (status, Location, body) within the deadline (``url`` without userinfo: what it held is
    in ``headers``)."""
    parts = urllib.parse.urlsplit(url)
    shown = redact_url(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise HttpFailure(f"{shown}: not an http(s) URL", "connection", retried=False)
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise HttpFailure(f"no answer from {shown} in time", "timeout", retried=True)
    sent = dict(headers)
    connection, target, route = _connection(parts, sent, remaining)
    watchdog = _Watchdog(connection, remaining)
    try:
        connection.request("POST", target, body=body, headers=sent)
        response = connection.getresponse()
        if response.status >= 300:
            return response.status, response.getheader("Location") or "", b""
        data = _read_body(response, shown, max_bytes)
        if watchdog.fired:  # the socket was shut down under the read: what came is not all
            raise TimeoutError
        return response.status, "", data
    except HttpFailure:
        raise
    except (OSError, http.client.HTTPException) as error:
        if watchdog.fired or isinstance(error, TimeoutError):
            raise HttpFailure(f"no answer from {shown}{route} in time", "timeout", retried=True) from None
        # an HTTPException's text may quote the request's target (its query): its name only
        what = type(error).__name__ if isinstance(error, http.client.HTTPException) else str(error)
        raise HttpFailure(
            f"{shown}{route}: {redact_text(what, url_secrets(url))}", "connection", retried=True
        ) from None
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
    url, headers = _userinfo_as_header(url, headers)
    here = urllib.parse.urlsplit(url)
    for _ in range(_MAX_REDIRECTS + 1):
        status, location, data = _once(url, body, headers, deadline, max_bytes)
        if status < 300:
            return data
        if status in _FOLLOWED and location:
            url = _without_userinfo(urllib.parse.urljoin(url, location))  # a Location's userinfo: not ours to send
            there = urllib.parse.urlsplit(url)
            if _origin(there) != _origin(here):  # a credential is for its own host only
                headers = {k: v for k, v in headers.items() if k.lower() not in _CREDENTIALS}
            here = there
            continue
        shown = redact_url(url)
        if 300 <= status < 400:
            to = f" to {redact_url(urllib.parse.urljoin(url, location))}" if location else ""
            raise HttpFailure(
                f"{shown} answered HTTP {status} (a redirect{to}; not followed)", f"http_{status}", retried=False
            )
        raise HttpFailure(f"{shown} answered HTTP {status}", f"http_{status}", retried=status in RETRIED_STATUS)
    raise HttpFailure(f"{redact_url(url)}: more than {_MAX_REDIRECTS} redirects", "connection", retried=False)


def _without_userinfo(url: str) -> str:
    """``url`` without ``user:password@`` (the rest as it was)."""
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def _userinfo_as_header(url: str, headers: Mapping[str, str]) -> tuple[str, dict[str, str]]:
    """``url`` without its ``user:password@`` and ``headers`` with them as ``Authorization: Basic``, for
    this origin only (the redirect rule drops it elsewhere); an ``Authorization`` the caller gives wins."""
    headers = dict(headers)
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return url, headers
    if not any(k.lower() == "authorization" for k in headers):
        pair = f"{urllib.parse.unquote(parts.username or '')}:{urllib.parse.unquote(parts.password or '')}"
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")
    return _without_userinfo(url), headers


class ChatError(SystemUnderTestError):
    """The endpoint gave no usable answer after the retries; ``reason``: ``timeout``, ``http_NNN``,
    ``connection``, ``too_large`` or ``malformed``."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclasses.dataclass(frozen=True)
class ChatAnswer:
    """One reply of the endpoint: the assistant ``message`` (``content``, ``tool_calls``), why it ended
    (``finish_reason``: ``stop``, ``length``, ``tool_calls``...; None where the endpoint said nothing
    readable) and the prompt and completion tokens the endpoint reported for it (``usage``; empty where
    it reported none)."""

    message: dict[str, Any]
    finish_reason: str | None
    usage: dict[str, int]


def add_usage(tokens: MutableMapping[str, int], usage: Any) -> None:
    """Add an answer's ``usage`` (prompt and completion tokens) to ``tokens`` (what is not a count ignored)."""
    if not isinstance(usage, Mapping):
        return
    for key, name in (("prompt_tokens", "prompt"), ("completion_tokens", "completion")):
        value = usage.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            tokens[name] = tokens.get(name, 0) + value


def completions_url(endpoint: str) -> str:
    """The chat completions address of ``endpoint`` (a base URL, or one already ending
    ``/chat/completions``), its query string kept after the path (Azure's ``?api-version=``)."""
    parts = urllib.parse.urlsplit(endpoint.strip())
    path = parts.path.rstrip("/")
    if not path.endswith("/chat/completions"):
        path += "/chat/completions"
    return urllib.parse.urlunsplit(parts._replace(path=path))


def owns_default_key(endpoint: str, run_endpoint: str | None, endpoints: Iterable[str]) -> bool:
    """Whether ``endpoint`` may get the default key: it has the origin (scheme, host, port) of the run's
    ``run_endpoint`` (``--endpoint``) or, where none is given, the one origin of all the run's ``endpoints``."""

    def origin(url: str) -> tuple[str, str, int] | str:
        try:
            return _origin(urllib.parse.urlsplit(url.strip()))
        except ValueError:  # a port that is not a number: its own origin (the client refuses it later)
            return url

    owner = {origin(run_endpoint)} if run_endpoint else {origin(e) for e in endpoints}
    return owner == {origin(endpoint)}


def endpoint_key(api_key_env: str | None) -> str | None:
    """The key an endpoint gets: from the variable ``api_key_env`` names (unset or empty: refused; ``""``:
    no key), or, ``None``, the default one (:data:`DEFAULT_KEY_VARIABLES`, the run's own endpoint's)."""
    if api_key_env is None:
        return next((os.environ[v] for v in DEFAULT_KEY_VARIABLES if os.environ.get(v)), None)
    if not api_key_env:
        return None
    key = os.environ.get(api_key_env)
    if not key:
        raise InputError(f"api_key_env={api_key_env}: the environment variable {api_key_env} is not set (or empty)")
    return key


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
        api_key_env: str | None = None,
        backoff: float = 0.5,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        self.url = completions_url(endpoint)
        self.shown = redact_url(self.url)  # how messages name it
        self.model = model
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_bytes = max_bytes
        self._key = api_key if api_key is not None else endpoint_key(api_key_env)
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
        return self.answer(messages, note=note, tokens=tokens, **parameters).message

    def answer(
        self,
        messages: list[dict[str, Any]],
        *,
        note: Callable[[str], None] | None = None,
        tokens: MutableMapping[str, int] | None = None,
        **parameters: Any,
    ) -> ChatAnswer:
        """The model's reply to ``messages`` whole (:class:`ChatAnswer`); ``note`` and ``tokens`` as
        :meth:`message` takes them."""

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
                usage: dict[str, int] = {}
                add_usage(usage, data.get("usage"))
                if tokens is not None:
                    add_usage(tokens, data.get("usage"))
                choice = data["choices"][0]
                message = choice["message"]
                if not isinstance(message, dict):
                    raise TypeError("the message is not an object")
            except (ValueError, KeyError, IndexError, TypeError, AttributeError, RecursionError) as error:
                count("malformed")
                raise ChatError(
                    f"{self.shown}: not a chat completion ({type(error).__name__}: {error})", "malformed"
                ) from None
            finish = choice.get("finish_reason") if isinstance(choice, dict) else None
            return ChatAnswer(message, finish if isinstance(finish, str) else None, usage)
        raise ChatError(f"{self.shown}: no answer", "connection")  # not reached

    def complete(self, messages: list[dict[str, Any]], **parameters: Any) -> str:
        """The text of the model's reply to ``messages``."""
        return str(self.message(messages, **parameters).get("content") or "")
