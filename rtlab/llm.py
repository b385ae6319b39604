"""Calling an OpenAI-compatible chat endpoint: disk cache, retries, bounded concurrency, usage and cost.

:class:`LLMClient` wraps the real ``openai`` client (its own retries off). A request is a plain dict of
``chat.completions.create`` arguments (``model``, ``messages``, ``temperature``, ``seed``,
``response_format``, ...). Its cache key is the sha256 of the canonical JSON of the whole request (sorted
keys, ``None`` values dropped); one JSON file per key, written atomically, so workers can share a cache
directory and a reader never sees half a file. Only answered calls with content are cached: errors and
refusals are not. Because each call is cached as it finishes, an interrupted batch loses nothing and a rerun
makes zero requests.

Retries: 429, 408, 409, 5xx, timeouts and connection errors, up to ``max_attempts`` in all, waiting
``Retry-After`` when the server sends it, else exponential backoff with jitter. Other HTTP errors (400, 401,
404, ...) are configuration problems and raise :class:`LLMError` at once.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar
from urllib.parse import urlparse

from rtlab._io import atomic_open
from rtlab.errors import RtlabError

if TYPE_CHECKING:
    import openai
    import pandas as pd

T = TypeVar("T")

CACHE_SCHEMA = "rtlab.llm-cache/1"
DEFAULT_PRICES: Mapping[str, tuple[float, float]] = {"rtlab-simulated": (0.0, 0.0)}
"""Model -> (input $ per 1M tokens, output $ per 1M tokens). Only the simulated model is known: prices
change, so pass the endpoint's current prices (:func:`load_prices`); an unknown model costs ``None``."""
RETRY_STATUS = frozenset({408, 409, 429})
"""HTTP statuses retried besides every 5xx."""
CHARS_PER_TOKEN = 4
"""The dry run's estimate of prompt tokens: characters / 4."""


class LLMError(RtlabError):
    """A call that cannot succeed by retrying (bad request, authentication, unknown model, no API key)."""


@dataclass
class CallResult:
    """One chat-completion request and its outcome."""

    key: str
    """sha256 of the normalised request: the cache key."""
    model: str
    """The model requested."""
    content: str | None = None
    refusal: str | None = None
    finish_reason: str | None = None
    response_model: str | None = None
    """The model the endpoint says answered."""
    response_id: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None
    """US dollars from the price table; ``None`` for an unknown model or a failed call."""
    cached: bool = False
    attempts: int = 0
    """HTTP requests made for this result (0: from the cache)."""
    error: str | None = None
    """Why the call failed after every attempt (then nothing else is set)."""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """Answered with content (neither an error nor a refusal)."""
        return self.error is None and self.refusal is None and self.content is not None


@dataclass(frozen=True)
class DryRun:
    """What a batch would do: calls not in the cache, and their estimated cost."""

    n_requests: int
    n_cached: int
    n_calls: int
    prompt_tokens: int
    """Estimated prompt tokens of the calls to make (characters / :data:`CHARS_PER_TOKEN`)."""
    max_output_tokens: int
    """Output tokens assumed per call (the request's ``max_tokens`` where it sets one)."""
    cost: float | None
    """Upper estimate in US dollars; ``None`` when some model to call has no price."""
    unpriced: tuple[str, ...] = ()

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


