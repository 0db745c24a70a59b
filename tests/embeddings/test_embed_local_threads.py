"""The local embedder's onnxruntime settings: sleeping workers, sequential graph, one thread per usable core."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort

from ragcov_tui.embeddings.local import OnnxEmbedder, cpu_threads, session_options


def test_session_options_favour_a_small_shared_cpu() -> None:
    options = session_options(ort)
    assert options.intra_op_num_threads == cpu_threads() >= 1
    assert options.inter_op_num_threads == 1
    assert options.execution_mode == ort.ExecutionMode.ORT_SEQUENTIAL
    assert options.graph_optimization_level == ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert options.get_session_config_entry("session.inter_op.allow_spinning") == "0"


def test_vectors_do_not_depend_on_batching_or_order() -> None:
    embedder = OnnxEmbedder.minilm()
    texts = ["short one", "a somewhat longer sentence about invoices and refunds " * 3, "word " * 400, "x"]
    together = embedder._embed_batch(texts)
    alone = np.vstack([embedder._embed_batch([t]) for t in reversed(texts)])[::-1]
    assert np.allclose(together, alone, atol=1e-5)
