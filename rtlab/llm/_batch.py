"""Chat completions at scale through the OpenAI Batch API, collected into :class:`LLMClient`'s disk cache.

:func:`run_batch` takes the requests :meth:`LLMClient.batch` would make and, for those not cached yet, writes
one JSONL line each (``custom_id`` = the request's cache key, :func:`request_key`; ``body`` = the normalised
request, byte for byte what the synchronous path sends), uploads the file to ``/v1/files`` (purpose
``batch``), creates a batch at ``/v1/batches`` (endpoint ``/v1/chat/completions``, completion window
``24h``), polls it with backoff until it ends (``completed``, ``failed``, ``expired``, ``cancelled``), then
downloads its output and error files. Every answer with content is put in the client's
:class:`DiskCache` under its key, as :meth:`LLMClient.complete` would have put it, so the normal path
afterwards is a cache hit; a line that failed is reported (:class:`BatchFailure`) and never cached.

Resuming: the input file's id and then the batch's id are written atomically (owner-only) to a state file,
``STATE_DIR/batch-<digest of the endpoint and the keys>.json``, before the next step, so a process interrupted at any point
(while polling for hours, most likely) picks the same batch up when run again with the same requests: it
polls it instead of uploading and creating anew. The state file goes once the batch's results are
collected. It holds ids, keys and the endpoint's URL without credentials: never the API key, and every text a
server sends back is redacted (:func:`redact`).

Each request to the Files and Batch API gets the client's retry policy (its ``max_attempts``, backoff and
``Retry-After``); a batch larger than :data:`MAX_REQUESTS` requests or :data:`MAX_BYTES` bytes is split into
several batches, polled together.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar

from rtlab.io import atomic_open, load_json
from rtlab.llm._client import (
    LLMClient,
    LLMError,
    _describe,
    _prepare,
    _record,
    _retryable,
)

if TYPE_CHECKING:
    import openai

T = TypeVar("T")

STATE_SCHEMA = "rtlab.llm-batch/1"
"""The ``schema`` of a batch state file."""
ENDPOINT: Final[Literal["/v1/chat/completions"]] = "/v1/chat/completions"
"""The endpoint every batch line goes to."""
COMPLETION_WINDOW: Final[Literal["24h"]] = "24h"
"""The completion window asked for (the only one OpenAI offers)."""
MAX_REQUESTS = 50_000
"""Most requests in one batch (OpenAI's limit)."""
MAX_BYTES = 190_000_000
"""Most bytes of one batch's input file (OpenAI's limit is 200 MB)."""
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})
"""Statuses after which a batch changes no more."""
DEFAULT_POLL = 10.0
"""Seconds before the first poll; each poll that sees no progress waits 1.5 times longer, up to ``poll_max``."""
DEFAULT_POLL_MAX = 300.0
"""Longest wait between two polls, by default."""


@dataclass(frozen=True)
class BatchFailure:
    """One request the Batch API did not answer with content (not cached; the normal path would call it)."""

    key: str
    """The request's cache key (its ``custom_id``)."""
    batch_id: str
    """The batch it was in."""
    error: str
    """What went wrong, as the server said it (redacted), or why no answer came back."""


@dataclass(frozen=True)
class BatchOutcome:
    """One batch as it ended."""

    batch_id: str
    """The server's id of the batch."""
    status: str
    """Its terminal status: ``completed``, ``failed``, ``expired`` or ``cancelled``."""
    total: int
    """Requests in it (``request_counts.total``; the lines submitted when the server reports none)."""
    completed: int
    """Requests it answered (``request_counts.completed``)."""
    failed: int
    """Requests that failed (``request_counts.failed``)."""
    resumed: bool
    """Picked up from a state file written by an earlier, interrupted run."""
    errors: tuple[str, ...] = ()
    """The batch's own errors (a failed validation), redacted."""


