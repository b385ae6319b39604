"""Calling an OpenAI-compatible chat endpoint: disk cache, retries, bounded concurrency, usage and cost.

:class:`LLMClient` wraps the real ``openai`` clients (their own retries off). :meth:`LLMClient.complete` makes
one call with ``openai.OpenAI``. :meth:`LLMClient.batch` makes many at once with ``openai.AsyncOpenAI`` under
one asyncio event loop that runs in a private thread, so ``batch`` stays a plain function that also works
where a loop is already running (Jupyter); :meth:`LLMClient.abatch` is the same for async callers. With
``aiohttp`` installed (``openai[aiohttp]``) the async client uses the openai package's aiohttp transport
(``openai.DefaultAioHttpClient``), which spends about a third less CPU per call than its default httpx one.

A request is a plain dict of ``chat.completions.create`` arguments (``model``, ``messages``, ``temperature``,
``seed``, ``response_format``, ...). Its canonical JSON (sorted keys, ``None`` values dropped, no spaces) is
what is sent, and its sha256 is the cache key. The cache is one JSON file per key, written atomically, so
workers can share a cache directory and a reader never sees half a file. Only answered calls with content are
cached: errors and refusals are not. Because each call is cached as it finishes, an interrupted batch loses
nothing and a rerun makes zero requests.

Retries: 429, 408, 409, 5xx, timeouts, connection errors, 200 answers whose body is empty or not whole
JSON, and 200 answers without an answer (no ``choices``, empty ``choices``, a message without content, or
without content and tool calls where tools were offered: never cached), up to ``max_attempts`` in all and
within one ``deadline`` per call (attempts, reading each body, and waits: a minute by default), waiting
``Retry-After`` when the server sends it, else exponential backoff with jitter. Other HTTP
errors (400, 401, 404, ...) are configuration problems and raise :class:`LLMError` at once. A failure is named
for what it was (a reset connection, a body cut short, a timeout), from the errors under the openai one, and
every server text kept or raised is redacted (:func:`redact`: the key, bearer tokens, ``sk-`` keys). The sync
and async paths share this policy (:meth:`LLMClient._after_failure`); the async one waits with
``asyncio.sleep``. Cache files and their folders are owner-only: prompts hold what agents read.

Bounds: every attempt, from sending the request to the last byte of the answer, runs under one clock
(``asyncio.wait_for`` on the client's event loop, which :meth:`LLMClient.complete` uses too), so a server that
drips its body a byte at a time is cut when the attempt's time (at most what is left of the deadline) is up.
A response body is read up to :attr:`LLMClient.max_response_bytes` (:data:`MAX_RESPONSE_BYTES`, 32 MiB;
``RTLAB_MAX_RESPONSE_BYTES``): a ``Content-Length`` past it is refused before the body is read, a body that
grows past it is cut there, and a compressed body (asked for ``identity``) is refused, so no answer takes
more memory than the limit; such a call fails at once (retrying would fetch the same).
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import importlib.util
import itertools
import json
import os
import random
import re
import threading
import time
import warnings
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import asdict, dataclass, field
from email.utils import parsedate_to_datetime
from json.encoder import encode_basestring
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar
from urllib.parse import urlparse

from rtlab.errors import RtlabError
from rtlab.io import atomic_open, byte_limit, describe_size

if TYPE_CHECKING:
    import openai
    import pandas as pd

T = TypeVar("T")

CACHE_SCHEMA = "rtlab.llm-cache/1"
ANSWER_FIELDS = (
    "content",
    "refusal",
    "tool_calls",
    "finish_reason",
    "response_model",
    "response_id",
    "prompt_tokens",
    "completion_tokens",
)
"""What a cache record keeps of an answer, besides ``schema`` and ``request``."""
DEFAULT_PRICES: Mapping[str, tuple[float, float]] = {"rtlab-simulated": (0.0, 0.0)}
"""Model -> (input $ per 1M tokens, output $ per 1M tokens). Only the simulated model is known: prices
change, so pass the endpoint's current prices (:func:`load_prices`); an unknown model costs ``None``."""
DEFAULT_TIMEOUT = 20.0
"""Seconds one HTTP attempt may take, by default."""
DEFAULT_MAX_ATTEMPTS = 4
"""HTTP attempts per call, by default."""
DEFAULT_DEADLINE = 60.0
"""Seconds one call may take in all by default (attempts and waits): a server that never answers costs a
minute per request, not attempts x timeout."""
RETRY_STATUS = frozenset({408, 409, 429})
"""HTTP statuses retried besides every 5xx."""
CHARS_PER_TOKEN = 4
"""The dry run's estimate of prompt tokens: characters / 4."""
Transport = Literal["auto", "aiohttp", "httpx"]
TRANSPORTS: tuple[Transport, ...] = ("auto", "aiohttp", "httpx")
"""HTTP transports of the async client: ``auto`` is ``aiohttp`` when it is installed, else ``httpx``."""
LONG_STRING = 256
"""Strings at least this long have their JSON encoding remembered within a batch (a system prompt that every
request repeats is encoded once)."""
MEMO_SIZE = 64
"""Most encodings remembered at once (then forgotten together), so a batch of long unique prompts stays small."""
MAX_RESPONSE_BYTES = 32 * 2**20
"""The default for the most bytes of one response body read (32 MiB: a chat completion is kilobytes; a long
answer with log-probabilities a few MB)."""
RESPONSE_ENV = "RTLAB_MAX_RESPONSE_BYTES"
"""The environment variable that sets :attr:`LLMClient.max_response_bytes` (bytes; ``K``, ``M``, ``G``)."""


class LLMError(RtlabError):
    """A call that cannot succeed by retrying (bad request, authentication, unknown model, no API key)."""


class _Refused(Exception):
    """A response not read to its end: its body past the size limit, or compressed though ``identity`` was
    asked. The call fails at once, never retried (the server would send the same)."""


