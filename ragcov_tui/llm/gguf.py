"""Reading the metadata of a GGUF model file (llama.cpp's format) without loading the model.

Layout (little-endian): ``b"GGUF"``, ``uint32`` version (2 or 3), ``uint64`` tensor count,
``uint64`` key/value count, then the key/value pairs: a key (``uint64`` length + UTF-8 bytes), a
``uint32`` value type and the value (scalars, a length-prefixed string, or an array: ``uint32``
item type, ``uint64`` count, the items). :func:`read_gguf_metadata` returns the scalar and string
values (arrays are skipped: the vocabulary alone holds tens of thousands of strings) and raises
:class:`~ragcov_tui.errors.BadInput` naming the file for anything that is not a readable GGUF file.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any, BinaryIO

from ragcov_tui.errors import BadInput
from ragcov_tui.safe_text import visible

MAGIC = b"GGUF"
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
STRING, ARRAY = 8, 9
MAX_KEYS = 100_000  # far above any real file; a corrupt count fails here, not after reading gigabytes
MAX_STRING = 1 << 24


class _Corrupt(Exception):
    pass


def _read(f: BinaryIO, n: int) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise _Corrupt("the file ends inside its header")
    return data


def _unpack(f: BinaryIO, fmt: str) -> Any:
    return struct.unpack(fmt, _read(f, struct.calcsize(fmt)))[0]


def _string(f: BinaryIO) -> str:
    n = _unpack(f, "<Q")
    if n > MAX_STRING:
        raise _Corrupt(f"a string of {n} bytes")
    return _read(f, n).decode("utf-8", "replace")


def _value(f: BinaryIO, kind: int) -> Any:
    if kind in _SCALARS:
        return _unpack(f, _SCALARS[kind])
    if kind == STRING:
        return _string(f)
    if kind == ARRAY:
        item, count = _unpack(f, "<I"), _unpack(f, "<Q")
        if item in _SCALARS:
            f.seek(count * struct.calcsize(_SCALARS[item]), 1)
        else:
            for _ in range(count):
                _value(f, item)
        return None
    raise _Corrupt(f"unknown value type {kind}")


def read_gguf_metadata(path: str | Path) -> dict[str, Any]:
    """The scalar and string metadata of the GGUF file at ``path`` (``general.architecture``,
    ``{arch}.context_length``, ``general.name``…); BadInput naming the path when it is missing,
    unreadable or not GGUF."""
    shown = visible(str(path))
    try:
        with open(path, "rb") as f:
            if f.read(4) != MAGIC:
                raise BadInput(f"{shown}: not a GGUF model file (it does not start with 'GGUF')")
            version = _unpack(f, "<I")
            if version not in (2, 3):
                raise BadInput(f"{shown}: GGUF version {version} is not supported (2 or 3 expected)")
            _unpack(f, "<Q")  # tensor count
            n_keys = _unpack(f, "<Q")
            if n_keys > MAX_KEYS:
                raise _Corrupt(f"{n_keys} metadata keys")
            meta: dict[str, Any] = {}
            for _ in range(n_keys):
                key = _string(f)
                value = _value(f, _unpack(f, "<I"))
                if value is not None:
                    meta[key] = value
            return meta
    except FileNotFoundError:
        raise BadInput(f"{shown}: no such GGUF model file") from None
    except IsADirectoryError:
        raise BadInput(f"{shown}: is a directory, not a GGUF model file") from None
    except OSError as exc:
        raise BadInput(f"{shown}: cannot read the GGUF model file ({exc.strerror or exc})") from None
    except (_Corrupt, struct.error) as exc:
        raise BadInput(f"{shown}: damaged GGUF model file ({exc})") from None


def context_length(meta: dict[str, Any]) -> int | None:
    """The context the model was trained with (``{arch}.context_length``, llama.cpp's ``n_ctx_train``)."""
    value = meta.get(f"{meta.get('general.architecture', '')}.context_length")
    return int(value) if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
