"""URL checks: syntax up front, and a TCP probe of an http system (skipped behind a proxy)."""

from __future__ import annotations

import socket

import pytest

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.urls import check_reachable, check_url


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/rag",
        "https://api.openai.com/v1",
        "http://[::1]:80/",
        "http://localhost",
        "https://user:pw@host.example:65535/a?b=c",
    ],
)
def test_good_urls_pass_unchanged(url: str) -> None:
    assert check_url(url, "--system") == url


@pytest.mark.parametrize(
    "url",
    [
        "",
        "http://",
        "localhost:80",
        "file:///etc/passwd",
        "http://h:65536/",
        "http://h:-1/",
        "http://h:0/",
        "http://h :1/",
        "http://\x00/",
        "http://a..b/",
    ],
)
def test_bad_urls_name_where_they_came_from(url: str) -> None:
    with pytest.raises(BadInput) as err:
        check_url(url, "$OPENAI_BASE_URL")
    assert str(err.value).startswith("$OPENAI_BASE_URL ") and "\n" not in str(err.value)


def test_a_password_is_not_shown() -> None:
    with pytest.raises(BadInput) as err:
        check_url("ftp://alice:hunter2@host/x", "--system")
    assert "hunter2" not in str(err.value)


def test_a_listening_port_is_reachable_and_a_closed_one_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        check_reachable(f"http://127.0.0.1:{port}/rag", "--system")
    with pytest.raises(
        BadInput,
        match=f"--system http://127.0.0.1:{port}/rag: cannot connect to 127.0.0.1:{port} "
        r"\(Connection refused\)",
    ):
        check_reachable(f"http://127.0.0.1:{port}/rag", "--system")
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")  # the proxy reaches the host, not us
    check_reachable(f"http://10.1.2.3:{port}/rag", "--system")