class _OutOfTime(Exception):
    """An attempt, its body's reading included, ran past its time (:meth:`LLMClient._attempt`)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"timed out after {seconds:g} s")
        self.seconds = seconds


class _Unreadable(Exception):
    """A body that is JSON no parser here can hold (nested too deeply, a number of too many digits): a failed
    attempt, retried like a truncated body."""


class _NoAnswer(Exception):
    """An HTTP 200 whose body holds no answer (no choices, an empty list of them, a message with no content
    and no tool calls where tools were offered): a failed attempt, retried, never cached."""


@dataclass
class CallResult:
    """One chat-completion request and its outcome."""

    key: str
    """sha256 of the normalised request: the cache key."""
    model: str
    """The model requested."""
    content: str | None = None
    """The answer's text (the first choice's message content)."""
    refusal: str | None = None
    """The model's refusal message, when it refused."""
    tool_calls: list[dict[str, Any]] | None = None
    """The tool calls of the first choice's message, as the endpoint sent them (``id``, ``type``, ``function``:
    ``name`` and ``arguments``, the arguments as the JSON text the model wrote, valid or not); ``None`` when
    there were none."""
    finish_reason: str | None = None
    """Why the model stopped (``stop``, ``length``, ...), as the endpoint says."""
    response_model: str | None = None
    """The model the endpoint says answered."""
    response_id: str | None = None
    """The endpoint's id of the response."""
    prompt_tokens: int | None = None
    """Prompt tokens, as the endpoint reported them."""
    completion_tokens: int | None = None
    """Completion tokens, as the endpoint reported them."""
    cost: float | None = None
    """US dollars from the price table; ``None`` for an unknown model or a failed call."""
    cached: bool = False
    """Taken from the disk cache: no request was made."""
    attempts: int = 0
    """HTTP requests made for this result (0: from the cache)."""
    error: str | None = None
    """Why the call failed after every attempt (then nothing else is set)."""
    seconds: float = 0.0
    """Wall time from the first attempt to the answer or the last failure, waits included (0 if cached)."""

    @property
    def ok(self) -> bool:
        """Answered with content or tool calls (neither an error nor a refusal)."""
        return (
            self.error is None
            and self.refusal is None
            and (self.content is not None or bool(self.tool_calls))
        )


@dataclass(frozen=True)
class DryRun:
    """What a batch would do: calls not in the cache, and their estimated cost."""

    n_requests: int
    """Distinct requests (identical ones counted once)."""
    n_cached: int
    """Of those, the ones the cache answers."""
    n_calls: int
    """Of those, the ones to send."""
    prompt_tokens: int
    """Estimated prompt tokens of the calls to make (characters / :data:`CHARS_PER_TOKEN`)."""
    max_output_tokens: int
    """Output tokens assumed per call (the request's ``max_tokens`` where it sets one)."""
    cost: float | None
    """Upper estimate in US dollars; ``None`` when some model to call has no price."""
    unpriced: tuple[str, ...] = ()
    """The models to call that have no price, sorted."""

    def describe(self) -> str:
        """One line for ``--dry-run``."""
        cost = (
            "unknown (no price for " + ", ".join(self.unpriced) + ")"
            if self.cost is None
            else f"${self.cost:.4f}"
        )
        return (
            f"{self.n_calls} calls to make ({self.n_cached} of {self.n_requests} requests cached); "
            f"~{self.prompt_tokens} prompt tokens, <= {self.max_output_tokens} output tokens each; "
            f"estimated cost {cost}"
        )


# ---------------------------------------------------------------------------------------------------------
# Requests, keys, prices


def _encode(value: Any, memo: dict[str, str] | None = None) -> str:
    """Canonical JSON of JSON-native data: ``None`` values of mappings dropped at any depth, keys sorted, no
    spaces, non-ASCII as is. Byte for byte ``json.dumps(value, sort_keys=True, separators=(",", ":"),
    ensure_ascii=False)`` of that data (every cache key depends on it), but ``memo`` keeps the encoding of
    mapping keys and long strings, which is most of the time of a key (the system prompt a batch repeats)."""
    if isinstance(value, str):
        return _encode_str(value, memo) if len(value) >= LONG_STRING else encode_basestring(value)
    if isinstance(value, Mapping):
        items = {str(k): v for k, v in value.items() if v is not None}
        return (
            "{" + ",".join(_encode_str(k, memo) + ":" + _encode(items[k], memo) for k in sorted(items)) + "}"
        )
    if isinstance(value, list | tuple):
        return "[" + ",".join(_encode(v, memo) for v in value) + "]"
    if type(value) is int:
        return str(value)  # what json writes for an int (not a bool)
    return json.dumps(value)  # floats, booleans, null; anything else raises TypeError as json does


def _encode_str(text: str, memo: dict[str, str] | None) -> str:
    """A JSON string, its encoding remembered in ``memo`` (forgotten all at once past :data:`MEMO_SIZE`)."""
    if memo is None:
        return encode_basestring(text)
    encoded = memo.get(text)
    if encoded is None:
        if len(memo) >= MEMO_SIZE:
            memo.clear()
        encoded = memo[text] = encode_basestring(text)
    return encoded


def _canonical(request: Mapping[str, Any], memo: dict[str, str] | None = None) -> str:
    """The normalised request's canonical JSON (see :func:`_encode`)."""
    if "model" not in request or "messages" not in request:
        raise LLMError("a request needs 'model' and 'messages'")
    return _encode(request, memo)


@dataclass(frozen=True)
class _Call:
    """A request ready to send: its cache key, its model and its body."""

    key: str
    model: str
    body: bytes
    """The canonical JSON in UTF-8: what is hashed, sent, and (parsed) cached as the request."""
    tools: bool = False
    """The request offers tools (then tool calls without content are an answer)."""


def _prepare(request: Mapping[str, Any], memo: dict[str, str] | None = None) -> _Call:
    body = _canonical(request, memo).encode("utf-8")
    offered = bool(request.get("tools") or request.get("functions"))
    return _Call(hashlib.sha256(body).hexdigest(), str(request["model"]), body, offered)


def normalize_request(request: Mapping[str, Any]) -> dict[str, Any]:
    """The request as canonical JSON-native data: ``None`` values dropped (also in messages), keys sorted."""
    return json.loads(_canonical(request))


def request_key(request: Mapping[str, Any]) -> str:
    """sha256 hex of the canonical JSON of the normalised request."""
    return _prepare(request).key


def call_cost(
    model: str,
    prompt_tokens: int | None,
    completion_tokens: int | None,
    prices: Mapping[str, tuple[float, float]],
) -> float | None:
    """US dollars for a call: tokens x price per 1M; ``None`` for an unknown model or unknown usage."""
    price = prices.get(model)
    if price is None or prompt_tokens is None or completion_tokens is None:
        return None
    return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1_000_000


