"""Which model answers: a configured OpenAI-compatible endpoint, or rtlab's local simulated model.

The command line and the notebooks make this one choice through :func:`open_llm`: the CLI asks for the
simulated model explicitly (``--simulated``), a notebook takes it whenever no endpoint is configured, so
``make figures`` runs offline. Either way the answer says whether the model is simulated, and the notice that
says so. The API key goes to the client only: it is never in a notice, a description or a repr.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from rtlab.llm._client import (
    DEFAULT_DEADLINE,
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_PRICES,
    DEFAULT_TIMEOUT,
    LLMClient,
    load_prices,
)
from rtlab.llm._simulated import SimulatedServer

SIMULATED_NOTICE = "using the local SIMULATED model (rtlab.llm), not a real LLM"
"""What is said whenever the simulated model answers instead of an LLM."""

CacheChoice = Literal["all", "real", "none"]
"""Which answers the client caches: every answer, only a real endpoint's (the simulated model's answers follow
rtlab's code, so a cached one could be stale), or none."""


@dataclass(frozen=True)
class ChosenLLM:
    """The client :func:`open_llm` chose, and whether the simulated model is behind it."""

    client: LLMClient = field(repr=False)
    """The client to make requests with (closed when the ``with`` block ends)."""
    simulated: bool
    """Whether rtlab's local simulated model answers (a :class:`SimulatedServer`), not an LLM."""

    @property
    def notice(self) -> str | None:
        """:data:`SIMULATED_NOTICE` when the model is simulated, else ``None``."""
        return SIMULATED_NOTICE if self.simulated else None

    def describe(self) -> str:
        """One line naming the endpoint (without any credentials) and, when simulated, the notice."""
        where = without_credentials(self.client.base_url) if self.client.base_url else "the openai default"
        return f"endpoint: {where}" + (f" ({self.notice})" if self.notice else "")


def configured_endpoint(base_url: str | None = None) -> str | None:
    """The endpoint a client would call: ``base_url``, else ``OPENAI_BASE_URL``, else ``None`` (none set)."""
    return base_url or os.environ.get("OPENAI_BASE_URL") or None


@contextlib.contextmanager
def open_llm(
    *,
    simulated: bool | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    cache_dir: str | Path | None = None,
    cache: CacheChoice = "all",
    prices: Mapping[str, tuple[float, float]] | str | Path | None = None,
    on_notice: Callable[[str], object] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    deadline: float | None = DEFAULT_DEADLINE,
) -> Iterator[ChosenLLM]:
    """The client to annotate or recover with, for the duration of the ``with`` block.

    ``simulated``: ``True`` starts the local simulated model on 127.0.0.1 and points the client at it;
    ``False`` uses the configured endpoint (``base_url`` / ``OPENAI_BASE_URL`` and ``api_key`` /
    ``OPENAI_API_KEY``, as :class:`LLMClient` resolves them); ``None`` chooses the simulated model when no
    endpoint is configured (:func:`configured_endpoint`). ``prices``: a table, or the JSON file of one
    (:func:`load_prices`), default :data:`DEFAULT_PRICES`. ``on_notice`` is called with the notice as soon as
    the simulated model is started, before anything that could still fail (e.g. to print it). ``timeout``,
    ``max_attempts``, ``deadline``: the client's bounds per attempt and per call (:class:`LLMClient`).
    """
    if simulated is None:
        simulated = configured_endpoint(base_url) is None
    with contextlib.ExitStack() as stack:
        if simulated:
            base_url = stack.enter_context(SimulatedServer()).base_url
            if on_notice is not None:
                on_notice(SIMULATED_NOTICE)
        if prices is None:
            table = dict(DEFAULT_PRICES)
        elif isinstance(prices, str | Path):
            table = load_prices(prices)
        else:
            table = dict(prices)
        client = LLMClient(
            base_url=base_url,
            api_key=api_key,
            cache_dir=cache_dir,
            cache=cache == "all" or (cache == "real" and not simulated),
            prices=table,
            timeout=timeout,
            max_attempts=max_attempts,
            deadline=deadline,
        )
        stack.callback(client.close)
        yield ChosenLLM(client, simulated)


def without_credentials(url: str) -> str:
    """``url`` without a ``user:password@`` part, should one be written into it (what rtlab records of an
    endpoint)."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host  # an IPv6 address keeps its brackets
    netloc = f"{host}:{parts.port}" if parts.port is not None else host
    return urlunsplit(parts._replace(netloc=netloc))