@dataclass
class BatchRun:
    """What :func:`run_batch` did."""

    n_requests: int = 0
    """Distinct requests given (identical ones counted once)."""
    n_cached: int = 0
    """Of those, the ones already in the cache: not submitted."""
    n_submitted: int = 0
    """Requests this run uploaded in new batches."""
    n_resumed: int = 0
    """Requests in batches an earlier run had submitted, resumed from their state files."""
    n_collected: int = 0
    """Answers put in the cache."""
    batches: list[BatchOutcome] = field(default_factory=list)
    """Every batch polled to its end, in the order they ended."""
    failures: list[BatchFailure] = field(default_factory=list)
    """Every request not answered with content."""
    polls: int = 0
    """Batch retrieves made."""

    def describe(self) -> str:
        """One line for the command line."""
        statuses = ", ".join(f"{b.batch_id} {b.status}" for b in self.batches) or "no batch needed"
        return (
            f"batch API: {self.n_requests} requests, {self.n_cached} already cached, {self.n_submitted} submitted, "
            f"{self.n_resumed} resumed; {self.n_collected} answers cached, {len(self.failures)} failed ({statuses})"
        )


def default_state_dir(client: LLMClient) -> Path:
    """``<the client's cache dir>/batches``: where batch state files go unless told otherwise."""
    store = client._store
    if store is None:
        raise LLMError("the Batch API collects into the disk cache: the client's cache is off")
    return store.directory / "batches"


def run_batch(
    client: LLMClient,
    requests: Iterable[Mapping[str, Any]],
    *,
    state_dir: str | Path | None = None,
    poll: float = DEFAULT_POLL,
    poll_max: float = DEFAULT_POLL_MAX,
    max_requests: int = MAX_REQUESTS,
    max_bytes: int = MAX_BYTES,
    metadata: Mapping[str, str] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    progress: bool = False,
) -> BatchRun:
    """Answer ``requests`` through the Batch API into ``client``'s cache; resume batches an interrupted run left.

    ``state_dir``: where the state files are (default :func:`default_state_dir`). ``poll`` / ``poll_max``: the
    first and longest wait between polls. ``sleep``: how to wait (tests pass one that interrupts). Requests
    already cached are not submitted; a batch whose state file covers some of them is polled, not submitted
    again. Raises :class:`LLMError` when the endpoint rejects an upload or a batch outright.
    """
    store = client._store
    if store is None:
        raise LLMError("the Batch API collects into the disk cache: the client's cache is off")
    folder = Path(state_dir) if state_dir is not None else default_state_dir(client)
    run = BatchRun()
    bodies: dict[str, bytes] = {}
    memo: dict[str, str] = {}
    for request in requests:
        call = _prepare(request, memo)
        if call.key in bodies:
            continue
        bodies[call.key] = call.body
    run.n_requests = len(bodies)
    pending = {k for k in bodies if store.answer(k) is None}
    run.n_cached = run.n_requests - len(pending)
    if not pending:
        return run
    api = _Api(client)
    active: list[_State] = []
    for state in _saved_states(folder, client.base_url):
        if pending & set(state.keys):
            state.resumed = True
            active.append(state)
            run.n_resumed += len(pending & set(state.keys))
            pending -= set(state.keys)
    for chunk in _chunks(sorted(pending), bodies, max_requests, max_bytes):
        state = _State(folder / f"batch-{_digest(chunk, client.base_url)}.json", chunk, client.base_url)
        active.append(state)
        run.n_submitted += len(chunk)
    bar = _progress(sum(len(s.keys) for s in active)) if progress else None
    try:
        for state in active:  # an upload, then a batch, each saved before the next step
            if state.input_file_id is None:
                state.input_file_id = api.upload(_input_file(state.keys, bodies))
                state.save()
            if state.batch_id is None:
                state.batch_id = api.create(state.input_file_id, metadata)
                state.save()
        wait = poll
        while active:
            sleep(wait)
            moved = False
            for state in list(active):
                batch = api.retrieve(_batch_id(state))
                run.polls += 1
                moved |= state.observe(batch)
                if batch.status in TERMINAL:
                    _collect(api, client, state, batch, bodies, run)
                    active.remove(state)
                    state.remove()
                    moved = True
            if bar is not None:
                bar.n = run.n_collected + len(run.failures) + sum(s.done for s in active)
                bar.refresh()
            wait = poll if moved else min(poll_max, wait * 1.5)
    finally:
        if bar is not None:
            bar.close()
    return run


# ---------------------------------------------------------------------------------------------------------
# State files