def load_prices(path: str | Path) -> dict[str, tuple[float, float]]:
    """A price table from JSON ``{"model": [input_per_1M, output_per_1M], ...}``."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    out: dict[str, tuple[float, float]] = {}
    for model, pair in data.items():
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, int | float) for x in pair)):
            raise LLMError(f"{path}: price of {model!r} must be [input_per_1M, output_per_1M]")
        out[model] = (float(pair[0]), float(pair[1]))
    return out


def default_cache_dir() -> Path:
    """``$RTLAB_CACHE_DIR/llm``, else ``$XDG_CACHE_HOME/rtlab/llm``, else ``~/.cache/rtlab/llm``."""
    if os.environ.get("RTLAB_CACHE_DIR"):
        return Path(os.environ["RTLAB_CACHE_DIR"]) / "llm"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rtlab" / "llm"


# ---------------------------------------------------------------------------------------------------------
# The disk cache

_REQUEST_MARK = b', "request": '
"""Where the request starts in a record file as :meth:`DiskCache.put` writes it. Inside a JSON string every
``"`` is escaped, so the first occurrence is the top-level key."""


class DiskCache:
    """One JSON file per key (``DIR/ab/abcdef....json``), written atomically (temp file + rename).

    A file is one JSON object: ``schema`` (:data:`CACHE_SCHEMA`), the answer (:data:`ANSWER_FIELDS`) and the
    normalised ``request``. :meth:`put` writes the request last, so that :meth:`answer` (every cache hit)
    parses only what comes before it; files of earlier versions (keys sorted, the request amid them) are
    parsed whole. Both are the same format to any JSON reader.
    """

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)

    def path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def _read(self, key: str) -> bytes | None:
        # plain string paths: this runs for every cache hit, where pathlib's parsing would show
        try:
            with open(os.path.join(self.directory, key[:2], key + ".json"), "rb") as fh:
                return fh.read()
        except OSError:
            return None

    def get(self, key: str) -> dict[str, Any] | None:
        """The whole cached record, or ``None`` (absent, or unreadable: then the call is simply made again)."""
        data = self._read(key)
        return None if data is None else _parse_record(data)

    def answer(self, key: str) -> dict[str, Any] | None:
        """The cached record without its ``request`` (what a cache hit needs), or ``None`` like :meth:`get`."""
        data = self._read(key)
        if data is None:
            return None
        cut = data.find(_REQUEST_MARK)
        if cut > 0 and data.endswith(b"}}"):  # a whole file ends with the request's "}" and the record's
            try:
                head = json.loads(data[:cut] + b"}")
            except ValueError:
                head = None
            if (
                isinstance(head, dict)
                and head.get("schema") == CACHE_SCHEMA
                and all(f in head for f in ANSWER_FIELDS)
            ):
                return head
        record = _parse_record(data)
        if record is not None:
            record.pop("request", None)
        return record

    def put(self, key: str, record: Mapping[str, Any]) -> None:
        """Store ``record`` (the answer fields and ``request``) under ``key``, the request written last; a file
        that cannot be written (a folder in its place, a full disk) is a warning, not an error."""
        data = {"schema": CACHE_SCHEMA, **{k: v for k, v in record.items() if k not in ("schema", "request")}}
        if "request" in record:
            data["request"] = record["request"]
        text = json.dumps(data, ensure_ascii=False)
        path = self.path(key)
        try:
            if not path.parent.is_dir():  # the folders owner-only too: file names are request keys
                path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            with atomic_open(path, private=True) as fh:  # prompts hold read-log excerpts: owner-only (0600)
                fh.write(text)
        except OSError as exc:  # a cache that cannot be written costs a rerun's call, never this answer
            warnings.warn(f"rtlab: LLM cache entry not written ({path}): {exc}", RuntimeWarning, stacklevel=2)


def _parse_record(data: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(data)
    except ValueError:
        return None
    return record if isinstance(record, dict) and record.get("schema") == CACHE_SCHEMA else None


# ---------------------------------------------------------------------------------------------------------
# Retry policy


def _retry_after(exc: Exception) -> float | None:
    """Seconds the server asks to wait (``retry-after-ms``, ``Retry-After`` as seconds or an HTTP date)."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    if (ms := headers.get("retry-after-ms")) is not None:
        try:
            return float(ms) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None


def _retryable(exc: Exception) -> bool:
    import openai

    if isinstance(
        exc, openai.APIConnectionError | json.JSONDecodeError | _OutOfTime | _NoAnswer | _Unreadable
    ):
        return True  # APIConnectionError includes APITimeoutError
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in RETRY_STATUS or exc.status_code >= 500
    return False


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and what caused it, outermost first (the openai error, httpx's, the transport's, the OS's)."""
    out: list[BaseException] = []
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


_CUT_SHORT = (
    "complete message body",
    "payload is not completed",
    "not enough data to satisfy content length",
)
_DISCONNECTED = ("server disconnected", "without sending a response", "connection closed")


def _describe(exc: Exception, timeout: float | None = None) -> str:
    """What a failed attempt was, named from the error and its causes: the openai package reports a reset
    connection as "Connection error." (httpx) or even "Request timed out." (aiohttp: every connection error
    becomes a ``ConnectTimeout``), so the OS's and the transport's errors underneath decide."""
    import openai

    if isinstance(exc, _Refused | _NoAnswer | _Unreadable):
        return str(exc)
    if isinstance(exc, _OutOfTime):
        return f"no answer in time (timed out after {exc.seconds:g} s, the answer's whole body included)"
    if isinstance(exc, json.JSONDecodeError):
        if not exc.doc.strip():
            return "empty response body (HTTP 200 with no JSON)"
        return (
            f"truncated response body ({len(exc.doc)} characters, not complete JSON: {exc.msg} at {exc.pos})"
        )
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code} ({type(exc).__name__}): {exc}"
    chain = _chain(exc)
    texts = " | ".join(str(e).lower() for e in chain)
    if any(
        isinstance(e, ConnectionResetError) or getattr(e, "errno", None) == errno.ECONNRESET for e in chain
    ):
        return "connection reset by the server"
    if any(
        isinstance(e, ConnectionRefusedError) or getattr(e, "errno", None) == errno.ECONNREFUSED
        for e in chain
    ):
        return "connection refused (is the endpoint up?)"
    if any(m in texts for m in _CUT_SHORT):
        return "response body cut short (the connection closed before the whole body arrived)"
    if any(m in texts for m in _DISCONNECTED):
        return "the server closed the connection without answering"
    if isinstance(exc, openai.APITimeoutError):
        return "no answer in time" + (
            f" (timed out after {timeout:g} s)" if timeout is not None else " (timed out)"
        )
    deepest = chain[-1]
    return f"connection error ({type(deepest).__name__}: {deepest})" if str(deepest) else "connection error"