def _without_none(value: Any) -> Any:
    """JSON-native data with every ``None`` value of a mapping dropped, at any depth."""
    if isinstance(value, Mapping):
        return {str(k): _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [_without_none(v) for v in value]
    return value


def _canonical(request: Mapping[str, Any]) -> str:
    """The normalised request's canonical JSON (``sort_keys`` orders every depth, so nothing is rebuilt)."""
    if "model" not in request or "messages" not in request:
        raise LLMError("a request needs 'model' and 'messages'")
    return json.dumps(_without_none(request), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def normalize_request(request: Mapping[str, Any]) -> dict[str, Any]:
    """The request as canonical JSON-native data: ``None`` values dropped (also in messages), keys sorted."""
    return json.loads(_canonical(request))


def request_key(request: Mapping[str, Any]) -> str:
    """sha256 hex of the canonical JSON of the normalised request."""
    return hashlib.sha256(_canonical(request).encode("utf-8")).hexdigest()


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


class DiskCache:
    """One JSON file per key (``DIR/ab/abcdef....json``), written atomically (temp file + rename)."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)

    def path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached record, or ``None`` (absent, or unreadable: then the call is simply made again)."""
        # plain string paths: this runs for every cache hit, where pathlib's parsing would dominate
        try:
            with open(os.path.join(self.directory, key[:2], key + ".json"), "rb") as fh:
                record = json.loads(fh.read())
        except (OSError, ValueError):
            return None
        return record if isinstance(record, dict) and record.get("schema") == CACHE_SCHEMA else None

    def put(self, key: str, record: dict[str, Any]) -> None:
        with atomic_open(self.path(key)) as fh:
            json.dump({"schema": CACHE_SCHEMA, **record}, fh, ensure_ascii=False, sort_keys=True)


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

    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in RETRY_STATUS or exc.status_code >= 500
    return False


def _describe(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    return f"{type(exc).__name__}" + (f" (HTTP {status})" if status else "") + f": {exc}"


# ---------------------------------------------------------------------------------------------------------
# The client


@dataclass
class LLMClient:
    """An OpenAI-compatible chat endpoint with cache, retries, concurrency and cost accounting.

    ``base_url`` / ``api_key`` default to ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``; a loopback endpoint
    needs no key. ``cache_dir=None`` uses :func:`default_cache_dir`; ``cache=False`` turns caching off.
    """

    base_url: str | None = None
    api_key: str | None = None
    timeout: float = 120.0
    max_attempts: int = 5
    backoff: float = 1.0
    """First backoff in seconds; doubles each attempt, with jitter (x 0.5-1.0)."""
    backoff_max: float = 60.0
    max_retry_after: float = 300.0
    """Longest ``Retry-After`` honoured; a longer one is cut to this."""
    cache_dir: str | Path | None = None
    cache: bool = True
    prices: Mapping[str, tuple[float, float]] = field(default_factory=lambda: dict(DEFAULT_PRICES))
    seed: int | None = None
    """Seed of the jitter's random generator (for reproducible waits in tests)."""
    sleep: Callable[[float], None] = time.sleep

    def __post_init__(self) -> None:
        self.base_url = self.base_url or os.environ.get("OPENAI_BASE_URL") or None
        key = self.api_key or os.environ.get("OPENAI_API_KEY")
        if (
            not key
            and self.base_url
            and urlparse(self.base_url).hostname in ("127.0.0.1", "localhost", "::1")
        ):
            key = "local"  # a local server takes any key
        self.api_key = key
        self._store = DiskCache(self.cache_dir or default_cache_dir()) if self.cache else None
        self._rng = random.Random(self.seed)
        self._rng_lock = threading.Lock()
        self._client: openai.OpenAI | None = None
        self._client_lock = threading.Lock()

    # -- the openai client ------------------------------------------------------------------------------

    def _openai(self) -> openai.OpenAI:
        with self._client_lock:
            if self._client is None:
                import openai

                if not self.api_key:
                    raise LLMError("no API key: pass api_key / --api-key or set OPENAI_API_KEY")
                self._client = openai.OpenAI(
                    base_url=self.base_url, api_key=self.api_key, max_retries=0, timeout=self.timeout
                )
            return self._client

    def _wait(self, attempt: int, exc: Exception) -> float:
        told = _retry_after(exc)
        if told is not None:
            return min(told, self.max_retry_after)
        with self._rng_lock:
            jitter = 0.5 + 0.5 * self._rng.random()
        return min(self.backoff_max, self.backoff * 2 ** (attempt - 1)) * jitter

    # -- one call ---------------------------------------------------------------------------------------

    def cached(self, request: Mapping[str, Any], *, key: str | None = None) -> CallResult | None:
        """The cached result of this request, or ``None`` (``key``: its :func:`request_key`, if known)."""
        if self._store is None:
            return None
        key = key or request_key(request)
        record = self._store.get(key)
        if record is None:
            return None
        return self._result(key, str(request["model"]), record, cached=True, attempts=0, seconds=0.0)

    def _result(
        self, key: str, model: str, record: Mapping[str, Any], *, cached: bool, attempts: int, seconds: float
    ) -> CallResult:
        prompt, completion = record.get("prompt_tokens"), record.get("completion_tokens")
        return CallResult(
            key=key,
            model=model,
            content=record.get("content"),
            refusal=record.get("refusal"),
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

        Returns a result with ``error`` set when every attempt failed; raises :class:`LLMError` when the
        endpoint rejects the request itself (retrying cannot help).
        """
        import openai
        from openai.types.chat import ChatCompletion

        hit = self.cached(request)
        if hit is not None:
            return hit
        key, model = request_key(request), str(request["model"])
        client = self._openai()
        start = time.monotonic()
        for attempt in range(1, self.max_attempts + 1):
            try:
                # The client's own POST: the request is already wire-format JSON, so the typed
                # ``chat.completions.create`` transform (most of the client's CPU time per call) is skipped.
                response = client.post(
                    "/chat/completions", body=_without_none(request), cast_to=ChatCompletion
                )
            except openai.APIError as exc:
                if not _retryable(exc):
                    raise LLMError(f"{model}: {_describe(exc)}") from exc
                if attempt == self.max_attempts:
                    return CallResult(
                        key=key,
                        model=model,
                        attempts=attempt,
                        error=_describe(exc),
                        seconds=time.monotonic() - start,
                    )
                self.sleep(self._wait(attempt, exc))
                continue
            record = _record(response)
            result = self._result(
                key, model, record, cached=False, attempts=attempt, seconds=time.monotonic() - start
            )
            if self._store is not None and result.ok:
                self._store.put(key, {"request": normalize_request(request), **record})
            return result
        raise AssertionError("unreachable")  # the loop returns on its last attempt

    # -- batches ----------------------------------------------------------------------------------------

    def batch(
        self,
        requests: Sequence[Mapping[str, Any]],
        *,
        max_workers: int = 8,
        progress: bool = False,
        desc: str = "LLM calls",
    ) -> list[CallResult]:
        """Results in input order; at most ``max_workers`` calls at once; identical requests are made once.

        Each finished call is cached at once, so after an interruption (or an :class:`LLMError`, raised
        once running calls end) a rerun makes only the calls not yet done.
        """
        keys = [request_key(r) for r in requests]
        unique: dict[str, Mapping[str, Any]] = {}
        for k, r in zip(keys, requests, strict=True):
            unique.setdefault(k, r)
        done: dict[str, CallResult] = {}
        todo = []
        for k, r in unique.items():
            hit = self.cached(r, key=k)
            if hit is not None:
                done[k] = hit
            else:
                todo.append((k, r))
        bar = _progress(len(unique), len(done), desc) if progress else None
        try:
            if todo:
                stop = threading.Event()

                def run(request: Mapping[str, Any]) -> CallResult | None:
                    if stop.is_set():  # a call failed for good: start no more
                        return None
                    try:
                        return self.complete(request)
                    except BaseException:
                        stop.set()
                        raise

                with ThreadPoolExecutor(max_workers=max(1, max_workers)) as pool:
                    futures = {pool.submit(run, r): k for k, r in todo}
                    if bar is not None:
                        for f in futures:
                            f.add_done_callback(lambda _f: bar.update(1))
                    finished, pending = wait(futures, return_when=FIRST_EXCEPTION)
                    failed = [f for f in finished if f.exception() is not None]
                    if failed:
                        for f in pending:
                            f.cancel()
                        raise failed[0].exception()  # type: ignore[misc]
                    done.update({futures[f]: f.result() for f in finished})  # type: ignore[misc]
        finally:
            if bar is not None:
                bar.close()
        return [done[k] for k in keys]

    def dry_run(self, requests: Sequence[Mapping[str, Any]], *, max_output_tokens: int = 512) -> DryRun:
        """How many of ``requests`` would be sent (not cached, duplicates once) and their estimated cost."""
        unique = {request_key(r): r for r in requests}
        to_call = [r for r in unique.values() if self.cached(r) is None]
        prompt_total, cost, unpriced = 0, 0.0, set()
        for r in to_call:
            prompt = -(-sum(len(_message_text(m)) for m in r["messages"]) // CHARS_PER_TOKEN)
            out = int(r.get("max_tokens") or r.get("max_completion_tokens") or max_output_tokens)
            prompt_total += prompt
            one = call_cost(str(r["model"]), prompt, out, self.prices)
            if one is None:
                unpriced.add(str(r["model"]))
            else:
                cost += one
        return DryRun(
            n_requests=len(unique),
            n_cached=len(unique) - len(to_call),
            n_calls=len(to_call),
            prompt_tokens=prompt_total,
            max_output_tokens=max_output_tokens,
            cost=None if unpriced else cost,
            unpriced=tuple(sorted(unpriced)),
        )


def _message_text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):  # content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return str(content or "")


def _record(response: Any) -> dict[str, Any]:
    """What a result keeps of a ChatCompletion (and what the cache stores)."""
    choice = response.choices[0] if response.choices else None
    message = choice.message if choice is not None else None
    usage = response.usage
    return {
        "content": message.content if message is not None else None,
        "refusal": getattr(message, "refusal", None) if message is not None else None,
        "finish_reason": choice.finish_reason if choice is not None else None,
        "response_model": response.model,
        "response_id": response.id,
        "prompt_tokens": usage.prompt_tokens if usage is not None else None,
        "completion_tokens": usage.completion_tokens if usage is not None else None,
    }


def _progress(total: int, initial: int, desc: str) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=initial, desc=desc, unit="call")


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


__all__ = [
    "CHARS_PER_TOKEN",
    "DEFAULT_PRICES",
    "CallResult",
    "DiskCache",
    "DryRun",
    "LLMClient",
    "LLMError",
    "call_cost",
    "default_cache_dir",
    "load_prices",
    "normalize_request",
    "request_key",
    "results_frame",
    "usage_summary",
]


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
            if result.error is not None or result.refusal is not None:
                outcomes[i] = Asked(result)
                continue
            value, error = parse(result.content)
            if error is None:
                outcomes[i] = Asked(result, value)
            elif round_ < max_fixes:
                messages[i] += [
                    {"role": "assistant", "content": result.content or ""},
                    {"role": "user", "content": corrective_message(error)},
                ]
                still.append(i)
            else:
                outcomes[i] = Asked(result, None, error)
        pending = still
    return [o for o in outcomes if o is not None], calls