@dataclass
class _State:
    path: Path
    keys: list[str]
    base_url: str | None
    input_file_id: str | None = None
    batch_id: str | None = None
    resumed: bool = False
    done: int = 0
    """Requests the server reported finished at the last poll."""
    status: str | None = None

    def save(self) -> None:
        if not self.path.parent.is_dir():  # owner-only, like the cache: state files name the requests
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        data = {
            "schema": STATE_SCHEMA,
            "endpoint": _public_url(self.base_url),
            "input_file_id": self.input_file_id,
            "batch_id": self.batch_id,
            "keys": self.keys,
        }
        with atomic_open(self.path, private=True) as fh:
            json.dump(data, fh)

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)

    def observe(self, batch: Any) -> bool:
        """Note a poll's answer; whether anything moved since the last one."""
        counts = batch.request_counts
        done = (counts.completed + counts.failed) if counts is not None else 0
        moved = done != self.done or batch.status != self.status
        self.done, self.status = done, batch.status
        return moved


def _saved_states(folder: Path, base_url: str | None) -> list[_State]:
    """The state files in ``folder`` left for this endpoint, oldest name first."""
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.glob("batch-*.json")):
        data = load_json(path)
        if (
            not isinstance(data, dict)
            or data.get("schema") != STATE_SCHEMA
            or not isinstance(data.get("keys"), list)
        ):
            raise LLMError(f"{path}: not a batch state file ({STATE_SCHEMA}); remove it to submit anew")
        if data.get("endpoint") != _public_url(base_url):
            continue  # another endpoint's batch
        out.append(
            _State(
                path,
                [str(k) for k in data["keys"]],
                base_url,
                data.get("input_file_id"),
                data.get("batch_id"),
            )
        )
    return out


def _public_url(url: str | None) -> str | None:
    """The endpoint's URL as a state file keeps it: without a ``user:password@`` part
    (:func:`rtlab.llm._choose.without_credentials`) nor a query, no trailing slash."""
    if url is None:
        return None
    from urllib.parse import urlsplit, urlunsplit

    from rtlab.llm._choose import without_credentials

    parts = urlsplit(without_credentials(url))
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))


def _digest(keys: Sequence[str], base_url: str | None) -> str:
    """The state file's name: the endpoint and the keys (another endpoint's batch of the same requests is
    another batch)."""
    text = f"{_public_url(base_url)}\n" + "\n".join(keys)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


def _batch_id(state: _State) -> str:
    assert state.batch_id is not None  # set (and saved) before polling starts
    return state.batch_id


def _chunks(
    keys: list[str], bodies: Mapping[str, bytes], max_requests: int, max_bytes: int
) -> list[list[str]]:
    """``keys`` cut into batches of at most ``max_requests`` lines and ``max_bytes`` bytes (a line longer than
    ``max_bytes`` alone goes alone)."""
    out: list[list[str]] = []
    chunk: list[str] = []
    size = 0
    for key in keys:
        line = len(bodies[key]) + 120  # the envelope around the body
        if chunk and (len(chunk) >= max_requests or size + line > max_bytes):
            out.append(chunk)
            chunk, size = [], 0
        chunk.append(key)
        size += line
    if chunk:
        out.append(chunk)
    return out


def _input_file(keys: Sequence[str], bodies: Mapping[str, bytes]) -> bytes:
    """The JSONL input file: one line per request, its body the canonical request as the sync path sends it."""
    head = '{"custom_id":"%s","method":"POST","url":"' + ENDPOINT + '","body":'
    return b"".join((head % k).encode("ascii") + bodies[k] + b"}\n" for k in keys)


# ---------------------------------------------------------------------------------------------------------
# The Files and Batch API, with the client's retry policy