REDACTED = "[redacted]"
"""What stands in for a secret in any text rtlab prints or stores."""
_SECRET_SHAPES = re.compile(
    r"(?i)(\bbearer\s+|\bauthorization[\"']?\s*[:=]\s*[\"']?(?:bearer\s+)?|\bapi[-_]?key[\"']?\s*[:=]\s*[\"']?)"
    r"([^\s\"',;}]+)"
    r"|\b(sk-[A-Za-z0-9_-]{8,})"
)
"""A credential by its shape: a bearer token, an ``Authorization`` or ``api_key`` value, an ``sk-`` key."""
MIN_SECRET = 8
"""Shortest key redacted wherever it appears (shorter ones, like the ``local`` of a loopback server, would
mangle ordinary words); credentials by shape (:data:`_SECRET_SHAPES`) are redacted whatever their length."""


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every ``secrets`` value of :data:`MIN_SECRET` characters or more, and anything shaped like
    a credential (:data:`_SECRET_SHAPES`), replaced by :data:`REDACTED`."""
    for secret in secrets:
        if secret and len(secret) >= MIN_SECRET and secret in text:
            text = text.replace(secret, REDACTED)
    return _SECRET_SHAPES.sub(lambda m: (m.group(1) + REDACTED) if m.group(1) else REDACTED, text)


# ---------------------------------------------------------------------------------------------------------
# The private event loop of batches


def _async_openai(
    base_url: str | None, api_key: str, timeout: float, transport: Transport, max_body: int
) -> openai.AsyncOpenAI:
    """The async openai client (own retries off) on the transport asked for, every response body read within
    ``max_body`` bytes (:func:`_cap_body`); made on the loop that uses it."""
    import openai

    aiohttp = transport == "aiohttp" or (
        transport == "auto"
        and importlib.util.find_spec("aiohttp") is not None
        and hasattr(openai, "DefaultAioHttpClient")  # older openai releases have no aiohttp transport
    )
    hooks = {"response": [_cap_body(max_body)]}
    http = openai.DefaultAioHttpClient if aiohttp else openai.DefaultAsyncHttpxClient
    return openai.AsyncOpenAI(
        base_url=base_url,
        api_key=api_key,
        max_retries=0,
        timeout=timeout,
        default_headers={
            "Accept-Encoding": "identity"
        },  # the limit counts the bytes kept, not compressed ones
        http_client=http(event_hooks=hooks),
    )


_CAPPED: dict[type, type] = {}
"""The capped stream class made for each HTTP library's ``AsyncByteStream`` (httpx, httpx2)."""


def _cap_body(limit: int) -> Callable[[Any], Awaitable[None]]:
    """An HTTP response hook (httpx's ``event_hooks``, run before the body is read, on every transport) that
    refuses a ``Content-Length`` past ``limit`` or a compressed body, and makes the body's stream stop past
    ``limit`` bytes (:class:`_Refused`)."""
    import sys

    async def hook(response: Any) -> None:
        declared = response.headers.get("content-length", "")
        if declared.strip().isdigit() and int(declared) > limit:
            raise _Refused(
                f"response body of {describe_size(int(declared))} (Content-Length), more than the limit of "
                f"{describe_size(limit)}; raise it with {RESPONSE_ENV}=SIZE if the endpoint is genuine"
            )
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            raise _Refused(f"response body compressed ({encoding}) though identity was asked: not read")
        library = sys.modules[type(response).__module__.partition(".")[0]]
        base = library.AsyncByteStream
        capped = _CAPPED.get(base)
        if capped is None:
            capped = _CAPPED[base] = type("_CappedStream", (_CappedStream, base), {})
        response.stream = capped(response.stream, limit)

    return hook


class _CappedStream:
    """A response body's stream that raises :class:`_Refused` once more than ``limit`` bytes came (mixed into
    the HTTP library's ``AsyncByteStream`` by :func:`_cap_body`)."""

    def __init__(self, inner: Any, limit: int) -> None:
        self.inner = inner
        self.limit = limit

    async def __aiter__(self) -> Any:
        seen = 0
        async for chunk in self.inner:
            seen += len(chunk)
            if seen > self.limit:
                raise _Refused(
                    f"response body past the limit of {describe_size(self.limit)} (cut there); raise it with "
                    f"{RESPONSE_ENV}=SIZE if the endpoint is genuine"
                )
            yield chunk

    async def aclose(self) -> None:
        await self.inner.aclose()


class _LoopThread:
    """An asyncio event loop running in a daemon thread, and the ``openai.AsyncOpenAI`` client living on it.

    Synchronous code hands it coroutines (:meth:`run`), so no loop is ever started on the caller's thread, where
    one may already run. The client is made once and reused, so connections outlive a batch.
    """

    def __init__(self, make_client: Callable[[], openai.AsyncOpenAI]) -> None:
        self.pid = os.getpid()
        """The process whose thread runs the loop."""
        self._make_client = make_client
        self._client: openai.AsyncOpenAI | None = None
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, name="rtlab-llm-loop", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
            left = asyncio.all_tasks(self.loop)
            for task in left:
                task.cancel()
            self.loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
            self.loop.run_until_complete(self.loop.shutdown_default_executor())
        finally:
            self.loop.close()

    def client(self) -> openai.AsyncOpenAI:
        """The async openai client; call on the loop only."""
        if self._client is None:
            self._client = self._make_client()
        return self._client

    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        """Schedule ``coro`` on the loop; cancelling the future cancels it."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the loop and wait for it. An exception in the waiting thread (``KeyboardInterrupt``)
        cancels it, and is raised once it has wound down (calls that finished are cached by then)."""
        finished = threading.Event()
        task: list[asyncio.Task[T]] = []

        def start() -> None:
            task.append(self.loop.create_task(coro))
            task[0].add_done_callback(lambda _t: finished.set())

        self.loop.call_soon_threadsafe(start)
        try:
            finished.wait()
        except BaseException:
            self.loop.call_soon_threadsafe(lambda: task[0].cancel())
            finished.wait()
            raise
        return task[0].result()

    async def _shutdown(self) -> None:
        try:
            if self._client is not None:
                await self._client.close()
        finally:
            self.loop.stop()

    def close(self) -> None:
        """Close the client's connections and stop the loop (a no-op once done)."""
        if threading.current_thread() is self._thread:  # the last reference went away on the loop itself
            self.loop.create_task(self._shutdown())
            return
        if not self._thread.is_alive():
            return
        try:
            asyncio.run_coroutine_threadsafe(self._shutdown(), self.loop).result(timeout=10)
        except Exception:  # closing is best effort: the loop stops either way
            self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)


# ---------------------------------------------------------------------------------------------------------
# The client


