"""The simulated server's Files and Batch API: ``/v1/files`` and ``/v1/batches``, for tests of batch annotation.

:class:`SimulatedBatches` holds the uploaded files and the batches of one :class:`~rtlab.llm.SimulatedServer`
(``srv.batches``). It speaks enough of the OpenAI API for the real ``openai`` client's ``files`` and
``batches`` resources: upload (multipart, purpose ``batch``), retrieve, ``/v1/files/{id}/content``; create,
retrieve, cancel and list batches. Each line of a batch is answered by the same simulated model as a
synchronous chat completion (the server's own completion function), so a label is the same either way.

A batch moves on when it is retrieved, not with the clock, so tests are deterministic: created
``validating``, then ``in_progress`` for :attr:`BatchPlan.polls` retrieves, then ``finalizing`` once, then
its :attr:`BatchPlan.outcome` (``completed``, ``failed``, ``expired``). :meth:`SimulatedBatches.plan` scripts
the next batches (a failure, an expiry, lines that fail, a long ``in_progress``); :attr:`uploads` and
:attr:`created` count what clients sent, so a test checks that a resumed run submitted nothing new.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

Outcome = Literal["completed", "failed", "expired"]
"""How a simulated batch ends when nothing cancels it."""
ENDPOINT = "/v1/chat/completions"
"""The one endpoint the simulated batches serve."""


@dataclass(frozen=True)
class BatchPlan:
    """How one simulated batch progresses (the default: one poll in progress, then completed)."""

    polls: int = 1
    """Retrieves that see it ``in_progress`` before it is ``finalizing``."""
    outcome: Outcome = "completed"
    """Its terminal status: ``failed`` (a batch-level error, no output), ``expired`` (only the lines before
    :attr:`expire_after` answered, the rest in the error file as ``batch_expired``) or ``completed``."""
    fail_lines: frozenset[int] = frozenset()
    """0-based lines of the input file whose request fails (HTTP 500 in the error file)."""
    expire_after: int = 0
    """With ``expired``: how many lines were answered before the window closed."""


@dataclass
class _File:
    id: str
    filename: str
    purpose: str
    data: bytes
    created_at: int

    def obj(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "file",
            "bytes": len(self.data),
            "created_at": self.created_at,
            "filename": self.filename,
            "purpose": self.purpose,
            "status": "processed",
        }


@dataclass
class _Batch:
    id: str
    input_file_id: str
    endpoint: str
    completion_window: str
    metadata: dict[str, Any] | None
    plan: BatchPlan
    created_at: int
    status: str = "validating"
    polls_seen: int = 0
    errors: list[dict[str, Any]] | None = None
    output_file_id: str | None = None
    error_file_id: str | None = None
    total: int = 0
    completed: int = 0
    failed: int = 0
    times: dict[str, int] = field(default_factory=dict)

    def obj(self) -> dict[str, Any]:
        stamp = {
            k: self.times.get(k)
            for k in (
                "in_progress_at",
                "finalizing_at",
                "completed_at",
                "failed_at",
                "expired_at",
                "cancelling_at",
                "cancelled_at",
            )
        }
        return {
            "id": self.id,
            "object": "batch",
            "endpoint": self.endpoint,
            "errors": None if self.errors is None else {"object": "list", "data": self.errors},
            "input_file_id": self.input_file_id,
            "completion_window": self.completion_window,
            "status": self.status,
            "output_file_id": self.output_file_id,
            "error_file_id": self.error_file_id,
            "created_at": self.created_at,
            "expires_at": self.created_at + 86400,
            **stamp,
            "request_counts": {"total": self.total, "completed": self.completed, "failed": self.failed},
            "metadata": self.metadata,
        }


class SimulatedBatches:
    """The files and batches of one simulated server; ``complete(body)`` answers one chat-completion body."""

    def __init__(self, complete: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        self._complete = complete
        self._lock = threading.Lock()
        self._files: dict[str, _File] = {}
        self._batches: dict[str, _Batch] = {}
        self._plans: deque[BatchPlan] = deque()
        self._errors: deque[int] = deque()
        self.uploads = 0
        """Files uploaded so far."""
        self.created = 0
        """Batches created so far."""
        self.retrieves = 0
        """Batch retrieves (polls) so far."""

    # -- what tests script and read ---------------------------------------------------------------------

    def plan(self, *plans: BatchPlan) -> None:
        """Queue how the next created batches progress, in order; then each gets the default plan."""
        with self._lock:
            self._plans.extend(plans)

    def fail_next(self, *statuses: int) -> None:
        """Answer the next Files / Batch API requests with these HTTP error statuses, in order (a 500 during a
        poll, a 429 on upload: what the client's retry policy must ride out)."""
        with self._lock:
            self._errors.extend(statuses)

    def release(self) -> None:
        """End the ``in_progress`` polls of every batch created so far: the next retrieve of each finalizes it
        (a test holds a batch with a huge :attr:`BatchPlan.polls`, interrupts its client, then lets it go)."""
        with self._lock:
            for b in self._batches.values():
                b.plan = BatchPlan(0, b.plan.outcome, b.plan.fail_lines, b.plan.expire_after)

    def status(self, batch_id: str) -> str:
        """A batch's status now (without counting as a poll)."""
        with self._lock:
            return self._batches[batch_id].status

    def wait_for_retrieves(self, n: int, *, timeout: float = 60.0) -> bool:
        """Block until at least ``n`` batch retrieves happened (a client is polling); ``False`` on ``timeout``."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self._lock:
                if self.retrieves >= n:
                    return True
            time.sleep(0.01)
        return False

    # -- the HTTP routes ---------------------------------------------------------------------------------

    def handle(self, method: str, path: str, headers: Any, raw: bytes) -> tuple[int, dict[str, Any] | bytes]:
        """The answer to one request under ``/v1/files`` or ``/v1/batches``: status and JSON (or raw bytes)."""
        route, _, query = path.partition("?")
        parts = [p for p in route.split("/") if p][1:]  # without "v1"
        with self._lock:
            if self._errors:
                status = self._errors.popleft()
                return status, _error(f"scripted HTTP {status}", "scripted_error")
            if parts == ["files"] and method == "POST":
                return self._upload(headers, raw)
            if len(parts) == 2 and parts[0] == "files" and method == "GET":
                f = self._files.get(parts[1])
                return (200, f.obj()) if f else _missing(path)
            if len(parts) == 3 and parts[0] == "files" and parts[2] == "content" and method == "GET":
                f = self._files.get(parts[1])
                return (200, f.data) if f else _missing(path)
            if parts == ["batches"] and method == "POST":
                return self._create(raw)
            if parts == ["batches"] and method == "GET":
                return 200, self._list(query)
            if len(parts) == 2 and parts[0] == "batches" and method == "GET":
                b = self._batches.get(parts[1])
                if b is None:
                    return _missing(path)
                self.retrieves += 1
                self._advance(b)
                return 200, b.obj()
            if len(parts) == 3 and parts[0] == "batches" and parts[2] == "cancel" and method == "POST":
                b = self._batches.get(parts[1])
                if b is None:
                    return _missing(path)
                if b.status in ("validating", "in_progress", "finalizing"):
                    b.times["cancelling_at"] = b.times["cancelled_at"] = int(time.time())
                    b.status = "cancelled"
                return 200, b.obj()
        return _missing(path)

    def _upload(self, headers: Any, raw: bytes) -> tuple[int, dict[str, Any]]:
        head = f"Content-Type: {headers.get('Content-Type', '')}\r\n\r\n".encode()
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + raw)
        fields: dict[str, tuple[str | None, bytes]] = {}
        for part in message.iter_parts() if message.is_multipart() else ():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True)
            if isinstance(name, str) and isinstance(payload, bytes):
                fields[name] = (part.get_filename(), payload)
        if "file" not in fields:
            return 400, _error("a multipart upload needs a 'file' part", "invalid_request_error")
        purpose = fields.get("purpose", (None, b""))[1].decode("utf-8", "replace")
        if purpose != "batch":
            return 400, _error(f"purpose must be 'batch', not {purpose!r}", "invalid_request_error")
        self.uploads += 1
        f = _File(
            f"file-sim-{uuid.uuid4().hex[:16]}",
            fields["file"][0] or "upload.jsonl",
            purpose,
            fields["file"][1],
            int(time.time()),
        )
        self._files[f.id] = f
        return 200, f.obj()

    def _create(self, raw: bytes) -> tuple[int, dict[str, Any]]:
        try:
            body = json.loads(raw)
            file_id = str(body["input_file_id"])
        except (ValueError, KeyError, TypeError):
            return 400, _error("body must be JSON with input_file_id", "invalid_request_error")
        if file_id not in self._files:
            return 404, _error(f"no file {file_id}", "not_found")
        endpoint = str(body.get("endpoint"))
        if endpoint != ENDPOINT:
            return 400, _error(f"the simulated server batches {ENDPOINT} only", "invalid_request_error")
        self.created += 1
        plan = self._plans.popleft() if self._plans else BatchPlan()
        b = _Batch(
            f"batch_sim_{uuid.uuid4().hex[:16]}",
            file_id,
            endpoint,
            str(body.get("completion_window") or "24h"),
            body.get("metadata"),
            plan,
            int(time.time()),
        )
        self._batches[b.id] = b
        return 200, b.obj()

    def _list(self, query: str) -> dict[str, Any]:
        args = dict(p.partition("=")[::2] for p in query.split("&") if p)
        batches = sorted(self._batches.values(), key=lambda b: b.created_at, reverse=True)
        if "after" in args:
            ids = [b.id for b in batches]
            batches = batches[ids.index(args["after"]) + 1 :] if args["after"] in ids else []
        limit = int(args.get("limit") or 20)
        page = batches[:limit]
        return {
            "object": "list",
            "data": [b.obj() for b in page],
            "first_id": page[0].id if page else None,
            "last_id": page[-1].id if page else None,
            "has_more": len(batches) > limit,
        }

    # -- progression -------------------------------------------------------------------------------------

    def _advance(self, b: _Batch) -> None:
        """One retrieve's worth of progress: validating -> in_progress (``polls``) -> finalizing -> the end."""
        now = int(time.time())
        if b.status == "validating":
            lines, errors = self._validate(self._files[b.input_file_id].data)
            b.total = len(lines)
            if errors or b.plan.outcome == "failed":
                b.errors = errors or [
                    {"code": "scripted_failure", "message": "scripted batch failure", "line": None}
                ]
                b.status, b.times["failed_at"] = "failed", now
                return
            b.status, b.times["in_progress_at"] = "in_progress", now
        if b.status == "in_progress":
            if b.polls_seen < b.plan.polls:
                b.polls_seen += 1
                return
            b.status, b.times["finalizing_at"] = "finalizing", now
            return
        if b.status == "finalizing":
            self._finish(b, now)

    def _validate(self, data: bytes) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        lines: list[dict[str, Any]] = []
        errors: list[dict[str, Any]] = []
        seen: set[str] = set()
        for n, text in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            try:
                line = json.loads(text)
                custom_id, url, body = line["custom_id"], line["url"], line["body"]
                ok = (
                    line.get("method") == "POST"
                    and url == ENDPOINT
                    and isinstance(body.get("messages"), list)
                )
            except (ValueError, KeyError, TypeError, AttributeError):
                errors.append({"code": "invalid_json_line", "message": "not a batch request", "line": n})
                continue
            if not ok:
                errors.append({"code": "invalid_request", "message": "needs POST to the endpoint", "line": n})
            elif custom_id in seen:
                errors.append({"code": "duplicate_custom_id", "message": f"{custom_id} repeated", "line": n})
            seen.add(custom_id)
            lines.append(line)
        return lines, errors

    def _finish(self, b: _Batch, now: int) -> None:
        lines, _ = self._validate(self._files[b.input_file_id].data)
        answered, failed = [], []
        for i, line in enumerate(lines):
            rid = f"batch_req_sim_{uuid.uuid4().hex[:12]}"
            if b.plan.outcome == "expired" and i >= b.plan.expire_after:
                error = {"code": "batch_expired", "message": "the batch expired before this request ran"}
                failed.append({"id": rid, "custom_id": line["custom_id"], "response": None, "error": error})
            elif i in b.plan.fail_lines:
                body = _error("scripted line failure", "server_error")
                response = {"status_code": 500, "request_id": rid, "body": body}
                failed.append(
                    {"id": rid, "custom_id": line["custom_id"], "response": response, "error": None}
                )
            else:
                response = {"status_code": 200, "request_id": rid, "body": self._complete(line["body"])}
                answered.append(
                    {"id": rid, "custom_id": line["custom_id"], "response": response, "error": None}
                )
        b.completed, b.failed = len(answered), len(failed)
        if answered:
            b.output_file_id = self._store_output(b, "output", answered)
        if failed:
            b.error_file_id = self._store_output(b, "errors", failed)
        b.status = "expired" if b.plan.outcome == "expired" else "completed"
        b.times[f"{b.status}_at"] = now

    def _store_output(self, b: _Batch, kind: str, rows: list[dict[str, Any]]) -> str:
        data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")
        f = _File(
            f"file-sim-{uuid.uuid4().hex[:16]}",
            f"{b.id}_{kind}.jsonl",
            "batch_output",
            data,
            int(time.time()),
        )
        self._files[f.id] = f
        return f.id


def _error(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "code": None}}


def _missing(path: str) -> tuple[int, dict[str, Any]]:
    return 404, _error(f"no route or object {path}", "not_found")
