"""``--engine ray`` (issue #25 §2): the per-chunk pass as Ray Data tasks gives the local engine's
report — on 100k chunks in memory, from a memory-mapped ``.npy``, and read by Ray itself from a
LanceDB and a Parquet store (``read_lance`` / ``read_parquet``, the id and vector columns only) —
on a local Ray instance of 2 CPUs whose files all stay in one temporary folder under /tmp (a short
path: Ray's sockets live there), shut down after. Without Ray installed, ``--engine ray`` is one line
naming the extra, exit 2."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.coverage.analysis import analyze
from ragcov_tui.coverage.engine import make_engine
from ragcov_tui.coverage.params import CoverageParams
from ragcov_tui.services.analysis_job import ray_source
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.testset.models import Question
from ragcov_tui.vectorstores.corpus import read_store_corpus
from ragcov_tui.vectorstores.registry import parse_store_spec
from tests.cli.conftest import QUESTIONS, run_cli
from tests.vectorstores.stores import Rows, build_lancedb, build_parquet
from tests.vectorstores.test_store_corpus import difference

N, M, DIM, TOPICS = 100_000, 300, 32, 40


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[object]:
    """A local Ray instance of 2 CPUs, every file of it under one temporary folder, shut down after."""
    ray = pytest.importorskip("ray", reason="the ray extra: pip install 'ragcov-tui[ray]'")
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")
    saved = {k: os.environ.get(k) for k in ("RAY_AUTH_MODE", "RAY_ADDRESS", "HOME")}
    os.environ.update(RAY_AUTH_MODE="disabled", HOME=temp)  # no token file in the user's ~/.ray
    os.environ.pop("RAY_ADDRESS", None)
    try:
        ray.init(num_cpus=2, _temp_dir=temp, include_dashboard=False, log_to_driver=False)
        yield ray
    finally:
        ray.shutdown()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(5)
    centres = rng.standard_normal((TOPICS, DIM))
    C = centres[rng.integers(0, TOPICS, N)] + 0.3 * rng.standard_normal((N, DIM))
    Q = centres[rng.integers(0, TOPICS // 2, M)] + 0.3 * rng.standard_normal((M, DIM))
    Q[:3] = rng.standard_normal((3, DIM))  # off-topic questions: LOF outliers
    chunks = [Chunk(f"c{i}", f"topic words item{i % 50} detail{i % 7}", f"doc{i // 25}", i % 25) for i in range(N)]
    questions = [Question(f"q{j}", f"question {j}", gold={f"c{j * 300}": 1} if j % 2 else {}) for j in range(M)]
    return C.astype(np.float32), Q.astype(np.float32), chunks, questions


PARAMS = CoverageParams(max_projection_points=400)


@pytest.mark.slow
def test_the_ray_engine_gives_the_local_report_on_100k_chunks(ray_instance, data, tmp_path: Path) -> None:
    C, Q, chunks, questions = data
    local = analyze(C, Q, chunks, questions, PARAMS)
    engine = make_engine("ray")
    in_memory = analyze(C, Q, chunks, questions, PARAMS, engine=engine)  # the rows put in the object store
    path = tmp_path / "chunks.npy"
    np.save(path, C[:20_000])
    mapped = analyze(np.load(path, mmap_mode="r"), Q, chunks[:20_000], questions, PARAMS, engine=engine)  # read by path
    engine.close()
    assert ray_instance.is_initialized()  # an instance the engine found running is left running
    assert local.outliers.outlier.sum() and local.clustering.k > 2
    assert np.array_equal(in_memory.clustering.labels, local.clustering.labels)
    assert np.array_equal(in_memory.nearest_question, local.nearest_question)
    assert np.array_equal(in_memory.nearest_chunk, local.nearest_chunk)
    assert in_memory.mindist is not None and local.mindist is not None
    assert np.allclose(in_memory.mindist, local.mindist, rtol=0, atol=1e-12)
    assert difference(in_memory.to_report(), local.to_report()) is None
    assert (
        difference(mapped.to_report(), analyze(C[:20_000], Q, chunks[:20_000], questions, PARAMS).to_report()) is None
    )


@pytest.mark.slow
@pytest.mark.parametrize("build", [build_lancedb, build_parquet], ids=["lancedb", "parquet"])
def test_ray_reads_a_store_itself_and_gives_the_local_report(ray_instance, data, build, tmp_path: Path) -> None:
    C, Q, chunks, questions = data
    n = 6000  # vectors of length ~2 as stored: both engines normalise them
    rows = Rows([c.id for c in chunks[:n]], [c.text for c in chunks[:n]], [c.source for c in chunks[:n]], 2 * C[:n])
    spec = build(tmp_path / ("db" if build is build_lancedb else "rows.parquet"), rows)
    store = read_store_corpus(parse_store_spec(spec))
    source = ray_source(store, store.chunks)
    assert source is not None and source.kind == ("lance" if build is build_lancedb else "parquet")
    local = analyze(store.vectors.copy(), Q, store.chunks, questions, PARAMS)
    engine = make_engine("ray", source=source)
    on_ray = analyze(store.vectors.copy(), Q, store.chunks, questions, PARAMS, engine=engine)
    assert np.array_equal(on_ray.clustering.labels, local.clustering.labels)
    assert difference(on_ray.to_report(), local.to_report()) is None
    source.ids = [
        "x",
        *source.ids[1:],
    ]  # a store whose rows no longer match the corpus read: one line, not a wrong report
    with pytest.raises(BadInput, match="row 0 of the store is 'c0', the corpus read 'x' there"):
        analyze(store.vectors.copy(), Q, store.chunks, questions, PARAMS, engine=engine)


def test_engine_ray_without_ray_installed_is_one_line_naming_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError, as without the extra
    code = run_cli(
        "analyze",
        "--quiet",
        "--db",
        str(tmp_path / "r.db"),
        "--corpus",
        str(QUESTIONS.parent / "corpus"),
        "--questions",
        str(QUESTIONS),
        "--engine",
        "ray",
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err == ["error: --engine ray: Ray is not installed; pip install 'ragcov-tui[ray]'"]