@dataclass
class LLMClient:
    """An OpenAI-compatible chat endpoint with cache, retries, concurrency and cost accounting.

    ``base_url`` / ``api_key`` default to ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``; a loopback endpoint
    needs no key. ``cache_dir=None`` uses :func:`default_cache_dir`; ``cache=False`` turns caching off.
    A client that made a batch holds an event loop thread and connections: :meth:`close` (or ``with``) frees
    them at once, else they go with the client.
    """

    base_url: str | None = None
    """The endpoint's base URL; unset: ``OPENAI_BASE_URL``, else the openai package's default."""
    api_key: str | None = field(default=None, repr=False)
    """The API key; unset: ``OPENAI_API_KEY`` (a loopback endpoint takes any key). Left out of the repr."""
    timeout: float = DEFAULT_TIMEOUT
    """Seconds one HTTP attempt may take (less when less is left of :attr:`deadline`)."""
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    """HTTP requests per call at most, the first one included."""
    deadline: float | None = DEFAULT_DEADLINE
    """Seconds one call may take in all, its attempts and the waits between them included: no attempt runs
    and no wait ends past it (``None``: attempts x timeout plus the waits)."""
    backoff: float = 1.0
    """First backoff in seconds; doubles each attempt, with jitter (x 0.5-1.0)."""
    backoff_max: float = 60.0
    """Longest backoff in seconds."""
    max_retry_after: float = 60.0
    """Longest ``Retry-After`` honoured; a longer one is cut to this."""
    cache_dir: str | Path | None = None
    """Folder of the disk cache; ``None``: :func:`default_cache_dir`."""
    cache: bool = True
    """Read and write the disk cache (off: every call is made)."""
    prices: Mapping[str, tuple[float, float]] = field(default_factory=lambda: dict(DEFAULT_PRICES))
    """Model -> (input, output) US dollars per 1M tokens; a model not in it costs ``None``."""
    seed: int | None = None
    """Seed of the jitter's random generator (for reproducible waits in tests)."""
    sleep: Callable[[float], None] = time.sleep
    """How :meth:`complete` waits between attempts."""
    async_sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    """How batches wait between attempts (on the event loop: it must not block)."""
    transport: Transport = "auto"
    """HTTP transport, one of :data:`TRANSPORTS`."""
    max_response_bytes: int | None = None
    """The most bytes of one response body read (a call whose answer is longer fails); ``None``:
    ``RTLAB_MAX_RESPONSE_BYTES`` from the environment, else :data:`MAX_RESPONSE_BYTES` (32 MiB)."""

    def __post_init__(self) -> None:
        if self.transport not in TRANSPORTS:
            raise LLMError(f"transport must be one of {', '.join(TRANSPORTS)}, not {self.transport!r}")
        self.base_url = self.base_url or os.environ.get("OPENAI_BASE_URL") or None
        key = self.api_key or os.environ.get("OPENAI_API_KEY")
        if (
            not key
            and self.base_url
            and urlparse(self.base_url).hostname in ("127.0.0.1", "localhost", "::1")
        ):
            key = "local"  # a local server takes any key
        self.api_key = key
        self.max_response_bytes = byte_limit(self.max_response_bytes, RESPONSE_ENV, MAX_RESPONSE_BYTES)
        self._store = DiskCache(self.cache_dir or default_cache_dir()) if self.cache else None
        self._rng = random.Random(self.seed)
        self._rng_lock = threading.Lock()
        self._client: openai.OpenAI | None = None
        self._runner: _LoopThread | None = None
        self._client_lock = threading.Lock()

    # -- the openai clients -----------------------------------------------------------------------------

    def _key(self) -> str:
        if not self.api_key:
            raise LLMError("no API key: pass api_key / --api-key or set OPENAI_API_KEY")
        return self.api_key

    def _openai(self) -> openai.OpenAI:
        with self._client_lock:
            if self._client is None:
                import openai

                self._client = openai.OpenAI(
                    base_url=self.base_url, api_key=self._key(), max_retries=0, timeout=self.timeout
                )
            return self._client

    def _loop(self) -> _LoopThread:
        with self._client_lock:
            if self._runner is not None and self._runner.pid != os.getpid():
                self._runner = None  # made before a fork: its thread does not run in this process
            if self._runner is None:
                limit = self.max_response_bytes or MAX_RESPONSE_BYTES
                make = (self.base_url, self._key(), self.timeout, self.transport, limit)
                self._runner = _LoopThread(lambda: _async_openai(*make))
                weakref.finalize(self, self._runner.close)  # not a method of self: it would keep self alive
            return self._runner

    def close(self) -> None:
        """Close the openai clients' connections and stop the batches' event loop thread."""
        with self._client_lock:
            runner, client, self._runner, self._client = self._runner, self._client, None, None
        if runner is not None:
            runner.close()
        if client is not None:
            client.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the retry policy, shared by the sync and async paths --------------------------------------------

    def _wait(self, attempt: int, exc: Exception) -> float:
        told = _retry_after(exc)
        if told is not None:
            return min(told, self.max_retry_after)
        with self._rng_lock:
            jitter = 0.5 + 0.5 * self._rng.random()
        return min(self.backoff_max, self.backoff * 2 ** (attempt - 1)) * jitter

    def _redact(self, text: str) -> str:
        return redact(text, (self.api_key,))

    def _attempt_timeout(self, start: float) -> float:
        """Seconds the next attempt may take: :attr:`timeout`, or what is left of :attr:`deadline` if less."""
        if self.deadline is None:
            return self.timeout
        return max(0.001, min(self.timeout, self.deadline - (time.monotonic() - start)))

    def _after_failure(
        self, call: _Call, attempt: int, exc: Exception, start: float, timeout: float
    ) -> float | CallResult:
        """After failed attempt ``attempt`` (given ``timeout`` seconds): seconds to wait before the next, or the
        failed result once every attempt is spent or the deadline would pass; raises :class:`LLMError` when
        retrying cannot help. Every message is redacted (:func:`redact`): servers echo credentials back."""
        what = self._redact(_describe(exc, timeout))
        elapsed = time.monotonic() - start
        if isinstance(exc, _Refused):  # the same server would send the same body: not retried
            return CallResult(
                key=call.key,
                model=call.model,
                attempts=attempt,
                error=f"{what} (not retried)",
                seconds=elapsed,
            )
        if not _retryable(exc):
            raise LLMError(f"{call.model}: {what}") from exc
        wait = None if attempt >= self.max_attempts else self._wait(attempt, exc)
        if wait is not None and self.deadline is not None and elapsed + wait >= self.deadline:
            wait, why = (
                None,
                f"gave up after {attempt} attempts in {elapsed:.1f} s: the next would pass the call's {self.deadline:g} s deadline",
            )
        else:
            why = f"after {attempt} attempt" + ("s" if attempt > 1 else "")
        if wait is None:
            return CallResult(
                key=call.key, model=call.model, attempts=attempt, error=f"{what} ({why})", seconds=elapsed
            )
        return wait

    def _answered(
        self, call: _Call, data: Any, attempt: int, start: float
    ) -> tuple[CallResult, dict[str, Any] | None]:
        """The result of an answered attempt, and the record to cache (``None``: not to be cached); an answer
        that holds none (:func:`_no_answer`) raises :class:`_NoAnswer`, a failed attempt."""
        if not isinstance(data, Mapping):
            raise _NoAnswer(
                "HTTP 200 with something other than a JSON object: "
                f"{self._redact(json.dumps(data, ensure_ascii=False)[:200])!r}"
            )
        record = _record(data, self._redact)
        why = _no_answer(data, record, tools=call.tools)
        if why:
            raise _NoAnswer(f"HTTP 200 without an answer: {why}")
        result = self._result(
            call.key, call.model, record, cached=False, attempts=attempt, seconds=time.monotonic() - start
        )
        if self._store is None or not result.ok:
            return result, None
        return result, {**record, "request": json.loads(call.body)}

    # -- one call ---------------------------------------------------------------------------------------

    def cached(self, request: Mapping[str, Any], *, key: str | None = None) -> CallResult | None:
        """The cached result of this request, or ``None`` (``key``: its :func:`request_key`, if known)."""
        if self._store is None:
            return None
        return self._lookup(key or request_key(request), str(request["model"]))

    def _lookup(self, key: str, model: str) -> CallResult | None:
        record = None if self._store is None else self._store.answer(key)
        if record is None:
            return None
        return self._result(key, model, record, cached=True, attempts=0, seconds=0.0)

    def _result(
        self, key: str, model: str, record: Mapping[str, Any], *, cached: bool, attempts: int, seconds: float
    ) -> CallResult:
        prompt, completion = record.get("prompt_tokens"), record.get("completion_tokens")
        return CallResult(
            key=key,
            model=model,
            content=record.get("content"),
            refusal=record.get("refusal"),
            tool_calls=record.get("tool_calls"),
            finish_reason=record.get("finish_reason"),
            response_model=record.get("response_model"),
            response_id=record.get("response_id"),
            prompt_tokens=prompt,
            completion_tokens=completion,
            cost=call_cost(model, prompt, completion, self.prices),
            cached=cached,
            attempts=attempts,
            seconds=seconds,
        )

    def complete(self, request: Mapping[str, Any]) -> CallResult:
        """One request: from the cache, else from the endpoint with retries; cached when answered with content.

        Each attempt runs on the client's event loop thread under one clock (:meth:`_attempt`), so the deadline
        bounds reading the answer too; the waits between attempts are :attr:`sleep` in the calling thread.
        Returns a result with ``error`` set when every attempt failed; raises :class:`LLMError` when the
        endpoint rejects the request itself (retrying cannot help).
        """
        call = _prepare(request)
        hit = self._lookup(call.key, call.model)
        if hit is not None:
            return hit
        runner = self._loop()
        failures = _failures()
        start = time.monotonic()
        for attempt in range(1, self.max_attempts + 1):
            timeout = self._attempt_timeout(start)
            try:
                result, record = self._answered(
                    call, runner.run(self._attempt(runner, call, timeout)), attempt, start
                )
            except failures as exc:
                step = self._after_failure(call, attempt, exc, start, timeout)
                if isinstance(step, CallResult):
                    return step
                self.sleep(step)
                continue
            if self._store is not None and record is not None:
                self._store.put(call.key, record)
            return result
        raise AssertionError("unreachable")  # the loop returns on its last attempt

    async def _attempt(self, runner: _LoopThread, call: _Call, timeout: float) -> Any:
        """One HTTP attempt on the loop, sending the request and reading the whole answer within ``timeout``
        seconds (else :class:`_OutOfTime`): the transport's own timeouts bound each read, not their sum."""
        post = runner.client().post("/chat/completions", cast_to=object, **_post_args(call, timeout))
        try:
            return await asyncio.wait_for(post, timeout)
        except TimeoutError:
            raise _OutOfTime(timeout) from None
        except json.JSONDecodeError:
            raise
        except (RecursionError, ValueError) as exc:  # json's own limits: depth, digits of an integer
            raise _Unreadable(f"an answer whose JSON cannot be read ({type(exc).__name__}: {exc})") from None

    async def _acomplete(self, runner: _LoopThread, call: _Call) -> CallResult:
        """:meth:`complete` on the event loop for a call not in the cache; the cache is written in a thread."""
        failures = _failures()
        start = time.monotonic()
        for attempt in range(1, self.max_attempts + 1):
            timeout = self._attempt_timeout(start)
            try:
                result, record = self._answered(
                    call, await self._attempt(runner, call, timeout), attempt, start
                )
            except failures as exc:
                step = self._after_failure(call, attempt, exc, start, timeout)
                if isinstance(step, CallResult):
                    return step
                await self.async_sleep(step)
                continue
            if self._store is not None and record is not None:
                await asyncio.to_thread(self._store.put, call.key, record)
            return result
        raise AssertionError("unreachable")  # the loop returns on its last attempt

    # -- batches ----------------------------------------------------------------------------------------

    def _plan(
        self, requests: Iterable[Mapping[str, Any]], keys: list[str], done: dict[str, CallResult], bar: Any
    ) -> Iterator[_Call]:
        """The calls to make for ``requests``, each prepared as it is taken, so that the first calls start before
        the last keys are computed. Appends each request's key to ``keys`` (input order) and puts cached results
        in ``done``; identical requests are made once. Ticks ``bar`` for each request not to be called."""
        memo: dict[str, str] = {}
        taken: set[str] = set()
        for request in requests:
            call = _prepare(request, memo)
            keys.append(call.key)
            if call.key not in taken:
                taken.add(call.key)
                hit = self._lookup(call.key, call.model)
                if hit is None:
                    yield call
                    continue
                done[call.key] = hit
            if bar is not None:
                bar.update(1)

    async def _make_all(
        self, runner: _LoopThread, calls: Iterator[_Call], max_workers: int, bar: Any
    ) -> dict[str, CallResult]:
        """Make ``calls`` on ``runner``'s loop, at most ``max_workers`` at once. After an exception (also one
        preparing a request) no call starts; it is raised once the running ones end."""
        results: dict[str, CallResult] = {}
        failures: list[Exception] = []

        async def worker() -> None:
            while not failures:
                try:
                    call = next(calls, None)  # one shared iterator: each call is taken by one worker
                    if call is None:
                        return
                    results[call.key] = await self._acomplete(runner, call)
                except Exception as exc:  # re-raised below, once the other workers stop
                    failures.append(exc)
                    return
                if bar is not None:
                    bar.update(1)

        tasks: list[asyncio.Future[None]] = []
        try:
            for _ in range(max(1, max_workers)):
                tasks.append(asyncio.ensure_future(worker()))
                # one turn of the loop per worker: its first request goes out before the next one is built, so
                # the first wave leaves (and comes back) spread out instead of all at once after the last build
                await asyncio.sleep(0)
            await asyncio.gather(*tasks)
        except BaseException:  # cancelled (Ctrl-C) while starting them: the started workers stop too
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        if failures:
            raise failures[0]
        return results

    def _start(
        self, requests: Sequence[Mapping[str, Any]], progress: bool, desc: str
    ) -> tuple[list[str], dict[str, CallResult], Iterator[_Call] | None, Any]:
        """Plan ``requests`` up to the first call to make: the keys and results so far, the calls to make
        (``None``: every result is cached or a duplicate, no event loop needed), and the progress bar."""
        keys: list[str] = []
        done: dict[str, CallResult] = {}
        bar = _progress(len(requests), desc) if progress else None
        calls = self._plan(requests, keys, done, bar)
        first = next(calls, None)
        return keys, done, None if first is None else itertools.chain([first], calls), bar

    def batch(
        self,
        requests: Sequence[Mapping[str, Any]],
        *,
        max_workers: int = 8,
        progress: bool = False,
        desc: str = "LLM calls",
    ) -> list[CallResult]:
        """Results in input order; at most ``max_workers`` calls at once; identical requests are made once.

        The calls run on the client's private event loop thread, so this works where a loop is already
        running (Jupyter). Each finished call is cached at once, so after an interruption (``KeyboardInterrupt``
        cancels the calls in flight) or an :class:`LLMError` (raised once running calls end) a rerun makes
        only the calls not yet done.
        """
        keys, done, calls, bar = self._start(requests, progress, desc)
        try:
            if calls is not None:
                runner = self._loop()
                done.update(runner.run(self._make_all(runner, calls, max_workers, bar)))
        finally:
            if bar is not None:
                bar.close()
        return [done[k] for k in keys]

    async def abatch(
        self,
        requests: Sequence[Mapping[str, Any]],
        *,
        max_workers: int = 8,
        progress: bool = False,
        desc: str = "LLM calls",
    ) -> list[CallResult]:
        """:meth:`batch` for a coroutine: the calls still run on the private loop, and cancelling this
        cancels them."""
        keys, done, calls, bar = self._start(requests, progress, desc)
        try:
            if calls is not None:
                runner = self._loop()
                work = runner.submit(self._make_all(runner, calls, max_workers, bar))
                # named first: inside update(), mypy would type the future from update's parameter
                finished = await asyncio.wrap_future(work)
                done.update(finished)
        finally:
            if bar is not None:
                bar.close()
        return [done[k] for k in keys]

    def dry_run(self, requests: Sequence[Mapping[str, Any]], *, max_output_tokens: int = 512) -> DryRun:
        """How many of ``requests`` would be sent (not cached, duplicates once) and their estimated cost."""
        done: dict[str, CallResult] = {}
        to_call = list(self._plan(requests, [], done, None))
        prompt_total, cost, unpriced = 0, 0.0, set()
        for call in to_call:
            r = json.loads(call.body)
            prompt = -(-sum(len(_message_text(m)) for m in r["messages"]) // CHARS_PER_TOKEN)
            out = int(r.get("max_tokens") or r.get("max_completion_tokens") or max_output_tokens)
            prompt_total += prompt
            one = call_cost(call.model, prompt, out, self.prices)
            if one is None:
                unpriced.add(call.model)
            else:
                cost += one
        return DryRun(
            n_requests=len(done) + len(to_call),
            n_cached=len(done),
            n_calls=len(to_call),
            prompt_tokens=prompt_total,
            max_output_tokens=max_output_tokens,
            cost=None if unpriced else cost,
            unpriced=tuple(sorted(unpriced)),
        )


def _failures() -> tuple[type[Exception], ...]:
    """What a failed attempt raises (each handled by :meth:`LLMClient._after_failure`)."""
    import openai

    return (openai.APIError, json.JSONDecodeError, _Refused, _OutOfTime, _NoAnswer, _Unreadable)


def _no_answer(data: Mapping[str, Any], record: Mapping[str, Any], *, tools: bool) -> str | None:
    """Why an HTTP 200 body holds no answer, or ``None``: no ``choices``, an empty list of them, or a first
    choice whose message has no content (nor a refusal, nor tool calls where the request offered tools)."""
    choices = data.get("choices")
    if choices is None:
        return "no choices"
    if not isinstance(choices, list):
        return f"choices is {type(choices).__name__}, not a list"
    if not choices:
        return "an empty list of choices"
    if not isinstance(_get(choices[0], "message"), Mapping):
        return "the first choice has no message"
    if record.get("refusal") is not None:
        return None  # a refusal is an answer (reported as one, never cached)
    if record.get("tool_calls") and tools:
        return None
    if not record.get("content"):
        content = "null" if record.get("content") is None else "empty"
        extra = "" if not record.get("tool_calls") else ", only tool calls where no tools were offered"
        return f"the message's content is {content}" + (
            extra or (" and it has no tool calls" if tools else "")
        )
    return None


def _post_args(call: _Call, timeout: float) -> dict[str, Any]:
    """``post`` arguments sending the call's body as it is (the client's default headers say it is JSON): the
    request is already wire-format JSON, so the typed ``chat.completions.create`` transform (most of the
    client's CPU time per call) is skipped, and ``cast_to=object`` returns the JSON without building a typed
    ChatCompletion."""
    return {"content": call.body, "options": {"timeout": timeout}}


def _message_text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):  # content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return str(content or "")


