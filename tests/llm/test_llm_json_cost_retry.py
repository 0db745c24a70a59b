"""Units: lenient JSON parsing, the price table, the retry policy's delays and messages."""

from __future__ import annotations

import pytest

from ragcov_tui.llm.cost import cost_of, price
from ragcov_tui.llm.json_reply import parse_json_reply
from ragcov_tui.shared.errors import ProviderError
from ragcov_tui.shared.http_retry import Failure, RetryPolicy, call_with_retry, parse_retry_after, status_failure


@pytest.mark.parametrize(
    "text,expected",
    [
        ('{"a": 1}', {"a": 1}),
        ('```json\n{"a": [1, 2]}\n```', {"a": [1, 2]}),
        ('```\n[{"x": "y"}]\n```', [{"x": "y"}]),
        ('The verdicts are: [1, 0, 1] as requested. {"not": "this"}', [1, 0, 1]),
        ('{"a": {"b": [1, 2,],},}', {"a": {"b": [1, 2]}}),
        ('{"s": "a } inside, ] a string", "n": null} trailing words', {"s": "a } inside, ] a string", "n": None}),
        ('{"quote": "she said \\"hi\\" }"}', {"quote": 'she said "hi" }'}),
        ('Use {placeholders} freely. Answer: {"ok": true}', {"ok": True}),
    ],
)
def test_parse_json_reply_accepts_what_models_send(text: str, expected: object) -> None:
    assert parse_json_reply(text) == expected


@pytest.mark.parametrize("text", ["", "   ", "no json at all", '{"unclosed": 1', "[1, 2"])
def test_parse_json_reply_says_why_it_failed(text: str) -> None:
    with pytest.raises(ValueError):
        parse_json_reply(text)


def test_prices_for_known_models_and_unknown_is_none() -> None:
    assert price("gpt-4o") == (2.50, 10.00)
    assert price("gpt-4o-2024-08-06") == (2.50, 10.00)
    assert cost_of(price("gpt-4o-mini"), 1_000_000, 1_000_000) == pytest.approx(0.75)
    assert cost_of(price("text-embedding-3-small"), 2_000_000) == pytest.approx(0.04)
    for model in (
        "gpt-4.1",
        "gpt-4.1-mini",
        "gpt-4.1-nano",
        "o3-mini",
        "text-embedding-3-large",
        "text-embedding-ada-002",
    ):
        assert price(model) is not None
    assert price("llama3:8b") is None and cost_of(price("llama3:8b"), 100, 100) is None


def test_backoff_grows_and_honours_retry_after() -> None:
    policy = RetryPolicy(attempts=5, base_delay=1.0, max_delay=30.0)
    for i in range(4):
        assert 0.5 * 2**i <= policy.delay(i, None) <= 1.5 * 2**i
    assert policy.delay(10, None) <= 45.0
    assert policy.delay(0, 7.0) == 7.0 and policy.delay(0, 999.0) == 30.0
    assert parse_retry_after({"retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None


def test_status_classification() -> None:
    assert status_failure(429, "slow down").retryable and status_failure(503, "").retryable
    assert not status_failure(400, "bad").retryable and not status_failure(401, "").retryable


def test_call_with_retry_sleeps_between_attempts_and_reports_one_line() -> None:
    sleeps: list[float] = []
    calls = {"n": 0}

    def flaky() -> str:
        calls["n"] += 1
        raise ConnectionError("boom")

    def classify(exc: BaseException) -> Failure | None:
        return Failure("boom", retryable=True, unreachable=True) if isinstance(exc, ConnectionError) else None

    with pytest.raises(ProviderError) as err:
        call_with_retry(
            flaky, classify=classify, policy=RetryPolicy(attempts=3, base_delay=0.1), what="x at y", sleep=sleeps.append
        )
    assert str(err.value) == "x at y: unreachable after 3 attempts (boom)"
    assert calls["n"] == 3 and len(sleeps) == 2
    with pytest.raises(KeyError):  # not a provider failure: propagates untouched
        call_with_retry(lambda: dict[str, int]()["k"], classify=classify, policy=RetryPolicy(attempts=3), what="x")
