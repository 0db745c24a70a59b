"""``llamacpp:PATH.gguf``: a GGUF embedding model run in process by llama.cpp's own server.

The server (:func:`ragcov_tui.llm.llamacpp_server.local_server` in embedding mode, the
``local-llm`` extra) listens on ``127.0.0.1``; requests go through the ``openai`` embedder's code
(batches, retries, reply checks). The cache names the model file (path, size, mtime, context),
not the server's random port, so a rerun embeds nothing twice. Local: no cost.
"""

from __future__ import annotations

from ragcov_tui.embeddings.remote import OpenAIEmbedder, RemoteEmbedder
from ragcov_tui.llm.llamacpp_server import LOCAL_KEY, local_server
from ragcov_tui.llm.openai_client import Endpoint, make_openai_client
from ragcov_tui.shared.concurrency import DEFAULT_CONCURRENCY
from ragcov_tui.shared.http_retry import RetryPolicy
from ragcov_tui.shared.redact import redact_url


class LlamaCppEmbedder(OpenAIEmbedder):
    provider = "llamacpp"
    paid = False
    batch_size = 32

    def __init__(self, path: str, *, concurrency: int = DEFAULT_CONCURRENCY, policy: RetryPolicy | None = None) -> None:
        self.server = local_server(path, embedding=True)
        RemoteEmbedder.__init__(self, str(self.server.path), concurrency=concurrency, policy=policy)
        endpoint = Endpoint(self.server.base_url, LOCAL_KEY, self.server.identity, self.server.n_ctx)
        self.client, self.base_url = make_openai_client(f"embedder llamacpp:{path}", self.policy, endpoint)
        self.what = f"llamacpp embeddings at {redact_url(self.base_url)}"

    @property
    def cache_model(self) -> str:
        return self.server.identity