def _get(data: Any, key: str) -> Any:
    return data.get(key) if isinstance(data, Mapping) else None


def _record(data: Any, scrub: Callable[[str], str] = redact) -> dict[str, Any]:
    """What a result keeps of a chat-completion response body (and what the cache stores); ``scrub`` takes
    credentials out of the server's text (a server that echoes the key puts it in no result and no cache)."""
    if not isinstance(data, Mapping):
        raise LLMError(
            f"the endpoint answered with something other than a JSON object: {scrub(str(data)[:200])!r}"
        )
    choices = data.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = _get(choice, "message")
    usage = data.get("usage")
    content, refusal = _get(message, "content"), _get(message, "refusal")
    return {
        "content": scrub(content) if isinstance(content, str) else content,
        "refusal": scrub(refusal) if isinstance(refusal, str) else refusal,
        "tool_calls": _tool_calls(_get(message, "tool_calls"), scrub),
        "finish_reason": _get(choice, "finish_reason"),
        "response_model": data.get("model"),
        "response_id": data.get("id"),
        "prompt_tokens": _get(usage, "prompt_tokens"),
        "completion_tokens": _get(usage, "completion_tokens"),
    }


def _tool_calls(calls: Any, scrub: Callable[[str], str]) -> list[dict[str, Any]] | None:
    """The tool calls of a response's message in the Chat Completions shape, their names and arguments
    scrubbed like every server text; an entry that is not an object is kept as a call with no name whose
    arguments are its text (the caller reports it as malformed). ``None`` when the message has none."""
    if not isinstance(calls, list) or not calls:
        return None
    out: list[dict[str, Any]] = []
    for call in calls:
        function = _get(call, "function")
        name, arguments = _get(function, "name"), _get(function, "arguments")
        if not isinstance(call, Mapping):
            name, arguments = None, json.dumps(call)
        elif arguments is not None and not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)  # some servers send an object
        call_id = _get(call, "id")
        out.append(
            {
                "id": call_id if isinstance(call_id, str) else None,
                "type": _get(call, "type") or "function",
                "function": {
                    "name": scrub(name) if isinstance(name, str) else None,
                    "arguments": scrub(arguments) if isinstance(arguments, str) else None,
                },
            }
        )
    return out


