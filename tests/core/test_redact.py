"""Credentials never leave a URL shown or stored: userinfo and secret-looking query values masked."""

from __future__ import annotations

import pytest

from ragcov_tui.shared.http_retry import html_summary, status_failure
from ragcov_tui.shared.redact import redact_text, redact_url, redact_values
from tests.support.stored import stored_session

SECRET_NAMES = [
    "api_key",
    "apikey",
    "API-KEY",
    "key",
    "access_key",
    "x-api-key",
    "token",
    "access_token",
    "refresh_token",
    "id_token",
    "Token",
    "secret",
    "client_secret",
    "password",
    "passwd",
    "pwd",
    "auth",
    "authorization",
    "oauth_token",
    "sig",
    "signature",
    "X-Amz-Signature",
    "credential",
    "X-Amz-Credential",
    "credentials",
    "session",
    "sessionid",
    "session_token",
    "cookie",
    "api%5Fkey",
    "private_key",
    "subscription-key",
    "code_secret",
]
PLAIN_NAMES = ["q", "model", "page", "limit", "lang", "version", "api-version", "format", "user", "deployment"]


@pytest.mark.parametrize("name", SECRET_NAMES)
@pytest.mark.parametrize("scheme", ["http", "https"])
def test_secret_query_values_are_masked(name: str, scheme: str) -> None:
    url = f"{scheme}://rag.example.com:8080/ask?q=refunds&{name}=S3CR3T-value&page=2"
    assert redact_url(url) == f"{scheme}://rag.example.com:8080/ask?q=refunds&{name}=***&page=2"


@pytest.mark.parametrize("name", PLAIN_NAMES)
def test_other_query_values_are_kept(name: str) -> None:
    url = f"https://h/ask?{name}=visible&token=hidden"
    assert redact_url(url) == f"https://h/ask?{name}=visible&token=***"


@pytest.mark.parametrize("userinfo", ["user:pass", "user", "u%40x:p%3Ass", ":only-password", "a:b:c"])
def test_userinfo_is_masked(userinfo: str) -> None:
    assert redact_url(f"http://{userinfo}@127.0.0.1:9/v1") == "http://***@127.0.0.1:9/v1"


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/v1",
        "https://api.openai.com/v1",
        "http://h/a?b=c#frag",
        "http://h/a?token=",
        "http://h/a?flag&x=1",
        "not a url",
        "",
        "http://h/users/@me/profile",
    ],
)
def test_urls_without_credentials_are_unchanged(url: str) -> None:
    assert redact_url(url) == url
    assert redact_text(url) == url


def test_fragments_and_semicolons_are_covered() -> None:
    assert redact_url("https://h/cb#access_token=abc&state=1") == "https://h/cb#access_token=***&state=1"
    assert redact_url("http://h/a?x=1;key=2") == "http://h/a?x=1;key=***"


@pytest.mark.parametrize(
    "text,expected",
    [
        ("http:http://u:p@h/ask?token=t", "http:http://***@h/ask?token=***"),
        (
            "openai chat at http://u:p@h/v1: unreachable (see http://h/?sig=s).",
            "openai chat at http://***@h/v1: unreachable (see http://h/?sig=***).",
        ),
        ('{"system": "https://h/x?api_key=k"}', '{"system": "https://h/x?api_key=***"}'),
        ("two http://a:b@x/ and https://c:d@y/?key=z, done", "two http://***@x/ and https://***@y/?key=***, done"),
    ],
)
def test_urls_inside_text_are_redacted(text: str, expected: str) -> None:
    assert redact_text(text) == expected
    assert redact_text(expected) == expected  # idempotent


def test_redact_values_walks_nested_structures() -> None:
    value = {"system": "http://h/?token=t", "k": 5, "list": ["http://u:p@h/", None], "t": ("https://h/?key=1",)}
    assert redact_values(value) == {
        "system": "http://h/?token=***",
        "k": 5,
        "list": ["http://***@h/", None],
        "t": ("https://h/?key=***",),
    }


@pytest.mark.parametrize(
    "body,summary",
    [
        ("<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head></html>", '"502 Bad Gateway"'),
        ("  <html><body><h1>Sign in</h1><p>to continue</p></body></html>", '"Sign in to continue"'),
        ("<HTML></HTML>", "an HTML page, not an API reply"),
    ],
)
def test_html_pages_are_summarised(body: str, summary: str) -> None:
    text = html_summary(body)
    assert text is not None and summary in text and "<" not in text
    assert status_failure(502, body).reason.startswith("HTTP 502: an HTML page")


@pytest.mark.parametrize("body", ['{"error": "x"}', "plain text", "", "a < b"])
def test_other_bodies_are_not_html(body: str) -> None:
    assert html_summary(body) is None


def test_sessions_store_urls_redacted_whoever_calls() -> None:
    from ragcov_tui.store.db import open_db
    from ragcov_tui.store.sessions import create_session, finish_session

    db = open_db(":memory:")
    sid = create_session(db, "eval", system="http:http://u:pw@h/ask?token=T0K", params={"system": "http://h/?key=K3Y"})
    finish_session(db, sid, "failed", error="ProviderError: http:http://u:pw@h/ask?token=T0K: HTTP 500")
    row = db.execute("SELECT system, params, error FROM sessions").fetchone()
    assert not any(secret in "".join(row) for secret in ("pw", "T0K", "K3Y"))
    session = stored_session(db, sid)
    assert session["system"] == "http:http://***@h/ask?token=***" and session["params"] == {
        "system": "http://h/?key=***"
    }
