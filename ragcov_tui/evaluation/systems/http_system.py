"""``http:URL`` — a system behind an HTTP endpoint.

Each question is sent as ``POST URL`` with the JSON body ``{"question": "…"}``; the reply must be
JSON of the shape documented in :mod:`.python_callable` (``{"answer": str, "contexts": [{"id",
"text", "score"?}]}``); a reply holding ``NaN``, ``Infinity`` or an overflowing number is that
item's error (Python's parser would accept them). Timeouts, connection errors, 408 / 409 / 429
and 5xx are retried with the project's backoff policy (:mod:`ragcov_tui.shared.http_retry`,
``Retry-After`` honoured); what still fails becomes that item's error. One ``httpx.Client``
(thread-safe, pooled) serves every thread.
"""

from __future__ import annotations

import httpx

from ragcov_tui.evaluation.systems.base import SystemOutput, output_from_value
from ragcov_tui.shared.errors import ProviderError
from ragcov_tui.shared.http_retry import Failure, RetryPolicy, call_with_retry, root_cause_message, status_failure
from ragcov_tui.shared.input_values import InvalidJson, parse_json
from ragcov_tui.shared.redact import redact_url
from ragcov_tui.shared.urls import check_reachable


class HttpSystem:
    """POSTs the question, reads ``{"answer", "contexts"}`` back."""

    def __init__(self, url: str, *, policy: RetryPolicy | None = None) -> None:
        check_reachable(url, "--system")  # a malformed URL, a closed port or an unknown host: exit 2 now
        self.name = f"http:{redact_url(url)}"  # shown and stored: no credentials of the URL
        self.url = url
        self.policy = policy or RetryPolicy()
        self._client = httpx.Client(timeout=self.policy.timeout)

    def answer(self, question: str) -> SystemOutput:
        response = call_with_retry(
            lambda: self._post(question), classify=classify_httpx_error, policy=self.policy, what=self.name
        )
        try:
            data = parse_json(response.text)
        except InvalidJson as exc:  # not JSON, or NaN / Infinity / 1e309 in it: this item's error
            raise ProviderError(f"{self.name}: the reply is not valid JSON ({exc})") from None
        return output_from_value(data, self.name)

    def _post(self, question: str) -> httpx.Response:
        response = self._client.post(self.url, json={"question": question})
        response.raise_for_status()
        return response

    def close(self) -> None:
        self._client.close()


def classify_httpx_error(exc: BaseException) -> Failure | None:
    """Status errors by code (retry 408/409/429/5xx); transport errors and timeouts are retryable."""
    if isinstance(exc, httpx.HTTPStatusError):
        return status_failure(exc.response.status_code, exc.response.text, exc.response.headers)
    if isinstance(exc, httpx.TransportError):
        return Failure(reason=root_cause_message(exc), retryable=True, unreachable=isinstance(exc, httpx.ConnectError))
    return None