def _progress(total: int, desc: str) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="request")


def results_frame(results: Sequence[CallResult]) -> pd.DataFrame:
    """One row per call result (key, model, tokens, cost, cached, attempts, error, ...)."""
    import pandas as pd

    return pd.DataFrame([asdict(r) for r in results], columns=list(CallResult.__dataclass_fields__))


def usage_summary(results: Sequence[CallResult]) -> dict[str, Any]:
    """Totals: results, calls made (not cached), failures, tokens and cost of the calls made (``None``
    when a call made has no price)."""
    made = [r for r in results if not r.cached and r.error is None]
    costs = [r.cost for r in made]
    return {
        "results": len(results),
        "cached": sum(r.cached for r in results),
        "calls": len(made),
        "failed": sum(r.error is not None for r in results),
        "prompt_tokens": sum(r.prompt_tokens or 0 for r in made),
        "completion_tokens": sum(r.completion_tokens or 0 for r in made),
        "cost": None if any(c is None for c in costs) else sum(c for c in costs if c is not None),
    }


# ---------------------------------------------------------------------------------------------------------
# Structured answers: ask, validate, ask again


JSON_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)
"""A JSON answer wrapped in a Markdown code fence, as models often send it."""


def parse_json_object(
    text: str | None, *, required: Sequence[str] = ()
) -> tuple[dict[str, Any] | None, str | None]:
    """``(object, None)`` when a model's answer is a JSON object (fenced or not) holding the ``required`` keys,
    else ``(None, what is wrong)``."""
    if not text or not text.strip():
        return None, "the answer is empty"
    m = JSON_FENCE.match(text)
    try:
        data = json.loads(m.group(1) if m else text)
    except json.JSONDecodeError as exc:
        return None, f"the answer is not valid JSON ({exc.msg} at character {exc.pos})"
    if not isinstance(data, dict) or any(k not in data for k in required):
        keys = " and ".join(f'"{k}"' for k in required)
        return None, "the answer must be a JSON object" + (f" with a {keys} key" if required else "")
    return data, None


