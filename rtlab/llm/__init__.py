"""Language models over any OpenAI-compatible endpoint: the client (cache keyed on the normalised request,
retries, bounded concurrency, usage and cost, structured answers), the local simulated server that
stands in for a model in tests and offline notebooks (clearly labelled as simulated), and the one choice
between them (:func:`open_llm`); requests at scale through the OpenAI Batch API into the same cache
(:func:`run_batch`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtlab._lazy import attach

if TYPE_CHECKING:
    from rtlab.llm._batch import DEFAULT_POLL as DEFAULT_POLL
    from rtlab.llm._batch import BatchFailure as BatchFailure
    from rtlab.llm._batch import BatchOutcome as BatchOutcome
    from rtlab.llm._batch import BatchRun as BatchRun
    from rtlab.llm._batch import default_state_dir as default_state_dir
    from rtlab.llm._batch import run_batch as run_batch
    from rtlab.llm._choose import SIMULATED_NOTICE as SIMULATED_NOTICE
    from rtlab.llm._choose import CacheChoice as CacheChoice
    from rtlab.llm._choose import ChosenLLM as ChosenLLM
    from rtlab.llm._choose import configured_endpoint as configured_endpoint
    from rtlab.llm._choose import open_llm as open_llm
    from rtlab.llm._choose import without_credentials as without_credentials
    from rtlab.llm._client import ANSWER_FIELDS as ANSWER_FIELDS
    from rtlab.llm._client import CHARS_PER_TOKEN as CHARS_PER_TOKEN
    from rtlab.llm._client import DEFAULT_DEADLINE as DEFAULT_DEADLINE
    from rtlab.llm._client import DEFAULT_MAX_ATTEMPTS as DEFAULT_MAX_ATTEMPTS
    from rtlab.llm._client import DEFAULT_PRICES as DEFAULT_PRICES
    from rtlab.llm._client import DEFAULT_TIMEOUT as DEFAULT_TIMEOUT
    from rtlab.llm._client import REDACTED as REDACTED
    from rtlab.llm._client import TRANSPORTS as TRANSPORTS
    from rtlab.llm._client import Asked as Asked
    from rtlab.llm._client import CallResult as CallResult
    from rtlab.llm._client import DiskCache as DiskCache
    from rtlab.llm._client import DryRun as DryRun
    from rtlab.llm._client import LLMClient as LLMClient
    from rtlab.llm._client import LLMError as LLMError
    from rtlab.llm._client import Transport as Transport
    from rtlab.llm._client import ask_until_valid as ask_until_valid
    from rtlab.llm._client import call_cost as call_cost
    from rtlab.llm._client import corrective_message as corrective_message
    from rtlab.llm._client import default_cache_dir as default_cache_dir
    from rtlab.llm._client import load_prices as load_prices
    from rtlab.llm._client import normalize_request as normalize_request
    from rtlab.llm._client import parse_json_object as parse_json_object
    from rtlab.llm._client import redact as redact
    from rtlab.llm._client import request_key as request_key
    from rtlab.llm._client import results_frame as results_frame
    from rtlab.llm._client import usage_summary as usage_summary
    from rtlab.llm._scripted import Scripted as Scripted
    from rtlab.llm._simulated import SIMULATED_MODEL as SIMULATED_MODEL
    from rtlab.llm._simulated import SIMULATED_TAG as SIMULATED_TAG
    from rtlab.llm._simulated import SimulatedServer as SimulatedServer
    from rtlab.llm._simulated import echo_authorization as echo_authorization
    from rtlab.llm._simulated import empty_body as empty_body
    from rtlab.llm._simulated import http_error as http_error
    from rtlab.llm._simulated import refuse as refuse
    from rtlab.llm._simulated import reply as reply
    from rtlab.llm._simulated import reset_connection as reset_connection
    from rtlab.llm._simulated import sections as sections
    from rtlab.llm._simulated import simulate_answer as simulate_answer
    from rtlab.llm._simulated import simulate_label as simulate_label
    from rtlab.llm._simulated import simulate_recovery as simulate_recovery
    from rtlab.llm._simulated import slow as slow
    from rtlab.llm._simulated import truncated_body as truncated_body
    from rtlab.llm._simulated_agent import length_stop as length_stop
    from rtlab.llm._simulated_agent import malformed_call as malformed_call
    from rtlab.llm._simulated_agent import unknown_tool_call as unknown_tool_call
    from rtlab.llm._simulated_batch import BatchPlan as BatchPlan
    from rtlab.llm._simulated_batch import SimulatedBatches as SimulatedBatches
    from rtlab.llm._simulated_judge import simulate_judgement as simulate_judgement

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._batch": (
            "DEFAULT_POLL",
            "BatchFailure",
            "BatchOutcome",
            "BatchRun",
            "default_state_dir",
            "run_batch",
        ),
        "._choose": (
            "SIMULATED_NOTICE",
            "CacheChoice",
            "ChosenLLM",
            "configured_endpoint",
            "open_llm",
            "without_credentials",
        ),
        "._client": (
            "ANSWER_FIELDS",
            "CHARS_PER_TOKEN",
            "DEFAULT_DEADLINE",
            "DEFAULT_MAX_ATTEMPTS",
            "DEFAULT_PRICES",
            "DEFAULT_TIMEOUT",
            "REDACTED",
            "TRANSPORTS",
            "Transport",
            "Asked",
            "CallResult",
            "DiskCache",
            "DryRun",
            "LLMClient",
            "LLMError",
            "ask_until_valid",
            "call_cost",
            "corrective_message",
            "default_cache_dir",
            "load_prices",
            "normalize_request",
            "parse_json_object",
            "redact",
            "request_key",
            "results_frame",
            "usage_summary",
        ),
        "._simulated": (
            "SIMULATED_MODEL",
            "SIMULATED_TAG",
            "SimulatedServer",
            "echo_authorization",
            "empty_body",
            "http_error",
            "refuse",
            "reply",
            "reset_connection",
            "sections",
            "simulate_answer",
            "simulate_label",
            "simulate_recovery",
            "slow",
            "truncated_body",
        ),
        "._scripted": ("Scripted",),
        "._simulated_judge": ("simulate_judgement",),
        "._simulated_agent": ("length_stop", "malformed_call", "unknown_tool_call"),
        "._simulated_batch": ("BatchPlan", "SimulatedBatches"),
    },
)