class _Api:
    def __init__(self, client: LLMClient) -> None:
        self.client = client
        self.oc: openai.OpenAI = client._openai()

    def _call(self, what: str, fn: Callable[[], T]) -> T:
        import openai

        start = time.monotonic()
        for attempt in range(1, self.client.max_attempts + 1):
            try:
                return fn()
            except (openai.APIError, json.JSONDecodeError) as exc:
                text = self.client._redact(_describe(exc, self.client.timeout))
                if not _retryable(exc) or attempt >= self.client.max_attempts:
                    raise LLMError(f"batch API, {what}: {text} (after {attempt} attempts)") from None
                wait = self.client._wait(attempt, exc)
                if (
                    self.client.deadline is not None
                    and time.monotonic() - start + wait >= self.client.deadline
                ):
                    raise LLMError(f"batch API, {what}: {text} (deadline)") from None
                self.client.sleep(wait)
        raise AssertionError("unreachable")

    def upload(self, data: bytes) -> str:
        f = self._call(
            "uploading the input file",
            lambda: self.oc.files.create(
                file=("rtlab-batch.jsonl", data, "application/jsonl"), purpose="batch"
            ),
        )
        return f.id

    def create(self, input_file_id: str, metadata: Mapping[str, str] | None) -> str:
        b = self._call(
            "creating the batch",
            lambda: self.oc.batches.create(
                input_file_id=input_file_id,
                endpoint=ENDPOINT,
                completion_window=COMPLETION_WINDOW,
                metadata=dict(metadata or {"rtlab": "annotation"}),
            ),
        )
        return b.id

    def retrieve(self, batch_id: str) -> Any:
        return self._call(f"polling {batch_id}", lambda: self.oc.batches.retrieve(batch_id))

    def content(self, file_id: str) -> bytes:
        return self._call(f"downloading {file_id}", lambda: self.oc.files.content(file_id).content)


# ---------------------------------------------------------------------------------------------------------
# Collecting


def _collect(
    api: _Api, client: LLMClient, state: _State, batch: Any, bodies: Mapping[str, bytes], run: BatchRun
) -> None:
    """Put a finished batch's answers in the cache; report every request of it not answered with content."""
    store = client._store
    assert store is not None
    batch_id = _batch_id(state)
    mine = set(state.keys)
    seen: set[str] = set()

    def fail(key: str, error: str) -> None:
        seen.add(key)
        run.failures.append(BatchFailure(key, batch_id, client._redact(error)))

    for file_id in (batch.output_file_id, batch.error_file_id):
        if not file_id:
            continue
        for n, text in enumerate(api.content(file_id).decode("utf-8", "replace").splitlines(), 1):
            if not text.strip():
                continue
            try:
                line = json.loads(text)
                key = str(line["custom_id"])
            except (ValueError, KeyError, TypeError):
                continue  # a line without a custom_id belongs to no request
            if key not in mine or key in seen:
                continue
            response, error = line.get("response"), line.get("error")
            status = response.get("status_code") if isinstance(response, dict) else None
            body = response.get("body") if isinstance(response, dict) else None
            if error or status != 200 or not isinstance(body, dict):
                fail(key, _line_error(error, status, body, file_id, n))
                continue
            try:
                record = _record(body, client._redact)
            except LLMError as exc:
                fail(key, str(exc))
                continue
            if record["refusal"] is not None or record["content"] is None:
                fail(
                    key, f"refused: {record['refusal']}" if record["refusal"] else "an answer without content"
                )
                continue
            request = json.loads(bodies[key]) if key in bodies else None
            store.put(key, {**record, "request": request} if request is not None else record)
            seen.add(key)
            run.n_collected += 1
    errors = tuple(
        client._redact(f"{e.code}: {e.message}" + (f" (line {e.line})" if e.line else ""))
        for e in (batch.errors.data if batch.errors is not None and batch.errors.data else [])
    )
    for key in state.keys:
        if key not in seen:
            why = f"the batch ended {batch.status} without an answer to it"
            fail(key, why + (f": {'; '.join(errors)}" if errors else ""))
    counts = batch.request_counts
    run.batches.append(
        BatchOutcome(
            batch_id,
            batch.status,
            counts.total if counts is not None and counts.total else len(state.keys),
            counts.completed if counts is not None else 0,
            counts.failed if counts is not None else 0,
            state.resumed,
            errors,
        )
    )


def _line_error(error: Any, status: Any, body: Any, file_id: str, n: int) -> str:
    if isinstance(error, dict):
        return f"{error.get('code')}: {error.get('message')}"
    message = (
        body.get("error", {}).get("message")
        if isinstance(body, dict) and isinstance(body.get("error"), dict)
        else None
    )
    return f"HTTP {status}" + (f": {message}" if message else "") + f" ({file_id}, line {n})"


def _progress(total: int) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="batch API", unit="request")