def corrective_message(error: str) -> str:
    """The follow-up user message after an invalid answer."""
    return f"Your answer is invalid: {error}. Reply again with only the JSON object, nothing else."


@dataclass
class Asked(Generic[T]):
    """The outcome of one conversation after validation rounds."""

    result: CallResult
    """The last call made for it."""
    parsed: T | None = None
    """The validated answer (``None`` for a failed call, a refusal, or an answer still invalid)."""
    error: str | None = None
    """Why the last answer was invalid, if it was."""
    calls: list[CallResult] = field(default_factory=list)
    """Every call made for this conversation, corrective retries included, in order (the last is ``result``)."""

    @property
    def valid(self) -> bool:
        return self.result.error is None and self.result.refusal is None and self.error is None


def ask_until_valid(
    client: LLMClient,
    conversations: Sequence[list[dict[str, Any]]],
    make_request: Callable[[int, list[dict[str, Any]]], dict[str, Any]],
    parse: Callable[[str | None], tuple[T | None, str | None]],
    *,
    max_fixes: int = 2,
    max_workers: int = 8,
    progress: bool = False,
    desc: str = "asking",
) -> tuple[list[Asked[T]], list[CallResult]]:
    """Ask every conversation, validate each answer with ``parse`` (``(value, None)`` when valid, ``(None,
    reason)`` when not), and ask the invalid ones again with the reason, at most ``max_fixes`` times.

    Each round is one concurrent :meth:`LLMClient.batch`. ``make_request(i, messages)`` builds conversation
    ``i``'s request. Returns the outcome per conversation (input order) and every call made.
    """
    messages = [list(c) for c in conversations]
    outcomes: list[Asked[T] | None] = [None] * len(messages)
    calls: list[CallResult] = []
    made: list[list[CallResult]] = [[] for _ in messages]  # each conversation's calls
    pending = list(range(len(messages)))
    for round_ in range(max_fixes + 1):
        if not pending:
            break
        requests = [make_request(i, messages[i]) for i in pending]
        label = desc if round_ == 0 else f"corrective retry {round_}"
        results = client.batch(requests, max_workers=max_workers, progress=progress, desc=label)
        calls += results
        still = []
        for i, result in zip(pending, results, strict=True):
            made[i].append(result)
            if result.error is not None or result.refusal is not None:
                outcomes[i] = Asked(result, calls=made[i])
                continue
            value, error = parse(result.content)
            if error is None:
                outcomes[i] = Asked(result, value, calls=made[i])
            elif round_ < max_fixes:
                messages[i] += [
                    {"role": "assistant", "content": result.content or ""},
                    {"role": "user", "content": corrective_message(error)},
                ]
                still.append(i)
            else:
                outcomes[i] = Asked(result, None, error, calls=made[i])
        pending = still
    return [o for o in outcomes if o is not None], calls
